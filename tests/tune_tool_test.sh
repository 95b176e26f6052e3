#!/usr/bin/env bash
# tierfs-tune, the binary: a short search prints the best configuration as a
# URI the simulator runs, writes one CSV row per evaluation (the URI quoted)
# with a best grade that never rises, repeats itself for a seed, and refuses
# bad flags and a bad space file by name.
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

expect_error "no workload" "--space=FILE and --workload=NAME|TRACE are required" --space="$SPACE"
expect_error "unknown optimizer" "unknown optimizer 'ppo'" --space="$SPACE" --workload=LUN0 \
  --optimizer=ppo
expect_error "unknown workload" "workload 'nosuch'" --space="$SPACE" --workload=nosuch \
  --evaluations=2 --csv="$TMP/c.csv"
expect_error "bad seeds" "bad seed 'x' in --seeds" --space="$SPACE" --workload=LUN0 --seeds=1,x
printf 'tiers /f:64M:optane,/s:1G:hdd\ncopy_page discrete 4K 5K\n' >"$TMP/bad.txt"
expect_error "bad space file" "$TMP/bad.txt line 2 (copy_page)" --space="$TMP/bad.txt" \
  --workload=LUN0

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
