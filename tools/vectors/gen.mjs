// Known-answer vectors for g16 from @noble/curves (an independent BLS12-381 implementation).
//
//   cd tools/vectors && npm ci && node gen.mjs > ../../tests/data/noble_vectors.txt
//
// The output is deterministic: every random value comes from a fixed-seed splitmix64 PRNG
// defined below (never from noble's or the OS's randomness), and the seed is written into
// the file header. tools/vectors/check.sh regenerates the file and compares it byte for byte.
//
// File format (read by tests/test_noble_kat.c):
//   - lines starting with '#' are comments; blank lines separate records;
//   - a record is a run of `key=value` lines, the first one `type=<type>`;
//   - byte strings are lowercase hex, no 0x; integers and field elements are big-endian,
//     scalars (Fr) 32 bytes, Fp elements 48 bytes; point encodings are the zcash format
//     (G1 48/96 bytes, G2 96/192 bytes, Fp2 written c1 then c0);
//   - GT elements (Fp12) are the 12 Fp coefficients, 48 bytes each, concatenated in the
//     order c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1, c1.c0.c0, c1.c0.c1,
//     c1.c1.c0, c1.c1.c1, c1.c2.c0, c1.c2.c1 (fp12 = c0 + c1·w, fp6 = c0 + c1·v + c2·v²,
//     fp2 = c0 + c1·u; u² = −1, v³ = u + 1, w² = v).
// The record types and their keys are listed in HEADER below (written into the file).
//
// Every value written is produced by noble; the script also checks noble against itself
// and against small independent computations (plain BigInt arithmetic) before writing:
// the Fp12 tower structure, that noble's pairing is fully final-exponentiated
// (equals f^(3·(p^12 − 1)/r) of its Miller loop: the ecosystem's exponent, see pairingSection), bilinearity, and that noble's checked
// decoder rejects every invalid encoding and re-decodes every valid one.

import { bls12_381 } from '@noble/curves/bls12-381.js';

const NOBLE_VERSION = '2.4.0';
const SEED = 0x6731365f6b6174n; // "g16_kat"

const { Fp, Fp2, Fp6, Fp12, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const P = Fp.ORDER;
const R = Fr.ORDER;

// ---------------------------------------------------------------- PRNG (splitmix64)
const M64 = (1n << 64n) - 1n;
let prngState = SEED;
function next64() {
  prngState = (prngState + 0x9e3779b97f4a7c15n) & M64;
  let z = prngState;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}
function randBits(bits) {
  let v = 0n;
  for (let i = 0; i < Math.ceil(bits / 64); i++) v = (v << 64n) | next64();
  return v & ((1n << BigInt(bits)) - 1n);
}
function randBelow(m) {
  const bits = m.toString(2).length;
  for (;;) {
    const v = randBits(bits);
    if (v < m) return v;
  }
}

// ---------------------------------------------------------------- helpers
function check(cond, what) {
  if (!cond) throw new Error('self-check failed: ' + what);
}
const hex = (bytes) => Buffer.from(bytes).toString('hex');
const be = (n, len) => n.toString(16).padStart(2 * len, '0');
function beBytes(n, len) {
  check(n >= 0n && n < 1n << BigInt(8 * len), 'value fits in ' + len + ' bytes');
  return Uint8Array.from(Buffer.from(be(n, len), 'hex'));
}
const cat = (...parts) => {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, o), (o += p.length);
  return out;
};
const withFlags = (bytes, mask) => {
  const b = Uint8Array.from(bytes);
  b[0] |= mask;
  return b;
};
const clearFlags = (bytes, mask) => {
  const b = Uint8Array.from(bytes);
  b[0] &= ~mask & 0xff;
  return b;
};
// noble's toBytes accepts only the canonical (0, 1, 0) identity; sums like P + (−P) are
// other projective forms of it, so normalize first.
const norm = (pt) => (pt.is0() ? pt.constructor.ZERO : pt);
const mul = (pt, k) => (k === 0n ? pt.constructor.ZERO : pt.multiply(k));

// ---------------------------------------------------------------- output
const out = [];
const counts = {};
function record(type, fields) {
  counts[type] = (counts[type] || 0) + 1;
  out.push('type=' + type);
  for (const [k, v] of Object.entries(fields)) {
    check(!/[\n=]/.test(k) && !/\n/.test(String(v)), 'clean key/value ' + k);
    out.push(k + '=' + v);
  }
  out.push('');
}

