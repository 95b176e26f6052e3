#!/usr/bin/env bash
# fast_tier.sh: does the fast tier earn its keep? (issue 13). Every system on
# the same emulated devices, each workload warmed up and then measured in a
# steady state, with tier 0's share of the user reads next to the best a
# static placement of 16 KiB pages could do, tier 0's use over time, the
# bytes moved and copied, and the fast device's writes per user write.
#
# Configurations, tier 0 an emulated optane (FAST_DEVICE) holding FAST_PCT (10)
# % of the database (measured after fast-only's load or fill, per family):
#   perf   tier 1 sata-ssd   (performance-optimized)
#   cost   tier 1 hdd        (cost-optimized)
# The block cache is CACHE_PCT (1) % of the data (of its estimate: records x
# 1.1 KB, keys x 1016 B), the same for every system.
#
# Rounds: the whole comparison runs ROUNDS times (default 5), each round with the
# systems in its own rotation (tfs_round_order in lib.sh; round 1 runs fast-only
# first, whose load and fill size tier 0 for every round), each system on fresh
# stores (placement happens as the load writes, so a loaded store cannot be
# shared). benchmarks/rounds.py gives per configuration and workload the median
# over the rounds and each ratio against BASELINES as the median of the paired
# per-round ratios with a 95% bootstrap interval; the detailed tables (shares,
# ceilings, targets, timelines) are the last round's.
#
# Systems, each on a fresh store (tfs_store in lib.sh):
#   fast-only         reference: tier 0 holds everything; every figure is normalized to it
#   slow-only, fast-first, lru, cde, hintstor, mutant, rocksdb-levels, harmonia, ...
#                     TierFS's policies (with hot-page copies, on by default), k-svm and
#                     rnn-hss (the field's supervised migration baselines) among them
#   POLICY+nocopies   the policy with copies:off (default: lru+nocopies)
#   POLICY+KEY=VALUE  the policy with URI keys of its own (+KEY=VALUE repeats), e.g.
#                     fast-first+migration_queue=16
#   db_paths          RocksDB's db_paths <tier0>/db:FAST,<tier1>/db:BIG, TierFS following
#                     it (placement:rocksdb). tierfs-ycsb only: db_bench has no flag for
#                     db_paths and its OPTIONS files cannot hold them
#   last_level_temp   RocksDB's last_level_temperature=kWarm, TierFS following it
#   read_cache        RocksDB's persistent read cache (BlockCacheTier) in a directory of
#                     tier 0, over a database on tier 1 (placement:rocksdb) whose WAL
#                     is on tier 0 (wal_dir), where a user would put it; the cache
#                     gets tier 0 less the WAL's room (tfs_store in lib.sh);
#                     tierfs-ycsb's rocksdb.persistent_cache_*, db_bench's
#                     --read_cache_*. It needs at least 120 MiB (its cache files are
#                     100 MiB, and it must evict one while it fills the next): when
#                     FAST_PCT gives less, tier 0 is raised to TFS_READ_CACHE_TIER0
#                     (129 MiB) for every system of the run, and the report says so
#
# Workloads (WORKLOADS), two families, each on its own database:
#   tierfs-ycsb: load RECORDS records (workloada's layout, 10 x 100 bytes), wait for
#                compactions, then each of, in this order:
#     b-zipf c-zipf        YCSB B, C (zipfian, keys hashed as YCSB hashes them)
#     b-hot c-hot          B, C with hotspot: 5% of the keys take 95% of the operations
#     a f                  YCSB A, F (write-heavy)
#   db_bench:    fillrandom of NUM keys (16 + 1000 bytes) + waitforcompaction, measured
#     readrandom           skewed (--read_random_exp_range=10)
#     mixgraph             the FAST '20 parameters (TFS_MIXGRAPH_FLAGS in lib.sh)
# Every workload but the fill is one process: a warm-up, then the measured run
# (tierfs-ycsb: warmuptime=WARMUP, read_cache's until its cache stops growing,
# then MEASURE seconds; db_bench: the
# benchmark twice, MEASURE seconds each: its --duration is per benchmark, and
# each run draws other keys). Each process writes the store's statistics log
# (stats_log, every STATS_MS ms: tier 0's share of user reads and its use over
# time) and, with TRACE=on, a trace: fast_tier_report.py cuts it to the
# measured window (tierfs-trace cut), takes its WAL bytes (tierfs-trace info)
# and its ceilings (tierfs-sim ceiling: the page-granular best static share,
# 16 KiB pages, and others), then deletes it.
#
# The LSM: TFS_LSM_FLAGS (lib.sh), NUM_LEVELS levels, L1 of LEVEL_BASE; an
# OPTIONS file for tierfs-ycsb and for db_bench (with TierFS's listener, and
# for last_level_temp the temperature), except read_cache under db_bench,
# whose cache db_bench makes only when options come from flags: the same
# settings as flags there.
#
# Usage: benchmarks/fast_tier.sh [--quick]; knobs in the environment (--help).
# Writes benchmarks/results/fast_tier.md, .csv, -throughput.png, -hit.png,
# -use.png (fast_tier-quick.* with --quick).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"

