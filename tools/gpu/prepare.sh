#!/usr/bin/env bash
# Builds the GPU tests and benchmark HERE (nvcc, sm_90) and stages them, with the shared
# libraries the device image may lack, in build-gpu/devrun/ for the `run` tool:
#   bash tools/gpu/prepare.sh            # then run with carry ["build-gpu/devrun"]:
#   bash tools/gpu/device_run.sh build-gpu/devrun 27
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${G16_GPU_BUILD:-build-gpu}
cmake -S . -B "$B" -DG16_WERROR=OFF -DG16_CUDA=ON >/dev/null
cmake --build "$B" -j2 --target test_gpu_field test_gpu_ntt bench_gpu_ntt
rm -rf "$B/devrun" && mkdir -p "$B/devrun/lib"
cp "$B/test_gpu_field" "$B/test_gpu_ntt" "$B/bench_gpu_ntt" "$B/devrun/"
for lib in libcmocka.so.0 libgmp.so.10; do
  path=$(ldd "$B/test_gpu_ntt" | awk -v l="$lib" '$1 == l {print $3}')
  [ -n "$path" ] && cp -L "$path" "$B/devrun/lib/"
done
cp tools/gpu/device_run.sh "$B/devrun/"
du -sh "$B/devrun"
