#!/usr/bin/env bash
# Installs every Debian 12 package that quiver's build, tests and benchmarks need.
# Idempotent: when everything is already installed it only checks and exits; otherwise it runs
# `apt-get update` first and installs what is missing. Later issues extend PACKAGES.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential g++ cmake ninja-build ccache pkg-config git clang-format
  # sanitizer runtimes: gcc's TSan (and ASan/UBSan); clang and its runtimes build the
  # ASan+UBSan tree and the libFuzzer targets
  libasan8 libubsan1 libtsan2 clang libclang-rt-14-dev
  # libraries
  libfmt-dev libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libboost-dev libssl-dev
  protobuf-compiler libprotobuf-dev flatbuffers-compiler libflatbuffers-dev
  liblz4-dev libzstd-dev libroaring-dev libre2-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
)

# Node.js + npm drive the real LanceDB in tests/interop. Machines that already have a node
# (e.g. from NodeSource) keep it; otherwise Debian's nodejs (18) and npm are installed.
if ! command -v node >/dev/null 2>&1; then PACKAGES+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then PACKAGES+=(npm); fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
