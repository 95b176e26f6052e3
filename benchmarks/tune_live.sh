#!/usr/bin/env bash
# tune_live.sh: tunes db_bench workloads live and confirms the results.
# For each workload (a db_bench --benchmarks list; several separated by ';'),
# tierfs-tune searches the default space (tools/tune/space.txt: TierFS's keys
# and the live-only RocksDB options, within its memory budget) with
# --evaluator=live: each evaluation is a fresh store on the emulated devices of
# the space's tiers (optane + sata-ssd) and one db_bench run of the workload
# through the plugin, graded on its last benchmark (LearnedSSD's Goal, alpha
# 0.9, against the space's default: TierFS's and RocksDB 7.8's defaults), each
# evaluation the median of SEARCH_REPEATS fresh-store runs. Then every
# workload is run with the default and with each workload's best configuration
# (its URI and the OPTIONS file --options_out wrote), REPEATS times each, the
# configurations' order rotating, on fresh stores, in this one script run: the
# ratio of the medians on the tuned workload is the confirmation, and on the
# other workloads it says what the tuning costs them.
#
# Usage: benchmarks/tune_live.sh [--workload LIST[;LIST...]] [--num N] [--value-size B]
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
IFS=';' read -r -a WORKLOADS <<<"$WORKLOAD"
# benches W: the benchmarks of workload W that db_bench reports (waitforcompaction prints no
# result line: it is run, not reported); measured W: its last.
benches() { tr , '\n' <<<"$1" | grep -vx waitforcompaction; }
measured() { echo "${1##*,}"; }

