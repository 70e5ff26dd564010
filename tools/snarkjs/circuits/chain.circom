pragma circom 2.1.0;

// Full-size field values: N rounds of s' = (s + k + c_i)^5 (three constraints a round), from a
// public start x with a private key k; the public output y is the last state.
template Chain(N) {
    signal input x;
    signal input k;
    signal output y;
    signal s[N + 1];
    signal t2[N];
    signal t4[N];
    s[0] <== x;
    for (var i = 0; i < N; i++) {
        var c = i * i * 7 + i * 13 + 5;
        t2[i] <== (s[i] + k + c) * (s[i] + k + c);
        t4[i] <== t2[i] * t2[i];
        s[i + 1] <== t4[i] * (s[i] + k + c);
    }
    y <== s[N];
}
