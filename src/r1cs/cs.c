/* Building constraint systems and compiling them: see r1cs.h (representation) and g16.h (rules). */
#include "r1cs/r1cs.h"

#include <stdlib.h>
#include <string.h>

#include "field/fr.h"
#include "util/alloc.h"
#include "util/bgfree.h"
#include "util/error.h"

#define AUX_INDEX(v) ((v) & ~G16_VAR_AUX)

/* Grows *p (elements of size elem, capacity *cap) to hold at least need; doubling keeps appends
 * amortized O(1). Returns 0, or −1 on overflow / allocation failure (*p unchanged). */
static int grow(void **p, uint64_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint64_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > UINT64_MAX / 2)
            return -1;
        c *= 2;
    }
    if (c > SIZE_MAX / elem)
        return -1;
    void *q = realloc(*p, (size_t)(c * elem));
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

int g16__r1cs_domain(uint64_t m, unsigned max_log_n, uint64_t *n, unsigned *log_n)
{
    unsigned k = 0;
    while (k < 63 && ((uint64_t)1 << k) < m)
        k++;
    if (k > max_log_n)
        return -1;
    *n = (uint64_t)1 << k;
    *log_n = k;
    return 0;
}

void g16__cs_set_max_log_n(g16_cs *cs, unsigned max_log_n) { cs->max_log_n = max_log_n; }

/* ---- coefficient dictionary ---- */

static uint64_t fr_hash(const g16_fr *a)
{
    /* Montgomery limbs of circuit constants look random except for small structured values
     * (powers of two): mix all limbs before taking the high bits. */
    uint64_t x = a->l[0] ^ (a->l[1] * 0x9E3779B97F4A7C15ULL) ^ (a->l[2] * 0xC2B2AE3D27D4EB4FULL) ^ a->l[3];
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ULL;
    return x ^ (x >> 32);
}

static void hash_put(uint32_t *tab, uint64_t cap, const g16_fr *coeffs, uint32_t id)
{
    uint64_t i = fr_hash(&coeffs[id]) & (cap - 1);
    while (tab[i])
        i = (i + 1) & (cap - 1);
    tab[i] = id;
}

static int hash_rebuild(g16_cs *cs, uint64_t cap)
{
    uint32_t *tab = calloc((size_t)cap, sizeof *tab);
    if (!tab)
        return -1;
    for (uint64_t id = 2; id < cs->num_coeffs; id++)
        hash_put(tab, cap, cs->coeffs, (uint32_t)id);
    free(cs->hash);
    cs->hash = tab;
    cs->hash_cap = cap;
    return 0;
}

/* The id of coefficient v (nonzero), adding it to the dictionary when new. */
static g16_status coeff_id(g16_cs *cs, const g16_fr *v, uint32_t *id)
{
    if (g16__fr_is_one(v)) {
        *id = G16__CID_ONE;
        return G16_OK;
    }
    if (g16__fr_eq(v, &cs->coeffs[G16__CID_MINUS_ONE])) {
        *id = G16__CID_MINUS_ONE;
        return G16_OK;
    }
    uint64_t h = fr_hash(v);
    for (uint64_t i = h & (cs->hash_cap - 1);; i = (i + 1) & (cs->hash_cap - 1)) {
        uint32_t got = cs->hash[i];
        if (!got)
            break;
        if (g16__fr_eq(&cs->coeffs[got], v)) {
            *id = got;
            return G16_OK;
        }
    }
    if (cs->num_coeffs >= UINT32_MAX)
        return G16_ERR_UNSUPPORTED;
    if (grow((void **)&cs->coeffs, &cs->coeffs_cap, cs->num_coeffs + 1, sizeof(g16_fr)))
        return G16_ERR_NOMEM;
    if (2 * (cs->num_coeffs + 1) > cs->hash_cap && hash_rebuild(cs, 2 * cs->hash_cap))
        return G16_ERR_NOMEM;
    uint32_t nid = (uint32_t)cs->num_coeffs++;
    cs->coeffs[nid] = *v;
    hash_put(cs->hash, cs->hash_cap, cs->coeffs, nid);
    *id = nid;
    return G16_OK;
}