usage() {
  cat <<EOF
usage: $0 [--quick]
  --quick   smoke run, about 16 minutes on a loaded 2-core machine: ROUNDS=2 CONFIGS=perf
            RECORDS=30000 NUM=30000 WARMUP=3 MEASURE=5 WORKLOADS=c-zipf,b-hot,a,mixgraph
            SYSTEMS=fast-only,slow-only,lru,lru+nocopies,db_paths,last_level_temp,read_cache
            LEVEL_BASE=4M NUM_LEVELS=3 (every system's tier 0 then 129 MiB: read_cache's least)
            The full run: about 6 hours a round here (see benchmarks/README.md).
environment:
  ROUNDS       rounds of every system, each in its own rotation (default 5)
  BASELINES    comma-separated systems each ratio is reported against (default
               fast-only,slow-only; those that ran)
  CONFIGS      comma-separated: perf (tier 1 sata-ssd), cost (tier 1 hdd), or a device
               (default perf,cost)
  SYSTEMS      comma-separated, fast-only first or added (default fast-only,slow-only,
               fast-first,lru,cde,hintstor,mutant,rocksdb-levels,lru+nocopies,db_paths,
               last_level_temp,read_cache; learning policies need libtierfs_learner)
  WORKLOADS    comma-separated: b-zipf, c-zipf, b-hot, c-hot, a, f, readrandom, mixgraph
               (default all; the db_bench ones bring the fillrandom they run on)
  RECORDS      tierfs-ycsb records (default 1000000: ~1.1 GiB of SSTs)
  NUM          db_bench keys (default 1000000: ~1 GiB)
  WARMUP       tierfs-ycsb warm-up seconds (default 30); read_cache then warms on until
               its cache grew less than 1% in 5 s, READ_CACHE_WARMUP_MAX seconds in all
               at most (default 20 x WARMUP)
  MEASURE      measured seconds, and db_bench's warm-up (default 60)
  FAST_PCT     tier 0, % of the database (default 10); CACHE_PCT block cache, % (default 1)
  FAST_DEVICE  tier 0's device model (default optane)
  SEGMENT      TierFS segment size (default 64K); STATS_MS statistics log interval (500)
  COPY_PAGE    hot-page copy unit, given to every store (copy_page; default 8K, TierFS's
               default since 2186695, said explicitly so bytes copied are known)
  TRACE        on: trace every workload run for the best static share and WAL bytes;
               off: no trace (those columns n/a) (default on)
  LEVEL_BASE   L1 (default 16M); NUM_LEVELS (default 4); THREADS client threads (1)
  NAME         results file names, benchmarks/results/NAME.md, .csv, -*.png (default fast_tier)
  BUILD_DIR    where tools/dev/build.sh builds (default build/)
  KEEP_WORK    if set, keep the work directory (logs, statistics logs; traces if KEEP_TRACES)
EOF
}

QUICK=0
tfs_args usage --quick -- "$@"
if ((QUICK)); then
  : "${ROUNDS:=2}" "${CONFIGS:=perf}" "${RECORDS:=30000}" "${NUM:=30000}" "${WARMUP:=3}" "${MEASURE:=5}"
  : "${WORKLOADS:=c-zipf,b-hot,a,mixgraph}" "${LEVEL_BASE:=4M}" "${NUM_LEVELS:=3}"
  : "${SYSTEMS:=fast-only,slow-only,lru,lru+nocopies,db_paths,last_level_temp,read_cache}"
