/*
 * `rijn speed` for Poly1305-AES: the whole per-message work, i.e. AES-128
 * key setup and encryption of the nonce plus Poly1305 of the message and
 * the final addition, for
 *   - rijn_poly1305aes_authenticate() (the engine the library picks),
 *   - every Poly1305 engine this CPU runs, through the incremental API
 *     (rijn_aes_setkey + one block, rijn_poly1305_init_impl/update/final),
 *   - OpenSSL (libcrypto.so.3, loaded by the tool's peer loader,
 *     common/peers.c): EVP_EncryptInit_ex2 + EVP_EncryptUpdate of
 *     AES-128-ECB for the nonce, then EVP_MAC_init (POLY1305, key r || s)
 *     + EVP_MAC_update + EVP_MAC_final.
 * The rows are measured interleaved, repetition by repetition, and the
 * median of the repetitions is reported as core cycles per byte (core clock
 * estimated by clock_estimate_core_hz(), see common/clock.c) and as the
 * ratio of OpenSSL's time to rijn's. Before timing, every row's tag is compared with
 * OpenSSL's (or the library's when OpenSSL is absent).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common/clock.h"
#include "common/peers.h"
#include "rijn.h"
#include "rijn_poly1305.h"
#include "speed_mac.h"

/* ---- OpenSSL's EVP_MAC, through the peer loader (OpenSSL 3 ABI) ---------- */
typedef void *(*p_ptr_void)(void);
typedef void *(*p_fetch)(void *, const char *, const char *);
typedef void *(*p_mac_ctx_new)(void *);
typedef int (*p_mac_init)(void *, const unsigned char *, size_t,
                          const void *);
typedef int (*p_mac_update)(void *, const unsigned char *, size_t);
typedef int (*p_mac_final)(void *, unsigned char *, size_t *, size_t);
typedef int (*p_enc_init2)(void *, const void *, const unsigned char *,
                           const unsigned char *, const void *);
typedef int (*p_enc_update)(void *, unsigned char *, int *,
                            const unsigned char *, int);
typedef int (*p_set_padding)(void *, int);

static struct {
    int state; /* 0 untried, 1 loaded, -1 absent */
    void *mac, *mctx, *cipher, *cctx;
    p_mac_init mac_init;
    p_mac_update mac_update;
    p_mac_final mac_final;
    p_enc_init2 enc_init;
    p_enc_update enc_update;
    const char *version;
} ossl;

static int ossl_load(void)
{
    const peer *openssl;
    p_fetch mac_fetch, cipher_fetch;
    p_mac_ctx_new mac_ctx_new;
    p_ptr_void cipher_ctx_new;
    p_set_padding set_padding;

    if (ossl.state)
        return ossl.state > 0 ? 0 : -1;
    ossl.state = -1;
    openssl = peer_openssl();
    if (openssl == NULL)
        return -1;
    if (PEER_SYM(openssl, "EVP_MAC_fetch", mac_fetch) ||
        PEER_SYM(openssl, "EVP_MAC_CTX_new", mac_ctx_new) ||
        PEER_SYM(openssl, "EVP_MAC_init", ossl.mac_init) ||
        PEER_SYM(openssl, "EVP_MAC_update", ossl.mac_update) ||
        PEER_SYM(openssl, "EVP_MAC_final", ossl.mac_final) ||
        PEER_SYM(openssl, "EVP_CIPHER_fetch", cipher_fetch) ||
        PEER_SYM(openssl, "EVP_CIPHER_CTX_new", cipher_ctx_new) ||
        PEER_SYM(openssl, "EVP_CIPHER_CTX_set_padding", set_padding) ||
        PEER_SYM(openssl, "EVP_EncryptInit_ex2", ossl.enc_init) ||
        PEER_SYM(openssl, "EVP_EncryptUpdate", ossl.enc_update))
        return -1;
    ossl.mac = mac_fetch(NULL, "POLY1305", NULL);
    ossl.cipher = cipher_fetch(NULL, "AES-128-ECB", NULL);
    if (ossl.mac == NULL || ossl.cipher == NULL)
        return -1;
    ossl.mctx = mac_ctx_new(ossl.mac);
    ossl.cctx = cipher_ctx_new();
    if (ossl.mctx == NULL || ossl.cctx == NULL)
        return -1;
    if (ossl.enc_init(ossl.cctx, ossl.cipher, NULL, NULL, NULL) != 1)
        return -1;
    set_padding(ossl.cctx, 0);
    ossl.version = peer_version(openssl);
    ossl.state = 1;
    return 0;
}

