#!/usr/bin/env bash
# tierfs-tune, the binary: a short search prints the best configuration as a
# URI the simulator runs, writes one CSV row per evaluation (the URI quoted)
# with a best grade that never rises, repeats itself for a seed, and refuses
# bad flags and a bad space file by name. `characterize` builds a workload
# model and assigns workloads to its clusters; a run with --confdb writes what
# it measured under the target's cluster and a run on another workload of that
# cluster evaluates the stored configurations first; `show` lists them. A
# simulated search leaves the space's live-only rocksdb.NAME keys out; a short
# live search (--evaluator=live, db_bench through the plugin) prints the best
# URI and RocksDB options and writes an OPTIONS file db_bench runs with.
# --help of tierfs-tune, tierfs-sim and tierfs-trace shows their own flags.
#   tests/tune_tool_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD="$1" SRC="$2"
TUNE="$BUILD/tools/tune/tierfs-tune" SIM="$BUILD/tools/sim/tierfs-sim"
SPACE="$SRC/tools/tune/space.txt"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-tune-test-XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
check() {  # check NAME ok|REASON
  if [ "$2" = ok ]; then
    passed=$((passed + 1)); echo "ok   $1"
  else
    failed=$((failed + 1)); echo "FAIL $1: $2"
  fi
}
expect_error() {  # expect_error NAME TEXT ARGS...
  local name="$1" text="$2" out
  shift 2
  if out="$("$TUNE" "$@" 2>&1)"; then check "$name" "exit 0 (expected an error)"; return; fi
  if grep -qF -- "$text" <<<"$out"; then check "$name" ok; else check "$name" "got: $out"; fi
}

run() {  # run CSV SEED
  "$TUNE" --space="$SPACE" --workload=YCSB-B --others=LUN0 --optimizer=genetic --evaluations=12 \
    --requests=3000 --seed="$2" --csv="$1" --quiet
}
out="$(run "$TMP/a.csv" 4)"
uri="$(sed -n 's/^best //p' <<<"$out")"
check "prints the best as a URI" "$([[ "$uri" == tierfs://* ]] && echo ok || echo "got: $out")"
check "tierfs-sim runs it" \
  "$("$SIM" run --config="$uri" --workload=YCSB-B --requests=3000 --ceilings=none \
       >/dev/null 2>"$TMP/sim.err" && echo ok || cat "$TMP/sim.err")"
check "one CSV row per evaluation" \
  "$([ "$(wc -l <"$TMP/a.csv")" = 13 ] && echo ok || echo "$(wc -l <"$TMP/a.csv") lines")"
check "the URI is quoted" \
  "$(sed -n 2p "$TMP/a.csv" | grep -q ',"tierfs://[^"]*"$' && echo ok || sed -n 2p "$TMP/a.csv")"
check "the best grade never rises" "$(awk -F, 'NR > 2 && $5 > prev { bad = 1 } NR > 1 { prev = $5 }
  END { print bad ? "it rose" : "ok" }' "$TMP/a.csv")"
check "the default is first, at grade 0" \
  "$(awk -F, 'NR == 2 { print ($4 == 0 && $3 == 1) ? "ok" : $0 }' "$TMP/a.csv")"
run "$TMP/b.csv" 4 >/dev/null
check "same seed, same search" "$(cmp -s "$TMP/a.csv" "$TMP/b.csv" && echo ok || echo differ)"

note="$("$TUNE" --space="$SPACE" --workload=LUN0 --optimizer=random --evaluations=2 \
         --requests=3000 --csv="$TMP/d.csv" 2>&1 >/dev/null)"
check "a simulated search leaves the live-only keys out, saying so" \
  "$(grep -q 'live-only keys left out of the search: rocksdb.block_cache_size' <<<"$note" \
     && echo ok || echo "$note")"

