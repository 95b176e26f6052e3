#!/usr/bin/env bash
# A/B of hot-copy settings live, on one LSM shape: for each policy and each
# variant (URI keys), a fresh store is filled and compacted by db_bench, then
# a second db_bench process reads it (skewed readrandom); variants run
# interleaved, REPEATS times, so the machine's drift falls on all of them.
#
#   benchmarks/copies_ab.sh [--quick]
#
# Writes benchmarks/results/NAME.md (default copies_ab, copies_ab-quick with
# --quick: 30,000 keys, one repeat, tier 0 2 MiB): per run, readrandom
# ops/s, tier 0's share of user reads in the read phase, copy hits and copies
# made, tier 0's use while reading (and the copies' part of it), and RocksDB's
# data-block cache misses (the same for every variant if
# the LSM shape is the same); then the median per policy and variant, and its
# ratio to the first variant.
#
# Environment (defaults in parentheses):
#   VARIANTS   ';'-free URI key lists separated by spaces, keys joined by '+',
#              e.g. "copy_unit=page copy_unit=block" (that)
#   POLICIES   comma-separated (fast-first,lru)
#   REPEATS    runs of each policy x variant (2)
#   NUM READS  keys written, reads measured (200000, 300000); values of 400 bytes
#   TIER0      tier 0's capacity, device optane (10M); SLOW the slow tier's device (sata-ssd)
#   NAME       results file name (copies_ab)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}
QUICK=0
tfs_args usage --quick -- "$@"
if ((QUICK)); then
  : "${NUM:=30000}" "${READS:=30000}" "${REPEATS:=1}" "${TIER0:=2M}" "${NAME:=copies_ab-quick}"
fi
: "${VARIANTS:=copy_unit=page copy_unit=block}" "${POLICIES:=fast-first,lru}" "${REPEATS:=2}"
: "${NUM:=200000}" "${READS:=300000}" "${TIER0:=10M}" "${SLOW:=sata-ssd}"
NAME="${NAME:-copies_ab}"

tfs_setup copies_ab
read -r -a VARIANT_LIST <<<"$VARIANTS"
IFS=, read -r -a POLICY_LIST <<<"$POLICIES"
OUT_MD="$RESULTS/$NAME.md"
ROWS="$WORK/rows.tsv"
: >"$ROWS"

# stats URI: "user reads of tier 0, of tier 1, copy hits, copies made".
stats() {
  tfs_tool "$1" "$WORK/stats.json" stats
  "$PY" -c 'import json,sys
d = json.load(open(sys.argv[1]))
t = d[0]
print(t["user_reads"], sum(x["user_reads"] for x in d[1:]), t["page_hits"], t["pages_copied"])' \
    "$WORK/stats.json"
}

total=$((REPEATS * ${#POLICY_LIST[@]} * ${#VARIANT_LIST[@]})) step=0
for ((rep = 1; rep <= REPEATS; rep++)); do
  for policy in "${POLICY_LIST[@]}"; do
    for variant in "${VARIANT_LIST[@]}"; do
      step=$((step + 1))
      tfs_progress "[$step/$total] $policy $variant (run $rep)"
      dir="$WORK/run"
      rm -rf "$dir"
      keys="${variant//+/;}"
      uri="$(tfs_two_tiers "$dir" "$TIER0:optane" "1G:$SLOW");segment_size:64K;policy:$policy;${keys//=/:}"
      flags=(--db=/db --num="$NUM" --reads="$READS" --value_size=400 --key_size=16 --threads=1
             --seed=42 "${TFS_LSM_FLAGS[@]}" --cache_size=$((1 << 20))
             --read_random_exp_range=10 --fs_uri="$uri")
      tfs_db_bench "$dir/fill.log" "${flags[@]}" --benchmarks=fillrandom,compact,waitforcompaction
      read -r a0 a1 ah ac <<<"$(stats "$uri")"
      tfs_db_bench "$dir/read.log" "${flags[@]/#--fs_uri=*/--fs_uri=$uri;stats_log:$dir/read.stats.jsonl;stats_log_ms:500}" \
        --use_existing_db=1 --benchmarks=readrandom --statistics
      read -r b0 b1 bh bc <<<"$(stats "$uri")"
      # Tier 0's use while the reads ran (copies are dropped at close), mean
      # of the read process's statistics log.
      use="$("$PY" -c 'import json,sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
t = [l["tiers"][0] for l in lines]
print("%.0f%% (%.0f%%)" % (100 * sum(x["used_bytes"] for x in t) / len(t) / t[0]["capacity"],
                          100 * sum(x["page_copy_bytes"] for x in t) / len(t) / t[0]["capacity"]))' \
        "$dir/read.stats.jsonl")"
      ops="$(tfs_ops readrandom "$dir/read.log")"
      misses="$(awk '/rocksdb.block.cache.data.miss/ {print $4}' "$dir/read.log")"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$policy" "$variant" "$rep" "$ops" \
        "$((b0 - a0))" "$((b1 - a1))" "$((bh - ah)) $((bc - ac))" "$misses" "$use" \
        >>"$ROWS"
    done
  done
done

{
  echo "## Hot copies A/B, live (benchmarks/copies_ab.sh)"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), revision $(tfs_revision), $(nproc) cores. Command:" \
       "\`VARIANTS=\"$VARIANTS\" POLICIES=$POLICIES REPEATS=$REPEATS NUM=$NUM READS=$READS" \
       "TIER0=$TIER0 SLOW=$SLOW benchmarks/copies_ab.sh\`."
  echo
  echo "Tier 0 \`optane\` $TIER0, tier 1 \`$SLOW\`, 64 KiB segments. db_bench: fillrandom of $NUM" \
       "keys (16 + 400 bytes), compact, waitforcompaction; then a second process:" \
       "readrandom of $READS keys with \`--read_random_exp_range=10\`, 1 MiB block cache, bloom" \
       "filters, the LSM shape of benchmarks/lib.sh. Tier 0 share: user reads served by tier" \
       "0 (homes and copies) in the read phase; use: tier 0's used bytes over its capacity," \
       "and of it the copies', mean of the read process's statistics log (every 500 ms). No" \
       "ceiling with hindsight here (no trace is taken); fast_tier.sh reports those."
  echo
  tfs_md_header run "readrandom ops/s" "tier 0 share" "tier 0 use (copies)" "copy hits" \
    "copies made" "data block misses"
  while IFS=$'\t' read -r policy variant rep ops r0 r1 hc misses use; do
    tfs_md_row "$policy $variant #$rep" "$ops" \
      "$("$PY" -c "print('%.1f%%' % (100 * $r0 / max(1, $r0 + $r1)))")" "$use" "${hc% *}" "${hc#* }" \
      "$misses"
  done <"$ROWS"
  echo
  echo "Medians (ratio to ${VARIANT_LIST[0]}):"
  echo
  tfs_md_header policy "${VARIANT_LIST[@]}"
  for policy in "${POLICY_LIST[@]}"; do
    cells=() base=""
    for variant in "${VARIANT_LIST[@]}"; do
      mapfile -t ops < <(awk -F'\t' -v p="$policy" -v v="$variant" '$1 == p && $2 == v {print $4}' "$ROWS")
      m="$(tfs_median "${ops[@]}")"
      [ -n "$base" ] || base="$m"
      cells+=("$m ($(tfs_ratio "$m" "$base"))")
    done
    tfs_md_row "$policy" "${cells[@]}"
  done
} >"$OUT_MD"
cat "$OUT_MD"
