/*
 * Parameter and verifying-key files in bellman's layout (see include/g16.h), loaded from a
 * read-only memory map and decoded on all threads.
 *
 * Every decode error names the section, the point index and the byte offset in the file. Counts
 * are checked against the bytes that remain before anything is allocated, so a corrupt count
 * cannot trigger a huge allocation. Bytes after b_g2 (e.g. the MPC transcript that Filecoin's
 * phase-2 files carry) are allowed and ignored.
 *
 * Files from `snarkjs zkey export bellman` (snarkjs 0.7.6, src/zkey_export_bellman.js; checked on
 * exported files), for a zkey of nVars wires, nPublic public ones and domain size n:
 *   vk    as bellman's; IC = nPublic + 1 points (zkey section 3). No point at infinity.
 *   h     n − 1 points τ^i·Z(τ)/δ, i < n − 1: the export turns the zkey's H section (Lagrange basis
 *         at the odd points of the 2n domain) into this monomial form, so the h query is bellman's.
 *   l     nVars − nPublic − 1 points, one per private wire (zkey section 8).
 *   a     nVars points, one per wire (zkey section 5): NOT filtered by density; a wire with no A
 *         term has the point at infinity there. b_g1 and b_g2: likewise (sections 6 and 7).
 *   then  the MPC trailer of bellman's phase2 layout: cs_hash (64 bytes), u32 BE contribution
 *         count, per contribution delta_after, s, s·x (G1), r·delta (G2) and a 64-byte transcript.
 * The point at infinity is written as all-zero bytes (ffjavascript's LEMtoU stores zeroAffine; the
 * 0x40 infinity flag of bellman's encoding is not set), which bellman's format does not have.
 * The A, B, L and IC points are Lagrange polynomials of snarkjs's evaluation domain, whose roots
 * of unity come from 5 (bellman's from 7: the two domains agree only up to n = 4). The rows are
 * circom's constraints, then one row A = wire k per public wire k = 0 .. nPublic: the order in
 * which g16_cs_finalize appends its input constraints, so the circom circuit built with g16_cs
 * has the same rows, and bellman's H computation over snarkjs's domain gives the right scalars.
 *
 * Loading such a file is an option (G16__PARAMS_SNARKJS), not detected, because the bytes cannot
 * tell: the trailer has the same layout as bellman's phase-2 files, and an export whose wires all
 * occur in A and in B has no point at infinity at all, yet needs the other domain; a wrong guess
 * would give proofs that do not verify. The caller knows (a circom circuit: g16 prove --wtns).
 * With the option: all-zero bytes (and the flag) decode as infinity in a, b_g1 and b_g2, whose
 * points at infinity are then dropped, which gives exactly bellman's density-filtered layout
 * (bellman's setup writes the points of the wires that occur in a matrix, which are the finite
 * ones); b_g1 and b_g2 must be at infinity at the same indices. A point at infinity anywhere else
 * is refused (in l it means a wire in no constraint, which bellman-style circuits refuse). The
 * parameters remember snarkjs's domain (groth16.h: origin). Without the option an all-zero point
 * is refused with a message that names the snarkjs export.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "field/fr.h"
#include "groth16/groth16.h"
#include "groth16/zkey.h"
#include "util/alloc.h"
#include "util/bgfree.h"
#include "util/error.h"
#include "util/threads.h"
#include "util/trace.h"

uint64_t g16__vk_serialized_size(uint64_t n_ic) { return G16__VK_FIXED_BYTES + n_ic * G16__G1_UNCOMPRESSED; }

uint64_t g16__params_serialized_size(const struct g16_params *p)
{
    return g16__vk_serialized_size(p->vk.n_ic) + 5 * 4 +
           (p->n_h + p->n_l + p->n_a + p->n_b_g1) * G16__G1_UNCOMPRESSED + p->n_b_g2 * G16__G2_UNCOMPRESSED;
}

static void *alloc_points(uint64_t n, size_t size)
{
    return g16__alloc_large_zero(n ? n : 1, size);
}

g16_status g16__params_alloc(struct g16_params *p, g16_error *err)
{
    p->vk.ic = alloc_points(p->vk.n_ic, sizeof(g16_p1_affine));
    p->h = alloc_points(p->n_h, sizeof(g16_p1_affine));
    p->l = alloc_points(p->n_l, sizeof(g16_p1_affine));
    p->a = alloc_points(p->n_a, sizeof(g16_p1_affine));
    p->b_g1 = alloc_points(p->n_b_g1, sizeof(g16_p1_affine));
    p->b_g2 = alloc_points(p->n_b_g2, sizeof(g16_p2_affine));
    if (!p->vk.ic || !p->h || !p->l || !p->a || !p->b_g1 || !p->b_g2)
        return g16__error(err, G16_ERR_NOMEM, "parameters: cannot allocate %llu bytes of points",
                          (unsigned long long)g16__params_serialized_size(p));
    return G16_OK;
}

static void free_points(void *pts, uint64_t n, size_t size, const char *label)
{
    if (pts)
        g16__free_async(pts, (n ? n : 1) * size, label, g16__free_large);
}

void g16_params_destroy(g16_params *p)
{
    if (!p)
        return;
    free_points(p->vk.ic, p->vk.n_ic, sizeof(g16_p1_affine), "params.ic");
    free_points(p->h, p->n_h, sizeof(g16_p1_affine), "params.h");
    free_points(p->l, p->n_l, sizeof(g16_p1_affine), "params.l");
    free_points(p->a, p->n_a, sizeof(g16_p1_affine), "params.a");
    free_points(p->b_g1, p->n_b_g1, sizeof(g16_p1_affine), "params.b_g1");
    free_points(p->b_g2, p->n_b_g2, sizeof(g16_p2_affine), "params.b_g2");
    free(p);
}

void g16_vk_destroy(g16_vk *vk)
{
    if (!vk)
        return;
    g16__free_large(vk->ic, (vk->n_ic ? vk->n_ic : 1) * sizeof(g16_p1_affine));
    free(vk);
}

void g16_params_get_info(const g16_params *p, g16_params_info *info)
{
    info->n_ic = p->vk.n_ic;
    info->n_h = p->n_h;
    info->n_l = p->n_l;
    info->n_a = p->n_a;
    info->n_b_g1 = p->n_b_g1;
    info->n_b_g2 = p->n_b_g2;
    info->file_bytes = g16__params_serialized_size(p);
}

const g16_vk *g16_params_vk(const g16_params *p) { return &p->vk; }

const g16_fr *g16__params_root_generator(const struct g16_params *p)
{
    return p->origin == G16__ORIGIN_SNARKJS ? &p->root_gen : &g16__fr_generator;
}
uint64_t g16_vk_num_inputs(const g16_vk *vk) { return vk->n_ic; }

g16_status g16_vk_clone(g16_vk **out, const g16_vk *vk)
{
    g16_vk *c = calloc(1, sizeof *c);
    if (!c)
        return G16_ERR_NOMEM;
    *c = *vk;
    c->ic = alloc_points(vk->n_ic, sizeof(g16_p1_affine));
    if (!c->ic) {
        free(c);
        return G16_ERR_NOMEM;
    }
    memcpy(c->ic, vk->ic, vk->n_ic * sizeof(g16_p1_affine));
    *out = c;
    return G16_OK;
}

/* ---------------------------------------------------------------- reading */