# Live: a short search through db_bench on the emulated devices (2,000 keys);
# the best configuration's OPTIONS file is what RocksDB then runs with.
if [ -x /usr/bin/db_bench ]; then
  mkdir "$TMP/live"
  live="$("$TUNE" --space="$SPACE" --workload=fillrandom,readrandom --evaluator=live \
           --live_dir="$TMP/live" --live_num=2000 --optimizer=random --evaluations=3 \
           --csv="$TMP/live.csv" --options_out="$TMP/best.ini" --quiet)"
  luri="$(sed -n 's/^best //p' <<<"$live")"
  check "live: the best is a TierFS URI without RocksDB keys" \
    "$([[ "$luri" == tierfs://* && "$luri" != *rocksdb.* ]] && echo ok || echo "got: $live")"
  wbs="$(sed -n 's/^rocksdb .*write_buffer_size=\([^ ]*\).*/\1/p' <<<"$live")"
  check "live: the best's RocksDB options are printed" "$([ -n "$wbs" ] && echo ok || echo "$live")"
  check "live: one CSV row per evaluation" \
    "$([ "$(wc -l <"$TMP/live.csv")" = 4 ] && echo ok || cat "$TMP/live.csv")"
  check "live: the runs are removed" "$([ -z "$(ls "$TMP/live")" ] && echo ok || ls "$TMP/live")"
  bytes="$(numfmt --from=iec "$wbs")"
  check "live: the OPTIONS file carries the best's values in bytes" \
    "$(grep -qx "  write_buffer_size=$bytes" "$TMP/best.ini" && echo ok || cat "$TMP/best.ini")"
  mkdir -p "$TMP/run/t0" "$TMP/run/t1"
  # PRELOAD (tests/plugin_preload.sh): ASan's runtime ahead of an ASan plugin,
  # set in the subshell only, so the leak check stays on for the rest.
  check "live: db_bench runs with that OPTIONS file" \
    "$(PLUGIN="$BUILD/libtierfs.so"; . "$SRC/tests/plugin_preload.sh"
       LD_PRELOAD="$PRELOAD" /usr/bin/db_bench --options_file="$TMP/best.ini" \
         --fs_uri="tierfs://$TMP/run/t0:64M:optane,$TMP/run/t1:1G:sata-ssd" --db=/db \
         --benchmarks=fillseq --num=1000 >"$TMP/run.log" 2>&1 && echo ok || tail -5 "$TMP/run.log")"
  expect_error "live: a failed run names the configuration" "under 'tierfs://" \
    --space="$SPACE" --workload=fillrandom --evaluator=live --live_dir="$TMP/live" \
    --db_bench=/bin/false --evaluations=1 --csv="$TMP/e.csv"
  expect_error "live: needs a directory" "--evaluator=live needs --live_dir" --space="$SPACE" \
    --workload=fillrandom --evaluator=live
  expect_error "live: does not write the ConfDB" "a live run does not write the ConfDB" \
    --space="$SPACE" --workload=fillrandom --evaluator=live --live_dir="$TMP/live" \
    --confdb="$TMP/x" --model="$TMP/y"
fi
expect_error "unknown evaluator" "unknown --evaluator 'fast'" --space="$SPACE" --workload=LUN0 \
  --evaluator=fast

expect_error "no workload" "--space=FILE and --workload=NAME|TRACE are required" --space="$SPACE"
expect_error "unknown optimizer" "unknown optimizer 'ppo'" --space="$SPACE" --workload=LUN0 \
  --optimizer=ppo
expect_error "unknown workload" "workload 'nosuch'" --space="$SPACE" --workload=nosuch \
  --evaluations=2 --csv="$TMP/c.csv"
expect_error "bad seeds" "bad seed 'x' in --seeds" --space="$SPACE" --workload=LUN0 --seeds=1,x
printf 'tiers /f:64M:optane,/s:1G:hdd\ncopy_page discrete 4K 5K\n' >"$TMP/bad.txt"
expect_error "bad space file" "$TMP/bad.txt line 2 (copy_page)" --space="$TMP/bad.txt" \
  --workload=LUN0

# Characterization and ConfDB.
MODEL="$TMP/model.json" CDB="$TMP/confdb"
out="$("$TUNE" characterize --model="$MODEL" --workloads=YCSB-B,YCSB-C,LUN0,LUN1,ResNet50 \
  --requests=9000 2>&1)"
check "characterize writes a model" "$([ -s "$MODEL" ] && echo ok || echo "$out")"
cluster() { sed -n "s/^$1: cluster \([0-9]*\).*/\1/p" <<<"$out"; }
check "YCSB-B and YCSB-C share a cluster, LUN0 has another" \
  "$([ "$(cluster YCSB-B)" = "$(cluster YCSB-C)" ] && [ "$(cluster YCSB-B)" != "$(cluster LUN0)" ] \
     && echo ok || echo "$out")"
one="$("$TUNE" characterize --model="$MODEL" --workload=YCSB-C --workload_seed=5 \
  --requests=9000)"
