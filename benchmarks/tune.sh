#!/usr/bin/env bash
# tune.sh: how fast each of tierfs-tune's optimizers approaches the best
# configuration of the default space (tools/tune/space.txt), against a large
# random search of the same space as the reference best. Each workload is
# the target once, graded against the other workloads (LearnedSSD's Grade,
# alpha 0.9, beta 0.9), in the simulator, REQUESTS records each; with
# --alone, graded on itself only (its Goal).
#
# Usage: benchmarks/tune.sh [--requests N] [--evaluations N] [--seeds 1,2,3]
#                           [--reference N] [--workloads A,B,C] [--alone] [--quick]
#                           [--tiers PATH:CAP:DEV,...] [--name NAME]
# --tiers: the space's own keys on other devices (replaces its tiers line).
# --quick: 5,000 requests, 20 evaluations, seeds 1,2, a reference of 200.
# Writes benchmarks/results/tune.md and tune-WORKLOAD.png (tune-alone* with --alone; NAME* with
# --name). A workload may be a trace file (tierfs-trace's format).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"
usage() {
  echo "usage: $0 [--requests N] [--evaluations N] [--seeds LIST] [--reference N]" \
       "[--workloads LIST] [--alone] [--quick] [--tiers TIERS] [--name NAME]"
}
REQUESTS=20000 EVALUATIONS=50 SEEDS=1,2,3 REFERENCE=1000 WORKLOADS=YCSB-B,ssd-00,mix1 TIERS=""
NAME=""
tfs_args usage --requests=REQUESTS --evaluations=EVALUATIONS --seeds=SEEDS \
  --reference=REFERENCE --workloads=WORKLOADS --alone --quick --tiers=TIERS --name=NAME -- "$@"
if [ -n "${QUICK:-}" ]; then
  REQUESTS=5000 EVALUATIONS=20 SEEDS=1,2 REFERENCE=200
fi
BUILD="$("$ROOT/tools/dev/build.sh" --target tierfs_tune_tool | tail -n 1)"
TUNE="$BUILD/tools/tune/tierfs-tune"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-tune.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
OUT="$ROOT/benchmarks/results/${NAME:-tune${ALONE:+-alone}}.md"
IFS=, read -r -a LIST <<<"$WORKLOADS"

args=()
for w in "${LIST[@]}"; do
  others=$(printf '%s\n' "${LIST[@]}" | { grep -vx "$w" || true; } | paste -sd, -)
  [ -z "${ALONE:-}" ] || others=""
  common=(--space="$ROOT/tools/tune/space.txt" --workload="$w" --others="$others"
          --requests="$REQUESTS" --quiet ${TIERS:+--tiers="$TIERS"})
  # A trace's name in the report: its file name without the directory and suffix.
  n="$(basename "$w")" n="${n%.trace}"
  echo "tune.sh: $w (others $others): optimizers, seeds $SEEDS, $EVALUATIONS evaluations" >&2
  "$TUNE" "${common[@]}" --optimizer=all --seeds="$SEEDS" --evaluations="$EVALUATIONS" \
    --csv="$WORK/$n-runs.csv" >/dev/null
  echo "tune.sh: $w: reference, random search of $REFERENCE evaluations" >&2
  "$TUNE" "${common[@]}" --optimizer=random --seed=1000 --evaluations="$REFERENCE" \
    --csv="$WORK/$n-reference.csv" >"$WORK/$n-reference.txt"
  args+=("$n=$WORK/$n-runs.csv,$WORK/$n-reference.csv")
done
/usr/bin/python3 "$ROOT/benchmarks/tune_report.py" "$OUT" "${args[@]}"
{
  echo
  echo "## How it was made"
  echo
  echo "\`benchmarks/tune.sh --requests $REQUESTS --evaluations $EVALUATIONS --seeds $SEEDS" \
       "--reference $REFERENCE --workloads $WORKLOADS${ALONE:+ --alone}${TIERS:+ --tiers $TIERS}" \
       "${NAME:+--name $NAME}\`" \
       "($(date -u +%Y-%m-%d), $(nproc) cores, revision $(git -C "$ROOT" rev-parse --short HEAD))."
  echo "The reference best configuration of each workload:"
  echo
  for w in "${LIST[@]}"; do
    n="$(basename "$w")" n="${n%.trace}"
    echo "- $n: \`$(sed -n 's/^best //p' "$WORK/$n-reference.txt")\`"
    echo "  $(sed -n 2,3p "$WORK/$n-reference.txt" | paste -sd' ' -)"
  done
} >>"$OUT"
echo "tune.sh: wrote $OUT" >&2
