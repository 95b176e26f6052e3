#!/usr/bin/env bash
# ycsb_compare.sh: YCSB A-F and a hotspot workload on TierFS's policies and on
# RocksDB's own tiering, all on the same emulated devices.
#
# Two configurations, each an emulated fast tier 0 (optane) and an emulated
# slow tier 1:
#   cost   tier 1 hdd        (cost-optimized)
#   perf   tier 1 sata-ssd   (performance-optimized)
# Tier 0 holds FAST_PCT (10) % of the database: its size is measured after the
# first fast-only load (the SST bytes `tierfs ls` reports), not computed. The
# reference, fast-only, gets a tier 0 big enough for everything.
#
# Systems, each on a fresh store with the same two tiers:
#   fast-only slow-only fast-first lru cde hintstor mutant rocksdb-levels
#                     TierFS's policies (PolicyNames()), TierFS deciding
#   db_paths          RocksDB's db_paths: <tier0>/db:FAST,<tier1>/db:BIG, TierFS in
#                     its emulation-only mode (placement:rocksdb) so each file lives
#                     on the tier whose root holds the path RocksDB chose
#   last_level_temp   RocksDB's last_level_temperature=kWarm, same mode: warm files
#                     on tier 1, the rest on tier 0 (spilling down when full)
#
# For each configuration and system, tierfs-ycsb (tools/ycsb) loads RECORDS
# records (workloada's record layout: 10 fields of 100 bytes), waits for the
# compactions (rocksdb.wait_for_compaction), then runs each workload of
# WORKLOADS in this order, each a separate process on the same database, for
# at most OPS operations or DURATION seconds, whichever comes first:
#   a b c f hotspot   no inserts: the database does not change size
#   d e               5% inserts each, last (YCSB runs D after A, B, C, F too)
# D is YCSB's workloadd, whose request distribution is already `latest` (the
# script sets it again); hotspot is workloadb (95% reads, 5% updates) with
# requestdistribution=hotspot, hotspotdatafraction=0.1, hotspotopnfraction=0.9:
# 90% of the operations on 10% of the records, as much data as tier 0 holds.
# After each process, `tierfs --json stats`: the report takes from the
# differences tier 0's share of the user reads and the bytes migrated.
#
# Rounds: all of it runs ROUNDS times (default 5), each round with the systems
# in its own rotation (tfs_round_order in lib.sh; round 1 runs fast-only first,
# whose load sizes tier 0 for every round), each system on a fresh store (its
# placement is made as the load writes). benchmarks/rounds.py reports, per
# configuration and workload, the median over the rounds and each ratio against
# fast-only and slow-only as the median of the paired per-round ratios with a
# 95% bootstrap interval; the detailed tables and plots are the last round's.
#
# The LSM shape is policies.sh's, given as an OPTIONS file (rocksdb.options_file):
# TFS_LSM_FLAGS (lib.sh: 4 MiB memtables and files, 2 MiB compaction readahead,
# bloom filters, no compression), NUM_LEVELS (3) levels, LEVEL_BASE (16M) for L1,
# a CACHE_SIZE (4M) block cache. One client thread (THREADS).
#
# Usage: benchmarks/ycsb_compare.sh [--quick]; knobs in the environment (--help).
# Writes benchmarks/results/ycsb.md, ycsb.csv, ycsb-throughput.png, ycsb-p99.png
# (ycsb-quick.* with --quick).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"

usage() {
  cat <<EOF
usage: $0 [--quick]
  --quick   smoke test, ~3 minutes (5 on a busy machine): ROUNDS=2 RECORDS=10000
            OPS=1000 DURATION=1 WORKLOADS=a,hotspot,e (the full run: ~18 minutes a round)
environment:
  ROUNDS       rounds of every system, each in its own rotation (default 5)
  RECORDS      records loaded (default 100000: ~112 MiB of SSTs)
  OPS          most operations per workload run (default 100000)
  DURATION     most seconds per workload run (default 6)
  WORKLOADS    comma-separated, run in this order: a, b, c, f, hotspot, d, e
               (default all seven)
  CONFIGS      comma-separated: cost (tier 1 hdd), perf (tier 1 sata-ssd), or a
               device name (default cost,perf)
  SYSTEMS      comma-separated, after the fast-only reference: TierFS policies and
               db_paths, last_level_temp (default slow-only,fast-first,lru,cde,
               hintstor,mutant,rocksdb-levels,db_paths,last_level_temp)
  FAST_PCT     tier 0 capacity, % of the loaded database (default 10)
  FAST_DEVICE  tier 0's device model (default optane)
  SEGMENT      TierFS segment size (default 64K)
  THREADS      YCSB client threads (default 1)
  CACHE_SIZE   block cache (default 4M); LEVEL_BASE (16M); NUM_LEVELS (3)
  BUILD_DIR    where tools/dev/build.sh builds (default build/)
  KEEP_WORK    if set, keep the work directory (logs, reports, stats snapshots)
EOF
}