/* ---- g16_cs ---- */

g16_status g16_cs_create(g16_cs **out, unsigned flags)
{
    g16_status st = G16_ERR_NOMEM;
    if (!out)
        return G16_ERR_ARG;
    *out = NULL;
    if (flags & ~G16_CS_WITNESS)
        return G16_ERR_ARG;
    g16_cs *cs = calloc(1, sizeof *cs);
    if (!cs)
        return G16_ERR_NOMEM;
    cs->flags = flags;
    cs->max_log_n = G16__R1CS_MAX_LOG_N;
    cs->rp_cap = 16; /* the three rp arrays always grow together, so they share one capacity */
    for (int k = 0; k < 3; k++) {
        if (!(cs->mat[k].rp = malloc(16 * sizeof(uint64_t))))
            goto cleanup;
        cs->mat[k].rp[0] = 0;
    }
    if (grow((void **)&cs->coeffs, &cs->coeffs_cap, 2, sizeof(g16_fr)))
        goto cleanup;
    g16__fr_set_one(&cs->coeffs[G16__CID_ONE]);
    g16__fr_neg(&cs->coeffs[G16__CID_MINUS_ONE], &g16__fr_one);
    cs->num_coeffs = 2;
    if (hash_rebuild(cs, 64))
        goto cleanup;
    g16_fr one;
    g16__fr_set_one(&one);
    g16_var v;
    st = g16_cs_alloc_input(cs, &one, &v, NULL);
    if (st)
        goto cleanup;
    *out = cs;
    return G16_OK;
cleanup:
    g16_cs_destroy(cs);
    return st;
}

void g16_cs_destroy(g16_cs *cs)
{
    if (!cs)
        return;
    for (int k = 0; k < 3; k++) {
        free(cs->mat[k].rp);
        free(cs->mat[k].e);
    }
    free(cs->in_val);
    free(cs->aux_val);
    free(cs->coeffs);
    free(cs->hash);
    free(cs->scratch);
    free(cs->scratch_cid);
    free(cs);
}

/* Refuses growth that would need a domain above 2^max_log_n (rows = constraints + inputs). */
static g16_status check_rows(const g16_cs *cs, uint64_t constraints, uint64_t inputs, g16_error *err)
{
    uint64_t n;
    unsigned log_n;
    if (g16__r1cs_domain(constraints + inputs, cs->max_log_n, &n, &log_n))
        return g16__error(err, G16_ERR_UNSUPPORTED,
                          "r1cs: %llu constraints + %llu input constraints need a domain above 2^%u, the largest NTT",
                          (unsigned long long)constraints, (unsigned long long)inputs, cs->max_log_n);
    return G16_OK;
}

static g16_status alloc_var(g16_cs *cs, int aux, const g16_fr *value, g16_var *out, g16_error *err)
{
    if (!cs || !out)
        return g16__error(err, G16_ERR_ARG, "r1cs: NULL argument");
    if (cs->finalized)
        return g16__error(err, G16_ERR_ARG, "r1cs: the constraint system is finalized");
    int wit = (cs->flags & G16_CS_WITNESS) != 0;
    if (wit && !value)
        return g16__error(err, G16_ERR_ARG, "r1cs: a witness-recording cs needs a value for every variable");
    uint64_t *count = aux ? &cs->num_aux : &cs->num_inputs;
    if (cs->num_inputs + cs->num_aux >= G16__R1CS_MAX_VARS)
        return g16__error(err, G16_ERR_UNSUPPORTED, "r1cs: more than 2^30 − 1 variables");
    if (!aux) {
        g16_status st = check_rows(cs, cs->num_constraints, cs->num_inputs + 1, err);
        if (st)
            return st;
    }
    if (wit) {
        g16_fr **vals = aux ? &cs->aux_val : &cs->in_val;
        uint64_t *cap = aux ? &cs->aux_cap : &cs->in_cap;
        if (grow((void **)vals, cap, *count + 1, sizeof(g16_fr)))
            return g16__error(err, G16_ERR_NOMEM, "r1cs: out of memory for variable values");
        (*vals)[*count] = *value;
    }
    *out = (g16_var)(*count) | (aux ? G16_VAR_AUX : 0);
    (*count)++;
    return G16_OK;
}

