#!/usr/bin/env bash
# The tierfs admin tool's shape and its RocksDB commands (issue 15): Debian's
# db_bench writes a database on TierFS (plugin under LD_PRELOAD), then
# `tierfs ldb` and `tierfs sst_dump` read it back in the tool's own process,
# without LD_PRELOAD, and `tierfs help` and the usage errors behave.
#   tests/admin_tool_test.sh BUILD_DIR
set -euo pipefail
BUILD="$1"
TOOL="$BUILD/tierfs"
PLUGIN="$BUILD/libtierfs.so"
. "$(dirname "${BASH_SOURCE[0]}")/plugin_preload.sh"  # sets PRELOAD (ASan runtime first)
TMP="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-admin-XXXXXX")"
bench_pid=""
cleanup() {
  if [ -n "$bench_pid" ]; then kill "$bench_pid" 2>/dev/null || true; wait "$bench_pid" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP/t0" "$TMP/t1"
URI="tierfs://$TMP/t0:2M,$TMP/t1:1G;segment_size:256K"
DB=/tierfs_admin_test_db  # a logical path: it exists only inside TierFS
NUM=20000
passed=0
failed=0
check() {  # check NAME CONDITION-RESULT
  if [ "$2" = ok ]; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1: $2"; fi
}
tierfs() { env -u LD_PRELOAD "$TOOL" "$@"; }
stock_ldb() { LD_PRELOAD="$PRELOAD" ldb --fs_uri="$URI" --db="$DB" "$@"; }
saved_at() { sed -n 's/.*"saved_at": "\([a-z ]*\)".*/\1/p' "$TMP/t0/meta/STATS" 2>/dev/null; }

# ---- a database written by db_bench: NUM keys, 100-byte values, several table files
LD_PRELOAD="$PRELOAD" db_bench --fs_uri="$URI" --db="$DB" --benchmarks=fillseq --num=$NUM \
  --value_size=100 --write_buffer_size=262144 --compression_type=none >"$TMP/bench.out" 2>&1
check "db_bench fillseq on tierfs:// (the database lives only inside TierFS)" \
  "$(grep -q 'fillseq *:' "$TMP/bench.out" && [ ! -e "$DB" ] && echo ok || tail -5 "$TMP/bench.out")"

# ---- tierfs ldb scan reads back exactly the keys db_bench wrote
rc=0
tierfs --fs_uri="$URI" ldb --db="$DB" scan --key_hex >"$TMP/scan.out" 2>"$TMP/scan.err" || rc=$?
# db_bench's fillseq key i: 8 bytes big-endian, padded with '0' to 16 bytes.
seq 0 $((NUM - 1)) | awk '{printf "0x%016X3030303030303030\n", $1}' >"$TMP/keys.expected"
cut -d' ' -f1 "$TMP/scan.out" >"$TMP/keys.got"
check "tierfs ldb scan reads back the $NUM keys db_bench wrote, in order, and exits 0" \
  "$([ "$rc" = 0 ] && cmp -s "$TMP/keys.expected" "$TMP/keys.got" && echo ok ||
     echo "status $rc, $(wc -l <"$TMP/keys.got") keys, first diff: $(diff "$TMP/keys.expected" "$TMP/keys.got" | sed -n 2p); $(head -3 "$TMP/scan.err")")"
check "the tool closed its store cleanly" \
  "$([ "$(saved_at)" = close ] && echo ok || echo "STATS saved at '$(saved_at)'")"

# ---- tierfs ldb get: the values db_bench wrote, as the stock ldb with the plugin reads them
for i in 0 $((NUM / 2)) $((NUM - 1)); do
  key=$(printf '0x%016X3030303030303030' "$i")
  ours=$(tierfs --fs_uri="$URI" --db="$DB" ldb get --key_hex --value_hex "$key" 2>&1) || true
  stock=$(stock_ldb get --key_hex --value_hex "$key" 2>&1) || true
  in_scan=$(tierfs --fs_uri="$URI" ldb --db="$DB" scan --key_hex --value_hex --from="$key" --max_keys=1 |
            cut -d' ' -f3)
  check "tierfs ldb get of key $i: db_bench's 100-byte value, as stock ldb and scan read it" \
    "$([ "${#ours}" = 202 ] && [ "$ours" = "$stock" ] && [ "$ours" = "$in_scan" ] && echo ok ||
       echo "ours '$ours', stock '$stock', scan '$in_scan'")"
