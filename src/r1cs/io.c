/*
 * The compiled r1cs file format, "G16R1CS" version 1.
 *
 * Every integer is little-endian; sections follow one another without padding:
 *
 *   section    offset / size            contents
 *   header     0, 80 bytes              0  magic "G16R1CS\0"
 *                                       8  u32 version = 1
 *                                       12 u32 flags = 0 (reserved)
 *                                       16 u64 num_inputs (>= 1, ONE included)
 *                                       24 u64 num_aux (num_inputs + num_aux <= 2^30 − 1, and
 *                                              <= nnz_A + nnz_B + nnz_C − num_inputs, since every
 *                                              aux occurs somewhere)
 *                                       32 u64 m, rows (>= num_inputs; the input constraints
 *                                              included; a domain above 2^28 is unsupported)
 *                                       40 u32 log_n = ceil(log2(m))
 *                                       44 u32 reserved = 0
 *                                       48 u64 num_coeffs (2 .. 2^32 − 1)
 *                                       56 u64 nnz_A (>= num_inputs), 64 u64 nnz_B, 72 u64 nnz_C
 *   coeffs     num_coeffs × 32          coefficients as canonical 32-byte little-endian integers,
 *                                       each < r and nonzero; [0] = 1, [1] = r − 1
 *   A.lengths  m × 4                    u32 length of each row (sum = nnz_A)
 *   A.entries  nnz_A × 8                u32 column, u32 coefficient id, row after row; columns
 *                                       strictly increasing within a row and < num_inputs +
 *                                       num_aux; ids < num_coeffs
 *   B.lengths, B.entries, C.lengths, C.entries   likewise
 *   checksum   8                        u64 XXH64 (seed 0) of every byte before it
 *
 * and, as in memory (r1cs.h): the last num_inputs rows are the input constraints (A row
 * {(k, id 0)}, B and C empty) and every aux column occurs in A, B or C. Nothing may follow the
 * checksum. Every field is determined by the compiled form, so load-then-save reproduces an
 * accepted file byte for byte.
 *
 * The file keeps fixed 8-byte entries, simple to check and to read elsewhere; memory packs ±1
 * entries into one word (r1cs.h), so a file is somewhat larger than the compiled form.
 *
 * Loading streams (file or buffer alike) through one reader that hashes as it goes; the total
 * size is known first, so a short input is reported as G16_ERR_TRUNCATED in the section where
 * it ends before anything is allocated, and every allocation is bounded by a constant times the
 * input size. Structural errors name the section and the byte offset of the offending field.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "field/fr.h"
#include "r1cs/r1cs.h"
#include "r1cs/xxh64.h"
#include "util/error.h"

#define VERSION 1
#define HEADER_BYTES 80
#define STAGE_BYTES ((size_t)1 << 20)
static const uint8_t MAGIC[8] = {'G', '1', '6', 'R', '1', 'C', 'S', 0};

enum { OFF_VERSION = 8, OFF_FLAGS = 12, OFF_INPUTS = 16, OFF_AUX = 24, OFF_ROWS = 32, OFF_LOGN = 40,
       OFF_RESERVED = 44, OFF_NCOEFFS = 48, OFF_NNZ = 56 };

enum { SEC_HEADER, SEC_COEFFS, SEC_A_LEN, SEC_A_ENT, SEC_B_LEN, SEC_B_ENT, SEC_C_LEN, SEC_C_ENT, SEC_CHECKSUM,
       SEC_COUNT };
static const char *const SEC_NAME[SEC_COUNT] = {"header",    "coeffs",    "A.lengths", "A.entries", "B.lengths",
                                                "B.entries", "C.lengths", "C.entries", "checksum"};

typedef struct {
    uint64_t num_inputs, num_aux, m, num_coeffs, nnz[3];
    uint32_t log_n;
} header;

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

/* off[s] = where section s starts, off[SEC_COUNT] = total size (saturating at UINT64_MAX). */
static void layout(const header *h, uint64_t off[SEC_COUNT + 1])
{
    uint64_t size[SEC_COUNT] = {HEADER_BYTES, sat_mul(h->num_coeffs, 32)};
    for (int k = 0; k < 3; k++) {
        size[SEC_A_LEN + 2 * k] = sat_mul(h->m, 4);
        size[SEC_A_ENT + 2 * k] = sat_mul(h->nnz[k], 8);
    }
    size[SEC_CHECKSUM] = 8;
    off[0] = 0;
    for (int s = 0; s < SEC_COUNT; s++)
        off[s + 1] = sat_add(off[s], size[s]);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p) { return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32; }

