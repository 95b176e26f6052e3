#!/usr/bin/env bash
# Configures and builds TierFS into ${BUILD_DIR:-<repo>/build}; prints the build
# directory on the last line. Extra arguments go to cmake --build (e.g. --target X).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
"$ROOT/tools/dev/install-deps.sh"
# ccache keys on paths: let clean checkouts in other folders share the cache.
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$BUILD_DIR" -j"$(nproc)" "$@" >&2
echo "$BUILD_DIR"