QUICK=0
tfs_args usage --quick -- "$@"
if ((QUICK)); then
  : "${ROUNDS:=2}" "${RECORDS:=10000}" "${OPS:=1000}" "${DURATION:=1}" "${WORKLOADS:=a,hotspot,e}"
fi
: "${ROUNDS:=5}" "${RECORDS:=100000}" "${OPS:=100000}" "${DURATION:=6}" "${WORKLOADS:=a,b,c,f,hotspot,d,e}"
: "${CONFIGS:=cost,perf}" "${FAST_PCT:=10}" "${FAST_DEVICE:=optane}" "${SEGMENT:=64K}"
: "${SYSTEMS:=slow-only,fast-first,lru,cde,hintstor,mutant,rocksdb-levels,db_paths,last_level_temp}"
: "${THREADS:=1}" "${CACHE_SIZE:=4M}" "${LEVEL_BASE:=16M}" "${NUM_LEVELS:=3}"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "ycsb_compare.sh: ROUNDS must be a positive number, not '$ROUNDS'" >&2; exit 2; }
COMMAND="$0 $*"
ENV_USED="ROUNDS=$ROUNDS RECORDS=$RECORDS OPS=$OPS DURATION=$DURATION WORKLOADS=$WORKLOADS CONFIGS=$CONFIGS"
ENV_USED+=" SYSTEMS=$SYSTEMS FAST_PCT=$FAST_PCT FAST_DEVICE=$FAST_DEVICE SEGMENT=$SEGMENT"
ENV_USED+=" THREADS=$THREADS CACHE_SIZE=$CACHE_SIZE LEVEL_BASE=$LEVEL_BASE NUM_LEVELS=$NUM_LEVELS"

IFS=, read -r -a CONFIG_LIST <<<"$CONFIGS"
IFS=, read -r -a WORKLOAD_LIST <<<"$WORKLOADS"
mapfile -t SYSTEM_LIST < <(tfs_reference_first "$SYSTEMS")
for w in "${WORKLOAD_LIST[@]}"; do
  case "$w" in a|b|c|d|e|f|hotspot) ;; *)
    echo "ycsb_compare.sh: unknown workload '$w' in WORKLOADS (known: a, b, c, d, e, f, hotspot)" >&2
    exit 2 ;;
  esac
done

tfs_setup ycsb  # libtierfs.so and the tierfs tool, with "$ROOT/tools/dev/build.sh"
tfs_build tierfs_ycsb_tool
YCSB="$BUILD/tools/ycsb/tierfs-ycsb"
[ -x "$YCSB" ] || { echo "ycsb_compare.sh: missing $YCSB" >&2; exit 1; }
tfs_keep_work
NAME=ycsb
if ((QUICK)); then NAME+="-quick"; fi
OUT_MD="$RESULTS/$NAME.md" OUT_CSV="$RESULTS/$NAME.csv"
OUT_TPUT="$RESULTS/$NAME-throughput.png" OUT_P99="$RESULTS/$NAME-p99.png"

for config in "${CONFIG_LIST[@]}"; do
  dev="$(tfs_device "$config")"
  case "$dev" in none|optane|nvme|sata-ssd|hdd|custom-*) ;; *)
    echo "ycsb_compare.sh: unknown configuration '$config' in CONFIGS" \
      "(known: cost, perf, or a device: none, optane, nvme, sata-ssd, hdd, custom-R-W-MBPS)" >&2
    exit 2 ;;
  esac
done

# The OPTIONS file: policies.sh's LSM shape (TFS_LSM_FLAGS) for every system.
tfs_options_file "$NUM_LEVELS" "$LEVEL_BASE" "$CACHE_SIZE" >"$WORK/options.ini"

