# shellcheck shell=bash
# Shared helpers for the TierFS benchmark scripts. Source it; do not run it.
#
#   tfs_args USAGE SPEC... -- ARG...
#                           parse a script's command line: SPEC "--name=VAR"
#                           takes a value ("--name V" or "--name=V") into VAR,
#                           SPEC "--name" is a flag that sets NAME (upper case,
#                           dashes as underscores) to 1; -h/--help runs the
#                           function USAGE and exits 0; anything else (or a
#                           value missing) runs USAGE on stderr and exits 2
#   tfs_setup NAME          make a temp work dir $WORK (removed on exit), build
#                           libtierfs.so and the tierfs tool (installing Debian
#                           packages if missing), set ROOT, BUILD, LIB,
#                           TIERFS_TOOL, DB_BENCH, RESULTS, PY (the Python with
#                           matplotlib)
#   tfs_keep_work           if KEEP_WORK is set, keep $WORK at exit (and say so)
#   tfs_build TARGET...     build more targets into $BUILD; on failure print the
#                           build log's tail and exit
#   tfs_device CONFIG       the slow tier's device model of a configuration:
#                           cost -> hdd, perf -> sata-ssd, anything else as is
#   tfs_big_mib MIB         a capacity that holds everything written (MIB): 8x
#                           it, at least 1024 (MiB)
#   tfs_one_tier DIR        make DIR/tier0 and print the URI of one 64 GiB tier
#                           there without a device model, 1 MiB segments (the
#                           overhead benchmarks' store); append ";key:value"s
#   tfs_two_tiers DIR TIER0 TIER1
#                           make DIR/tier0 and DIR/tier1 and print the URI
#                           "tierfs://DIR/tier0:TIER0,DIR/tier1:TIER1", each
#                           TIERn "CAPACITY[:DEVICE]"; append ";key:value" options
#   tfs_options_file LEVELS LEVEL_BASE CACHE_SIZE [db:NAME=VALUE|cf:NAME=VALUE]...
#                           an OPTIONS file (stdout) with TFS_LSM_FLAGS' shape,
#                           LEVELS levels, L1 of LEVEL_BASE, a CACHE_SIZE block
#                           cache, plus the given DBOptions / CFOptions
#   tfs_store DIR SYSTEM TIER0 TIER1 LEVEL_BASE [KEYS]
#                           a fresh store for SYSTEM in DIR (tfs_two_tiers, then
#                           KEYS, e.g. ";segment_size:64K"): sets STORE_URI,
#                           STORE_DB (the database directory in it), STORE_PROPS
#                           (tierfs-ycsb properties, "key=value" each) and, for
#                           read_cache, STORE_CACHE_DIR, STORE_CACHE_BYTES and
#                           STORE_WAL_DIR.
#                           SYSTEM: a TierFS policy (rocksdb-levels gets
#                           LEVEL_BASE), POLICY+nocopies (the policy, copies:off),
#                           POLICY+KEY=VALUE[+KEY=VALUE] (the policy with URI keys,
#                           e.g. fast-first+migration_queue=16),
#                           or RocksDB's own tiering, which TierFS follows
#                           (placement:rocksdb): db_paths, last_level_temp,
#                           read_cache (RocksDB's persistent read cache on tier 0
#                           over a database on tier 1, its WAL on tier 0 where a
#                           user would put it: the cache gets tier 0's size less
#                           the WAL's room, two memtables, TFS_WAL_ROOM, and
#                           1 MiB; tier 0 must be at least TFS_READ_CACHE_TIER0,
#                           or the store is refused: the cache cannot be smaller
#                           than 120 MiB, kMinPersistentCacheSize, so a script
#                           comparing it at equal fast bytes gives every system
#                           that tier 0). TIERn "CAPACITY:DEVICE"
#   tfs_ycsb_workload NAME  tierfs-ycsb's -P file and -p overrides for a workload:
#                           a..f (YCSB's core workloads, d with `latest`),
#                           hotspot (B, 10% of the keys take 90% of operations),
#                           b-zipf, c-zipf (B, C as they are: zipfian), b-hot,
#                           c-hot (B, C with 5% of the keys taking 95%)
#   tfs_ycsb DIR LOG ARG... run tierfs-ycsb ($YCSB, $THREADS client threads) with
#                           ARG..., its report as JSON in DIR/LOG.json, output in
#                           DIR/LOG.txt and DIR/LOG.err; on failure print it, exit
#   tfs_tool URI OUT ARG... the admin tool's JSON (`tierfs --fs_uri=URI --json
#                           ARG...`) into OUT; on failure print it and exit
#   tfs_sst_bytes LS_JSON   bytes of the SSTs listed by `tierfs --json ls`
#   tfs_db_bench LOG ARG... run db_bench with libtierfs.so preloaded; output to
#                           LOG; on failure print the log's tail and exit;
#                           and its CPU time (user, system) to LOG.cpu
#   tfs_cpu_seconds LOG     user + system CPU seconds of the process that wrote
#                           LOG (tfs_db_bench)
#   tfs_round_order ROUND LIST
#                           the items of comma-separated LIST, one a line,
#                           rotated by ROUND - 1 (1-based): over len(LIST)
#                           rounds each item runs once in every position, so
#                           no system always runs first or last, on the freshest
#                           or the most used machine state (the harness's
#                           interleaved rounds)
#   tfs_add_round ROUND CSV OUT
#                           append one round's report CSV to OUT with a first
#                           column "round" (the header once, from round 1): the
#                           runs file rounds.py reads
#   tfs_rounds_tables CSV CELLS SYSTEMS BASELINES METRIC...
#                           markdown: rounds.py's tables of the runs in CSV
#                           (cells: comma-separated columns; systems in the
#                           comma-separated order SYSTEMS) against each of the
#                           comma-separated BASELINES that ran, for each METRIC
#                           (NAME:higher|lower[:LABEL])
#   tfs_ops BENCH LOG       ops/sec of benchmark BENCH in a db_bench log
#   tfs_found BENCH LOG     "FOUND READS" of a read benchmark: keys found
#   tfs_reference_first LIST
#                           the systems of comma-separated LIST, one a line,
#                           fast-only first (added if missing)
#   tfs_in_order ORDER LIST the items of comma-separated LIST that ORDER (space-
#                           separated) names, one a line, in ORDER's order
#   tfs_median N...         median of numbers
#   tfs_ratio A B           A / B with three decimals, five below 0.01 ("n/a"
#                           if B is 0)
#   tfs_md_header COL...    markdown table header: first column left-aligned,
#                           the others right-aligned
#   tfs_md_row CELL...      one markdown table row
#   tfs_bytes N             N bytes, human-readable (KiB, MiB, ...)
#   tfs_size_bytes SIZE     a size as typed (20M, 64K, 1G, 4096) in bytes
#   tfs_revision            the git revision benchmarked
#   tfs_progress MSG...     a progress line on stderr, with the elapsed time

