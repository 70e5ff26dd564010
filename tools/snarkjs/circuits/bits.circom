pragma circom 2.1.0;

// Boolean-heavy, like Filecoin's SHA-256 gadgets: W private 64-bit words are decomposed into bits,
// mixed with XOR and AND of their neighbours, packed back and combined with a public salt.
// Constraints: W * (65 + 64 + 64 + 1) + 2 (W = 96: 18626, above 2^14); witness mostly 0 and 1.

template Bits(n) {
    signal input in;
    signal output out[n];
    var acc = 0;
    var e = 1;
    for (var i = 0; i < n; i++) {
        out[i] <-- (in >> i) & 1;
        out[i] * (out[i] - 1) === 0;
        acc += out[i] * e;
        e = e + e;
    }
    acc === in;
}

template Xor(n) {
    signal input a[n];
    signal input b[n];
    signal output c[n];
    for (var i = 0; i < n; i++) {
        c[i] <== a[i] + b[i] - 2 * a[i] * b[i];
    }
}

template And(n) {
    signal input a[n];
    signal input b[n];
    signal output c[n];
    for (var i = 0; i < n; i++) {
        c[i] <== a[i] * b[i];
    }
}

template Pack(n) {
    signal input in[n];
    signal output out;
    var acc = 0;
    var e = 1;
    for (var i = 0; i < n; i++) {
        acc += in[i] * e;
        e = e + e;
    }
    out <== acc;
}

template Mix(W) {
    signal input w[W];
    signal input salt;
    signal output digest;
    component bits[W];
    component x[W];
    component y[W];
    component p[W];
    for (var i = 0; i < W; i++) {
        bits[i] = Bits(64);
        bits[i].in <== w[i];
    }
    var sum = 0;
    for (var i = 0; i < W; i++) {
        x[i] = Xor(64);
        y[i] = And(64);
        p[i] = Pack(64);
        for (var j = 0; j < 64; j++) {
            x[i].a[j] <== bits[i].out[j];
            x[i].b[j] <== bits[(i + 1) % W].out[(j + 7) % 64];
        }
        for (var j = 0; j < 64; j++) {
            y[i].a[j] <== x[i].c[j];
            y[i].b[j] <== bits[(i + 2) % W].out[(j + 19) % 64];
        }
        for (var j = 0; j < 64; j++) {
            p[i].in[j] <== y[i].c[j];
        }
        sum += p[i].out * (i + 1);
    }
    signal total;
    total <== sum;
    digest <== total * salt;
}

component main {public [salt]} = Mix(96);