done
rc=0
tierfs --fs_uri="$URI" --db="$DB" ldb get no-such-key >"$TMP/get.out" 2>&1 || rc=$?
check "tierfs ldb get of a missing key fails" \
  "$([ "$rc" != 0 ] && grep -q NotFound "$TMP/get.out" && echo ok || echo "status $rc: $(cat "$TMP/get.out")")"

# ---- writes through tierfs ldb, read by the stock tool, and the other way
tierfs --fs_uri="$URI" ldb --db="$DB" put tierfs-key tierfs-value >/dev/null
stock_ldb put stock-key stock-value >/dev/null
check "tierfs ldb put is read by stock ldb, stock ldb put by tierfs ldb" \
  "$(v1=$(stock_ldb get tierfs-key); v2=$(tierfs --fs_uri="$URI" ldb --db="$DB" get stock-key)
     [ "$v1" = tierfs-value ] && [ "$v2" = stock-value ] && echo ok || echo "got '$v1', '$v2'")"

# ---- compaction and the MANIFEST through tierfs ldb
rc=0
tierfs --fs_uri="$URI" ldb --db="$DB" compact >"$TMP/compact.out" 2>&1 || rc=$?
count=$(tierfs --fs_uri="$URI" ldb --db="$DB" scan --key_hex | wc -l)
check "tierfs ldb compact, then scan: every key still there" \
  "$([ "$rc" = 0 ] && [ "$count" = $((NUM + 2)) ] && echo ok || echo "status $rc, $count keys: $(head -3 "$TMP/compact.out")")"
tierfs --fs_uri="$URI" --db="$DB" ls | awk '$1 == "sst" {print $NF}' | sed 's|.*/0*||' | sort >"$TMP/ls.sst"
tierfs --fs_uri="$URI" ldb --db="$DB" manifest_dump --hex >"$TMP/manifest.out"
sed -n 's/^ *\([0-9]*\):[0-9]*\[.*/\1.sst/p' "$TMP/manifest.out" | sort >"$TMP/manifest.sst"
check "tierfs ldb manifest_dump names the table files tierfs ls shows" \
  "$([ -s "$TMP/ls.sst" ] && cmp -s "$TMP/ls.sst" "$TMP/manifest.sst" && echo ok ||
     echo "ls: $(tr '\n' ' ' <"$TMP/ls.sst"); manifest: $(tr '\n' ' ' <"$TMP/manifest.sst")")"

# ---- tierfs sst_dump checks every table file, and finds a damaged one
rc=0
tierfs --fs_uri="$URI" sst_dump --file="$DB" --command=check --verify_checksum \
  >"$TMP/sst.out" 2>"$TMP/sst.err" || rc=$?
processed=$(sed -n "s|^Process $DB/0*\([0-9]*\.sst\)$|\1|p" "$TMP/sst.out" | sort)
check "tierfs sst_dump --command=check passes on every table file" \
  "$([ "$rc" = 0 ] && [ ! -s "$TMP/sst.err" ] && [ "$processed" = "$(cat "$TMP/ls.sst")" ] && echo ok ||
     echo "status $rc, processed '$processed': $(head -3 "$TMP/sst.err")")"

# ---- help and usage errors
tierfs help >"$TMP/help.out"
missing=""
for c in stats metrics ls segments heatmap watch check move replicate prefetch drop-copy pin unpin hint queue errors ldb sst_dump help; do
  [ "$(grep -c "^  $c  " "$TMP/help.out")" = 1 ] || missing="$missing $c"
done
check "tierfs help lists every command on one line" \
  "$([ -z "$missing" ] && echo ok || echo "missing:$missing")"
tierfs help stats >"$TMP/help-stats.out"
check "tierfs help stats prints its usage and options" \
  "$(grep -q '^usage: tierfs --fs_uri=URI \[--json\] stats$' "$TMP/help-stats.out" &&
     grep -q '^  --json ' "$TMP/help-stats.out" && echo ok || cat "$TMP/help-stats.out")"