# A scaled-down LSM tree: with these, a ~100 MB database has the shape (L0 files,
# three levels, compactions) that a multi-GB one has with RocksDB's defaults.
# Compaction reads ahead 2 MiB, RocksDB's default from 8.0 on (7.8 reads block by
# block, which costs an emulated HDD one seek per 4 KiB block). Bloom filters, as
# in production: a point read costs one data block, not one per level.
# shellcheck disable=SC2034  # used by the scripts that source this file
TFS_LSM_FLAGS=(
  --write_buffer_size=$((4 << 20))
  --target_file_size_base=$((4 << 20))
  --max_bytes_for_level_base=$((16 << 20))
  --compaction_readahead_size=$((2 << 20))
  --bloom_bits=10
  --compression_type=none
)

# db_bench's mixgraph with the "Facebook" parameters of RocksDB's workload
# generation wiki (PR #5953, from the FAST '20 paper on RocksDB's workloads at
# Facebook): 85% gets, 14% puts, 1% seeks, key-range hotness over 30 ranges.
# shellcheck disable=SC2034  # used by the scripts that source this file
TFS_MIXGRAPH_FLAGS=(
  --key_dist_a=0.002312 --key_dist_b=0.3467 --keyrange_dist_a=14.18
  --keyrange_dist_b=-2.917 --keyrange_dist_c=0.0164 --keyrange_dist_d=-0.08082
  --keyrange_num=30 --value_k=0.2615 --value_sigma=25.45 --iter_k=2.517
  --iter_sigma=14.236 --mix_get_ratio=0.85 --mix_put_ratio=0.14 --mix_seek_ratio=0.01
)

