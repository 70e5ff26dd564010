/*
 * iden3 binary container, prime identification, .r1cs and .wtns: see iden3.h.
 */
#include "compat/iden3.h"

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
#include "util/alloc.h"
#include "util/error.h"
#include "util/threads.h"

static uint32_t le32(const uint8_t *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }
static uint64_t le64(const uint8_t *b) { return (uint64_t)le32(b) | (uint64_t)le32(b + 4) << 32; }

/* ---------------------------------------------------------------- files */

g16_status g16__map_file(g16__mapped *m, const char *path, g16_error *err)
{
    g16_status st = G16_OK;
    struct stat sb;
    m->buf = NULL;
    m->len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return g16__error(err, G16_ERR_IO, "%s: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = g16__error(err, G16_ERR_IO, "%s: not a regular file", path);
        goto cleanup;
    }
    if (sb.st_size > 0) {
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            st = g16__error(err, G16_ERR_IO, "%s: mmap: %s", path, strerror(errno));
            goto cleanup;
        }
        m->buf = p;
        m->len = (size_t)sb.st_size;
    }
cleanup:
    close(fd);
    return st;
}

void g16__unmap_file(g16__mapped *m)
{
    if (m && m->buf)
        munmap((void *)m->buf, m->len);
    if (m)
        m->buf = NULL, m->len = 0;
}

/* ---------------------------------------------------------------- container */

g16_status g16__binfile_open(g16__binfile *bf, const uint8_t *buf, size_t len, const char magic[4],
                             uint32_t max_version, const char *what, g16_error *err)
{
    memset(bf, 0, sizeof *bf);
    bf->buf = buf;
    bf->len = len;
    bf->what = what;
    if (len < 12)
        return g16__error(err, G16_ERR_TRUNCATED, "%s: %zu bytes: shorter than the 12-byte header", what, len);
    if (memcmp(buf, magic, 4) != 0) {
        char got[5];
        for (int i = 0; i < 4; i++)
            got[i] = buf[i] >= 0x20 && buf[i] < 0x7f ? (char)buf[i] : '?';
        got[4] = 0;
        return g16__error(err, G16_ERR_FORMAT, "%s: starts with \"%s\", not \"%.4s\": not a .%.4s file", what, got,
                          magic, magic);
    }
    bf->version = le32(buf + 4);
    bf->nsec = le32(buf + 8);
    if (bf->version == 0 || bf->version > max_version)
        return g16__error(err, G16_ERR_FORMAT, "%s: version %u (this reader knows versions 1 to %u)", what,
                          bf->version, max_version);
    /* a section header is 12 bytes: the count cannot exceed what the file can hold */
    if (bf->nsec > (len - 12) / 12)
        return g16__error(err, G16_ERR_TRUNCATED, "%s: %u sections declared at byte 8, the file (%zu bytes) cannot hold them",
                          what, bf->nsec, len);
    if (!(bf->sec = calloc(bf->nsec ? bf->nsec : 1, sizeof *bf->sec)))
        return g16__error(err, G16_ERR_NOMEM, "%s: %u sections", what, bf->nsec);
    uint64_t off = 12;
    for (uint32_t i = 0; i < bf->nsec; i++) {
        if (len - off < 12) {
            g16__binfile_close(bf);
            return g16__error(err, G16_ERR_TRUNCATED, "%s: section %u of %u: header at byte %llu: the file ends at byte %zu",
                              what, i + 1, bf->nsec, (unsigned long long)off, len);
        }
        g16__binsec *s = &bf->sec[i];
        s->type = le32(buf + off);
        s->size = le64(buf + off + 4);
        s->offset = off + 12;
        if (s->size > len - s->offset) {
            g16__binsec bad = *s; /* the table is freed before the message is written */
            g16__binfile_close(bf);
            return g16__error(err, G16_ERR_TRUNCATED,
                              "%s: section type %u (header at byte %llu) declares %llu bytes but the file ends %llu bytes later",
                              what, bad.type, (unsigned long long)off, (unsigned long long)bad.size,
                              (unsigned long long)(len - bad.offset));
        }
        off = s->offset + s->size;
    }
    return G16_OK;
}

void g16__binfile_close(g16__binfile *bf)
{
    free(bf->sec);
    bf->sec = NULL;
    bf->nsec = 0;
}

uint32_t g16__binfile_count(const g16__binfile *bf, uint32_t type)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < bf->nsec; i++)
        n += bf->sec[i].type == type;
    return n;
}

