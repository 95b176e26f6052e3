#!/usr/bin/env bash
# policies.sh: the placement and migration policies compared on emulated hybrid
# storage, with RocksDB's own tiering (db_bench --simulate_hybrid_fs_file) as
# the outside reference.
#
# Two configurations, each a fast tier 0 (the local disk, no device model) and
# an emulated slow tier 1:
#   cost   tier 1 hdd        (cost-optimized)
#   perf   tier 1 sata-ssd   (performance-optimized)
# Tier 0 holds FAST_PCT (10) % of the database: its size is measured after the
# first fast-only fill (the SST bytes `tierfs ls` reports), not computed. With
# FAST_PCT=rocksdb, tier 0 holds instead what RocksDB's simulated hybrid kept
# fast while readrandom ran (non-last-level SSTs + WAL): equal fast-tier bytes.
# The reference, fast-only, gets a tier 0 big enough for everything.
#
# For each configuration and policy, on a fresh store, four db_bench runs on one
# database (each a separate process; TierFS recovers from its journal):
#   fillrandom + waitforcompaction   NUM keys, 16-byte keys, VALUE_SIZE-byte values
#   readrandom       --read_random_exp_range=10 (skewed), DURATION seconds
#   mixgraph         the "Facebook" parameters of RocksDB's workload-generation
#                    wiki (PR #5953): 85% gets, 14% puts, 1% seeks, key-range
#                    hotness over 30 ranges; DURATION seconds
#   readwhilewriting skewed reads, one writer at 1 MB/s; DURATION seconds
# with `tierfs --json stats` and `tierfs --json segments` after each, from which
# policy_report.py computes, per phase: bytes migrated, write amplification,
# tier 0's share of user reads and that of the best static placement.
#
# The LSM shape is the one the issue measured RocksDB's simulated hybrid with:
# NUM_LEVELS (3) levels, LEVEL_BASE (20M) for L1, an 8 MiB block cache
# (CACHE_SIZE), plus TFS_LSM_FLAGS (lib.sh: 4 MiB memtables and files, 2 MiB
# compaction readahead, bloom filters, no compression), given to db_bench as an
# OPTIONS file (--options_file: db_bench then ignores the LSM flags, so the
# shape must be in the file). The file also loads TierFSListener, which tells
# TierFS each table file's level. With 3 levels the last level (L2) holds ~90%
# of the data and is what RocksDB's simulated hybrid puts on its HDD.
#
# The RocksDB reference (cost configuration only: it simulates an HDD) runs on
# the plain posix file system, without TierFS, with the same OPTIONS file less
# the listener plus last_level_temperature=kWarm (which --simulate_hybrid_fs_file
# sets only when db_bench builds options from flags): last-level files are
# served by SimulatedHybridFileSystem's HDD model, all others are fast.
#
# Usage: benchmarks/policies.sh [--quick]; knobs in the environment (see --help).
# Writes benchmarks/results/policies.md, .png, .csv (policies-quick.* with --quick).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"

usage() {
  cat <<EOF
usage: $0 [--quick]
  --quick   smoke test, ~3 minutes: CONFIGS=cost NUM=50000 DURATION=3
            (the full run: ~17 minutes here)
environment:
  NUM            keys written by fillrandom (default 200000: 80 MiB written)
  DURATION       seconds of each read phase (default 15)
  CONFIGS        comma-separated: cost (tier 1 hdd), perf (tier 1 sata-ssd), or a
                 device name (default cost,perf)
  POLICIES       comma-separated, after the fast-only reference; rocksdb-sim is
                 RocksDB's simulated hybrid (hdd configurations only) (default
                 slow-only,fast-first,lru,cde,hintstor,mutant,rocksdb-levels,rocksdb-sim)
  FAST_PCT       tier 0 capacity, % of the database size (default 10), or
                 "rocksdb": what RocksDB's simulated hybrid kept fast during
                 readrandom (needs rocksdb-sim and an hdd configuration first)
  SEGMENT        TierFS segment size (default 1M)
  POLICY_PARAMS  space-separated POLICY.PARAM:VALUE, each given to its policy
                 (default rocksdb-levels.level_base:16M, the LSM's level base)
  BUILD_DIR      where tools/dev/build.sh builds (default build/)
  NAME           results file names, benchmarks/results/NAME.{md,csv,png}
                 (default policies)
  KEEP_WORK      if set, keep the work directory (logs, stats snapshots)
EOF
}

