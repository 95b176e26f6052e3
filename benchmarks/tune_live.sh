#!/usr/bin/env bash
# tune_live.sh: tunes one db_bench workload live and confirms the result.
# tierfs-tune searches the default space (tools/tune/space.txt: TierFS's keys
# and the live-only RocksDB options) with --evaluator=live: each evaluation is
# a fresh store on the emulated devices of the space's tiers (optane +
# sata-ssd) and one db_bench run of WORKLOAD through the plugin, graded on
# the last benchmark (LearnedSSD's Goal, alpha 0.9, against the space's
# default: TierFS's and RocksDB 7.8's defaults; no other workload), each
# evaluation the median of SEARCH_REPEATS fresh-store runs. Then the
# best configuration (its URI and the OPTIONS file --options_out wrote) and
# the default are run again REPEATS times each, alternating, on fresh stores,
# in this one script run: the ratio of their medians is the confirmation.
#
# Usage: benchmarks/tune_live.sh [--workload LIST] [--num N] [--value-size B]
#                                [--evaluations N] [--optimizer NAME] [--repeats R]
#                                [--search-repeats S] [--out NAME]
# Writes benchmarks/results/NAME.md (default tune-live). Set TFS_BUILD=DIR to use a build
# tree as it is (no build step).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"
usage() {
  echo "usage: $0 [--workload LIST] [--num N] [--value-size B] [--evaluations N]" \
       "[--optimizer NAME] [--repeats R] [--search-repeats S] [--out NAME]"
}
WORKLOAD=fillrandom,readrandom NUM=400000 VALUE_SIZE=400 EVALUATIONS=15 OPTIMIZER=bayes REPEATS=5
SEARCH_REPEATS=1 NAME=tune-live
tfs_args usage --workload=WORKLOAD --num=NUM --value-size=VALUE_SIZE --evaluations=EVALUATIONS \
  --optimizer=OPTIMIZER --repeats=REPEATS --search-repeats=SEARCH_REPEATS --out=NAME -- "$@"
# shellcheck disable=SC2034  # tfs_progress reads it
TFS_START=$SECONDS
BUILD="${TFS_BUILD:-$("$ROOT/tools/dev/build.sh" --target tierfs tierfs_tune_tool | tail -n 1)}"
# shellcheck disable=SC2034  # tfs_db_bench reads LIB and DB_BENCH
TUNE="$BUILD/tools/tune/tierfs-tune" LIB="$BUILD/libtierfs.so" DB_BENCH=/usr/bin/db_bench
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-tune-live.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
OUT="$ROOT/benchmarks/results/$NAME.md"
IFS=, read -r -a BENCHES <<<"$WORKLOAD"
MEASURED="${BENCHES[-1]}"
# db_bench's waitforcompaction prints no result line: it is run, not reported.
REPORTED=()
for b in "${BENCHES[@]}"; do [ "$b" = waitforcompaction ] || REPORTED+=("$b"); done

common=(--space="$ROOT/tools/tune/space.txt" --workload="$WORKLOAD" --evaluator=live
        --live_num="$NUM" --live_value_size="$VALUE_SIZE" --live_repeats="$SEARCH_REPEATS"
        --quiet)
mkdir "$WORK/search"
tfs_progress "search: $OPTIMIZER, $EVALUATIONS live evaluations of $WORKLOAD, $NUM keys"
"$TUNE" "${common[@]}" --live_dir="$WORK/search" --optimizer="$OPTIMIZER" \
  --evaluations="$EVALUATIONS" --csv="$WORK/search.csv" --options_out="$WORK/best.ini" \
  >"$WORK/best.txt"
# One evaluation is the default alone: its URI and OPTIONS file.
"$TUNE" "${common[@]}" --live_dir="$WORK/search" --evaluations=1 --csv="$WORK/default.csv" \
  --options_out="$WORK/default.ini" >"$WORK/default.txt"

# reroot URI DIR: the URI with its tiers' paths replaced by DIR/tier0, DIR/tier1, ...
reroot() {
  local tiers="${1#tierfs://}" keys="" out="" i=0 t parts
  if [[ "$tiers" == *";"* ]]; then keys=";${tiers#*;}" tiers="${tiers%%;*}"; fi
  IFS=, read -r -a parts <<<"$tiers"
  for t in "${parts[@]}"; do
    mkdir -p "$2/tier$i"
    out+="${out:+,}$2/tier$i:${t#*:}" i=$((i + 1))
  done
  echo "tierfs://$out$keys"
}

