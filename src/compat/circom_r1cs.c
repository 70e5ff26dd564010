/* A circom .r1cs as a bellman-style g16_r1cs: see circom_r1cs.h. */
#include "compat/circom_r1cs.h"

#include <stdlib.h>

#include "field/fr.h"
#include "util/error.h"
#include "util/trace.h"

static g16_var wire_var(uint64_t wire, uint64_t n_pub)
{
    return wire <= n_pub ? (g16_var)wire : (G16_VAR_AUX | (g16_var)(wire - n_pub - 1));
}

/* The first private wire with no nonzero term in any matrix, or UINT64_MAX. */
static g16_status check_constrained(const g16__r1cs_file *f, uint64_t n_pub, g16_error *err)
{
    uint64_t n_priv = f->n_wires - n_pub - 1;
    uint8_t *seen = calloc(n_priv ? n_priv : 1, 1);
    if (!seen)
        return g16__error(err, G16_ERR_NOMEM, "circom circuit: %llu wires", (unsigned long long)f->n_wires);
    for (int m = 0; m < 3; m++)
        for (uint64_t k = 0; k < f->rp[m][f->n_constraints]; k++)
            if (f->wire[m][k] > n_pub && !g16__fr_is_zero(&f->coeff[m][k]))
                seen[f->wire[m][k] - n_pub - 1] = 1;
    uint64_t bad = UINT64_MAX;
    for (uint64_t j = 0; j < n_priv && bad == UINT64_MAX; j++)
        if (!seen[j])
            bad = j;
    free(seen);
    if (bad == UINT64_MAX)
        return G16_OK;
    return g16__error(err, G16_ERR_ARG,
                      "circom circuit: private wire %llu occurs in no constraint; bellman-style circuits (and "
                      "parameters) cannot have one: prove from the zkey instead (g16 prove --zkey)",
                      (unsigned long long)(bad + n_pub + 1));
}

g16_status g16__r1cs_from_circom(g16_r1cs **out, const g16__r1cs_file *f, g16_error *err)
{
    g16_status st;
    g16_cs *cs = NULL;
    g16_lc *lc[3] = {NULL, NULL, NULL};
    g16__span span = g16__span_begin_n("r1cs.from_circom", f ? f->n_constraints : 0);
    if (!out || !f) {
        st = g16__error(err, G16_ERR_ARG, "g16__r1cs_from_circom: NULL argument");
        goto cleanup;
    }
    uint64_t n_pub = g16__r1cs_file_n_public(f);
    if (f->n_wires < n_pub + 1) {
        st = g16__error(err, G16_ERR_FORMAT, "circom circuit: %llu wires cannot hold ONE and %llu public values",
                        (unsigned long long)f->n_wires, (unsigned long long)n_pub);
        goto cleanup;
    }
    if ((st = check_constrained(f, n_pub, err)) != G16_OK)
        goto cleanup;
    if ((st = g16_cs_create(&cs, 0)) != G16_OK || (st = g16_lc_create(&lc[0])) != G16_OK ||
        (st = g16_lc_create(&lc[1])) != G16_OK || (st = g16_lc_create(&lc[2])) != G16_OK) {
        g16__error(err, st, "circom circuit: out of memory");
        goto cleanup;
    }
    g16_var v;
    for (uint64_t k = 1; k < f->n_wires; k++) {
        st = k <= n_pub ? g16_cs_alloc_input(cs, NULL, &v, err) : g16_cs_alloc_aux(cs, NULL, &v, err);
        if (st != G16_OK)
            goto cleanup;
    }
    for (uint64_t i = 0; i < f->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            g16_lc_clear(lc[m]);
            for (uint64_t k = f->rp[m][i]; k < f->rp[m][i + 1]; k++)
                if ((st = g16_lc_add(lc[m], wire_var(f->wire[m][k], n_pub), &f->coeff[m][k])) != G16_OK) {
                    g16__error(err, st, "circom circuit: constraint %llu: out of memory", (unsigned long long)i);
                    goto cleanup;
                }
        }
        if ((st = g16_cs_enforce(cs, lc[0], lc[1], lc[2], err)) != G16_OK) {
            g16__error_prefix(err, "circom circuit: constraint %llu: ", (unsigned long long)i);
            goto cleanup;
        }
    }
    if ((st = g16_cs_finalize(cs, out, err)) != G16_OK)
        g16__error_prefix(err, "circom circuit: ");
cleanup:
    for (int m = 0; m < 3; m++)
        g16_lc_destroy(lc[m]);
    g16_cs_destroy(cs);
    g16__span_end(span);
    return st;
}
