#!/usr/bin/env bash
# Without libtierfs_tune_qnet.so (the dqn optimizer's LibTorch half),
# tierfs-tune still runs its other optimizers, `--optimizer=all` runs them
# without dqn, and `--optimizer=dqn` is refused with a message naming the
# missing library. tierfs-tune is copied alone into a directory of its own:
# its loader looks beside the program and on the loader's path, and finds it
# in neither.
#   tune_qnet_missing_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD="$1" SRC="$2"
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
cp "$BUILD/tools/tune/tierfs-tune" "$DIR/"
TUNE="$DIR/tierfs-tune"

run() {
  "$TUNE" --space="$SRC/tools/tune/space.txt" --workload=LUN0 --requests=2000 --evaluations=3 \
    --quiet --csv="$DIR/runs.csv" "$@" 2>&1
}

out="$(run --optimizer=bayes)" || { echo "FAIL: bayes did not run without the library: $out"; exit 1; }
out="$(run --optimizer=all)" || { echo "FAIL: --optimizer=all did not run: $out"; exit 1; }
ran="$(cut -d, -f1 "$DIR/runs.csv" | sed 1d | sort -u | paste -sd, -)"
[ "$ran" = "anneal,bayes,descent,genetic,random" ] ||
  { echo "FAIL: --optimizer=all ran '$ran'"; exit 1; }
if out="$(run --optimizer=dqn)"; then
  echo "FAIL: dqn ran without libtierfs_tune_qnet.so"
  exit 1
fi
grep -q "the dqn optimizer needs libtierfs_tune_qnet.so" <<<"$out" ||
  { echo "FAIL: dqn's error does not name the library: $out"; exit 1; }
echo "PASS: the other optimizers run, dqn is refused by name"