declare -A OPS MICROS P99
for ((r = 1; r <= REPEATS; r++)); do
  order=(default best)
  ((r % 2)) || order=(best default)  # alternate, so drift does not favour one
  for c in "${order[@]}"; do
    tfs_progress "confirm $r/$REPEATS: $c"
    dir="$WORK/confirm/$c-$r"
    uri="$(reroot "$(sed -n 's/^best //p' "$WORK/$c.txt")" "$dir")"
    cache="$(awk -F= '$1 == "  block_cache" { print $2 }' "$WORK/$c.ini")"
    tfs_db_bench "$dir.log" --fs_uri="$uri" --db=/db --options_file="$WORK/$c.ini" \
      --benchmarks="$WORKLOAD" --num="$NUM" --value_size="$VALUE_SIZE" --key_size=16 --seed=42 \
      --threads=1 --histogram=1 --cache_size="${cache:-8388608}"
    for b in "${REPORTED[@]}"; do
      OPS[$c,$b]+=" $(tfs_ops "$b" "$dir.log")"
    done
    MICROS[$c]+=" $(awk -v b="$MEASURED" '$1 == b && $2 == ":" { print $3 }' "$dir.log")"
    P99[$c]+=" $(awk -v b="$MEASURED" '$1 == b && $2 == ":" { f = 1 }
                   f && $1 == "Percentiles:" { print $7; exit }' "$dir.log")"
    rm -rf "$dir"
  done
done

minmax() { tr ' ' '\n' <<<"$1" | awk 'NF { if (!n++ || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
                                       END { printf "%.0f-%.0f", lo, hi }'; }
# shellcheck disable=SC2086  # the lists of figures are split into tfs_median's arguments
{
  echo "# tierfs-tune live: $WORKLOAD, tuned against the default"
  echo
  echo "\`benchmarks/tune_live.sh --workload $WORKLOAD --num $NUM --value-size $VALUE_SIZE" \
       "--evaluations $EVALUATIONS --optimizer $OPTIMIZER --repeats $REPEATS" \
       "--search-repeats $SEARCH_REPEATS --out $NAME\`" \
       "($(date -u +%Y-%m-%d), $(nproc) cores, revision $(git -C "$ROOT" rev-parse --short HEAD))."
  echo
  echo "The search: $EVALUATIONS live evaluations ($OPTIMIZER), each the median of" \
       "$SEARCH_REPEATS fresh-store db_bench runs, graded on $MEASURED (Goal, alpha 0.9," \
       "against the default)."
  echo
  echo "- default: \`$(sed -n 's/^best //p' "$WORK/default.txt")\`" \
       "$(sed -n 's/^rocksdb //p' "$WORK/default.txt")"
  echo "- best: \`$(sed -n 's/^best //p' "$WORK/best.txt")\`" \
       "$(sed -n 's/^rocksdb //p' "$WORK/best.txt")"
  echo "- the search's own report: $(sed -n 's/^grade //p' "$WORK/best.txt");" \
       "$(grep -v '^best \|^rocksdb \|^grade ' "$WORK/best.txt")"
  echo
  echo "The confirmation: each configuration run $REPEATS times on fresh stores, alternating," \
       "in this one script run; medians, the range in brackets."
  echo
  tfs_md_header "ops/sec" default best "best / default"
  for b in "${REPORTED[@]}"; do
    d="$(tfs_median ${OPS[default,$b]})" t="$(tfs_median ${OPS[best,$b]})"
    tfs_md_row "$b" "$d ($(minmax "${OPS[default,$b]}"))" "$t ($(minmax "${OPS[best,$b]}"))" \
      "$(tfs_ratio "$t" "$d")"
  done
  d="$(tfs_median ${MICROS[default]})" t="$(tfs_median ${MICROS[best]})"
  tfs_md_row "$MEASURED micros/op" "$d" "$t" "$(tfs_ratio "$t" "$d")"
  d="$(tfs_median ${P99[default]})" t="$(tfs_median ${P99[best]})"
  tfs_md_row "$MEASURED P99 us" "$d" "$t" "$(tfs_ratio "$t" "$d")"
} >"$OUT"
tfs_progress "wrote $OUT"