QUICK=0
tfs_args usage --quick -- "$@"
if ((QUICK)); then
  : "${NUM:=50000}" "${DURATION:=3}" "${CONFIGS:=cost}" "${LEVEL_BASE:=4M}"
else
  : "${NUM:=200000}" "${DURATION:=30}" "${CONFIGS:=cost,perf}"
fi
: "${VALUE_SIZE:=1000}" "${NUM_LEVELS:=3}" "${LEVEL_BASE:=20M}" "${CACHE_SIZE:=8M}"
: "${POLICIES:=slow-only,fast-first,lru,cde,hintstor,mutant,rocksdb-levels,rocksdb-sim}"
: "${FAST_PCT:=10}" "${SEGMENT:=64K}"
: "${POLICY_PARAMS:=rocksdb-levels.level_base:$LEVEL_BASE}"
COMMAND="$0 $*"
ENV_USED="NUM=$NUM DURATION=$DURATION CONFIGS=$CONFIGS POLICIES=$POLICIES FAST_PCT=$FAST_PCT"
ENV_USED+=" SEGMENT=$SEGMENT POLICY_PARAMS='$POLICY_PARAMS' VALUE_SIZE=$VALUE_SIZE"
ENV_USED+=" NUM_LEVELS=$NUM_LEVELS LEVEL_BASE=$LEVEL_BASE CACHE_SIZE=$CACHE_SIZE"

IFS=, read -r -a CONFIG_LIST <<<"$CONFIGS"
IFS=, read -r -a OTHERS <<<"$POLICIES"
# fast-only first (it sizes tier 0), then rocksdb-sim (it may: FAST_PCT=rocksdb).
POLICY_LIST=(fast-only)
for p in "${OTHERS[@]}"; do
  if [ "$p" = rocksdb-sim ]; then POLICY_LIST+=("$p"); fi
done
for p in "${OTHERS[@]}"; do
  case "$p" in fast-only|rocksdb-sim) ;; *) POLICY_LIST+=("$p") ;; esac
done
PHASES=(fillrandom readrandom mixgraph readwhilewriting)

if [ "$FAST_PCT" = rocksdb ] && { [ "$(tfs_device "${CONFIG_LIST[0]}")" != hdd ] ||
    [ "${POLICY_LIST[1]:-}" != rocksdb-sim ]; }; then
  echo "policies.sh: FAST_PCT=rocksdb needs rocksdb-sim in POLICIES and an hdd configuration" \
    "first in CONFIGS" >&2
  exit 2
fi

tfs_setup policies  # builds what is missing with "$ROOT/tools/dev/build.sh"
tfs_keep_work
NAME="${NAME:-policies}"  # results/NAME.md, .csv, .png
if ((QUICK)); then NAME+="-quick"; fi
OUT_MD="$RESULTS/$NAME.md" OUT_PNG="$RESULTS/$NAME.png" OUT_CSV="$RESULTS/$NAME.csv"

DATA_MIB=$(((NUM * (16 + VALUE_SIZE) + (1 << 20) - 1) >> 20))
BIG_MIB="$(tfs_big_mib "$DATA_MIB")"

# The OPTIONS files: TierFS runs load the listener; RocksDB's simulated hybrid
# needs last_level_temperature in the file.
tfs_options_file "$NUM_LEVELS" "$LEVEL_BASE" "$CACHE_SIZE" "db:listeners={TierFSListener}" \
  >"$WORK/tierfs.ini"