g16_status g16_cs_alloc_input(g16_cs *cs, const g16_fr *value, g16_var *out, g16_error *err)
{
    return alloc_var(cs, 0, value, out, err);
}

g16_status g16_cs_alloc_aux(g16_cs *cs, const g16_fr *value, g16_var *out, g16_error *err)
{
    return alloc_var(cs, 1, value, out, err);
}

static int var_known(const g16_cs *cs, g16_var v)
{
    return (v & G16_VAR_AUX) ? AUX_INDEX(v) < cs->num_aux : v < cs->num_inputs;
}

g16_status g16_cs_value(const g16_cs *cs, g16_var v, g16_fr *out)
{
    if (!cs || !out || !(cs->flags & G16_CS_WITNESS) || !var_known(cs, v))
        return G16_ERR_ARG;
    *out = (v & G16_VAR_AUX) ? cs->aux_val[AUX_INDEX(v)] : cs->in_val[v];
    return G16_OK;
}

uint64_t g16_cs_num_inputs(const g16_cs *cs) { return cs ? cs->num_inputs : 0; }
uint64_t g16_cs_num_aux(const g16_cs *cs) { return cs ? cs->num_aux : 0; }
uint64_t g16_cs_num_constraints(const g16_cs *cs) { return cs ? cs->num_constraints : 0; }

/* ---- linear combinations ---- */

g16_status g16_lc_create(g16_lc **out)
{
    if (!out)
        return G16_ERR_ARG;
    *out = calloc(1, sizeof **out);
    return *out ? G16_OK : G16_ERR_NOMEM;
}

void g16_lc_destroy(g16_lc *lc)
{
    if (!lc)
        return;
    free(lc->t);
    free(lc);
}

void g16_lc_clear(g16_lc *lc)
{
    if (lc)
        lc->len = 0;
}

static g16_status lc_reserve(g16_lc *lc, size_t extra)
{
    if (lc->len + extra < lc->len)
        return G16_ERR_NOMEM;
    uint64_t cap = lc->cap;
    if (grow((void **)&lc->t, &cap, lc->len + extra, sizeof(g16__term)))
        return G16_ERR_NOMEM;
    lc->cap = (size_t)cap;
    return G16_OK;
}

g16_status g16_lc_add(g16_lc *lc, g16_var v, const g16_fr *coeff)
{
    if (!lc)
        return G16_ERR_ARG;
    if (lc_reserve(lc, 1))
        return G16_ERR_NOMEM;
    g16__term *t = &lc->t[lc->len++];
    t->var = v;
    if (coeff)
        t->coeff = *coeff;
    else
        g16__fr_set_one(&t->coeff);
    return G16_OK;
}

g16_status g16_lc_sub(g16_lc *lc, g16_var v, const g16_fr *coeff)
{
    if (!lc)
        return G16_ERR_ARG;
    g16_fr neg;
    g16__fr_neg(&neg, coeff ? coeff : &g16__fr_one);
    return g16_lc_add(lc, v, &neg);
}

g16_status g16_lc_add_lc(g16_lc *lc, const g16_lc *other, const g16_fr *scale)
{
    if (!lc || !other)
        return G16_ERR_ARG;
    size_t n = other->len; /* other may be lc: copy only the terms present now */
    if (lc_reserve(lc, n))
        return G16_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        g16__term t = other->t[i];
        if (scale)
            g16__fr_mul(&t.coeff, &t.coeff, scale);
        lc->t[lc->len++] = t;
    }
    return G16_OK;
}

