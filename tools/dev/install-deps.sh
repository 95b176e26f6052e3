#!/usr/bin/env bash
# Installs what TierFS needs from Debian bookworm's packages, if missing.
# Idempotent and quiet when everything is there.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config ccache
  librocksdb-dev rocksdb-tools      # 7.8.3: headers, librocksdb, db_bench, ldb, sst_dump
  libgflags-dev libgoogle-glog-dev libgtest-dev libgmock-dev libbenchmark-dev
  zlib1g-dev nlohmann-json3-dev
  libpng-dev                        # tierfs heatmap --png
  libeigen3-dev                     # tierfs-tune: the Gaussian process and PCA (tools/tune/)
  liblinear-dev                     # the k-svm baseline's SVM (agents/ksvm.cc)
  libtorch-dev                      # 1.13.1: the learning agents' training (agents/rl/learner.cc)
  libopenblas0-serial               # libtorch's BLAS: the reference one made training 1.5-2.6x slower
  python3-matplotlib                # report plots
  python3-scipy                     # benchmarks/rounds.py: bootstrap confidence intervals
  python3-prometheus-client         # tests/validate_metrics.py: the metrics parse
  clang-14 libfuzzer-14-dev libclang-rt-14-dev  # the fuzzers (tests/fuzz/): libFuzzer, ASan, UBSan
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
