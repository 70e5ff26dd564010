// Writes the input JSON of a test circuit, deterministic from a seed:
//   node inputs.mjs <mul|bits|mimc> <seed> > input.json
// Values come from a small 64-bit xorshift generator (not cryptographic: test data only).
const [name, seedText] = process.argv.slice(2);
let s = BigInt(seedText ?? "1") * 0x9e3779b97f4a7c15n + 0x2545f4914f6cdd1dn;
const mask = (1n << 64n) - 1n;
function next() {
    s ^= (s << 13n) & mask;
    s ^= s >> 7n;
    s ^= (s << 17n) & mask;
    s &= mask;
    return s;
}
// A full-size element below r (four 64-bit draws, top bits cleared to stay below 2^254 < r).
const big = () => ((next() << 192n) | (next() << 128n) | (next() << 64n) | next()) >> 2n;
let input;
if (name === "mul") {
    input = { a: String(next() % 1000n), b: String(next() % 1000n), c: String(next()), x: String(big()) };
} else if (name === "bits") {
    input = { w: Array.from({ length: 96 }, () => String(next())), salt: String(big()) };
} else if (name === "mimc") {
    input = { x: String(big()), k: String(big()) };
} else {
    console.error(`unknown circuit '${name}' (mul, bits, mimc)`);
    process.exit(2);
}
process.stdout.write(JSON.stringify(input, null, 1) + "\n");