tfs_args() {
  local usage="$1" spec name var found specs=()
  shift
  while (($#)) && [ "$1" != -- ]; do specs+=("$1"); shift; done
  (($#)) && shift  # the --
  while (($#)); do
    case "$1" in -h|--help) "$usage"; exit 0 ;; esac
    found=0
    for spec in "${specs[@]}"; do
      name="${spec%%=*}" var="${spec#*=}"
      if [ "$spec" = "$name" ]; then  # a flag
        [ "$1" = "$name" ] || continue
        var="${name#--}" var="${var^^}"
        printf -v "${var//-/_}" 1
      elif [ "$1" = "$name" ]; then
        (($# >= 2)) || { "$usage" >&2; exit 2; }
        printf -v "$var" '%s' "$2"
        shift
      elif [[ "$1" == "$name="* ]]; then
        printf -v "$var" '%s' "${1#"$name="}"
      else
        continue
      fi
      found=1
      break
    done
    ((found)) || { "$usage" >&2; exit 2; }
    shift
  done
}

tfs_setup() {
  local name="$1"
  ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-$name.XXXXXX")"
  # shellcheck disable=SC2064  # expand $WORK now
  trap "rm -rf '$WORK'" EXIT
  trap 'exit 130' INT TERM
  TFS_START=$SECONDS
  tfs_progress "building TierFS (tools/dev/build.sh)"
  # Only what the benchmarks run: a test that does not compile must not stop them.
  if ! "$ROOT/tools/dev/build.sh" --target tierfs tierfs_tool \
      >"$WORK/build.out" 2>"$WORK/build.log"; then
    tail -n 30 "$WORK/build.log" >&2
    echo "$name: build failed" >&2
    exit 1
  fi
  BUILD="$(tail -n 1 "$WORK/build.out")"
  LIB="$BUILD/libtierfs.so"
  TIERFS_TOOL="$BUILD/tierfs"
  DB_BENCH="${DB_BENCH:-/usr/bin/db_bench}"
  RESULTS="$ROOT/benchmarks/results"
  local f
  for f in "$LIB" "$TIERFS_TOOL" "$DB_BENCH"; do
    [ -f "$f" ] || { echo "$name: missing $f" >&2; exit 1; }
  done
  PY=/usr/bin/python3
  mkdir -p "$RESULTS"
}

tfs_keep_work() {
  if [ -n "${KEEP_WORK:-}" ]; then
    trap - EXIT
    tfs_progress "keeping the logs and snapshots in $WORK"
  fi
}

tfs_build() {
  if ! "$ROOT/tools/dev/build.sh" --target "$@" >"$WORK/build-more.out" 2>"$WORK/build-more.log"; then
    tail -n 30 "$WORK/build-more.log" >&2
    echo "${0##*/}: building $* failed" >&2
    exit 1
  fi
}

tfs_progress() {
  local t=$((SECONDS - TFS_START))
  printf '[%2d:%02d] %s\n' $((t / 60)) $((t % 60)) "$*" >&2
}

tfs_db_bench() {
  local log="$1" status=0 TIMEFORMAT='%3U %3S'
  shift
  { time LD_PRELOAD="$LIB" "$DB_BENCH" "$@" >"$log" 2>&1 || status=$?; } 2>"$log.cpu"
  if ((status)); then
    echo "db_bench failed: $DB_BENCH $*" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
}

tfs_cpu_seconds() {
  awk 'NF == 2 { printf "%.3f\n", $1 + $2; found = 1 } END { exit !found }' "$1.cpu" || {
    echo "no CPU time in $1.cpu" >&2
    exit 1
  }
}

tfs_add_round() {
  awk -v r="$1" 'NR == 1 { if (r == 1) print "round," $0; next } { print r "," $0 }' "$2" >>"$3"
}

tfs_rounds_tables() {
  local csv="$1" cells="$2" systems="$3" b list metrics=()
  IFS=, read -r -a list <<<"$4"
  shift 4
  for b in "$@"; do metrics+=(--metric "$b"); done
  echo
  echo "### Every round: medians and paired ratios with their intervals"
  echo
  for b in "${list[@]}"; do
    case ",$systems," in *",$b,"*) ;; *) continue ;; esac
    echo "#### Against $b"
    echo
    "$PY" "$ROOT/benchmarks/rounds.py" table --csv "$csv" --cells "$cells" --baseline "$b" \
      --systems "$systems" "${metrics[@]}"
  done
}

tfs_round_order() {
  local round="$1" items n i
  IFS=, read -r -a items <<<"$2"
  n=${#items[@]}
  for ((i = 0; i < n; i++)); do echo "${items[(i + round - 1) % n]}"; done
}

tfs_ops() {
  local bench="$1" log="$2" ops
  # e.g. "readrandom   :       1.837 micros/op 543900 ops/sec 1.0 seconds ..."
  ops="$(awk -v b="$bench" '$1 == b && $2 == ":" {
           for (i = 3; i < NF; i++) if ($(i + 1) == "ops/sec") { print $i; exit }
         }' "$log")"
  if [ -z "$ops" ]; then
    echo "no '$bench' result in $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  echo "$ops"
}

tfs_found() {
  # e.g. "readrandom : ... ops/sec ...; 52.6 MB/s (475954 of 827999 found)"
  awk -v b="$1" '$1 == b && $2 == ":" && / found\)$/ {
      print substr($(NF - 3), 2), $(NF - 1); exit }' "$2"
}

tfs_reference_first() {
  local s others
  IFS=, read -r -a others <<<"$1"
  echo fast-only
  for s in "${others[@]}"; do [ "$s" = fast-only ] || echo "$s"; done
}

tfs_in_order() {
  local w x asked
  IFS=, read -r -a asked <<<"$2"
  for w in $1; do
    for x in "${asked[@]}"; do if [ "$x" = "$w" ]; then echo "$w"; fi; done
  done
}

tfs_median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
    END { if (NR % 2) { print v[(NR + 1) / 2]; exit }
          m = (v[NR / 2] + v[NR / 2 + 1]) / 2
          printf (v[NR / 2] == int(v[NR / 2]) ? "%.0f\n" : "%.3f\n"), m }'
}

tfs_ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) print "n/a"
    else printf (a / b >= 0.01 ? "%.3f\n" : "%.5f\n"), a / b }'
}

