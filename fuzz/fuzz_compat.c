/*
 * libFuzzer target for the compat readers: the strict JSON reader, snarkjs's verification_key /
 * proof / public JSON, and the iden3 .r1cs, .wtns and .zkey readers. The first byte selects the
 * reader (so one corpus covers all; fuzz/corpus/fuzz_compat holds the fixtures with their
 * selector byte). Properties beyond "never crashes, never leaks, never reads out of bounds":
 *   - every failure has a status of the reader's kind and a message;
 *   - JSON accepted once is accepted again with the same node count (no hidden state);
 *   - a snarkjs file that reads back is written and read again to the same text (canonical);
 *   - a zkey that reads has consistent rows (every column < nVars); with the selector's top bit
 *     set, a small one is also proved with a witness of ones (the proof is verified, so a bad key
 *     or witness gives G16_ERR_VERIFY_FAILED, never a crash).
 *
 * Build and run (clang):
 *   CC=clang cmake -S . -B build-fuzz -DG16_FUZZ=ON -DG16_TESTS=OFF && cmake --build build-fuzz -j2
 *   build-fuzz/fuzz_compat -max_total_time=60 build-fuzz/corpus-compat fuzz/corpus/fuzz_compat
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat/iden3.h"
#include "compat/json.h"
#include "compat/snarkjs.h"
#include "field/fr.h"
#include "groth16/zkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                                               \
    do {                                                                                                       \
        if (!(c))                                                                                              \
            abort();                                                                                           \
    } while (0)

static void failed(g16_status st, const g16_error *err)
{
    CHECK(st != G16_OK && err->status == st && err->msg[0]);
}

static void fuzz_json(const char *t, size_t n)
{
    g16__json_doc d, d2;
    g16_error err = {0};
    g16_status st = g16__json_parse(&d, t, n, "f", &err);
    if (st != G16_OK) {
        CHECK(st == G16_ERR_FORMAT || st == G16_ERR_NOMEM);
        failed(st, &err);
        return;
    }
    CHECK(g16__json_parse(&d2, t, n, "f", NULL) == G16_OK && d2.n_nodes == d.n_nodes);
    g16__json_free(&d);
    g16__json_free(&d2);
}

static void fuzz_vk(const char *t, size_t n)
{
    g16_vk *vk = NULL, *vk2 = NULL;
    g16_error err = {0};
    g16_status st = g16__snarkjs_vk_read(&vk, t, n, "vk", &err);
    if (st != G16_OK) {
        failed(st, &err);
        return;
    }
    char *s = g16__snarkjs_vk_json(vk);
    CHECK(s && g16__snarkjs_vk_read(&vk2, s, strlen(s), "vk2", NULL) == G16_OK);
    char *s2 = g16__snarkjs_vk_json(vk2);
    CHECK(s2 && !strcmp(s, s2));
    free(s);
    free(s2);
    g16_vk_destroy(vk);
    g16_vk_destroy(vk2);
}

static void fuzz_proof_public(const char *t, size_t n)
{
    g16_proof p, q;
    g16_error err = {0};
    g16_status st = g16__snarkjs_proof_read(&p, t, n, "proof", &err);
    if (st == G16_OK) {
        char *s = g16__snarkjs_proof_json(&p);
        CHECK(s && g16__snarkjs_proof_read(&q, s, strlen(s), "p2", NULL) == G16_OK);
        CHECK(!memcmp(&p, &q, sizeof p));
        free(s);
    } else {
        failed(st, &err);
    }
    g16_fr *in = NULL;
    size_t k;
    st = g16__snarkjs_public_read(&in, &k, t, n, "public", &err);
    if (st == G16_OK) {
        char *s = g16__snarkjs_public_json(in, k);
        g16_fr *in2 = NULL;
        size_t k2;
        CHECK(s && g16__snarkjs_public_read(&in2, &k2, s, strlen(s), "p2", NULL) == G16_OK && k2 == k);
        CHECK(k == 0 || !memcmp(in, in2, k * sizeof *in));
        free(in2);
        free(s);
        free(in);
    } else {
        failed(st, &err);
    }
}

static void fuzz_zkey(const uint8_t *b, size_t n, int prove)
{
    g16__zkey zk;
    g16_error err = {0};
    g16_status st = g16__zkey_read(&zk, b, n, G16_PARAMS_UNCHECKED, "z", &err);
    if (st != G16_OK) {
        failed(st, &err);
        return;
    }
    for (int m = 0; m < 2; m++)
        for (uint64_t k = 0; k < zk.nnz[m]; k++)
            CHECK(zk.col[m][k] < zk.n_vars);
    if (prove && zk.n <= 64 && zk.n_vars <= 64) {
        g16_fr w[64];
        for (uint64_t i = 0; i < zk.n_vars; i++)
            w[i] = g16__fr_one;
        g16_proof p;
        g16_fr r = g16__fr_one, s = g16__fr_one;
        g16_prove_opts po = {.r = &r, .s = &s};
        st = g16__zkey_prove(&p, &zk, w, zk.n_vars, &po, &err);
        CHECK(st == G16_OK || st == G16_ERR_VERIFY_FAILED || st == G16_ERR_ARG);
    }
    g16__zkey_free(&zk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *b = data + 1;
    size_t n = size - 1;
    g16_error err = {0};
    g16_status st;
    switch (data[0] % 6) {
    case 0:
        fuzz_json((const char *)b, n);
        break;
    case 1:
        fuzz_vk((const char *)b, n);
        break;
    case 2:
        fuzz_proof_public((const char *)b, n);
        break;
    case 3: {
        g16__r1cs_file r;
        if ((st = g16__r1cs_file_read(&r, b, n, "r", &err)) == G16_OK) {
            for (int m = 0; m < 3; m++)
                for (uint64_t k = 0; k < r.rp[m][r.n_constraints]; k++)
                    CHECK(r.wire[m][k] < r.n_wires);
            g16__r1cs_file_free(&r);
        } else {
            failed(st, &err);
        }
        break;
    }
    case 4: {
        g16_fr *w = NULL;
        size_t k;
        if ((st = g16__wtns_read(&w, &k, b, n, "w", &err)) == G16_OK)
            free(w);
        else
            failed(st, &err);
        break;
    }
    default:
        fuzz_zkey(b, n, data[0] >= 128); /* proving is slow: only when asked */
        break;
    }
    return 0;
}