fi
: "${ROUNDS:=5}" "${BASELINES:=fast-only,slow-only}"
: "${CONFIGS:=perf,cost}" "${RECORDS:=1000000}" "${NUM:=1000000}" "${WARMUP:=30}" "${MEASURE:=60}"
: "${WORKLOADS:=b-zipf,c-zipf,b-hot,c-hot,a,f,readrandom,mixgraph}"
: "${SYSTEMS:=fast-only,slow-only,fast-first,lru,cde,hintstor,mutant,rocksdb-levels,lru+nocopies,db_paths,last_level_temp,read_cache}"
: "${FAST_PCT:=10}" "${CACHE_PCT:=1}" "${FAST_DEVICE:=optane}" "${SEGMENT:=64K}" "${STATS_MS:=500}"
: "${READ_CACHE_WARMUP_MAX:=$((20 * WARMUP))}"
: "${TRACE:=on}" "${LEVEL_BASE:=16M}" "${NUM_LEVELS:=4}" "${THREADS:=1}" "${COPY_PAGE:=8K}"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "fast_tier.sh: ROUNDS must be a positive number, not '$ROUNDS'" >&2; exit 2; }
COMMAND="$0 $*"
ENV_USED="ROUNDS=$ROUNDS BASELINES=$BASELINES CONFIGS=$CONFIGS SYSTEMS=$SYSTEMS WORKLOADS=$WORKLOADS RECORDS=$RECORDS NUM=$NUM"
ENV_USED+=" WARMUP=$WARMUP MEASURE=$MEASURE FAST_PCT=$FAST_PCT CACHE_PCT=$CACHE_PCT"
ENV_USED+=" FAST_DEVICE=$FAST_DEVICE SEGMENT=$SEGMENT STATS_MS=$STATS_MS TRACE=$TRACE"
ENV_USED+=" READ_CACHE_WARMUP_MAX=$READ_CACHE_WARMUP_MAX LEVEL_BASE=$LEVEL_BASE NUM_LEVELS=$NUM_LEVELS THREADS=$THREADS COPY_PAGE=$COPY_PAGE"

IFS=, read -r -a CONFIG_LIST <<<"$CONFIGS"
IFS=, read -r -a ASKED <<<"$WORKLOADS"
mapfile -t SYSTEM_LIST < <(tfs_reference_first "$SYSTEMS")
for w in "${ASKED[@]}"; do
  case "$w" in
    b-zipf|c-zipf|b-hot|c-hot|a|f) ;;
    readrandom|mixgraph) ;;
    *) echo "fast_tier.sh: unknown workload '$w' in WORKLOADS (known: b-zipf, c-zipf, b-hot," \
         "c-hot, a, f, readrandom, mixgraph)" >&2; exit 2 ;;
  esac
done
mapfile -t YCSB_LIST < <(tfs_in_order "b-zipf c-zipf b-hot c-hot a f" "$WORKLOADS")
mapfile -t DBBENCH_LIST < <(tfs_in_order "readrandom mixgraph" "$WORKLOADS")
case "$TRACE" in on|off) ;; *) echo "fast_tier.sh: TRACE is on or off, not '$TRACE'" >&2; exit 2 ;; esac

tfs_setup fast_tier  # libtierfs.so and the tierfs tool, with "$ROOT/tools/dev/build.sh"
tfs_build tierfs_ycsb_tool tierfs_trace_tool tierfs_sim_tool
for s in "${SYSTEM_LIST[@]}"; do
  case "${s%+nocopies}" in harmonia|harmonia-nocoord|sibyl|sapm|cde+rl-migr|rnn-hss)
    tfs_build tierfs_learner; break ;;
  esac
done
YCSB="$BUILD/tools/ycsb/tierfs-ycsb" TRACE_TOOL="$BUILD/tools/sim/tierfs-trace"
SIM_TOOL="$BUILD/tools/sim/tierfs-sim"
for f in "$YCSB" "$TRACE_TOOL" "$SIM_TOOL"; do [ -x "$f" ] || { echo "fast_tier.sh: missing $f" >&2; exit 1; }; done
tfs_keep_work
NAME="${NAME:-fast_tier}"  # results/NAME.md, .csv, -*.png
if ((QUICK)); then NAME+="-quick"; fi
OUT_MD="$RESULTS/$NAME.md" OUT_CSV="$RESULTS/$NAME.csv" OUT_PNG="$RESULTS/$NAME"
REPORT_PY="$ROOT/benchmarks/fast_tier_report.py"

YCSB_MIB=$(((RECORDS * 1100 + (1 << 20) - 1) >> 20))
DB_MIB=$(((NUM * 1016 + (1 << 20) - 1) >> 20))
BIG_MIB="$(tfs_big_mib $((YCSB_MIB > DB_MIB ? YCSB_MIB : DB_MIB)))"
YCSB_CACHE=$((RECORDS * 1100 * CACHE_PCT / 100)) DB_CACHE=$((NUM * 1016 * CACHE_PCT / 100))
tfs_options_file "$NUM_LEVELS" "$LEVEL_BASE" "$YCSB_CACHE" >"$WORK/ycsb.ini"
tfs_options_file "$NUM_LEVELS" "$LEVEL_BASE" "$DB_CACHE" "db:listeners={TierFSListener}" \
  >"$WORK/dbbench.ini"