tfs_md_header() {
  local rule="|:---" c
  printf '|'
  for c in "$@"; do printf ' %s |' "$c"; done
  printf '\n'
  for c in "${@:2}"; do rule+="|---:"; done
  printf '%s|\n' "$rule"
}

tfs_md_row() {
  local c
  printf '|'
  for c in "$@"; do printf ' %s |' "$c"; done
  printf '\n'
}

# Human-readable bytes, powers of 1024 (as `tierfs stats` prints them).
tfs_bytes() {
  awk -v n="$1" 'BEGIN { split("B KiB MiB GiB TiB", u, " "); i = 1
    while (n >= 1024 && i < 5) { n /= 1024; i++ }
    printf (i == 1 ? "%d %s\n" : "%.1f %s\n"), n, u[i] }'
}

# Short commit id of the working tree, "+dirty" if it has local changes.
tfs_revision() {
  local rev
  rev="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)" || { echo unknown; return; }
  # Results the scripts are writing are not the code they ran.
  git -C "$ROOT" diff --quiet HEAD -- . ':(exclude)benchmarks/results' 2>/dev/null || rev+="+dirty"
  echo "$rev"
}

tfs_size_bytes() {
  local v="$1"
  case "$v" in
    *K) echo $((${v%K} << 10)) ;;
    *M) echo $((${v%M} << 20)) ;;
    *G) echo $((${v%G} << 30)) ;;
    *) echo "$v" ;;
  esac
}

