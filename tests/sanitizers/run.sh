#!/usr/bin/env bash
# The suite under sanitizers, each in a build directory of its own (gcc,
# ccache, -DTIERFS_SANITIZE=...), as tests/run.sh's stages:
#
#   tests/sanitizers/run.sh asan   # ASan + UBSan: build-asan/, the suite (below)
#   tests/sanitizers/run.sh tsan   # TSan: build-tsan/, the concurrency tests
#
# ASan + UBSan run every ctest test but these:
#   install_test      installs the library and builds a consumer against the
#                     installed tree: packaging, which a sanitizer adds nothing
#                     to (and the consumer would need the sanitizers' flags);
#   ycsb_report_test, fast_tier_report_test, rounds_test, options_diff_test
#                     Python over canned runs: nothing instrumented;
#   sim_suite_test    the simulator's reference points over the whole workload
#                     suite: 40 s in the plain build, not done after 10 minutes
#                     under ASan + UBSan on CI's 2 cores. The code it runs (the
#                     simulator, engine and policies) runs under ASan in
#                     sim_simulator_test, sim_workloads_test, sim_learning_test,
#                     sim_equivalence_test and the agents_* tests.
# learning_state_test and exit_order_test run apart, each with an option
# (ASAN_APART says which and why).
# stock_tools_test, metrics_test and admin_tool_test preload the ASan runtime ahead of the
# plugin (tests/plugin_preload.sh: Debian's db_bench is not instrumented, and
# ASan must be the first library loaded).
#
# TSan runs the tests whose point is threads: migration_stress_test (readers
# verifying every byte while segments move; the read gate),
# relocation_read_test (readers of a file being written while the writer's
# tier-full relocation moves it), fault_injection_test's full devices (a
# relocation that moves on past a second full device, under RocksDB's
# threads), concurrent_writers_test, hot_pages_test, the learner's weight swap and
# background training (agents_learning_test), info_log_test's many writers,
# migration_test (the migration thread against writers and readers),
# rocksdb_e2e_test (RocksDB's flush and compaction threads through TierFS;
# librocksdb itself is not instrumented, so only TierFS's side is checked),
# device_model_test (callers sharing one emulated device queue).
# Not exit_order_test: reading its databases back, TSan reports races inside
# librocksdb (rocksdb::Version::Unref's delete against a Get's memcmp, the
# first lock of a static mutex), every run. librocksdb is not instrumented,
# so TSan sees none of the atomics that order those; the suppression that
# would hide them (called_from_lib) also hides RocksDB's mutexes and makes
# false races in TierFS's files used by two RocksDB threads in turn.
#
# Runtime options and suppressions are in this folder; every suppression
# gives its reason. Each stage prints its build and test times.
#
# Environment: ASAN_BUILD_DIR / TSAN_BUILD_DIR (default <repo>/build-asan,
# <repo>/build-tsan).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/sanitizers"
STAGE="${1:?usage: tests/sanitizers/run.sh asan|tsan}"

# TSan: the tests and, for a binary with several tests, the gtest filter.
TSAN_TESTS=(
  "migration_stress_test"
  "relocation_read_test"
  "fault_injection_test:FaultInjectionTest.FullDeviceOnTier0SpillsToTier1:FaultInjectionTest.EnospcOnTwoTiersOfThreeLandsOnTheThird"
  "concurrent_writers_test"
  "hot_pages_test"
  "agents_learning_test:AgentTest.InferenceNeverSeesTornWeightsWhileTheyAreSwapped:LearnerTest.BackgroundTrainingRunsOffTheCallersThread"
  "info_log_test"
  "migration_test"
  # Not SyncWalRunsBesideWriters: TSan reports Version::Unref (a compaction thread) against
  # a memcmp of the thread calling SyncWAL, every frame in Debian's librocksdb, which is not
  # built with TSan: its atomics are invisible to TSan, so such a report cannot be told from
  # a false one (tests/README.md, "What the power-loss test models").
  "rocksdb_e2e_test:-*SyncWalRunsBesideWriters*"
  "device_model_test"
)
ASAN_EXCLUDED='^(install_test|ycsb_report_test|fast_tier_report_test|rounds_test|options_diff_test|sim_suite_test|learning_state_test|exit_order_test)$'
# Run apart, each with one runtime option added ("TEST VARIABLE OPTION"):
#   learning_state_test without LSan's thread-local storage scan, which
#     crashes on the LibTorch the test loads with dlopen (lsan.supp says more);
#   exit_order_test without the leak check: its children are hosts built to
#     end without freeing (a database never deleted, exit() from a second
#     thread while the first writes, a store ending in static destruction that
#     lets go of RocksDB's objects rather than call into RocksDB): a leak check
#     at their exit reports what they are made to leave.
ASAN_APART=(
  "learning_state_test LSAN_OPTIONS use_tls=0"
  "exit_order_test ASAN_OPTIONS detect_leaks=0"
)

