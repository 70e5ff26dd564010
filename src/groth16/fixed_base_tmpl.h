/* Template for fixed_base.c: instantiated once for G1 and once for G2 (see fixed_base.h).
 * Expects FB_P, FB_PA (point and affine types) and FB(name) (prefixes the curve's functions). */

/* Window of 8 bits: table 32 × 255 points (768 KiB in G1); a product is 32 mixed additions. */
#define FB_W 8u
#define FB_WINDOWS ((255u + FB_W - 1) / FB_W)
#define FB_DIGITS ((1u << FB_W) - 1)

typedef struct {
    const FB_PA *table; /* FB_WINDOWS × FB_DIGITS: table[win·FB_DIGITS + d − 1] = d·2^(w·win)·G */
    const g16_fr *scalars;
    FB_PA *out;
} FB(fb_ctx);

static void FB(fb_chunk)(void *vctx, size_t begin, size_t end)
{
    FB(fb_ctx) *ctx = vctx;
    FB_P tmp[64];
    for (size_t i0 = begin; i0 < end; i0 += 64) {
        size_t cnt = end - i0 < 64 ? end - i0 : 64;
        for (size_t k = 0; k < cnt; k++) {
            uint64_t l[4];
            g16__fr_to_limbs(l, &ctx->scalars[i0 + k]);
            FB(set_infinity)(&tmp[k]);
            for (unsigned win = 0; win < FB_WINDOWS; win++) {
                unsigned bit = win * FB_W;
                unsigned d = (unsigned)(l[bit / 64] >> (bit % 64)) & FB_DIGITS; /* 64 is a multiple of w */
                if (d)
                    FB(add_affine_var)(&tmp[k], &tmp[k], &ctx->table[win * FB_DIGITS + d - 1]);
            }
        }
        FB(batch_to_affine)(&ctx->out[i0], tmp, cnt);
    }
}

static g16_status FB(fixed_base_mul)(FB_PA *out, const FB_PA *base, const g16_fr *scalars, size_t n)
{
    g16_status st = G16_OK;
    size_t nt = (size_t)FB_WINDOWS * FB_DIGITS;
    FB_PA *table = malloc(nt * sizeof *table);
    FB_P *row = malloc(FB_DIGITS * sizeof *row);
    if (!table || !row) {
        st = G16_ERR_NOMEM;
        goto cleanup;
    }
    FB_P g;
    FB(from_affine)(&g, base); /* g = 2^(w·win)·G for the current window */
    for (unsigned win = 0; win < FB_WINDOWS; win++) {
        row[0] = g;
        for (unsigned d = 1; d < FB_DIGITS; d++)
            FB(add_var)(&row[d], &row[d - 1], &g);
        FB(batch_to_affine)(&table[(size_t)win * FB_DIGITS], row, FB_DIGITS);
        for (unsigned k = 0; k < FB_W; k++)
            FB(dbl)(&g, &g);
    }
    FB(fb_ctx) ctx = {table, scalars, out};
    g16__parallel_for(n, 256, FB(fb_chunk), &ctx);
cleanup:
    free(table);
    free(row);
    return st;
}

#undef FB_W
#undef FB_WINDOWS
#undef FB_DIGITS
