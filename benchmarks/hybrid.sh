#!/usr/bin/env bash
# hybrid.sh: RocksDB on an emulated hybrid storage system, every placement
# policy against an all-fast and an all-slow store, in interleaved rounds.
# Start here.
#
# The storage: tier 0 is a fast device (default optane) with room for only
# --fast-pct (default 15%) of the data written; tier 1 an emulated slow device
# (default sata-ssd; --slow hdd for a cost-optimized system). The references:
# fast-only (tier 0 holds everything: what the database does if it can afford
# fast storage only) and slow-only (the slow device alone).
#
# The harness. The systems run in --rounds rounds (default 5), each round in
# its own rotation of the systems (tfs_round_order in lib.sh: over N rounds
# each system runs once in every position), each run on a fresh store:
#   fillrandom (then wait for compactions)     --num keys, 400-byte values
#   readrandom, skewed                         --read_random_exp_range=10
#   readwhilewriting, skewed                   one reader, a 1 MB/s writer
# each a separate db_bench process on the run's store. Fresh stores, not one
# loaded store restored per run: placement happens as the fill writes, so the
# fill is part of what each system is measured on.
#
# Per run, from db_bench and `tierfs --json stats` before and after each step:
#   ops/s            db_bench's figure
#   device us/op     the device model's time for the user reads of the step
#                    (queue + service; user_read_device_ns) per operation: the
#                    cost figure a busy CPU moves least. Writes are not in it
#                    (the client waits for none with sync off but for stalls)
#   CPU us/op        user + system CPU time of the db_bench process per
#                    operation (TierFS's own overhead shows here)
#   tier 0 share     tier 0's share of the bytes of the step's user reads (the
#                    unit of tierfs-sim's belady-warm ceiling)
#   ops / model      ops/s over what device and CPU time predict for one
#                    client, 10^6 / (device us/op + CPU us/op): how far the
#                    cost figure explains the throughput (reads only: the
#                    fill's device time is not counted)
# benchmarks/rounds.py reports per step and system the median over the rounds
# with its spread, and each ratio against fast-only as the median of the
# per-round ratios with a 95% bootstrap interval ("~": no difference).
# Debian's db_bench is built with assertions: compare ratios, not ops/s.
#
# Usage: benchmarks/hybrid.sh [--quick] [--slow DEVICE] [options]; see --help.
# Writes benchmarks/results/hybrid[-DEVICE][-quick].md, .csv (one row per run)
# and .png (the suffix is the slow device when it is not sata-ssd, and -quick
# for --quick).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"

usage() {
  cat <<EOF
usage: $0 [--quick] [--rounds N] [--slow DEVICE] [--fast DEVICE] [--num N]
          [--fast-pct P] [--seconds S] [--policies LIST] [--segment-size SIZE]
  --quick            smoke run, about 2 minutes: --rounds 2 --num 40000 --seconds 3
  --rounds N         rounds of every system (default 5)
  --slow DEVICE      device model of tier 1: nvme, sata-ssd (default), hdd,
                     custom-READUS-WRITEUS-MBPS
  --fast DEVICE      device model of tier 0 (default optane; none: no model,
                     and its reads cost no modelled device time)
  --num N            keys written by fillrandom (default 200000: ~83 MB)
  --fast-pct P       tier 0 capacity as a percentage of the data written (15)
  --seconds S        duration of each read benchmark (default 15)
  --policies LIST    comma-separated TierFS policies besides the references
                     fast-only and slow-only (default fast-first,hintstor)
  --segment-size S   TierFS segment size (default 64K: db_bench scatters its hot
                     keys over the key space, so only small segments are skewed)
EOF
}

QUICK=0 ROUNDS="" SLOW=sata-ssd FAST=optane NUM="" FAST_PCT=15 SECS="" SEGMENT=64K
POLICIES="fast-first,hintstor"
tfs_args usage --quick --rounds=ROUNDS --slow=SLOW --fast=FAST --num=NUM --fast-pct=FAST_PCT \
  --seconds=SECS --policies=POLICIES --segment-size=SEGMENT -- "$@"
if ((QUICK)); then
  : "${ROUNDS:=2}" "${NUM:=40000}" "${SECS:=3}"
else
  : "${ROUNDS:=5}" "${NUM:=200000}" "${SECS:=15}"
fi
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "hybrid.sh: --rounds must be a positive number, not '$ROUNDS'" >&2; exit 2; }
SYSTEMS="fast-only,slow-only"
IFS=, read -r -a OTHERS <<<"$POLICIES"
for p in "${OTHERS[@]}"; do
  case "$p" in fast-only|slow-only) ;; *) SYSTEMS+=",$p" ;; esac
