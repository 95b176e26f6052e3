#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test.
#   tests/run.sh            (also what .ci/run calls)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$("$ROOT/tools/dev/build.sh" | tail -n 1)"
cd "$BUILD"
ctest --output-on-failure -j"$(nproc)" --timeout 900
