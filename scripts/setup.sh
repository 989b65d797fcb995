#!/usr/bin/env bash
# First command on a fresh Debian 12 machine: install what is missing, configure the ci
# preset, build the demo and run it. ./scripts/test.sh then builds and runs everything else.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
jobs=${NNHAL_JOBS:-$(nproc)}
cmake --preset ci
cmake --build --preset ci -j "$jobs" --target nnhal-demo
./build/ci/examples/nnhal-demo