typedef struct {
    const uint8_t *buf;
    size_t len, off;
    unsigned flags;
    g16_error *err;
    int drop_pages; /* buf is our private file mapping: give decoded pages back as we go */
} reader;

/* Points are decoded in windows of this many bytes; with a file mapping, each window's pages
 * are dropped (MADV_DONTNEED) once decoded, so the mapped file never adds more than a window
 * to the peak RSS on top of the decoded parameters (otherwise the peak is twice the file). */
#define DECODE_WINDOW_BYTES ((size_t)64 << 20)

static void drop_decoded(const reader *rd, size_t begin, size_t end)
{
    if (!rd->drop_pages)
        return;
    size_t page = 4096, from = (begin + page - 1) / page * page, to = end / page * page;
    if (to > from)
        madvise((void *)(rd->buf + from), to - from, MADV_DONTNEED);
}

static g16_status read_u32(reader *rd, const char *section, uint32_t *v)
{
    if (rd->len - rd->off < 4)
        return g16__error(rd->err, G16_ERR_TRUNCATED, "%s: count at byte %zu: file ends at byte %zu", section,
                          rd->off, rd->len);
    const uint8_t *b = rd->buf + rd->off;
    *v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    rd->off += 4;
    return G16_OK;
}

/* Which encodings of the point at infinity a section accepts. */
enum {
    INF_NONE = 0, /* none */
    INF_FLAG = 1, /* bellman's: the 0x40 flag (the vk's fixed points, as bellman reads them) */
    INF_ANY = 2,  /* also all-zero bytes, snarkjs's (the a, b_g1, b_g2 queries of an export) */
};

