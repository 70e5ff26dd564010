#!/usr/bin/env bash
# Outside verification of g16 with snarkjs 0.7.6 and circom2 0.2.23 (pinned in package-lock.json):
#   - three BLS12-381 circuits (mul: several public inputs; mimc: full-size field values;
#     bits: 18626 constraints, mostly boolean) are compiled by circom and set up by snarkjs;
#   - g16 proves from each zkey and snarkjs verifies (and refuses a changed public value);
#   - snarkjs proves and g16 verifies (and refuses a changed public value);
#   - `snarkjs zkey export bellman` parameters: g16 proves with them and the circom circuit
#     (g16 prove --params --r1cs --wtns), snarkjs verifies with the zkey's key (and refuses a changed
#     public value); mul and mimc only: snarkjs's export of bits (domain 2^15) takes about 4 minutes;
#   - g16's verification_key.json written from the zkey is byte for byte the one snarkjs exports;
#   - g16's own bellman-format setups and proofs, exported as JSON, verify in snarkjs;
#   - bad input through the command line: another circuit's witness, a witness that does not
#     satisfy the circuit, a BN254 circuit, public values that do not match the key;
#   - the 448 real Filecoin records' proofs decode with g16 inspect-proof.
# The mul circuit uses a powers-of-tau file from a real snarkjs ceremony (tests/data/snarkjs/pot5.ptau);
# the others use g16 ptau (known toxic waste: fine for tests, fast). The bits zkey skips the
# contribution (snarkjs takes over a minute for it here); mul and mimc get one, so delta != 1.
#   bash tools/snarkjs/check.sh path/to/g16 [work-dir]      (needs node and npm; npm ci on first run)
set -euo pipefail
G16=$(realpath "${1:?usage: check.sh path/to/g16 [work-dir]}")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${2:-$root/build-snarkjs-check}
(cd "$here" && npm ci --silent --no-audit --no-fund)
SJ="node $here/node_modules/snarkjs/build/cli.cjs"
CIRCOM="node $here/node_modules/circom2/cli.js"
rm -rf "$work"
mkdir -p "$work"
cp "$here"/circuits/*.circom "$work"
cd "$work"
t0=$SECONDS

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
# expect_rc WANT CMD...: runs CMD (output to last.log) and checks its exit status
expect_rc() {
    local want=$1 rc=0
    shift
    "$@" >last.log 2>&1 || rc=$?
    if [ "$rc" -ne "$want" ]; then
        cat last.log >&2
        fail "'$*' exited $rc, expected $want"
    fi
}
expect_msg() { grep -q -- "$1" last.log || { cat last.log >&2; fail "expected the message '$1'"; }; }
# tamper IN OUT: public.json with its first value plus one
tamper() {
    node -e 'const fs=require("fs");const [i,o]=process.argv.slice(1);const p=JSON.parse(fs.readFileSync(i,"utf8"));
p[0]=(BigInt(p[0])+1n).toString();fs.writeFileSync(o,JSON.stringify(p));' "$1" "$2"
}
# same_vk A B: the fields snarkjs's verifier reads are equal
same_vk() {
    node -e 'const fs=require("fs");const [a,b]=process.argv.slice(1).map(f=>JSON.parse(fs.readFileSync(f,"utf8")));
for (const k of ["protocol","curve","nPublic","vk_alpha_1","vk_beta_2","vk_gamma_2","vk_delta_2","IC"])
  if (JSON.stringify(a[k])!==JSON.stringify(b[k])) { console.error("verifying keys differ in "+k); process.exit(1); }' "$1" "$2"
}

cp "$root/tests/data/snarkjs/pot5.ptau" .
$G16 ptau --power 9 --insecure-seed 9 --out pot9.ptau >/dev/null
$G16 ptau --power 15 --insecure-seed 15 --out pot15.ptau >/dev/null
echo "ptau files ready ($((SECONDS - t0)) s)"

# circuit NAME PTAU SEED CONTRIBUTE(0/1) EXPORT(0/1)
circuit() {
    local c=$1 ptau=$2 seed=$3 contribute=$4 export=$5 t=$SECONDS
    $CIRCOM --r1cs --wasm --prime bls12381 "$c.circom" >/dev/null
    node "$here/inputs.mjs" "$c" "$seed" >"$c.input.json"
    $SJ wtns calculate "${c}_js/$c.wasm" "$c.input.json" "$c.wtns" >/dev/null
    expect_rc 0 "$G16" check --r1cs "$c.r1cs" --wtns "$c.wtns"
    $SJ groth16 setup "$c.r1cs" "$ptau" "${c}_0.zkey" >/dev/null
    if [ "$contribute" = 1 ]; then
        $SJ zkey contribute "${c}_0.zkey" "$c.zkey" -e="g16 ci $c" -n=ci >/dev/null
    else
        mv "${c}_0.zkey" "$c.zkey"
    fi
    $SJ zkey export verificationkey "$c.zkey" "${c}_vk.json" >/dev/null
    # g16 proves, snarkjs verifies
    expect_rc 0 "$G16" prove --zkey "$c.zkey" --wtns "$c.wtns" --proof "${c}_g16_proof.json" --public "${c}_g16_public.json"
    expect_rc 0 $SJ groth16 verify "${c}_vk.json" "${c}_g16_public.json" "${c}_g16_proof.json"
    tamper "${c}_g16_public.json" "${c}_g16_public_bad.json"
    expect_rc 1 $SJ groth16 verify "${c}_vk.json" "${c}_g16_public_bad.json" "${c}_g16_proof.json"
    # snarkjs proves, g16 verifies
    $SJ groth16 prove "$c.zkey" "$c.wtns" "${c}_sj_proof.json" "${c}_sj_public.json" >/dev/null
    expect_rc 0 "$G16" verify --vk "${c}_vk.json" --proof "${c}_sj_proof.json" --public "${c}_sj_public.json"
    tamper "${c}_sj_public.json" "${c}_sj_public_bad.json"
    expect_rc 1 "$G16" verify --vk "${c}_vk.json" --proof "${c}_sj_proof.json" --public "${c}_sj_public_bad.json"
    # snarkjs's bellman-format export of the zkey: g16 proves with it and the circom circuit
    if [ "$export" = 1 ]; then
        $SJ zkey export bellman "$c.zkey" "$c.params" >/dev/null
        expect_rc 0 "$G16" prove --params "$c.params" --r1cs "$c.r1cs" --wtns "$c.wtns" --proof "${c}_exp_proof.json" \
            --public "${c}_exp_public.json"
        expect_rc 0 $SJ groth16 verify "${c}_vk.json" "${c}_exp_public.json" "${c}_exp_proof.json"
        tamper "${c}_exp_public.json" "${c}_exp_public_bad.json"
        expect_rc 1 $SJ groth16 verify "${c}_vk.json" "${c}_exp_public_bad.json" "${c}_exp_proof.json"
    fi
    # the verifying key g16 reads from the zkey is snarkjs's, written byte for byte as snarkjs does
    expect_rc 0 "$G16" export --zkey "$c.zkey" --out-dir "${c}_export"
    same_vk "${c}_export/verification_key.json" "${c}_vk.json" || fail "$c: g16's vk export differs from snarkjs's"
    cmp "${c}_export/verification_key.json" "${c}_vk.json" || fail "$c: g16's verification_key.json is not byte for byte snarkjs's"
    echo "ok: $c ($(grep -c . "$c.input.json") input lines; $((SECONDS - t)) s): g16 -> snarkjs and snarkjs -> g16 proofs verify$([ "$export" = 1 ] && echo " (from the zkey and from its bellman export)"), changed public values are refused"
}
circuit mul pot5.ptau 1 1 1
circuit mimc pot9.ptau 2 1 1
circuit bits pot15.ptau 3 0 0

# bad input through the command line
expect_rc 2 "$G16" prove --zkey mul.zkey --wtns mimc.wtns --proof x.json
expect_msg "the witness has 303 values, the zkey's circuit has 10 wires"
node -e 'const fs=require("fs");const b=fs.readFileSync("mul.wtns");b[b.length-32]^=1;fs.writeFileSync("mul_bad.wtns",b);'
expect_rc 1 "$G16" check --r1cs mul.r1cs --wtns mul_bad.wtns
expect_msg "is not satisfied"
expect_rc 2 "$G16" prove --zkey mul.zkey --wtns mul_bad.wtns --proof x.json
expect_msg "does not verify"
mkdir -p bn && cp mul.circom bn/ && (cd bn && $CIRCOM --r1cs --prime bn128 mul.circom >/dev/null)
expect_rc 2 "$G16" check --r1cs bn/mul.r1cs --wtns mul.wtns
expect_msg "BN254's scalar field"
node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync("mul_sj_public.json"));p.pop();fs.writeFileSync("short.json",JSON.stringify(p));'
expect_rc 2 "$G16" verify --vk mul_vk.json --proof mul_sj_proof.json --public short.json
expect_msg "holds 4 public values, the verifying key expects 5"
sed 's/"groth16"/"plonk"/' mul_vk.json >plonk_vk.json
expect_rc 2 "$G16" verify --vk plonk_vk.json --proof mul_sj_proof.json --public mul_sj_public.json
expect_msg "g16 handles groth16 only"
# snarkjs exports: another circuit's parameters; bellman mode names the export
expect_rc 2 "$G16" prove --params mul.params --r1cs mimc.r1cs --wtns mimc.wtns --proof x.json
expect_msg "parameters do not match the circuit"
expect_rc 2 "$G16" prove --params mul.params --r1cs mul.r1cs --wtns mul_bad.wtns --proof x.json
expect_msg "is not satisfied"
expect_rc 2 "$G16" prove --params mul.params --constraints 2^9 --proof x.bin
expect_msg "snarkjs zkey export bellman"
echo "ok: bad input (other witness, unsatisfied witness, BN254 circuit, short public.json, PLONK key, export of another circuit, export read as bellman's) refused"

# g16's own bellman-format proofs, exported, verify in snarkjs
for kind in bits field; do
    $G16 setup --circuit $kind --constraints 2^11 --seed 5 --params "$kind.params" --vk "$kind.vk" >/dev/null
    $G16 prove --circuit $kind --constraints 2^11 --seed 5 --params "$kind.params" --batch 2 --proof "$kind.proof" \
        --public "$kind.pub" >/dev/null
    expect_rc 0 "$G16" export --vk "$kind.vk" --proof "$kind.proof" --public "$kind.pub" --out-dir "native_$kind"
    for i in 0 1; do
        expect_rc 0 $SJ groth16 verify "native_$kind/verification_key.json" "native_$kind/public_$i.json" \
            "native_$kind/proof_$i.json"
    done
    tamper "native_$kind/public_0.json" "native_$kind/public_bad.json"
    expect_rc 1 $SJ groth16 verify "native_$kind/verification_key.json" "native_$kind/public_bad.json" \
        "native_$kind/proof_0.json"
done
echo "ok: g16's native proofs (bits and field demo circuits, batches of 2) verify in snarkjs; a changed input is refused"

# the real Filecoin proofs, through the command line
records="$root/../shared/testdata/filecoin/seal_regression_records-v16.json"
[ -f "$records" ] || fail "missing $records"
node -e 'const fs=require("fs");const out=[];for (const l of fs.readFileSync(process.argv[1],"utf8").split("\n"))
  if (l.trim()) out.push(Buffer.from(JSON.parse(l).proof));fs.writeFileSync("filecoin.proofs",Buffer.concat(out));' "$records"
expect_rc 0 "$G16" inspect-proof filecoin.proofs
n=$(grep -c "ok: on the curves, in the subgroups, canonical encoding" last.log)
[ "$n" -eq 502 ] || fail "inspect-proof accepted $n Filecoin proofs, expected 502"
echo "ok: the 502 partition proofs of the 448 Filecoin records decode with every check"
echo "snarkjs checks: all passed in $((SECONDS - t0)) s"
