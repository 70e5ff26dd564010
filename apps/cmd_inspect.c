/* g16 inspect (parameter and verifying-key files) and g16 inspect-proof (192-byte proofs). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "util/blake2b.h"

#define NOPTS(a) (sizeof(a) / sizeof((a)[0]))

typedef struct {
    const char *name;
    uint64_t offset, count;
    unsigned point_bytes;
} section;

static uint32_t be32(const uint8_t *b) { return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]; }

/* Walks the bellman layout without decoding points: nsec sections found (7 for parameters: the
 * vk fixed part, ic, h, l, a, b_g1, b_g2; 2 for a verifying key). Returns the bytes consumed. */
static uint64_t walk(const uint8_t *b, uint64_t len, section *s, int *nsec)
{
    static const char *names[] = {"h", "l", "a", "b_g1", "b_g2"};
    uint64_t off = 3 * 96 + 3 * 192;
    *nsec = 0;
    if (len < off + 4)
        return 0;
    s[(*nsec)++] = (section){"vk (alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2)", 0, 6, 0};
    uint64_t n = be32(b + off);
    if ((len - off - 4) / 96 < n)
        return 0;
    s[(*nsec)++] = (section){"ic", off, n, 96};
    off += 4 + n * 96;
    for (int i = 0; i < 5; i++) {
        unsigned size = i == 4 ? 192 : 96;
        if (len - off < 4)
            return off;
        n = be32(b + off);
        if ((len - off - 4) / size < n)
            return off;
        s[(*nsec)++] = (section){names[i], off, n, size};
        off += 4 + n * size;
    }
    return off;
}

int g16__app_inspect(int argc, char **argv)
{
    cli_opt opts[] = {
        {"--check", NULL, "decode every point with the curve and subgroup checks", NULL, 0},
        {"--unchecked", NULL, "with --check: skip the subgroup checks", NULL, 0},
    };
    const char *file = NULL;
    if (argc >= 2 && argv[1][0] != '-') {
        file = argv[1];
        argv[1] = argv[0];
        argc--, argv++;
    }
    int rc = cli_parse(argc, argv, opts, NOPTS(opts), "g16 inspect FILE [--check [--unchecked]]",
                       "Prints the sections, counts and BLAKE2b digest of a parameter or verifying-key file.");
    if (rc)
        return rc < 0 ? 2 : 0;
    if (!file) {
        fprintf(stderr, "g16 inspect: a FILE is required\n");
        return 2;
    }
    int fd = open(file, O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        fprintf(stderr, "g16 inspect: %s: %s\n", file, strerror(errno));
        if (fd >= 0)
            close(fd);
        return 2;
    }
    uint64_t len = (uint64_t)sb.st_size;
    const uint8_t *b = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (len && b == MAP_FAILED) {
        fprintf(stderr, "g16 inspect: %s: mmap: %s\n", file, strerror(errno));
        return 2;
    }
    section s[7];
    int nsec;
    uint64_t used = walk(b, len, s, &nsec);
    g16__blake2b h;
    uint8_t digest[64];
    g16__blake2b_init(&h, 64);
    g16__blake2b_update(&h, b, len);
    g16__blake2b_final(&h, digest);
    printf("file: %s\nbytes: %llu\nblake2b-512: ", file, (unsigned long long)len);
    for (int i = 0; i < 64; i++)
        printf("%02x", digest[i]);
    printf("\ndigest (Filecoin manifest form, first 32 hex digits): ");
    for (int i = 0; i < 16; i++)
        printf("%02x", digest[i]);
    const char *kind = nsec == 7 ? "Groth16 parameters (bellman layout)"
                       : nsec >= 2 && used == len ? "Groth16 verifying key (bellman layout)"
                                                  : "unrecognized (truncated or not a bellman file)";
    printf("\nkind: %s\n", kind);
    for (int i = 0; i < nsec; i++)
        printf("  %-8s count %-12llu at byte %llu\n", i == 0 ? "vk" : s[i].name, (unsigned long long)s[i].count,
               (unsigned long long)s[i].offset);
    if (nsec == 7 && used < len)
        printf("trailing bytes after b_g2: %llu (e.g. an MPC transcript; ignored)\n", (unsigned long long)(len - used));
    rc = nsec == 7 || (nsec >= 2 && used == len) ? 0 : 2;
    if (rc == 0 && opts[0].set) {
        g16_error err = {0};
        g16_status st;
        unsigned flags = opts[1].set ? G16_PARAMS_UNCHECKED : 0;
        if (nsec == 7) {
            g16_params *p = NULL;
            st = g16_params_load_buffer(&p, b, len, flags, &err);
            g16_params_destroy(p);
        } else {
            g16_vk *vk = NULL;
            st = g16_vk_load_buffer(&vk, b, len, &err);
            g16_vk_destroy(vk);
        }
        if (st == G16_OK)
            printf("check: every point decodes%s\n", opts[1].set ? " (curve checked, subgroup skipped)" : " (curve and subgroup checked)");
        else
            rc = cli_fail("inspect", st, &err, "check failed");
    }
    if (b)
        munmap((void *)b, len);
    return rc;
}

static void print_hex(const char *label, const uint8_t *b, size_t n)
{
    printf("  %s ", label);
    for (size_t i = 0; i < n; i++)
        printf("%02x", b[i]);
    printf("\n");
}

int g16__app_inspect_proof(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        printf("usage: g16 inspect-proof FILE\nDecodes 192-byte Groth16 proofs (A G1 | B G2 | C G1, compressed) with\n"
               "every check and prints their points; exit 0 only when every proof decodes.\n");
        return argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) ? 0 : 2;
    }
    uint8_t *buf;
    size_t len;
    g16_error err = {0};
    g16_status st = cli_read_file(argv[1], &buf, &len, &err);
    if (st != G16_OK)
        return cli_fail("inspect-proof", st, &err, "reading");
    int rc = 0;
    if (len == 0 || len % G16_PROOF_BYTES) {
        fprintf(stderr, "g16 inspect-proof: %s: %zu bytes is not a multiple of 192\n", argv[1], len);
        free(buf);
        return 2;
    }
    for (size_t i = 0; i < len / G16_PROOF_BYTES; i++) {
        const uint8_t *p = buf + i * G16_PROOF_BYTES;
        g16_proof proof;
        uint8_t again[G16_PROOF_BYTES];
        printf("proof %zu:\n", i);
        print_hex("A", p, 48);
        print_hex("B", p + 48, 96);
        print_hex("C", p + 144, 48);
        st = g16_proof_read(&proof, p, &err);
        if (st == G16_OK) {
            g16_proof_write(again, &proof);
            if (memcmp(again, p, sizeof again) != 0)
                st = G16_ERR_INTERNAL;
        }
        if (st == G16_OK) {
            printf("  ok: on the curves, in the subgroups, canonical encoding\n");
        } else {
            fprintf(stderr, "g16 inspect-proof: proof %zu (bytes %zu..%zu): %s\n", i, i * 192, i * 192 + 191,
                    st == G16_ERR_INTERNAL ? "re-encoding differs" : err.msg);
            rc = 2;
        }
    }
    free(buf);
    return rc;
}
