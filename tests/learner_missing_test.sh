#!/usr/bin/env bash
# Without libtierfs_learner.so (LibTorch's half of TierFS), the heuristic
# policies and k-svm still run, and a learning policy or rnn-hss (its LSTM is
# LibTorch's) is refused with a message naming the missing library, instead
# of crashing later. tierfs-sim (which links no
# TierFS library) is copied alone into a build tree of its own, where its
# RUNPATH ($ORIGIN/../..) and its own directory hold no learner.
#   learner_missing_test.sh BUILD_DIR
set -euo pipefail
BUILD="$1"
TREE="$(mktemp -d)"
trap 'rm -rf "$TREE"' EXIT
mkdir -p "$TREE/tools/sim"
SIM="$TREE/tools/sim/tierfs-sim"
cp "$BUILD/tools/sim/tierfs-sim" "$SIM"

run() { "$SIM" run --config=perf --workload=LUN0 --requests=200 --policy="$1" 2>&1; }

for p in fast-first k-svm; do
  out="$(run "$p")" || { echo "FAIL: $p did not run without the learner library:"; echo "$out"; exit 1; }
  grep -q "^policy $p" <<<"$out" || { echo "FAIL: unexpected output: $out"; exit 1; }
done

for p in harmonia sibyl; do
  if out="$(run "$p")"; then
    echo "FAIL: $p ran without libtierfs_learner.so"
    exit 1
  fi
  grep -q "policy $p: the learning policies need libtierfs_learner.so" <<<"$out" ||
    { echo "FAIL: $p's error does not name the library: $out"; exit 1; }
done
if out="$(run rnn-hss)"; then
  echo "FAIL: rnn-hss ran without libtierfs_learner.so"
  exit 1
fi
grep -q "policy rnn-hss: rnn-hss needs libtierfs_learner.so" <<<"$out" ||
  { echo "FAIL: rnn-hss's error does not name the library: $out"; exit 1; }
echo "PASS: heuristics and k-svm run, learning policies and rnn-hss are refused by name"