// ---------------------------------------------------------------- independent Fp12 arithmetic
// Plain BigInt tower arithmetic (not noble's): an Fp12 element as six Fp2 coefficients of
// w^0..w^5 with w^6 = ξ = u + 1. Noble's {c0, c1} of Fp6 {c0, c1, c2} maps to
// a0 = c0.c0, a1 = c1.c0, a2 = c0.c1, a3 = c1.c1, a4 = c0.c2, a5 = c1.c2 (since w² = v).
const md = (a) => ((a % P) + P) % P;
const f2mul = ([a0, a1], [b0, b1]) => [md(a0 * b0 - a1 * b1), md(a0 * b1 + a1 * b0)];
const f2add = ([a0, a1], [b0, b1]) => [md(a0 + b0), md(a1 + b1)];
const f2xi = ([a0, a1]) => [md(a0 - a1), md(a0 + a1)]; // ·(u + 1)
const toW = (x) => [x.c0.c0, x.c1.c0, x.c0.c1, x.c1.c1, x.c0.c2, x.c1.c2].map((e) => [e.c0, e.c1]);
function wmul(a, b) {
  const t = Array.from({ length: 11 }, () => [0n, 0n]);
  for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) t[i + j] = f2add(t[i + j], f2mul(a[i], b[j]));
  for (let k = 10; k >= 6; k--) t[k - 6] = f2add(t[k - 6], f2xi(t[k]));
  return t.slice(0, 6);
}
function wpow(a, e) {
  let r = [[1n, 0n], [0n, 0n], [0n, 0n], [0n, 0n], [0n, 0n], [0n, 0n]];
  for (const bit of e.toString(2)) {
    r = wmul(r, r);
    if (bit === '1') r = wmul(r, a);
  }
  return r;
}
const weq = (a, b) => a.every((c, i) => c[0] === b[i][0] && c[1] === b[i][1]);

// Fp12 → 576 bytes in the documented order.
function gtHex(x) {
  const coeffs = [];
  for (const c6 of [x.c0, x.c1]) for (const c2 of [c6.c0, c6.c1, c6.c2]) coeffs.push(c2.c0, c2.c1);
  coeffs.forEach((c) => check(c >= 0n && c < P, 'reduced Fp12 coefficient'));
  return coeffs.map((c) => be(c, 48)).join('');
}

function selfCheckTower() {
  const u = Fp2.create({ c0: 0n, c1: 1n });
  check(Fp2.eql(Fp2.sqr(u), Fp2.create({ c0: P - 1n, c1: 0n })), 'u² = −1');
  const v = Fp6.create({ c0: Fp2.ZERO, c1: Fp2.ONE, c2: Fp2.ZERO });
  const v3 = Fp6.mul(Fp6.sqr(v), v);
  check(Fp6.eql(v3, Fp6.create({ c0: Fp2.create({ c0: 1n, c1: 1n }), c1: Fp2.ZERO, c2: Fp2.ZERO })), 'v³ = u + 1');
  const w = Fp12.create({ c0: Fp6.ZERO, c1: Fp6.ONE });
  check(Fp12.eql(Fp12.sqr(w), Fp12.create({ c0: v, c1: Fp6.ZERO })), 'w² = v');
  // noble's multiplication agrees with the schoolbook product in the w-basis on random elements
  for (let i = 0; i < 4; i++) {
    const rnd = () => {
      const c = Array.from({ length: 12 }, () => randBelow(P));
      return Fp12.fromBigTwelve(c);
    };
    const a = rnd(), b = rnd();
    check(weq(toW(Fp12.mul(a, b)), wmul(toW(a), toW(b))), 'noble Fp12.mul = schoolbook w-basis product');
  }
}

// ---------------------------------------------------------------- point helpers
const FLAG_C = 0x80, FLAG_I = 0x40, FLAG_S = 0x20;

// noble's checked decoder must reject; returns its message (recorded as the confirmation).
function nobleRejects(Pt, bytes) {
  try {
    Pt.fromBytes(bytes);
  } catch (e) {
    return e.message.replace(/\s+/g, ' ');
  }
  throw new Error('noble accepted an encoding meant to be invalid: ' + hex(bytes));
}
// noble must decode a valid encoding to exactly `pt`.
function nobleAccepts(Pt, bytes, pt) {
  const got = Pt.fromBytes(bytes);
  check(got.equals(pt), 'noble re-decodes ' + hex(bytes));
}

// Raw zcash encodings of an affine point that need not be in the subgroup (noble's encoder
// refuses such points). Fp2 is written c1 then c0; the sign is lexicographic on (c1, c0).
const lexmaxFp = (y) => y > (P - 1n) / 2n;
const lexmaxFp2 = (y) => (y.c1 !== 0n ? lexmaxFp(y.c1) : lexmaxFp(y.c0));
const encFp2 = (x) => cat(beBytes(x.c1, 48), beBytes(x.c0, 48));
function rawG1(x, y, compressed) {
  if (!compressed) return cat(beBytes(x, 48), beBytes(y, 48));
  return withFlags(beBytes(x, 48), FLAG_C | (lexmaxFp(y) ? FLAG_S : 0));
}
function rawG2(x, y, compressed) {
  if (!compressed) return cat(encFp2(x), encFp2(y));
  return withFlags(encFp2(x), FLAG_C | (lexmaxFp2(y) ? FLAG_S : 0));
}