g16_status g16__binfile_section(const g16__binfile *bf, uint32_t type, const char *name, const g16__binsec **out,
                                g16_error *err)
{
    uint32_t n = g16__binfile_count(bf, type);
    if (n != 1)
        return g16__error(err, G16_ERR_FORMAT, "%s: section %u (%s) %s", bf->what, type, name,
                          n ? "appears more than once" : "is missing");
    for (uint32_t i = 0; i < bf->nsec; i++)
        if (bf->sec[i].type == type)
            *out = &bf->sec[i];
    return G16_OK;
}

/* ---------------------------------------------------------------- primes */

static const struct {
    const char *hex; /* big-endian, no leading zeros */
    const char *name;
} primes[] = {
    {"73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", "BLS12-381's scalar field r (circom --prime bls12381)"},
    {"1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab", "BLS12-381's base field p"},
    {"30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001", "BN254's scalar field (circom's default prime, bn128)"},
    {"30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47", "BN254's base field (the grumpkin curve's scalar field, circom --prime grumpkin)"},
    {"12ab655e9a2ca55660b44d1e5c37b00159aa76fed00000010a11800000000001", "BLS12-377's scalar field (circom --prime bls12377)"},
    {"ffffffff00000001", "the Goldilocks field (circom --prime goldilocks)"},
    {"40000000000000000000000000000000224698fc094cf91b992d30ed00000001", "the Pallas field (circom --prime pallas)"},
    {"40000000000000000000000000000000224698fc0994a8dd8c46eb2100000001", "the Vesta field (circom --prime vesta)"},
    {"ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", "the secq256r1 field (P-256's base field, circom --prime secq256r1)"},
};

static unsigned hexval(char c) { return (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10); }

/* 1 when the little-endian value le[0..n8) equals the big-endian hex constant. */
static int prime_eq(const uint8_t *le, uint32_t n8, const char *hex)
{
    size_t nh = strlen(hex), nb = (nh + 1) / 2;
    if (nb > n8)
        return 0;
    for (size_t i = 0; i < n8; i++) {
        unsigned v = 0;
        if (i < nb) { /* little-endian byte i = hex digits nh-2i-2 (high) and nh-2i-1 (low) */
            size_t lo = nh - 1 - 2 * i;
            v = hexval(hex[lo]) | (lo ? hexval(hex[lo - 1]) << 4 : 0);
        }
        if (le[i] != v)
            return 0;
    }
    return 1;
}

const char *g16__prime_name(const uint8_t *le, uint32_t n8)
{
    for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++)
        if (prime_eq(le, n8, primes[i].hex))
            return primes[i].name;
    return NULL;
}

g16_status g16__check_prime(const uint8_t *le, uint32_t n8, int fr, const char *what, const char *where,
                            g16_error *err)
{
    const char *want = primes[fr ? 0 : 1].hex;
    if ((n8 == (fr ? 32u : 48u)) && prime_eq(le, n8, want))
        return G16_OK;
    const char *name = g16__prime_name(le, n8);
    if (name)
        return g16__error(err, G16_ERR_UNSUPPORTED, "%s: %s: the prime is %s; g16 works over BLS12-381 only%s", what,
                          where, name, fr ? " (compile the circuit with circom --prime bls12381)" : "");
    return g16__error(err, G16_ERR_UNSUPPORTED, "%s: %s: an unknown %u-byte prime; g16 works over BLS12-381 only", what,
                      where, n8);
}

/* ---------------------------------------------------------------- .r1cs */

void g16__r1cs_file_free(g16__r1cs_file *r)
{
    if (!r)
        return;
    for (int m = 0; m < 3; m++) {
        free(r->rp[m]);
        free(r->wire[m]);
        free(r->coeff[m]);
    }
    memset(r, 0, sizeof *r);
}

/* Reads a canonical little-endian Fr value; -1 when >= r. */
static int fr_from_le(g16_fr *out, const uint8_t *b) { return g16__fr_from_le_bytes(out, b); }

