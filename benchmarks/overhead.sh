#!/usr/bin/env bash
# overhead.sh: what TierFS costs when it adds nothing. Compares RocksDB's default
# file system with TierFS on ONE tier without a device model (same local disk),
# for db_bench fillrandom, readrandom and readwhilewriting.
#
# Each round runs both configurations, alternating in ABBA order (default,
# tierfs, tierfs, default, ...) so that drift on a noisy machine hits both
# alike; every run starts from a fresh database and fresh tier directory. Per configuration and
# round, three db_bench invocations with the same flags and seed:
#   1. fillrandom,compact        the fill is timed; the full compaction gives both
#                                configurations the same LSM shape to read
#   2. readrandom                reopens the database (TierFS recovers its
#                                journal), reads for a fixed time
#   3. readwhilewriting          one reader, one rate-limited writer
#
# How to read it: the table gives the median ops/sec of each configuration and
# the ratio TierFS / default. 1.000 means no overhead; the target is >= 0.97 per
# benchmark. Only ratios mean something: Debian's db_bench is built with
# assertions, so absolute numbers are low. On a noisy machine use more rounds.
#
# Usage: benchmarks/overhead.sh [--quick] [--rounds N] [--num N] [--seconds S]
# Writes benchmarks/results/overhead.md (overhead-quick.md with --quick).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"

usage() {
  cat <<EOF
usage: $0 [--quick] [--rounds N] [--num N] [--seconds S]
  --quick      smoke test, under a minute: --rounds 2 --num 50000 --seconds 3
  --rounds N   rounds of (default, tierfs) runs (default 8; even keeps ABBA
               balanced)
  --num N      keys written by fillrandom (default 200000, 400-byte values)
  --seconds S  duration of readrandom and of readwhilewriting (default 6)
EOF
}

QUICK=0 ROUNDS="" NUM="" SECS=""
tfs_args usage --quick --rounds=ROUNDS --num=NUM --seconds=SECS -- "$@"
if ((QUICK)); then
  : "${ROUNDS:=2}" "${NUM:=50000}" "${SECS:=3}"
else
  : "${ROUNDS:=8}" "${NUM:=200000}" "${SECS:=6}"
fi

tfs_setup overhead
OUT="$RESULTS/overhead.md"
if ((QUICK)); then OUT="$RESULTS/overhead-quick.md"; fi
BENCHES=(fillrandom readrandom readwhilewriting)
CONFIGS=(default tierfs)

# Same flags for both configurations; only --db and --fs_uri differ. The library
# is preloaded for both, so the processes differ in nothing else.
COMMON=(
  --num="$NUM" --value_size=400 --key_size=16 --threads=1 --seed=42
  "${TFS_LSM_FLAGS[@]}"
  --histogram=0 --statistics=0
)
READ_FLAGS=(
  --use_existing_db=1 --duration="$SECS" --ops_between_duration_checks=100
  --benchmark_write_rate_limit=$((2 << 20))
)

# run_config CONFIG ROUND: runs the three invocations; appends "BENCH OPS" lines
# to $WORK/CONFIG.ops.
run_config() {
  local config="$1" round="$2" dir="$WORK/$1-$2" target=()
  mkdir -p "$dir"
  if [ "$config" = default ]; then
    target=(--db="$dir/db")
  else
    target=(--db=/db "--fs_uri=$(tfs_one_tier "$dir");policy:fast-first")
  fi
  tfs_progress "round $round/$ROUNDS $config: fillrandom + compact"
  tfs_db_bench "$dir/fill.log" "${target[@]}" "${COMMON[@]}" \
    --benchmarks=fillrandom,compact
  echo "fillrandom $(tfs_ops fillrandom "$dir/fill.log")" >>"$WORK/$config.ops"
  local bench
  for bench in readrandom readwhilewriting; do
    tfs_progress "round $round/$ROUNDS $config: $bench (${SECS}s)"
    tfs_db_bench "$dir/$bench.log" "${target[@]}" "${COMMON[@]}" "${READ_FLAGS[@]}" \
      --benchmarks="$bench"
    echo "$bench $(tfs_ops "$bench" "$dir/$bench.log")" >>"$WORK/$config.ops"
  done
  rm -rf "$dir"  # keep the disk footprint at one database
}

# ABBA order: odd rounds run default first, even rounds tierfs first, so that
# neither always inherits the other's leftovers (dirty pages, disk writeback).
for ((round = 1; round <= ROUNDS; round++)); do
  order=("${CONFIGS[@]}")
  if ((round % 2 == 0)); then order=("${CONFIGS[1]}" "${CONFIGS[0]}"); fi
  for config in "${order[@]}"; do
    sync  # write back the previous run's dirty pages before timing this one
    run_config "$config" "$round"
  done
done

# ops_of CONFIG BENCH: every round's ops/sec.
ops_of() { awk -v b="$2" '$1 == b { print $2 }' "$WORK/$1.ops" | paste -sd " " -; }
# paired_ratios BENCH: tierfs / default of each round. The two runs of a round
# are back to back, so the machine's slow drifts cancel in their ratio.
paired_ratios() {
  paste <(awk -v b="$1" '$1 == b { print $2 }' "$WORK/tierfs.ops") \
        <(awk -v b="$1" '$1 == b { print $2 }' "$WORK/default.ops") |
    awk '{ printf "%.3f ", ($2 > 0 ? $1 / $2 : 0) }'
}

met=1
{
  echo "## TierFS overhead: one tier, no device model, vs RocksDB's default file system"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), $(nproc) cores, $ROUNDS round(s)" \
       "alternating default/tierfs; db_bench $("$DB_BENCH" --version 2>/dev/null | awk '{print $NF}')" \
       "--num=$NUM --value_size=400, reads ${SECS}s. Headline: the median over rounds of" \
       "tierfs / default within a round (runs of a round are back to back)."
  echo
  tfs_md_header benchmark "default ops/s (median)" "tierfs ops/s (median)" "ratio of medians" \
    "**median paired ratio**" "paired ratios by round"
  for bench in "${BENCHES[@]}"; do
    # shellcheck disable=SC2046  # word splitting intended
    d="$(tfs_median $(ops_of default "$bench"))"
    # shellcheck disable=SC2046
    t="$(tfs_median $(ops_of tierfs "$bench"))"
    ratios="$(paired_ratios "$bench")"
    # shellcheck disable=SC2086
    r="$(tfs_median $ratios)"
    awk -v r="$r" 'BEGIN { exit !(r >= 0.97) }' || met=0
    tfs_md_row "$bench" "$d" "$t" "$(tfs_ratio "$t" "$d")" "**$r**" "$ratios"
  done
  echo
  if ((met)); then
    echo "Target (TierFS / default >= 0.97 for every benchmark): **met**."
  else
    echo "Target (TierFS / default >= 0.97 for every benchmark): **not met**."
  fi
} | tee "$OUT"
tfs_progress "done; wrote ${OUT#"$ROOT"/}"