tierfs help ldb >"$TMP/help-ldb.out"
check "tierfs help ldb ends with RocksDB's ldb help" \
  "$(grep -q '^usage: tierfs --fs_uri=URI \[--db=DIR\] ldb ARGS...$' "$TMP/help-ldb.out" &&
     grep -q 'manifest_dump' "$TMP/help-ldb.out" && echo ok || head -5 "$TMP/help-ldb.out")"
rc=0
tierfs --fs_uri="$URI" frobnicate >"$TMP/unknown.out" 2>&1 || rc=$?
check "an unknown command fails, naming it, in the tool's diagnostic form" \
  "$([ "$rc" = 2 ] && grep -q "^tierfs: error: unknown command 'frobnicate'" "$TMP/unknown.out" && echo ok || echo "status $rc: $(cat "$TMP/unknown.out")")"
rc=0
tierfs help frobnicate >"$TMP/unknown-help.out" 2>&1 || rc=$?
check "help on an unknown command fails, naming it" \
  "$([ "$rc" = 2 ] && grep -q "^tierfs help: error: unknown command 'frobnicate'" "$TMP/unknown-help.out" && echo ok || echo "status $rc: $(cat "$TMP/unknown-help.out")")"
rc=0
tierfs --fs_uri="$URI" --frobnicate stats >"$TMP/flag.out" 2>&1 || rc=$?
check "an unknown option fails, naming it" \
  "$([ "$rc" != 0 ] && grep -q "frobnicate" "$TMP/flag.out" && echo ok || echo "status $rc: $(cat "$TMP/flag.out")")"
rc=0
tierfs --fs_uri="$URI" --segments=1 stats >"$TMP/nottaken.out" 2>&1 || rc=$?
check "an option the command does not take fails, naming both" \
  "$([ "$rc" = 2 ] && grep -q "^tierfs stats: error: option --segments does not apply" "$TMP/nottaken.out" &&
     grep -q "^usage: tierfs --fs_uri=URI \[--json\] stats$" "$TMP/nottaken.out" && echo ok || echo "status $rc: $(cat "$TMP/nottaken.out")")"
rc=0
tierfs --fs_uri="$URI" check foo >"$TMP/check-arg.out" 2>&1 || rc=$?
check "an argument to a command that takes none (check foo) fails, naming it, with the usage" \
  "$([ "$rc" = 2 ] && grep -q "^tierfs check: error: takes no arguments, got 'foo'$" "$TMP/check-arg.out" &&
     grep -q "^usage: tierfs --fs_uri=URI .*check$" "$TMP/check-arg.out" && echo ok || echo "status $rc: $(cat "$TMP/check-arg.out")")"
rc=0
tierfs --fs_uri="$URI" ldb --env_uri=posix:// --db="$DB" scan >"$TMP/envuri.out" 2>&1 || rc=$?
check "tierfs ldb refuses --env_uri" \
  "$([ "$rc" = 2 ] && grep -q -- "^tierfs ldb: error: --env_uri is not taken" "$TMP/envuri.out" && echo ok || echo "status $rc: $(cat "$TMP/envuri.out")")"
check "--fs_uri after \`ldb\` is the tool's too" \
  "$([ "$(tierfs ldb --fs_uri="$URI" --db="$DB" get tierfs-key)" = tierfs-value ] && echo ok || echo no)"

# ---- damage: a byte of a table file's data changed on its tier; sst_dump reports it
# On a second store of small table files: one that is a single segment and its backing file
# (data/<file id> on the segment's tier, the one whose size is the file's).
mkdir -p "$TMP/d0" "$TMP/d1"
URI2="tierfs://$TMP/d0:2M,$TMP/d1:1G;segment_size:256K"
LD_PRELOAD="$PRELOAD" db_bench --fs_uri="$URI2" --db="$DB" --benchmarks=fillseq --num=4000 \
  --value_size=100 --write_buffer_size=131072 --compression_type=none >"$TMP/bench2.out" 2>&1
