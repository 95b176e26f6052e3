#!/usr/bin/env bash
# restart.sh: does a restart cool tier 0? (issue 33, "a restart does not cool
# tier 0"). Tier 0's share of the bytes of the last WINDOW user reads before a
# clean restart, against its share of the first WINDOW after it, with the
# hot-page copies kept across the restart (as TierFS does) and forgotten (the
# saved state removed before the reopen: what every restart did before
# f0a3856).
#
# Each run, on a fresh store (tfs_store in lib.sh), tier 0 an emulated
# FAST_DEVICE holding FAST_PCT % of the data, tier 1 sata-ssd:
#   load RECORDS records (tierfs-ycsb, workloada's layout), wait for compactions
#   WORKLOAD for OPS operations: one process, closed cleanly at its end
#   (forgotten: meta/PAGES.state removed then)
#   WORKLOAD for OPS_AFTER operations in a new process
# Both processes are traced. The windows are user reads of table files (the
# reopen's WAL replay and MANIFEST reads count as the application's, and come
# from tier 0: a share over all reads rose at every restart, copies or not):
# the last WINDOW of them before the restart and the first WINDOW after it,
# each read's bytes counted on the tier that served it. The statistics log
# gives the copies' bytes at the reopen.
#
# Rounds: ROUNDS (default 3), each with SYSTEMS x {kept, forgotten} in its own
# rotation (tfs_round_order). benchmarks/rounds.py reports, per system and
# mode, both shares and the share after over the share before (1: the restart
# cost nothing; medians and spreads), and kept over forgotten, paired by
# round, with its 95% interval.
#
# Usage: benchmarks/restart.sh [--quick]; knobs in the environment (--help).
# Writes benchmarks/results/restart.md and .csv (restart-quick.* with --quick).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"

usage() {
  cat <<EOF
usage: $0 [--quick]
  --quick   smoke run: ROUNDS=1 RECORDS=30000 OPS=30000 OPS_AFTER=15000 WINDOW=3000
environment:
  ROUNDS       rounds (default 3)
  SYSTEMS      comma-separated TierFS policies (default fast-first,lru)
  WORKLOAD     a tierfs-ycsb workload of lib.sh's tfs_ycsb_workload (default b-zipf)
  RECORDS      records loaded (default 200000: ~220 MB)
  OPS          operations before the restart (default 200000)
  OPS_AFTER    operations after it (default 40000)
  WINDOW       user reads of each window (default 10000)
  FAST_PCT     tier 0, % of the data (default 10); CACHE_PCT block cache, % (default 1)
  FAST_DEVICE  tier 0's device model (default optane); STATS_MS (default 100)
EOF
}

QUICK=0
tfs_args usage --quick -- "$@"
if ((QUICK)); then
  : "${ROUNDS:=1}" "${RECORDS:=30000}" "${OPS:=30000}" "${OPS_AFTER:=15000}" "${WINDOW:=3000}"
fi
: "${ROUNDS:=3}" "${SYSTEMS:=fast-first,lru}" "${WORKLOAD:=b-zipf}" "${RECORDS:=200000}"
: "${OPS:=200000}" "${OPS_AFTER:=40000}" "${WINDOW:=10000}" "${FAST_PCT:=10}" "${CACHE_PCT:=1}"
: "${FAST_DEVICE:=optane}" "${STATS_MS:=100}" "${THREADS:=1}"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "restart.sh: ROUNDS must be a positive number, not '$ROUNDS'" >&2; exit 2; }
COMMAND="$0 $*"

tfs_setup restart
tfs_build tierfs_ycsb_tool tierfs_trace_tool
YCSB="$BUILD/tools/ycsb/tierfs-ycsb" TRACE_TOOL="$BUILD/tools/sim/tierfs-trace"
NAME=restart
if ((QUICK)); then NAME+="-quick"; fi
OUT_MD="$RESULTS/$NAME.md" OUT_CSV="$RESULTS/$NAME.csv"

DATA=$((RECORDS * 1100))  # records x ~1.1 KB of tables
TIER0=$((DATA * FAST_PCT / 100))
tfs_options_file 4 16M $((DATA * CACHE_PCT / 100)) >"$WORK/ycsb.ini"

CASES=""
IFS=, read -r -a POLICIES <<<"$SYSTEMS"
for p in "${POLICIES[@]}"; do CASES+="${CASES:+,}$p/kept,$p/forgotten"; done

RUNS="$WORK/runs.csv"
echo "round,position,bench,system,share_before,share_after,after_over_before,copies_at_first_open_mib,copies_at_reopen_mib" >"$RUNS"

# window TRACE SIDE: tier 0's share of the bytes of WINDOW user reads of
# table files in TRACE, its last ones (SIDE "end") or its first ("start").
window() {
  "$TRACE_TOOL" to-csv "$1" --full 2>/dev/null | "$PY" -c '
import collections, sys
side, window = sys.argv[1], int(sys.argv[2])
reads = collections.deque(maxlen=window)
head = sys.stdin.readline().strip().split(",")
kind, kind_type, size, tier = (head.index(c) for c in ("kind", "type", "size", "tier"))
for line in sys.stdin:  # all of it: a reader that stops early fails the pipe
    f = line.split(",")
    if f[kind_type] != "R" or f[kind] not in ("sst", "blob"):
        continue
    if side == "end" or len(reads) < window:
        reads.append((int(f[size]), f[tier] == "0"))
if len(reads) < window:
    sys.exit("restart.sh: fewer than %d user reads of table files in the trace" % window)
total = sum(n for n, _ in reads)
print("%.4f" % (sum(n for n, fast in reads if fast) / total))' "$2" "$WINDOW"
}