// ---------------------------------------------------------------- sections
const SPECIAL_K = [0n, 1n, 2n, 3n, R - 2n, R - 1n];

function scalars(n) {
  const ks = [...SPECIAL_K];
  ks.push((1n << 128n) - 1n, 1n << 254n); // a long run of ones; the top bit of a 255-bit scalar
  while (ks.length < SPECIAL_K.length + 2 + n) ks.push(randBelow(R));
  return ks;
}

function mulSection(name, Pt, n) {
  const base = Pt.BASE;
  const pts = [];
  for (const k of scalars(n)) {
    const q = mul(base, k);
    const c = q.toBytes(true), u = q.toBytes(false);
    nobleAccepts(Pt, c, q);
    nobleAccepts(Pt, u, q);
    // an independent path to the same point: double-and-add with noble's add/double
    let acc = Pt.ZERO;
    for (const bit of k.toString(2)) {
      acc = acc.double();
      if (bit === '1') acc = acc.add(base);
    }
    check(acc.equals(q), name + ' k·G by double-and-add');
    record(name + '_mul', { k: be(k, 32), compressed: hex(c), uncompressed: hex(u) });
    pts.push(q);
  }
  return pts;
}

function addSection(name, Pt, pts) {
  const pick = () => pts[Number(randBelow(BigInt(pts.length)))];
  const pairs = [];
  for (let i = 0; i < 8; i++) pairs.push([pick(), pick()]);
  const a = pts[8]; // a random point
  pairs.push([a, a]); // P + P: the doubling case of an addition formula
  pairs.push([a, a.negate()]); // P + (−P) = O
  pairs.push([a, Pt.ZERO], [Pt.ZERO, a], [Pt.ZERO, Pt.ZERO]);
  for (const [p, q] of pairs) {
    const s = norm(p.add(q));
    record(name + '_add', {
      p: hex(p.toBytes(true)),
      q: hex(q.toBytes(true)),
      compressed: hex(s.toBytes(true)),
      uncompressed: hex(s.toBytes(false)),
    });
  }
  const dbls = [pts[8], pts[9], pts[10], pts[11], Pt.BASE, Pt.ZERO];
  for (const p of dbls) {
    const d = norm(p.double());
    check(d.equals(p.add(p)), name + ' 2P = P + P');
    record(name + '_dbl', { p: hex(p.toBytes(true)), compressed: hex(d.toBytes(true)), uncompressed: hex(d.toBytes(false)) });
  }
}

// Valid encodings that are edge cases of the format.
function decodeSection(name, Pt, pts, W) {
  const valid = [
    [cat(Uint8Array.of(0xc0), new Uint8Array(W - 1)), Pt.ZERO, 'infinity, compressed'],
    [cat(Uint8Array.of(0x40), new Uint8Array(2 * W - 1)), Pt.ZERO, 'infinity, uncompressed'],
  ];
  const set = pts.find((q) => !q.is0() && q.toBytes(true)[0] & FLAG_S);
  const clear = pts.find((q) => !q.is0() && !(q.toBytes(true)[0] & FLAG_S));
  valid.push([set.toBytes(true), set, 'sign bit set (y lexicographically largest)']);
  valid.push([clear.toBytes(true), clear, 'sign bit clear']);
  valid.push([set.negate().toBytes(true), set.negate(), 'negation of the sign-set point: sign clear']);
  valid.push([Pt.BASE.toBytes(true), Pt.BASE, 'generator']);
  valid.push([Pt.BASE.toBytes(false), Pt.BASE, 'generator, uncompressed']);
  valid.push([Pt.BASE.negate().toBytes(false), Pt.BASE.negate(), '−generator, uncompressed']);
  for (const [enc, pt, note] of valid) {
    nobleAccepts(Pt, enc, pt);
    record(name + '_decode', {
      enc: hex(enc),
      compressed: hex(pt.toBytes(true)),
      uncompressed: hex(pt.toBytes(false)),
      note,
    });
  }
}

// A point on the curve outside the prime-order subgroup: random x with a square root,
// no cofactor clearing.
function offSubgroupG1() {
  for (;;) {
    const x = randBelow(P);
    const y = fpSqrtOrUndef(Fp.add(Fp.pow(x, 3n), 4n));
    if (y === undefined) continue;
    const pt = G1.fromAffine({ x, y });
    if (!pt.isTorsionFree()) return { x, y };
  }
}
function noSqrtXG1() {
  for (;;) {
    const x = randBelow(P);
    if (fpSqrtOrUndef(Fp.add(Fp.pow(x, 3n), 4n)) === undefined) return x;
  }
}
const B2 = Fp2.create({ c0: 4n, c1: 4n });
const randFp2 = () => Fp2.create({ c0: randBelow(P), c1: randBelow(P) });
// noble's sqrt throws on non-squares; these return undefined instead.
function fp2SqrtOrUndef(a) {
  try {
    return Fp2.sqrt(a);
  } catch {
    return undefined;
  }
}
function fpSqrtOrUndef(a) {
  try {
    return Fp.sqrt(a);
  } catch {
    return undefined;
  }
}
function offSubgroupG2() {
  for (;;) {
    const x = randFp2();
    const y = fp2SqrtOrUndef(Fp2.add(Fp2.pow(x, 3n), B2));
    if (y === undefined) continue;
    check(Fp2.eql(Fp2.sqr(y), Fp2.add(Fp2.pow(x, 3n), B2)), 'Fp2 sqrt');
    const pt = G2.fromAffine({ x, y });
    if (!pt.isTorsionFree()) return { x, y };
  }
}
function noSqrtXG2() {
  for (;;) {
    const x = randFp2();
    if (fp2SqrtOrUndef(Fp2.add(Fp2.pow(x, 3n), B2)) === undefined) return x;
  }
}