/* ---- enforce ---- */

static int term_cmp(const void *pa, const void *pb)
{
    const g16__term *a = pa, *b = pb;
    return (a->var > b->var) - (a->var < b->var);
}

static void sort_terms(g16__term *t, size_t n)
{
    size_t i = 1;
    while (i < n && t[i - 1].var < t[i].var) /* gadgets usually add terms in order */
        i++;
    if (i >= n)
        return;
    if (n > 24) {
        qsort(t, n, sizeof *t, term_cmp);
        return;
    }
    for (; i < n; i++) {
        g16__term x = t[i];
        size_t j = i;
        for (; j > 0 && t[j - 1].var > x.var; j--)
            t[j] = t[j - 1];
        t[j] = x;
    }
}

/* Copies lc into scratch at *pos, validated, sorted, merged, zero terms dropped, coefficient ids
 * assigned; advances *pos by the normalized length and stores it in *len. */
/* G16_ERR_ARG naming the first term of lc whose variable is not allocated. */
static g16_status check_vars(const g16_cs *cs, const g16_lc *lc, char name, g16_error *err)
{
    for (size_t i = 0; lc && i < lc->len; i++) {
        g16_var v = lc->t[i].var;
        if (!var_known(cs, v))
            return g16__error(err, G16_ERR_ARG, "r1cs: constraint %llu, lc %c term %zu: %s variable %u is not allocated",
                              (unsigned long long)cs->num_constraints, name, i, (v & G16_VAR_AUX) ? "aux" : "input",
                              (unsigned)AUX_INDEX(v));
    }
    return G16_OK;
}

/* Variables must have been checked (check_vars). */
static g16_status normalize(g16_cs *cs, const g16_lc *lc, size_t *pos, uint64_t *len, g16_error *err)
{
    *len = 0;
    if (!lc || lc->len == 0)
        return G16_OK;
    g16__term *t = cs->scratch + *pos;
    for (size_t i = 0; i < lc->len; i++)
        t[i] = lc->t[i];
    sort_terms(t, lc->len);
    size_t out = 0;
    for (size_t i = 0; i < lc->len;) {
        g16__term acc = t[i++];
        while (i < lc->len && t[i].var == acc.var)
            g16__fr_add(&acc.coeff, &acc.coeff, &t[i++].coeff);
        if (!g16__fr_is_zero(&acc.coeff))
            t[out++] = acc;
    }
    for (size_t i = 0; i < out; i++) {
        g16_status st = coeff_id(cs, &t[i].coeff, &cs->scratch_cid[*pos + i]);
        if (st)
            return g16__error(err, st, "r1cs: constraint %llu: %s", (unsigned long long)cs->num_constraints,
                              st == G16_ERR_NOMEM ? "out of memory for the coefficient dictionary"
                                                  : "more than 2^32 distinct coefficients");
    }
    *pos += out;
    *len = out;
    return G16_OK;
}

static g16_status reserve_constraint(g16_cs *cs, const uint64_t len[3])
{
    for (int k = 0; k < 3; k++)
        if (grow((void **)&cs->mat[k].e, &cs->mat[k].e_cap, cs->mat[k].nnz + len[k], 2 * sizeof(uint32_t)))
            return G16_ERR_NOMEM;
    uint64_t need = cs->num_constraints + 2;
    if (need > cs->rp_cap) {
        for (int k = 0; k < 3; k++) {
            uint64_t cap = cs->rp_cap;
            if (grow((void **)&cs->mat[k].rp, &cap, need, sizeof(uint64_t)))
                return G16_ERR_NOMEM; /* earlier arrays may be larger: harmless */
            if (k == 2)
                cs->rp_cap = cap;
        }
    }
    return G16_OK;
}

