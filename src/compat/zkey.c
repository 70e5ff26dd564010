/*
 * snarkjs's Groth16 .zkey (iden3 container "zkey", version 1) into a g16__zkey (groth16/zkey.h).
 *
 * Sections (integers little-endian; points affine with coordinates little-endian in Montgomery
 * form, x then y, an Fp2 as c0 then c1; the point at infinity is all zero bytes):
 *   1  protocol: u32 (1 Groth16, 2 PLONK, 10 FFLONK)
 *   2  header: u32 n8q, q, u32 n8r, r, u32 nVars, u32 nPublic, u32 domainSize,
 *      alpha_1, beta_1 (G1), beta_2, gamma_2 (G2), delta_1 (G1), delta_2 (G2)
 *   3  IC: nPublic + 1 G1 points
 *   4  coefficients: u32 count, then per entry u32 matrix (0 = A, 1 = B), u32 constraint (row),
 *      u32 signal (wire), 32-byte value stored as c·R² mod r (R = 2^256: snarkjs converts twice
 *      into Montgomery form, so that one Montgomery product with a canonical witness value
 *      gives c·w in Montgomery form); C is absent (c = a·b)
 *   5  A: nVars G1   6  B1: nVars G1   7  B2: nVars G2   8  C: nVars − nPublic − 1 G1
 *   9  H: domainSize G1   10  MPC contributions (not read)
 * Every section must have exactly the size these counts give. The points at infinity of A, B1,
 * B2 and C are then dropped (see g16__zkey.dens). The raw Montgomery coordinates are
 * exactly g16's g16_fp limbs (R = 2^384 as here), so decoding is a range check, the curve
 * equation and (unless G16_PARAMS_UNCHECKED, for A, B1, B2, C, H) the subgroup check, on all
 * threads.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "compat/iden3.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fr.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/threads.h"
#include "util/trace.h"

#define G1_BYTES 96
#define G2_BYTES 192
#define COEF_BYTES 44

static uint32_t le32(const uint8_t *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }

/* Raw Montgomery limbs of an Fp coordinate; -1 when not below p. */
static int fp_raw(g16_fp *out, const uint8_t *b)
{
    for (int i = 0; i < 6; i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--)
            v = v << 8 | b[8 * i + k];
        out->l[i] = v;
    }
    for (int i = 5; i >= 0; i--)
        if (out->l[i] != g16__fp_modulus[i])
            return out->l[i] < g16__fp_modulus[i] ? 0 : -1;
    return -1;
}

static int all_zero(const uint8_t *b, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= b[i];
    return acc == 0;
}

/* One point: G16_OK, G16_ERR_COORD_RANGE, G16_ERR_NOT_ON_CURVE or G16_ERR_NOT_IN_SUBGROUP. */
static g16_status decode_g1(g16_p1_affine *p, const uint8_t *b, int subgroup)
{
    if (all_zero(b, G1_BYTES)) {
        memset(p, 0, sizeof *p);
        return G16_OK;
    }
    if (fp_raw(&p->x, b) || fp_raw(&p->y, b + 48))
        return G16_ERR_COORD_RANGE;
    if (g16__p1_affine_is_infinity(p) || !g16__p1_affine_on_curve(p))
        return G16_ERR_NOT_ON_CURVE;
    return subgroup && !g16__p1_affine_in_subgroup(p) ? G16_ERR_NOT_IN_SUBGROUP : G16_OK;
}

static g16_status decode_g2(g16_p2_affine *p, const uint8_t *b, int subgroup)
{
    if (all_zero(b, G2_BYTES)) {
        memset(p, 0, sizeof *p);
        return G16_OK;
    }
    if (fp_raw(&p->x.c0, b) || fp_raw(&p->x.c1, b + 48) || fp_raw(&p->y.c0, b + 96) || fp_raw(&p->y.c1, b + 144))
        return G16_ERR_COORD_RANGE;
    if (g16__p2_affine_is_infinity(p) || !g16__p2_affine_on_curve(p))
        return G16_ERR_NOT_ON_CURVE;
    return subgroup && !g16__p2_affine_in_subgroup(p) ? G16_ERR_NOT_IN_SUBGROUP : G16_OK;
}

typedef struct {
    const uint8_t *src;
    void *dst;
    int g2, subgroup;
    pthread_mutex_t lock;
    uint64_t bad;
    g16_status bad_st;
} decode_job;