case "$STAGE" in
  # float-cast-overflow is not part of gcc's "undefined": the fuzzers found
  # float-to-integer conversions out of range twice (tests/fuzz/README.md).
  asan) BUILD="${ASAN_BUILD_DIR:-$ROOT/build-asan}"; SANITIZE=address,undefined,float-cast-overflow ;;
  tsan) BUILD="${TSAN_BUILD_DIR:-$ROOT/build-tsan}"; SANITIZE=thread ;;
  *) echo "usage: tests/sanitizers/run.sh asan|tsan" >&2; exit 2 ;;
esac

"$ROOT/tools/dev/install-deps.sh"
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
start=$(date +%s)
# Configured every time (a few seconds), so a changed list reaches an old
# build directory.
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTIERFS_SANITIZE="$SANITIZE" \
  >/dev/null
targets=()
if [ "$STAGE" = tsan ]; then
  for t in "${TSAN_TESTS[@]}"; do targets+=(--target "${t%%:*}"); done
fi
cmake --build "$BUILD" -j"$(nproc)" "${targets[@]}" >&2
built=$(date +%s)
echo "$STAGE stage: build $((built - start)) s" >&2

# Reports go to stderr, which ctest shows for a failed test; a report fails
# the test (halt_on_error, and ASan's exit code).
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$HERE/ubsan.supp"
export ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:strict_init_order=1"
export LSAN_OPTIONS="suppressions=$HERE/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$HERE/tsan.supp"
status=0
if [ "$STAGE" = asan ]; then
  (cd "$BUILD" && ctest --output-on-failure -j"$(nproc)" --timeout 1800 -E "$ASAN_EXCLUDED") ||
    status=$?
  for apart in "${ASAN_APART[@]}"; do
    read -r t var option <<<"$apart"
    if env "$var=${!var}:$option" "$BUILD/tests/$t" >"$BUILD/tests/$t.asan.log" 2>&1; then
      echo "ok   $t ($var +$option)" >&2
    else
      status=1
      tail -n 80 "$BUILD/tests/$t.asan.log" >&2
      echo "FAIL $t, log $BUILD/tests/$t.asan.log" >&2
    fi
  done
else
  failed=()
  for t in "${TSAN_TESTS[@]}"; do
    bin="${t%%:*}"
    filter="*"
    [ "$bin" != "$t" ] && filter="${t#*:}"
    echo "== $bin --gtest_filter=$filter" >&2
    log="$BUILD/tests/$bin.tsan.log"
    t0=$(date +%s)
    if "$BUILD/tests/$bin" --gtest_filter="$filter" >"$log" 2>&1; then
      echo "ok   $bin ($(( $(date +%s) - t0 )) s)" >&2
    else
      status=1
      failed+=("$bin")
      tail -n 80 "$log" >&2
      echo "FAIL $bin ($(( $(date +%s) - t0 )) s), log $log" >&2
    fi
  done
  echo "tsan: $(( ${#TSAN_TESTS[@]} - ${#failed[@]} )) passed, ${#failed[@]} failed ${failed[*]:-}" >&2
fi
echo "$STAGE stage: build $((built - start)) s, tests $(( $(date +%s) - built )) s" >&2
exit "$status"
