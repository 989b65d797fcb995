#!/usr/bin/env bash
# Builds and runs the benchmark suite (-O3; nnhal's kernels pick the CPU's instruction set
# at run time), side by side with XNNPACK and oneDNN from Debian (installed here if
# missing). Each case runs on one thread, and most also on all cores (/cores:N). Results go to
# build/bench/results/<bench>.json (Google Benchmark JSON) and to the console.
#   scripts/bench.sh [BENCH_NAME_REGEX] [extra benchmark flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
NNHAL_EXTRA_PACKAGES="libxnnpack-dev libpthreadpool-dev libdnnl-dev ocl-icd-opencl-dev" bash scripts/install-deps.sh
filter=${1:-.}
shift || true
cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DNNHAL_BUILD_BENCH=ON \
      -DNNHAL_BUILD_TESTS=OFF -DNNHAL_BUILD_EXAMPLES=OFF -DNNHAL_BUILD_TOOLS=OFF >/dev/null
cmake --build build/bench -j "${NNHAL_JOBS:-$(nproc)}"
mkdir -p build/bench/results
for b in build/bench/bench/*_bench; do
  name=$(basename "$b")
  [[ "$name" =~ $filter ]] || continue
  echo "=== $name"
  "$b" --benchmark_out="build/bench/results/$name.json" --benchmark_out_format=json "$@"
done