static void decode_range(void *ctx, size_t begin, size_t end)
{
    decode_job *j = ctx;
    for (size_t i = begin; i < end; i++) {
        g16_status st = j->g2 ? decode_g2((g16_p2_affine *)j->dst + i, j->src + i * G2_BYTES, j->subgroup)
                              : decode_g1((g16_p1_affine *)j->dst + i, j->src + i * G1_BYTES, j->subgroup);
        if (st != G16_OK) {
            pthread_mutex_lock(&j->lock);
            if (i < j->bad)
                j->bad = i, j->bad_st = st;
            pthread_mutex_unlock(&j->lock);
            return;
        }
    }
}

typedef struct {
    const g16__binfile *bf;
    g16_error *err;
    unsigned flags;
} rd;

/* Decodes n points at file offset off into dst. */
static g16_status decode_points(const rd *r, const char *name, uint64_t off, void *dst, uint64_t n, int g2,
                                int subgroup)
{
    decode_job j = {r->bf->buf + off, dst, g2, subgroup, PTHREAD_MUTEX_INITIALIZER, UINT64_MAX, G16_OK};
    g16__span sp = g16__span_begin_n(name, n);
    g16__parallel_for(n, 512, decode_range, &j);
    g16__span_end(sp);
    if (j.bad == UINT64_MAX)
        return G16_OK;
    const char *why = j.bad_st == G16_ERR_COORD_RANGE      ? "a coordinate is not below p"
                      : j.bad_st == G16_ERR_NOT_ON_CURVE   ? "not on the curve"
                                                           : "not in the prime-order subgroup";
    return g16__error(r->err, j.bad_st, "%s: %s: point %llu at byte %llu: %s", r->bf->what, name,
                      (unsigned long long)j.bad, (unsigned long long)(off + j.bad * (g2 ? G2_BYTES : G1_BYTES)), why);
}

/* Section `type` must hold exactly n points (*sec: the section). */
static g16_status check_points_section(const rd *r, uint32_t type, const char *name, uint64_t n, int g2,
                                       const g16__binsec **sec)
{
    const g16__binsec *s = NULL;
    size_t size = g2 ? G2_BYTES : G1_BYTES;
    g16_status st = g16__binfile_section(r->bf, type, name, &s, r->err);
    if (st != G16_OK)
        return st;
    if (s->size / size != n || s->size % size)
        return g16__error(r->err, s->size < n * size ? G16_ERR_TRUNCATED : G16_ERR_FORMAT,
                          "%s: section %u (%s) at byte %llu: %llu bytes, expected %llu points of %zu bytes (%llu bytes)",
                          r->bf->what, type, name, (unsigned long long)s->offset, (unsigned long long)s->size,
                          (unsigned long long)n, size, (unsigned long long)(n * size));
    *sec = s;
    return G16_OK;
}

/* Every point section's size against the header's counts, before anything is allocated: a header
 * claiming a huge domain or wire count then needs a file of that size. */
static g16_status check_all_sections(const rd *r, const g16__zkey *z)
{
    const g16__binsec *s = NULL;
    g16_status st;
    uint64_t n_priv = z->n_vars - z->n_public - 1;
    if ((st = check_points_section(r, 3, "IC", z->n_public + 1, 0, &s)) != G16_OK ||
        (st = check_points_section(r, 5, "A", z->n_vars, 0, &s)) != G16_OK ||
        (st = check_points_section(r, 6, "B1", z->n_vars, 0, &s)) != G16_OK ||
        (st = check_points_section(r, 7, "B2", z->n_vars, 1, &s)) != G16_OK ||
        (st = check_points_section(r, 8, "C", n_priv, 0, &s)) != G16_OK ||
        (st = check_points_section(r, 9, "H", z->n, 0, &s)) != G16_OK)
        return st;
    return G16_OK;
}

/* Section `type` must hold exactly n points; allocates and decodes them. */
static g16_status read_section_points(const rd *r, uint32_t type, const char *name, uint64_t n, int g2, void **out)
{
    const g16__binsec *s = NULL;
    g16_status st = check_points_section(r, type, name, n, g2, &s);
    if (st != G16_OK)
        return st;
    if (!(*out = g16__alloc_large((n ? n : 1) * (g2 ? sizeof(g16_p2_affine) : sizeof(g16_p1_affine)))))
        return g16__error(r->err, G16_ERR_NOMEM, "%s: %s: %llu points", r->bf->what, name, (unsigned long long)n);
    int subgroup = !(r->flags & G16_PARAMS_UNCHECKED) || type == 3;
    return decode_points(r, name, s->offset, *out, n, g2, subgroup);
}