read -r name size tier < <(tierfs --fs_uri="$URI2" --json --db="$DB" ls | /usr/bin/python3 -c '
import json, sys
for f in json.load(sys.stdin):
    s = f["segments_per_tier"]
    if f["kind"] == "sst" and sum(s) == 1:
        print(f["name"], f["size"], s.index(1)); break') || true
damaged=0
for backing in "$TMP/d${tier:-x}"/data/*; do
  if [ -f "$backing" ] && [ "$(stat -c %s "$backing")" = "$size" ]; then
    printf 'XXXX' | dd of="$backing" bs=1 seek=100 conv=notrunc 2>/dev/null
    damaged=$((damaged + 1))
  fi
done
rc=0
tierfs --fs_uri="$URI2" sst_dump --file="${name:-none}" --command=check --verify_checksum \
  >"$TMP/bad.out" 2>&1 || rc=$?
# sst_dump exits 0 after reporting a damaged file (RocksDB's behaviour): the report is the check.
check "tierfs sst_dump --verify_checksum reports a damaged table file, naming it" \
  "$([ "$damaged" -ge 1 ] && grep -q "^$name: Corruption: block checksum mismatch" "$TMP/bad.out" && echo ok ||
     echo "damaged $damaged backing files of '$name' ($size bytes, tier $tier), status $rc: $(cat "$TMP/bad.out")")"

# ---- progress (tools/tierfs/progress.h): a line redrawn on stderr when it is a terminal, nothing
# otherwise. The terminal is script(1)'s pty, which carries stdout and stderr together.
# The largest table file: its first segment moves to tier 0 (to a pipe), then every segment
# not on tier 1 moves there (on a terminal), at least that one.
big=$(tierfs --fs_uri="$URI" --json --db="$DB" ls | /usr/bin/python3 -c '
import json, sys
print(max((f for f in json.load(sys.stdin) if f["kind"] == "sst"), key=lambda f: f["size"])["name"])') || true
bad_usage=0
tierfs --fs_uri="$URI" move "$big" x 2>"$TMP/badtier.err" || bad_usage=$?
check "a bad tier is a usage error (exit 2) naming it, in the tool's diagnostic form" \
  "$([ "$bad_usage" = 2 ] && grep -q "^tierfs move: error: bad tier 'x'$" "$TMP/badtier.err" && echo ok || echo "status $bad_usage: $(cat "$TMP/badtier.err")")"
rc=0
tierfs --fs_uri="$URI" move "$big" 0 --segments=0 >"$TMP/move-pipe.out" 2>"$TMP/move-pipe.err" || rc=$?
check "move run by the tool, stderr not a terminal: the result on stdout, nothing on stderr" \
  "$([ "$rc" = 0 ] && [ ! -s "$TMP/move-pipe.err" ] && [ "$(head -1 "$TMP/move-pipe.out")" = "move: done" ] && echo ok ||
     echo "status $rc: $(cat "$TMP/move-pipe.err" "$TMP/move-pipe.out")")"
rc=0
env -u LD_PRELOAD script -qec "'$TOOL' --fs_uri='$URI' move '$big' 1" /dev/null >"$TMP/move-tty.out" 2>&1 || rc=$?
check "move run by the tool on a terminal: a progress line of the segments it moves, then the result" \
  "$([ "$rc" = 0 ] && grep -qaE $'\rmove: ([1-9][0-9]*) of \\1 segments, .* moved, .*/s, about 0 s left' "$TMP/move-tty.out" &&
     grep -qa '^move: done' "$TMP/move-tty.out" && echo ok || echo "status $rc: $(cat -A "$TMP/move-tty.out" | head -5)")"
rc=0
tierfs --fs_uri="$URI" check >"$TMP/check-pipe.out" 2>"$TMP/check-pipe.err" || rc=$?
check "check, stderr not a terminal: the report on stdout, nothing on stderr" \
  "$([ "$rc" = 0 ] && [ ! -s "$TMP/check-pipe.err" ] && grep -q '^clean: no findings' "$TMP/check-pipe.out" && echo ok ||
     echo "status $rc: $(cat "$TMP/check-pipe.err" "$TMP/check-pipe.out" | head -5)")"
