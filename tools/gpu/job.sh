#!/usr/bin/env bash
# One device job from the devpack of `all_device_run.sh prepare` (THERE, carry ["build-gpuall/devpack"]):
#   bash tools/gpu/job.sh PHASE...          phases, run in order, results under $OUT:
#     tests     test_gpu_prove (tests.log; device memory before / after 100 proofs)
#     proveab   bench_gpu_prove 27 27 bits $BATCH (default 3) with G16_BENCH_MEM_LIMITS=$LIMITS (default
#               full), log $PLOG.log (default prove27), trace trace27.json
#     sanitize  compute-sanitizer memcheck of test_gpu_prove's tests matching $SFILTER (a cmocka
#               pattern, default test_gpu_a_slot3; G16_GPU_TEST_SANITIZER=1), san.log
#     first     the A/B of a batch's first circuit's SpMV on the device (thirty-third session): bench_gpu_prove
#               27 27 bits 1, then 3, with G16_BENCH_MEM_LIMITS="X,X/G16_GPU_SPMV=resident[,X]", X = full on a
#               card of at most 100 GB, else 79G (an 80 GB card's plan): first_b1.log, first_b3.log
#     ntt       bench_gpu_ntt 27 20 (bench_ntt.md)
#     msm       bench_gpu_msm 26 24 (bench_msm.md)
# e.g. LIMITS="full,full/G16_GPU_A_SLOT3=0" BATCH=10 bash tools/gpu/job.sh tests proveab
# The card's name, driver and memory go to device.txt; each phase prints its table and its time.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
P=${PACK:-build-gpuall/devpack/dev.tar.xz}
rm -rf /tmp/g16dev && mkdir -p /tmp/g16dev && tar -C /tmp/g16dev -xJf "$P" || exit 1
D=/tmp/g16dev/dev
export LD_LIBRARY_PATH="$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,clocks.max.sm --format=csv >"$OUT/device.txt" 2>&1
cat "$OUT/device.txt"
t0=$(date +%s)
for ph in "$@"; do
  s=$(date +%s)
  case $ph in
  tests)
    timeout 200 "$D/test_gpu_prove" >"$OUT/tests.log" 2>&1
    echo "test_gpu_prove rc $?"
    grep -E "PASSED|FAILED|ERROR|memory free" "$OUT/tests.log" | tail -8
    ;;
  proveab)
    G16_TRACE_FILE="$OUT/trace27.json" G16_BENCH_MEM_LIMITS="${LIMITS:-full}" timeout 560 \
      "$D/bench_gpu_prove" 27 27 bits "${BATCH:-3}" >"$OUT/${PLOG:-prove27}.log" 2>&1
    echo "bench_gpu_prove rc $?"
    grep -E "^\||^g16:" "$OUT/${PLOG:-prove27}.log" | cut -c1-400
    ;;
  sanitize)
    G16_GPU_TEST_SANITIZER=1 G16_TEST_FILTER="${SFILTER:-test_gpu_a_slot3}" timeout 300 \
      compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$D/test_gpu_prove" >"$OUT/san.log" 2>&1
    echo "memcheck rc $?"
    grep -E "ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED" "$OUT/san.log" | tail -5
    ;;
  first)
    mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
    X=full
    [ "${mib:-0}" -gt 102400 ] && X=79G
    for b in 1 3; do
      L="$X,$X/G16_GPU_SPMV=resident"
      [ $b = 3 ] && L="$L,$X"
      G16_BENCH_MEM_LIMITS="$L" timeout 280 "$D/bench_gpu_prove" 27 27 bits $b >"$OUT/first_b$b.log" 2>&1
      echo "bench_gpu_prove (batch $b, $L) rc $?"
      grep -E "^\||^g16:" "$OUT/first_b$b.log" | cut -c1-400
    done
    ;;
  ntt)
    timeout 120 "$D/bench_gpu_ntt" 27 20 "$OUT/bench_ntt.md" >"$OUT/bench_ntt.log" 2>&1
    echo "bench_gpu_ntt rc $?"
    grep "^|" "$OUT/bench_ntt.md"
    ;;
  msm)
    timeout 200 "$D/bench_gpu_msm" 26 24 "$OUT/bench_msm.md" >"$OUT/bench_msm.log" 2>&1
    echo "bench_gpu_msm rc $?"
    grep "^|" "$OUT/bench_msm.md"
    ;;
  *)
    echo "unknown phase '$ph' (tests, proveab, sanitize, first, ntt, msm)" >&2
    exit 2
    ;;
  esac
  echo "== $ph $(($(date +%s) - s)) s"
done
echo "total $(($(date +%s) - t0)) s"
