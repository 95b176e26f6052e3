#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test.
#   tests/run.sh            (also what .ci/run calls)
# Stages: the fuzzers' short run (tests/fuzz/run.sh: each fuzzer for
# TIERFS_FUZZ_SECONDS, default 20, with a fixed seed, FUZZ_SEED=1, so every
# run tries the same inputs; 0 seconds skips the stage), then the build and
# ctest, whose summary closes the output.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ_SECONDS="${TIERFS_FUZZ_SECONDS:-20}"
if [ "$FUZZ_SECONDS" != 0 ]; then
  start=$(date +%s)
  FUZZ_SEED="${FUZZ_SEED:-1}" "$ROOT/tests/fuzz/run.sh" "$FUZZ_SECONDS"
  echo "fuzz stage: $(( $(date +%s) - start )) s"
fi
BUILD="$("$ROOT/tools/dev/build.sh" | tail -n 1)"
cd "$BUILD"
ctest --output-on-failure -j"$(nproc)" --timeout 900