typedef struct {
    const uint8_t *src; /* first point's bytes */
    void *dst;
    int g2, inf_mode, unchecked;
    pthread_mutex_t lock;
    uint64_t bad_index; /* lowest failing index, UINT64_MAX if none */
    g16_status bad_status;
} decode_job;

static int all_zero(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i])
            return 0;
    return 1;
}

static g16_status decode_one(const decode_job *job, uint64_t i)
{
    g16_status st;
    int inf;
    size_t size = job->g2 ? G16__G2_UNCOMPRESSED : G16__G1_UNCOMPRESSED;
    const uint8_t *s = job->src + i * size;
    void *d = job->g2 ? (void *)((g16_p2_affine *)job->dst + i) : (void *)((g16_p1_affine *)job->dst + i);
    if (s[0] == 0 && s[1] == 0 && all_zero(s, size)) { /* snarkjs's infinity; (0, 0) is on no curve */
        if (job->inf_mode != INF_ANY)
            return G16_ERR_FORMAT;
        memset(d, 0, job->g2 ? sizeof(g16_p2_affine) : sizeof(g16_p1_affine));
        return G16_OK;
    }
    if (job->g2) {
        st = job->unchecked ? g16_p2_affine_deserialize_unchecked(d, s) : g16_p2_affine_deserialize(d, s);
        inf = st == G16_OK && g16__p2_affine_is_infinity(d);
    } else {
        st = job->unchecked ? g16_p1_affine_deserialize_unchecked(d, s) : g16_p1_affine_deserialize(d, s);
        inf = st == G16_OK && g16__p1_affine_is_infinity(d);
    }
    if (inf && job->inf_mode == INF_NONE)
        st = G16_ERR_FORMAT;
    return st;
}

static void decode_range(void *ctx, size_t begin, size_t end)
{
    decode_job *job = ctx;
    for (size_t i = begin; i < end; i++) {
        g16_status st = decode_one(job, i);
        if (st != G16_OK) {
            pthread_mutex_lock(&job->lock);
            if (i < job->bad_index) {
                job->bad_index = i;
                job->bad_status = st;
            }
            pthread_mutex_unlock(&job->lock);
            return; /* the lowest failure in this chunk is found; later ones cannot be lower */
        }
    }
}

/* Why a section refuses the point at infinity (for the error message). */
static const char *infinity_refusal(const reader *rd, const char *section)
{
    if (!(rd->flags & G16__PARAMS_SNARKJS))
        return "refused in a query, as bellman does";
    if (!strncmp(section, "vk.", 3))
        return "a verifying key never holds it";
    if (!strcmp(section, "h"))
        return "the h query (tau^i Z(tau)/delta) never holds it";
    return "that private variable occurs in no constraint, which circuits built as bellman builds them cannot "
           "have (prove from the zkey instead: g16 prove --zkey)";
}