check "a new seed of YCSB-C goes to YCSB-B's cluster" \
  "$(grep -q "^YCSB-C: cluster $(cluster YCSB-B) of model" <<<"$one" && echo ok || echo "$one")"
tune_cdb() {  # tune_cdb WORKLOAD CSV EVALUATIONS
  "$TUNE" --space="$SPACE" --workload="$1" --optimizer=bayes --evaluations="$3" --requests=9000 \
    --csv="$2" --confdb="$CDB" --model="$MODEL" --warm=3 --quiet
}
tune_cdb YCSB-B "$TMP/cdb-a.csv" 10 >/dev/null
shown="$("$TUNE" show --confdb="$CDB")"
check "show lists the cluster's trials" \
  "$(grep -q "cluster/$(cluster YCSB-B): 10 trials of 1 workloads" <<<"$shown" && echo ok \
     || echo "$shown")"
tune_cdb YCSB-C "$TMP/cdb-b.csv" 6 >/dev/null
best="$(sed -n 's/^  YCSB-B: best [-0-9.]*  //p' <<<"$shown")"
first="$(sed -n '2s/.*,"\(tierfs:[^"]*\)"$/\1/p' "$TMP/cdb-b.csv")"
check "the warm start evaluates YCSB-B's best first" \
  "$([ "$best" = "$first" ] && echo ok || printf 'stored: %s\nfirst: %s' "$best" "$first")"
check "the second workload is written beside the first" \
  "$("$TUNE" show --confdb="$CDB" | grep -q 'trials of 2 workloads' && echo ok || echo no)"
# recommend: the cluster's stored configurations without evaluating, YCSB-B's best first for a
# new seed of YCSB-C (the nearest stored workload is ranked by position: either may lead, so
# the check is that YCSB-B's best is listed and every line names a stored grade).
rec="$("$TUNE" recommend --confdb="$CDB" --model="$MODEL" --workload=YCSB-C --workload_seed=5 \
  --requests=9000 --warm=3 --space="$SPACE")"
check "recommend names the cluster and lists stored configurations" \
  "$(grep -q "^YCSB-C: cluster $(cluster YCSB-B) of model .* [0-9]* trials of 2 workloads" <<<"$rec" \
     && [ "$(grep -c '^[1-3]\. tierfs://.*(grade -\?[0-9.]* on YCSB-[BC])$' <<<"$rec")" = 3 ] \
     && echo ok || echo "$rec")"
check "recommend lists YCSB-B's best" \
  "$(grep -qF "$best  (grade" <<<"$rec" && echo ok || printf '%s\nwanted: %s' "$rec" "$best")"
check "recommend evaluates nothing: ConfDB unchanged" \
  "$("$TUNE" show --confdb="$CDB" | grep -q 'trials of 2 workloads' && echo ok || echo no)"
expect_error "recommend for a cluster with nothing stored" "nothing stored for cluster" \
  recommend --confdb="$CDB" --model="$MODEL" --workload=LUN0 --requests=9000
expect_error "recommend needs a model" "--confdb=DIR, --model=FILE and --workload=W" \
  recommend --confdb="$CDB" --workload=LUN0
expect_error "--confdb needs --model" "--confdb needs --model" --space="$SPACE" --workload=LUN0 \
  --confdb="$CDB"
echo '{"format": "tierfs-tune workload model 1"}' >"$TMP/bad-model.json"
expect_error "a bad model is named" "model $TMP/bad-model.json" --space="$SPACE" \
  --workload=LUN0 --confdb="$CDB" --model="$TMP/bad-model.json"
expect_error "characterize needs a model" "--model=FILE and either" characterize --workloads=LUN0
expect_error "unknown command" "unexpected argument 'tune'" tune

# --help lists each tool's own flags, not the sixty of RocksDB's tools that
# Debian's librocksdb registers when it loads (--helpfull still has them).
for tool in "$TUNE" "$SIM" "$BUILD/tools/sim/tierfs-trace"; do
  help="$("$tool" --help 2>&1)"
  name="$(basename "$tool")"
  check "$name --help: its flags" "$(grep -q -- "-seed\|-workload\|-out" <<<"$help" && echo ok || echo "got: $help")"
  check "$name --help: none of librocksdb's" \
    "$(grep -q "trace_analyzer\|block_cache_trace" <<<"$help" && echo "got: $help" || echo ok)"
done

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
