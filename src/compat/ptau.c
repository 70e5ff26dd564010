/*
 * Test powers-of-tau files from known toxic waste: see ptau.h.
 */
#include "compat/ptau.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "field/random.h"
#include "groth16/fixed_base.h"
#include "groth16/zkey.h"
#include "poly/ntt.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/trace.h"

typedef struct {
    FILE *f;
    int ok;
} out;

static void put(out *o, const void *b, size_t n)
{
    if (o->ok && fwrite(b, 1, n, o->f) != n)
        o->ok = 0;
}

static void put32(out *o, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(o, b, 4);
}

static void put64(out *o, uint64_t v)
{
    put32(o, (uint32_t)v);
    put32(o, (uint32_t)(v >> 32));
}

static void put_section(out *o, uint32_t type, uint64_t size)
{
    put32(o, type);
    put64(o, size);
}

/* Raw Montgomery limbs, little-endian: the ptau/zkey coordinate encoding. */
static void put_fp(out *o, const g16_fp *a)
{
    uint8_t b[48];
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 8; k++)
            b[8 * i + k] = (uint8_t)(a->l[i] >> (8 * k));
    put(o, b, 48);
}

static void put_g1s(out *o, const g16_p1_affine *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        put_fp(o, &p[i].x);
        put_fp(o, &p[i].y);
    }
}

static void put_g2s(out *o, const g16_p2_affine *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        put_fp(o, &p[i].x.c0);
        put_fp(o, &p[i].x.c1);
        put_fp(o, &p[i].y.c0);
        put_fp(o, &p[i].y.c1);
    }
}

typedef struct {
    g16_fr *pw;   /* τ^i, i < 2^(power+1) */
    g16_fr *tmp;  /* scratch scalars, 2^(power+1) */
    g16_p1_affine *g1;
    g16_p2_affine *g2;
    size_t cap;   /* elements of each array */
} bufs;

/* Writes s_i·scale·G for the n scalars s (scale NULL = 1), in G1 or G2. */
static g16_status emit(out *o, bufs *b, const g16_fr *s, size_t n, const g16_fr *scale, int g2)
{
    g16_status st;
    for (size_t i = 0; i < n; i++)
        if (scale)
            g16__fr_mul(&b->tmp[i], &s[i], scale);
        else
            b->tmp[i] = s[i];
    if (g2) {
        if ((st = g16__p2_fixed_base_mul(b->g2, &g16__p2_generator_affine, b->tmp, n)) != G16_OK)
            return st;
        put_g2s(o, b->g2, n);
    } else {
        if ((st = g16__p1_fixed_base_mul(b->g1, &g16__p1_generator_affine, b->tmp, n)) != G16_OK)
            return st;
        put_g1s(o, b->g1, n);
    }
    return G16_OK;
}

/* Level k of a Lagrange section: the inverse DFT of pw[0..2^k) (top: last taken as 0) into lag. */
static g16_status lagrange_level(g16_fr *lag, const g16_fr *pw, unsigned k, int drop_last, g16_error *err)
{
    g16__ntt_domain *d = NULL;
    g16_fr gen;
    g16__zkey_root_generator(&gen);
    g16_status st = g16__ntt_domain_create(&d, k, &gen, NULL, err);
    if (st != G16_OK)
        return st;
    size_t n = (size_t)1 << k;
    memcpy(lag, pw, n * sizeof *lag);
    if (drop_last)
        g16__fr_set_zero(&lag[n - 1]);
    g16__ntt_inverse(d, lag);
    g16__ntt_domain_destroy(d);
    return G16_OK;
}

/* Section of Lagrange levels 0 .. top over pw, scaled (NULL = 1), in G1 or G2. */
static g16_status lagrange_section(out *o, bufs *b, unsigned top, int drop_top, const g16_fr *scale, int g2,
                                   g16_fr *lag, g16_error *err)
{
    g16_status st;
    for (unsigned k = 0; k <= top; k++) {
        if ((st = lagrange_level(lag, b->pw, k, drop_top && k == top, err)) != G16_OK ||
            (st = emit(o, b, lag, (size_t)1 << k, scale, g2)) != G16_OK)
            return st;
    }
    return G16_OK;
}

