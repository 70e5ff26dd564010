/*
 * Host-side construction of the GPU NTT's tables (plain C, built with the CPU field): the device
 * code uploads them as one buffer, the host simulation in tests/test_gpu_ntt.c uses them directly.
 *
 * Layout: one array of g16_fr holding, at the element offsets below,
 *   small[d]  at 2^u + j: ω_{2^(u+1)}^(±j), j < 2^u, u < 11   (d = 0 forward, 1 inverse; entry 0
 *             is one, unused): the twiddles of a pass's stage u, contiguous so that the threads
 *             of a warp read consecutive entries
 *   direct[d] ω_{2^t}^(±e), e < 2^t, t = min(log_n, tmax), tmax = 19
 *   lo[d]     ω_n^(±j), j < 2^(log_n - t)
 *   sc_hi[s]  s0·X^(h·2^b), h < 2^(log_n - b);  sc_lo[s]  X^l, l < 2^b;  b = log_n / 2
 *             for the four scale sets of ntt_core.cuh (G16_SC_*): (1, g), (n^-1, g^-1),
 *             (n^-1, g), (n^-1·(g^n - 1)^-1, g^-1).
 * ω is derived from the root generator exactly as g16__ntt_domain does (g16__fr_root_of_unity_from).
 */
#ifndef G16_GPU_NTT_TABLES_H
#define G16_GPU_NTT_TABLES_H

#include <stddef.h>

#include "g16.h"

#ifdef __cplusplus
extern "C" {
#endif

#define G16__GPU_NTT_SETS 4

typedef struct {
    unsigned log_n, log_t, sc_bits;
    g16_fr *buf;  /* total elements (owned; free with g16__gpu_ntt_tables_free) */
    size_t total;
    size_t small[2], direct[2], lo[2], sc_hi[G16__GPU_NTT_SETS], sc_lo[G16__GPU_NTT_SETS]; /* offsets */
    g16_fr n_inv;
    g16_fr h_c0; /* n^-1·(g^n - 1)^-1: the H step's scale of c's inverse (ntt_core.cuh, ntt_plan_h_c) */
} g16__gpu_ntt_host_tables;

/* Elements of the table array for a domain of size 2^log_n. */
size_t g16__gpu_ntt_tables_elems(unsigned log_n);

/* Checks the parameters as g16__ntt_domain_create does (G16_ERR_ARG: log_n > 28, the generator a
 * quadratic residue, the shift zero or g^n = 1) and fills t (G16_ERR_NOMEM). coset_shift NULL
 * means the root generator. On failure t->buf is NULL. */
g16_status g16__gpu_ntt_tables_build(g16__gpu_ntt_host_tables *t, unsigned log_n, const g16_fr *root_generator,
                                     const g16_fr *coset_shift, g16_error *err);
/* The same with roots of order 2^min(log_n, tmax) in `direct` (tests force a small tmax so that
 * small sizes take the two-level path of the top pass; the GPU code uses tmax = 19). */
g16_status g16__gpu_ntt_tables_build_ex(g16__gpu_ntt_host_tables *t, unsigned log_n, const g16_fr *root_generator,
                                        const g16_fr *coset_shift, unsigned tmax, g16_error *err);
void g16__gpu_ntt_tables_free(g16__gpu_ntt_host_tables *t);

#ifdef __cplusplus
}
#endif
#endif
