#!/usr/bin/env bash
# learner_cpu.sh: what the learning agents' training costs live (issue 33:
# "the training thread at most 5% of one core, measured, /proc thread CPU
# time over the run"). Each learning policy's trainers run on threads named
# tierfs-learner (agents/rl/learner.cc); benchmarks/thread_cpu.py reads every
# thread's CPU time from /proc while the measured process runs.
#
# Each run, on a fresh store (tfs_store in lib.sh), tier 0 an emulated
# FAST_DEVICE holding FAST_PCT % of the data, tier 1 sata-ssd: load RECORDS
# records (tierfs-ycsb, not measured), then WORKLOAD for OPS operations in one
# process, measured. Reported per system and workload over ROUNDS rounds (each
# in its own rotation): the learner threads' CPU seconds over the process's
# wall seconds (the share of one core; the target is at most 0.05), the
# process's CPU time per operation, and ops/s; medians (min-max).
#
# Usage: benchmarks/learner_cpu.sh [--quick]; knobs in the environment (--help). About 8 min
# here with the defaults.
# Writes benchmarks/results/learner-cpu.md and .csv (learner-cpu-quick.* with --quick).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"

usage() {
  cat <<EOF
usage: $0 [--quick]
  --quick   smoke run, under a minute: ROUNDS=1 RECORDS=20000 OPS=20000 WORKLOADS=b-zipf
environment:
  ROUNDS       rounds (default 3)
  SYSTEMS      comma-separated learning policies (default harmonia,sibyl)
  WORKLOADS    comma-separated tierfs-ycsb workloads of lib.sh's tfs_ycsb_workload
               (default b-zipf,a)
  RECORDS      records loaded (default 200000: ~220 MB); OPS operations measured (200000)
  FAST_PCT     tier 0, % of the data (default 10); CACHE_PCT block cache, % (default 1)
  FAST_DEVICE  tier 0's device model (default optane)
EOF
}

QUICK=0
tfs_args usage --quick -- "$@"
if ((QUICK)); then
  : "${ROUNDS:=1}" "${RECORDS:=20000}" "${OPS:=20000}" "${WORKLOADS:=b-zipf}"
fi
: "${ROUNDS:=3}" "${SYSTEMS:=harmonia,sibyl}" "${WORKLOADS:=b-zipf,a}" "${RECORDS:=200000}"
: "${OPS:=200000}" "${FAST_PCT:=10}" "${CACHE_PCT:=1}" "${FAST_DEVICE:=optane}" "${THREADS:=1}"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "learner_cpu.sh: ROUNDS must be a positive number, not '$ROUNDS'" >&2; exit 2; }
COMMAND="$0 $*"
ENV_USED="ROUNDS=$ROUNDS SYSTEMS=$SYSTEMS WORKLOADS=$WORKLOADS RECORDS=$RECORDS OPS=$OPS"
ENV_USED+=" FAST_PCT=$FAST_PCT CACHE_PCT=$CACHE_PCT FAST_DEVICE=$FAST_DEVICE THREADS=$THREADS"

tfs_setup learner_cpu
tfs_build tierfs_ycsb_tool
YCSB="$BUILD/tools/ycsb/tierfs-ycsb"
NAME=learner-cpu
if ((QUICK)); then NAME+="-quick"; fi
OUT_MD="$RESULTS/$NAME.md" OUT_CSV="$RESULTS/$NAME.csv"

DATA=$((RECORDS * 1100))  # records x ~1.1 KB of tables
TIER0=$((DATA * FAST_PCT / 100))
tfs_options_file 4 16M $((DATA * CACHE_PCT / 100)) >"$WORK/ycsb.ini"

RUNS="$WORK/runs.csv"
echo "round,position,bench,system,learner_share,learner_threads,cpu_us_per_op,ops_per_sec" >"$RUNS"

