#!/usr/bin/env bash
# Installs TierFS into a scratch prefix and builds two consumers against it:
# one with CMake's find_package(TierFS), one with pkg-config; runs both.
#   tests/install_test.sh BUILD_DIR
set -euo pipefail
BUILD="$1"
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/install_consumer"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-install-XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
cmake --install "$BUILD" --prefix "$TMP/prefix" >/dev/null
cmake -S "$SRC" -B "$TMP/cmake-build" -DCMAKE_PREFIX_PATH="$TMP/prefix" >/dev/null
cmake --build "$TMP/cmake-build" >/dev/null
mkdir -p "$TMP/a0" "$TMP/a1" "$TMP/b0" "$TMP/b1"
LD_LIBRARY_PATH="$TMP/prefix/lib" "$TMP/cmake-build/consumer" "$TMP/a0" "$TMP/a1"
PKG_CONFIG_PATH="$TMP/prefix/lib/pkgconfig" \
  g++ -std=c++17 "$SRC/consumer.cc" -o "$TMP/pc-consumer" \
  $(PKG_CONFIG_PATH="$TMP/prefix/lib/pkgconfig" pkg-config --cflags --libs tierfs)
LD_LIBRARY_PATH="$TMP/prefix/lib" "$TMP/pc-consumer" "$TMP/b0" "$TMP/b1"
echo "2 passed, 0 failed"