/* Poly1305-AES with OpenSSL; -1 on an OpenSSL failure. */
static int ossl_poly1305aes(unsigned char out[16], const unsigned char kr[32],
                            const unsigned char n[16], const unsigned char *m,
                            size_t len)
{
    unsigned char key[32];
    size_t outl = 0;
    int l = 0;

    memcpy(key, kr + 16, 16);
    if (ossl.enc_init(ossl.cctx, NULL, kr, NULL, NULL) != 1 ||
        ossl.enc_update(ossl.cctx, key + 16, &l, n, 16) != 1 || l != 16 ||
        ossl.mac_init(ossl.mctx, key, 32, NULL) != 1 ||
        ossl.mac_update(ossl.mctx, m, len) != 1 ||
        ossl.mac_final(ossl.mctx, out, &outl, 16) != 1 || outl != 16)
        return -1;
    return 0;
}

/* ---- rows ------------------------------------------------------------- */
#define MAX_ROWS 8

typedef struct {
    char label[40];
    const char *engine; /* NULL: authenticate (default); "openssl" */
    int is_openssl;
} row;

static volatile unsigned char sink;

static int run_row(const row *r, unsigned char out[16],
                   const unsigned char kr[32], const unsigned char n[16],
                   const unsigned char *m, size_t len)
{
    if (r->is_openssl)
        return ossl_poly1305aes(out, kr, n, m, len);
    if (r->engine == NULL)
        return rijn_poly1305aes_authenticate(out, kr, n, m, len);
    {
        rijn_aes_key ak;
        rijn_poly1305_ctx ctx;
        unsigned char key[32];
        if (rijn_aes_setkey(&ak, kr, 16) != 0)
            return -1;
        memcpy(key, kr + 16, 16);
        rijn_aes_encrypt_blocks(&ak, key + 16, n, 1);
        if (rijn_poly1305_init_impl(&ctx, key, r->engine) != 0)
            return -1;
        rijn_poly1305_update(&ctx, m, len);
        rijn_poly1305_final(&ctx, out);
        return 0;
    }
}

/* Seconds for iters messages; the nonce changes every message. */
static double time_row(const row *r, unsigned char kr[32], unsigned char *m,
                       size_t len, size_t iters)
{
    unsigned char n[16] = {0}, out[16];
    double t0 = clock_now();
    for (size_t i = 0; i < iters; i++) {
        n[0] = (unsigned char)i;
        n[1] = (unsigned char)(i >> 8);
        run_row(r, out, kr, n, m, len);
        sink ^= out[0];
    }
    return clock_now() - t0;
}

