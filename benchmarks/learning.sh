#!/usr/bin/env bash
# learning.sh: the learning agents in the trace simulator.
#   1. Training-loss curves: harmonia and sibyl on YCSB-B (the first 10,000
#      requests, performance-optimized) and on the phase-change benchmark
#      (20,000 requests); the requests each agent needs to converge.
#   2. Every learning and heuristic policy and the oracle on the whole
#      synthetic suite, two- and three-tier configurations, normalized to
#      fast-only (REQUESTS per workload, default 20000: the learners train
#      in the replay's own thread, 16 batches per 16 transitions).
#
# Usage: benchmarks/learning.sh [--quick]   (--quick: 5000 requests, 4 workloads, perf only)
# Writes benchmarks/results/learning.md, learning.csv, learning.png, learning-loss.png.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"
usage() { echo "usage: $0 [--quick]"; }
QUICK=0
tfs_args usage --quick -- "$@"
REQUESTS="${REQUESTS:-20000}" JOBS="${JOBS:-2}" CONFIGS=perf,cost,tri WORKLOADS=all NAME=learning
if ((QUICK)); then REQUESTS=5000 CONFIGS=perf WORKLOADS=LUN0,ssd-00,YCSB-B,ResNet50 NAME=learning-quick; fi
POLICIES=fast-first,lru,cde,hintstor,mutant,harmonia,harmonia-nocoord,sibyl,sapm,cde+rl-migr,k-svm,rnn-hss,oracle

tfs_setup learning
tfs_build tierfs_sim_tool
SIM="$BUILD/tools/sim/tierfs-sim"

tfs_progress "loss curves: harmonia and sibyl on YCSB-B and phase-change"
for p in harmonia sibyl; do
  "$SIM" run --config=perf --workload=YCSB-B --requests=10000 --policy="$p" \
    --losses="$WORK/ycsb-$p.csv" >"$WORK/ycsb-$p.txt" 2>/dev/null
  "$SIM" run --config=perf --workload=phase-change --requests=20000 --policy="$p" \
    --losses="$WORK/phase-$p.csv" >"$WORK/phase-$p.txt" 2>/dev/null
done
"$PY" "$ROOT/benchmarks/loss_plot.py" "$RESULTS/$NAME-loss.png" \
  "harmonia, YCSB-B:$WORK/ycsb-harmonia.csv" "sibyl, YCSB-B:$WORK/ycsb-sibyl.csv" \
  "harmonia, phase-change:$WORK/phase-harmonia.csv" >"$WORK/convergence.txt"

tfs_progress "every policy on the suite ($CONFIGS, $REQUESTS requests per workload)"
"$SIM" compare --configs="$CONFIGS" --workloads="$WORKLOADS" --policies="$POLICIES" \
  --requests="$REQUESTS" --jobs="$JOBS" --out="$WORK" \
  2> >(awk '{ printf "\r%-100s", $0 } END { print "" }' >&2) >/dev/null
mv "$WORK/sim.csv" "$RESULTS/$NAME.csv"
"$PY" "$ROOT/benchmarks/sim_plot.py" "$RESULTS/$NAME.csv" "$RESULTS/$NAME.png"
{
  echo "## Learning agents in the simulator"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), \`benchmarks/learning.sh${1:+ $1}\`."
  echo
  echo "Convergence (training loss; \`$NAME-loss.png\`):"
  echo
  sed 's/^/    /' "$WORK/convergence.txt"
  echo
  cat "$WORK/sim.md"
} >"$RESULTS/$NAME.md"
cat "$RESULTS/$NAME.md"
tfs_progress "done; wrote benchmarks/results/$NAME.{md,csv,png} and $NAME-loss.png"