tfs_options_file "$NUM_LEVELS" "$LEVEL_BASE" "$CACHE_SIZE" "cf:last_level_temperature=kWarm" \
  >"$WORK/rocksdb.ini"

COMMON=(--num="$NUM" --value_size="$VALUE_SIZE" --key_size=16 --threads=1 --seed=42
        --statistics=1 --histogram=1)
READ=(--use_existing_db=1 --duration="$DURATION" --ops_between_duration_checks=1)

# phase_flags PHASE: db_bench's flags for one phase.
phase_flags() {
  case "$1" in
    fillrandom) echo --benchmarks=fillrandom,waitforcompaction,levelstats ;;
    readrandom) echo "${READ[@]}" --benchmarks=readrandom --read_random_exp_range=10 ;;
    mixgraph) echo "${READ[@]}" --benchmarks=mixgraph "${TFS_MIXGRAPH_FLAGS[@]}" ;;
    readwhilewriting)
      echo "${READ[@]}" --benchmarks=readwhilewriting --read_random_exp_range=10 \
        --benchmark_write_rate_limit=$((1 << 20)) ;;
  esac
}

# uri DIR POLICY DEVICE FAST: a TierFS URI for a fresh store in DIR.
uri() {
  local dir="$1" policy="$2" dev="$3" fast="$4" extra="" p
  for p in $POLICY_PARAMS; do
    if [ "${p%%.*}" = "$policy" ]; then extra+=";$p"; fi
  done
  echo "$(tfs_two_tiers "$dir" "$fast" "${BIG_MIB}M:$dev");segment_size:$SEGMENT;policy:$policy$extra"
}

# run_tierfs CONFIG POLICY FAST: the four phases on a fresh TierFS store.
run_tierfs() {
  local config="$1" policy="$2" fast="$3" dev dir uri phase
  dev="$(tfs_device "$config")" dir="$WORK/$config/${policy//=/-}"  # a URI holds no "="
  uri="$(uri "$dir" "$policy" "$dev" "$fast")"
  for phase in "${PHASES[@]}"; do
    progress "$config" "$policy" "$phase"
    # shellcheck disable=SC2046  # phase_flags is a word list
    tfs_db_bench "$dir/$phase.log" --fs_uri="$uri" --db=/db --options_file="$WORK/tierfs.ini" \
      "${COMMON[@]}" $(phase_flags "$phase")
    grep -q "Initializing RocksDB Options from the specified file" "$dir/$phase.log" || {
      echo "policies.sh: db_bench did not take $WORK/tierfs.ini (see $dir/$phase.log)" >&2
      exit 1
    }
    tfs_tool "$uri" "$dir/$phase.stats.json" stats
    tfs_tool "$uri" "$dir/$phase.segments.json" --db=/db segments
    if [ "$phase" = fillrandom ]; then tfs_tool "$uri" "$dir/fill.ls.json" --db=/db ls; fi
  done
  echo "$config $dev $policy $dir" >>"$RUNS"
  rm -rf "${dir:?}/tier0" "$dir/tier1"
}

