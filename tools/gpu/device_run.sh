#!/usr/bin/env bash
# Runs ON the device machine (through the `run` tool), with the binaries staged by prepare.sh:
#   bash tools/gpu/device_run.sh build-gpu/devrun [max_log (27)] [test_max_log (24)]
# Writes under $OUT: device.txt, tests.log, sanitizer.log, bench.md, bench.log, sass.txt,
# sass_fr_op.txt (the Fr element-wise kernel's machine code), and
# prints a summary last.
set -u
B=${1:-build-gpu/devrun}
MAXLOG=${2:-27}
TESTLOG=${3:-24}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B/lib:${LD_LIBRARY_PATH:-}"
summary=()

{ nvidia-smi; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv; } >"$OUT/device.txt" 2>&1

# 1) tests against the CPU (sizes up to 2^TESTLOG)
rc=0
for t in test_gpu_field test_gpu_ntt; do
  echo "==== $t (G16_GPU_TEST_MAX_LOG=$TESTLOG)" >>"$OUT/tests.log"
  start=$(date +%s)
  G16_GPU_TEST_MAX_LOG=$TESTLOG "$B/$t" >>"$OUT/tests.log" 2>&1
  r=$?
  [ $r -ne 0 ] && rc=1
  summary+=("$t: exit $r in $(( $(date +%s) - start )) s")
done

# 2) benchmark
start=$(date +%s)
"$B/bench_gpu_ntt" "$MAXLOG" 16 "$OUT/bench.md" >"$OUT/bench.log" 2>&1
r=$?
summary+=("bench: exit $r in $(( $(date +%s) - start )) s")
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >>"$OUT/device.txt" 2>&1

# 3) compute-sanitizer at small sizes
for tool in memcheck racecheck; do
  echo "==== compute-sanitizer --tool $tool test_gpu_ntt (max 2^9)" >>"$OUT/sanitizer.log"
  start=$(date +%s)
  G16_GPU_TEST_MAX_LOG=9 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 "$B/test_gpu_ntt" >>"$OUT/sanitizer.log" 2>&1
  r=$?
  summary+=("sanitizer $tool: exit $r in $(( $(date +%s) - start )) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer.log" | tail -1)")
done

# 4) instruction counts of the kernels (IMAD = multiply-add pipe)
cuobjdump --dump-sass "$B/bench_gpu_ntt" 2>/dev/null | awk '
  /Function :/ { fn = $3 }
  /\/\*[0-9a-f]+\*\// { tot[fn]++; if ($0 ~ / IMAD/) imad[fn]++; else if ($0 ~ / (IADD3|LOP3|SEL|ISETP|SHF|LEA|IADD)/) alu[fn]++ }
  END { for (f in tot) printf "%-60s total %6d  IMAD %6d  ALU %6d\n", f, tot[f], imad[f], alu[f] }' >"$OUT/sass.txt"

cuobjdump --dump-sass -fun '_Z12fr_op_kerneliP3gfrPKS_S2_m' "$B/bench_gpu_ntt" >"$OUT/sass_fr_op.txt" 2>&1

echo
tail -n 40 "$OUT/tests.log" | grep -E "PASSED|FAILED|SKIPPED|ERROR|device 2\^2[0-9]" || true
echo
cat "$OUT/bench.md" 2>/dev/null
grep -A30 "^profile" "$OUT/bench.log" | head -60
cat "$OUT/sass.txt"
printf '%s\n' "${summary[@]}"
exit $rc
