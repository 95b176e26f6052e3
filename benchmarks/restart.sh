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
#   WORKLOAD for OPS operations: one process, closed cleanly at its end after
#   a flush (and the compactions it starts: rocksdb.wait_for_compaction), so
#   the reopen replays no WAL: its reads would count as the application's and
#   come from tier 0 (forgotten: meta/PAGES.state removed then)
#   WORKLOAD for OPS_AFTER operations in a new process
# Both processes keep the store's statistics log (every STATS_MS ms, and at
# close). Its counters are cumulative over the store's life, so the window
# before is from the last line with at most (reads at close - WINDOW) user
# reads to the close; the window after, from the open to the first line with
# at least WINDOW more (each a few hundred reads wider than WINDOW at most).
#
# Rounds: ROUNDS (default 3), each with SYSTEMS x {kept, forgotten} in its own
# rotation (tfs_round_order). benchmarks/rounds.py reports the share after
# over the share before (1 = the restart cost nothing), per system and mode,
# with its 95% interval.
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
tfs_build tierfs_ycsb_tool
YCSB="$BUILD/tools/ycsb/tierfs-ycsb"
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
echo "round,position,bench,system,share_before,share_after,after_over_before,copies_before_mib,copies_after_mib" >"$RUNS"

# window LOG FROM: tier 0's share of the bytes of WINDOW user reads of the
# statistics log LOG, from its last line ("end") or its first ("start"), and
# tier 0's copies then (MiB).
window() {
  "$PY" - "$1" "$2" "$WINDOW" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
side, window = sys.argv[2], int(sys.argv[3])
reads = lambda l: sum(t["user_reads"] for t in l["tiers"])
share = lambda a, b: ((b["tiers"][0]["user_read_bytes"] - a["tiers"][0]["user_read_bytes"]) /
                      (sum(t["user_read_bytes"] for t in b["tiers"]) -
                       sum(t["user_read_bytes"] for t in a["tiers"])))
if side == "end":
    end = lines[-1]
    start = [l for l in lines if reads(l) <= reads(end) - window][-1]
    at = end
else:
    start = lines[0]
    later = [l for l in lines if reads(l) >= reads(start) + window]
    if not later:
        sys.exit("restart.sh: the run after the restart made fewer than %d user reads" % window)
    end = later[0]
    at = start
print("%.4f %.1f" % (share(start, end), at["tiers"][0]["page_copy_bytes"] / 2**20))
EOF
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
    -p "rocksdb.fs_uri=$STORE_URI;stats_log:$dir/before.jsonl;stats_log_ms:$STATS_MS" \
    -p operationcount="$OPS" -p rocksdb.wait_for_compaction=true
  if [ "$mode" = forgotten ]; then rm -f "$dir/tier0/meta/PAGES.state"; fi
  tfs_progress "round $round/$ROUNDS: $case: reopened, $OPS_AFTER operations"
  # shellcheck disable=SC2046
  tfs_ycsb "$dir" after -run $(tfs_ycsb_workload "$WORKLOAD") "${props[@]}" \
    -p "rocksdb.fs_uri=$STORE_URI;stats_log:$dir/after.jsonl;stats_log_ms:$STATS_MS" \
    -p operationcount="$OPS_AFTER"
  read -r before b_copies < <(window "$dir/before.jsonl" end)
  read -r after a_copies < <(window "$dir/after.jsonl" start)
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
       "last $WINDOW user reads before the restart, and of the first $WINDOW after it. kept: the" \
       "copies saved at close and taken back; forgotten: their state removed before the reopen." \
       "Per run: benchmarks/results/$NAME.csv."
  echo
  "$PY" "$ROOT/benchmarks/rounds.py" table --csv "$RUNS" --cells bench --no-ratio \
    --baseline "${POLICIES[0]}/forgotten" --systems "$CASES" \
    --metric share_before:higher:"share before" --metric share_after:higher:"share after" \
    --metric after_over_before:higher:"after / before (1: the restart cost nothing)" \
    --metric copies_after_mib:higher:"copies at the reopen (MiB)"
  echo "Kept over forgotten, paired by round:"
  echo
  for p in "${POLICIES[@]}"; do
    "$PY" "$ROOT/benchmarks/rounds.py" table --csv "$RUNS" --cells bench \
      --baseline "$p/forgotten" --systems "$p/forgotten,$p/kept" \
      --metric share_after:higher:"share after the restart"
  done
} | tee "$OUT_MD"
tfs_progress "done; wrote ${OUT_MD#"$ROOT"/} and ${OUT_CSV#"$ROOT"/}"