done
BENCHES=(fillrandom readrandom readwhilewriting)
COMMAND="$0 $*"

tfs_setup hybrid  # builds what is missing with "$ROOT/tools/dev/build.sh"
NAME=hybrid
if [ "$SLOW" != sata-ssd ]; then NAME+="-$SLOW"; fi
if ((QUICK)); then NAME+="-quick"; fi
OUT_MD="$RESULTS/$NAME.md" OUT_CSV="$RESULTS/$NAME.csv" OUT_PNG="$RESULTS/$NAME.png"

# Capacities in MiB. The data written is what fillrandom hands RocksDB.
DATA_MIB=$(((NUM * (16 + 400) + (1 << 20) - 1) >> 20))
FAST_MIB=$(((DATA_MIB * FAST_PCT + 99) / 100))
BIG_MIB="$(tfs_big_mib "$DATA_MIB")"

FLAGS=(
  --db=/db --num="$NUM" --value_size=400 --key_size=16 --threads=1 --seed=42
  "${TFS_LSM_FLAGS[@]}"
)
READ_FLAGS=(
  --use_existing_db=1 --duration="$SECS" --ops_between_duration_checks=1
  --read_random_exp_range=10 --benchmark_write_rate_limit=$((1 << 20))
)

# uri SYSTEM DIR: a fresh two-tier store for SYSTEM in DIR.
uri() {
  local fast_mib="$FAST_MIB" tier0
  if [ "$1" = fast-only ]; then fast_mib="$BIG_MIB"; fi
  tier0="${fast_mib}M"
  [ "$FAST" = none ] || tier0+=":$FAST"
  echo "$(tfs_two_tiers "$2" "$tier0" "${BIG_MIB}M:$SLOW");segment_size:$SEGMENT;policy:$1"
}

# operations BENCH LOG: the operations db_bench counted ("... 15.0 seconds
# 2000000 operations;").
operations() {
  awk -v b="$1" '$1 == b && $2 == ":" {
    for (i = 3; i < NF; i++) if ($(i + 1) ~ /^operations/) { print $i; exit } }' "$2"
}

# The runs, one CSV row each (rounds.py reads it).
RUNS="$WORK/runs.csv"
echo "round,position,bench,system,ops_per_sec,device_us_per_op,cpu_us_per_op,ops_vs_model,tier0_share,tier0_used_mib,tier1_used_mib,found_pct" >"$RUNS"

# run ROUND POSITION SYSTEM: one system's three steps on a fresh store.
run() {
  local round="$1" position="$2" system="$3" dir URI bench log before after ops count cpu
  dir="$WORK/r$round-${system//=/-}"  # a URI holds no "="
  URI="$(uri "$system" "$dir")"
  before=-  # a new store: every counter 0 (the tool opens only an existing store)
  for bench in "${BENCHES[@]}"; do
    log="$dir.$bench.log"
    if [ "$bench" = fillrandom ]; then
      tfs_progress "round $round/$ROUNDS: $system: fillrandom ($NUM keys) + wait for compactions"
      tfs_db_bench "$log" --fs_uri="$URI" "${FLAGS[@]}" --benchmarks=fillrandom,waitforcompaction
    else
      tfs_progress "round $round/$ROUNDS: $system: $bench (${SECS}s)"
      tfs_db_bench "$log" --fs_uri="$URI" "${FLAGS[@]}" "${READ_FLAGS[@]}" --benchmarks="$bench"
    fi
    after="$dir.stats-$bench.json"
    tfs_tool "$URI" "$after" stats
    ops="$(tfs_ops "$bench" "$log")"
    count="$(operations "$bench" "$log")"
    cpu="$(tfs_cpu_seconds "$log")"
    "$PY" - "$before" "$after" "$round,$position,$bench,$system,$ops" "$count" "$cpu" \
      "$(if [ "$bench" = readrandom ]; then tfs_found "$bench" "$log"; fi)" >>"$RUNS" <<'EOF'
import json, sys
after = json.load(open(sys.argv[2]))
before = json.load(open(sys.argv[1])) if sys.argv[1] != "-" else None
head, count, cpu, found = sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), sys.argv[6].split()
ops = float(head.split(",")[-1])
delta = lambda t, k: after[t][k] - (before[t][k] if before else 0)
reads = [delta(t, "user_reads") for t in range(len(after))]
read_bytes = [delta(t, "user_read_bytes") for t in range(len(after))]
device_ns = sum(delta(t, "user_read_device_ns") for t in range(len(after)))
device_us = device_ns / 1000 / count if count and any(reads) else None
cpu_us = cpu * 1e6 / count if count else None
cells = [head,
         "%.3f" % device_us if device_us is not None else "",
         "%.2f" % cpu_us if cpu_us is not None else "",
         "%.3f" % (ops * (device_us + cpu_us) / 1e6) if device_us is not None and cpu_us else "",
         "%.4f" % (read_bytes[0] / sum(read_bytes)) if sum(read_bytes) else "",
         "%.1f" % (after[0]["used_bytes"] / 2**20), "%.1f" % (after[1]["used_bytes"] / 2**20),
         "%.2f" % (100 * int(found[0]) / int(found[1])) if found else ""]
