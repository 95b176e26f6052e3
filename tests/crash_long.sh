#!/usr/bin/env bash
# The long crash test: hundreds of SIGKILLs of a writer with synced Puts, each
# followed by recovery and a check of every acknowledged key.
#   tests/crash_long.sh [ITERATIONS]   (default 300)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$("$ROOT/tools/dev/build.sh" --target crash_test | tail -n 1)"
TIERFS_CRASH_ITERATIONS="${1:-300}" "$BUILD/tests/crash_test"