/* Appends one normalized row per matrix (cannot fail: capacity reserved). */
static void append_row(g16_cs *cs, const g16__term *t, const uint32_t *cid, const uint64_t len[3])
{
    size_t pos = 0;
    for (int k = 0; k < 3; k++) {
        g16__cs_mat *m = &cs->mat[k];
        for (uint64_t i = 0; i < len[k]; i++, pos++) {
            m->e[2 * m->nnz] = t[pos].var;
            m->e[2 * m->nnz + 1] = cid[pos];
            m->nnz++;
        }
        m->rp[cs->num_constraints + 1] = m->nnz;
    }
    cs->num_constraints++;
}

g16_status g16_cs_enforce(g16_cs *cs, const g16_lc *a, const g16_lc *b, const g16_lc *c, g16_error *err)
{
    if (!cs)
        return g16__error(err, G16_ERR_ARG, "r1cs: NULL constraint system");
    if (cs->finalized)
        return g16__error(err, G16_ERR_ARG, "r1cs: the constraint system is finalized");
    g16_status st = check_rows(cs, cs->num_constraints + 1, cs->num_inputs, err);
    if (st)
        return st;
    const g16_lc *lcs[3] = {a, b, c};
    uint64_t total = 0;
    for (int k = 0; k < 3; k++)
        total += lcs[k] ? lcs[k]->len : 0;
    if (total > cs->scratch_cap) {
        uint64_t cap1 = cs->scratch_cap, cap2 = cs->scratch_cap;
        if (grow((void **)&cs->scratch, &cap1, total, sizeof(g16__term)) ||
            grow((void **)&cs->scratch_cid, &cap2, total, sizeof(uint32_t)))
            return g16__error(err, G16_ERR_NOMEM, "r1cs: out of memory for a constraint of %llu terms",
                              (unsigned long long)total);
        cs->scratch_cap = (size_t)(cap1 < cap2 ? cap1 : cap2);
    }
    for (int k = 0; k < 3; k++) /* before anything changes, the dictionary included */
        if ((st = check_vars(cs, lcs[k], (char)('A' + k), err)))
            return st;
    size_t pos = 0;
    uint64_t len[3];
    for (int k = 0; k < 3; k++) {
        st = normalize(cs, lcs[k], &pos, &len[k], err);
        if (st)
            return st;
    }
    if (reserve_constraint(cs, len))
        return g16__error(err, G16_ERR_NOMEM, "r1cs: out of memory at constraint %llu",
                          (unsigned long long)cs->num_constraints);
    append_row(cs, cs->scratch, cs->scratch_cid, len);
    return G16_OK;
}

/* ---- compiled form ---- */

g16_status g16__r1cs_alloc_density(struct g16_r1cs *r)
{
    uint64_t bits[3] = {r->num_aux, r->num_inputs, r->num_aux};
    for (int k = 0; k < 3; k++) {
        r->density[k] = calloc((size_t)g16__bitmap_words(bits[k]) + 1, sizeof(uint64_t));
        if (!r->density[k])
            return G16_ERR_NOMEM;
    }
    return G16_OK;
}

static void bit_set(uint64_t *map, uint64_t i, uint64_t *count)
{
    uint64_t m = (uint64_t)1 << (i & 63);
    if (!(map[i >> 6] & m)) {
        map[i >> 6] |= m;
        if (count)
            (*count)++;
    }
}

/* The first zero bit among the first nbits of map, or UINT64_MAX. */
static uint64_t first_clear(const uint64_t *map, uint64_t nbits)
{
    for (uint64_t w = 0; w < g16__bitmap_words(nbits); w++) {
        uint64_t want = (w + 1) * 64 <= nbits ? ~(uint64_t)0 : ((uint64_t)1 << (nbits & 63)) - 1;
        if (map[w] != want)
            return w * 64 + (uint64_t)__builtin_ctzll(~map[w] & want);
    }
    return UINT64_MAX;
}

