#!/usr/bin/env bash
# The long crash test: a thousand SIGKILLs in each SIGKILL test (synced Puts,
# the same during relocations, moves), each followed by recovery and a check
# of every acknowledged write, and after the last a leak audit; then thousands
# of simulated power cuts (tests/power_loss_test.cc), each followed by the drop
# of what was not synced, recovery, the audit and the check of every synced key.
#   tests/crash_long.sh [ITERATIONS] [POWER_CUTS]   (defaults 1000 and 2000)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$("$ROOT/tools/dev/build.sh" --target crash_test power_loss_test | tail -n 1)"
TIERFS_CRASH_ITERATIONS="${1:-1000}" "$BUILD/tests/crash_test"
TIERFS_POWER_CUTS="${2:-2000}" "$BUILD/tests/power_loss_test"