DATA_MIB_EST=$(((RECORDS * 1100 + (1 << 20) - 1) >> 20))  # ~1.1 KB a record on disk
BIG_MIB="$(tfs_big_mib "$DATA_MIB_EST")"

# run_system CONFIG SYSTEM FAST: load, then every workload, on a fresh store.
run_system() {
  local config="$1" system="$2" fast="$3" dir uri w p props=()
  dir="$WORK/r$ROUND/$config/${system//=/-}"  # a URI holds no "="
  tfs_store "$dir" "$system" "$fast:$FAST_DEVICE" "${BIG_MIB}M:$(tfs_device "$config")" \
    "$LEVEL_BASE" ";segment_size:$SEGMENT"
  uri="$STORE_URI"
  for p in "${STORE_PROPS[@]}"; do props+=(-p "$p"); done
  props+=(-p "rocksdb.dir=$STORE_DB" -p "rocksdb.fs_uri=$uri"
          -p "rocksdb.options_file=$WORK/options.ini" -p "recordcount=$RECORDS")
  STEP=$((STEP + 1))
  tfs_progress "[$STEP/$TOTAL_STEPS] round $ROUND/$ROUNDS: $config: $system: load ($RECORDS" \
    "records) + wait for compactions"
  # shellcheck disable=SC2046  # tfs_ycsb_workload is a word list
  tfs_ycsb "$dir" load -load $(tfs_ycsb_workload a) "${props[@]}" -p rocksdb.wait_for_compaction=true
  tfs_tool "$uri" "$dir/load.stats.json" stats
  if [ "$system" = fast-only ]; then tfs_tool "$uri" "$dir/load.ls.json" --db=/ ls; fi
  for w in "${WORKLOAD_LIST[@]}"; do
    STEP=$((STEP + 1))
    tfs_progress "[$STEP/$TOTAL_STEPS] round $ROUND/$ROUNDS: $config: $system: workload $w" \
      "(at most $OPS operations or ${DURATION}s)"
    # shellcheck disable=SC2046  # tfs_ycsb_workload is a word list
    tfs_ycsb "$dir" "$w" -run $(tfs_ycsb_workload "$w") "${props[@]}" -p operationcount="$OPS" \
      -p maxexecutiontime="$DURATION"
    tfs_tool "$uri" "$dir/$w.stats.json" stats
  done
  echo "$config $(tfs_device "$config") $system $dir" >>"$RUNS"
  rm -rf "${dir:?}/tier0" "$dir/tier1"
}