int rijn_speed_poly1305(FILE *out, int json, int quick)
{
    static const size_t sizes[] = {16, 64, 256, 1024, 4096, 65536};
    enum { NSIZES = sizeof sizes / sizeof sizes[0] };
    row rows[MAX_ROWS];
    int nrows = 0, have_ossl = ossl_load() == 0, status = 0;
    int reps = quick ? 5 : 15;
    double target = quick ? 0.004 : 0.02; /* seconds per repetition */
    double hz = clock_estimate_core_hz(quick ? 0.05 : 0.2);
    double cpb[NSIZES][MAX_ROWS];
    unsigned char kr[32], *m;
    const char *def = rijn_poly1305_impl_default();

    if (have_ossl) {
        snprintf(rows[nrows].label, sizeof rows[nrows].label, "openssl");
        rows[nrows].engine = NULL;
        rows[nrows++].is_openssl = 1;
    }
    snprintf(rows[nrows].label, sizeof rows[nrows].label, "rijn(%s)",
             def ? def : "none");
    rows[nrows].engine = NULL;
    rows[nrows++].is_openssl = 0;
    for (size_t i = 0; i < rijn_poly1305_impl_count() && nrows < MAX_ROWS;
         i++) {
        rijn_impl_info info;
        if (rijn_poly1305_impl_get(i, &info) != 0 || !info.available)
            continue;
        snprintf(rows[nrows].label, sizeof rows[nrows].label, "%s",
                 info.name);
        rows[nrows].engine = info.name;
        rows[nrows++].is_openssl = 0;
    }

    m = malloc(sizes[NSIZES - 1] + 64);
    if (m == NULL)
        return -1;
    for (size_t i = 0; i < sizes[NSIZES - 1] + 64; i++)
        m[i] = (unsigned char)(i * 131 + 7);
    for (int i = 0; i < 32; i++)
        kr[i] = (unsigned char)(0xa5 ^ (i * 29));
    rijn_poly1305aes_clamp(kr);

    for (int s = 0; s < NSIZES; s++) {
        size_t len = sizes[s], iters[MAX_ROWS];
        double t[MAX_ROWS][32];
        unsigned char ref[16], tag[16], n[16] = {1, 2, 3};

        /* every row must produce the same tag */
        if (run_row(&rows[0], ref, kr, n, m, len) != 0)
            status = -1;
        for (int r = 1; r < nrows; r++)
            if (run_row(&rows[r], tag, kr, n, m, len) != 0 ||
                memcmp(tag, ref, 16) != 0) {
                fprintf(stderr, "rijn speed: %s tag differs from %s at %zu "
                        "bytes\n", rows[r].label, rows[0].label, len);
                status = -1;
            }
        /* calibrate each row to about `target` seconds */
        for (int r = 0; r < nrows; r++) {
            size_t it = 16;
            double el;
            while ((el = time_row(&rows[r], kr, m, len, it)) < target / 4 &&
                   it < ((size_t)1 << 30))
                it *= 2;
            it = (size_t)((double)it * target / (el > 0 ? el : 1e-9));
            iters[r] = it ? it : 1;
        }
        for (int k = 0; k < reps; k++)
            for (int r = 0; r < nrows; r++)
                t[r][k] = time_row(&rows[r], kr, m, len, iters[r]) /
                          (double)iters[r];
        for (int r = 0; r < nrows; r++)
            cpb[s][r] = median(t[r], reps) * hz / (double)len;
    }

    if (json) {
        fprintf(out, "{\"poly1305aes\": {\"core_hz\": %.0f, \"timer\": "
                "\"%s\", \"openssl\": \"%s\", ", hz, clock_name(),
                have_ossl ? ossl.version : "");
        /* how the peer was kept to RIJN_CPU_MASK's CPU (peers.h) */
        if (have_ossl && peer_cpu_mask() != NULL)
            fprintf(out, "\"openssl_cpu_mask\": \"%s\", ", peer_cpu_mask());
        fprintf(out, "\"rows\": [");
        for (int r = 0; r < nrows; r++) {
            fprintf(out, "%s{\"impl\": \"%s\", \"cycles_per_byte\": {",
                    r ? ", " : "", rows[r].label);
            for (int s = 0; s < NSIZES; s++)
                fprintf(out, "%s\"%zu\": %.4f", s ? ", " : "", sizes[s],
                        cpb[s][r]);
            fprintf(out, "}}");
        }
        fprintf(out, "]}}\n");
    } else {
        fprintf(out, "Poly1305-AES: AES-128 key setup + E_k(nonce) + "
                "Poly1305 + final, per message\n");
        fprintf(out, "cycles/byte (core clock %.2f GHz, estimated; median of "
                "%d interleaved runs)%s%s\n", hz * 1e-9, reps,
                have_ossl ? "; x = OpenSSL time / rijn time; OpenSSL: " : "",
                have_ossl ? ossl.version : "");
        if (have_ossl && peer_cpu_mask() != NULL)
            fprintf(out, "OpenSSL as on the CPU rijn sees, %s\n",
                    peer_cpu_mask());
        fprintf(out, "%-18s", "bytes");
        for (int s = 0; s < NSIZES; s++)
            fprintf(out, " %9zu", sizes[s]);
        fprintf(out, "\n");
        for (int r = 0; r < nrows; r++) {
            fprintf(out, "%-18s", rows[r].label);
            for (int s = 0; s < NSIZES; s++)
                fprintf(out, " %9.3f", cpb[s][r]);
            fprintf(out, "\n");
            if (have_ossl && r > 0) {
                fprintf(out, "%-18s", "  x openssl");
                for (int s = 0; s < NSIZES; s++)
                    fprintf(out, " %8.2fx", cpb[s][0] / cpb[s][r]);
                fprintf(out, "\n");
            }
        }
    }
    free(m);
    return status;
}
