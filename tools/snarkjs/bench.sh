#!/usr/bin/env bash
# g16 prove against snarkjs groth16 prove on the same zkey and witness (bench/RESULTS.md):
# the chain circuit (full-size field values, 3 constraints a round) at about 2^k constraints,
# set up by snarkjs from a g16 ptau (insecure, known seed: benchmark only). Each prover runs
# RUNS times under /usr/bin/time -v; the table gives the median wall time, its CPU time
# (user + sys) and the largest peak RSS. g16's proof is checked by snarkjs once.
#   bash tools/snarkjs/bench.sh path/to/g16 [k ...]      (default k = 16; RUNS=3)
set -euo pipefail
G16=$(realpath "${1:?usage: bench.sh path/to/g16 [log2 sizes]}")
shift
sizes=("${@:-16}")
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${WORK:-$root/build-snarkjs-bench}
(cd "$here" && npm ci --silent --no-audit --no-fund)
SJ="node $here/node_modules/snarkjs/build/cli.cjs"
CIRCOM="node $here/node_modules/circom2/cli.js"
mkdir -p "$work"
cp "$here/circuits/chain.circom" "$work"
cd "$work"

# measure LABEL CMD...: appends "label wall cpu rss_kb" per run to times.txt
measure() {
    local label=$1
    shift
    for _ in $(seq "$runs"); do
        /usr/bin/time -v "$@" >run.log 2>time.log
        awk -v l="$label" '/Elapsed \(wall clock\)/ {n=split($NF,t,":"); w=(n==3)?t[1]*3600+t[2]*60+t[3]:t[1]*60+t[2]}
            /User time/ {u=$NF} /System time/ {s=$NF} /Maximum resident/ {r=$NF}
            END {printf "%s %.2f %.2f %d\n", l, w, u+s, r}' time.log >>times.txt
    done
}

echo "| constraints | domain | prover | wall (median of $runs) | CPU user+sys | peak RSS |"
echo "|---|---|---|---|---|---|"
for k in "${sizes[@]}"; do
    n=$(((1 << k) - 3))        # constraints + 2 public values + ONE fill the domain
    rounds=$((n / 3))
    c="chain$k"
    if [ ! -f "$c.zkey" ]; then
        printf 'pragma circom 2.1.0;\ninclude "chain.circom";\ncomponent main {public [x]} = Chain(%d);\n' "$rounds" >"$c.circom"
        $CIRCOM --r1cs --wasm --prime bls12381 "$c.circom" >/dev/null
        node "$here/inputs.mjs" mimc 1 >"$c.input.json"
        $SJ wtns calculate "${c}_js/$c.wasm" "$c.input.json" "$c.wtns" >/dev/null
        [ -f "pot$k.ptau" ] || "$G16" ptau --power "$k" --insecure-seed "$k" --out "pot$k.ptau" >/dev/null
        $SJ groth16 setup "$c.r1cs" "pot$k.ptau" "$c.zkey" >/dev/null
        $SJ zkey export verificationkey "$c.zkey" "${c}_vk.json" >/dev/null
    fi
    "$G16" prove --zkey "$c.zkey" --wtns "$c.wtns" --proof g.json --public gp.json >/dev/null
    $SJ groth16 verify "${c}_vk.json" gp.json g.json >/dev/null || { echo "snarkjs refuses g16's proof" >&2; exit 1; }
    rm -f times.txt
    measure snarkjs $SJ groth16 prove "$c.zkey" "$c.wtns" s.json sp.json
    measure g16 "$G16" prove --zkey "$c.zkey" --wtns "$c.wtns" --proof g.json --public gp.json
    for p in snarkjs g16; do
        grep "^$p " times.txt | sort -k2 -n | awk -v p="$p" -v k="$k" -v m="$((rounds * 3))" -v runs="$runs" '
            {w[NR]=$2; c[NR]=$3; if ($4>r) r=$4}
            END {i=int((runs+1)/2); printf "| %d | 2^%d | %s | %.2f s | %.2f s | %d MB |\n", m, k, p, w[i], c[i], r/1024}'
    done
done