static g16_status write_all(out *o, unsigned power, uint64_t seed, bufs *b, g16_fr *lag, g16_error *err)
{
    g16__rng rng;
    g16_fr tau, alpha, beta;
    g16_status st;
    size_t n = (size_t)1 << power, n2 = n << 1;
    g16__rng_init_seeded(&rng, seed);
    if ((st = g16__fr_random_nonzero(&tau, &rng)) != G16_OK || (st = g16__fr_random_nonzero(&alpha, &rng)) != G16_OK ||
        (st = g16__fr_random_nonzero(&beta, &rng)) != G16_OK)
        return g16__error(err, st, "ptau: random toxic waste");
    b->pw[0] = g16__fr_one;
    for (size_t i = 1; i < n2; i++)
        g16__fr_mul(&b->pw[i], &b->pw[i - 1], &tau);
    const uint64_t g1 = 96, g2 = 192;
    static const uint8_t q_le[48] = {0xab, 0xaa, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xb9, 0xff, 0xff, 0x53, 0xb1,
                                     0xfe, 0xff, 0xab, 0x1e, 0x24, 0xf6, 0xb0, 0xf6, 0xa0, 0xd2, 0x30, 0x67,
                                     0xbf, 0x12, 0x85, 0xf3, 0x84, 0x4b, 0x77, 0x64, 0xd7, 0xac, 0x4b, 0x43,
                                     0xb6, 0xa7, 0x1b, 0x4b, 0x9a, 0xe6, 0x7f, 0x39, 0xea, 0x11, 0x01, 0x1a};
    put(o, "ptau", 4);
    put32(o, 1);
    put32(o, 11);
    put_section(o, 1, 4 + 48 + 8);
    put32(o, 48);
    put(o, q_le, 48);
    put32(o, power);
    put32(o, power);
    g16__span sp = g16__span_begin_n("ptau.powers", n2);
    put_section(o, 2, (n2 - 1) * g1);
    if ((st = emit(o, b, b->pw, n2 - 1, NULL, 0)) != G16_OK)
        goto fail;
    put_section(o, 3, n * g2);
    if ((st = emit(o, b, b->pw, n, NULL, 1)) != G16_OK)
        goto fail;
    put_section(o, 4, n * g1);
    if ((st = emit(o, b, b->pw, n, &alpha, 0)) != G16_OK)
        goto fail;
    put_section(o, 5, n * g1);
    if ((st = emit(o, b, b->pw, n, &beta, 0)) != G16_OK)
        goto fail;
    put_section(o, 6, g2);
    if ((st = emit(o, b, &g16__fr_one, 1, &beta, 1)) != G16_OK)
        goto fail;
    put_section(o, 7, 4);
    put32(o, 0);
    g16__span_end(sp);
    sp = g16__span_begin_n("ptau.lagrange", n2);
    put_section(o, 12, (2 * n2 - 1) * g1);
    if ((st = lagrange_section(o, b, power + 1, 1, NULL, 0, lag, err)) != G16_OK)
        goto fail;
    put_section(o, 13, (n2 - 1) * g2);
    if ((st = lagrange_section(o, b, power, 0, NULL, 1, lag, err)) != G16_OK)
        goto fail;
    put_section(o, 14, (n2 - 1) * g1);
    if ((st = lagrange_section(o, b, power, 0, &alpha, 0, lag, err)) != G16_OK)
        goto fail;
    put_section(o, 15, (n2 - 1) * g1);
    if ((st = lagrange_section(o, b, power, 0, &beta, 0, lag, err)) != G16_OK)
        goto fail;
    g16__span_end(sp);
    return G16_OK;
fail:
    g16__span_end(sp);
    return err && err->status == st && err->msg[0] ? st : g16__error(err, st, "ptau: computing the points");
}

g16_status g16__ptau_write_insecure(const char *path, unsigned power, uint64_t seed, g16_error *err)
{
    g16_status st = G16_OK;
    char tmp[4096];
    bufs b = {0};
    g16_fr *lag = NULL;
    out o = {NULL, 1};
    if (!path || power < 1 || power > 24)
        return g16__error(err, G16_ERR_ARG, "ptau: power %u (1 to 24)", power);
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return g16__error(err, G16_ERR_ARG, "%s: path too long", path);
    if (err)
        err->status = G16_OK, err->msg[0] = 0;
    b.cap = (size_t)2 << power;
    b.pw = g16__alloc_large(b.cap * sizeof(g16_fr));
    b.tmp = g16__alloc_large(b.cap * sizeof(g16_fr));
    b.g1 = g16__alloc_large(b.cap * sizeof(g16_p1_affine));
    b.g2 = g16__alloc_large(b.cap * sizeof(g16_p2_affine));
    lag = g16__alloc_large(b.cap * sizeof(g16_fr));
    if (!b.pw || !b.tmp || !b.g1 || !b.g2 || !lag) {
        st = g16__error(err, G16_ERR_NOMEM, "ptau: buffers for 2^%u points", power + 1);
        goto cleanup;
    }
    if (!(o.f = fopen(tmp, "wb"))) {
        st = g16__error(err, G16_ERR_IO, "%s: %s", tmp, strerror(errno));
        goto cleanup;
    }
    st = write_all(&o, power, seed, &b, lag, err);
    int closed = fclose(o.f) == 0;
    if (st == G16_OK && (!o.ok || !closed || rename(tmp, path) != 0))
        st = g16__error(err, G16_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    if (st != G16_OK)
        unlink(tmp);
cleanup:
    g16__free_large(b.pw, b.cap * sizeof(g16_fr));
    g16__free_large(b.tmp, b.cap * sizeof(g16_fr));
    g16__free_large(b.g1, b.cap * sizeof(g16_p1_affine));
    g16__free_large(b.g2, b.cap * sizeof(g16_p2_affine));
    g16__free_large(lag, b.cap * sizeof(g16_fr));
    return st;
}