function invalid(name, Pt, decoder, enc, status, note) {
  const noble = nobleRejects(Pt, enc);
  record(name + '_invalid', { decoder, enc: hex(enc), status, note, noble_rejects: noble });
}

// A non-zero subgroup point satisfying pred: from pts, else from further random multiples.
function findPoint(Pt, pts, pred) {
  const hit = pts.find((t) => !t.is0() && pred(t));
  if (hit) return hit;
  for (;;) {
    const t = Pt.BASE.multiply(randBelow(R - 1n) + 1n);
    if (pred(t)) return t;
  }
}

function invalidG1(pts) {
  const lim = (1n << 381n) - P; // x0 + p still fits in the 381 payload bits when x0 < lim
  const q = findPoint(G1, pts, (t) => t.toAffine().x < lim);
  const { x: qx, y: qy } = q.toAffine();
  const comp = q.toBytes(true), unc = q.toBytes(false);
  const C = 'uncompress', U = 'deserialize';
  const z48 = new Uint8Array(48), z96 = new Uint8Array(96);

  // compressed (48 bytes)
  invalid('g1', G1, C, withFlags(beBytes(qx + P, 48), comp[0] & 0xe0), 'COORD_RANGE', 'x + p where x is a valid point\'s x');
  invalid('g1', G1, C, withFlags(beBytes(P, 48), FLAG_C), 'COORD_RANGE', 'x = p exactly');
  invalid('g1', G1, C, withFlags(beBytes(P, 48), FLAG_C | FLAG_S), 'COORD_RANGE', 'x = p exactly, sign set');
  invalid('g1', G1, C, withFlags(beBytes((1n << 381n) - 1n, 48), FLAG_C), 'COORD_RANGE', 'x = 2^381 - 1');
  invalid('g1', G1, C, clearFlags(comp, FLAG_C | FLAG_S), 'ENCODING_FLAGS', 'compression flag (and sign) missing on a 48-byte encoding');
  invalid('g1', G1, C, cat(Uint8Array.of(0x40), new Uint8Array(47)), 'ENCODING_FLAGS', 'infinity without the compression flag, 48 bytes');
  invalid('g1', G1, C, withFlags(z48, FLAG_C | FLAG_I | FLAG_S), 'ENCODING_FLAGS', 'sign bit on compressed infinity (0xe0)');
  invalid('g1', G1, C, cat(Uint8Array.of(0xc0), new Uint8Array(46), Uint8Array.of(1)), 'INFINITY_NONCANONICAL', 'compressed infinity, last byte 1');
  invalid('g1', G1, C, withFlags(z48, 0xc1), 'INFINITY_NONCANONICAL', 'compressed infinity, low bit of the flag byte set');
  invalid('g1', G1, C, withFlags(clearFlags(comp, 0xe0), FLAG_C | FLAG_I), 'INFINITY_NONCANONICAL', 'compressed infinity carrying a valid x');
  for (let i = 0; i < 2; i++) {
    const x = noSqrtXG1();
    invalid('g1', G1, C, withFlags(beBytes(x, 48), FLAG_C | (i ? FLAG_S : 0)), 'NOT_ON_CURVE', 'x^3 + 4 has no square root');
  }
  for (let i = 0; i < 3; i++) {
    const { x, y } = offSubgroupG1();
    invalid('g1', G1, C, rawG1(x, y, true), 'NOT_IN_SUBGROUP', 'on the curve, not in the subgroup');
    invalid('g1', G1, U, rawG1(x, y, false), 'NOT_IN_SUBGROUP', 'on the curve, not in the subgroup');
  }
  invalid('g1', G1, C, withFlags(z48, FLAG_C), 'NOT_IN_SUBGROUP', 'x = 0: (0, 2) has order 3');
  invalid('g1', G1, C, withFlags(z48, FLAG_C | FLAG_S), 'NOT_IN_SUBGROUP', 'x = 0, sign set: (0, -2) has order 3');
  invalid('g1', G1, U, cat(z48, beBytes(2n, 48)), 'NOT_IN_SUBGROUP', '(0, 2) uncompressed: order 3');

  // uncompressed (96 bytes)
  invalid('g1', G1, U, cat(beBytes(qx + P, 48), beBytes(qy, 48)), 'COORD_RANGE', 'x + p, valid y');
  invalid('g1', G1, U, cat(beBytes(qx, 48), beBytes(qy + P, 48)), 'COORD_RANGE', 'valid x, y + p');
  invalid('g1', G1, U, cat(beBytes(P, 48), beBytes(qy, 48)), 'COORD_RANGE', 'x = p exactly');
  invalid('g1', G1, U, cat(beBytes(qx, 48), beBytes(P, 48)), 'COORD_RANGE', 'y = p exactly');
  invalid('g1', G1, U, cat(beBytes(qx, 48), beBytes((1n << 384n) - 1n, 48)), 'COORD_RANGE', 'y = 2^384 - 1');
  invalid('g1', G1, U, withFlags(unc, FLAG_C), 'ENCODING_FLAGS', 'compression flag set on a 96-byte encoding');
  invalid('g1', G1, U, withFlags(unc, FLAG_S), 'ENCODING_FLAGS', 'sign bit on an uncompressed point');
  invalid('g1', G1, U, withFlags(z96, FLAG_I | FLAG_S), 'ENCODING_FLAGS', 'sign bit on uncompressed infinity (0x60)');
  invalid('g1', G1, U, cat(Uint8Array.of(0x40), new Uint8Array(94), Uint8Array.of(1)), 'INFINITY_NONCANONICAL', 'uncompressed infinity, last byte 1');
  invalid('g1', G1, U, withFlags(unc, FLAG_I), 'INFINITY_NONCANONICAL', 'uncompressed infinity carrying a valid point');
  invalid('g1', G1, U, z96, 'NOT_ON_CURVE', 'all zero without the infinity flag: (0, 0) is not on the curve');
  invalid('g1', G1, U, cat(beBytes(qx, 48), beBytes(Fp.add(qy, 1n), 48)), 'NOT_ON_CURVE', 'valid x, y + 1');
  invalid('g1', G1, U, cat(beBytes(noSqrtXG1(), 48), beBytes(qy, 48)), 'NOT_ON_CURVE', 'x without a point, some y');
}

