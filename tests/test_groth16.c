/* Groth16 end to end on the CPU: setup, prove, verify, batches, files, and every failure path. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "field/fr.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"

/* x³ + x + 5 = y with y public: constraints x·x = x2, x2·x = x3, (x3 + x + 5)·1 = y. */
static g16_r1cs *cubic_circuit(uint64_t xv, g16_fr **witness, size_t *w_len)
{
    g16_cs *cs;
    g16_lc *a, *b, *c;
    g16_var x, x2, x3, y;
    g16_fr fx, fx2, fx3, fy, five;
    g16__fr_from_u64(&fx, xv);
    g16__fr_mul(&fx2, &fx, &fx);
    g16__fr_mul(&fx3, &fx2, &fx);
    g16__fr_from_u64(&five, 5);
    g16__fr_add(&fy, &fx3, &fx);
    g16__fr_add(&fy, &fy, &five);
    assert_int_equal(g16_cs_create(&cs, G16_CS_WITNESS), G16_OK);
    assert_int_equal(g16_cs_alloc_input(cs, &fy, &y, NULL), G16_OK);
    assert_int_equal(g16_cs_alloc_aux(cs, &fx, &x, NULL), G16_OK);
    assert_int_equal(g16_cs_alloc_aux(cs, &fx2, &x2, NULL), G16_OK);
    assert_int_equal(g16_cs_alloc_aux(cs, &fx3, &x3, NULL), G16_OK);
    g16_lc_create(&a);
    g16_lc_create(&b);
    g16_lc_create(&c);
    g16_lc_add(a, x, NULL), g16_lc_add(b, x, NULL), g16_lc_add(c, x2, NULL);
    assert_int_equal(g16_cs_enforce(cs, a, b, c, NULL), G16_OK);
    g16_lc_clear(a), g16_lc_clear(b), g16_lc_clear(c);
    g16_lc_add(a, x2, NULL), g16_lc_add(b, x, NULL), g16_lc_add(c, x3, NULL);
    assert_int_equal(g16_cs_enforce(cs, a, b, c, NULL), G16_OK);
    g16_lc_clear(a), g16_lc_clear(b), g16_lc_clear(c);
    g16_lc_add(a, x3, NULL), g16_lc_add(a, x, NULL), g16_lc_add(a, G16_VAR_ONE, &five);
    g16_lc_add(b, G16_VAR_ONE, NULL), g16_lc_add(c, y, NULL);
    assert_int_equal(g16_cs_enforce(cs, a, b, c, NULL), G16_OK);
    g16_r1cs *r;
    assert_int_equal(g16_cs_finalize(cs, &r, NULL), G16_OK);
    *w_len = g16_cs_num_inputs(cs) + g16_cs_num_aux(cs);
    *witness = malloc(*w_len * sizeof(g16_fr));
    assert_int_equal(g16_cs_witness(cs, *witness, *w_len, NULL), G16_OK);
    g16_lc_destroy(a), g16_lc_destroy(b), g16_lc_destroy(c);
    g16_cs_destroy(cs);
    return r;
}

static g16_setup_opts seeded(void)
{
    g16_setup_opts o = {1, tu_rand64()};
    return o;
}

