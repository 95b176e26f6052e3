#!/usr/bin/env bash
# Installs TierFS into a scratch prefix and checks the installed tree alone:
#   1. it holds exactly the public headers of include/tierfs/, and each
#      compiles on its own;
#   2. the C++ examples of README.md ("From C++") compile and link against it;
#   3. a consumer using every public header builds with CMake's
#      find_package(TierFS) and with pkg-config, and runs.
#   tests/install_test.sh BUILD_DIR
set -euo pipefail
BUILD="$1"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="$ROOT/tests/install_consumer"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-install-XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
PREFIX="$TMP/prefix"
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
CFLAGS="$(pkg-config --cflags tierfs)"
LIBS="$(pkg-config --libs tierfs)"
passed=0

# 1. The public headers, installed as they are in the tree, each self-contained.
if ! diff <(cd "$ROOT/include/tierfs" && ls) <(cd "$PREFIX/include/tierfs" && ls); then
  echo "installed headers differ from include/tierfs/ (above)" >&2
  exit 1
fi
for h in "$PREFIX"/include/tierfs/*.h; do
  name="tierfs/$(basename "$h")"
  if ! echo "#include <$name>" | g++ -std=c++17 -fsyntax-only -x c++ $CFLAGS - ; then
    echo "$name does not compile on its own" >&2
    exit 1
  fi
done
passed=$((passed + 1))

# 2. README.md's C++ examples: each ```cpp block of the "From C++" section
#    becomes a file of its own (its #include lines, then the rest as the body
#    of a function), compiled and linked against the installed tree, not run
#    (its paths are examples).
awk -v dir="$TMP" '
  /^### From C\+\+/ { in_section = 1; next }
  in_section && /^##/ { in_section = 0 }
  in_section && /^```cpp/ { in_block = 1; n++; file = dir "/readme" n ".cc"; body = ""; next }
  in_block && /^```/ {
    in_block = 0
    printf "\nvoid ReadmeExample%d() {\n%s}\n", n, body > file
    next
  }
  in_block && /^#include/ { print > file; next }
  in_block { body = body "  " $0 "\n" }
  END { exit n == 0 }' "$ROOT/README.md" || { echo "README.md: no C++ example under 'From C++'" >&2; exit 1; }
echo "int main() { return 0; }" > "$TMP/readme-main.cc"
g++ -std=c++17 "$TMP"/readme*.cc -o "$TMP/readme" $CFLAGS $LIBS || {
  echo "README.md's C++ examples do not build against the installed tree:" >&2
  cat -n "$TMP"/readme[0-9]*.cc >&2
  exit 1
}
passed=$((passed + 1))

# 3. A consumer through find_package(TierFS), and the same through pkg-config.
cmake -S "$SRC" -B "$TMP/cmake-build" -DCMAKE_PREFIX_PATH="$PREFIX" >/dev/null
cmake --build "$TMP/cmake-build" >/dev/null
mkdir -p "$TMP/a0" "$TMP/a1" "$TMP/b0" "$TMP/b1"
LD_LIBRARY_PATH="$PREFIX/lib" "$TMP/cmake-build/consumer" "$TMP/a0" "$TMP/a1"
passed=$((passed + 1))
g++ -std=c++17 "$SRC/consumer.cc" -o "$TMP/pc-consumer" $CFLAGS $LIBS
LD_LIBRARY_PATH="$PREFIX/lib" "$TMP/pc-consumer" "$TMP/b0" "$TMP/b1"
passed=$((passed + 1))
echo "$passed passed, 0 failed"
