#!/usr/bin/env bash
# Debian's prebuilt db_bench, ldb and sst_dump on TierFS through LD_PRELOAD and
# --fs_uri, plus the tierfs admin tool on the result.
#   tests/stock_tools_test.sh BUILD_DIR
set -euo pipefail
BUILD="$1"
PLUGIN="$BUILD/libtierfs.so"
. "$(dirname "${BASH_SOURCE[0]}")/plugin_preload.sh"  # sets PRELOAD (ASan runtime first)
TMP="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-tools-XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/t0" "$TMP/t1"
URI="tierfs://$TMP/t0:2M,$TMP/t1:1G;segment_size:256K"
passed=0
failed=0
check() {  # check NAME CONDITION-RESULT
  if [ "$2" = ok ]; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1: $2"; fi
}

# saved_at: where the tool's store saved STATS last (env/stats_file.h).
saved_at() { sed -n 's/.*"saved_at": "\([a-z ]*\)".*/\1/p' "$TMP/t0/meta/STATS" 2>/dev/null; }

bench_rc=0
LD_PRELOAD="$PRELOAD" db_bench --fs_uri="$URI" --db=/dbt --benchmarks=fillseq --num=20000 \
  --value_size=100 --compression_type=none >"$TMP/bench.out" 2>&1 || bench_rc=$?
check "db_bench fillseq on tierfs://" "$(grep -q 'fillseq *:' "$TMP/bench.out" && echo ok || tail -5 "$TMP/bench.out")"
# db_bench keeps its Env in a static: the store ends during static destruction.
check "db_bench exits 0 and its store saves STATS at close" \
  "$([ "$bench_rc" = 0 ] && [ "$(saved_at)" = close ] && echo ok || echo "status $bench_rc, STATS saved at '$(saved_at)'")"

ldb_rc=0
LD_PRELOAD="$PRELOAD" ldb --fs_uri="$URI" --db=/dbt scan >"$TMP/ldb.out" 2>"$TMP/ldb.err" || ldb_rc=$?
count=$(wc -l <"$TMP/ldb.out")
check "ldb scan reads back 20000 keys and exits 0" "$([ "$count" = 20000 ] && [ "$ldb_rc" = 0 ] && echo ok || echo "got $count, status $ldb_rc: $(head -3 "$TMP/ldb.err")")"

LD_PRELOAD="$PRELOAD" ldb --fs_uri="$URI" --db=/dbt put tierfs-key tierfs-value >/dev/null
value=$(LD_PRELOAD="$PRELOAD" ldb --fs_uri="$URI" --db=/dbt get tierfs-key)
check "ldb put then get" "$([ "$value" = tierfs-value ] && echo ok || echo "got '$value'")"

LD_PRELOAD="$PRELOAD" sst_dump --fs_uri="$URI" --file=/dbt --command=check >"$TMP/sst.out" 2>&1 || true
check "sst_dump checks the table files" "$(grep -q 'Process /dbt/.*\.sst' "$TMP/sst.out" && ! grep -qi 'corrupt\|error' "$TMP/sst.out" && echo ok || tail -5 "$TMP/sst.out")"

"$BUILD/tierfs" --fs_uri="$URI" stats >"$TMP/stats.out"
check "tierfs stats lists both tiers" "$(grep -q "^0 .*$TMP/t0" "$TMP/stats.out" && grep -q "^1 .*$TMP/t1" "$TMP/stats.out" && echo ok || cat "$TMP/stats.out")"

"$BUILD/tierfs" --fs_uri="$URI" --db=/dbt ls >"$TMP/ls.out"
check "tierfs ls shows table files with segments on tier 1" "$(awk '$1 == "sst" && $4 > 0 {found=1} END {exit !found}' "$TMP/ls.out" && echo ok || cat "$TMP/ls.out")"

if LD_PRELOAD="$PRELOAD" db_bench --fs_uri="tierfs://$TMP/t0:0" --db=/x --benchmarks=fillseq >"$TMP/bad.out" 2>&1; then
  check "a bad URI is refused" "db_bench succeeded"
else
  check "a bad URI is refused, naming the part" "$(grep -q 'capacity must be greater than zero' "$TMP/bad.out" && echo ok || cat "$TMP/bad.out")"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
