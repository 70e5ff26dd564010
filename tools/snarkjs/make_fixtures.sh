#!/usr/bin/env bash
# Regenerates the small circom/snarkjs files under tests/data/snarkjs/ that the C tests read
# offline (test_compat_iden3, test_snarkjs_export). Not run by CI: the files are committed;
# snarkjs's contributions draw fresh randomness, so a rerun gives different (equally valid) keys
# and proofs (test_snarkjs_export's byte offsets stay: they depend on the circuit only).
#   bash tools/snarkjs/make_fixtures.sh build-dir/g16
set -euo pipefail
G16=$(realpath "${1:?usage: make_fixtures.sh path/to/g16}")
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here/../../tests/data/snarkjs" && pwd)
(cd "$here" && npm ci --silent --no-audit --no-fund)
SJ="node $here/node_modules/snarkjs/build/cli.cjs"
CIRCOM="node $here/node_modules/circom2/cli.js"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/circuits/*.circom "$work"
cd "$work"

# powers of tau: a real snarkjs ceremony at power 5 (kept as test data) and g16's insecure one
$SJ powersoftau new bls12381 5 pot5_0.ptau >/dev/null
$SJ powersoftau contribute pot5_0.ptau pot5_1.ptau -e="g16 fixtures" -n=fixtures >/dev/null
$SJ powersoftau prepare phase2 pot5_1.ptau pot5.ptau >/dev/null
"$G16" ptau --power 10 --insecure-seed 10 --out pot10.ptau >/dev/null

make() { # circuit ptau seed
    local c=$1 ptau=$2 seed=$3
    $CIRCOM --r1cs --wasm --prime bls12381 "$c.circom" >/dev/null
    node "$here/inputs.mjs" "$c" "$seed" >"$c.input.json"
    $SJ wtns calculate "${c}_js/$c.wasm" "$c.input.json" "$c.wtns" >/dev/null
    $SJ groth16 setup "$c.r1cs" "$ptau" "${c}_0.zkey" >/dev/null
    $SJ zkey contribute "${c}_0.zkey" "$c.zkey" -e="g16 fixtures $c" -n=fixtures >/dev/null
    $SJ zkey export verificationkey "$c.zkey" "${c}_vk.json" >/dev/null
    $SJ groth16 prove "$c.zkey" "$c.wtns" "${c}_proof.json" "${c}_public.json" >/dev/null
    cp "$c.r1cs" "$c.wtns" "$c.zkey" "${c}_vk.json" "${c}_proof.json" "${c}_public.json" "$out/"
}
make mul pot5.ptau 1
$SJ zkey export bellman mul.zkey "$out/mul_bellman.params" >/dev/null # test_snarkjs_export
make mimc pot10.ptau 2
cp pot5.ptau "$out/pot5.ptau"

# other curve and other protocol, for the refusal tests
$SJ powersoftau new bn128 5 bn_0.ptau >/dev/null
$SJ powersoftau contribute bn_0.ptau bn_1.ptau -e="g16 fixtures bn" -n=fixtures >/dev/null
$SJ powersoftau prepare phase2 bn_1.ptau bn.ptau >/dev/null
mkdir bn && cp mul.circom bn/ && (cd bn && $CIRCOM --r1cs --wasm --prime bn128 mul.circom >/dev/null &&
    $SJ wtns calculate mul_js/mul.wasm ../mul.input.json mul.wtns >/dev/null &&
    $SJ groth16 setup mul.r1cs ../bn.ptau mul.zkey >/dev/null &&
    cp mul.r1cs "$out/mul_bn128.r1cs" && cp mul.wtns "$out/mul_bn128.wtns" && cp mul.zkey "$out/mul_bn128.zkey")
$SJ plonk setup mul.r1cs pot5.ptau mul_plonk.zkey >/dev/null
cp mul_plonk.zkey "$out/"
ls -la "$out"
