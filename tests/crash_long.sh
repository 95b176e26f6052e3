#!/usr/bin/env bash
# The long crash test: a thousand SIGKILLs in each SIGKILL test (synced Puts,
# the same during relocations, moves), each followed by recovery and a check
# of every acknowledged write; after the last, a leak audit.
#   tests/crash_long.sh [ITERATIONS]   (default 1000)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$("$ROOT/tools/dev/build.sh" --target crash_test | tail -n 1)"
TIERFS_CRASH_ITERATIONS="${1:-1000}" "$BUILD/tests/crash_test"
