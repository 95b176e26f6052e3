#!/usr/bin/env bash
# hybrid.sh: RocksDB on an emulated hybrid storage system, one run per placement
# policy. Start here.
#
# The policies: fast-first and slow-only place at write time only; hintstor
# also migrates (its heat map promotes the hottest segments while the reads
# run). benchmarks/policies.sh compares every policy and RocksDB's own tiering.
#
# The storage: tier 0 is the fast device (the local disk, no device model) with
# room for only --fast-pct (default 15%) of the data written; tier 1 is an
# emulated slow device (default sata-ssd; --slow=hdd for a cost-optimized
# system). For each policy, on a fresh store:
#   fillrandom (then wait for compactions)     --num keys, 400-byte values
#   readrandom, skewed                         --read_random_exp_range=10: a
#                                              small set of keys gets most reads
#   readwhilewriting, skewed                   one reader, a 1 MB/s writer
# each a separate db_bench invocation on the same database (TierFS recovers its
# state from its journal at every open), then `tierfs stats` for the store.
#
# The reference is fast-only with a tier 0 big enough for all the data: what the
# database would do if it could afford fast storage only. Every throughput is
# also given as a ratio to it (1.000 = as fast as all-fast storage; slow-only is
# the floor, the slow device alone). Bytes per tier show where the data went.
# Reads are timed (--seconds), so they take the same time on every device.
# Debian's db_bench is built with assertions: compare ratios, not absolute ops/s.
#
# Usage: benchmarks/hybrid.sh [--quick] [--slow DEVICE] [options]; see --help.
# Writes benchmarks/results/hybrid[-DEVICE][-quick].md and .png (the suffix is
# the slow device when it is not sata-ssd, and -quick for --quick).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"

usage() {
  cat <<EOF
usage: $0 [--quick] [--slow DEVICE] [--num N] [--fast-pct P] [--seconds S]
          [--policies LIST] [--segment-size SIZE]
  --quick            CI smoke test, under a minute: --num 40000 --seconds 3
  --slow DEVICE      device model of tier 1: nvme, sata-ssd (default), hdd,
                     custom-READUS-WRITEUS-MBPS
  --num N            keys written by fillrandom (default 200000: ~83 MB)
  --fast-pct P       tier 0 capacity as a percentage of the data written (15)
  --seconds S        duration of each read benchmark (default 15)
  --policies LIST    comma-separated policies after the fast-only reference
                     (default fast-first,slow-only,hintstor)
  --segment-size S   TierFS segment size (default 64K: db_bench scatters its hot
                     keys over the key space, so only small segments are skewed)
EOF
}

QUICK=0 SLOW=sata-ssd NUM="" FAST_PCT=15 SECS="" SEGMENT=64K
POLICIES="fast-first,slow-only,hintstor"
tfs_args usage --quick --slow=SLOW --num=NUM --fast-pct=FAST_PCT --seconds=SECS \
  --policies=POLICIES --segment-size=SEGMENT -- "$@"
if ((QUICK)); then
  : "${NUM:=40000}" "${SECS:=3}"
else
  : "${NUM:=200000}" "${SECS:=15}"
fi
IFS=, read -r -a OTHERS <<<"$POLICIES"
POLICY_LIST=(fast-only)
for p in "${OTHERS[@]}"; do
  [ "$p" = fast-only ] || POLICY_LIST+=("$p")
done
BENCHES=(fillrandom readrandom readwhilewriting)

tfs_setup hybrid  # builds what is missing with "$ROOT/tools/dev/build.sh"
NAME=hybrid
if [ "$SLOW" != sata-ssd ]; then NAME+="-$SLOW"; fi
if ((QUICK)); then NAME+="-quick"; fi
OUT_MD="$RESULTS/$NAME.md" OUT_PNG="$RESULTS/$NAME.png"

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