static void test_cubic_prove_verify(void **state)
{
    (void)state;
    g16_fr *w;
    size_t w_len;
    g16_r1cs *r = cubic_circuit(3, &w, &w_len);
    g16_params *p;
    g16_setup_opts so = seeded();
    g16_error err = {0};
    assert_int_equal(g16_setup(&p, r, &so, &err), G16_OK);
    g16_params_info info;
    g16_params_get_info(p, &info);
    assert_int_equal(info.n_ic, 2);
    assert_int_equal(info.n_l, 3);
    assert_int_equal(info.n_h, 7); /* 3 constraints + 2 inputs -> N = 8 */

    g16_proof proof;
    const g16_fr *ws[1] = {w};
    assert_int_equal(g16_prove(&proof, p, r, ws, 1, NULL, &err), G16_OK);
    g16_pvk *pvk;
    assert_int_equal(g16_pvk_create(&pvk, g16_params_vk(p), NULL), G16_OK);
    assert_int_equal(g16_verify(pvk, &proof, &w[1], 1, &err), G16_OK);

    /* a wrong public input, a wrong input count, and tampered proofs are refused */
    g16_fr bad = w[1];
    g16__fr_add(&bad, &bad, &g16__fr_one);
    assert_int_equal(g16_verify(pvk, &proof, &bad, 1, NULL), G16_ERR_VERIFY_FAILED);
    assert_int_equal(g16_verify(pvk, &proof, &w[1], 0, NULL), G16_ERR_SIZE_MISMATCH);
    g16_proof t = proof;
    t.a = proof.c;
    assert_int_equal(g16_verify(pvk, &t, &w[1], 1, NULL), G16_ERR_VERIFY_FAILED);
    t = proof;
    g16__p2_affine_neg(&t.b, &t.b);
    assert_int_equal(g16_verify(pvk, &t, &w[1], 1, NULL), G16_ERR_VERIFY_FAILED);

    /* bytes round trip */
    uint8_t bytes[G16_PROOF_BYTES], again[G16_PROOF_BYTES];
    g16_proof_write(bytes, &proof);
    assert_int_equal(g16_proof_read(&t, bytes, NULL), G16_OK);
    g16_proof_write(again, &t);
    assert_memory_equal(bytes, again, sizeof bytes);
    bytes[0] ^= 0x20; /* flip A's sign: still a valid point, a different proof */
    if (g16_proof_read(&t, bytes, NULL) == G16_OK)
        assert_int_equal(g16_verify(pvk, &t, &w[1], 1, NULL), G16_ERR_VERIFY_FAILED);
    bytes[0] = 0x00; /* compressed flag missing */
    assert_int_equal(g16_proof_read(&t, bytes, &err), G16_ERR_ENCODING_FLAGS);
    assert_non_null(strstr(err.msg, "A"));

    /* a key from another setup refuses the proof */
    g16_params *p2;
    g16_pvk *pvk2;
    g16_setup_opts so2 = seeded();
    assert_int_equal(g16_setup(&p2, r, &so2, NULL), G16_OK);
    assert_int_equal(g16_pvk_create(&pvk2, g16_params_vk(p2), NULL), G16_OK);
    assert_int_equal(g16_verify(pvk2, &proof, &w[1], 1, NULL), G16_ERR_VERIFY_FAILED);

    /* an unsatisfying witness is refused before any proving */
    g16__fr_add(&w[3], &w[3], &g16__fr_one);
    assert_int_equal(g16_prove(&t, p, r, ws, 1, NULL, &err), G16_ERR_UNSATISFIED);
    printf("  unsatisfied: %s\n", err.msg);

    g16_pvk_destroy(pvk2);
    g16_params_destroy(p2);
    g16_pvk_destroy(pvk);
    g16_params_destroy(p);
    g16_r1cs_destroy(r);
    free(w);
}