tfs_options_file "$NUM_LEVELS" "$LEVEL_BASE" "$DB_CACHE" "db:listeners={TierFSListener}" \
  "cf:last_level_temperature=kWarm" >"$WORK/dbbench-llt.ini"

# RocksDB's own defaults where db_bench's flags default to something else: the
# OPTIONS file leaves these as RocksDB has them, so a run configured from flags
# (read_cache) must say them to run with the same options (same_options checks).
ROCKSDB_DEFAULTS=(
  --enable_pipelined_write=false --dump_malloc_stats=false --delayed_write_rate=16777216
  --table_cache_numshardbits=6 --hard_pending_compaction_bytes_limit=274877906944
  --fifo_compaction_allow_compaction=false --fifo_compaction_max_table_files_size_mb=1024
  --index_shortening_mode=1 --pin_top_level_index_and_filter=true
)
COMMON=(--num="$NUM" --value_size=1000 --key_size=16 --threads="$THREADS" --seed=42
        --histogram=1 --cache_size="$DB_CACHE")
MEASURED=(--use_existing_db=1 --duration="$MEASURE" --ops_between_duration_checks=1)

# run_keys DIR W: the URI keys of workload W's process: its statistics log
# and trace.
run_keys() {
  echo ";stats_log:$1/$2.stats.jsonl;stats_log_ms:$STATS_MS$([ "$TRACE" = on ] &&
    echo ";trace:$1/$2.trace")"
}

# keep_start DIR W: what workload W's process will start from, written by
# the processes before it: what a learning policy learned (tier 0's
# meta/AGENTS, kept as DIR/W.agents), the hot-page copies a restart keeps
# (meta/PAGES.state, as DIR/W.copies) and the segments' statistics
# (meta/STATS, as DIR/W.segstats). The replay of W's trace starts from all
# three, as the store did.
keep_start() {
  rm -f "$1/$2.agents" "$1/$2.copies" "$1/$2.segstats"
  [ ! -f "$1/tier0/meta/AGENTS" ] || cp "$1/tier0/meta/AGENTS" "$1/$2.agents"
  [ ! -f "$1/tier0/meta/PAGES.state" ] || cp "$1/tier0/meta/PAGES.state" "$1/$2.copies"
  [ ! -f "$1/tier0/meta/STATS" ] || cp "$1/tier0/meta/STATS" "$1/$2.segstats"
}

# summarize DIR W FAST_BYTES: the trace's figures, then the trace goes. A store
# whose policy TierFS decides (STORE_URI, not placement:rocksdb: the simulator
# does not follow RocksDB's paths) also gets its window replayed by tierfs-sim
# with the same URI (and the policy's state, the copies and the segments'
# statistics at the process's start): the report's fidelity table.
summarize() {
  [ "$TRACE" = on ] || return 0
  local replay=()
  case "$STORE_URI" in *placement:rocksdb*) ;; *) replay=(--config-uri "$STORE_URI") ;; esac
  [ ! -f "$1/$2.agents" ] || replay+=(--state-in "$1/$2.agents")
  [ ! -f "$1/$2.copies" ] || replay+=(--copies-in "$1/$2.copies")
  [ ! -f "$1/$2.segstats" ] || replay+=(--stats-in "$1/$2.segstats")
  "$PY" "$REPORT_PY" summarize --run-dir "$1" --workload "$2" --capacity "$3" \
    --trace-tool "$TRACE_TOOL" --sim-tool "$SIM_TOOL" --copy-page "$(tfs_size_bytes "$COPY_PAGE")" \
    --segment "$(tfs_size_bytes "$SEGMENT")" "${replay[@]}" >"$1/$2.summary.out" 2>&1 || {
    echo "fast_tier.sh: summarizing $1/$2.trace failed:" >&2
    cat "$1/$2.summary.out" >&2
    exit 1
  }
  [ -n "${KEEP_TRACES:-}" ] || rm -f "$1/$2.trace"
}

# run_db_bench DIR W URI ARG...: one db_bench process of workload W on TierFS.
run_db_bench() {
  local dir="$1" w="$2" uri="$3"
  shift 3
  keep_start "$dir" "$w"
  tfs_db_bench "$dir/$w.log" --fs_uri="$uri$(run_keys "$dir" "$w")" "$@"
}