# run_rocksdb CONFIG: the four phases on RocksDB's simulated hybrid, no TierFS.
run_rocksdb() {
  local config="$1" dir="$WORK/$1/rocksdb-sim" phase f
  mkdir -p "$dir/db"
  for phase in "${PHASES[@]}"; do
    progress "$config" rocksdb-sim "$phase"
    # shellcheck disable=SC2046  # phase_flags is a word list
    if ! "$DB_BENCH" --db="$dir/db" --simulate_hybrid_fs_file="$dir/warm.txt" \
        --options_file="$WORK/rocksdb.ini" "${COMMON[@]}" $(phase_flags "$phase") \
        >"$dir/$phase.log" 2>&1; then
      echo "db_bench failed (rocksdb-sim $phase):" >&2
      tail -n 20 "$dir/$phase.log" >&2
      exit 1
    fi
    grep -q "Initializing RocksDB Options from the specified file" "$dir/$phase.log" || {
      echo "policies.sh: db_bench did not take $WORK/rocksdb.ini (see $dir/$phase.log)" >&2
      exit 1
    }
    for f in "$dir"/db/*; do echo "${f##*/} $(stat -c %s "$f")"; done >"$dir/$phase.files.txt"
    if [ -f "$dir/warm.txt" ]; then cp "$dir/warm.txt" "$dir/$phase.warm.txt"; fi
  done
  echo "$config hdd rocksdb-sim $dir" >>"$RUNS"
  rm -rf "${dir:?}/db"
}

RUN=0 TOTAL_RUNS=0
progress() {
  tfs_progress "[run $RUN/$TOTAL_RUNS] $1: $2: $3$([ "$3" = fillrandom ] &&
    echo " ($NUM keys) + wait for compactions" || echo " (${DURATION}s)")"
}

for config in "${CONFIG_LIST[@]}"; do
  for policy in "${POLICY_LIST[@]}"; do
    if [ "$policy" != rocksdb-sim ] || [ "$(tfs_device "$config")" = hdd ]; then
      TOTAL_RUNS=$((TOTAL_RUNS + 1))
    fi
  done
done
RUNS="$WORK/runs.txt"
: >"$RUNS"
tfs_progress "policies: $TOTAL_RUNS runs of fillrandom ($NUM keys, ${DATA_MIB} MiB written)" \
  "+ 3 read phases of ${DURATION}s; about $(((TOTAL_RUNS * (3 * (DURATION + 2) + 15) + 59) / 60)) min"

FAST="" FAST_KIB=0 DB_BYTES=""  # tier 0 capacity; set by the first fast-only or rocksdb-sim run
for config in "${CONFIG_LIST[@]}"; do
  for policy in "${POLICY_LIST[@]}"; do
    if [ "$policy" = rocksdb-sim ]; then
      [ "$(tfs_device "$config")" = hdd ] || continue
      RUN=$((RUN + 1))
      sync
      run_rocksdb "$config"
      if [ "$FAST_PCT" = rocksdb ] && [ -z "$FAST" ]; then
        FAST_BYTES="$("$PY" "$ROOT/benchmarks/policy_report.py" \
          --rocksdb-fast-bytes "$WORK/$config/rocksdb-sim")"
        FAST_KIB=$(((FAST_BYTES + 1023) / 1024))
        FAST="${FAST_KIB}K"
        tfs_progress "RocksDB kept $(tfs_bytes "$FAST_BYTES") fast during readrandom" \
          "(non-last-level SSTs + WAL); tier 0 gets as much"
      fi
      continue
    fi
    RUN=$((RUN + 1))
    sync  # write back the previous run's dirty pages before timing this one
    if [ "$policy" = fast-only ]; then
      run_tierfs "$config" fast-only "${BIG_MIB}M"
      if [ -z "$DB_BYTES" ]; then
        DB_BYTES="$(tfs_sst_bytes "$WORK/$config/fast-only/fill.ls.json")"
        tfs_progress "database after the fast-only fill: $(tfs_bytes "$DB_BYTES") of SSTs"
      fi
      if [ -z "$FAST" ] && [ "$FAST_PCT" != rocksdb ]; then
        FAST_KIB=$(((DB_BYTES * FAST_PCT / 100 + 1023) / 1024))
        FAST="${FAST_KIB}K"
        tfs_progress "tier 0 gets ${FAST_PCT}%: $(tfs_bytes $((FAST_KIB * 1024)))"
      fi
    else
      run_tierfs "$config" "$policy" "$FAST"
    fi
  done
done

