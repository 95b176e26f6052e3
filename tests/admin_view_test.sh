#!/usr/bin/env bash
# `tierfs heatmap` and `tierfs watch` (issue 15) on stores Debian's db_bench
# wrote and runs (plugin under LD_PRELOAD): the heat map lists every table
# file with one glyph per segment by heat, grouped by level, coloured by tier
# when asked, wrapped at the width; --png writes a valid image of the
# expected size whose cells have their tiers' colours; watch prints one block
# per sample with live rates from a running db_bench, and refuses a store no
# process has open; --json of both says what the text does. tests/admin_view_check.py reads
# the outputs.
#   tests/admin_view_test.sh BUILD_DIR   (KEEP=1 keeps its directory of outputs)
set -euo pipefail
BUILD="$1"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TOOL="$BUILD/tierfs"
PLUGIN="$BUILD/libtierfs.so"
. "$HERE/plugin_preload.sh"  # sets PRELOAD (ASan runtime first)
TMP="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-view-XXXXXX")"
bench_pid=""
cleanup() {
  if [ -n "$bench_pid" ]; then kill "$bench_pid" 2>/dev/null || true; wait "$bench_pid" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT
if [ -n "${KEEP:-}" ]; then trap - EXIT; echo "keeping $TMP"; fi  # KEEP=1: leave the outputs
passed=0
failed=0
check() {  # check NAME COMMAND...: passes if COMMAND exits 0; shows its output if not
  local name="$1" out; shift
  if out=$("$@" 2>&1); then passed=$((passed + 1)); echo "ok   $name"
  else failed=$((failed + 1)); echo "FAIL $name"; echo "$out" | head -20; fi
}
tierfs() { env -u LD_PRELOAD -u COLUMNS "$TOOL" "$@"; }
viewcheck() { /usr/bin/python3 "$HERE/admin_view_check.py" "$@"; }

# ---- a store with levels (the listener, from an OPTIONS file) on two tiers, read with skew
mkdir -p "$TMP/t0" "$TMP/t1"
URI="tierfs://$TMP/t0:4M:optane,$TMP/t1:1G:sata-ssd;segment_size:64K"
cat >"$TMP/options.ini" <<'INI'
[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
  listeners={TierFSListener}
[CFOptions "default"]
  write_buffer_size=262144
  target_file_size_base=1048576
  max_bytes_for_level_base=1048576
  compression=kNoCompression
[TableOptions/BlockBasedTable "default"]
  block_cache=65536
INI
LD_PRELOAD="$PRELOAD" db_bench --fs_uri="$URI" --db=/db --options_file="$TMP/options.ini" \
  --benchmarks=fillrandom --num=40000 --value_size=100 >"$TMP/bench.out" 2>&1 ||
  { tail -5 "$TMP/bench.out"; exit 1; }
# Reads of the first tenth of the keys only: their table files and segments get hot, the rest
# not. The store records a trace of them.
LD_PRELOAD="$PRELOAD" db_bench --fs_uri="$URI;trace:$TMP/read.trace" --db=/db \
  --options_file="$TMP/options.ini" --use_existing_db=1 --benchmarks=readrandom --num=4000 --reads=20000 --value_size=100 \
  >"$TMP/read.out" 2>&1 || { tail -5 "$TMP/read.out"; exit 1; }
# Where the policy left the table files depends on the run (demotions make room for page
# copies): the smallest moves to tier 0, and a segment of another on tier 1 gets a durable copy
# on tier 0, so that both tiers and a copy show.
read -r small sst seg < <(tierfs --fs_uri="$URI" --db=/db --json segments | /usr/bin/python3 -c '
import json, sys
segs = [r for r in json.load(sys.stdin) if r["file"].endswith(".sst")]
count = {}
for r in segs:
    count[r["file"]] = count.get(r["file"], 0) + 1
small = min(count, key=lambda f: (count[f], f))
other = next(r for r in segs if r["file"] != small and r["tier"] == 1)
print(small, other["file"], other["segment"])')
tierfs --fs_uri="$URI" move "$small" 0 >"$TMP/move.out"
tierfs --fs_uri="$URI" replicate "$sst" 0 --segments="$seg" >"$TMP/replicate.out"
tierfs --fs_uri="$URI" --db=/db --json ls >"$TMP/ls.json"
tierfs --fs_uri="$URI" --db=/db --json segments >"$TMP/segments.json"
check "the store has table files on both tiers, levels, and a copy" /usr/bin/python3 -c "
import json, sys
segs = json.load(open('$TMP/segments.json')); ls = json.load(open('$TMP/ls.json'))
assert {r['tier'] for r in segs} == {0, 1}, 'tiers %r' % {r['tier'] for r in segs}
assert any(f['level'] >= 1 for f in ls if f['kind'] == 'sst'), 'no table file with a level'
assert any(r['copy_tier'] == 0 for r in segs), 'no copy'
hot = max(r['heat'] for r in segs)
assert hot > 0, 'nothing read'
assert any(0 < r['heat'] < hot / 2 for r in segs) or any(r['heat'] == 0 for r in segs), 'heat is flat'"

# ---- heatmap as text: plain, coloured, wrapped
tierfs --fs_uri="$URI" --db=/db heatmap >"$TMP/plain.txt"
check "heatmap lists every table file by level, one glyph per segment by its heat" \
  viewcheck text "$TMP/segments.json" "$TMP/ls.json" "$TMP/plain.txt"
check "heatmap to a pipe has no colours and says where to get them" \
  grep -q "colours on a terminal or with --color=always" "$TMP/plain.txt"
check "heatmap says hot-page copies are counted per tier only" \
  grep -q "^hot-page copies: counted per tier only, not per file" "$TMP/plain.txt"
tierfs --fs_uri="$URI" --db=/db heatmap --color=always >"$TMP/colour.txt"
check "heatmap --color=always: each glyph on its home tier's colour, a copy underlined, a legend" \
  viewcheck text "$TMP/segments.json" "$TMP/ls.json" "$TMP/colour.txt" --colour
COLUMNS=44 "$TOOL" --fs_uri="$URI" --db=/db heatmap >"$TMP/wrapped.txt"
check "heatmap wraps long files at \$COLUMNS, keeping one glyph per segment" \
  viewcheck text "$TMP/segments.json" "$TMP/ls.json" "$TMP/wrapped.txt" --width=44
check "some file needed more than one line at 44 columns" grep -q "^ *|.*|$" "$TMP/wrapped.txt"
# a test of the check itself: a glyph changed must be caught
sed '0,/^  0.*\.sst .*|[^|]/s/|\(.\)/|\1\1/' "$TMP/plain.txt" >"$TMP/broken.txt"
check "the check catches a glyph too many" \
  bash -c "! /usr/bin/python3 '$HERE/admin_view_check.py' text '$TMP/segments.json' '$TMP/ls.json' '$TMP/broken.txt'"

# ---- heatmap --json: the same rows and cells, as segments --json and ls --json have them
tierfs --fs_uri="$URI" --db=/db --json heatmap >"$TMP/heatmap.json"
check "heatmap --json: every file with its level, every segment with its tier, copy and heat" \
  viewcheck heatmap-json "$TMP/segments.json" "$TMP/ls.json" "$TMP/heatmap.json"
/usr/bin/python3 -c "
import json; m = json.load(open('$TMP/heatmap.json'))
m['files'][0]['segments'][0]['tier'] ^= 1
json.dump(m, open('$TMP/heatmap-broken.json', 'w'))"
check "the check catches a segment on the wrong tier" \
  bash -c "! /usr/bin/python3 '$HERE/admin_view_check.py' heatmap-json '$TMP/segments.json' '$TMP/ls.json' '$TMP/heatmap-broken.json'"

# ---- heatmap --png
tierfs --fs_uri="$URI" --db=/db heatmap --png="$TMP/map.png" >"$TMP/png.out"
check "heatmap --png writes a PNG of a row per file, a column per segment, cells of the tiers' colours" \
  viewcheck png "$TMP/segments.json" "$TMP/ls.json" "$TMP/map.png"
check "file(1) agrees it is a PNG of the size the tool printed" bash -c "
  size=\$(sed -n 's/^wrote .*: \([0-9]*\) x \([0-9]*\) pixels.*/\1 x \2/p' '$TMP/png.out')
  [ -n \"\$size\" ] && file '$TMP/map.png' | grep -q \"PNG image data, \$size, 8-bit/color RGB\""
rc=0
tierfs --fs_uri="$URI" --db=/db heatmap --png="$TMP/no/such/dir/map.png" >/dev/null 2>"$TMP/png.err" || rc=$?
check "heatmap --png into a missing directory fails, naming the file" \
  bash -c "[ $rc = 1 ] && grep -q 'cannot write the PNG $TMP/no/such/dir/map.png' '$TMP/png.err'"
rc=0
tierfs --fs_uri="$URI" heatmap --color=sometimes >/dev/null 2>"$TMP/color.err" || rc=$?
check "heatmap --color=sometimes is refused, naming it" \
  bash -c "[ $rc = 2 ] && grep -q \"^tierfs heatmap: error: bad --color 'sometimes'\" '$TMP/color.err'"

# ---- heatmap --trace: each segment's user reads per time window, recounted from the trace
"$BUILD/tools/sim/tierfs-trace" to-csv "$TMP/read.trace" --full >"$TMP/read.csv"
tierfs heatmap --trace="$TMP/read.trace" --windows=12 --color=always --png="$TMP/trace.png" \
  >"$TMP/trace.txt"
check "heatmap --trace: a row per segment read, a glyph per window by its reads, the serving tier's colour" \
  viewcheck trace "$TMP/trace.txt" "$TMP/read.csv" 12 65536 --colour
check "heatmap --trace --png: a row per segment, a column per window" \
  viewcheck trace-png "$TMP/trace.png" "$TMP/trace.txt" 12
rc=0
tierfs heatmap --trace="$TMP/no-such.trace" >/dev/null 2>"$TMP/notrace.err" || rc=$?
check "heatmap --trace of a missing file fails, naming it" \
  bash -c "[ $rc = 1 ] && grep -q '$TMP/no-such.trace' '$TMP/notrace.err'"

# ---- watch: a store no process has open
rc=0
tierfs --fs_uri="$URI" watch --count=1 --interval_ms=100 >"$TMP/idle.out" 2>"$TMP/idle.err" || rc=$?
check "watch on a store no process has open exits 1, saying so" \
  bash -c "[ $rc = 1 ] && grep -q '^tierfs watch: error: no process has the store at $TMP/t0 open' '$TMP/idle.err' && [ ! -s '$TMP/idle.out' ]"
rc=0
tierfs --fs_uri="$URI" watch --interval_ms=0 >/dev/null 2>"$TMP/interval.err" || rc=$?
check "watch --interval_ms=0 is refused, naming it" \
  bash -c "[ $rc = 2 ] && grep -q 'bad --interval_ms=0' '$TMP/interval.err'"

# ---- watch: a running db_bench (reads and writes without pause until killed)
rm -rf "$TMP/t0/meta/admin"  # made again when the store opens: the sign db_bench has it
LD_PRELOAD="$PRELOAD" db_bench --fs_uri="$URI;trace:$TMP/read.trace" --db=/db \
  --options_file="$TMP/options.ini" --use_existing_db=1 --benchmarks=readrandomwriterandom --num=40000 --value_size=100 \
  --duration=600 >"$TMP/busy.out" 2>&1 &
bench_pid=$!
for _ in $(seq 600); do [ -d "$TMP/t0/meta/admin" ] && break; sleep 0.05; done
rc=0
tierfs --fs_uri="$URI" watch --count=3 --interval_ms=500 >"$TMP/watch.out" 2>"$TMP/watch.err" || rc=$?
check "watch --count=3 prints 3 samples of a running db_bench, each with reads or writes per second" \
  bash -c "[ $rc = 0 ] && /usr/bin/python3 '$HERE/admin_view_check.py' watch '$TMP/watch.out' 3 2 ||
           { echo status $rc; cat '$TMP/watch.err' '$TMP/watch.out'; exit 1; }"
rc=0
tierfs --fs_uri="$URI" --json watch --count=3 --interval_ms=500 >"$TMP/watch.jsonl" 2>"$TMP/watch-json.err" || rc=$?
check "watch --json --count=3: 3 lines, each a sample's object with every tier's rates" \
  bash -c "[ $rc = 0 ] && /usr/bin/python3 '$HERE/admin_view_check.py' watch-json '$TMP/watch.jsonl' 3 2 ||
           { echo status $rc; cat '$TMP/watch-json.err' '$TMP/watch.jsonl'; exit 1; }"
if [ -x /usr/bin/script ]; then
  # On a terminal: each sample redraws the screen (cursor home, clear) instead of scrolling.
  /usr/bin/script -qec "env -u LD_PRELOAD '$TOOL' --fs_uri='$URI' watch --count=2 --interval_ms=200" \
    /dev/null >"$TMP/tty.out" 2>&1 || true
  check "watch on a terminal redraws in place, once per sample" \
    bash -c "[ \"\$(grep -o \$'\\033\\[H\\033\\[J' '$TMP/tty.out' | wc -l)\" = 2 ]"
fi
kill "$bench_pid"; wait "$bench_pid" 2>/dev/null || true; bench_pid=""

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
