#!/usr/bin/env bash
# trace_overhead.sh: what trace capture costs. db_bench readrandom on one
# TierFS tier without a device model (so nothing hides the cost), the same
# database read with and without `trace:FILE`, alternating in ABBA order.
#
# The table gives the median paired ratio traced / untraced per round (the
# target is >= 0.97), the records captured per second and their bytes each.
#
# Usage: benchmarks/trace_overhead.sh [--quick] [--rounds N] [--num N] [--seconds S]
# Writes benchmarks/results/trace-overhead.md (trace-overhead-quick.md with --quick).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"

usage() {
  cat <<USAGE
usage: $0 [--quick] [--rounds N] [--num N] [--seconds S]
  --quick      smoke test: --rounds 2 --num 50000 --seconds 3
  --rounds N   rounds of (untraced, traced) readrandom runs (default 8)
  --num N      keys loaded (default 200000, 400-byte values)
  --seconds S  duration of each readrandom run (default 6)
USAGE
}

QUICK=0 ROUNDS="" NUM="" SECS=""
tfs_args usage --quick --rounds=ROUNDS --num=NUM --seconds=SECS -- "$@"
if ((QUICK)); then
  : "${ROUNDS:=2}" "${NUM:=50000}" "${SECS:=3}"
else
  : "${ROUNDS:=8}" "${NUM:=200000}" "${SECS:=6}"
fi

tfs_setup trace-overhead
OUT="$RESULTS/trace-overhead.md"
if ((QUICK)); then OUT="$RESULTS/trace-overhead-quick.md"; fi
TRACE_TOOL="$BUILD/tools/sim/tierfs-trace"
tfs_build tierfs_trace_tool

URI="$(tfs_one_tier "$WORK");policy:fast-first"
COMMON=(--db=/db --num="$NUM" --value_size=400 --key_size=16 --threads=1 --seed=42
        "${TFS_LSM_FLAGS[@]}" --histogram=0 --statistics=0)
tfs_progress "loading $NUM keys"
tfs_db_bench "$WORK/fill.log" "${COMMON[@]}" "--fs_uri=$URI" --benchmarks=fillrandom,compact

# run CONFIG ROUND: one readrandom run; appends "OPS" to $WORK/CONFIG.ops, and
# for traced runs "RECORDS BYTES" to $WORK/traced.size.
run() {
  local config="$1" round="$2" uri="$URI" trace="$WORK/read-$2.trace"
  if [ "$config" = traced ]; then uri+=";trace:$trace"; fi
  tfs_progress "round $round/$ROUNDS $config readrandom (${SECS}s)"
  tfs_db_bench "$WORK/$config-$round.log" "${COMMON[@]}" "--fs_uri=$uri" --benchmarks=readrandom \
    --use_existing_db=1 --duration="$SECS" --ops_between_duration_checks=100
  tfs_ops readrandom "$WORK/$config-$round.log" >>"$WORK/$config.ops"
  if [ "$config" = traced ]; then
    echo "$("$TRACE_TOOL" info "$trace" | awk '/^records/ { print $2 }') $(stat -c %s "$trace")" \
      >>"$WORK/traced.size"
    rm -f "$trace"
  fi
}

for ((round = 1; round <= ROUNDS; round++)); do
  order=(untraced traced)
  if ((round % 2 == 0)); then order=(traced untraced); fi
  for config in "${order[@]}"; do run "$config" "$round"; done
done

ratios="$(paste "$WORK/traced.ops" "$WORK/untraced.ops" | awk '{ printf "%.3f ", $1 / $2 }')"
# shellcheck disable=SC2086
ratio="$(tfs_median $ratios)"
# shellcheck disable=SC2046
untraced="$(tfs_median $(cat "$WORK/untraced.ops"))"
# shellcheck disable=SC2046
traced="$(tfs_median $(cat "$WORK/traced.ops"))"
read -r records bytes < <(awk '{ r += $1; b += $2 } END { print r, b }' "$WORK/traced.size")
{
  echo "## Trace capture overhead: db_bench readrandom, one tier, no device model"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), $(nproc) cores, $ROUNDS rounds" \
       "alternating untraced/traced on one database of $NUM keys, ${SECS}s each."
  echo
  tfs_md_header "untraced ops/s (median)" "traced ops/s (median)" "**median paired ratio**" \
    "paired ratios by round" "records captured" "bytes per record"
  tfs_md_row "$untraced" "$traced" "**$ratio**" "$ratios" "$records" \
    "$(awk -v r="$records" -v b="$bytes" 'BEGIN { printf "%.1f", r ? b / r : 0 }')"
  echo
  if awk -v r="$ratio" 'BEGIN { exit !(r >= 0.97) }'; then
    echo "Target (traced / untraced >= 0.97): **met**."
  else
    echo "Target (traced / untraced >= 0.97): **not met**."
  fi
} | tee "$OUT"
tfs_progress "done; wrote ${OUT#"$ROOT"/}"