/* Decodes n points of one section starting at rd->off into dst. */
static g16_status read_points(reader *rd, const char *section, void *dst, uint64_t n, int g2, int inf_mode)
{
    size_t size = g2 ? G16__G2_UNCOMPRESSED : G16__G1_UNCOMPRESSED;
    if ((rd->len - rd->off) / size < n)
        return g16__error(rd->err, G16_ERR_TRUNCATED,
                          "%s: %llu points of %zu bytes from byte %zu need %llu bytes; the file ends at byte %zu",
                          section, (unsigned long long)n, size, rd->off, (unsigned long long)(n * size), rd->len);
    decode_job job = {rd->buf + rd->off, dst, g2, inf_mode, (rd->flags & G16_PARAMS_UNCHECKED) != 0,
                      PTHREAD_MUTEX_INITIALIZER, UINT64_MAX, G16_OK};
    g16__span sp = g16__span_begin_n(section, n);
    uint64_t window = DECODE_WINDOW_BYTES / size;
    for (uint64_t i = 0; i < n && job.bad_index == UINT64_MAX; i += window) {
        uint64_t cnt = n - i < window ? n - i : window;
        job.src = rd->buf + rd->off + i * size;
        job.dst = g2 ? (void *)((g16_p2_affine *)dst + i) : (void *)((g16_p1_affine *)dst + i);
        g16__parallel_for(cnt, 1024, decode_range, &job);
        if (job.bad_index != UINT64_MAX)
            job.bad_index += i;
        drop_decoded(rd, rd->off + i * size, rd->off + (i + cnt) * size);
    }
    g16__span_end(sp);
    if (job.bad_index != UINT64_MAX) {
        size_t at = rd->off + job.bad_index * size;
        unsigned long long idx = (unsigned long long)job.bad_index;
        if (all_zero(rd->buf + at, size) && !(rd->flags & G16__PARAMS_SNARKJS))
            return g16__error(rd->err, G16_ERR_FORMAT,
                              "%s: point %llu at byte %zu: all-zero bytes, the point at infinity as `snarkjs zkey "
                              "export bellman` writes it (not an encoding of bellman's format): load the file as "
                              "a snarkjs export (g16 prove --params FILE --r1cs circuit.r1cs --wtns FILE)",
                              section, idx, at);
        if (job.bad_status == G16_ERR_FORMAT)
            return g16__error(rd->err, G16_ERR_FORMAT, "%s: point %llu at byte %zu: the point at infinity%s: %s",
                              section, idx, at, all_zero(rd->buf + at, size) ? " (all-zero bytes)" : "",
                              infinity_refusal(rd, section));
        return g16__error(rd->err, job.bad_status, "%s: point %llu at byte %zu: %s", section, idx, at,
                          g16_strerror(job.bad_status));
    }
    rd->off += n * size;
    return G16_OK;
}

static g16_status read_vk(reader *rd, struct g16_vk *vk)
{
    g16_status st;
    uint32_t n_ic = 0;
    int fixed = rd->flags & G16__PARAMS_SNARKJS ? INF_NONE : INF_FLAG;
    if ((st = read_points(rd, "vk.alpha_g1", &vk->alpha_g1, 1, 0, fixed)) != G16_OK ||
        (st = read_points(rd, "vk.beta_g1", &vk->beta_g1, 1, 0, fixed)) != G16_OK ||
        (st = read_points(rd, "vk.beta_g2", &vk->beta_g2, 1, 1, fixed)) != G16_OK ||
        (st = read_points(rd, "vk.gamma_g2", &vk->gamma_g2, 1, 1, fixed)) != G16_OK ||
        (st = read_points(rd, "vk.delta_g1", &vk->delta_g1, 1, 0, fixed)) != G16_OK ||
        (st = read_points(rd, "vk.delta_g2", &vk->delta_g2, 1, 1, fixed)) != G16_OK ||
        (st = read_u32(rd, "vk.ic", &n_ic)) != G16_OK)
        return st;
    if (n_ic == 0)
        return g16__error(rd->err, G16_ERR_FORMAT, "vk.ic: count 0 at byte %zu (at least ONE's point)", rd->off - 4);
    if ((rd->len - rd->off) / G16__G1_UNCOMPRESSED < n_ic)
        return read_points(rd, "vk.ic", NULL, n_ic, 0, INF_NONE); /* reports the truncation */
    vk->n_ic = n_ic;
    vk->ic = alloc_points(n_ic, sizeof(g16_p1_affine));
    if (!vk->ic)
        return g16__error(rd->err, G16_ERR_NOMEM, "vk.ic: %u points", n_ic);
    return read_points(rd, "vk.ic", vk->ic, n_ic, 0, INF_NONE);
}

