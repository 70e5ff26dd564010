pragma circom 2.1.0;

// Several public inputs: a, b, c public; x private; outputs y = a*x^2 + b*x + c and z = y * x.
template Poly() {
    signal input a;
    signal input b;
    signal input c;
    signal input x;
    signal output y;
    signal output z;
    signal x2;
    signal ax2;
    x2 <== x * x;
    ax2 <== a * x2;
    signal bx;
    bx <== b * x;
    y <== ax2 + bx + c;
    z <== y * x;
}

component main {public [a, b, c]} = Poly();
