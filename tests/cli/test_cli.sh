#!/usr/bin/env bash
# End-to-end test of the g16 command line: setup, prove, verify, inspect, inspect-proof, and the
# exit status and one-line error of each failure. Usage: test_cli.sh path/to/g16
set -u
G16=${1:?usage: test_cli.sh path/to/g16}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect STATUS DESCRIPTION -- command...
expect() {
  local want=$1 what=$2
  shift 3
  "$@" >"$dir/out" 2>"$dir/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then ok; else bad "$what: exit $got, expected $want"; sed 's/^/    /' "$dir/err" | head -5; fi
  if [ "$want" -ne 0 ] && [ "$(wc -l <"$dir/err")" -lt 1 ]; then bad "$what: no error message"; fi
}

expect 0 "help" -- "$G16" --help
expect 2 "unknown command" -- "$G16" frobnicate
expect 0 "setup --help" -- "$G16" setup --help
expect 2 "setup without --params" -- "$G16" setup
expect 2 "setup unknown option" -- "$G16" setup --params "$dir/p" --bogus
expect 2 "setup bad circuit kind" -- "$G16" setup --params "$dir/p" --circuit nope
expect 2 "setup bad size" -- "$G16" setup --params "$dir/p" --constraints banana

for kind in bits field; do
  p="$dir/$kind.params" vk="$dir/$kind.vk" r="$dir/$kind.r1cs"
  expect 0 "setup $kind" -- "$G16" setup --circuit $kind --constraints 1024 --params "$p" --vk "$vk" --save-r1cs "$r"
  expect 0 "prove $kind batch 3" -- "$G16" prove --circuit $kind --constraints 1024 --params "$p" --batch 3 \
    --proof "$dir/$kind.proof" --public "$dir/$kind.public" --save-witness "$dir/$kind.wtns"
  expect 0 "prove $kind from files" -- "$G16" prove --r1cs "$r" --witness "$dir/$kind.wtns" --params "$p" \
    --proof "$dir/$kind.fproof" --public "$dir/$kind.fpublic"
  expect 0 "verify $kind from files" -- "$G16" verify --vk "$vk" --proof "$dir/$kind.fproof" --public "$dir/$kind.fpublic"
  [ "$(stat -c %s "$dir/$kind.proof")" -eq 576 ] && ok || bad "$kind: proof file is not 3 x 192 bytes"
  expect 0 "verify $kind" -- "$G16" verify --vk "$vk" --proof "$dir/$kind.proof" --public "$dir/$kind.public"
  grep -c valid "$dir/out" | grep -q 3 && ok || bad "verify $kind: expected 3 valid lines"
  expect 0 "verify $kind with the parameter file as key" -- "$G16" verify --vk "$p" --proof "$dir/$kind.proof" --public "$dir/$kind.public"
  expect 0 "inspect $kind params --check" -- "$G16" inspect "$p" --check
  grep -q "Groth16 parameters" "$dir/out" && ok || bad "inspect $kind: kind line"
  expect 0 "inspect $kind vk" -- "$G16" inspect "$vk" --check
  expect 0 "inspect-proof $kind" -- "$G16" inspect-proof "$dir/$kind.proof"
done

# a changed public input: exit 1 and the proof named
sed '1s/^\(.\)/\1/' "$dir/bits.public" >"$dir/pub2"
first=$(head -c 64 "$dir/pub2")
if [ "${first:63:1}" = "0" ]; then repl=1; else repl=0; fi
{ printf '%s%s' "${first:0:63}" "$repl"; tail -c +65 "$dir/pub2"; } >"$dir/pub3"
expect 1 "verify with a changed public input" -- "$G16" verify --vk "$dir/bits.vk" --proof "$dir/bits.proof" --public "$dir/pub3"
grep -q "proof 0: INVALID" "$dir/out" && ok || bad "changed input: proof 0 not reported invalid"
# a key of another circuit
expect 2 "verify with another circuit's key" -- "$G16" verify --vk "$dir/field.vk" --proof "$dir/bits.proof" --public "$dir/bits.public"
# a tampered proof byte: either undecodable or invalid, never valid. The byte is flipped (xor
# 0x55), not overwritten with a constant: proofs are randomized, and a constant equal to the old
# byte (1 run in 256) would leave the proof unchanged.
cp "$dir/bits.proof" "$dir/tampered"
old_byte=$(od -An -tu1 -j200 -N1 "$dir/tampered" | tr -d ' ')
printf "\\x$(printf %02x $((old_byte ^ 0x55)))" | dd of="$dir/tampered" bs=1 seek=200 conv=notrunc status=none
cmp -s "$dir/bits.proof" "$dir/tampered" && bad "tampered proof: byte 200 did not change" || ok
"$G16" verify --vk "$dir/bits.vk" --proof "$dir/tampered" --public "$dir/bits.public" >"$dir/out" 2>"$dir/err"
[ $? -ne 0 ] && ok || bad "tampered proof accepted"
# truncated files
head -c 1000 "$dir/bits.params" >"$dir/trunc.params"
expect 2 "prove with truncated parameters" -- "$G16" prove --circuit bits --constraints 1024 --params "$dir/trunc.params" --proof "$dir/x"
grep -q "byte" "$dir/err" && ok || bad "truncated parameters: no byte offset in the message"
head -c 100 "$dir/bits.proof" >"$dir/trunc.proof"
expect 2 "inspect-proof truncated" -- "$G16" inspect-proof "$dir/trunc.proof"
expect 2 "verify with a missing key file" -- "$G16" verify --vk "$dir/none" --proof "$dir/bits.proof" --public "$dir/bits.public"
# backends: a bad name, and the CPU explicitly
expect 2 "prove --backend tpu" -- "$G16" prove --circuit bits --constraints 1024 --params "$dir/bits.params" --proof "$dir/x" --backend tpu
expect 0 "prove --backend cpu" -- "$G16" prove --circuit bits --constraints 1024 --params "$dir/bits.params" --proof "$dir/x" --backend cpu
# the GPU backend without a GPU: a clear error (exit 2), never a CPU proof in disguise
if ! nvidia-smi -L >/dev/null 2>&1; then
  expect 2 "prove --backend gpu without a GPU" -- "$G16" prove --circuit bits --constraints 1024 --params "$dir/bits.params" --proof "$dir/x" --backend gpu --devices 0
  grep -q "no CUDA" "$dir/err" && ok || bad "--backend gpu without a GPU: message"
fi
# parameters of the wrong circuit size
expect 2 "prove with parameters of another size" -- "$G16" prove --circuit bits --constraints 2048 --params "$dir/bits.params" --proof "$dir/x"
grep -q "do not match" "$dir/err" && ok || bad "size mismatch: message"
# a compiled circuit file with a witness file
expect 2 "prove --r1cs without --witness" -- "$G16" prove --r1cs "$dir/bits.r1cs" --params "$dir/bits.params" --proof "$dir/x"
expect 2 "prove with another circuit's witness" -- "$G16" prove --r1cs "$dir/bits.r1cs" --witness "$dir/field.wtns" --params "$dir/bits.params" --proof "$dir/x"
head -c 40 "$dir/bits.wtns" >"$dir/trunc.wtns"
expect 2 "prove with a truncated witness" -- "$G16" prove --r1cs "$dir/bits.r1cs" --witness "$dir/trunc.wtns" --params "$dir/bits.params" --proof "$dir/x"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