/* First pass over the constraints section: checks the structure and counts terms per matrix. */
static g16_status scan_constraints(const g16__r1cs_file *r, const g16__binfile *bf, const g16__binsec *s,
                                   uint64_t nnz[3], g16_error *err)
{
    const uint8_t *p = bf->buf + s->offset;
    uint64_t off = 0, size = s->size;
    nnz[0] = nnz[1] = nnz[2] = 0;
    for (uint64_t i = 0; i < r->n_constraints; i++)
        for (int m = 0; m < 3; m++) {
            if (size - off < 4)
                return g16__error(err, G16_ERR_TRUNCATED,
                                  "%s: constraints (section 2): constraint %llu, %c: term count at byte %llu: the section ends",
                                  bf->what, (unsigned long long)i, "ABC"[m], (unsigned long long)(s->offset + off));
            uint32_t nt = le32(p + off);
            off += 4;
            if ((size - off) / 36 < nt)
                return g16__error(err, G16_ERR_TRUNCATED,
                                  "%s: constraints (section 2): constraint %llu, %c: %u terms of 36 bytes from byte %llu: the section ends",
                                  bf->what, (unsigned long long)i, "ABC"[m], nt, (unsigned long long)(s->offset + off));
            for (uint32_t t = 0; t < nt; t++, off += 36) {
                uint32_t wire = le32(p + off);
                g16_fr v;
                if (wire >= r->n_wires)
                    return g16__error(err, G16_ERR_FORMAT,
                                      "%s: constraints (section 2): constraint %llu, %c: wire %u at byte %llu (the circuit has %llu wires)",
                                      bf->what, (unsigned long long)i, "ABC"[m], wire,
                                      (unsigned long long)(s->offset + off), (unsigned long long)r->n_wires);
                if (fr_from_le(&v, p + off + 4) != 0)
                    return g16__error(err, G16_ERR_SCALAR_RANGE,
                                      "%s: constraints (section 2): constraint %llu, %c: coefficient at byte %llu is not below r",
                                      bf->what, (unsigned long long)i, "ABC"[m], (unsigned long long)(s->offset + off + 4));
            }
            nnz[m] += nt;
        }
    if (off != size)
        return g16__error(err, G16_ERR_FORMAT, "%s: constraints (section 2): %llu bytes after the last constraint",
                          bf->what, (unsigned long long)(size - off));
    return G16_OK;
}

static void fill_constraints(g16__r1cs_file *r, const uint8_t *p)
{
    uint64_t off = 0, k[3] = {0, 0, 0};
    for (uint64_t i = 0; i < r->n_constraints; i++)
        for (int m = 0; m < 3; m++) {
            uint32_t nt = le32(p + off);
            off += 4;
            r->rp[m][i] = k[m];
            for (uint32_t t = 0; t < nt; t++, off += 36, k[m]++) {
                r->wire[m][k[m]] = le32(p + off);
                fr_from_le(&r->coeff[m][k[m]], p + off + 4);
            }
            r->rp[m][i + 1] = k[m];
        }
}

static g16_status r1cs_header(g16__r1cs_file *r, const g16__binfile *bf, g16_error *err)
{
    const g16__binsec *h = NULL;
    g16_status st = g16__binfile_section(bf, 1, "header", &h, err);
    if (st != G16_OK)
        return st;
    const uint8_t *p = bf->buf + h->offset;
    if (h->size < 4)
        return g16__error(err, G16_ERR_TRUNCATED, "%s: header (section 1): %llu bytes", bf->what,
                          (unsigned long long)h->size);
    uint32_t n8 = le32(p);
    /* n8, the prime, four u32 counts, the u64 label count, the u32 constraint count */
    uint64_t want = 4 + (uint64_t)n8 + 16 + 8 + 4;
    if (n8 == 0 || n8 > 256 || h->size != want)
        return g16__error(err, n8 && n8 <= 256 && h->size < want ? G16_ERR_TRUNCATED : G16_ERR_FORMAT,
                          "%s: header (section 1): %llu bytes for a %u-byte prime (expected %llu)", bf->what,
                          (unsigned long long)h->size, n8, (unsigned long long)want);
    if ((st = g16__check_prime(p + 4, n8, 1, bf->what, "header (section 1)", err)) != G16_OK)
        return st;
    p += 4 + n8;
    r->n_wires = le32(p);
    r->n_outputs = le32(p + 4);
    r->n_pub_inputs = le32(p + 8);
    r->n_prv_inputs = le32(p + 12);
    r->n_labels = le64(p + 16);
    r->n_constraints = le32(p + 24);
    if (r->n_wires == 0 || r->n_outputs + r->n_pub_inputs + r->n_prv_inputs >= r->n_wires)
        return g16__error(err, G16_ERR_FORMAT, "%s: header (section 1): %llu wires cannot hold ONE, %llu outputs, %llu public and %llu private inputs",
                          bf->what, (unsigned long long)r->n_wires, (unsigned long long)r->n_outputs,
                          (unsigned long long)r->n_pub_inputs, (unsigned long long)r->n_prv_inputs);
    return G16_OK;
}

