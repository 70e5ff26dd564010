#!/usr/bin/env bash
# The GPU MSM on the device, in two steps:
#   bash tools/gpu/msm_device_run.sh prepare          # HERE: builds (nvcc, sm_90) and stages
#                                                     # test_gpu_msm, bench_gpu_msm and the shared
#                                                     # libraries the device image may lack in
#                                                     # build-gpumsm/dev/
#   bash tools/gpu/msm_device_run.sh run [dir]        # THERE, through the `run` tool with carry
#                                                     # ["build-gpumsm/dev"]: tests up to 2^20, the
#                                                     # benchmark, memcheck at small sizes
# Environment for `run`: TEST_MAX (20), G1MAX (26), G2MAX (24), and the time limits T_TEST (200),
# T_BENCH (250), T_MC (110) in seconds. Logs and bench.md land under $OUT; a summary is printed.
set -u
cd "$(dirname "$0")/../.."
B=${G16_GPU_BUILD:-build-gpumsm}
case "${1:-}" in
prepare)
  set -e
  cmake -S . -B "$B" -DG16_WERROR=OFF -DG16_CUDA=ON >/dev/null
  cmake --build "$B" -j2 --target test_gpu_msm bench_gpu_msm
  rm -rf "$B/dev" && mkdir -p "$B/dev/lib"
  cp "$B/test_gpu_msm" "$B/bench_gpu_msm" "$B/dev/"
  for lib in libcmocka.so.0 libgmp.so.10; do
    path=$(ldd "$B/test_gpu_msm" | awk -v l="$lib" '$1 == l {print $3}')
    [ -n "$path" ] && cp -L "$path" "$B/dev/lib/"
  done
  du -sh "$B/dev"
  ;;
run)
  D=${2:-$B/dev}
  OUT=${OUT:-$PWD/gpu-out}
  mkdir -p "$OUT"
  export LD_LIBRARY_PATH="$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv | tee "$OUT/smi.txt"
  echo "== test_gpu_msm (max 2^${TEST_MAX:-20})"; date -u
  G16_GPU_TEST_MAX_LOG=${TEST_MAX:-20} timeout "${T_TEST:-200}" "$D/test_gpu_msm" >"$OUT/test.log" 2>&1
  echo "test exit $?"
  grep -E "seed|OK|FAIL|PASSED|SKIP|device|differs|rror" "$OUT/test.log" | head -40
  echo "== bench_gpu_msm ${G1MAX:-26} ${G2MAX:-24}"; date -u
  timeout "${T_BENCH:-250}" "$D/bench_gpu_msm" "${G1MAX:-26}" "${G2MAX:-24}" "$OUT/bench.md" >"$OUT/bench.log" 2>&1
  echo "bench exit $?"
  tail -30 "$OUT/bench.log"
  echo "== compute-sanitizer memcheck (max 2^9)"; date -u
  G16_GPU_TEST_MAX_LOG=9 timeout "${T_MC:-110}" compute-sanitizer --tool memcheck --leak-check full \
    --error-exitcode 9 "$D/test_gpu_msm" >"$OUT/memcheck.log" 2>&1
  echo "memcheck exit $?"
  grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|leak" "$OUT/memcheck.log" | head -12
  date -u
  ;;
*)
  echo "usage: $0 prepare | run [dir]" >&2
  exit 2
  ;;
esac