mapfile -t WORKLOAD_LIST < <(tfs_in_order "a b c f hotspot d e" "$WORKLOADS")
STEP=0 TOTAL_STEPS=$((ROUNDS * ${#CONFIG_LIST[@]} * ${#SYSTEM_LIST[@]} * (1 + ${#WORKLOAD_LIST[@]})))
tfs_progress "ycsb: $ROUNDS rounds x ${#CONFIG_LIST[@]} configurations x ${#SYSTEM_LIST[@]} systems:" \
  "load $RECORDS records, then ${#WORKLOAD_LIST[@]} workloads of at most ${DURATION}s;" \
  "about $(((ROUNDS * ${#CONFIG_LIST[@]} * ${#SYSTEM_LIST[@]} * (${#WORKLOAD_LIST[@]} * (DURATION + 1) + 1 + RECORDS / 10000) + 59) / 60)) min"

SYSTEMS_ORDER="$(IFS=,; echo "${SYSTEM_LIST[*]}")"
FAST="" DB_BYTES=""  # tier 0 capacity, set after the first fast-only load
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  RUNS="$WORK/runs-$ROUND.txt"
  : >"$RUNS"
  for config in "${CONFIG_LIST[@]}"; do
    mapfile -t ORDER < <(tfs_round_order "$ROUND" "$SYSTEMS_ORDER")
    for system in "${ORDER[@]}"; do
      sync  # write back the previous run's dirty pages before timing this one
      if [ "$system" = fast-only ]; then
        run_system "$config" fast-only "${BIG_MIB}M"
        if [ -z "$DB_BYTES" ]; then
          DB_BYTES="$(tfs_sst_bytes "$WORK/r$ROUND/$config/fast-only/load.ls.json")"
          FAST="$(((DB_BYTES * FAST_PCT / 100 + 1023) / 1024))K"
          tfs_progress "database after the fast-only load: $(tfs_bytes "$DB_BYTES") of SSTs;" \
            "tier 0 gets ${FAST_PCT}%: $(tfs_bytes $((${FAST%K} * 1024)))"
        fi
      else
        run_system "$config" "$system" "$FAST"
      fi
    done
  done
done

tfs_progress "report: ${OUT_MD#"$ROOT"/}, ${OUT_CSV#"$ROOT"/}, ${OUT_TPUT#"$ROOT"/}, ${OUT_P99#"$ROOT"/}"
REPORT="$WORK/report.md"
{
  echo "## YCSB on TierFS's policies and on RocksDB's own tiering, on emulated hybrid storage"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), $(nproc) cores," \
       "wall time $(((SECONDS - TFS_START) / 60)) min $(((SECONDS - TFS_START) % 60)) s." \
       "Command: \`$ENV_USED $COMMAND\`."
  echo
  echo "Load $RECORDS records (10 fields of 100 bytes), then wait for compactions; the" \
       "database then holds $(tfs_bytes "$DB_BYTES") of SSTs (fast-only, measured) and tier 0" \
       "gets ${FAST_PCT}% of it, $(tfs_bytes $((${FAST%K} * 1024))) ($FAST_DEVICE); tier 1" \
       "${BIG_MIB} MiB; fast-only gets ${BIG_MIB} MiB of tier 0. Each workload then runs for at" \
       "most $OPS operations or ${DURATION} s, $THREADS client thread(s), in the order" \
       "${WORKLOAD_LIST[*]}, each a new process on the same database. D is workloadd" \
       "(requestdistribution=latest); hotspot is workloadb with requestdistribution=hotspot," \
       "hotspotdatafraction=0.1, hotspotopnfraction=0.9. Segment $SEGMENT."
  echo
  echo "db_paths and last_level_temp are RocksDB's own tiering on the same devices, TierFS" \
       "following it (\`placement:rocksdb\`): db_paths \`<tier0>/db:FAST,<tier1>/db:BIG\`" \
       "with the database in \`<tier0>/db\`; last_level_temp" \
       "\`last_level_temperature=kWarm\`, warm files on tier 1."
  echo
  echo "Every system takes this OPTIONS file (rocksdb.options_file):"
  echo
  echo '```'
  cat "$WORK/options.ini"
  echo '```'
} >"$REPORT"
# Each round's figures (ycsb_report.py, one CSV a round), then the rounds'
# statistics over all of them; the detailed tables and plots are the last round's.
: >"$OUT_CSV"
for ((r = 1; r <= ROUNDS; r++)); do
  tput="$WORK/round-$r-throughput.png" p99="$WORK/round-$r-p99.png"
  ((r < ROUNDS)) || tput="$OUT_TPUT" p99="$OUT_P99"
  "$PY" "$ROOT/benchmarks/ycsb_report.py" --runs "$WORK/runs-$r.txt" \
    --workloads "$(IFS=,; echo "${WORKLOAD_LIST[*]}")" --csv "$WORK/round-$r.csv" \
    --throughput-png "$tput" --p99-png "$p99" \
    --title "YCSB, tier 0 = ${FAST_PCT}% of the data; $RECORDS records, runs of ${DURATION}s; round $r of $ROUNDS" \
    >"$WORK/round-$r.md"
  tfs_add_round "$r" "$WORK/round-$r.csv" "$OUT_CSV"
done
{
  tfs_rounds_tables "$OUT_CSV" config,workload "$SYSTEMS_ORDER" fast-only,slow-only \
    ops_per_sec:higher:ops/s device_us_per_op:lower:"device us/op" p99_us:lower:"p99 us" \
    hit_ratio:higher:"tier 0 share"
  echo "### The last round in detail (round $ROUNDS of $ROUNDS: one run a cell, no intervals)"
  echo
  cat "$WORK/round-$ROUNDS.md"
} >>"$REPORT"
cp "$REPORT" "$OUT_MD"
cat "$REPORT"
tfs_progress "done; wrote ${OUT_MD#"$ROOT"/}, ${OUT_CSV#"$ROOT"/}, ${OUT_TPUT#"$ROOT"/}, ${OUT_P99#"$ROOT"/}"