# size_tier0 PREFIX WHAT FAMILY: the SST bytes of the store just loaded (STORE_URI,
# STORE_DB; its listing in PREFIX.ls.json) into SST_BYTES, and FAST_PCT % of
# them, whole KiB, into TIER0_BYTES.
size_tier0() {
  tfs_tool "$STORE_URI" "$1.ls.json" --db="$STORE_DB" ls
  SST_BYTES="$(tfs_sst_bytes "$1.ls.json")"
  TIER0_BYTES=$(((SST_BYTES * FAST_PCT / 100 + 1023) / 1024 * 1024))
  tfs_progress "$2: $(tfs_bytes "$SST_BYTES") of SSTs; tier 0 gets ${FAST_PCT}%:" \
    "$(tfs_bytes "$TIER0_BYTES")"
  if ((HAS_READ_CACHE && TIER0_BYTES < TFS_READ_CACHE_TIER0)); then
    TIER0_BYTES=$TFS_READ_CACHE_TIER0
    TIER0_RAISED+=" $3 tier 0 raised to $(tfs_bytes "$TIER0_BYTES") for every system (RocksDB's"
    TIER0_RAISED+=" smallest persistent read cache, its WAL's room and 1 MiB)."
    tfs_progress "$2: tier 0 raised to $(tfs_bytes "$TIER0_BYTES") for every system:" \
      "read_cache runs at equal fast bytes"
  fi
}

STEP=0
progress() {
  STEP=$((STEP + 1))
  tfs_progress "[$STEP/$TOTAL_STEPS] round $ROUND/$ROUNDS: $*"
}

# run_ycsb CONFIG SYSTEM TIER0: the YCSB family on a fresh store.
run_ycsb() {
  local config="$1" system="$2" tier0="$3" dir w p props=()
  dir="$WORK/r$ROUND/$config/${system//=/-}/ycsb"  # a URI holds no "="
  tfs_store "$dir" "$system" "$tier0:$FAST_DEVICE" "${BIG_MIB}M:$(tfs_device "$config")" \
    "$LEVEL_BASE" ";segment_size:$SEGMENT;copy_page:$COPY_PAGE"
  for p in "${STORE_PROPS[@]}"; do props+=(-p "$p"); done
  props+=(-p "rocksdb.dir=$STORE_DB" -p "rocksdb.options_file=$WORK/ycsb.ini"
          -p "recordcount=$RECORDS")
  progress "$config: $system: YCSB load ($RECORDS records) + wait for compactions"
  # shellcheck disable=SC2046  # tfs_ycsb_workload is a word list
  tfs_ycsb "$dir" load -load $(tfs_ycsb_workload a) "${props[@]}" -p "rocksdb.fs_uri=$STORE_URI" \
    -p rocksdb.wait_for_compaction=true
  if [ -z "$FAST_YCSB" ]; then
    size_tier0 "$dir/load" "the YCSB database after the fast-only load" YCSB:
    YCSB_BYTES="$SST_BYTES" FAST_YCSB="$TIER0_BYTES"
  fi
  local warm=(-p warmuptime="$WARMUP")
  if [ "$system" = read_cache ]; then  # then on until its cache stops growing
    warm+=(-p warmupuntilstable=true -p warmupmax="$READ_CACHE_WARMUP_MAX")
  fi
  for w in "${YCSB_LIST[@]}"; do
    progress "$config: $system: $w (${WARMUP}s warm-up, ${MEASURE}s measured)"
    keep_start "$dir" "$w"
    # shellcheck disable=SC2046  # tfs_ycsb_workload is a word list
    tfs_ycsb "$dir" "$w" -run $(tfs_ycsb_workload "$w") "${props[@]}" \
      -p "rocksdb.fs_uri=$STORE_URI$(run_keys "$dir" "$w")" -p operationcount=0 \
      "${warm[@]}" -p maxexecutiontime="$MEASURE"
    summarize "$dir" "$w" "$FAST_YCSB"
  done
  echo "$config $(tfs_device "$config") $system ycsb $dir $FAST_YCSB" >>"$RUNS"
  rm -rf "${dir:?}/tier0" "$dir/tier1"
}

# same_options DIR SYSTEM: the options RocksDB wrote down in the db_bench run
# just filled (its last OPTIONS file, read with `tierfs cat`): fast-only's are
# the reference; read_cache's, which db_bench builds from flags, must be the
# same but for its WAL's directory and TierFS's listener (its placement
# follows the paths, placement:rocksdb), or the run stops here.
same_options() {
  local dir="$1" system="$2" name
  [ "$system" = fast-only ] || [ "$system" = read_cache ] || return 0
  name="$("$TIERFS_TOOL" --fs_uri="$STORE_URI" --db="$STORE_DB" ls | awk '{print $NF}' |
          grep '/OPTIONS-[0-9]*$' | sort -t- -k2 -n | tail -n 1)"
  "$TIERFS_TOOL" --fs_uri="$STORE_URI" cat "$name" >"$dir/OPTIONS.ini" ||
    { echo "fast_tier.sh: cannot read $name of $system's db_bench run" >&2; exit 1; }
  if [ "$system" = fast-only ]; then
    [ -f "$WORK/options-reference.ini" ] || cp "$dir/OPTIONS.ini" "$WORK/options-reference.ini"
    return 0
  fi
  if ! "$PY" "$ROOT/benchmarks/options_diff.py" "$WORK/options-reference.ini" "$dir/OPTIONS.ini" \
      --allow DBOptions.wal_dir --allow DBOptions.listeners >"$dir/options.diff"; then
    echo "fast_tier.sh: read_cache's db_bench run (options from flags) does not use the" \
      "options of the others (the OPTIONS file):" >&2
    cat "$dir/options.diff" >&2
    exit 1
  fi
  cp "$dir/options.diff" "$WORK/options-read_cache.diff"
}

