#!/usr/bin/env bash
# The Prometheus metrics (issue 15): Debian's db_bench on TierFS through
# LD_PRELOAD with the URI key metrics_file, then `tierfs metrics` on the store
# at rest; both validated by tests/validate_metrics.py (python3-prometheus-
# client's parser plus Prometheus's naming rules), and the counters of the
# file written at close equal to those `tierfs metrics` reads back from STATS.
#   tests/metrics_test.sh BUILD_DIR
set -euo pipefail
BUILD="$1"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-metrics-XXXXXX")"
PLUGIN="$BUILD/libtierfs.so"
. "$HERE/plugin_preload.sh"  # sets PRELOAD (ASan runtime first)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/t0" "$TMP/t1"
URI="tierfs://$TMP/t0:2M:optane,$TMP/t1:1G:sata-ssd;segment_size:256K"
failed=0
check() {  # check NAME COMMAND...
  local name="$1"; shift
  if out=$("$@" 2>&1); then echo "ok   $name"; else failed=1; echo "FAIL $name"; echo "$out"; fi
}

# While db_bench runs, the file is replaced every 100 ms: sample it.
LD_PRELOAD="$PRELOAD" db_bench --fs_uri="$URI;metrics_file:$TMP/live.prom;metrics_ms:100" \
  --db=/db --benchmarks=fillrandom,readrandom --num=20000 --reads=20000 --value_size=100 \
  --write_buffer_size=262144 --cache_size=65536 --compression_type=none >"$TMP/bench.out" 2>&1 &
bench=$!
for _ in $(seq 200); do
  [ -s "$TMP/live.prom" ] && grep -q 'tierfs_writes_total{tier="0"' "$TMP/live.prom" && break
  sleep 0.05
done
cp "$TMP/live.prom" "$TMP/sample.prom" 2>/dev/null || true
if ! wait "$bench"; then echo "FAIL db_bench"; tail -5 "$TMP/bench.out"; exit 1; fi

check "a file sampled while db_bench ran is valid" \
  /usr/bin/python3 "$HERE/validate_metrics.py" "$TMP/sample.prom" --tiers=2
# The store-wide families: the error counters, the migration engine's counters and queue.
STORE_WIDE=()
for name in tierfs_store_errors_total tierfs_migration_enabled tierfs_migration_moves_total \
    tierfs_migration_moved_bytes_total tierfs_migration_skipped_total \
    tierfs_migration_given_up_total tierfs_migration_waits_total \
    tierfs_migration_queue_length tierfs_migration_running; do
  STORE_WIDE+=("--present=$name")
done
check "a file sampled while db_bench ran has the error and migration families" \
  /usr/bin/python3 "$HERE/validate_metrics.py" "$TMP/sample.prom" --tiers=2 "${STORE_WIDE[@]}" \
  --positive=tierfs_migration_enabled
check "the file written at close is valid and counts the run" \
  /usr/bin/python3 "$HERE/validate_metrics.py" "$TMP/live.prom" --tiers=2 \
  --positive=tierfs_user_reads_total --positive=tierfs_write_bytes_total \
  --positive=tierfs_read_latency_seconds_count "${STORE_WIDE[@]}"
check "no temporary file is left" test ! -e "$TMP/live.prom.tmp"

"$BUILD/tierfs" --fs_uri="$URI" metrics >"$TMP/rest.prom"
# The migration engine's counters run since the store opened; the rest cover its life.
check "tierfs metrics is valid and its counters are those written at close" \
  /usr/bin/python3 "$HERE/validate_metrics.py" "$TMP/rest.prom" --tiers=2 "${STORE_WIDE[@]}" \
  --counters-equal="$TMP/live.prom" --ignore=tierfs_migration_

# A file the validator must refuse: a counter without _total, no HELP.
printf '# TYPE tierfs_reads counter\ntierfs_reads{tier="0",device="d",path="/p"} 1\n' >"$TMP/bad.prom"
check "the validator refuses a counter without _total or HELP" \
  bash -c "! /usr/bin/python3 '$HERE/validate_metrics.py' '$TMP/bad.prom'"
exit $failed