rc=0
env -u LD_PRELOAD script -qec "'$TOOL' --fs_uri='$URI' check" /dev/null >"$TMP/check-tty.out" 2>&1 || rc=$?
check "check on a terminal: a progress line (bytes examined of all, rate, time left), then the report" \
  "$([ "$rc" = 0 ] && grep -qa $'\rcheck: [0-9.]* [KMG]*i*B of [0-9.]* [KMG]*i*B, .*/s, about 0 s left' "$TMP/check-tty.out" &&
     grep -qa '^clean: no findings' "$TMP/check-tty.out" && echo ok || echo "status $rc: $(cat -A "$TMP/check-tty.out" | head -5)")"

# ---- the steering commands run by the tool (no process has the store open), each checked by its
# effect: on a store of single-segment table files, some on each tier (fillseq, as db_bench wrote
# the first store). `segments --json` and `stats --json` read the store again after the tool closed it.
mkdir -p "$TMP/s0" "$TMP/s1"
URI3="tierfs://$TMP/s0:2M,$TMP/s1:1G;segment_size:256K"
LD_PRELOAD="$PRELOAD" db_bench --fs_uri="$URI3" --db="$DB" --benchmarks=fillseq --num=$NUM \
  --value_size=100 --write_buffer_size=262144 --compression_type=none >"$TMP/bench3.out" 2>&1
# FILE's segments as "tier/copy ..." (copy -1: none), and a tier's stats --json field.
placement() {
  tierfs --fs_uri="${2:-$URI3}" --json --db="$DB" segments | /usr/bin/python3 -c '
import json, sys
print(" ".join("%d/%d" % (s["tier"], s["copy_tier"]) for s in json.load(sys.stdin) if s["file"] == sys.argv[1]))' "$1"
}
tier_stat() {
  tierfs --fs_uri="$URI3" --json stats | /usr/bin/python3 -c '
import json, sys
print(json.load(sys.stdin)[int(sys.argv[1])][sys.argv[2]])' "$1" "$2"
}
# The table files on tier 1 (oldest first), for one command each.
mapfile -t on1 < <(tierfs --fs_uri="$URI3" --json --db="$DB" ls | /usr/bin/python3 -c '
import json, sys
for f in json.load(sys.stdin):
    if f["kind"] == "sst" and f["segments_per_tier"] == [0, 1]: print(f["name"])')
check "the steering store has at least 4 single-segment table files on tier 1" \
  "$([ "${#on1[@]}" -ge 4 ] && echo ok || echo "${#on1[@]}: $(tail -3 "$TMP/bench3.out")")"
pinned="${on1[0]:-none}" replicated="${on1[1]:-none}" prefetched="${on1[2]:-none}" hinted="${on1[3]:-none}"

rc=0
tierfs --fs_uri="$URI3" pin "$pinned" 0 >"$TMP/pin.out" 2>&1 || rc=$?
check "pin FILE 0 run by the tool: done, the note that the pin ends with it, the segment on tier 0" \
  "$([ "$rc" = 0 ] && [ "$(head -1 "$TMP/pin.out")" = "pin: done" ] &&
     grep -q '^(no process has the store open: data moved here; pins .*last only while' "$TMP/pin.out" &&
     [ "$(placement "$pinned")" = 0/-1 ] && echo ok || echo "status $rc, $(placement "$pinned"): $(cat "$TMP/pin.out")")"
rc=0
tierfs --fs_uri="$URI3" unpin "$pinned" >"$TMP/unpin.out" 2>&1 || rc=$?
check "unpin FILE run by the tool: done, nothing moved (the policy places the file again)" \
  "$([ "$rc" = 0 ] && [ "$(head -1 "$TMP/unpin.out")" = "unpin: done" ] &&
     [ "$(placement "$pinned")" = 0/-1 ] && echo ok || echo "status $rc, $(placement "$pinned"): $(cat "$TMP/unpin.out")")"
rc=0
tierfs --fs_uri="$URI3" unpin /no/such.sst >"$TMP/unpin-missing.out" 2>&1 || rc=$?
check "unpin of a file the store does not have fails, naming it" \
  "$([ "$rc" = 1 ] && grep -q '^tierfs unpin: error: .*/no/such.sst: no such file in TierFS' "$TMP/unpin-missing.out" &&
     echo ok || echo "status $rc: $(cat "$TMP/unpin-missing.out")")"