static g16_status read_protocol(const rd *r)
{
    const g16__binsec *s = NULL;
    g16_status st = g16__binfile_section(r->bf, 1, "protocol", &s, r->err);
    if (st != G16_OK)
        return st;
    if (s->size != 4)
        return g16__error(r->err, G16_ERR_FORMAT, "%s: section 1 (protocol): %llu bytes, expected 4", r->bf->what,
                          (unsigned long long)s->size);
    uint32_t id = le32(r->bf->buf + s->offset);
    if (id == 1)
        return G16_OK;
    const char *name = id == 2 ? "PLONK" : id == 10 ? "FFLONK" : NULL;
    if (name)
        return g16__error(r->err, G16_ERR_UNSUPPORTED, "%s: a %s zkey (protocol %u); g16 proves Groth16 only", r->bf->what,
                          name, id);
    return g16__error(r->err, G16_ERR_FORMAT, "%s: unknown protocol %u in section 1 (Groth16 is 1)", r->bf->what, id);
}

static g16_status read_header(const rd *r, g16__zkey *zk)
{
    const g16__binsec *s = NULL;
    g16_status st = g16__binfile_section(r->bf, 2, "header", &s, r->err);
    if (st != G16_OK)
        return st;
    const uint8_t *p = r->bf->buf + s->offset;
    uint64_t size = s->size, off = 0;
    const char *what = r->bf->what;
    /* the primes first: they tell a zkey for another curve, whatever its sizes; r (the field
     * of the circuit) names the curve better than q, so it is checked first */
    if (size < 4 || le32(p) > 256 || size < 8 + (uint64_t)le32(p))
        return g16__error(r->err, G16_ERR_TRUNCATED, "%s: section 2 (header): %llu bytes", what, (unsigned long long)size);
    uint32_t n8q = le32(p);
    uint64_t at_r = 4 + (uint64_t)n8q;
    uint32_t n8r = le32(p + at_r);
    if (n8r > 256 || size < at_r + 4 + n8r)
        return g16__error(r->err, G16_ERR_TRUNCATED, "%s: section 2 (header): %llu bytes", what, (unsigned long long)size);
    if ((st = g16__check_prime(p + at_r + 4, n8r, 1, what, "header (section 2), r", r->err)) != G16_OK ||
        (st = g16__check_prime(p + 4, n8q, 0, what, "header (section 2), q", r->err)) != G16_OK)
        return st;
    off = at_r + 4 + 32; /* both primes are BLS12-381's now: n8q = 48, n8r = 32 */
    uint64_t want = off + 12 + 3 * G1_BYTES + 3 * G2_BYTES;
    if (size != want)
        return g16__error(r->err, size < want ? G16_ERR_TRUNCATED : G16_ERR_FORMAT,
                          "%s: section 2 (header) at byte %llu: %llu bytes, expected %llu", what,
                          (unsigned long long)s->offset, (unsigned long long)size, (unsigned long long)want);
    zk->n_vars = le32(p + off);
    zk->n_public = le32(p + off + 4);
    zk->n = le32(p + off + 8);
    off += 12;
    if (zk->n_vars < zk->n_public + 1)
        return g16__error(r->err, G16_ERR_FORMAT, "%s: header: %llu variables cannot hold ONE and %llu public values", what,
                          (unsigned long long)zk->n_vars, (unsigned long long)zk->n_public);
    if (zk->n == 0 || (zk->n & (zk->n - 1)))
        return g16__error(r->err, G16_ERR_FORMAT, "%s: header: domain size %llu is not a power of two", what,
                          (unsigned long long)zk->n);
    while ((1ULL << zk->log_n) < zk->n)
        zk->log_n++;
    if (zk->log_n > 28)
        return g16__error(r->err, G16_ERR_UNSUPPORTED, "%s: header: domain 2^%u (at most 2^28)", what, zk->log_n);
    uint64_t at = s->offset + off;
    struct g16_vk *vk = &zk->vk;
    if ((st = decode_points(r, "alpha_1", at, &vk->alpha_g1, 1, 0, 1)) != G16_OK ||
        (st = decode_points(r, "beta_1", at + 96, &vk->beta_g1, 1, 0, 1)) != G16_OK ||
        (st = decode_points(r, "beta_2", at + 192, &vk->beta_g2, 1, 1, 1)) != G16_OK ||
        (st = decode_points(r, "gamma_2", at + 384, &vk->gamma_g2, 1, 1, 1)) != G16_OK ||
        (st = decode_points(r, "delta_1", at + 576, &vk->delta_g1, 1, 0, 1)) != G16_OK ||
        (st = decode_points(r, "delta_2", at + 672, &vk->delta_g2, 1, 1, 1)) != G16_OK)
        return st;
    return G16_OK;
}