static void demo_batch(g16_demo_kind kind, uint64_t m, size_t count)
{
    g16_cs *cs;
    g16_r1cs *r;
    g16_error err = {0};
    assert_int_equal(g16_demo_circuit(&cs, kind, m, tu_rand64(), &err), G16_OK);
    assert_int_equal(g16_cs_finalize(cs, &r, &err), G16_OK);
    g16_r1cs_info ri;
    g16_r1cs_get_info(r, &ri);
    size_t w_len = ri.num_inputs + ri.num_aux;
    g16_fr *w = malloc(w_len * sizeof *w);
    assert_int_equal(g16_cs_witness(cs, w, w_len, NULL), G16_OK);
    g16_params *p;
    g16_setup_opts so = seeded();
    assert_int_equal(g16_setup(&p, r, &so, &err), G16_OK);

    /* the batch: the same circuit with count witnesses (here the same one, different r, s) */
    const g16_fr **ws = malloc(count * sizeof *ws);
    const g16_fr **ins = malloc(count * sizeof *ins);
    g16_proof *proofs = malloc(count * sizeof *proofs);
    g16_fr *rs = malloc(2 * count * sizeof *rs);
    for (size_t i = 0; i < count; i++) {
        ws[i] = w;
        ins[i] = w + 1;
        tu_rand_fr(&rs[i]);
        tu_rand_fr(&rs[count + i]);
    }
    g16_prove_opts po = {.r = rs, .s = rs + count};
    assert_int_equal(g16_prove(proofs, p, r, ws, count, &po, &err), G16_OK);
    g16_pvk *pvk;
    assert_int_equal(g16_pvk_create(&pvk, g16_params_vk(p), NULL), G16_OK);
    for (size_t i = 0; i < count; i++)
        assert_int_equal(g16_verify(pvk, &proofs[i], w + 1, ri.num_inputs - 1, &err), G16_OK);
    assert_int_equal(g16_verify_batch(pvk, proofs, ins, ri.num_inputs - 1, count, &err), G16_OK);

    /* fixed r, s: the same proof again, bit for bit; without self-verification too */
    g16_proof again;
    g16_prove_opts po1 = {.flags = G16_PROVE_NO_VERIFY, .r = rs, .s = rs + count};
    assert_int_equal(g16_prove(&again, p, r, ws, 1, &po1, &err), G16_OK);
    uint8_t b1[G16_PROOF_BYTES], b2[G16_PROOF_BYTES];
    g16_proof_write(b1, &proofs[0]);
    g16_proof_write(b2, &again);
    assert_memory_equal(b1, b2, sizeof b1);

    /* one bad proof spoils the batch */
    if (count > 1) {
        proofs[count - 1].c = proofs[0].a;
        assert_int_equal(g16_verify_batch(pvk, proofs, ins, ri.num_inputs - 1, count, NULL), G16_ERR_VERIFY_FAILED);
    }
    g16_pvk_destroy(pvk);
    g16_params_destroy(p);
    g16_r1cs_destroy(r);
    g16_cs_destroy(cs);
    free(ws), free(ins), free(proofs), free(rs), free(w);
}

static void test_demo_bits_batch(void **state)
{
    (void)state;
    demo_batch(G16_DEMO_BITS, 1024, 3);
}

static void test_demo_field_batch(void **state)
{
    (void)state;
    demo_batch(G16_DEMO_FIELD, 1024, 2);
}

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(*len ? *len : 1);
    assert_int_equal(fread(buf, 1, *len, f), *len);
    fclose(f);
    return buf;
}