g16_status g16__r1cs_file_read(g16__r1cs_file *out, const uint8_t *buf, size_t len, const char *what,
                               g16_error *err)
{
    g16__binfile bf;
    g16__r1cs_file r;
    const g16__binsec *cs = NULL;
    uint64_t nnz[3];
    memset(&r, 0, sizeof r);
    g16_status st = g16__binfile_open(&bf, buf, len, "r1cs", 1, what, err);
    if (st != G16_OK)
        return st;
    if ((st = r1cs_header(&r, &bf, err)) != G16_OK)
        goto cleanup;
    if (g16__binfile_count(&bf, 4) || g16__binfile_count(&bf, 5)) {
        st = g16__error(err, G16_ERR_UNSUPPORTED, "%s: the circuit uses custom gates (sections 4 and 5): PLONK only, not Groth16",
                        what);
        goto cleanup;
    }
    if ((st = g16__binfile_section(&bf, 2, "constraints", &cs, err)) != G16_OK ||
        (st = scan_constraints(&r, &bf, cs, nnz, err)) != G16_OK)
        goto cleanup;
    for (int m = 0; m < 3; m++) {
        r.rp[m] = malloc((r.n_constraints + 1) * sizeof *r.rp[m]);
        r.wire[m] = malloc((nnz[m] ? nnz[m] : 1) * sizeof *r.wire[m]);
        r.coeff[m] = malloc((nnz[m] ? nnz[m] : 1) * sizeof *r.coeff[m]);
        if (!r.rp[m] || !r.wire[m] || !r.coeff[m]) {
            st = g16__error(err, G16_ERR_NOMEM, "%s: %llu terms", what, (unsigned long long)nnz[m]);
            goto cleanup;
        }
        r.rp[m][0] = 0;
    }
    fill_constraints(&r, buf + cs->offset);
    *out = r;
    memset(&r, 0, sizeof r);
cleanup:
    g16__r1cs_file_free(&r);
    g16__binfile_close(&bf);
    return st;
}

typedef struct {
    const g16__r1cs_file *r;
    const g16_fr *w;
    pthread_mutex_t lock;
    uint64_t bad;
} check_job;

