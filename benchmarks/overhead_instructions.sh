#!/usr/bin/env bash
# overhead_instructions.sh: TierFS's CPU overhead, counted in instructions.
#
# Throughput on a shared VM wanders by +-20% from run to run, which hides a
# few percent of overhead (overhead.sh needs many rounds and still wobbles).
# valgrind's callgrind counts the user-space instructions a run executes:
# repeatable for the same binary and input, whatever else the machine does.
# This runs the same db_bench fillrandom and readrandom (fixed --num, --reads,
# --seed) on RocksDB's default file system and on TierFS (one tier, no device
# model) under callgrind and reports instructions per operation and their
# ratio. Kernel time (the same pread/pwrite calls in both) is not counted, so
# the ratio is an upper bound of the user-space share of the overhead.
#
# Usage: benchmarks/overhead_instructions.sh [--num N] [--reads N]
# Writes benchmarks/results/overhead-instructions.md. Takes ~3 minutes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"

usage() { sed -n '2,15p' "$0"; }
NUM=50000 READS=30000
tfs_args usage --num=NUM --reads=READS -- "$@"
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }

tfs_setup overhead-instructions
COMMON=(--num="$NUM" --value_size=400 --key_size=16 --threads=1 --seed=42 "${TFS_LSM_FLAGS[@]}")
mkdir -p "$WORK/default"
TIERFS_URI="$(tfs_one_tier "$WORK")"

# db_flags CONFIG: sets DB_FLAGS, db_bench's flags for the database of CONFIG:
# on RocksDB's default file system, or on TierFS, one tier without a device model.
db_flags() {
  if [ "$1" = tierfs ]; then
    DB_FLAGS=(--db=/db "--fs_uri=$TIERFS_URI")
  else
    DB_FLAGS=(--db="$WORK/default/db")
  fi
}

# instructions CONFIG BENCH EXTRA...: callgrind's instruction total of one run.
instructions() {
  local config="$1" bench="$2"
  shift 2
  db_flags "$config"
  LD_PRELOAD="$LIB" valgrind --tool=callgrind --callgrind-out-file="$WORK/$config-$bench.cg" \
    "$DB_BENCH" "${DB_FLAGS[@]}" "${COMMON[@]}" --benchmarks="$bench" "$@" \
    >"$WORK/$config-$bench.log" 2>&1
  awk '/Collected :/ { print $NF }' "$WORK/$config-$bench.log"
}

declare -A ins
for config in default tierfs; do
  tfs_progress "$config: fillrandom ($NUM keys) under callgrind"
  ins[$config-fill]="$(instructions "$config" fillrandom)"
  # The read run needs a settled tree: compact outside callgrind.
  db_flags "$config"
  tfs_db_bench "$WORK/$config-compact.log" "${DB_FLAGS[@]}" "${COMMON[@]}" --use_existing_db=1 \
    --benchmarks=compact
  tfs_progress "$config: readrandom ($READS reads) under callgrind"
  ins[$config-read]="$(instructions "$config" readrandom --use_existing_db=1 --reads="$READS")"
done

OUT="$RESULTS/overhead-instructions.md"
{
  echo "## TierFS overhead in instructions (callgrind): one tier, no device model"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision). User-space instructions of a whole"
  echo "db_bench run (open, benchmark, close), --num=$NUM --reads=$READS, same seed."
  echo
  tfs_md_header benchmark "default instructions" "tierfs instructions" "tierfs / default" "extra per op"
  for b in fill read; do
    ops=$NUM
    [ "$b" = read ] && ops=$READS
    d=${ins[default-$b]} t=${ins[tierfs-$b]}
    extra=$(awk -v d="$d" -v t="$t" -v n="$ops" 'BEGIN { printf "%.0f", (t - d) / n }')
    name=fillrandom
    [ "$b" = read ] && name=readrandom
    tfs_md_row "$name" "$d" "$t" "$(tfs_ratio "$t" "$d")" "$extra"
  done
} | tee "$OUT"
tfs_progress "done; wrote ${OUT#"$ROOT"/}"