run() {
  local round="$1" position="$2" policy="$3" workload="$4" dir props=()
  dir="$WORK/r$round-${policy//=/-}-$workload"  # a URI holds no "="
  tfs_store "$dir" "$policy" "$TIER0:$FAST_DEVICE" "$(tfs_big_mib $((DATA >> 20)))M:sata-ssd" 16M \
    ";segment_size:64K"
  props=(-p "rocksdb.dir=$STORE_DB" -p "rocksdb.options_file=$WORK/ycsb.ini" -p "recordcount=$RECORDS"
         -p "rocksdb.fs_uri=$STORE_URI")
  tfs_progress "round $round/$ROUNDS: $policy: load ($RECORDS records)"
  # shellcheck disable=SC2046  # tfs_ycsb_workload is a word list
  tfs_ycsb "$dir" load -load $(tfs_ycsb_workload a) "${props[@]}" -p rocksdb.wait_for_compaction=true
  tfs_progress "round $round/$ROUNDS: $policy: $workload, $OPS operations, measured"
  # shellcheck disable=SC2046
  if ! "$PY" "$ROOT/benchmarks/thread_cpu.py" --out "$dir/cpu.json" -- \
      "$YCSB" -run $(tfs_ycsb_workload "$workload") "${props[@]}" -p operationcount="$OPS" \
      -threads "$THREADS" -json "$dir/run.json" >"$dir/run.txt" 2>"$dir/run.err"; then
    echo "tierfs-ycsb failed ($policy, $workload):" >&2
    tail -n 20 "$dir/run.err" >&2
    exit 1
  fi
  "$PY" - "$dir/cpu.json" "$round" "$position" "$workload" "$policy" "$OPS" >>"$RUNS" <<'EOF'
import json, sys
cpu = json.load(open(sys.argv[1]))
round_, position, workload, policy, ops = sys.argv[2:7]
learner = cpu["threads"].get("tierfs-learner", {"cpu_s": 0.0, "count": 0})
print("%s,%s,%s,%s,%.4f,%d,%.2f,%.0f" % (round_, position, workload, policy,
      learner["cpu_s"] / cpu["wall_s"], learner["count"], cpu["cpu_s"] / int(ops) * 1e6,
      int(ops) / cpu["wall_s"]))
EOF
  rm -rf "${dir:?}"
}

IFS=, read -r -a POLICIES <<<"$SYSTEMS"
IFS=, read -r -a BENCHES <<<"$WORKLOADS"
tfs_progress "learner_cpu: $ROUNDS rounds of $SYSTEMS on $WORKLOADS; $RECORDS records, tier 0 $(tfs_bytes "$TIER0") $FAST_DEVICE"
for ((round = 1; round <= ROUNDS; round++)); do
  mapfile -t ORDER < <(tfs_round_order "$round" "$SYSTEMS")
  for workload in "${BENCHES[@]}"; do
    for ((position = 1; position <= ${#ORDER[@]}; position++)); do
      run "$round" "$position" "${ORDER[position - 1]}" "$workload"
    done
  done
done
cp "$RUNS" "$OUT_CSV"
{
  echo
  echo "## The learners' CPU, live: tier 0 $(tfs_bytes "$TIER0") $FAST_DEVICE, tier 1 sata-ssd"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), $(nproc) cores, wall time" \
       "$(((SECONDS - TFS_START) / 60)) min. Command: \`$ENV_USED $COMMAND\` (one client thread)." \
       "learner share: the CPU seconds of the threads named" \
       "tierfs-learner over the measured process's wall seconds (one core = 1; target <= 0.05)." \
       "Per run: benchmarks/results/$NAME.csv."
  echo
  "$PY" "$ROOT/benchmarks/rounds.py" table --csv "$RUNS" --cells bench --no-ratio \
    --baseline "${POLICIES[0]}" --systems "$SYSTEMS" \
    --metric learner_share:lower:"learner threads' share of one core" \
    --metric cpu_us_per_op:lower:"process CPU µs per operation" \
    --metric ops_per_sec:higher:"ops/s"
} | tee "$OUT_MD"
tfs_progress "done; wrote ${OUT_MD#"$ROOT"/} and ${OUT_CSV#"$ROOT"/}"