# copies_at_open LOG: the copies' bytes (MiB) in the statistics log's first line.
copies_at_open() {
  "$PY" -c 'import json, sys
print("%.1f" % (json.loads(open(sys.argv[1]).readline())["tiers"][0]["page_copy_bytes"] / 2**20))' "$1"
}

run() {
  local round="$1" position="$2" case="$3" policy="${3%/*}" mode="${3#*/}" dir props=() before after
  dir="$WORK/r$round-${policy}-$mode"
  tfs_store "$dir" "$policy" "$TIER0:$FAST_DEVICE" "$(tfs_big_mib $((DATA >> 20)))M:sata-ssd" 16M \
    ";segment_size:64K"
  props=(-p "rocksdb.dir=$STORE_DB" -p "rocksdb.options_file=$WORK/ycsb.ini" -p "recordcount=$RECORDS")
  tfs_progress "round $round/$ROUNDS: $case: load ($RECORDS records)"
  # shellcheck disable=SC2046  # tfs_ycsb_workload is a word list
  tfs_ycsb "$dir" load -load $(tfs_ycsb_workload a) "${props[@]}" -p "rocksdb.fs_uri=$STORE_URI" \
    -p rocksdb.wait_for_compaction=true
  tfs_progress "round $round/$ROUNDS: $case: $WORKLOAD, $OPS operations, then a clean close"
  # shellcheck disable=SC2046
  tfs_ycsb "$dir" before -run $(tfs_ycsb_workload "$WORKLOAD") "${props[@]}" \
    -p "rocksdb.fs_uri=$STORE_URI;trace:$dir/before.trace;stats_log:$dir/before.jsonl;stats_log_ms:$STATS_MS" \
    -p operationcount="$OPS"
  if [ "$mode" = forgotten ]; then rm -f "$dir/tier0/meta/PAGES.state"; fi
  tfs_progress "round $round/$ROUNDS: $case: reopened, $OPS_AFTER operations"
  # shellcheck disable=SC2046
  tfs_ycsb "$dir" after -run $(tfs_ycsb_workload "$WORKLOAD") "${props[@]}" \
    -p "rocksdb.fs_uri=$STORE_URI;trace:$dir/after.trace;stats_log:$dir/after.jsonl;stats_log_ms:$STATS_MS" \
    -p operationcount="$OPS_AFTER"
  before="$(window "$dir/before.trace" end)"
  after="$(window "$dir/after.trace" start)"
  b_copies="$(copies_at_open "$dir/before.jsonl")" a_copies="$(copies_at_open "$dir/after.jsonl")"
  echo "$round,$position,$WORKLOAD,$case,$before,$after,$("$PY" -c "print('%.4f' % ($after / $before))"),$b_copies,$a_copies" >>"$RUNS"
  rm -rf "${dir:?}"
}

tfs_progress "restart: $ROUNDS rounds of $CASES; $RECORDS records, tier 0 $(tfs_bytes "$TIER0") $FAST_DEVICE"
for ((round = 1; round <= ROUNDS; round++)); do
  mapfile -t ORDER < <(tfs_round_order "$round" "$CASES")
  for ((position = 1; position <= ${#ORDER[@]}; position++)); do
    run "$round" "$position" "${ORDER[position - 1]}"
  done
done
cp "$RUNS" "$OUT_CSV"
{
  echo
  echo "## Tier 0 across a clean restart: $WORKLOAD, tier 0 $(tfs_bytes "$TIER0") $FAST_DEVICE, tier 1 sata-ssd"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), $(nproc) cores, wall time" \
       "$(((SECONDS - TFS_START) / 60)) min. Command: \`$COMMAND\` ($ROUNDS rounds, RECORDS=$RECORDS" \
       "OPS=$OPS OPS_AFTER=$OPS_AFTER WINDOW=$WINDOW). Share: tier 0's share of the bytes of the" \
       "last $WINDOW user reads of table files before the restart, and of the first $WINDOW after it. kept: the" \
       "copies saved at close and taken back; forgotten: their state removed before the reopen." \
       "Per run: benchmarks/results/$NAME.csv."
  echo
  "$PY" "$ROOT/benchmarks/rounds.py" table --csv "$RUNS" --cells bench --no-ratio \
    --baseline "${POLICIES[0]}/forgotten" --systems "$CASES" \
    --metric share_before:higher:"share before" --metric share_after:higher:"share after" \
    --metric after_over_before:higher:"after / before (1: the restart cost nothing)" \
    --metric copies_at_reopen_mib:higher:"copies at the reopen (MiB)"
  echo "Kept over forgotten, paired by round:"
  echo
  for p in "${POLICIES[@]}"; do
    "$PY" "$ROOT/benchmarks/rounds.py" table --csv "$RUNS" --cells bench \
      --baseline "$p/forgotten" --systems "$p/forgotten,$p/kept" \
      --metric share_after:higher:"share after the restart"
  done
} | tee "$OUT_MD"
tfs_progress "done; wrote ${OUT_MD#"$ROOT"/} and ${OUT_CSV#"$ROOT"/}"