uint64_t g16__r1cs_scan_density(struct g16_r1cs *r, uint64_t *used)
{
    for (int k = 0; k < 3; k++)
        r->density_count[k] = 0;
    for (int k = 0; k < 3; k++) {
        const g16__csr *m = &r->mat[k];
        for (uint64_t i = 0; i < m->nwords;) {
            uint32_t cid, col = g16__csr_next(m, &i, &cid);
            int aux = col >= r->num_inputs;
            uint64_t idx = aux ? col - r->num_inputs : col;
            if (aux)
                bit_set(used, idx, NULL);
            if (k == G16_MATRIX_A && aux)
                bit_set(r->density[G16__DENS_A_AUX], idx, &r->density_count[G16__DENS_A_AUX]);
            else if (k == G16_MATRIX_B)
                bit_set(r->density[aux ? G16__DENS_B_AUX : G16__DENS_B_INPUT], idx,
                        &r->density_count[aux ? G16__DENS_B_AUX : G16__DENS_B_INPUT]);
        }
    }
    return first_clear(used, r->num_aux);
}

uint64_t g16__r1cs_memory(const struct g16_r1cs *r)
{
    uint64_t b = sizeof *r + r->num_coeffs * sizeof(g16_fr);
    for (int k = 0; k < 3; k++) {
        const g16__csr *m = &r->mat[k];
        b += m->nwords * sizeof(uint32_t) + (r->num_constraints + 1) * (m->rp32 ? 4 : 8);
    }
    b += 8 * (2 * g16__bitmap_words(r->num_aux) + g16__bitmap_words(r->num_inputs) + 3);
    return b;
}

/* Big arrays go to the background freeing thread: a 2^27-row circuit holds ~4.5 GB whose
 * munmap would otherwise stall the caller (util/bgfree.h). */
static void release(void *p, uint64_t bytes)
{
    if (p && bytes >= G16__ALLOC_MMAP_MIN)
        g16__free_async(p, (size_t)bytes, "r1cs", NULL);
    else
        free(p);
}

void g16_r1cs_destroy(g16_r1cs *r)
{
    if (!r)
        return;
    for (int k = 0; k < 3; k++) {
        release(r->mat[k].rp32, (r->num_constraints + 1) * sizeof(uint32_t));
        release(r->mat[k].rp64, (r->num_constraints + 1) * sizeof(uint64_t));
        release(r->mat[k].w, r->mat[k].nwords * sizeof(uint32_t));
        free(r->density[k]);
    }
    free(r->coeffs);
    free(r);
}

/* Before anything changes: the first aux that occurs in no matrix (UINT64_MAX if none), and the
 * packed size of each matrix once the input constraints are added. used: zeroed, num_aux bits. */
static uint64_t finalize_scan(const g16_cs *cs, uint64_t *used, uint64_t nwords[3])
{
    for (int k = 0; k < 3; k++) {
        const g16__cs_mat *m = &cs->mat[k];
        nwords[k] = m->nnz + (k == G16_MATRIX_A ? cs->num_inputs : 0);
        for (uint64_t i = 0; i < m->nnz; i++) {
            uint32_t v = m->e[2 * i];
            if (v & G16_VAR_AUX)
                bit_set(used, AUX_INDEX(v), NULL);
            nwords[k] += m->e[2 * i + 1] > G16__CID_MINUS_ONE;
        }
    }
    return first_clear(used, cs->num_aux);
}

/* Allocations of finalize that must succeed before cs is touched. */
static g16_status finalize_alloc(g16_cs *cs, g16_r1cs *r, uint64_t m, const uint64_t nwords[3])
{
    if (grow((void **)&cs->mat[G16_MATRIX_A].e, &cs->mat[G16_MATRIX_A].e_cap,
             cs->mat[G16_MATRIX_A].nnz + cs->num_inputs, 2 * sizeof(uint32_t)))
        return G16_ERR_NOMEM;
    for (int k = 0; k < 3; k++) {
        uint64_t cap = cs->rp_cap;
        if (grow((void **)&cs->mat[k].rp, &cap, m + 1, sizeof(uint64_t)))
            return G16_ERR_NOMEM;
        if (nwords[k] <= UINT32_MAX && !(r->mat[k].rp32 = malloc((size_t)(m + 1) * sizeof(uint32_t))))
            return G16_ERR_NOMEM;
    }
    return g16__r1cs_alloc_density(r);
}

