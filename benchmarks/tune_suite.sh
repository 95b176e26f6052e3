#!/usr/bin/env bash
# tune_suite.sh: issue 16's measurement of tierfs-tune's optimizers. Eight
# synthetic workloads of the simulator's suite and three traces captured live
# through the plugin (tierfs-ycsb workload B zipfian; db_bench mixgraph with
# the FAST '20 parameters and skewed readrandom), each tuned on two device
# configurations, perf (tier 1 sata-ssd) and cost (tier 1 hdd), graded alone,
# by benchmarks/tune.sh (every optimizer, SEEDS, 50 evaluations, against a
# REFERENCE-evaluation random search). Tier 0 is optane at about a tenth of
# what each workload touches: 128 MiB for the synthetic suite at 20,000
# requests (the space's own), 12 MiB for the YCSB capture, 4 MiB for the
# db_bench ones.
#
# Usage: benchmarks/tune_suite.sh [--seeds LIST] [--reference N] [--quick]
# --quick: seeds 1, a reference of 100, two synthetic workloads, small captures.
# Writes benchmarks/results/tune-suite-{perf,cost}.md and
# tune-trace-{ycsb,dbbench}-{perf,cost}.md with their curves (tune-quick-* with --quick).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=benchmarks/lib.sh
source "$ROOT/benchmarks/lib.sh"
usage() { echo "usage: $0 [--seeds LIST] [--reference N] [--quick]"; }
SEEDS=1,2,3 REFERENCE=1000 QUICK=0
tfs_args usage --seeds=SEEDS --reference=REFERENCE --quick -- "$@"
SUITE="YCSB-B,YCSB-D,YCSB-E,ssd-00,ssd-02,LUN0,ResNet50,mix1"
RECORDS=60000 KEYS=150000 READS=60000 MIX_READS=300000 PREFIX=tune
if ((QUICK)); then
  SEEDS=1 REFERENCE=100 SUITE="YCSB-B,LUN0" RECORDS=5000 KEYS=10000 READS=5000 MIX_READS=10000
  PREFIX=tune-quick
fi
tfs_setup tune-suite
tfs_build tierfs_ycsb_tool tierfs_tune_tool
YCSB="$BUILD/tools/ycsb/tierfs-ycsb" THREADS=1  # tfs_ycsb's; tfs_setup set LIB and DB_BENCH

# The captures: each store on its own emulated optane + sata-ssd, the trace of the measured
# process only (its files already exist: the simulator takes them as they are found).
T="$WORK/traces"
mkdir -p "$T/ycsb/t0" "$T/ycsb/t1" "$T/db/t0" "$T/db/t1"
uri() { echo "tierfs://$T/$1/t0:8M:optane,$T/$1/t1:1G:sata-ssd"; }
tfs_progress "capture: tierfs-ycsb workload B, $RECORDS records"
# shellcheck disable=SC2046  # tfs_ycsb_workload is a word list
tfs_ycsb "$T" ycsb-load -load $(tfs_ycsb_workload b) -p recordcount="$RECORDS" \
  -p rocksdb.dir=/db -p "rocksdb.fs_uri=$(uri ycsb)"
# shellcheck disable=SC2046
tfs_ycsb "$T" ycsb-run -run $(tfs_ycsb_workload b) -p recordcount="$RECORDS" \
  -p operationcount="$RECORDS" -p rocksdb.dir=/db \
  -p "rocksdb.fs_uri=$(uri ycsb);trace:$T/ycsb-b.trace"
tfs_progress "capture: db_bench fillrandom ($KEYS keys), mixgraph, skewed readrandom"
DB=(--db=/db --num="$KEYS" --key_size=16 --value_size=400 --cache_size=4194304)
tfs_db_bench "$T/fill.log" --fs_uri="$(uri db)" "${DB[@]}" --seed=42 \
  --benchmarks=fillrandom,waitforcompaction
tfs_db_bench "$T/mixgraph.log" --fs_uri="$(uri db);trace:$T/mixgraph.trace" "${DB[@]}" \
  --use_existing_db=1 --benchmarks=mixgraph --reads="$MIX_READS" --seed=44 \
  "${TFS_MIXGRAPH_FLAGS[@]}"
tfs_db_bench "$T/readrandom.log" --fs_uri="$(uri db);trace:$T/readrandom.trace" "${DB[@]}" \
  --use_existing_db=1 --benchmarks=readrandom --reads="$READS" --read_random_exp_range=8 \
  --seed=45

tune() {  # tune NAME TIERS WORKLOADS
  tfs_progress "tune.sh: $1"
  "$ROOT/benchmarks/tune.sh" --alone --seeds "$SEEDS" \
    --reference "$REFERENCE" --workloads "$3" ${2:+--tiers "$2"} --name "$PREFIX-$1"
}
for config in perf cost; do
  slow=sata-ssd suite_tiers=""  # perf: the space's own tiers
  if [ "$config" = cost ]; then slow=hdd suite_tiers=/fast:128M:optane,/slow:8G:hdd; fi
  tune "suite-$config" "$suite_tiers" "$SUITE"
  tune "trace-ycsb-$config" "/fast:12M:optane,/slow:1G:$slow" "$T/ycsb-b.trace"
  tune "trace-dbbench-$config" "/fast:4M:optane,/slow:1G:$slow" \
    "$T/mixgraph.trace,$T/readrandom.trace"
done
tfs_progress "done: benchmarks/results/$PREFIX-{suite,trace-ycsb,trace-dbbench}-{perf,cost}.md"
