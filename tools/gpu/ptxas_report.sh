#!/usr/bin/env bash
# Registers, stack and spills of every GPU kernel, from ptxas (no device needed), with the blocks
# of 128 threads (the MSM's block size) that the registers leave room for on an SM of 65536
# registers. A kernel that drops a block per SM loses a quarter to a third of its warps: that is
# how session 7 found G2's reduce phase at 2^24 slowed from 38 to 50 ms (224 registers instead of
# 143 after a change of inlining). Compare the report before and after a change to src/gpu.
#   bash tools/gpu/ptxas_report.sh [file.cu ...] [-- extra nvcc flags, e.g. -DG16_MSM_SQR_G1=1]
# Default files: every src/gpu/*.cu. Takes one to three minutes per file on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
files=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  files+=("$1")
  shift
done
[ $# -gt 0 ] && shift
[ ${#files[@]} -eq 0 ] && files=(src/gpu/*.cu)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-58s %5s %6s %7s %7s %10s\n' kernel regs stack spill_st spill_ld blocks@128
for f in "${files[@]}"; do
  "$NVCC" -O2 -DNDEBUG -arch=sm_90 -I include -I src "$@" -c "$f" -o "$tmp/k.o" -Xptxas -v >"$tmp/log" 2>&1 || {
    echo "ptxas_report: $f does not compile:" >&2
    cat "$tmp/log" >&2
    exit 1
  }
  # entry functions only: "Compiling entry function 'X'", then its properties and registers
  awk '
    /Compiling entry function/ { match($0, /\x27[^\x27]+\x27/); name = substr($0, RSTART + 1, RLENGTH - 2); stack = 0; sst = 0; sld = 0; next }
    name != "" && /bytes stack frame/ { stack = $1; sst = $5; sld = $9 }
    name != "" && /Used [0-9]+ registers/ {
      for (i = 1; i <= NF; i++) if ($i == "Used") regs = $(i + 1)
      print name, regs, stack, sst, sld
      name = ""
    }' "$tmp/log" >"$tmp/rows"
  while read -r name regs stack sst sld; do
    demangled=$(echo "$name" | c++filt 2>/dev/null || echo "$name")
    alloc=$(((regs + 7) / 8 * 8)) # registers are allocated per thread in multiples of 8
    blocks=$((65536 / (alloc * 128)))
    [ "$blocks" -gt 16 ] && blocks=16 # 2048 threads per SM
    printf '%-58s %5s %6s %7s %7s %10s\n' "${demangled:0:58}" "$regs" "$stack" "$sst" "$sld" "$blocks"
  done <"$tmp/rows"
done