copies_in=$(tier_stat 0 copies_in)
rc=0
env -u LD_PRELOAD script -qec "'$TOOL' --fs_uri='$URI3' replicate '$replicated' 0" /dev/null \
  >"$TMP/replicate-tty.out" 2>&1 || rc=$?
check "replicate FILE 0 on a terminal: a progress line, done, a durable copy on tier 0, counted" \
  "$([ "$rc" = 0 ] && grep -qa $'\rreplicate: 1 of 1 segments, .* moved, .*/s, about 0 s left' "$TMP/replicate-tty.out" &&
     grep -qa '^replicate: done' "$TMP/replicate-tty.out" && [ "$(placement "$replicated")" = 1/0 ] &&
     [ "$(tier_stat 0 copies_in)" = $((copies_in + 1)) ] && echo ok ||
     echo "status $rc, $(placement "$replicated"), copies_in $copies_in -> $(tier_stat 0 copies_in): $(cat -A "$TMP/replicate-tty.out" | head -3)")"
dropped=$(tier_stat 0 copies_dropped)
rc=0
tierfs --fs_uri="$URI3" drop-copy "$replicated" >"$TMP/drop.out" 2>&1 || rc=$?
check "drop-copy FILE: done, the copy gone, counted as dropped on its tier" \
  "$([ "$rc" = 0 ] && [ "$(head -1 "$TMP/drop.out")" = "drop-copy: done" ] &&
     [ "$(placement "$replicated")" = 1/-1 ] && [ "$(tier_stat 0 copies_dropped)" = $((dropped + 1)) ] &&
     echo ok || echo "status $rc, $(placement "$replicated"), dropped $dropped -> $(tier_stat 0 copies_dropped): $(cat "$TMP/drop.out")")"
copies_in=$(tier_stat 0 copies_in)
rc=0
tierfs --fs_uri="$URI3" prefetch "$prefetched" 0 >"$TMP/prefetch.out" 2>&1 || rc=$?
check "prefetch FILE 0 run by the tool: done, a copy made on tier 0, forgotten when the tool closed" \
  "$([ "$rc" = 0 ] && [ "$(head -1 "$TMP/prefetch.out")" = "prefetch: done" ] &&
     [ "$(tier_stat 0 copies_in)" = $((copies_in + 1)) ] && [ "$(placement "$prefetched")" = 1/-1 ] &&
     echo ok || echo "status $rc, $(placement "$prefetched"), copies_in $copies_in -> $(tier_stat 0 copies_in): $(cat "$TMP/prefetch.out")")"
rc=0
tierfs --fs_uri="$URI3" hint "$hinted" cold >"$TMP/hint.out" 2>&1 || rc=$?
check "hint FILE cold run by the tool: done, with the note that it ends with the tool" \
  "$([ "$rc" = 0 ] && [ "$(head -1 "$TMP/hint.out")" = "hint: done" ] &&
     grep -q '^(no process has the store open: .*last only while a process has the store open)' "$TMP/hint.out" &&
     [ "$(placement "$hinted")" = 1/-1 ] && echo ok || echo "status $rc: $(cat "$TMP/hint.out")")"
rc=0
tierfs --fs_uri="$URI3" hint "$hinted" lukewarm >"$TMP/hint-bad.out" 2>&1 || rc=$?
check "hint with an unknown hint is a usage error naming it" \
  "$([ "$rc" = 2 ] && grep -q "^tierfs hint: error: unknown access hint 'lukewarm'" "$TMP/hint-bad.out" &&
     echo ok || echo "status $rc: $(cat "$TMP/hint-bad.out")")"

# The same commands sent to a process that has the store open (db_bench, its migration thread
# on): pins and hints are recorded there, and pin's moves queued and waited for. The admin
# channel's directory, left by the tool's own opens above, is made again when db_bench opens
# the store: without removing it first the wait below did not wait, and on a loaded machine
# the tool opened the store itself before db_bench, which was then refused and exited.
rm -rf "$TMP/s0/meta/admin"
LD_PRELOAD="$PRELOAD" db_bench --fs_uri="$URI3;migration:on" --db="$DB" --use_existing_db=1 \
  --num=$NUM --benchmarks=readrandom --duration=600 >"$TMP/busy3.out" 2>&1 &