# run_dbbench CONFIG SYSTEM TIER0: the db_bench family on a fresh store.
run_dbbench() {
  local config="$1" system="$2" tier0="$3" dir w opts=()
  dir="$WORK/r$ROUND/$config/${system//=/-}/dbbench"
  tfs_store "$dir" "$system" "$tier0:$FAST_DEVICE" "${BIG_MIB}M:$(tfs_device "$config")" \
    "$LEVEL_BASE" ";segment_size:$SEGMENT;copy_page:$COPY_PAGE"
  case "$system" in
    last_level_temp) opts=(--options_file="$WORK/dbbench-llt.ini") ;;
    read_cache)
      opts=("${TFS_LSM_FLAGS[@]}" "${ROCKSDB_DEFAULTS[@]}" --num_levels="$NUM_LEVELS"
            --max_bytes_for_level_base="$(tfs_size_bytes "$LEVEL_BASE")"
            --read_cache_path="$STORE_CACHE_DIR" --read_cache_size="$STORE_CACHE_BYTES"
            --wal_dir="$STORE_WAL_DIR") ;;
    *) opts=(--options_file="$WORK/dbbench.ini") ;;
  esac
  opts+=(--db="$STORE_DB" "${COMMON[@]}")
  progress "$config: $system: db_bench fillrandom ($NUM keys) + wait for compactions"
  run_db_bench "$dir" fillrandom "$STORE_URI" "${opts[@]}" \
    --benchmarks=fillrandom,waitforcompaction,levelstats
  if [ -z "$FAST_DB" ]; then
    size_tier0 "$dir/fill" "the db_bench database after the fast-only fill" db_bench:
    DB_BYTES="$SST_BYTES" FAST_DB="$TIER0_BYTES"
  fi
  summarize "$dir" fillrandom "$FAST_DB"
  same_options "$dir" "$system"
  for w in "${DBBENCH_LIST[@]}"; do
    progress "$config: $system: $w (${MEASURE}s warm-up, ${MEASURE}s measured)"
    if [ "$w" = readrandom ]; then
      run_db_bench "$dir" "$w" "$STORE_URI" "${opts[@]}" "${MEASURED[@]}" \
        --benchmarks=readrandom,readrandom --read_random_exp_range=10
    else
      run_db_bench "$dir" "$w" "$STORE_URI" "${opts[@]}" "${MEASURED[@]}" \
        --benchmarks=mixgraph,mixgraph "${TFS_MIXGRAPH_FLAGS[@]}"
    fi
    summarize "$dir" "$w" "$FAST_DB"
  done
  echo "$config $(tfs_device "$config") $system dbbench $dir $FAST_DB" >>"$RUNS"
  rm -rf "${dir:?}/tier0" "$dir/tier1"
}