# Search each workload's best; one evaluation is the default alone (its URI and OPTIONS file).
CONFIGS=(default)
for ((w = 0; w < ${#WORKLOADS[@]}; w++)); do
  W="${WORKLOADS[w]}"
  common=(--space="$ROOT/tools/tune/space.txt" --workload="$W" --evaluator=live
          --live_num="$NUM" --live_value_size="$VALUE_SIZE" --live_repeats="$SEARCH_REPEATS"
          --quiet)
  mkdir -p "$WORK/search$w"
  tfs_progress "search $((w + 1))/${#WORKLOADS[@]}: $OPTIMIZER, $EVALUATIONS live evaluations" \
    "of $W, $NUM keys"
  "$TUNE" "${common[@]}" --live_dir="$WORK/search$w" --optimizer="$OPTIMIZER" \
    --evaluations="$EVALUATIONS" --csv="$WORK/search$w.csv" --options_out="$WORK/best$w.ini" \
    >"$WORK/best$w.txt"
  CONFIGS+=("best$w")
  if [ "$w" = 0 ]; then
    "$TUNE" "${common[@]}" --live_dir="$WORK/search$w" --evaluations=1 \
      --csv="$WORK/default.csv" --options_out="$WORK/default.ini" >"$WORK/default.txt"
  fi
done

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
  for ((w = 0; w < ${#WORKLOADS[@]}; w++)); do
    W="${WORKLOADS[w]}" M="$(measured "${WORKLOADS[w]}")"
    # The configurations' order rotates with the repeat, so drift does not favour one.
    n=${#CONFIGS[@]}
    for ((k = 0; k < n; k++)); do
      c="${CONFIGS[(k + r) % n]}"
      tfs_progress "confirm $r/$REPEATS: $W with $c"
      dir="$WORK/confirm/$c-$w-$r"
      uri="$(reroot "$(sed -n 's/^best //p' "$WORK/$c.txt")" "$dir")"
      cache="$(awk -F= '$1 == "  block_cache" { print $2 }' "$WORK/$c.ini")"
      tfs_db_bench "$dir.log" --fs_uri="$uri" --db=/db --options_file="$WORK/$c.ini" \
        --benchmarks="$W" --num="$NUM" --value_size="$VALUE_SIZE" --key_size=16 --seed=42 \
        --threads=1 --histogram=1 --cache_size="${cache:-8388608}"
      while read -r b; do
        OPS[$c,$w,$b]+=" $(tfs_ops "$b" "$dir.log")"
      done < <(benches "$W")
      MICROS[$c,$w]+=" $(awk -v b="$M" '$1 == b && $2 == ":" { print $3 }' "$dir.log")"
      P99[$c,$w]+=" $(awk -v b="$M" '$1 == b && $2 == ":" { f = 1 }
                       f && $1 == "Percentiles:" { print $7; exit }' "$dir.log")"
      rm -rf "$dir"
    done
  done
done

minmax() { tr ' ' '\n' <<<"$1" | awk 'NF { if (!n++ || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
                                       END { printf "%.0f-%.0f", lo, hi }'; }
# shellcheck disable=SC2086  # the lists of figures are split into tfs_median's arguments
{
  echo "# tierfs-tune live: ${WORKLOADS[*]}, each tuned against the default"
  echo
  echo "\`benchmarks/tune_live.sh --workload '$WORKLOAD' --num $NUM --value-size $VALUE_SIZE" \
       "--evaluations $EVALUATIONS --optimizer $OPTIMIZER --repeats $REPEATS" \
       "--search-repeats $SEARCH_REPEATS --out $NAME\`" \
       "($(date -u +%Y-%m-%d), $(nproc) cores, revision $(git -C "$ROOT" rev-parse --short HEAD))."
  echo
  echo "Each search: $EVALUATIONS live evaluations ($OPTIMIZER), each the median of" \
       "$SEARCH_REPEATS fresh-store db_bench runs, graded on the workload's last benchmark" \
       "(Goal, alpha 0.9, against the default), in tools/tune/space.txt (its memory budget:" \
       "block cache + 2 memtables <= 136 MiB, what RocksDB's defaults spend)."
  echo
  echo "- default: \`$(sed -n 's/^best //p' "$WORK/default.txt")\`" \
       "$(sed -n 's/^rocksdb //p' "$WORK/default.txt")"
  for ((w = 0; w < ${#WORKLOADS[@]}; w++)); do
    echo "- best$w, tuned on \`${WORKLOADS[w]}\`: \`$(sed -n 's/^best //p' "$WORK/best$w.txt")\`" \
         "$(sed -n 's/^rocksdb //p' "$WORK/best$w.txt")"
    echo "  (the search's own report: $(sed -n 's/^grade //p' "$WORK/best$w.txt");" \
         "$(grep -v '^best \|^rocksdb \|^grade ' "$WORK/best$w.txt" | paste -sd' ' -))"
  done
  echo
  echo "The confirmation: every workload with every configuration, $REPEATS times each on" \
       "fresh stores, the order rotating, in this one script run; medians, the range in" \
       "brackets, and each over the default's on the same workload."
  for ((w = 0; w < ${#WORKLOADS[@]}; w++)); do
    M="$(measured "${WORKLOADS[w]}")"
    echo
    echo "### \`${WORKLOADS[w]}\`"
    echo
    tfs_md_header "ops/sec" "${CONFIGS[@]}"
    while read -r b; do
      row=("$b") d="$(tfs_median ${OPS[default,$w,$b]})"
      for c in "${CONFIGS[@]}"; do
        t="$(tfs_median ${OPS[$c,$w,$b]})"
        cell="$t ($(minmax "${OPS[$c,$w,$b]}"))"
        [ "$c" = default ] || cell+=" $(tfs_ratio "$t" "$d")x"
        row+=("$cell")
      done
      tfs_md_row "${row[@]}"
    done < <(benches "${WORKLOADS[w]}")
    for fig in MICROS P99; do
      row=("$M $([ $fig = MICROS ] && echo micros/op || echo P99 us)")
      declare -n ref=$fig
      d="$(tfs_median ${ref[default,$w]})"
      for c in "${CONFIGS[@]}"; do
        t="$(tfs_median ${ref[$c,$w]})"
        row+=("$t$([ "$c" = default ] || echo " $(tfs_ratio "$t" "$d")x")")
      done
      unset -n ref
      tfs_md_row "${row[@]}"
    done
  done
} >"$OUT"
tfs_progress "wrote $OUT"