/* Packs one building matrix in place: pairs (handle, id) become packed words with columns, and
 * rp (entry offsets) becomes word offsets. Entry i is read before anything at or past its pair
 * (words 2i, 2i + 1) is written, and the output cursor never passes 2i + 2. */
static uint64_t pack_matrix(g16__cs_mat *src, uint64_t rows, uint64_t num_inputs)
{
    uint32_t *w = src->e;
    uint64_t out = 0, e = 0;
    for (uint64_t row = 0; row < rows; row++) {
        uint64_t end = src->rp[row + 1];
        for (; e < end; e++) {
            uint32_t v = src->e[2 * e], cid = src->e[2 * e + 1];
            uint32_t col = (v & G16_VAR_AUX) ? (uint32_t)(num_inputs + AUX_INDEX(v)) : v;
            g16__csr_put(w, &out, col, cid);
        }
        src->rp[row + 1] = out;
    }
    return out;
}

/* The part of finalize that cannot fail: input constraints, packing, moving the arrays. */
static void finalize_move(g16_cs *cs, g16_r1cs *r, uint64_t m)
{
    g16__cs_mat *a = &cs->mat[G16_MATRIX_A];
    for (uint64_t k = 0; k < cs->num_inputs; k++) {
        a->e[2 * a->nnz] = (uint32_t)k;
        a->e[2 * a->nnz + 1] = G16__CID_ONE;
        a->nnz++;
        for (int j = 0; j < 3; j++)
            cs->mat[j].rp[cs->num_constraints + k + 1] = cs->mat[j].nnz;
    }
    for (int k = 0; k < 3; k++) {
        g16__cs_mat *src = &cs->mat[k];
        g16__csr *dst = &r->mat[k];
        dst->nnz = src->nnz;
        dst->nwords = pack_matrix(src, m, cs->num_inputs);
        if (dst->rp32) {
            for (uint64_t i = 0; i <= m; i++)
                dst->rp32[i] = (uint32_t)src->rp[i];
            free(src->rp);
        } else {
            dst->rp64 = src->rp;
        }
        src->rp = NULL;
        /* give back the doubling slack and what packing saved; a failed shrink keeps the block */
        if (dst->nwords) {
            uint32_t *w = realloc(src->e, (size_t)dst->nwords * sizeof *w);
            dst->w = w ? w : src->e;
        } else {
            free(src->e);
        }
        src->e = NULL;
    }
    g16_fr *c = realloc(cs->coeffs, (size_t)cs->num_coeffs * sizeof *c);
    r->coeffs = c ? c : cs->coeffs;
    r->num_coeffs = cs->num_coeffs;
    cs->coeffs = NULL;
    free(cs->hash);
    cs->hash = NULL;
    free(cs->scratch);
    free(cs->scratch_cid);
    cs->scratch = NULL;
    cs->scratch_cid = NULL;
    cs->finalized = 1;
}