/* The 32 stored bytes of a coefficient as raw limbs; -1 when not below r. */
static int coef_raw(g16_fr *out, const uint8_t *b)
{
    for (int i = 0; i < 4; i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--)
            v = v << 8 | b[8 * i + k];
        out->l[i] = v;
    }
    for (int i = 3; i >= 0; i--)
        if (out->l[i] != g16__fr_modulus[i])
            return out->l[i] < g16__fr_modulus[i] ? 0 : -1;
    return -1;
}

/* Coefficients into CSR rows: a first pass checks and counts, a second places. */
static g16_status read_coefficients(const rd *r, g16__zkey *zk)
{
    const g16__binsec *s = NULL;
    const char *what = r->bf->what;
    g16_status st = g16__binfile_section(r->bf, 4, "coefficients", &s, r->err);
    if (st != G16_OK)
        return st;
    const uint8_t *p = r->bf->buf + s->offset;
    if (s->size < 4)
        return g16__error(r->err, G16_ERR_TRUNCATED, "%s: section 4 (coefficients): %llu bytes", what,
                          (unsigned long long)s->size);
    uint64_t count = le32(p);
    if (s->size != 4 + count * COEF_BYTES)
        return g16__error(r->err, s->size < 4 + count * COEF_BYTES ? G16_ERR_TRUNCATED : G16_ERR_FORMAT,
                          "%s: section 4 (coefficients) at byte %llu: %llu bytes for %llu entries of %d bytes", what,
                          (unsigned long long)s->offset, (unsigned long long)s->size, (unsigned long long)count,
                          COEF_BYTES);
    for (int m = 0; m < 2; m++)
        if (!(zk->rp[m] = g16__alloc_large_zero(zk->n + 1, sizeof(uint64_t))))
            return g16__error(r->err, G16_ERR_NOMEM, "%s: row offsets", what);
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *e = p + 4 + i * COEF_BYTES;
        uint32_t m = le32(e), row = le32(e + 4), sig = le32(e + 8);
        g16_fr raw;
        const char *why = m > 1 ? "the matrix is not 0 (A) or 1 (B)"
                          : row >= zk->n ? "the constraint is beyond the domain"
                          : sig >= zk->n_vars ? "the signal is beyond nVars"
                          : coef_raw(&raw, e + 12) ? "the value is not below r" : NULL;
        if (why)
            return g16__error(r->err, G16_ERR_FORMAT, "%s: section 4 (coefficients): entry %llu at byte %llu: %s", what,
                              (unsigned long long)i, (unsigned long long)(s->offset + 4 + i * COEF_BYTES), why);
        zk->rp[m][row + 1]++;
    }
    for (int m = 0; m < 2; m++) {
        for (uint64_t i = 0; i < zk->n; i++)
            zk->rp[m][i + 1] += zk->rp[m][i];
        zk->nnz[m] = zk->rp[m][zk->n];
        zk->col[m] = g16__alloc_large((zk->nnz[m] ? zk->nnz[m] : 1) * sizeof(uint32_t));
        zk->coeff[m] = g16__alloc_large((zk->nnz[m] ? zk->nnz[m] : 1) * sizeof(g16_fr));
        if (!zk->col[m] || !zk->coeff[m])
            return g16__error(r->err, G16_ERR_NOMEM, "%s: %llu coefficients", what, (unsigned long long)zk->nnz[m]);
    }
    uint64_t *fill[2] = {malloc(zk->n * sizeof(uint64_t)), malloc(zk->n * sizeof(uint64_t))};
    if (!fill[0] || !fill[1]) {
        free(fill[0]);
        free(fill[1]);
        return g16__error(r->err, G16_ERR_NOMEM, "%s: row cursors", what);
    }
    for (int m = 0; m < 2; m++)
        memcpy(fill[m], zk->rp[m], zk->n * sizeof(uint64_t));
    /* stored value x = c·R² mod r: as g16 limbs x means c·R, and one Montgomery product with
     * the element whose limbs are 1 (that is R^-1) gives c */
    const g16_fr r_inv = {{1, 0, 0, 0}};
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *e = p + 4 + i * COEF_BYTES;
        uint32_t m = le32(e), row = le32(e + 4);
        uint64_t k = fill[m][row]++;
        g16_fr raw;
        coef_raw(&raw, e + 12);
        zk->col[m][k] = le32(e + 8);
        g16__fr_mul(&zk->coeff[m][k], &raw, &r_inv);
    }
    free(fill[0]);
    free(fill[1]);
    return G16_OK;
}

