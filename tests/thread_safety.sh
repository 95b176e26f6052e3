#!/usr/bin/env bash
# Checks the lock contracts (util/thread_annotations.h): builds the library's
# targets (the plugin's objects, the policies and engine, the learner's
# LibTorch half; no tools, no tests) with clang++-14 and
# -Wthread-safety -Wthread-safety-beta -Werror=thread-safety into a build
# directory of its own, so a member read or written without the mutex that
# GUARDED_BY names, a REQUIRES not met or a lock taken out of the order
# env/store.h writes fails the build. Nothing is run. tests/run.sh's
# `threads` stage.
#
#   tests/thread_safety.sh
#
# Environment: TSA_BUILD_DIR (default <repo>/build-tsa), CXX (default
# clang++-14). Other warnings are left as they are (clang's differ from gcc's).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TSA_BUILD_DIR:-$ROOT/build-tsa}"

"$ROOT/tools/dev/install-deps.sh"
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  # -O0 without debug information: only the front end's analysis matters.
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG= \
    -DCMAKE_CXX_COMPILER="${CXX:-clang++-14}" -DTIERFS_BUILD_TESTS=OFF \
    -DCMAKE_CXX_FLAGS="-Wthread-safety -Wthread-safety-beta -Werror=thread-safety" >/dev/null
fi
cmake --build "$BUILD" -j"$(nproc)" --target tierfs_objects tierfs_agents_obj tierfs_learner >&2
echo "thread safety: the library builds clean under -Wthread-safety -Wthread-safety-beta"