g16_status g16_cs_finalize(g16_cs *cs, g16_r1cs **out, g16_error *err)
{
    g16_status st;
    uint64_t *used = NULL;
    g16_r1cs *r = NULL;
    if (!cs || !out)
        return g16__error(err, G16_ERR_ARG, "r1cs: NULL argument");
    *out = NULL;
    if (cs->finalized)
        return g16__error(err, G16_ERR_ARG, "r1cs: the constraint system is already finalized");
    uint64_t m = cs->num_constraints + cs->num_inputs, nwords[3];
    if ((st = check_rows(cs, cs->num_constraints, cs->num_inputs, err)))
        return st;
    size_t used_words = (size_t)g16__bitmap_words(cs->num_aux) + 1;
    if (!(used = calloc(used_words, sizeof *used)) || !(r = calloc(1, sizeof *r))) {
        st = g16__error(err, G16_ERR_NOMEM, "r1cs: out of memory");
        goto cleanup;
    }
    uint64_t lone = finalize_scan(cs, used, nwords);
    if (lone != UINT64_MAX) {
        st = g16__error(err, G16_ERR_ARG,
                        "r1cs: aux variable %llu occurs in no constraint (bellman's setup refuses unconstrained "
                        "variables)",
                        (unsigned long long)lone);
        goto cleanup;
    }
    r->num_inputs = cs->num_inputs;
    r->num_aux = cs->num_aux;
    r->num_constraints = m;
    g16__r1cs_domain(m, G16__R1CS_MAX_LOG_N, &r->n, &r->log_n);
    if ((st = finalize_alloc(cs, r, m, nwords))) {
        st = g16__error(err, st, "r1cs: out of memory finalizing %llu rows", (unsigned long long)m);
        goto cleanup;
    }
    finalize_move(cs, r, m);
    memset(used, 0, used_words * sizeof *used);
    g16__r1cs_scan_density(r, used); /* every aux occurs: checked above */
    *out = r;
    r = NULL;
cleanup:
    free(used);
    g16_r1cs_destroy(r);
    return st;
}

g16_status g16_cs_witness(const g16_cs *cs, g16_fr *w, size_t w_len, g16_error *err)
{
    if (!cs || (!w && w_len))
        return g16__error(err, G16_ERR_ARG, "r1cs: NULL argument");
    if (!(cs->flags & G16_CS_WITNESS))
        return g16__error(err, G16_ERR_ARG, "r1cs: the cs was created without G16_CS_WITNESS");
    if (w_len != cs->num_inputs + cs->num_aux)
        return g16__error(err, G16_ERR_SIZE_MISMATCH, "r1cs: witness buffer has %zu elements, the cs has %llu",
                          w_len, (unsigned long long)(cs->num_inputs + cs->num_aux));
    memcpy(w, cs->in_val, (size_t)cs->num_inputs * sizeof *w);
    if (cs->num_aux)
        memcpy(w + cs->num_inputs, cs->aux_val, (size_t)cs->num_aux * sizeof *w);
    return G16_OK;
}

/* ---- reading the compiled form ---- */

void g16_r1cs_get_info(const g16_r1cs *r, g16_r1cs_info *info)
{
    if (!r || !info)
        return;
    memset(info, 0, sizeof *info);
    info->num_inputs = r->num_inputs;
    info->num_aux = r->num_aux;
    info->num_constraints = r->num_constraints;
    info->domain_size = r->n;
    info->log_domain_size = r->log_n;
    for (int k = 0; k < 3; k++) {
        info->nnz[k] = r->mat[k].nnz;
        info->density[k] = r->density_count[k];
    }
    info->num_coeffs = r->num_coeffs;
    info->memory_bytes = g16__r1cs_memory(r);
}

g16_status g16_r1cs_row(const g16_r1cs *r, g16_matrix m, uint64_t row, uint32_t *cols, g16_fr *coeffs, size_t cap,
                        size_t *len)
{
    if (!r || (unsigned)m > 2 || row >= r->num_constraints || !len || (cap && (!cols || !coeffs)))
        return G16_ERR_ARG;
    const g16__csr *mat = &r->mat[m];
    size_t n = 0;
    for (uint64_t k = g16__csr_rp(mat, row), hi = g16__csr_rp(mat, row + 1); k < hi; n++) {
        uint32_t cid, col = g16__csr_next(mat, &k, &cid);
        if (n < cap) {
            cols[n] = col;
            coeffs[n] = r->coeffs[cid];
        }
    }
    *len = n;
    return G16_OK;
}

const uint64_t *g16_r1cs_density(const g16_r1cs *r, g16_density which, uint64_t *nbits)
{
    if (!r || (unsigned)which > 2)
        return NULL;
    if (nbits)
        *nbits = which == G16_DENSITY_B_INPUT ? r->num_inputs : r->num_aux;
    return r->density[which];
}