g16_status g16_vk_load_buffer(g16_vk **out, const uint8_t *buf, size_t len, g16_error *err)
{
    g16_status st;
    reader rd = {buf, len, 0, 0, err, 0};
    struct g16_vk *vk = calloc(1, sizeof *vk);
    if (!out || (!buf && len)) {
        free(vk);
        return g16__error(err, G16_ERR_ARG, "g16_vk_load_buffer: NULL argument");
    }
    if (!vk)
        return g16__error(err, G16_ERR_NOMEM, "g16_vk_load_buffer: out of memory");
    if ((st = read_vk(&rd, vk)) != G16_OK)
        goto cleanup;
    *out = vk;
    vk = NULL;
cleanup:
    g16_vk_destroy(vk);
    return st;
}

/* One query section; *at = the byte offset of its first point. */
static g16_status read_section(reader *rd, const char *name, uint64_t *n, void **pts, int g2, int inf_mode,
                               size_t *at)
{
    uint32_t count = 0;
    g16_status st = read_u32(rd, name, &count);
    if (st != G16_OK)
        return st;
    *at = rd->off;
    size_t size = g2 ? G16__G2_UNCOMPRESSED : G16__G1_UNCOMPRESSED;
    if ((rd->len - rd->off) / size < count)
        return read_points(rd, name, NULL, count, g2, inf_mode); /* reports the truncation */
    *n = count;
    *pts = alloc_points(count, g2 ? sizeof(g16_p2_affine) : sizeof(g16_p1_affine));
    if (!*pts)
        return g16__error(rd->err, G16_ERR_NOMEM, "%s: %u points", name, count);
    return read_points(rd, name, *pts, count, g2, inf_mode);
}

/* ---------------------------------------------------------------- snarkjs exports */

static int p1_inf(const g16_p1_affine *p, uint64_t i) { return g16__p1_affine_is_infinity(&p[i]); }
static int p2_inf(const g16_p2_affine *p, uint64_t i) { return g16__p2_affine_is_infinity(&p[i]); }

/* Moves the finite points of pts[0..n) to the front, in order, into a new exact-size array
 * (the old one is freed): *n becomes their count. elem: the point size in memory. */
static g16_status drop_infinity(void **pts, uint64_t *n, size_t elem, int g2, const char *name, g16_error *err)
{
    uint64_t kept = 0;
    uint8_t *p = *pts;
    for (uint64_t i = 0; i < *n; i++) {
        if (g2 ? p2_inf(*pts, i) : p1_inf(*pts, i))
            continue;
        if (kept != i)
            memcpy(p + kept * elem, p + i * elem, elem);
        kept++;
    }
    if (kept == *n)
        return G16_OK;
    void *exact = alloc_points(kept, elem);
    if (!exact)
        return g16__error(err, G16_ERR_NOMEM, "%s: %llu points", name, (unsigned long long)kept);
    memcpy(exact, p, kept * elem);
    g16__free_large(p, (*n ? *n : 1) * elem);
    *pts = exact;
    *n = kept;
    return G16_OK;
}

/* The export's dense a, b_g1, b_g2 queries to bellman's filtered layout (see the top of the file).
 * b_at1, b_at2: the byte offsets of the b_g1 and b_g2 points (for messages). */
static g16_status snarkjs_to_filtered(struct g16_params *p, size_t b_at1, size_t b_at2, g16_error *err)
{
    g16_status st;
    p->file_n_a = p->n_a;
    p->file_n_b = p->n_b_g1;
    for (uint64_t i = 0; i < p->n_b_g1; i++) {
        int i1 = p1_inf(p->b_g1, i), i2 = p2_inf(p->b_g2, i);
        if (i1 != i2)
            return g16__error(err, G16_ERR_FORMAT,
                              "b_g1 point %llu (byte %zu) is %s but b_g2 point %llu (byte %zu) is %s: both are B's "
                              "polynomial of variable %llu at tau, so they are at infinity together or not at all",
                              (unsigned long long)i, b_at1 + i * G16__G1_UNCOMPRESSED,
                              i1 ? "at infinity" : "finite", (unsigned long long)i, b_at2 + i * G16__G2_UNCOMPRESSED,
                              i2 ? "at infinity" : "finite", (unsigned long long)i);
    }
    if ((st = drop_infinity((void **)&p->a, &p->n_a, sizeof(g16_p1_affine), 0, "a", err)) != G16_OK ||
        (st = drop_infinity((void **)&p->b_g1, &p->n_b_g1, sizeof(g16_p1_affine), 0, "b_g1", err)) != G16_OK ||
        (st = drop_infinity((void **)&p->b_g2, &p->n_b_g2, sizeof(g16_p2_affine), 1, "b_g2", err)) != G16_OK)
        return st;
    p->origin = G16__ORIGIN_SNARKJS;
    g16__zkey_root_generator(&p->root_gen);
    return G16_OK;
}

