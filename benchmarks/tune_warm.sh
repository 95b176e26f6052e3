#!/usr/bin/env bash
# tune_warm.sh: issue 16's target "a new workload whose cluster is in ConfDB
# reaches 95% of its tuned grade in at most 5 evaluations", measured in the
# simulator on the default space (tools/tune/space.txt).
#
#  1. The workload model: `tierfs-tune characterize` over the seventeen
#     single workloads of the suite (workload seed 1).
#  2. ConfDB: each TRAIN workload (seed 1) tuned by bayes, EVALUATIONS
#     evaluations per optimizer seed of SEEDS, graded alone (its Goal), every
#     evaluation written under its cluster.
#  3. New workloads: each TRAIN workload with workload seeds NEWSEEDS (another
#     trace of the same generator), and each SIBLING (another workload the
#     model puts in a trained cluster), seed 1. For each, its tuned grade:
#     the best of a cold bayes run of EVALUATIONS per optimizer seed and a
#     random search of REFERENCE evaluations. Then bayes with and without the
#     warm start (--confdb, --warm=5, not written back), optimizer seeds
#     SEEDS: evaluations until the best grade is within 95% of the tuned one.
#
# Usage: benchmarks/tune_warm.sh [--requests N] [--evaluations N] [--seeds LIST]
#          [--reference N] [--train LIST] [--siblings LIST] [--newseeds LIST] [--quick]
# --quick: 5,000 requests, 20 evaluations, seeds 1,2, a reference of 100.
# TUNE=PATH uses that tierfs-tune instead of building one.
# Writes benchmarks/results/tune-warm.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"
usage() {
  echo "usage: $0 [--requests N] [--evaluations N] [--seeds LIST] [--reference N]" \
       "[--train LIST] [--siblings LIST] [--newseeds LIST] [--quick]"
}
REQUESTS=20000 EVALUATIONS=50 SEEDS=1,2,3,4,5 REFERENCE=500 NEWSEEDS=2,3
TRAIN=YCSB-B,ssd-00,ssd-02,LUN0,ResNet50,YCSB-D
SIBLINGS=YCSB-C,ssd-01,ssd-03,LUN1,CosmoFlow,YCSB-E
tfs_args usage --requests=REQUESTS --evaluations=EVALUATIONS --seeds=SEEDS \
  --reference=REFERENCE --train=TRAIN --siblings=SIBLINGS --newseeds=NEWSEEDS --quick -- "$@"
if [ -n "${QUICK:-}" ]; then
  REQUESTS=5000 EVALUATIONS=20 SEEDS=1,2 REFERENCE=100
fi
# TUNE=PATH: an already built tierfs-tune (no build step).
if [ -z "${TUNE:-}" ]; then
  BUILD="$("$ROOT/tools/dev/build.sh" --target tierfs_tune_tool | tail -n 1)"
  TUNE="$BUILD/tools/tune/tierfs-tune"
fi
SPACE="$ROOT/tools/tune/space.txt"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-tune-warm.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
OUT="$ROOT/benchmarks/results/tune-warm.md"
MODEL="$WORK/model.json" CDB="$WORK/confdb"
SUITE=LUN0,LUN1,LUN2,LUN3,LUN4,ssd-00,ssd-01,ssd-02,ssd-03,ssd-04,YCSB-B,YCSB-C,YCSB-D,YCSB-E
SUITE+=,YCSB-F,ResNet50,CosmoFlow

"$TUNE" characterize --model="$MODEL" --workloads="$SUITE" --requests="$REQUESTS" \
  >"$WORK/characterize.txt"
IFS=, read -r -a TRAINS <<<"$TRAIN"
IFS=, read -r -a SIBS <<<"$SIBLINGS"
IFS=, read -r -a NEWS <<<"$NEWSEEDS"
for w in "${TRAINS[@]}"; do
  echo "tune_warm.sh: ConfDB: $w" >&2
  "$TUNE" --space="$SPACE" --workload="$w" --optimizer=bayes --seeds="$SEEDS" \
    --evaluations="$EVALUATIONS" --requests="$REQUESTS" --confdb="$CDB" --model="$MODEL" \
    --warm=0 --quiet \
    --csv="$WORK/train-$w.csv" >/dev/null
done
"$TUNE" show --confdb="$CDB" >"$WORK/show.txt"

args=()
measure() {  # measure WORKLOAD SEED
  local w="$1" s="$2" tag="$1@$2"
  local common=(--space="$SPACE" --workload="$w" --workload_seed="$s" --requests="$REQUESTS"
                --quiet)
  echo "tune_warm.sh: $tag: tuned grade, cold and warm runs" >&2
  "$TUNE" characterize --model="$MODEL" --workload="$w" --workload_seed="$s" \
    --requests="$REQUESTS" >"$WORK/assign-$tag.txt"
  "$TUNE" "${common[@]}" --optimizer=random --seed=1000 --evaluations="$REFERENCE" \
    --csv="$WORK/ref-$tag.csv" >/dev/null
  "$TUNE" "${common[@]}" --optimizer=bayes --seeds="$SEEDS" --evaluations="$EVALUATIONS" \
    --csv="$WORK/cold-$tag.csv" >/dev/null
  "$TUNE" "${common[@]}" --optimizer=bayes --seeds="$SEEDS" --evaluations="$EVALUATIONS" \
    --confdb="$CDB" --model="$MODEL" --warm=5 --confdb_write=false \
    --csv="$WORK/warm-$tag.csv" >/dev/null
  args+=("$tag=$WORK/assign-$tag.txt,$WORK/ref-$tag.csv,$WORK/cold-$tag.csv,$WORK/warm-$tag.csv")
}
for w in "${TRAINS[@]}"; do
  for s in "${NEWS[@]}"; do measure "$w" "$s"; done
done
for w in "${SIBS[@]}"; do measure "$w" 1; done

/usr/bin/python3 "$ROOT/benchmarks/tune_warm_report.py" "$OUT" "$WORK/characterize.txt" \
  "$WORK/show.txt" "${args[@]}"
{
  echo
  echo "## How it was made"
  echo
  echo "\`benchmarks/tune_warm.sh --requests $REQUESTS --evaluations $EVALUATIONS" \
       "--seeds $SEEDS --reference $REFERENCE --train $TRAIN --siblings $SIBLINGS" \
       "--newseeds $NEWSEEDS\` ($(date -u +%Y-%m-%d), $(nproc) cores, revision" \
       "$(git -C "$ROOT" rev-parse --short HEAD))."
} >>"$OUT"
echo "tune_warm.sh: wrote $OUT" >&2