static void test_params_files(void **state)
{
    (void)state;
    g16_fr *w;
    size_t w_len, len, len2;
    g16_r1cs *r = cubic_circuit(5, &w, &w_len);
    g16_params *p, *q;
    g16_setup_opts so = seeded();
    g16_error err = {0};
    char path[64], path2[64], vkpath[64];
    snprintf(path, sizeof path, "/tmp/g16_test_params_%d.bin", (int)getpid());
    snprintf(path2, sizeof path2, "/tmp/g16_test_params2_%d.bin", (int)getpid());
    snprintf(vkpath, sizeof vkpath, "/tmp/g16_test_vk_%d.bin", (int)getpid());
    assert_int_equal(g16_setup(&p, r, &so, &err), G16_OK);
    assert_int_equal(g16_params_save(p, path, &err), G16_OK);
    assert_int_equal(g16_params_load(&q, path, 0, &err), G16_OK);
    assert_int_equal(g16_params_save(q, path2, &err), G16_OK);
    uint8_t *f1 = read_all(path, &len), *f2 = read_all(path2, &len2);
    g16_params_info info;
    g16_params_get_info(p, &info);
    assert_int_equal(len, info.file_bytes);
    assert_int_equal(len, len2);
    assert_memory_equal(f1, f2, len);

    /* the loaded parameters prove */
    g16_proof proof;
    const g16_fr *ws[1] = {w};
    assert_int_equal(g16_prove(&proof, q, r, ws, 1, NULL, &err), G16_OK);

    /* vk file: the parameter file's prefix */
    assert_int_equal(g16_vk_save(g16_params_vk(q), vkpath, &err), G16_OK);
    size_t vlen;
    uint8_t *vb = read_all(vkpath, &vlen);
    assert_int_equal(vlen, g16__vk_serialized_size(2));
    assert_memory_equal(vb, f1, vlen);
    g16_vk *vk;
    assert_int_equal(g16_vk_load(&vk, vkpath, &err), G16_OK);
    g16_pvk *pvk;
    assert_int_equal(g16_pvk_create(&pvk, vk, NULL), G16_OK);
    assert_int_equal(g16_verify(pvk, &proof, &w[1], 1, &err), G16_OK);

    /* truncation anywhere is reported with a section name; never accepted */
    size_t cuts[] = {0, 1, 95, 96, 500, vlen - 1, vlen, vlen + 3, vlen + 4, len - 193, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        g16_params *t = NULL;
        assert_int_equal(g16_params_load_buffer(&t, f1, cuts[i], 0, &err), G16_ERR_TRUNCATED);
        assert_null(t);
        printf("  cut at %zu: %s\n", cuts[i], err.msg);
    }
    /* trailing bytes (an MPC transcript) are ignored */
    uint8_t *longer = malloc(len + 64);
    memcpy(longer, f1, len);
    memset(longer + len, 0xab, 64);
    g16_params *t = NULL;
    assert_int_equal(g16_params_load_buffer(&t, longer, len + 64, 0, &err), G16_OK);
    g16_params_destroy(t);
    /* a corrupted coordinate in the l section: off the curve, with section and offset */
    size_t l_off = vlen + 4 + info.n_h * 96 + 4;
    uint8_t *bad = malloc(len);
    memcpy(bad, f1, len);
    bad[l_off + 96 + 47] ^= 1; /* point 1 of l, last byte of x */
    assert_int_equal(g16_params_load_buffer(&t, bad, len, 0, &err), G16_ERR_NOT_ON_CURVE);
    assert_non_null(strstr(err.msg, "l: point 1"));
    printf("  corrupt: %s\n", err.msg);
    /* a point at infinity in a query is refused, as bellman does */
    memcpy(bad, f1, len);
    memset(bad + l_off, 0, 96);
    bad[l_off] = 0x40;
    assert_int_equal(g16_params_load_buffer(&t, bad, len, 0, &err), G16_ERR_FORMAT);
    /* a count larger than the file */
    memcpy(bad, f1, len);
    bad[vlen] = 0x7f;
    assert_int_equal(g16_params_load_buffer(&t, bad, len, 0, &err), G16_ERR_TRUNCATED);
    assert_non_null(strstr(err.msg, "h:"));
    /* a missing file */
    assert_int_equal(g16_params_load(&t, "/nonexistent/g16.params", 0, &err), G16_ERR_IO);

    /* parameters of another circuit: a size mismatch, not a wrong proof */
    g16_cs *cs;
    g16_r1cs *other;
    assert_int_equal(g16_demo_circuit(&cs, G16_DEMO_FIELD, 512, 1, NULL), G16_OK);
    assert_int_equal(g16_cs_finalize(cs, &other, NULL), G16_OK);
    assert_int_equal(g16_prove(&proof, q, other, ws, 1, NULL, &err), G16_ERR_SIZE_MISMATCH);
    printf("  mismatch: %s\n", err.msg);

    g16_cs_destroy(cs);
    g16_r1cs_destroy(other);
    g16_pvk_destroy(pvk);
    g16_vk_destroy(vk);
    g16_params_destroy(p);
    g16_params_destroy(q);
    g16_r1cs_destroy(r);
    unlink(path), unlink(path2), unlink(vkpath);
    free(f1), free(f2), free(vb), free(longer), free(bad), free(w);
}

