#!/usr/bin/env bash
# Groth16 proving on the device, in two steps:
#   bash tools/gpu/prove_device_run.sh prepare [build-dir]   # HERE: builds (nvcc, sm_90) test_gpu_prove,
#                                                            # test_gpu_msm, bench_gpu_prove and g16, and
#                                                            # stages them with the shared libraries the
#                                                            # device image may lack in <build-dir>/dev/
#   bash tools/gpu/prove_device_run.sh run [dir]             # THERE, through the `run` tool with carry
#                                                            # ["<build-dir>/dev"]
# Environment for `run`: PMAX (22, largest log2 constraints of the benchmark), PMIN (16), BATCH (1),
# T_TEST (240), T_BENCH (300) seconds. Logs land under $OUT; a summary is printed.
set -u
cd "$(dirname "$0")/../.."
B=${2:-build-gpuprove}
case "${1:-}" in
prepare)
  set -e
  cmake -S . -B "$B" -DG16_WERROR=ON -DG16_CUDA=ON >/dev/null
  cmake --build "$B" -j2 --target test_gpu_prove test_gpu_msm bench_gpu_prove g16_cli
  rm -rf "$B/dev" && mkdir -p "$B/dev/lib"
  cp "$B/test_gpu_prove" "$B/test_gpu_msm" "$B/bench_gpu_prove" "$B/g16" "$B/dev/"
  for lib in libcmocka.so.0 libgmp.so.10; do
    path=$(ldd "$B/test_gpu_prove" | awk -v l="$lib" '$1 == l {print $3}')
    [ -n "$path" ] && cp -L "$path" "$B/dev/lib/"
  done
  du -sh "$B/dev"
  ;;
run)
  D=${2:-build-gpuprove/dev}
  OUT=${OUT:-$PWD/gpu-out}
  mkdir -p "$OUT"
  export LD_LIBRARY_PATH="$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv | tee "$OUT/smi.txt"
  echo "== test_gpu_prove"; date -u
  timeout "${T_TEST:-240}" "$D/test_gpu_prove" >"$OUT/test_prove.log" 2>&1
  echo "test_gpu_prove exit $?"
  grep -E "seed|OK|FAIL|PASSED|proofs|refused|memory|rror|differs" "$OUT/test_prove.log" | head -30
  echo "== g16 demo on the GPU (G16_TRACE=1)"
  G16_BACKEND=gpu G16_TRACE=1 timeout 120 "$D/g16" demo >"$OUT/demo.log" 2>&1
  echo "demo exit $?"
  grep -E "backend|ntt.h|msm\.|prove |verify|!!" "$OUT/demo.log" | head -30
  echo "== bench_gpu_prove ${PMAX:-22} ${PMIN:-16}"; date -u
  timeout "${T_BENCH:-300}" "$D/bench_gpu_prove" "${PMAX:-22}" "${PMIN:-16}" bits "${BATCH:-1}" >"$OUT/bench_prove.md" 2>"$OUT/bench_prove.err"
  echo "bench exit $?"
  cat "$OUT/bench_prove.md"; tail -5 "$OUT/bench_prove.err"
  date -u
  ;;
*)
  echo "usage: $0 prepare [build-dir] | run [dir]" >&2
  exit 2
  ;;
esac
