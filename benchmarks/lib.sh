# shellcheck shell=bash
# Shared helpers for the TierFS benchmark scripts. Source it; do not run it.
#
#   tfs_setup NAME          make a temp work dir $WORK (removed on exit), build
#                           libtierfs.so and the tierfs tool (installing Debian
#                           packages if missing), set ROOT, BUILD, LIB,
#                           TIERFS_TOOL, DB_BENCH, RESULTS
#   tfs_db_bench LOG ARG... run db_bench with libtierfs.so preloaded; output to
#                           LOG; on failure print the log's tail and exit
#   tfs_ops BENCH LOG       ops/sec of benchmark BENCH in a db_bench log
#   tfs_found BENCH LOG     "FOUND READS" of a read benchmark: keys found
#   tfs_median N...         median of numbers
#   tfs_ratio A B           A / B with three decimals, five below 0.01 ("n/a"
#                           if B is 0)
#   tfs_md_header COL...    markdown table header: first column left-aligned,
#                           the others right-aligned
#   tfs_md_row CELL...      one markdown table row
#   tfs_bytes N             N bytes, human-readable (KiB, MiB, ...)
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
  mkdir -p "$RESULTS"
}

tfs_progress() {
  local t=$((SECONDS - TFS_START))
  printf '[%2d:%02d] %s\n' $((t / 60)) $((t % 60)) "$*" >&2
}

tfs_db_bench() {
  local log="$1"
  shift
  if ! LD_PRELOAD="$LIB" "$DB_BENCH" "$@" >"$log" 2>&1; then
    echo "db_bench failed: $DB_BENCH $*" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
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
  git -C "$ROOT" diff --quiet HEAD 2>/dev/null || rev+="+dirty"
  echo "$rev"
}
