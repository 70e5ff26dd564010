pragma circom 2.1.0;

include "chain.circom";

// 100 rounds: 300 constraints, domain 2^9.
component main {public [x]} = Chain(100);