tfs_device() {
  case "$1" in
    cost) echo hdd ;;
    perf) echo sata-ssd ;;
    *) echo "$1" ;;
  esac
}

tfs_big_mib() {
  echo $(($1 * 8 > 1024 ? $1 * 8 : 1024))
}

tfs_one_tier() {
  mkdir -p "$1/tier0"
  echo "tierfs://$1/tier0:64G;segment_size:1M"
}

tfs_two_tiers() {
  mkdir -p "$1/tier0" "$1/tier1"
  echo "tierfs://$1/tier0:$2,$1/tier1:$3"
}

# The OPTIONS file is made from TFS_LSM_FLAGS, so that the shape follows them:
# db_bench given --options_file ignores its LSM flags, and tierfs-ycsb takes
# only a file.
tfs_options_file() {
  local flag name value extra db=()
  local cf=("num_levels=$1" "max_bytes_for_level_base=$(tfs_size_bytes "$2")")
  local table=("block_cache=$(tfs_size_bytes "$3")")
  shift 3
  for flag in "${TFS_LSM_FLAGS[@]}"; do
    name="${flag%%=*}" name="${name#--}" value="${flag#*=}"
    case "$name" in
      write_buffer_size|target_file_size_base) cf+=("$name=$value") ;;
      max_bytes_for_level_base) ;;  # LEVEL_BASE
      compaction_readahead_size) db+=("$name=$value") ;;
      bloom_bits) table+=("filter_policy=bloomfilter:$value:false") ;;
      compression_type)
        [ "$value" = none ] || { echo "${0##*/}: map --compression_type=$value" >&2; exit 1; }
        cf+=("compression=kNoCompression") ;;
      *) echo "${0##*/}: no OPTIONS-file name for $flag (lib.sh)" >&2; exit 1 ;;
    esac
  done
  for extra; do
    case "$extra" in
      db:*) db+=("${extra#db:}") ;;
      cf:*) cf+=("${extra#cf:}") ;;
      *) echo "tfs_options_file: '$extra' is neither db:NAME=VALUE nor cf:NAME=VALUE" >&2; exit 1 ;;
    esac
  done
  printf '[Version]\n  rocksdb_version=7.8.3\n  options_file_version=1.1\n'
  printf '[DBOptions]\n  create_if_missing=true\n'
  printf '  %s\n' "${db[@]}"
  printf '[CFOptions "default"]\n'
  printf '  %s\n' "${cf[@]}"
  printf '[TableOptions/BlockBasedTable "default"]\n'
  printf '  %s\n' "${table[@]}"
}

# The room a read_cache store keeps for its WAL on tier 0: two of
# TFS_LSM_FLAGS' 4 MiB memtables (RocksDB deletes a WAL once its memtable is
# flushed). The smallest tier 0 it runs on: RocksDB's smallest workable
# persistent cache (120 MiB), that room and 1 MiB.
TFS_WAL_ROOM=$((8 << 20))
TFS_READ_CACHE_TIER0=$(((121 << 20) + TFS_WAL_ROOM))

