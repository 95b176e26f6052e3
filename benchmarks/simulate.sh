#!/usr/bin/env bash
# simulate.sh: every policy in the trace simulator on the whole workload suite,
# on two- and three-tier storage, normalized to fast-only.
#
# The suite: the synthetic workloads (tools/sim/workloads.h: Harmonia's
# Table 5 and 6 approximations and the phase-change benchmark) plus two traces
# captured here from RocksDB on TierFS (trace capture, `trace:FILE`):
#   dbbench   db_bench fillrandom then skewed readrandom (read_random_exp_range=10)
#   ycsb-b    tierfs-ycsb workload B's run phase after its load
# Configurations (tools/sim/compare.h): perf (optane + sata-ssd), cost
# (optane + hdd), tri (optane + sata-ssd + hdd), the fast tier FAST_PCT% of
# each trace's footprint.
#
# Usage: benchmarks/simulate.sh [--quick]
#   REQUESTS (100000) records per synthetic workload, FAST_PCT (10),
#   SEGMENT (64K), JOBS (2) simulations at once.
#   --quick: 10000 requests, configurations perf and cost, four workloads.
# Writes benchmarks/results/sim.md, sim.csv, sim-ceilings.csv (tools/sim/ceiling.h),
# sim.png (heat map) and sim-bars.png (geometric means) (sim-quick* with --quick),
# and keeps the captured traces in benchmarks/results/traces/ (not committed).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"
usage() { echo "usage: $0 [--quick]"; }
QUICK=0
tfs_args usage --quick -- "$@"
REQUESTS="${REQUESTS:-100000}" FAST_PCT="${FAST_PCT:-10}" SEGMENT="${SEGMENT:-64K}" JOBS="${JOBS:-2}"
CONFIGS=perf,cost,tri WORKLOADS=all NAME=sim
if ((QUICK)); then
  REQUESTS=10000 CONFIGS=perf,cost WORKLOADS=LUN0,ssd-00,YCSB-B,ResNet50 NAME=sim-quick
fi

tfs_setup simulate
tfs_build tierfs_sim_tool tierfs_trace_tool tierfs_ycsb_tool
SIM="$BUILD/tools/sim/tierfs-sim" YCSB="$BUILD/tools/ycsb/tierfs-ycsb"

# The captured traces: RocksDB on one TierFS tier without a device model, so
# the recorded gaps are RocksDB's own time (the simulator adds the devices').
capture_uri() { mkdir -p "$WORK/$1"; echo "tierfs://$WORK/$1:64G;segment_size:$SEGMENT${2:+;trace:$2}"; }
TRACES=()
if ((!QUICK)); then
  tfs_progress "capturing a db_bench trace (fillrandom + skewed readrandom)"
  tfs_db_bench "$WORK/dbbench.log" --db=/db "--fs_uri=$(capture_uri dbbench-tier "$WORK/dbbench.trace")" \
    --benchmarks=fillrandom,readrandom --num=$((REQUESTS / 2)) --reads="$REQUESTS" \
    --read_random_exp_range=10 --value_size=400 --key_size=16 --threads=1 --seed=42 \
    "${TFS_LSM_FLAGS[@]}" --cache_size=$((8 << 20))
  tfs_progress "capturing a YCSB trace (workload B run phase)"
  ycsb_props=(-P "$ROOT/benchmarks/ycsb/workloads/workloadb" -p recordcount=$((REQUESTS / 2))
              -p operationcount="$REQUESTS" -p rocksdb.dir=/db -p rocksdb.block_cache_size=8388608)
  "$YCSB" -load "${ycsb_props[@]}" -p "rocksdb.fs_uri=$(capture_uri ycsb-tier)" >"$WORK/ycsb-load.log"
  "$YCSB" -run "${ycsb_props[@]}" -p "rocksdb.fs_uri=$(capture_uri ycsb-tier "$WORK/ycsb-b.trace")" \
    >"$WORK/ycsb-run.log"
  # Kept (not committed) so that a surprising figure can be looked into.
  mkdir -p "$RESULTS/traces"
  cp "$WORK/dbbench.trace" "$WORK/ycsb-b.trace" "$RESULTS/traces/"
  TRACES=("$RESULTS/traces/dbbench.trace" "$RESULTS/traces/ycsb-b.trace")
fi

workloads="$WORKLOADS"
for t in "${TRACES[@]}"; do workloads+=",$t"; done
tfs_progress "simulating every policy (configurations $CONFIGS, $REQUESTS requests per synthetic workload)"
# The heuristics and the oracle; the learning agents: benchmarks/learning.sh.
"$SIM" compare --configs="$CONFIGS" --workloads="$workloads" \
  --policies=fast-first,fast-only,slow-only,lru,cde,hintstor,mutant,rocksdb-levels,oracle \
  --requests="$REQUESTS" --fast_pct="$FAST_PCT" --segment_size="$SEGMENT" --jobs="$JOBS" \
  --out="$WORK" 2> >(awk '{ printf "\r%-100s", $0 } END { print "" }' >&2) >/dev/null
mv "$WORK/sim.csv" "$RESULTS/$NAME.csv"
mv "$WORK/ceilings.csv" "$RESULTS/$NAME-ceilings.csv"
{
  echo "## Trace simulator: policies normalized to fast-only"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), \`benchmarks/simulate.sh${1:+ $1}\`."
  if ((!QUICK)); then
    echo "Captured traces: dbbench (db_bench fillrandom + readrandom, read_random_exp_range=10)," \
         "ycsb-b (tierfs-ycsb workload B run phase); the rest synthetic (tools/sim/workloads.h)."
  fi
  cat "$WORK/sim.md"
} >"$RESULTS/$NAME.md"
"$PY" "$ROOT/benchmarks/sim_plot.py" "$RESULTS/$NAME.csv" "$RESULTS/$NAME.png"
cat "$RESULTS/$NAME.md"
tfs_progress "done; wrote benchmarks/results/$NAME.{md,csv,png} and $NAME-ceilings.csv"