/* Backend choice: a bad name and a missing GPU are clear errors; with a GPU, the GPU backend's
 * proof is byte for byte the CPU's for the same r and s. */
static void test_backends(void **state)
{
    (void)state;
    g16_cs *cs;
    g16_r1cs *r;
    g16_error err = {0};
    assert_int_equal(g16_demo_circuit(&cs, G16_DEMO_BITS, 4096, tu_rand64(), &err), G16_OK);
    assert_int_equal(g16_cs_finalize(cs, &r, &err), G16_OK);
    size_t w_len = g16_cs_num_inputs(cs) + g16_cs_num_aux(cs);
    g16_fr *w = malloc(w_len * sizeof *w), rs[2];
    assert_int_equal(g16_cs_witness(cs, w, w_len, NULL), G16_OK);
    g16_params *p;
    g16_setup_opts so = seeded();
    assert_int_equal(g16_setup(&p, r, &so, &err), G16_OK);
    tu_rand_fr(&rs[0]);
    tu_rand_fr(&rs[1]);
    const g16_fr *ws[1] = {w};
    g16_proof cpu, gpu;
    g16_prove_opts po = {.r = &rs[0], .s = &rs[1], .backend = "cpu"};
    assert_int_equal(g16_prove(&cpu, p, r, ws, 1, &po, &err), G16_OK);
    po.backend = "tpu";
    assert_int_equal(g16_prove(&gpu, p, r, ws, 1, &po, &err), G16_ERR_ARG);
    po.backend = "gpu";
    g16_status st = g16_prove(&gpu, p, r, ws, 1, &po, &err);
    if (g16__gpu_device_count() == 0) {
        assert_int_equal(st, G16_ERR_NO_DEVICE);
        printf("  no CUDA device: %s\n", err.msg);
    } else {
        assert_int_equal(st, G16_OK);
        uint8_t a[G16_PROOF_BYTES], b[G16_PROOF_BYTES];
        g16_proof_write(a, &cpu);
        g16_proof_write(b, &gpu);
        assert_memory_equal(a, b, sizeof a);
        printf("  GPU proof = CPU proof, byte for byte\n");
    }
    po.backend = "auto"; /* either way a valid proof */
    assert_int_equal(g16_prove(&gpu, p, r, ws, 1, &po, &err), G16_OK);
    g16_params_destroy(p);
    g16_r1cs_destroy(r);
    g16_cs_destroy(cs);
    free(w);
}

/* The backend line: said when it differs from the last one, not again for the same plan. stderr goes
 * to a temporary file meanwhile (fd 2 restored after). */
static void test_backend_notice(void **state)
{
    (void)state;
    char path[] = "/tmp/g16_notice_XXXXXX", buf[1024] = "";
    int fd = mkstemp(path), saved;
    assert_true(fd >= 0);
    fflush(stderr);
    assert_true((saved = dup(2)) >= 0);
    assert_int_equal(dup2(fd, 2), 2);
    const char *said[] = {"plan one (test)", "plan one (test)", "plan two (test)", "plan two (test)", "plan one (test)"};
    for (size_t i = 0; i < sizeof said / sizeof *said; i++)
        g16__backend_notice(said[i]);
    fflush(stderr);
    assert_int_equal(dup2(saved, 2), 2);
    close(saved);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    buf[len] = 0;
    fclose(f);
    close(fd);
    unlink(path);
    assert_string_equal(buf, "g16: backend plan one (test)\ng16: backend plan two (test)\ng16: backend plan one (test)\n");
}

int main(void)
{
    tu_seed("test_groth16");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cubic_prove_verify),
        cmocka_unit_test(test_demo_bits_batch),
        cmocka_unit_test(test_demo_field_batch),
        cmocka_unit_test(test_params_files),
        cmocka_unit_test(test_backends),
        cmocka_unit_test(test_backend_notice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