bench_pid=$!
for _ in $(seq 600); do [ -d "$TMP/s0/meta/admin" ] && break; sleep 0.05; done
rc=0
tierfs --fs_uri="$URI3" pin "$pinned" 1 --wait >"$TMP/pin-live.out" 2>&1 || rc=$?
check "pin FILE 1 --wait in a running process: queued, waited for, the segment on tier 1" \
  "$([ "$rc" = 0 ] && [ "$(head -1 "$TMP/pin-live.out")" = "pin: queued" ] &&
     grep -q '^pin: the queued manual moves are done' "$TMP/pin-live.out" &&
     [ "$(placement "$pinned")" = 1/-1 ] && echo ok || echo "status $rc, $(placement "$pinned"): $(cat "$TMP/pin-live.out")")"
rc=0
tierfs --fs_uri="$URI3" --cf=default hint cold >"$TMP/hint-live.out" 2>&1 || rc=$?
check "hint --cf=default cold in a running process: recorded there (done, no note of the tool's own)" \
  "$([ "$rc" = 0 ] && [ "$(cat "$TMP/hint-live.out")" = "hint: done" ] && echo ok ||
     echo "status $rc: $(cat "$TMP/hint-live.out")")"
rc=0
tierfs --fs_uri="$URI3" unpin "$pinned" >"$TMP/unpin-live.out" 2>&1 || rc=$?
check "unpin FILE in a running process: answered there" \
  "$([ "$rc" = 0 ] && grep -qE '^unpin: (queued|done)$' "$TMP/unpin-live.out" &&
     ! grep -q 'no process has the store open' "$TMP/unpin-live.out" && echo ok ||
     echo "status $rc: $(cat "$TMP/unpin-live.out")")"
kill "$bench_pid"; wait "$bench_pid" 2>/dev/null || true; bench_pid=""

# ---- tierfs cat: a file's bytes, read through TierFS wherever its segments are
current=$(tierfs --fs_uri="$URI" cat "$DB/CURRENT")
check "tierfs cat CURRENT names the MANIFEST that tierfs ls lists" \
  "$([ -n "$current" ] && tierfs --fs_uri="$URI" --db="$DB" ls | grep -q " $DB/$current\$" && echo ok ||
     echo "CURRENT '$current'; ls: $(tierfs --fs_uri="$URI" --db="$DB" ls | grep MANIFEST)")"
options=$(tierfs --fs_uri="$URI" --db="$DB" ls | awk '{print $NF}' | grep '/OPTIONS-' | tail -n 1)
tierfs --fs_uri="$URI" cat "$options" >"$TMP/options.ini"
check "tierfs cat OPTIONS: RocksDB's options file, as db_bench's run left it" \
  "$(grep -q '^\[DBOptions\]' "$TMP/options.ini" && grep -q 'write_buffer_size=262144' "$TMP/options.ini" &&
     echo ok || echo "$(head -5 "$TMP/options.ini")")"
# A table spread over both tiers (tier 0 is 2 MiB): out of the store, RocksDB's own sst_dump,
# without TierFS, checks every block's checksum.
table=$(tierfs --fs_uri="$URI" --db="$DB" ls | awk '$1 == "sst" && $4 > 0 && $5 > 0 {print $NF; exit}')
[ -n "$table" ] || table=$(tierfs --fs_uri="$URI" --db="$DB" ls | awk '$1 == "sst" {print $NF; exit}')
tierfs --fs_uri="$URI" cat "$table" >"$TMP/copy.sst"
size=$(tierfs --fs_uri="$URI" --db="$DB" ls | awk -v t="$table" '$NF == t {print $2}')
rc=0
env -u LD_PRELOAD sst_dump --file="$TMP/copy.sst" --command=check >"$TMP/sst-check.out" 2>&1 || rc=$?
check "tierfs cat of a table on both tiers: its size, and stock sst_dump checks it clean" \
  "$([ "$(stat -c %s "$TMP/copy.sst")" = "$size" ] && [ "$rc" = 0 ] &&
     ! grep -qi corrupt "$TMP/sst-check.out" && echo ok ||
     echo "table $table: $(stat -c %s "$TMP/copy.sst") of $size bytes, sst_dump status $rc: $(head -3 "$TMP/sst-check.out")")"