function invalidG2(pts) {
  const lim = (1n << 381n) - P;
  const q = findPoint(G2, pts, (t) => t.toAffine().x.c1 < lim);
  const { x: qx, y: qy } = q.toAffine();
  const comp = q.toBytes(true), unc = q.toBytes(false);
  const C = 'uncompress', U = 'deserialize';
  const z96 = new Uint8Array(96), z192 = new Uint8Array(192);
  const fp2 = (c0, c1) => ({ c0, c1 });
  const enc2 = (x) => cat(beBytes(x.c1, 48), beBytes(x.c0, 48)); // allows out-of-range parts
  const sign = comp[0] & 0xe0;

  // compressed (96 bytes)
  invalid('g2', G2, C, withFlags(enc2(fp2(qx.c0, qx.c1 + P)), sign), 'COORD_RANGE', 'x.c1 + p (x.c1 of a valid point)');
  invalid('g2', G2, C, withFlags(enc2(fp2(qx.c0 + P, qx.c1)), sign), 'COORD_RANGE', 'x.c0 + p (x.c0 of a valid point)');
  invalid('g2', G2, C, withFlags(enc2(fp2(qx.c0, P)), FLAG_C), 'COORD_RANGE', 'x.c1 = p exactly');
  invalid('g2', G2, C, withFlags(enc2(fp2(P, qx.c1)), FLAG_C), 'COORD_RANGE', 'x.c0 = p exactly');
  invalid('g2', G2, C, withFlags(enc2(fp2((1n << 384n) - 1n, 0n)), FLAG_C), 'COORD_RANGE', 'x.c0 = 2^384 - 1');
  invalid('g2', G2, C, clearFlags(comp, FLAG_C | FLAG_S), 'ENCODING_FLAGS', 'compression flag (and sign) missing on a 96-byte encoding');
  invalid('g2', G2, C, cat(Uint8Array.of(0x40), new Uint8Array(95)), 'ENCODING_FLAGS', 'infinity without the compression flag, 96 bytes');
  invalid('g2', G2, C, withFlags(z96, FLAG_C | FLAG_I | FLAG_S), 'ENCODING_FLAGS', 'sign bit on compressed infinity (0xe0)');
  invalid('g2', G2, C, cat(Uint8Array.of(0xc0), new Uint8Array(94), Uint8Array.of(1)), 'INFINITY_NONCANONICAL', 'compressed infinity, last byte (x.c0) 1');
  invalid('g2', G2, C, cat(Uint8Array.of(0xc0), new Uint8Array(46), Uint8Array.of(1), new Uint8Array(48)), 'INFINITY_NONCANONICAL', 'compressed infinity, x.c1 = 1');
  invalid('g2', G2, C, withFlags(clearFlags(comp, 0xe0), FLAG_C | FLAG_I), 'INFINITY_NONCANONICAL', 'compressed infinity carrying a valid x');
  for (let i = 0; i < 2; i++) {
    const x = noSqrtXG2();
    invalid('g2', G2, C, withFlags(encFp2(x), FLAG_C | (i ? FLAG_S : 0)), 'NOT_ON_CURVE', 'x^3 + 4(u+1) has no square root');
  }
  check(fp2SqrtOrUndef(B2) === undefined, '4(u+1) is not a square');
  invalid('g2', G2, C, withFlags(z96, FLAG_C), 'NOT_ON_CURVE', 'x = 0: 4(u+1) is not a square');
  for (let i = 0; i < 3; i++) {
    const { x, y } = offSubgroupG2();
    invalid('g2', G2, C, rawG2(x, y, true), 'NOT_IN_SUBGROUP', 'on the curve, not in the subgroup');
    invalid('g2', G2, U, rawG2(x, y, false), 'NOT_IN_SUBGROUP', 'on the curve, not in the subgroup');
  }

  // uncompressed (192 bytes)
  invalid('g2', G2, U, cat(enc2(fp2(qx.c0, qx.c1 + P)), encFp2(qy)), 'COORD_RANGE', 'x.c1 + p, valid y');
  invalid('g2', G2, U, cat(enc2(fp2(qx.c0 + P, qx.c1)), encFp2(qy)), 'COORD_RANGE', 'x.c0 + p, valid y');
  invalid('g2', G2, U, cat(encFp2(qx), enc2(fp2(qy.c0, qy.c1 + P))), 'COORD_RANGE', 'valid x, y.c1 + p');
  invalid('g2', G2, U, cat(encFp2(qx), enc2(fp2(qy.c0 + P, qy.c1))), 'COORD_RANGE', 'valid x, y.c0 + p');
  invalid('g2', G2, U, cat(encFp2(qx), enc2(fp2(P, qy.c1))), 'COORD_RANGE', 'y.c0 = p exactly');
  invalid('g2', G2, U, withFlags(unc, FLAG_C), 'ENCODING_FLAGS', 'compression flag set on a 192-byte encoding');
  invalid('g2', G2, U, withFlags(unc, FLAG_S), 'ENCODING_FLAGS', 'sign bit on an uncompressed point');
  invalid('g2', G2, U, withFlags(z192, FLAG_I | FLAG_S), 'ENCODING_FLAGS', 'sign bit on uncompressed infinity (0x60)');
  invalid('g2', G2, U, cat(Uint8Array.of(0x40), new Uint8Array(190), Uint8Array.of(1)), 'INFINITY_NONCANONICAL', 'uncompressed infinity, last byte 1');
  invalid('g2', G2, U, withFlags(unc, FLAG_I), 'INFINITY_NONCANONICAL', 'uncompressed infinity carrying a valid point');
  invalid('g2', G2, U, z192, 'NOT_ON_CURVE', 'all zero without the infinity flag: (0, 0) is not on the curve');
  invalid('g2', G2, U, cat(encFp2(qx), encFp2(Fp2.add(qy, Fp2.ONE))), 'NOT_ON_CURVE', 'valid x, y + 1');
}

