#!/usr/bin/env bash
# overhead.sh: what TierFS costs when it adds nothing. Compares RocksDB's default
# file system with TierFS on ONE tier without a device model (same local disk),
# for db_bench fillrandom, readrandom and readwhilewriting.
#
# The harness's rounds (lib.sh, rounds.py): each round runs both configurations,
# in an order that rotates from round to round, so that drift on a noisy
# machine hits both alike; every run starts from a fresh database and a fresh
# tier directory. Per configuration and round, three db_bench invocations with
# the same flags and seed:
#   1. fillrandom,compact        the fill is timed; the full compaction gives both
#                                configurations the same LSM shape to read
#   2. readrandom                reopens the database (TierFS recovers its
#                                journal), reads for a fixed time
#   3. readwhilewriting          one reader, one rate-limited writer
#
# How to read it: per benchmark, each configuration's median ops/s and the
# process's CPU microseconds per operation (user + system over the operations
# db_bench counted: the fill's includes its compaction), and the ratio TierFS /
# default paired by round with its 95% bootstrap interval. 1.000 means no
# overhead; the target is >= 0.97 ops/s per benchmark. Only ratios mean
# something: Debian's db_bench is built with assertions, so absolute numbers
# are low. CPU per operation moves least with a busy machine.
#
# Usage: benchmarks/overhead.sh [--quick] [--rounds N] [--num N] [--seconds S]
# Writes benchmarks/results/overhead.md (overhead-quick.md with --quick) and
# the runs beside it (.csv).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"

usage() {
  cat <<EOF
usage: $0 [--quick] [--rounds N] [--num N] [--seconds S]
  --quick      smoke test, under a minute: --rounds 2 --num 50000 --seconds 3
  --rounds N   rounds of (default, tierfs) runs (default 8)
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
CSV="${OUT%.md}.csv"
BENCHES=(fillrandom readrandom readwhilewriting)
CONFIGS=default,tierfs
echo "round,benchmark,system,ops_per_sec,cpu_us_per_op" >"$CSV"

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

# operations BENCH LOG: how many operations db_bench counted for BENCH, e.g.
# "readrandom : 1.837 micros/op 543900 ops/sec 6.0 seconds 3263400 operations; ..."
operations() {
  awk -v b="$1" '$1 == b && $2 == ":" {
      for (i = 3; i < NF; i++) if ($(i + 1) ~ /^operations;?$/) { print $i; exit } }' "$2"
}

# record CONFIG ROUND BENCH LOG: the run's row of the CSV.
record() {
  local ops n cpu
  ops="$(tfs_ops "$3" "$4")"
  n="$(operations "$3" "$4")"
  cpu="$(tfs_cpu_seconds "$4")"
  awk -v r="$2" -v b="$3" -v c="$1" -v ops="$ops" -v n="$n" -v cpu="$cpu" \
    'BEGIN { printf "%s,%s,%s,%s,%s\n", r, b, c, ops, (n > 0 ? sprintf("%.3f", cpu * 1e6 / n) : "") }' \
    >>"$CSV"
}

# run_config CONFIG ROUND: runs the three invocations and records each.
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
  record "$config" "$round" fillrandom "$dir/fill.log"
  local bench
  for bench in readrandom readwhilewriting; do
    tfs_progress "round $round/$ROUNDS $config: $bench (${SECS}s)"
    tfs_db_bench "$dir/$bench.log" "${target[@]}" "${COMMON[@]}" "${READ_FLAGS[@]}" \
      --benchmarks="$bench"
    record "$config" "$round" "$bench" "$dir/$bench.log"
  done
  rm -rf "$dir"  # keep the disk footprint at one database
}

for ((round = 1; round <= ROUNDS; round++)); do
  mapfile -t ORDER < <(tfs_round_order "$round" "$CONFIGS")
  for config in "${ORDER[@]}"; do
    sync  # write back the previous run's dirty pages before timing this one
    run_config "$config" "$round"
  done
done

METRICS=(--metric ops_per_sec:higher:ops/s --metric "cpu_us_per_op:lower:CPU us/op")
"$PY" "$ROOT/benchmarks/rounds.py" summary --csv "$CSV" --cells benchmark --baseline default \
  --systems "$CONFIGS" "${METRICS[@]}" --out "$WORK/summary.csv"
# verdict BENCH: the target's verdict from TierFS's paired ops/s ratio and its
# interval: met (the interval above 0.97), not met (below), or not shown.
verdict() {
  awk -F, -v b="$1" 'NR > 1 && $1 == b && $2 == "tierfs" && $3 == "ops_per_sec" {
      r = $8; lo = $9; hi = $10
      if (lo == "") { print "one round: not shown"; exit }
      if (lo >= 0.97) v = "met"; else if (hi < 0.97) v = "not met"; else v = "not shown either way"
      printf "%s (%.3f [%.3f-%.3f])\n", v, r, lo, hi; exit }' "$WORK/summary.csv"
}

{
  echo "## TierFS overhead: one tier, no device model, vs RocksDB's default file system"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), $(nproc) cores, $ROUNDS round(s)," \
       "the two configurations in a rotating order; db_bench $("$DB_BENCH" --version 2>/dev/null | awk '{print $NF}')" \
       "--num=$NUM --value_size=400, reads ${SECS}s. Ratios are TierFS / default, paired by round," \
       "with 95% bootstrap intervals (\`benchmarks/rounds.py\`). CPU us/op: the process's user +" \
       "system time over the operations db_bench counted (the fill's includes its compaction)."
  echo
  "$PY" "$ROOT/benchmarks/rounds.py" table --csv "$CSV" --cells benchmark --baseline default \
    --systems "$CONFIGS" "${METRICS[@]}"
  echo
  echo "Target (TierFS / default ops/s >= 0.97, the interval above it):"
  echo
  for bench in "${BENCHES[@]}"; do echo "- $bench: $(verdict "$bench")"; done
} | tee "$OUT"
tfs_progress "done; wrote ${OUT#"$ROOT"/}"