/* Moves the points that are not infinity to the front (in order) and records which they were. */
static g16_status compact(const rd *r, void *pts, uint64_t n, int g2, uint64_t **dens, uint64_t *count)
{
    uint64_t k = 0;
    if (!(*dens = calloc((n + 63) / 64 ? (n + 63) / 64 : 1, sizeof(uint64_t))))
        return g16__error(r->err, G16_ERR_NOMEM, "%s: density bitmap of %llu bits", r->bf->what, (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++) {
        int inf = g2 ? g16__p2_affine_is_infinity((g16_p2_affine *)pts + i)
                     : g16__p1_affine_is_infinity((g16_p1_affine *)pts + i);
        if (inf)
            continue;
        (*dens)[i / 64] |= 1ULL << (i % 64);
        if (g2)
            ((g16_p2_affine *)pts)[k++] = ((g16_p2_affine *)pts)[i];
        else
            ((g16_p1_affine *)pts)[k++] = ((g16_p1_affine *)pts)[i];
    }
    *count = k;
    return G16_OK;
}

g16_status g16__zkey_read(g16__zkey *zk, const uint8_t *buf, size_t len, unsigned flags, const char *what,
                          g16_error *err)
{
    g16__binfile bf;
    g16__zkey z;
    memset(&z, 0, sizeof z);
    g16__span span = g16__span_begin("zkey.read");
    g16_status st = g16__binfile_open(&bf, buf, len, "zkey", 1, what, err);
    if (st != G16_OK)
        goto out;
    rd r = {&bf, err, flags};
    uint64_t n_priv;
    if ((st = read_protocol(&r)) != G16_OK || (st = read_header(&r, &z)) != G16_OK ||
        (st = check_all_sections(&r, &z)) != G16_OK)
        goto cleanup;
    n_priv = z.n_vars - z.n_public - 1;
    z.vk.n_ic = z.n_public + 1;
    if ((st = read_section_points(&r, 3, "IC", z.vk.n_ic, 0, (void **)&z.vk.ic)) != G16_OK ||
        (st = read_coefficients(&r, &z)) != G16_OK ||
        (st = read_section_points(&r, 5, "A", z.n_vars, 0, (void **)&z.a)) != G16_OK ||
        (st = read_section_points(&r, 6, "B1", z.n_vars, 0, (void **)&z.b1)) != G16_OK ||
        (st = read_section_points(&r, 7, "B2", z.n_vars, 1, (void **)&z.b2)) != G16_OK ||
        (st = read_section_points(&r, 8, "C", n_priv, 0, (void **)&z.c)) != G16_OK ||
        (st = read_section_points(&r, 9, "H", z.n, 0, (void **)&z.h)) != G16_OK ||
        (st = compact(&r, z.a, z.n_vars, 0, &z.dens[G16__ZK_A], &z.n_pts[G16__ZK_A])) != G16_OK ||
        (st = compact(&r, z.b1, z.n_vars, 0, &z.dens[G16__ZK_B1], &z.n_pts[G16__ZK_B1])) != G16_OK ||
        (st = compact(&r, z.b2, z.n_vars, 1, &z.dens[G16__ZK_B2], &z.n_pts[G16__ZK_B2])) != G16_OK ||
        (st = compact(&r, z.c, n_priv, 0, &z.dens[G16__ZK_C], &z.n_pts[G16__ZK_C])) != G16_OK)
        goto cleanup;
    *zk = z;
    memset(&z, 0, sizeof z);
cleanup:
    g16__zkey_free(&z);
    g16__binfile_close(&bf);
out:
    g16__span_end(span);
    return st;
}