# uri POLICY: a fresh two-tier store for POLICY.
uri() {
  local policy="$1" dir="$WORK/$1" fast="$FAST_MIB"
  if [ "$policy" = fast-only ]; then fast="$BIG_MIB"; fi
  echo "$(tfs_two_tiers "$dir" "${fast}M" "${BIG_MIB}M:$SLOW");segment_size:$SEGMENT;policy:$policy"
}

# Results, one line each: "ops POLICY BENCH OPS_PER_SEC",
# "found POLICY readrandom FOUND READS" and
# "tier POLICY TIER DEVICE USED READ_BYTES WRITE_BYTES SPILLS_IN".
DATA="$WORK/results.txt"
: >"$DATA"

tfs_progress "hybrid: ${DATA_MIB} MiB written per policy; tier 0 ${FAST_MIB} MiB" \
  "(fast-only: ${BIG_MIB} MiB), tier 1 $SLOW; reads ${SECS}s each"
for policy in "${POLICY_LIST[@]}"; do
  sync  # write back the previous policy's dirty pages before timing this one
  URI="$(uri "$policy")"
  for bench in "${BENCHES[@]}"; do
    log="$WORK/$policy/$bench.log"
    if [ "$bench" = fillrandom ]; then
      tfs_progress "$policy: fillrandom ($NUM keys) + wait for compactions"
      tfs_db_bench "$log" --fs_uri="$URI" "${FLAGS[@]}" \
        --benchmarks=fillrandom,waitforcompaction
    else
      tfs_progress "$policy: $bench (${SECS}s)"
      tfs_db_bench "$log" --fs_uri="$URI" "${FLAGS[@]}" "${READ_FLAGS[@]}" \
        --benchmarks="$bench"
    fi
    echo "ops $policy $bench $(tfs_ops "$bench" "$log")" >>"$DATA"
    if [ "$bench" = readrandom ]; then
      echo "found $policy $bench $(tfs_found "$bench" "$log")" >>"$DATA"
    fi
  done
  echo
  echo "### $policy: tierfs stats"
  echo
  "$TIERFS_TOOL" --fs_uri="$URI" stats
  "$TIERFS_TOOL" --fs_uri="$URI" --json stats | "$PY" -c '
import json, sys
for t in json.load(sys.stdin):
    print("tier", sys.argv[1], t["tier"], t["device"], t["used_bytes"],
          t["read_bytes"], t["write_bytes"], t["spills_in"])' "$policy" >>"$DATA"
  rm -rf "${WORK:?}/$policy"
done

# value KIND POLICY KEY COLUMN: a field of a line of $DATA.
value() { awk -v k="$1" -v p="$2" -v x="$3" -v c="$4" '$1 == k && $2 == p && $3 == x { print $c }' "$DATA"; }

# The comparison: one column per policy, cells "ops/s (ratio to fast-only)".
{
  echo
  echo "## RocksDB on hybrid storage: tier 0 fast (no device model, ${FAST_MIB} MiB), tier 1 $SLOW"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), $(nproc) cores." \
       "db_bench --num=$NUM --value_size=400 (${DATA_MIB} MiB written), reads ${SECS}s" \
       "with --read_random_exp_range=10; segment $SEGMENT. Reference: fast-only with" \
       "a ${BIG_MIB} MiB tier 0. Cells: ops/sec (ratio to fast-only)."
  echo
  tfs_md_header "" "fast-only (reference)" "${POLICY_LIST[@]:1}"
  for bench in "${BENCHES[@]}"; do
    ref="$(value ops fast-only "$bench" 4)"
    row=("$bench ops/s" "$ref")
    for policy in "${POLICY_LIST[@]:1}"; do
      ops="$(value ops "$policy" "$bench" 4)"
      row+=("$ops ($(tfs_ratio "$ops" "$ref"))")
    done
    tfs_md_row "${row[@]}"
  done
  # Same keys written and read under every policy: the share of reads that find
  # their key must agree (up to the number of reads) or a policy lost data.
  row=("readrandom keys found")
  for policy in "${POLICY_LIST[@]}"; do
    row+=("$(awk -v p="$policy" '$1 == "found" && $2 == p {
      printf "%.1f%% of %d\n", 100 * $4 / $5, $5 }' "$DATA")")
  done
  tfs_md_row "${row[@]}"
  for t in 0 1; do
    for what in "used:5" "read:6" "written:7"; do
      row=("tier $t ($(value tier fast-only "$t" 4)) ${what%:*}")
      for policy in "${POLICY_LIST[@]}"; do
        row+=("$(tfs_bytes "$(value tier "$policy" "$t" "${what#*:}")")")
      done
      tfs_md_row "${row[@]}"
    done
  done
  echo
  echo "Bytes read and written are lifetime totals of the store over the three runs;"
  echo "used is what each tier holds at the end."
} | tee "$OUT_MD"