static void lc_eval(g16_fr *out, const g16__r1cs_file *r, int m, uint64_t i, const g16_fr *w)
{
    g16_fr acc, t;
    g16__fr_set_zero(&acc);
    for (uint64_t k = r->rp[m][i]; k < r->rp[m][i + 1]; k++) {
        g16__fr_mul(&t, &r->coeff[m][k], &w[r->wire[m][k]]);
        g16__fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

static void check_range(void *ctx, size_t begin, size_t end)
{
    check_job *j = ctx;
    for (size_t i = begin; i < end; i++) {
        g16_fr a, b, c;
        lc_eval(&a, j->r, 0, i, j->w);
        lc_eval(&b, j->r, 1, i, j->w);
        lc_eval(&c, j->r, 2, i, j->w);
        g16__fr_mul(&a, &a, &b);
        if (!g16__fr_eq(&a, &c)) {
            pthread_mutex_lock(&j->lock);
            if (i < j->bad)
                j->bad = i;
            pthread_mutex_unlock(&j->lock);
            return; /* later rows of this chunk cannot be lower */
        }
    }
}

g16_status g16__r1cs_file_check(const g16__r1cs_file *r, const g16_fr *w, size_t w_len, uint64_t *bad_row,
                                g16_error *err)
{
    *bad_row = UINT64_MAX;
    if (w_len != r->n_wires)
        return g16__error(err, G16_ERR_SIZE_MISMATCH, "the witness has %zu values, the circuit has %llu wires", w_len,
                          (unsigned long long)r->n_wires);
    if (!g16__fr_is_one(&w[0]))
        return g16__error(err, G16_ERR_UNSATISFIED, "witness value 0 (the constant ONE wire) is not 1");
    check_job job = {r, w, PTHREAD_MUTEX_INITIALIZER, UINT64_MAX};
    g16__parallel_for(r->n_constraints, 1024, check_range, &job);
    if (job.bad == UINT64_MAX)
        return G16_OK;
    *bad_row = job.bad;
    return g16__error(err, G16_ERR_UNSATISFIED, "constraint %llu of %llu is not satisfied (A·B != C)",
                      (unsigned long long)job.bad, (unsigned long long)r->n_constraints);
}

/* ---------------------------------------------------------------- .wtns */

g16_status g16__wtns_read(g16_fr **w, size_t *n, const uint8_t *buf, size_t len, const char *what,
                          g16_error *err)
{
    g16__binfile bf;
    const g16__binsec *h = NULL, *v = NULL;
    g16_fr *out = NULL;
    g16_status st = g16__binfile_open(&bf, buf, len, "wtns", 2, what, err);
    if (st != G16_OK)
        return st;
    if ((st = g16__binfile_section(&bf, 1, "header", &h, err)) != G16_OK)
        goto cleanup;
    const uint8_t *p = buf + h->offset;
    uint32_t n8 = h->size >= 4 ? le32(p) : 0;
    if (h->size < 4 || n8 == 0 || n8 > 256 || h->size != 8 + (uint64_t)n8) {
        st = g16__error(err, G16_ERR_FORMAT, "%s: header (section 1): %llu bytes (expected 4 + prime + 4)", what,
                        (unsigned long long)h->size);
        goto cleanup;
    }
    if ((st = g16__check_prime(p + 4, n8, 1, what, "header (section 1)", err)) != G16_OK)
        goto cleanup;
    uint64_t count = le32(p + 4 + n8);
    if ((st = g16__binfile_section(&bf, 2, "values", &v, err)) != G16_OK)
        goto cleanup;
    if (v->size != count * 32) {
        st = g16__error(err, v->size < count * 32 ? G16_ERR_TRUNCATED : G16_ERR_FORMAT,
                        "%s: values (section 2, byte %llu): %llu bytes for %llu values of 32 bytes", what,
                        (unsigned long long)v->offset, (unsigned long long)v->size, (unsigned long long)count);
        goto cleanup;
    }
    if (count == 0 || !(out = malloc(count * sizeof *out))) {
        st = g16__error(err, count ? G16_ERR_NOMEM : G16_ERR_FORMAT, "%s: %llu values", what, (unsigned long long)count);
        goto cleanup;
    }
    for (uint64_t i = 0; i < count; i++)
        if (fr_from_le(&out[i], buf + v->offset + 32 * i) != 0) {
            st = g16__error(err, G16_ERR_SCALAR_RANGE, "%s: value %llu at byte %llu is not below r", what,
                            (unsigned long long)i, (unsigned long long)(v->offset + 32 * i));
            goto cleanup;
        }
    *w = out;
    *n = count;
    out = NULL;
cleanup:
    free(out);
    g16__binfile_close(&bf);
    return st;
}

static int put_le32(FILE *f, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return fwrite(b, 1, 4, f) == 4;
}

static int put_le64(FILE *f, uint64_t v) { return put_le32(f, (uint32_t)v) && put_le32(f, (uint32_t)(v >> 32)); }

g16_status g16__wtns_write(const char *path, const g16_fr *w, size_t n, g16_error *err)
{
    static const uint8_t r_le[32] = {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
                                     0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
                                     0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
    if (n > UINT32_MAX)
        return g16__error(err, G16_ERR_ARG, "%s: %zu values (the format holds at most 2^32 - 1)", path, n);
    FILE *f = fopen(path, "wb");
    if (!f)
        return g16__error(err, G16_ERR_IO, "%s: %s", path, strerror(errno));
    int ok = fwrite("wtns", 1, 4, f) == 4 && put_le32(f, 2) && put_le32(f, 2) && put_le32(f, 1) && put_le64(f, 40) &&
             put_le32(f, 32) && fwrite(r_le, 1, 32, f) == 32 && put_le32(f, (uint32_t)n) && put_le32(f, 2) &&
             put_le64(f, (uint64_t)n * 32);
    for (size_t i = 0; ok && i < n; i++) {
        uint8_t b[32];
        g16__fr_to_le_bytes(b, &w[i]);
        ok = fwrite(b, 1, 32, f) == 32;
    }
    ok = (fclose(f) == 0) && ok;
    return ok ? G16_OK : g16__error(err, G16_ERR_IO, "%s: write failed", path);
}