function pairingSection() {
  const miller = (p, q) => bls12_381.pairing(p, q, false);
  // noble's pairing is fully final-exponentiated, with the exponent that zkcrypto/bls12_381
  // uses too (its published e(G1, G2) is checked below): the hard part of Hayashida,
  // Hayasaka and Teruya (eprint 2020/875) computes 3·(p^4 − p^2 + 1)/r, so
  // e = f^(3·(p^12 − 1)/r), the cube
  // of the textbook reduced pairing (gcd(3, r) = 1: still a non-degenerate pairing into
  // the order-r subgroup). Checked here with the independent schoolbook arithmetic, and
  // that it is not the textbook power.
  const f = miller(G1.BASE, G2.BASE);
  const E = (P ** 12n - 1n) / R;
  check((P ** 12n - 1n) % R === 0n, 'r | p^12 - 1');
  const e11 = bls12_381.pairing(G1.BASE, G2.BASE);
  const textbook = wpow(toW(f), E);
  check(weq(toW(Fp12.finalExponentiate(f)), wpow(textbook, 3n)), 'final exponentiation = f^(3(p^12-1)/r)');
  check(weq(toW(e11), wpow(textbook, 3n)), 'pairing(G1, G2) = f^(3(p^12-1)/r)');
  check(!weq(toW(e11), textbook), 'pairing(G1, G2) is not the textbook power');
  // the value published with zkcrypto/pairing's tests (e(G1, G2).c0.c0.c0)
  check(e11.c0.c0.c0 === 0x1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6n,
    'e(G1, G2) matches the zkcrypto/pairing vector');
  check(!Fp12.eql(e11, Fp12.ONE), 'e(G1, G2) != 1');
  check(weq(wpow(toW(e11), R), toW(Fp12.ONE)), 'e(G1, G2)^r = 1');

  const ab = [[1n, 1n], [2n, 1n], [1n, 2n], [R - 1n, 1n]];
  for (let i = 0; i < 4; i++) ab.push([randBelow(R - 1n) + 1n, randBelow(R - 1n) + 1n]);
  for (const [a, b] of ab) {
    const p = G1.BASE.multiply(a), q = G2.BASE.multiply(b);
    const e = bls12_381.pairing(p, q);
    check(Fp12.eql(e, Fp12.pow(e11, (a * b) % R)), 'bilinearity e(aG1, bG2) = e(G1, G2)^(ab)');
    record('pairing', { a: be(a, 32), b: be(b, 32), g1: hex(p.toBytes(true)), g2: hex(q.toBytes(true)), gt: gtHex(e) });
  }

  // 3-pairing products: one random, one that multiplies to 1 (a Groth16-style check:
  // e(aG1, bG2) · e(cG1, dG2) · e(−(ab + cd)G1, G2) = 1).
  const triples = [];
  const rnd = () => randBelow(R - 1n) + 1n;
  triples.push([[rnd(), rnd()], [rnd(), rnd()], [rnd(), rnd()]]);
  const [a, b, c, d] = [rnd(), rnd(), rnd(), rnd()];
  triples.push([[a, b], [c, d], [(R - ((a * b + c * d) % R)) % R, 1n]]);
  for (const t of triples) {
    const pairs = t.map(([x, y]) => ({ g1: G1.BASE.multiply(x), g2: G2.BASE.multiply(y) }));
    const e = bls12_381.pairingBatch(pairs);
    const sum = t.reduce((s, [x, y]) => (s + x * y) % R, 0n);
    check(Fp12.eql(e, Fp12.pow(e11, sum)), 'multi-pairing = e(G1, G2)^Σ');
    const fields = { n: '3' };
    pairs.forEach((pr, i) => {
      fields['g1_' + i] = hex(pr.g1.toBytes(true));
      fields['g2_' + i] = hex(pr.g2.toBytes(true));
    });
    fields.gt = gtHex(e);
    if (sum === 0n) fields.note = 'product is 1';
    record('multi_pairing', fields);
  }
}