static g16_status params_parse(g16_params **out, const uint8_t *buf, size_t len, unsigned flags, int drop_pages,
                               g16_error *err)
{
    g16_status st;
    reader rd = {buf, len, 0, flags, err, drop_pages};
    struct g16_params *p = NULL;
    int snarkjs = (flags & G16__PARAMS_SNARKJS) != 0, dense = snarkjs ? INF_ANY : INF_NONE;
    size_t at[5];
    g16__span span = g16__span_begin(snarkjs ? "params.decode.snarkjs" : "params.decode");
    if (!out || (!buf && len)) {
        st = g16__error(err, G16_ERR_ARG, "g16_params_load_buffer: NULL argument");
        goto cleanup;
    }
    if (!(p = calloc(1, sizeof *p))) {
        st = g16__error(err, G16_ERR_NOMEM, "g16_params_load_buffer: out of memory");
        goto cleanup;
    }
    if ((st = read_vk(&rd, &p->vk)) != G16_OK ||
        (st = read_section(&rd, "h", &p->n_h, (void **)&p->h, 0, INF_NONE, &at[0])) != G16_OK ||
        (st = read_section(&rd, "l", &p->n_l, (void **)&p->l, 0, INF_NONE, &at[1])) != G16_OK ||
        (st = read_section(&rd, "a", &p->n_a, (void **)&p->a, 0, dense, &at[2])) != G16_OK ||
        (st = read_section(&rd, "b_g1", &p->n_b_g1, (void **)&p->b_g1, 0, dense, &at[3])) != G16_OK ||
        (st = read_section(&rd, "b_g2", &p->n_b_g2, (void **)&p->b_g2, 1, dense, &at[4])) != G16_OK)
        goto cleanup;
    if (p->n_b_g1 != p->n_b_g2) {
        st = g16__error(err, G16_ERR_FORMAT, "b_g1 has %llu points but b_g2 has %llu",
                        (unsigned long long)p->n_b_g1, (unsigned long long)p->n_b_g2);
        goto cleanup;
    }
    if (snarkjs && (st = snarkjs_to_filtered(p, at[3], at[4], err)) != G16_OK)
        goto cleanup;
    *out = p;
    p = NULL;
cleanup:
    g16_params_destroy(p);
    g16__span_end(span);
    return st;
}

g16_status g16_params_load_buffer(g16_params **out, const uint8_t *buf, size_t len, unsigned flags, g16_error *err)
{
    return params_parse(out, buf, len, flags, 0, err);
}

/* Maps a whole file read-only; *len = 0 and *map = NULL for an empty file. */
static g16_status map_file(const char *path, const uint8_t **map, size_t *len, g16_error *err)
{
    g16_status st = G16_OK;
    struct stat sb;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    *map = NULL;
    *len = 0;
    if (fd < 0)
        return g16__error(err, G16_ERR_IO, "%s: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = g16__error(err, G16_ERR_IO, "%s: not a regular file", path);
        goto cleanup;
    }
    if (sb.st_size > 0) {
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            st = g16__error(err, G16_ERR_IO, "%s: mmap: %s", path, strerror(errno));
            goto cleanup;
        }
        madvise(m, (size_t)sb.st_size, MADV_SEQUENTIAL);
        *map = m;
        *len = (size_t)sb.st_size;
    }
cleanup:
    close(fd);
    return st;
}

g16_status g16_params_load(g16_params **out, const char *path, unsigned flags, g16_error *err)
{
    const uint8_t *map;
    size_t len;
    g16__span span = g16__span_begin("params.load");
    g16_status st = map_file(path, &map, &len, err);
    if (st == G16_OK) {
        st = params_parse(out, map, len, flags, 1, err);
        if (st != G16_OK)
            g16__error_prefix(err, "%s: ", path);
        if (map)
            munmap((void *)map, len);
    }
    g16__span_end(span);
    return st;
}

