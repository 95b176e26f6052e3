#!/usr/bin/env bash
# simulator_speed.sh: how many requests per second the trace simulator
# replays, per policy, on a few synthetic workloads of REQUESTS records each
# (generated once, read from a file: generation is not timed). One
# simulation at a time; the figure is what `tierfs-sim run` reports, the
# replay alone. The target is >= 2 million requests/s for the heuristic
# policies (the oracle, which plans over the future every 256 requests, has
# none).
#
# Usage: benchmarks/simulator_speed.sh [--requests N] [--config perf|cost|tri]
# Writes benchmarks/results/simulator-speed.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"
usage() { echo "usage: $0 [--requests N] [--config perf|cost|tri]"; }
REQUESTS=1000000 CONFIG=perf
tfs_args usage --requests=REQUESTS --config=CONFIG -- "$@"
WORKLOADS=(LUN0 ssd-00 ssd-02 YCSB-B ResNet50 mix6)
POLICIES=(fast-first fast-only slow-only lru cde hintstor mutant rocksdb-levels)
BUILD="$("$ROOT/tools/dev/build.sh" --target tierfs_sim_tool tierfs_trace_tool | tail -n 1)"
SIM="$BUILD/tools/sim/tierfs-sim" TRACE="$BUILD/tools/sim/tierfs-trace"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-simspeed.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
OUT="$ROOT/benchmarks/results/simulator-speed.md"

for w in "${WORKLOADS[@]}"; do
  "$TRACE" generate "$w" --requests="$REQUESTS" --out="$WORK/$w.trace" 2>/dev/null
done
# mreqs POLICY WORKLOAD: millions of requests per second of one replay.
mreqs() {
  "$SIM" run --workload="$WORK/$2.trace" --config="$CONFIG" --policy="$1" 2>&1 >/dev/null |
    awk '/^simulated in/ { print $(NF - 2) }'
}
slowest_heuristic=""
{
  echo "## Simulator speed: million requests replayed per second"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision)," \
       "$(nproc) cores, $REQUESTS requests per workload, configuration $CONFIG, one run at a time."
  echo
  tfs_md_header policy "${WORKLOADS[@]}" "**min**"
  for p in "${POLICIES[@]}"; do
    row=("$p") min=""
    for w in "${WORKLOADS[@]}"; do
      echo "  $p on $w" >&2
      m="$(mreqs "$p" "$w")"
      row+=("$m")
      min="$(awk -v a="$m" -v b="$min" 'BEGIN { print (b == "" || a < b) ? a : b }')"
    done
    tfs_md_row "${row[@]}" "**$min**"
    slowest_heuristic="$(awk -v a="$min" -v b="$slowest_heuristic" 'BEGIN { print (b == "" || a < b) ? a : b }')"
  done
  echo
  if awk -v m="$slowest_heuristic" 'BEGIN { exit !(m >= 2) }'; then
    echo "Target (>= 2 M requests/s for every heuristic policy on every workload): **met** (slowest $slowest_heuristic)."
  else
    echo "Target (>= 2 M requests/s for every heuristic policy on every workload): **not met** (slowest $slowest_heuristic)."
  fi
} | tee "$OUT"