function fieldSection() {
  // Fp: a·b, a + b, a − b, a^−1, a² and whether a is a square (a ≠ 0 always; b may be 0).
  const fpA = [1n, 2n, P - 1n, (P - 1n) / 2n, (P + 1n) / 2n];
  while (fpA.length < 14) fpA.push(randBelow(P - 1n) + 1n);
  fpA.forEach((a, i) => {
    const b = i === 0 ? 0n : i === 1 ? P - 1n : randBelow(P);
    const isSq = fpSqrtOrUndef(a) !== undefined ? 1 : 0;
    check(isSq === (Fp.pow(a, (P - 1n) / 2n) === 1n ? 1 : 0), 'Euler criterion');
    check(Fp.mul(a, Fp.inv(a)) === 1n, 'Fp inverse');
    record('fp', {
      a: be(a, 48), b: be(b, 48),
      mul: be(Fp.mul(a, b), 48), add: be(Fp.add(a, b), 48), sub: be(Fp.sub(a, b), 48),
      sqr: be(Fp.sqr(a), 48), inv: be(Fp.inv(a), 48), is_square: String(isSq),
    });
  });
  // Fr: a·b, a + b, a − b, a^−1 (a ≠ 0).
  const frA = [1n, 2n, R - 1n, (R - 1n) / 2n, 7n];
  while (frA.length < 12) frA.push(randBelow(R - 1n) + 1n);
  frA.forEach((a, i) => {
    const b = i === 0 ? 0n : i === 1 ? R - 1n : randBelow(R);
    check(Fr.mul(a, Fr.inv(a)) === 1n, 'Fr inverse');
    record('fr', {
      a: be(a, 32), b: be(b, 32),
      mul: be(Fr.mul(a, b), 32), add: be(Fr.add(a, b), 32), sub: be(Fr.sub(a, b), 32),
      sqr: be(Fr.sqr(a), 32), inv: be(Fr.inv(a), 32),
    });
  });
  // Fp2 (each element written c1 then c0, as in point encodings): a·b, a², a^−1, is_square.
  const f2 = (x) => be(x.c1, 48) + be(x.c0, 48);
  const fp2A = [Fp2.ONE, Fp2.create({ c0: 0n, c1: 1n }), Fp2.create({ c0: 1n, c1: 1n }), Fp2.create({ c0: P - 1n, c1: 0n })];
  while (fp2A.length < 10) fp2A.push(randFp2());
  for (const a of fp2A) {
    const b = randFp2();
    const isSq = fp2SqrtOrUndef(a) !== undefined ? 1 : 0;
    // a is a square in Fp2 iff its norm is a square in Fp
    const norm = Fp.add(Fp.sqr(a.c0), Fp.sqr(a.c1));
    check(isSq === (fpSqrtOrUndef(norm) !== undefined ? 1 : 0), 'Fp2 square iff norm is a square');
    check(Fp2.eql(Fp2.mul(a, Fp2.inv(a)), Fp2.ONE), 'Fp2 inverse');
    record('fp2', { a: f2(a), b: f2(b), mul: f2(Fp2.mul(a, b)), sqr: f2(Fp2.sqr(a)), inv: f2(Fp2.inv(a)), is_square: String(isSq) });
  }
}