g16_status g16_vk_load(g16_vk **out, const char *path, g16_error *err)
{
    const uint8_t *map;
    size_t len;
    g16_status st = map_file(path, &map, &len, err);
    if (st == G16_OK) {
        st = g16_vk_load_buffer(out, map, len, err);
        if (st != G16_OK)
            g16__error_prefix(err, "%s: ", path);
        if (map)
            munmap((void *)map, len);
    }
    return st;
}

/* ---------------------------------------------------------------- writing */

static int write_u32(FILE *f, uint64_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    return fwrite(b, 1, 4, f) == 4;
}

static int write_g1(FILE *f, const g16_p1_affine *pts, uint64_t n)
{
    uint8_t b[G16__G1_UNCOMPRESSED];
    for (uint64_t i = 0; i < n; i++) {
        g16_p1_affine_serialize(b, &pts[i]);
        if (fwrite(b, 1, sizeof b, f) != sizeof b)
            return 0;
    }
    return 1;
}

static int write_g2(FILE *f, const g16_p2_affine *pts, uint64_t n)
{
    uint8_t b[G16__G2_UNCOMPRESSED];
    for (uint64_t i = 0; i < n; i++) {
        g16_p2_affine_serialize(b, &pts[i]);
        if (fwrite(b, 1, sizeof b, f) != sizeof b)
            return 0;
    }
    return 1;
}

static int write_vk(FILE *f, const struct g16_vk *vk)
{
    return write_g1(f, &vk->alpha_g1, 1) && write_g1(f, &vk->beta_g1, 1) && write_g2(f, &vk->beta_g2, 1) &&
           write_g2(f, &vk->gamma_g2, 1) && write_g1(f, &vk->delta_g1, 1) && write_g2(f, &vk->delta_g2, 1) &&
           write_u32(f, vk->n_ic) && write_g1(f, vk->ic, vk->n_ic);
}

static int write_params(FILE *f, const struct g16_params *p)
{
    return write_vk(f, &p->vk) && write_u32(f, p->n_h) && write_g1(f, p->h, p->n_h) && write_u32(f, p->n_l) &&
           write_g1(f, p->l, p->n_l) && write_u32(f, p->n_a) && write_g1(f, p->a, p->n_a) &&
           write_u32(f, p->n_b_g1) && write_g1(f, p->b_g1, p->n_b_g1) && write_u32(f, p->n_b_g2) &&
           write_g2(f, p->b_g2, p->n_b_g2);
}

/* Writes to path.tmp and renames, so a crash never leaves a half-written file under the name. */
static g16_status save_with(const char *path, const void *obj, int (*writer)(FILE *, const void *), g16_error *err)
{
    g16_status st = G16_OK;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return g16__error(err, G16_ERR_ARG, "%s: path too long", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return g16__error(err, G16_ERR_IO, "%s: %s", tmp, strerror(errno));
    int ok = writer(f, obj);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        st = g16__error(err, G16_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        unlink(tmp);
    }
    return st;
}

static int write_params_any(FILE *f, const void *p) { return write_params(f, p); }
static int write_vk_any(FILE *f, const void *vk) { return write_vk(f, vk); }

g16_status g16_params_save(const g16_params *p, const char *path, g16_error *err)
{
    if (!p || !path)
        return g16__error(err, G16_ERR_ARG, "g16_params_save: NULL argument");
    if (p->origin == G16__ORIGIN_SNARKJS) /* bellman's format cannot say which domain they need */
        return g16__error(err, G16_ERR_UNSUPPORTED,
                          "%s: parameters from a snarkjs export need snarkjs's evaluation domain (roots of unity "
                          "from 5), which a bellman parameter file cannot record; keep the exported file", path);
    g16__span span = g16__span_begin("params.save");
    g16_status st = save_with(path, p, write_params_any, err);
    g16__span_end(span);
    return st;
}

g16_status g16_vk_save(const g16_vk *vk, const char *path, g16_error *err)
{
    if (!vk || !path)
        return g16__error(err, G16_ERR_ARG, "g16_vk_save: NULL argument");
    return save_with(path, vk, write_vk_any, err);
}
