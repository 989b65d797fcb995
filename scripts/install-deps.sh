#!/usr/bin/env bash
# Installs, with apt-get, whichever of nnhal's build and test dependencies are missing
# (Debian 12). Used by setup.sh and .ci/run; does nothing when all are present.
set -euo pipefail

packages=(build-essential cmake ninja-build ccache libxsimd-dev libhwy-dev doctest-dev
          nlohmann-json3-dev libbenchmark-dev)
# The compilation cache's digest (OpenSSL libcrypto); clang and libFuzzer for fuzz/ (clang
# also for the ctest clang_build).
packages+=(libssl-dev clang-14 libfuzzer-14-dev)
# qemu-user: the ctests *_avx2_cpu run the AVX2 kernels on an emulated CPU without AVX-512.
packages+=(qemu-user)
# python3 (with binutils' objdump): the ctest vzeroupper_check reads the built programs' code.
packages+=(python3 binutils)
# Callers may ask for more (the benchmarks' comparison libraries): NNHAL_EXTRA_PACKAGES.
read -r -a extra <<<"${NNHAL_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
