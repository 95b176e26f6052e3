#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test.
#   tests/run.sh            (also what .ci/run calls)
# Stages, each timed, each in a build directory of its own:
#   fuzz  the fuzzers' short run (tests/fuzz/run.sh: each fuzzer for
#         TIERFS_FUZZ_SECONDS, default 20, with a fixed seed, FUZZ_SEED=1, so
#         every run tries the same inputs; 0 seconds skips the stage);
#   threads the lock contracts: the library built with clang++-14 and
#         -Werror=thread-safety (tests/thread_safety.sh; build-tsa/), nothing
#         run; TIERFS_THREADS=0 skips it;
#   suite the build and ctest (build/);
#   asan  the suite under ASan + UBSan (build-asan/), tsan the concurrency
#         tests under TSan (build-tsan/): tests/sanitizers/run.sh says what
#         each runs. TIERFS_SANITIZERS picks them (default "asan tsan"; ""
#         skips both).
# Every stage runs even if one before failed; the summary closes the output
# and the exit status is 1 if any stage failed. CI's budget is 60 minutes on
# 2 cores: DEVELOPERS.md gives each stage's time.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ_SECONDS="${TIERFS_FUZZ_SECONDS:-20}"
SANITIZERS="${TIERFS_SANITIZERS-asan tsan}"
THREADS="${TIERFS_THREADS:-1}"
summary=()
failed=0
stage() {  # stage NAME COMMAND...
  local name="$1" start status=0
  shift
  start=$(date +%s)
  "$@" || status=$?
  local took=$(( $(date +%s) - start ))
  if ((status == 0)); then
    summary+=("ok   $name stage: $took s")
  else
    failed=1
    summary+=("FAIL $name stage (exit $status): $took s")
  fi
}
suite() {
  local build
  build="$("$ROOT/tools/dev/build.sh" | tail -n 1)" || return 1
  (cd "$build" && ctest --output-on-failure -j"$(nproc)" --timeout 900)
}

if [ "$FUZZ_SECONDS" != 0 ]; then
  stage fuzz env FUZZ_SEED="${FUZZ_SEED:-1}" "$ROOT/tests/fuzz/run.sh" "$FUZZ_SECONDS"
fi
if [ "$THREADS" != 0 ]; then
  stage threads "$ROOT/tests/thread_safety.sh"
fi
stage suite suite
for s in $SANITIZERS; do
  stage "$s" "$ROOT/tests/sanitizers/run.sh" "$s"
done
printf '%s\n' "${summary[@]}"
exit "$failed"