tfs_progress "report: ${OUT_MD#"$ROOT"/}, ${OUT_CSV#"$ROOT"/}, ${OUT_PNG#"$ROOT"/}"
REPORT="$WORK/report.md"
{
  echo "## TierFS policies on emulated hybrid storage, against RocksDB's simulated hybrid"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), $(nproc) cores," \
       "$("$DB_BENCH" --version 2>/dev/null | head -n 1)." \
       "Command: \`$ENV_USED $COMMAND\`."
  echo
  if [ "$FAST_PCT" = rocksdb ]; then
    SIZING="tier 0 gets what RocksDB's simulated hybrid kept fast during readrandom"
    SIZING+=" (non-last-level SSTs + WAL), $(tfs_bytes $((FAST_KIB * 1024)))"
  else
    SIZING="tier 0 gets ${FAST_PCT}% of it, $(tfs_bytes $((FAST_KIB * 1024)))"
  fi
  echo "fillrandom of $NUM keys (16 + $VALUE_SIZE bytes, ${DATA_MIB} MiB written); the database" \
       "measured after the first fast-only fill holds $(tfs_bytes "$DB_BYTES") of SSTs;" \
       "$SIZING (fast-only: ${BIG_MIB} MiB)." \
       "Read phases run ${DURATION}s each on the filled database (\`--use_existing_db=1" \
       "--duration=$DURATION\`): readrandom with \`--read_random_exp_range=10\`, mixgraph with" \
       "\`${TFS_MIXGRAPH_FLAGS[*]}\`, readwhilewriting (skewed reads, a 1 MB/s writer)." \
       "Segment $SEGMENT; policy parameters: ${POLICY_PARAMS:-none}."
  echo
  echo "Every run takes this OPTIONS file (\`--options_file\`, which makes db_bench ignore" \
       "its LSM flags: TFS_LSM_FLAGS are in it, with ${NUM_LEVELS} levels, L1 of ${LEVEL_BASE} and" \
       "a ${CACHE_SIZE} block cache). rocksdb-sim runs on the posix file system, without" \
       "TierFS, with \`--simulate_hybrid_fs_file\` and the same file less the listener plus" \
       "\`last_level_temperature=kWarm\` (in 7.8.3 the flag sets that temperature only when" \
       "options come from flags): RocksDB writes last-level (L$((NUM_LEVELS - 1))) files warm," \
       "and its HDD model delays reads of warm files (one spindle) and makes syncs of warm" \
       "files wait; everything else is fast."
  echo
  echo '```'
  cat "$WORK/tierfs.ini"
  echo '```'
  for config in "${CONFIG_LIST[@]}"; do
    for p in fast-only rocksdb-sim; do
      [ -f "$WORK/$config/$p/fillrandom.log" ] || continue
      echo
      echo "LSM after the fill, $config $p (level: files, MB): $(awk '
        /^Level Files Size/ { on = 1; next } on && /^-/ { next }
        on && NF == 3 { if ($2 > 0) printf "L%d: %d, %d; ", $1, $2, $3; next } on { exit }' \
        "$WORK/$config/$p/fillrandom.log")"
    done
  done
} >"$REPORT"
# The tables on stdout, the target lines again on stderr, last.
"$PY" "$ROOT/benchmarks/policy_report.py" --runs "$RUNS" --csv "$OUT_CSV" --png "$OUT_PNG" \
  --title "TierFS policies: tier 0 ${FAST_PCT}% of the database; $NUM keys, ${DURATION}s phases" \
  >>"$REPORT" 2>"$WORK/targets.txt" || { cat "$WORK/targets.txt" >&2; exit 1; }
cp "$REPORT" "$OUT_MD"
cat "$REPORT"
tfs_progress "done; wrote ${OUT_MD#"$ROOT"/}, ${OUT_CSV#"$ROOT"/} and ${OUT_PNG#"$ROOT"/}"
cat "$WORK/targets.txt" >&2