tfs_store() {
  local dir="$1" system="$2" tier0="$3" tier1="$4" level_base="$5" keys="${6:-}" base fast
  STORE_DB=/db STORE_PROPS=() STORE_CACHE_DIR="" STORE_CACHE_BYTES="" STORE_WAL_DIR=""
  if [ "$system" = read_cache ]; then
    fast="$(tfs_size_bytes "${tier0%%:*}")"
    if ((fast < TFS_READ_CACHE_TIER0)); then
      echo "tfs_store: read_cache needs a tier 0 of at least $(tfs_bytes "$TFS_READ_CACHE_TIER0")" \
        "(RocksDB's smallest persistent cache, its WAL's room and 1 MiB), not $(tfs_bytes "$fast")" >&2
      exit 2
    fi
    STORE_CACHE_DIR="$dir/tier0/rc" STORE_WAL_DIR="$dir/tier0/wal"
    STORE_CACHE_BYTES=$((fast - (1 << 20) - TFS_WAL_ROOM))
  fi
  base="$(tfs_two_tiers "$dir" "$tier0" "$tier1")$keys"
  case "$system" in
    db_paths)
      STORE_URI="$base;placement:rocksdb" STORE_DB="$dir/tier0/db"
      STORE_PROPS=("rocksdb.db_paths=$dir/tier0/db:${tier0%%:*},$dir/tier1/db:${tier1%%:*}") ;;
    last_level_temp)
      STORE_URI="$base;placement:rocksdb"
      STORE_PROPS=(rocksdb.last_level_temperature=kWarm) ;;
    read_cache)
      STORE_URI="$base;placement:rocksdb" STORE_DB="$dir/tier1/db"
      STORE_PROPS=("rocksdb.persistent_cache_path=$STORE_CACHE_DIR"
                   "rocksdb.persistent_cache_size=$STORE_CACHE_BYTES"
                   "rocksdb.wal_dir=$STORE_WAL_DIR") ;;
    rocksdb-levels) STORE_URI="$base;policy:$system;rocksdb-levels.level_base:$level_base" ;;
    *+nocopies) STORE_URI="$base;policy:${system%+nocopies};copies:off" ;;
    *+*=*)  # POLICY+KEY=VALUE[+KEY=VALUE...]: the policy with URI keys of its own
      local extra="${system#*+}"
      extra="${extra//+/;}"
      STORE_URI="$base;policy:${system%%+*};${extra//=/:}" ;;
    *) STORE_URI="$base;policy:$system" ;;
  esac
}

tfs_ycsb_workload() {
  local wl="$ROOT/benchmarks/ycsb/workloads"
  case "$1" in
    a|b|c|e|f) echo -P "$wl/workload$1" ;;
    d) echo -P "$wl/workloadd" -p requestdistribution=latest ;;
    hotspot) echo -P "$wl/workloadb" -p requestdistribution=hotspot \
               -p hotspotdatafraction=0.1 -p hotspotopnfraction=0.9 ;;
    b-zipf|c-zipf) echo -P "$wl/workload${1%-zipf}" ;;
    b-hot|c-hot) echo -P "$wl/workload${1%-hot}" -p requestdistribution=hotspot \
                   -p hotspotdatafraction=0.05 -p hotspotopnfraction=0.95 ;;
    *) echo "tfs_ycsb_workload: unknown workload '$1'" >&2; exit 2 ;;
  esac
}

tfs_ycsb() {
  local dir="$1" log="$2"
  shift 2
  if ! "$YCSB" "$@" -threads "$THREADS" -json "$dir/$log.json" >"$dir/$log.txt" 2>"$dir/$log.err"; then
    echo "tierfs-ycsb failed: $YCSB $* -threads $THREADS" >&2
    tail -n 20 "$dir/$log.err" >&2
    exit 1
  fi
}

tfs_tool() {
  local uri="$1" out="$2"
  shift 2
  if ! "$TIERFS_TOOL" --fs_uri="$uri" --json "$@" >"$out" 2>"$out.err"; then
    echo "tierfs --fs_uri='$uri' --json $* failed:" >&2
    cat "$out.err" >&2
    exit 1
  fi
}

tfs_sst_bytes() {
  "$PY" -c 'import json, sys
print(sum(f["size"] for f in json.load(open(sys.argv[1])) if f["kind"] == "sst"))' "$1"
}