rc=0
tierfs --fs_uri="$URI" cat "$DB/no-such-file" >"$TMP/cat-missing.out" 2>&1 || rc=$?
check "tierfs cat of a missing file fails naming it" \
  "$([ "$rc" = 1 ] && grep -q "$DB/no-such-file" "$TMP/cat-missing.out" && echo ok || echo "status $rc: $(cat "$TMP/cat-missing.out")")"
rc=0
tierfs --fs_uri="$URI" cat >"$TMP/cat-none.out" 2>&1 || rc=$?
check "tierfs cat without a FILE is a usage error" \
  "$([ "$rc" = 2 ] && grep -q "one FILE" "$TMP/cat-none.out" && echo ok || echo "status $rc: $(cat "$TMP/cat-none.out")")"

# ---- a store open in another process is refused, not opened twice
rm -rf "$TMP/t0/meta/admin"  # made again when the store opens: the sign db_bench has it
LD_PRELOAD="$PRELOAD" db_bench --fs_uri="$URI" --db="$DB" --use_existing_db=1 --num=$NUM \
  --benchmarks=readrandom --duration=600 >"$TMP/busy.out" 2>&1 &
bench_pid=$!
# The store is open once its admin channel's directory exists (created at open).
for _ in $(seq 600); do [ -d "$TMP/t0/meta/admin" ] && break; sleep 0.05; done
rc=0
tierfs --fs_uri="$URI" ldb --db="$DB" scan >"$TMP/busy-ldb.out" 2>&1 || rc=$?
check "tierfs ldb refuses a store another process has open" \
  "$([ "$rc" = 1 ] && grep -q "in use by another process" "$TMP/busy-ldb.out" && echo ok || echo "status $rc: $(head -3 "$TMP/busy-ldb.out")")"

# ---- --wait in a running process: the moves queued there, followed until done; a progress line
# on a terminal only. Its migration thread carries 1 MiB/s, so two segments take a few polls.
kill "$bench_pid"; wait "$bench_pid" 2>/dev/null || true; bench_pid=""
rm -rf "$TMP/t0/meta/admin"
LD_PRELOAD="$PRELOAD" db_bench --fs_uri="$URI;migration:on;migration_rate:1M" --db="$DB" \
  --use_existing_db=1 --num=$NUM --benchmarks=readrandom --duration=600 >"$TMP/busy2.out" 2>&1 &
bench_pid=$!
for _ in $(seq 600); do [ -d "$TMP/t0/meta/admin" ] && break; sleep 0.05; done
rc=0
tierfs --fs_uri="$URI" move "$big" 0 --segments=0-1 --wait >"$TMP/wait-pipe.out" 2>"$TMP/wait-pipe.err" || rc=$?
check "move --wait in a running process, stderr not a terminal: queued, then done, nothing on stderr" \
  "$([ "$rc" = 0 ] && [ ! -s "$TMP/wait-pipe.err" ] && grep -q '^move: queued$' "$TMP/wait-pipe.out" &&
     grep -q '^move: the queued manual moves are done ([0-9]* waited for, .* moved in .* s)$' "$TMP/wait-pipe.out" &&
     echo ok || echo "status $rc: $(cat "$TMP/wait-pipe.err" "$TMP/wait-pipe.out")")"
rc=0
env -u LD_PRELOAD script -qec "'$TOOL' --fs_uri='$URI' move '$big' 1 --segments=0-1 --wait" /dev/null \
  >"$TMP/wait-tty.out" 2>&1 || rc=$?
check "move --wait on a terminal: a progress line of the manual moves, then done" \
  "$([ "$rc" = 0 ] && grep -qaE $'\rmove: [0-9]+ of [0-9]+ manual moves, .* moved, .*/s, about .* left' "$TMP/wait-tty.out" &&
     grep -qa '^move: the queued manual moves are done' "$TMP/wait-tty.out" && echo ok ||
     echo "status $rc: $(cat -A "$TMP/wait-tty.out" | head -5)")"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
