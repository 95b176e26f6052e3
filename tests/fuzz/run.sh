#!/usr/bin/env bash
# Builds the fuzzers (tests/fuzz/*_fuzzer.cc) with clang++-14, libFuzzer,
# ASan and UBSan into their own build directory, and runs each in turn.
#
#   tests/fuzz/run.sh [SECONDS] [NAME...]
#
# SECONDS per fuzzer, default 20 (the short run tests/run.sh does in CI);
# NAMEs (uri, config, journal, trace, trace_csv, ycsb, agents, admin, stats, tune)
# pick fuzzers, default all. Each run starts from the seed corpus in
# tests/fuzz/corpus/NAME/ (every seed is run first: the regression seeds of
# the bugs found are there) and the corpus earlier runs grew in
# build-fuzz/corpus/NAME/, where new inputs go; the tree's corpus is never
# written. A crash, leak, timeout (10 s for one input) or memory blow-up (2 GiB)
# fails the run; the input is kept as build-fuzz/artifacts/NAME-crash-*
# (or leak-, timeout-, oom-) and the command that replays it is printed.
# The last lines give each fuzzer's executions.
#
# Long runs: the same script with more time, e.g. five minutes each,
#   nice -n 10 tests/fuzz/run.sh 300
# and, to keep what a long run found worth keeping, minimize the grown
# corpus into the tree's and commit it (small files only):
#   build-fuzz/tests/fuzz/NAME_fuzzer -merge=1 tests/fuzz/corpus/NAME build-fuzz/corpus/NAME
#
# Environment: FUZZ_BUILD_DIR (default <repo>/build-fuzz), CXX for the fuzz
# build (default clang++-14), FUZZ_SEED (libFuzzer's -seed; default 0, random).
# Inputs found and not fixed yet are kept in tests/fuzz/open/ (not run here).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
SECONDS_EACH="${1:-20}"
# libFuzzer's seed: 0 (the default) draws one; tests/run.sh fixes it, so the
# suite tries the same inputs in the same order at every run (a short run
# that found something new by chance would fail CI at random).
SEED="${FUZZ_SEED:-0}"
shift || true
ALL=(uri config journal trace trace_csv ycsb agents admin stats tune)
NAMES=("$@")
((${#NAMES[@]})) || NAMES=("${ALL[@]}")

"$ROOT/tools/dev/install-deps.sh"
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD" -DTIERFS_FUZZ=ON -DCMAKE_BUILD_TYPE=Fuzz \
    -DCMAKE_CXX_COMPILER="${CXX:-clang++-14}" >/dev/null
fi
targets=()
for n in "${NAMES[@]}"; do targets+=("${n}_fuzzer"); done
cmake --build "$BUILD" -j"$(nproc)" --target "${targets[@]}" >&2

mkdir -p "$BUILD/artifacts"
# Leaks are findings; the sanitizers' own reports end the run.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
summary=()
failed=0
for n in "${NAMES[@]}"; do
  bin="$BUILD/tests/fuzz/${n}_fuzzer"
  seeds="$ROOT/tests/fuzz/corpus/$n"
  grown="$BUILD/corpus/$n"
  log="$BUILD/artifacts/$n.log"
  mkdir -p "$grown"
  echo "== ${n}_fuzzer: ${SECONDS_EACH} s" >&2
  status=0
  "$bin" -max_total_time="$SECONDS_EACH" -seed="$SEED" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$n-" "$grown" "$seeds" \
    >"$log" 2>&1 || status=$?
  # Scratch stores of a fuzzer that died (fuzz_util.h removes them at exit).
  rm -rf /dev/shm/tierfs-fuzz-"$n"-* 2>/dev/null || true
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  corpus="$(find "$grown" "$seeds" -type f | wc -l)"
  if ((status != 0)); then
    failed=1
    tail -n 60 "$log" >&2
    artifact="$(grep -o "$BUILD/artifacts/$n-[a-z-]*[0-9a-f]*" "$log" | tail -n 1 || true)"
    echo "FAIL ${n}_fuzzer (exit $status); replay: $bin ${artifact:-<artifact>}" >&2
    summary+=("FAIL ${n}_fuzzer: exit $status after ${execs:-?} executions, log $log")
  else
    summary+=("ok   ${n}_fuzzer: ${execs:-?} executions in ${SECONDS_EACH} s, corpus $corpus files")
  fi
done
printf '%s\n' "${summary[@]}"
nfailed="$(printf '%s\n' "${summary[@]}" | grep -c '^FAIL' || true)"
echo "fuzz: $(( ${#summary[@]} - nfailed )) passed, $nfailed failed"
exit "$failed"