print(",".join(cells))
EOF
    before="$after"
  done
  if ((round == ROUNDS)); then  # the last round's store, as a user would see it
    {
      echo
      echo "### $system (round $round): tierfs stats"
      echo
      "$TIERFS_TOOL" --fs_uri="$URI" stats
    } >>"$WORK/stats.md"
  fi
  rm -rf "${dir:?}"
}

tfs_progress "hybrid: $ROUNDS rounds of $SYSTEMS; ${DATA_MIB} MiB written per run;" \
  "tier 0 ${FAST_MIB} MiB $FAST (fast-only: ${BIG_MIB} MiB), tier 1 $SLOW; reads ${SECS}s each"
: >"$WORK/stats.md"
for ((round = 1; round <= ROUNDS; round++)); do
  mapfile -t ORDER < <(tfs_round_order "$round" "$SYSTEMS")
  for ((position = 1; position <= ${#ORDER[@]}; position++)); do
    sync  # write back the previous run's dirty pages before timing this one
    run "$round" "$position" "${ORDER[position - 1]}"
  done
done
cp "$RUNS" "$OUT_CSV"

METRICS=(--metric ops_per_sec:higher:ops/s --metric device_us_per_op:lower:"device us/op"
         --metric cpu_us_per_op:lower:"CPU us/op" --metric tier0_share:higher:"tier 0 share")
ROUNDS_PY=("$PY" "$ROOT/benchmarks/rounds.py")
{
  echo
  echo "## RocksDB on hybrid storage: tier 0 $FAST (${FAST_MIB} MiB), tier 1 $SLOW"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), $(nproc) cores, load" \
       "average $(cut -d' ' -f1-3 /proc/loadavg) at the end, wall time" \
       "$(((SECONDS - TFS_START) / 60)) min. Command: \`$COMMAND\`. $ROUNDS rounds, each" \
       "in its own rotation of the systems, every run on a fresh store. db_bench" \
       "--num=$NUM --value_size=400 (${DATA_MIB} MiB written), reads ${SECS}s with" \
       "--read_random_exp_range=10; segment $SEGMENT. fast-only: a ${BIG_MIB} MiB tier 0." \
       "Per run: benchmarks/results/$NAME.csv."
  echo
  "${ROUNDS_PY[@]}" table --csv "$RUNS" --cells bench --baseline fast-only --systems "$SYSTEMS" \
    "${METRICS[@]}"
  "${ROUNDS_PY[@]}" table --csv "$RUNS" --cells bench --baseline fast-only --systems "$SYSTEMS" \
    --no-ratio --metric ops_vs_model:higher:"ops/s over 10^6 / (device + CPU us/op), 1 = explained"
  echo "Against slow-only (the slow device alone):"
  echo
  "${ROUNDS_PY[@]}" table --csv "$RUNS" --cells bench --baseline slow-only --systems "$SYSTEMS" \
    --metric ops_per_sec:higher:ops/s --metric device_us_per_op:lower:"device us/op"
  cat "$WORK/stats.md"
} | tee "$OUT_MD"

tfs_progress "rendering ${OUT_PNG#"$ROOT"/}"
"${ROUNDS_PY[@]}" plot --csv "$RUNS" --cells bench --baseline fast-only --systems "$SYSTEMS" \
  --metric ops_per_sec:higher:ops/s --metric device_us_per_op:lower:"device us/op" \
  --png "$OUT_PNG" --title "TierFS: tier 0 $FAST ${FAST_MIB} MiB, tier 1 $SLOW, $ROUNDS rounds"
tfs_progress "done; wrote ${OUT_MD#"$ROOT"/}, ${OUT_CSV#"$ROOT"/} and ${OUT_PNG#"$ROOT"/}"
