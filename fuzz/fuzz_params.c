/*
 * libFuzzer target for the Groth16 file parsers: parameters (checked and unchecked), verifying
 * keys and 192-byte proofs. Inputs decode or fail with a status; never crash, never leak. A
 * successful parameter decode must serialize back to the same bytes (trailing data aside).
 * First byte selects the parser, so one corpus covers all of them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "g16.h"
#include "groth16/groth16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_params_roundtrip(const g16_params *p, const uint8_t *data, size_t size)
{
    g16_params_info info;
    g16_params_get_info(p, &info);
    if (info.file_bytes > size)
        abort();
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_params_%d.bin", (int)getpid());
    if (g16_params_save(p, path, NULL) != G16_OK)
        abort();
    FILE *f = fopen(path, "rb");
    uint8_t *back = malloc(info.file_bytes + 1);
    size_t got = f && back ? fread(back, 1, info.file_bytes + 1, f) : 0;
    if (f)
        fclose(f);
    unlink(path);
    if (got != info.file_bytes || memcmp(back, data, got) != 0)
        abort();
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0] % 4;
    data++, size--;
    g16_error err;
    if (mode <= 1) {
        g16_params *p = NULL;
        g16_status st = g16_params_load_buffer(&p, data, size, mode ? G16_PARAMS_UNCHECKED : 0, &err);
        if (st == G16_OK)
            check_params_roundtrip(p, data, size);
        else if (p || !err.msg[0])
            abort(); /* failures leave no object and always explain themselves */
        g16_params_destroy(p);
    } else if (mode == 2) {
        g16_vk *vk = NULL;
        g16_status st = g16_vk_load_buffer(&vk, data, size, &err);
        if (st == G16_OK) {
            g16_pvk *pvk = NULL;
            if (g16_pvk_create(&pvk, vk, NULL) != G16_OK)
                abort();
            g16_pvk_destroy(pvk);
        } else if (vk || !err.msg[0]) {
            abort();
        }
        g16_vk_destroy(vk);
    } else if (size >= G16_PROOF_BYTES) {
        g16_proof proof;
        uint8_t again[G16_PROOF_BYTES];
        if (g16_proof_read(&proof, data, &err) == G16_OK) {
            g16_proof_write(again, &proof);
            if (memcmp(again, data, G16_PROOF_BYTES) != 0)
                abort();
        }
    }
    return 0;
}