const HEADER = `# g16 known-answer vectors from @noble/curves ${NOBLE_VERSION} (bls12_381), an independent
# implementation. Generated by tools/vectors/gen.mjs; do not edit (tools/vectors/check.sh
# regenerates this file and compares it byte for byte).
# PRNG: splitmix64, seed 0x${SEED.toString(16)}
#
# Format: '#' lines are comments; records are runs of key=value lines separated by blank
# lines, each starting with type=<type>. Hex is lowercase big-endian without 0x: scalars
# 32 bytes, Fp 48 bytes, Fp2 96 bytes (c1 then c0), points in the zcash encoding (G1 48/96
# bytes, G2 96/192, first byte flags 0x80 compressed, 0x40 infinity, 0x20 sign of y).
# gt is an Fp12 element as 12 x 48 bytes in the order c0.c0.c0, c0.c0.c1, c0.c1.c0,
# c0.c1.c1, c0.c2.c0, c0.c2.c1, c1.c0.c0, c1.c0.c1, c1.c1.c0, c1.c1.c1, c1.c2.c0, c1.c2.c1
# (fp12 = c0 + c1 w, fp6 = c0 + c1 v + c2 v^2, fp2 = c0 + c1 u; u^2 = -1, v^3 = u+1, w^2 = v).
# Pairing values are e(P, Q) = f^(3 (p^12 - 1) / r) with f the optimal ate Miller loop
# (conjugated for x < 0): the cube of the textbook reduced pairing, as computed by
# zkcrypto/bls12_381 and noble (the hard part of eprint 2020/875 computes 3 (p^4-p^2+1)/r).
#
# Types (G is the standard generator):
#   g1_mul, g2_mul       k; compressed, uncompressed = encodings of k*G
#   g1_add, g2_add       p, q (compressed); compressed, uncompressed = encodings of p + q
#   g1_dbl, g2_dbl       p (compressed); compressed, uncompressed = encodings of 2p
#   g1_decode, g2_decode enc = a valid encoding (edge case); compressed, uncompressed = the
#                        canonical encodings of the point it decodes to; note
#   g1_invalid, g2_invalid
#                        decoder = uncompress (compressed form) | deserialize (uncompressed);
#                        enc; status = the g16 status the checked decoder must return
#                        (G16_ERR_<status>); the _unchecked decoder returns the same status,
#                        except NOT_IN_SUBGROUP, which it accepts; note; noble_rejects =
#                        the error noble's checked decoder gave for the same bytes
#   pairing              a, b; g1 = a*G1, g2 = b*G2 (compressed); gt = e(g1, g2)
#   multi_pairing        n; g1_i, g2_i (compressed, i < n); gt = prod e(g1_i, g2_i)
#   fp                   a (non-zero), b; mul, add, sub = a op b mod p; sqr = a^2; inv = 1/a;
#                        is_square = 1 when a is a square mod p, else 0
#   fr                   a (non-zero), b; mul, add, sub, sqr, inv mod r
#   fp2                  a (non-zero), b; mul = a*b, sqr = a^2, inv = 1/a, is_square
#
# Self-checks run by the generator before writing: noble's Fp12 has the tower above (and
# its multiplication equals a schoolbook product in that basis); its pairing equals
# f^(3 (p^12-1)/r) of its Miller loop f (and e(G1, G2) the zkcrypto/pairing vector); bilinearity of every pairing; k*G equals
# double-and-add; noble's checked decoder re-decodes every valid encoding and rejects
# every invalid one.
`;

function main() {
  selfCheckTower();
  const g1pts = mulSection('g1', G1, 20);
  const g2pts = mulSection('g2', G2, 20);
  addSection('g1', G1, g1pts);
  addSection('g2', G2, g2pts);
  decodeSection('g1', G1, g1pts, 48);
  decodeSection('g2', G2, g2pts, 96);
  invalidG1(g1pts);
  invalidG2(g2pts);
  pairingSection();
  fieldSection();
  const summary = Object.entries(counts).map(([t, n]) => `${t} ${n}`).join(', ');
  process.stdout.write(HEADER + '# records: ' + summary + '\n\n' + out.join('\n'));
}

main();