/* "r1cs: section 'S' at byte N: <detail>" */
__attribute__((format(printf, 5, 6))) static g16_status sec_error(g16_error *err, g16_status st, int sec,
                                                                  uint64_t at, const char *fmt, ...)
{
    char detail[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return g16__error(err, st, "r1cs: section '%s' at byte %llu: %s", SEC_NAME[sec], (unsigned long long)at, detail);
}

/* ---- writing ---- */

typedef struct {
    uint8_t *buf; /* buffer mode: destination of exactly `total` bytes */
    FILE *f;      /* file mode */
    uint64_t off;
    g16__xxh64_state h;
    uint8_t *stage;
    size_t staged;
} writer;

static int wr_flush(writer *w)
{
    if (w->f && w->staged && fwrite(w->stage, 1, w->staged, w->f) != w->staged)
        return -1;
    w->staged = 0;
    return 0;
}

/* Room for n (<= STAGE_BYTES) bytes to fill, hashed and emitted by wr_commit. */
static uint8_t *wr_reserve(writer *w, size_t n)
{
    if (w->buf)
        return w->buf + w->off;
    if (w->staged + n > STAGE_BYTES && wr_flush(w))
        return NULL;
    return w->stage + w->staged;
}

static void wr_commit(writer *w, size_t n, int hash)
{
    const uint8_t *p = w->buf ? w->buf + w->off : w->stage + w->staged;
    if (hash)
        g16__xxh64_update(&w->h, p, n);
    w->off += n;
    if (!w->buf)
        w->staged += n;
}

static void encode_header(uint8_t out[HEADER_BYTES], const g16_r1cs *r)
{
    memset(out, 0, HEADER_BYTES);
    memcpy(out, MAGIC, 8);
    put_u32(out + OFF_VERSION, VERSION);
    put_u64(out + OFF_INPUTS, r->num_inputs);
    put_u64(out + OFF_AUX, r->num_aux);
    put_u64(out + OFF_ROWS, r->num_constraints);
    put_u32(out + OFF_LOGN, r->log_n);
    put_u64(out + OFF_NCOEFFS, r->num_coeffs);
    for (int k = 0; k < 3; k++)
        put_u64(out + OFF_NNZ + 8 * k, r->mat[k].nnz);
}

static int write_coeffs(writer *w, const g16_r1cs *r)
{
    const size_t per = STAGE_BYTES / 32;
    for (uint64_t i = 0; i < r->num_coeffs;) {
        size_t n = r->num_coeffs - i < per ? (size_t)(r->num_coeffs - i) : per;
        uint8_t *dst = wr_reserve(w, n * 32);
        if (!dst)
            return -1;
        for (size_t j = 0; j < n; j++, i++)
            g16__fr_to_le_bytes(dst + 32 * j, &r->coeffs[i]);
        wr_commit(w, n * 32, 1);
    }
    return 0;
}

/* Entries per row (packed rows hold 1 or 2 words per entry). */
static int write_lengths(writer *w, const g16__csr *m, uint64_t rows)
{
    const size_t per = STAGE_BYTES / 4;
    for (uint64_t i = 0; i < rows;) {
        size_t n = rows - i < per ? (size_t)(rows - i) : per;
        uint8_t *dst = wr_reserve(w, n * 4);
        if (!dst)
            return -1;
        for (size_t j = 0; j < n; j++, i++) {
            uint32_t len = 0, cid;
            for (uint64_t k = g16__csr_rp(m, i), hi = g16__csr_rp(m, i + 1); k < hi; len++)
                g16__csr_next(m, &k, &cid);
            put_u32(dst + 4 * j, len);
        }
        wr_commit(w, n * 4, 1);
    }
    return 0;
}

static int write_entries(writer *w, const g16__csr *m)
{
    const size_t per = STAGE_BYTES / 8;
    uint64_t k = 0;
    for (uint64_t i = 0; i < m->nnz;) {
        size_t n = m->nnz - i < per ? (size_t)(m->nnz - i) : per;
        uint8_t *dst = wr_reserve(w, n * 8);
        if (!dst)
            return -1;
        for (size_t j = 0; j < n; j++, i++) {
            uint32_t cid, col = g16__csr_next(m, &k, &cid);
            put_u32(dst + 8 * j, col);
            put_u32(dst + 8 * j + 4, cid);
        }
        wr_commit(w, n * 8, 1);
    }
    return 0;
}

static int write_all(writer *w, const g16_r1cs *r)
{
    g16__xxh64_init(&w->h);
    uint8_t *dst = wr_reserve(w, HEADER_BYTES);
    if (!dst)
        return -1;
    encode_header(dst, r);
    wr_commit(w, HEADER_BYTES, 1);
    if (write_coeffs(w, r))
        return -1;
    for (int k = 0; k < 3; k++)
        if (write_lengths(w, &r->mat[k], r->num_constraints) || write_entries(w, &r->mat[k]))
            return -1;
    if (!(dst = wr_reserve(w, 8)))
        return -1;
    put_u64(dst, g16__xxh64_digest(&w->h));
    wr_commit(w, 8, 0);
    return wr_flush(w);
}

static header header_of(const g16_r1cs *r)
{
    header h = {r->num_inputs, r->num_aux, r->num_constraints, r->num_coeffs,
                {r->mat[0].nnz, r->mat[1].nnz, r->mat[2].nnz}, r->log_n};
    return h;
}

uint64_t g16_r1cs_serialized_size(const g16_r1cs *r)
{
    if (!r)
        return 0;
    header h = header_of(r);
    uint64_t off[SEC_COUNT + 1];
    layout(&h, off);
    return off[SEC_COUNT];
}

g16_status g16_r1cs_save_buffer(const g16_r1cs *r, uint8_t *buf, size_t buf_len, g16_error *err)
{
    if (!r || !buf)
        return g16__error(err, G16_ERR_ARG, "r1cs: NULL argument");
    uint64_t size = g16_r1cs_serialized_size(r);
    if (buf_len != size)
        return g16__error(err, G16_ERR_SIZE_MISMATCH, "r1cs: buffer of %zu bytes, the serialized form has %llu",
                          buf_len, (unsigned long long)size);
    writer w = {.buf = buf};
    write_all(&w, r); /* cannot fail in buffer mode */
    return G16_OK;
}

g16_status g16_r1cs_save(const g16_r1cs *r, const char *path, g16_error *err)
{
    g16_status st = G16_OK;
    writer w = {0};
    if (!r || !path)
        return g16__error(err, G16_ERR_ARG, "r1cs: NULL argument");
    if (!(w.stage = malloc(STAGE_BYTES)))
        return g16__error(err, G16_ERR_NOMEM, "r1cs: out of memory");
    if (!(w.f = fopen(path, "wb"))) {
        st = g16__error(err, G16_ERR_IO, "r1cs: cannot create %s: %s", path, strerror(errno));
        goto cleanup;
    }
    int bad = write_all(&w, r);
    int saved_errno = errno;
    bad |= fclose(w.f) != 0;
    w.f = NULL;
    if (bad) {
        st = g16__error(err, G16_ERR_IO, "r1cs: writing %s failed: %s", path, strerror(saved_errno ? saved_errno : errno));
        remove(path); /* never leave a partial file that looks like a circuit */
    }
cleanup:
    free(w.stage);
    return st;
}

/* ---- reading ---- */

typedef struct {
    const uint8_t *buf; /* buffer mode */
    FILE *f;            /* file mode */
    uint64_t off;
    g16__xxh64_state h;
    uint8_t *stage;
} reader;

/* The next n (<= STAGE_BYTES) bytes, hashed when `hash`; NULL when a file read comes up short. */
static const uint8_t *rd_next(reader *rd, size_t n, int hash)
{
    const uint8_t *p;
    if (rd->buf) {
        p = rd->buf + rd->off;
    } else {
        if (fread(rd->stage, 1, n, rd->f) != n)
            return NULL;
        p = rd->stage;
    }
    if (hash)
        g16__xxh64_update(&rd->h, p, n);
    rd->off += n;
    return p;
}

static g16_status short_read(const reader *rd, int sec, g16_error *err)
{
    return sec_error(err, G16_ERR_IO, sec, rd->off, "read failed (file changed or I/O error)");
}

static g16_status parse_header(reader *rd, uint64_t total, header *h, g16_error *err)
{
    size_t got = total < HEADER_BYTES ? (size_t)total : HEADER_BYTES;
    const uint8_t *p = rd_next(rd, got, 1);
    if (!p)
        return short_read(rd, SEC_HEADER, err);
    if (got >= 8 && memcmp(p, MAGIC, 8) != 0)
        return sec_error(err, G16_ERR_FORMAT, SEC_HEADER, 0, "bad magic (not a g16 r1cs file)");
    if (got < HEADER_BYTES)
        return sec_error(err, G16_ERR_TRUNCATED, SEC_HEADER, got, "input ends inside the %d-byte header", HEADER_BYTES);
    uint32_t version = get_u32(p + OFF_VERSION);
    if (version != VERSION)
        return sec_error(err, G16_ERR_FORMAT, SEC_HEADER, OFF_VERSION, "version %u, this build reads %d", version,
                         VERSION);
    if (get_u32(p + OFF_FLAGS) != 0)
        return sec_error(err, G16_ERR_FORMAT, SEC_HEADER, OFF_FLAGS, "flags 0x%x (must be 0)", get_u32(p + OFF_FLAGS));
    h->num_inputs = get_u64(p + OFF_INPUTS);
    h->num_aux = get_u64(p + OFF_AUX);
    h->m = get_u64(p + OFF_ROWS);
    h->log_n = get_u32(p + OFF_LOGN);
    h->num_coeffs = get_u64(p + OFF_NCOEFFS);
    for (int k = 0; k < 3; k++)
        h->nnz[k] = get_u64(p + OFF_NNZ + 8 * k);
    if (h->num_inputs < 1 || h->num_inputs > G16__R1CS_MAX_VARS)
        return sec_error(err, G16_ERR_FORMAT, SEC_HEADER, OFF_INPUTS, "num_inputs %llu (1 .. 2^30 − 1)",
                         (unsigned long long)h->num_inputs);
    if (h->num_aux > G16__R1CS_MAX_VARS - h->num_inputs)
        return sec_error(err, G16_ERR_FORMAT, SEC_HEADER, OFF_AUX, "num_inputs + num_aux exceeds 2^30 − 1");
    if (h->m < h->num_inputs)
        return sec_error(err, G16_ERR_FORMAT, SEC_HEADER, OFF_ROWS, "%llu rows, fewer than the %llu input constraints",
                         (unsigned long long)h->m, (unsigned long long)h->num_inputs);
    uint64_t n;
    unsigned log_n;
    if (g16__r1cs_domain(h->m, G16__R1CS_MAX_LOG_N, &n, &log_n))
        return sec_error(err, G16_ERR_UNSUPPORTED, SEC_HEADER, OFF_ROWS, "%llu rows need a domain above 2^%d",
                         (unsigned long long)h->m, G16__R1CS_MAX_LOG_N);
    if (h->log_n != log_n)
        return sec_error(err, G16_ERR_FORMAT, SEC_HEADER, OFF_LOGN, "log_n %u, %llu rows need %u", h->log_n,
                         (unsigned long long)h->m, log_n);
    if (get_u32(p + OFF_RESERVED) != 0)
        return sec_error(err, G16_ERR_FORMAT, SEC_HEADER, OFF_RESERVED, "reserved field is not 0");
    if (h->num_coeffs < 2 || h->num_coeffs > UINT32_MAX)
        return sec_error(err, G16_ERR_FORMAT, SEC_HEADER, OFF_NCOEFFS, "num_coeffs %llu (2 .. 2^32 − 1)",
                         (unsigned long long)h->num_coeffs);
    if (h->nnz[0] < h->num_inputs)
        return sec_error(err, G16_ERR_FORMAT, SEC_HEADER, OFF_NNZ, "nnz_A %llu is below the %llu input constraints",
                         (unsigned long long)h->nnz[0], (unsigned long long)h->num_inputs);
    uint64_t nnz = sat_add(sat_add(h->nnz[0], h->nnz[1]), h->nnz[2]);
    if (h->num_aux > nnz - h->num_inputs)
        return sec_error(err, G16_ERR_FORMAT, SEC_HEADER, OFF_AUX,
                         "%llu aux variables cannot all occur in %llu matrix entries", (unsigned long long)h->num_aux,
                         (unsigned long long)nnz);
    return G16_OK;
}

/* G16_ERR_TRUNCATED naming the section where an input of `total` bytes ends early, or
 * G16_ERR_FORMAT for bytes after the checksum. */
static g16_status check_size(const uint64_t off[SEC_COUNT + 1], uint64_t total, g16_error *err)
{
    for (int s = 0; s < SEC_COUNT; s++)
        if (off[s + 1] > total)
            return sec_error(err, G16_ERR_TRUNCATED, s, total, "input ends %llu bytes into this section of %llu",
                             (unsigned long long)(total - off[s]),
                             (unsigned long long)(off[s + 1] == UINT64_MAX ? UINT64_MAX : off[s + 1] - off[s]));
    if (total > off[SEC_COUNT])
        return sec_error(err, G16_ERR_FORMAT, SEC_CHECKSUM, off[SEC_COUNT], "%llu bytes follow the checksum",
                         (unsigned long long)(total - off[SEC_COUNT]));
    return G16_OK;
}

static g16_status alloc_r1cs(const header *h, g16_r1cs **out)
{
    g16_r1cs *r = calloc(1, sizeof *r);
    if (!r)
        return G16_ERR_NOMEM;
    *out = r;
    r->num_inputs = h->num_inputs;
    r->num_aux = h->num_aux;
    r->num_constraints = h->m;
    r->num_coeffs = h->num_coeffs;
    g16__r1cs_domain(h->m, G16__R1CS_MAX_LOG_N, &r->n, &r->log_n);
    if (!(r->coeffs = malloc((size_t)h->num_coeffs * sizeof(g16_fr))))
        return G16_ERR_NOMEM;
    for (int k = 0; k < 3; k++) {
        /* room for the worst case, every entry with an id (2 words); shrunk after reading */
        g16__csr *m = &r->mat[k];
        m->nnz = h->nnz[k];
        if (2 * h->nnz[k] <= UINT32_MAX)
            m->rp32 = malloc((size_t)(h->m + 1) * sizeof(uint32_t));
        else
            m->rp64 = malloc((size_t)(h->m + 1) * sizeof(uint64_t));
        if (!m->rp32 && !m->rp64)
            return G16_ERR_NOMEM;
        if (h->nnz[k] && !(m->w = malloc((size_t)(2 * h->nnz[k]) * sizeof(uint32_t))))
            return G16_ERR_NOMEM;
    }
    return g16__r1cs_alloc_density(r);
}

static g16_status read_coeffs(reader *rd, g16_r1cs *r, g16_error *err)
{
    g16_fr minus_one;
    g16__fr_neg(&minus_one, &g16__fr_one);
    const size_t per = STAGE_BYTES / 32;
    for (uint64_t i = 0; i < r->num_coeffs;) {
        size_t n = r->num_coeffs - i < per ? (size_t)(r->num_coeffs - i) : per;
        uint64_t at = rd->off;
        const uint8_t *p = rd_next(rd, n * 32, 1);
        if (!p)
            return short_read(rd, SEC_COEFFS, err);
        for (size_t j = 0; j < n; j++, i++, at += 32) {
            g16_fr *c = &r->coeffs[i];
            if (g16__fr_from_le_bytes(c, p + 32 * j))
                return sec_error(err, G16_ERR_FORMAT, SEC_COEFFS, at, "coefficient %llu is not less than r",
                                 (unsigned long long)i);
            if (g16__fr_is_zero(c))
                return sec_error(err, G16_ERR_FORMAT, SEC_COEFFS, at, "coefficient %llu is zero", (unsigned long long)i);
            if ((i == G16__CID_ONE && !g16__fr_is_one(c)) || (i == G16__CID_MINUS_ONE && !g16__fr_eq(c, &minus_one)))
                return sec_error(err, G16_ERR_FORMAT, SEC_COEFFS, at, "coefficient %llu must be %s",
                                 (unsigned long long)i, i == G16__CID_ONE ? "1" : "r − 1");
        }
    }
    return G16_OK;
}

static void rp_set(g16__csr *m, uint64_t i, uint64_t v)
{
    if (m->rp32)
        m->rp32[i] = (uint32_t)v;
    else
        m->rp64[i] = v;
}

static g16_status read_lengths(reader *rd, g16_r1cs *r, int k, g16_error *err)
{
    g16__csr *m = &r->mat[k];
    int sec = SEC_A_LEN + 2 * k;
    uint64_t vars = r->num_inputs + r->num_aux, sum = 0;
    const size_t per = STAGE_BYTES / 4;
    rp_set(m, 0, 0);
    for (uint64_t i = 0; i < r->num_constraints;) {
        size_t n = r->num_constraints - i < per ? (size_t)(r->num_constraints - i) : per;
        uint64_t at = rd->off;
        const uint8_t *p = rd_next(rd, n * 4, 1);
        if (!p)
            return short_read(rd, sec, err);
        for (size_t j = 0; j < n; j++, i++, at += 4) {
            uint32_t len = get_u32(p + 4 * j);
            if (len > vars)
                return sec_error(err, G16_ERR_FORMAT, sec, at, "row %llu has %u entries, more than the %llu variables",
                                 (unsigned long long)i, len, (unsigned long long)vars);
            sum += len;
            if (sum > m->nnz)
                return sec_error(err, G16_ERR_FORMAT, sec, at, "rows up to %llu hold more than nnz = %llu entries",
                                 (unsigned long long)i, (unsigned long long)m->nnz);
            rp_set(m, i + 1, sum);
        }
    }
    if (sum != m->nnz)
        return sec_error(err, G16_ERR_FORMAT, sec, rd->off, "row lengths add up to %llu, the header says nnz = %llu",
                         (unsigned long long)sum, (unsigned long long)m->nnz);
    return G16_OK;
}

/* Reads the fixed (column, id) entries into packed words, turning rp from entry offsets (as
 * read_lengths left it) into word offsets row by row. */
static g16_status read_entries(reader *rd, g16_r1cs *r, int k, g16_error *err)
{
    g16__csr *m = &r->mat[k];
    int sec = SEC_A_ENT + 2 * k;
    uint64_t vars = r->num_inputs + r->num_aux, words = 0;
    uint64_t row = 0, row_end = g16__csr_rp(m, 1), prev = UINT64_MAX; /* prev: no column yet in this row */
    const size_t per = STAGE_BYTES / 8;
    for (uint64_t i = 0; i < m->nnz;) {
        size_t n = m->nnz - i < per ? (size_t)(m->nnz - i) : per;
        uint64_t at = rd->off;
        const uint8_t *p = rd_next(rd, n * 8, 1);
        if (!p)
            return short_read(rd, sec, err);
        for (size_t j = 0; j < n; j++, i++, at += 8) {
            while (i == row_end) { /* the lengths sum to nnz, so this stops before row m */
                rp_set(m, ++row, words);
                row_end = g16__csr_rp(m, row + 1);
                prev = UINT64_MAX;
            }
            uint32_t col = get_u32(p + 8 * j), cid = get_u32(p + 8 * j + 4);
            if (col >= vars)
                return sec_error(err, G16_ERR_FORMAT, sec, at, "row %llu: column %u, there are %llu variables",
                                 (unsigned long long)row, col, (unsigned long long)vars);
            if (prev != UINT64_MAX && col <= prev)
                return sec_error(err, G16_ERR_FORMAT, sec, at, "row %llu: column %u after column %llu (must increase)",
                                 (unsigned long long)row, col, (unsigned long long)prev);
            if (cid >= r->num_coeffs)
                return sec_error(err, G16_ERR_FORMAT, sec, at, "row %llu: coefficient id %u, there are %llu",
                                 (unsigned long long)row, cid, (unsigned long long)r->num_coeffs);
            g16__csr_put(m->w, &words, col, cid);
            prev = col;
        }
    }
    while (row < r->num_constraints) /* the last nonempty row and the empty rows after it */
        rp_set(m, ++row, words);
    m->nwords = words;
    return G16_OK;
}

/* After reading: drop the unused worst-case room, and use 32-bit row pointers when they fit (as
 * finalize does), so a loaded form is the finalized one. */
static void shrink_matrix(g16__csr *m, uint64_t rows)
{
    if (m->nwords && m->nwords < 2 * m->nnz) {
        uint32_t *w = realloc(m->w, (size_t)m->nwords * sizeof *w);
        if (w)
            m->w = w;
    }
    if (m->rp64 && m->nwords <= UINT32_MAX) {
        uint32_t *rp = malloc((size_t)(rows + 1) * sizeof *rp);
        if (!rp)
            return; /* keeping 64-bit pointers is correct, only larger */
        for (uint64_t i = 0; i <= rows; i++)
            rp[i] = (uint32_t)m->rp64[i];
        free(m->rp64);
        m->rp64 = NULL;
        m->rp32 = rp;
    }
}

/* The last num_inputs rows must be bellman's input constraints input_k · 0 = 0. */
static g16_status check_input_rows(const g16_r1cs *r, const uint64_t off[SEC_COUNT + 1], g16_error *err)
{
    uint64_t first = r->num_constraints - r->num_inputs;
    for (uint64_t k = 0; k < r->num_inputs; k++) {
        uint64_t row = first + k;
        for (int j = 0; j < 3; j++) {
            const g16__csr *m = &r->mat[j];
            uint64_t lo = g16__csr_rp(m, row), words = g16__csr_rp(m, row + 1) - lo;
            /* input_k with coefficient 1 is the single word k */
            int ok = j == G16_MATRIX_A ? words == 1 && m->w[lo] == (uint32_t)k : words == 0;
            if (!ok)
                return sec_error(err, G16_ERR_FORMAT, SEC_A_LEN + 2 * j, off[SEC_A_LEN + 2 * j] + 4 * row,
                                 "row %llu must be the input constraint input_%llu * 0 = 0", (unsigned long long)row,
                                 (unsigned long long)k);
        }
    }
    return G16_OK;
}

static g16_status load(reader *rd, uint64_t total, g16_r1cs **out, g16_error *err)
{
    g16_r1cs *r = NULL;
    uint64_t *used = NULL;
    header h;
    uint64_t off[SEC_COUNT + 1];
    g16__xxh64_init(&rd->h);
    g16_status st = parse_header(rd, total, &h, err);
    if (st)
        goto cleanup;
    layout(&h, off);
    if ((st = check_size(off, total, err)))
        goto cleanup;
    if ((st = alloc_r1cs(&h, &r)) ||
        (!(used = calloc((size_t)g16__bitmap_words(h.num_aux) + 1, sizeof *used)) && (st = G16_ERR_NOMEM))) {
        st = g16__error(err, st, "r1cs: out of memory for %llu rows", (unsigned long long)h.m);
        goto cleanup;
    }
    if ((st = read_coeffs(rd, r, err)))
        goto cleanup;
    for (int k = 0; k < 3; k++)
        if ((st = read_lengths(rd, r, k, err)) || (st = read_entries(rd, r, k, err)))
            goto cleanup;
    uint64_t want = g16__xxh64_digest(&rd->h);
    const uint8_t *p = rd_next(rd, 8, 0);
    if (!p) {
        st = short_read(rd, SEC_CHECKSUM, err);
        goto cleanup;
    }
    if (get_u64(p) != want) {
        st = sec_error(err, G16_ERR_FORMAT, SEC_CHECKSUM, off[SEC_CHECKSUM], "stored %016llx, computed %016llx",
                       (unsigned long long)get_u64(p), (unsigned long long)want);
        goto cleanup;
    }
    if ((st = check_input_rows(r, off, err)))
        goto cleanup;
    for (int k = 0; k < 3; k++)
        shrink_matrix(&r->mat[k], r->num_constraints);
    uint64_t lone = g16__r1cs_scan_density(r, used);
    if (lone != UINT64_MAX) {
        st = sec_error(err, G16_ERR_FORMAT, SEC_C_ENT, off[SEC_CHECKSUM],
                       "aux variable %llu (column %llu) occurs in no row of A, B or C", (unsigned long long)lone,
                       (unsigned long long)(lone + r->num_inputs));
        goto cleanup;
    }
    *out = r;
    r = NULL;
cleanup:
    free(used);
    g16_r1cs_destroy(r);
    return st;
}

g16_status g16_r1cs_load_buffer(g16_r1cs **out, const uint8_t *buf, size_t buf_len, g16_error *err)
{
    if (!out || (!buf && buf_len))
        return g16__error(err, G16_ERR_ARG, "r1cs: NULL argument");
    *out = NULL;
    reader rd = {.buf = buf ? buf : (const uint8_t *)""};
    return load(&rd, buf_len, out, err);
}

g16_status g16_r1cs_load(g16_r1cs **out, const char *path, g16_error *err)
{
    g16_status st;
    reader rd = {0};
    struct stat sb;
    if (!out || !path)
        return g16__error(err, G16_ERR_ARG, "r1cs: NULL argument");
    *out = NULL;
    if (!(rd.f = fopen(path, "rb")))
        return g16__error(err, G16_ERR_IO, "r1cs: cannot open %s: %s", path, strerror(errno));
    if (fstat(fileno(rd.f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = g16__error(err, G16_ERR_IO, "r1cs: %s is not a regular file", path);
        goto cleanup;
    }
    if (!(rd.stage = malloc(STAGE_BYTES))) {
        st = g16__error(err, G16_ERR_NOMEM, "r1cs: out of memory");
        goto cleanup;
    }
    st = load(&rd, (uint64_t)sb.st_size, out, err);
cleanup:
    free(rd.stage);
    fclose(rd.f);
    return st;
}