DB_SYSTEMS=0
for s in "${SYSTEM_LIST[@]}"; do [ "$s" = db_paths ] || DB_SYSTEMS=$((DB_SYSTEMS + 1)); done
PER_CONFIG=0 RUN_SECONDS=0
if ((${#YCSB_LIST[@]})); then
  PER_CONFIG=$((${#SYSTEM_LIST[@]} * (1 + ${#YCSB_LIST[@]})))
  RUN_SECONDS=$((${#SYSTEM_LIST[@]} * ${#YCSB_LIST[@]} * (WARMUP + MEASURE + 4)))
fi
if ((${#DBBENCH_LIST[@]})); then
  PER_CONFIG=$((PER_CONFIG + DB_SYSTEMS * (1 + ${#DBBENCH_LIST[@]})))
  RUN_SECONDS=$((RUN_SECONDS + DB_SYSTEMS * ${#DBBENCH_LIST[@]} * (2 * MEASURE + 4)))
fi
TOTAL_STEPS=$((ROUNDS * ${#CONFIG_LIST[@]} * PER_CONFIG))
tfs_progress "fast_tier: $ROUNDS rounds x ${#CONFIG_LIST[@]} configurations x" \
  "${#SYSTEM_LIST[@]} systems, workloads ${YCSB_LIST[*]} ${DBBENCH_LIST[*]}; at least" \
  "$(((ROUNDS * ${#CONFIG_LIST[@]} * RUN_SECONDS + 59) / 60)) min of workloads, plus loads and fills"

for config in "${CONFIG_LIST[@]}"; do
  case "$(tfs_device "$config")" in none|optane|nvme|sata-ssd|hdd|custom-*) ;; *)
    echo "fast_tier.sh: unknown configuration '$config' in CONFIGS" >&2; exit 2 ;;
  esac
done
SYSTEMS_ORDER="$(IFS=,; echo "${SYSTEM_LIST[*]}")"
HAS_READ_CACHE=0 TIER0_RAISED=""
case ",$SYSTEMS_ORDER," in *,read_cache,*) HAS_READ_CACHE=1 ;; esac
FAST_YCSB="" FAST_DB="" YCSB_BYTES="" DB_BYTES=""  # set by fast-only's first load and fill
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  RUNS="$WORK/runs-$ROUND.txt"
  : >"$RUNS"
  for config in "${CONFIG_LIST[@]}"; do
    mapfile -t ORDER < <(tfs_round_order "$ROUND" "$SYSTEMS_ORDER")
    for system in "${ORDER[@]}"; do
      if ((${#YCSB_LIST[@]})); then
        sync  # write back the previous run's dirty pages before timing this one
        if [ "$system" = fast-only ]; then
          run_ycsb "$config" "$system" "${BIG_MIB}M"
        else
          run_ycsb "$config" "$system" "${FAST_YCSB}"
        fi
      fi
      if ((${#DBBENCH_LIST[@]})) && [ "$system" != db_paths ]; then
        sync
        if [ "$system" = fast-only ]; then
          run_dbbench "$config" "$system" "${BIG_MIB}M"
        else
          run_dbbench "$config" "$system" "${FAST_DB}"
        fi
      fi
    done
  done
done

tfs_progress "report: ${OUT_MD#"$ROOT"/}, ${OUT_CSV#"$ROOT"/}, ${OUT_PNG#"$ROOT"/}-*.png"
REPORT="$WORK/report.md"
YCSB_SIZES="" DB_SIZES=""
if [ -n "$YCSB_BYTES" ]; then
  YCSB_SIZES="after the fast-only load $(tfs_bytes "$YCSB_BYTES") of SSTs,"
  YCSB_SIZES+=" tier 0 $(tfs_bytes "$FAST_YCSB") (${FAST_PCT}%),"
fi
if [ -n "$DB_BYTES" ]; then
  DB_SIZES="after the fast-only fill $(tfs_bytes "$DB_BYTES") of SSTs,"
  DB_SIZES+=" tier 0 $(tfs_bytes "$FAST_DB") (${FAST_PCT}%),"
fi
{
  echo "## The fast tier: TierFS's policies against RocksDB's own tiering and caching (issue 13)"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), $(nproc) cores," \
       "wall time $(((SECONDS - TFS_START) / 60)) min $(((SECONDS - TFS_START) % 60)) s;" \
       "$("$DB_BENCH" --version 2>/dev/null | head -n 1)." \
       "Command: \`$ENV_USED $COMMAND\`."
  echo
  echo "Sizes. tierfs-ycsb: $RECORDS records (10 fields of 100 bytes);" \
       "$YCSB_SIZES" \
       "block cache $(tfs_bytes "$YCSB_CACHE") (${CACHE_PCT}% of $((YCSB_MIB)) MiB written)." \
       "db_bench: $NUM keys of 16 + 1000 bytes;" \
       "$DB_SIZES" \
       "block cache $(tfs_bytes "$DB_CACHE") (${CACHE_PCT}% of $DB_MIB MiB written)." \
       "Tier 0 $FAST_DEVICE, tier 1 ${BIG_MIB} MiB; fast-only's tier 0 ${BIG_MIB} MiB." \
       "Segments $SEGMENT; hot-page copies on (${COPY_PAGE} pages, TierFS's default share of" \
       "tier 0) except +nocopies. LSM: ${NUM_LEVELS} levels, L1 $LEVEL_BASE, 4 MiB memtables" \
       "and files, bloom filters, no compression."
  echo
  echo "Runs. YCSB: ${WARMUP} s of warm-up (\`warmuptime\`, same process; read_cache then on" \
       "until its cache grew less than 1% in 5 s, \`warmupuntilstable\`, at most" \
       "${READ_CACHE_WARMUP_MAX} s in all), then ${MEASURE} s" \
       "measured, one client thread per process, workloads in the order ${YCSB_LIST[*]:-(none)};" \
       "hotspot = 5% of the keys take 95% of the operations (hotspotdatafraction=0.05," \
       "hotspotopnfraction=0.95), key names FNV-hashed as YCSB does. db_bench: fillrandom" \
       "(measured, with waitforcompaction), then ${DBBENCH_LIST[*]:-(none)}, each the" \
       "benchmark twice in one process, ${MEASURE} s each, the second measured: readrandom" \
       "with \`--read_random_exp_range=10\`, mixgraph with \`${TFS_MIXGRAPH_FLAGS[*]}\`." \
       "Statistics log every ${STATS_MS} ms; traces: $TRACE."
  echo
  echo "RocksDB baselines (TierFS in emulation-only mode, \`placement:rocksdb\`): db_paths" \
       "(YCSB only: db_bench has neither a flag nor an OPTIONS entry for db_paths; for the" \
       "db_bench workloads \`rocksdb-levels\` is TierFS's own rendering of RocksDB's" \
       "\`GetPathId\`), last_level_temp, read_cache (RocksDB's persistent read cache on" \
       "tier 0 over a slow-only database, its WAL on tier 0 (\`wal_dir\`), the cache tier 0" \
       "less $(tfs_bytes $((TFS_WAL_ROOM + (1 << 20)))) for the WAL;$TIER0_RAISED" \
       "Under db_bench from flags, as db_bench builds the" \
       "cache only then: ${TFS_LSM_FLAGS[*]} --num_levels=$NUM_LEVELS" \
       "--max_bytes_for_level_base=$LEVEL_BASE --cache_size=$DB_CACHE, what the OPTIONS file" \
       "says less the listener)."
  echo
  echo "The YCSB OPTIONS file (db_bench's adds TierFS's listener and its own block cache size):"
  echo
  echo '```'
  cat "$WORK/ycsb.ini"
  echo '```'
  if [ -f "$WORK/options-read_cache.diff" ]; then
    echo
    echo "read_cache's db_bench options against fast-only's, as RocksDB wrote them down" \
         "(OPTIONS files, \`benchmarks/options_diff.py\`; only these differ):"
    echo
    echo '```'
    cat "$WORK/options-read_cache.diff"
    echo '```'
  fi
} >"$REPORT"
# Each round's figures (fast_tier_report.py, one CSV a round), then the rounds'
# statistics (rounds.py) over all of them; the detailed tables and the
# timelines are the last round's.
: >"$OUT_CSV"
for ((r = 1; r <= ROUNDS; r++)); do
  prefix="$WORK/round-$r"
  ((r < ROUNDS)) || prefix="$OUT_PNG"
  "$PY" "$REPORT_PY" report --runs "$WORK/runs-$r.txt" --csv "$WORK/round-$r.csv" \
    --png-prefix "$prefix" --copy-page "$(tfs_size_bytes "$COPY_PAGE")" \
    --title "TierFS fast tier (${FAST_PCT}% of the data), round $r of $ROUNDS" >"$WORK/round-$r.md"
  tfs_add_round "$r" "$WORK/round-$r.csv" "$OUT_CSV"
done
{
  tfs_rounds_tables "$OUT_CSV" config,workload "$SYSTEMS_ORDER" "$BASELINES" \
    ops_per_sec:higher:ops/s device_us_per_op:lower:"device us/op" cpu_us_per_op:lower:"CPU us/op" hit_ratio:higher:"tier 0 share" \
    byte_hit_ratio:higher:"tier 0 byte share" bytes_vs_belady_warm:higher:"byte share / Belady warm" \
    bytes_vs_belady_warm_copies:higher:"byte share / Belady warm on copies"
  echo "### The last round in detail (round $ROUNDS of $ROUNDS: one run a cell, no intervals)"
  echo
  cat "$WORK/round-$ROUNDS.md"
} >>"$REPORT"
"$PY" "$ROOT/benchmarks/rounds.py" plot --csv "$OUT_CSV" --cells config,workload \
  --baseline fast-only --systems "$SYSTEMS_ORDER" --metric ops_per_sec:higher:ops/s \
  --metric device_us_per_op:lower:"device us/op" --png "$OUT_PNG-rounds.png" \
  --title "TierFS fast tier (${FAST_PCT}% of the data), $ROUNDS rounds"
cp "$REPORT" "$OUT_MD"
cat "$REPORT"
tfs_progress "done; wrote ${OUT_MD#"$ROOT"/}, ${OUT_CSV#"$ROOT"/} (every run), ${OUT_PNG#"$ROOT"/}-*.png"