tfs_progress "rendering ${OUT_PNG#"$ROOT"/}"
MPLBACKEND=Agg "$PY" - "$DATA" "$OUT_PNG" "Tier 0: fast, ${FAST_MIB} MiB; tier 1: $SLOW" \
  "$FAST_MIB" "${POLICY_LIST[@]}" <<'EOF'
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

data_path, png, title, fast_mib = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
policies = sys.argv[5:]
ops, tiers = {}, {}
for line in open(data_path):
    f = line.split()
    if f[0] == "ops":
        ops[(f[1], f[2])] = float(f[3])
    elif f[0] == "tier":
        tiers[(f[1], int(f[2]))] = (f[3], int(f[4]))
benches = ["fillrandom", "readrandom", "readwhilewriting"]

fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [3, 2]})
width = 0.8 / len(policies)
for i, p in enumerate(policies):
    xs = [b + (i - (len(policies) - 1) / 2) * width for b in range(len(benches))]
    ratios = [ops[(p, b)] / ops[("fast-only", b)] for b in benches]
    bars = ax.bar(xs, ratios, width, label=p)
    for bar, b in zip(bars, benches):
        ax.annotate(f"{ops[(p, b)]:,.0f}", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center", va="bottom", fontsize=7, rotation=90, xytext=(0, 2),
                    textcoords="offset points")
ax.set_xticks(range(len(benches)))
ax.set_xticklabels(benches)
ax.set_ylabel("throughput / fast-only (labels: ops/sec)")
lowest = min(ops[(p, b)] / ops[("fast-only", b)] for p in policies for b in benches)
if lowest < 0.05:  # an HDD: a linear axis would show nothing but the reference
    ax.set_yscale("log")
    ax.set_ylim(lowest / 4, 8)
else:
    ax.set_ylim(0, max(1.2, ax.get_ylim()[1] * 1.15))
ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
ax.legend(fontsize=8, loc="upper right")
ax.set_title("Throughput relative to an all-fast tier 0")

tier_colors = ["#4c72b0", "#c44e52", "#8172b2", "#937860"]
bottom = [0.0] * len(policies)
for t in sorted({t for (_, t) in tiers}):
    mib = [tiers.get((p, t), ("", 0))[1] / 2**20 for p in policies]
    bx.bar(policies, mib, 0.6, bottom=bottom, color=tier_colors[t % len(tier_colors)],
           label=f"tier {t} ({tiers[('fast-only', t)][0]})")
    bottom = [b + m for b, m in zip(bottom, mib)]
bx.axhline(fast_mib, color="grey", linewidth=0.8, linestyle="--")
bx.annotate(f"tier 0 capacity ({fast_mib:g} MiB; fast-only: all)", ((len(policies) - 1) / 2, fast_mib),
            ha="center", va="bottom", fontsize=7, xytext=(0, 2), textcoords="offset points")
bx.set_ylim(0, max(bottom) * 1.15)
bx.set_ylabel("MiB resident at the end")
bx.set_title("Where the data is")
bx.legend(fontsize=8, loc="upper right")
fig.suptitle("TierFS hybrid benchmark. " + title)
fig.tight_layout()
fig.savefig(png, dpi=110)
EOF
tfs_progress "done; wrote ${OUT_MD#"$ROOT"/} and ${OUT_PNG#"$ROOT"/}"
