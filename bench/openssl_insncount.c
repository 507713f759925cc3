/*
 * The OpenSSL side of bench/arm64-insncount.sh: the operations of
 * bench/insncount_driver.c through OpenSSL's EVP interface, N times, so
 * that count(N) - count(0) guest instructions is their cost in the same
 * terms as rijn's. Built against Debian's arm64 libcrypto by the script;
 * OPENSSL_armcap in the environment selects OpenSSL's code path.
 *
 *   openssl_insncount OP BITS N
 *
 * OP (bytes per operation in brackets):
 *   stream   the next 4096 bytes of one AES-CTR stream (EVP_EncryptUpdate)
 *   p40      IV setup then 40 bytes (EVP_EncryptInit_ex with the IV only,
 *            EVP_EncryptUpdate) [40]
 *   key      one AES key setup (EVP_EncryptInit_ex with the key only) [-]
 *   gcm      the next 4096 bytes of one AES-GCM encryption [4096]
 *   gcm1420, gcm64
 *            one AES-GCM message: IV (12 bytes), EVP_EncryptUpdate,
 *            EVP_EncryptFinal_ex, the 16-byte tag; key set once [1420, 64]
 *   poly     the next 4096 bytes of one Poly1305 (EVP_MAC_update) [4096]
 *   poly64   Poly1305 of 64 bytes with its key (EVP_MAC_init, _update,
 *            _final) [64]
 * Every operation is done once before the N counted ones (warm-up).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>

static unsigned char buf[4096], key[32], iv[16], tag[16];
static EVP_CIPHER_CTX *ctx;
static EVP_MAC_CTX *mctx;

static void die(const char *what)
{
    fprintf(stderr, "openssl_insncount: %s failed\n", what);
    exit(1);
}

static void gcm_message(size_t len)
{
    int n;

    if (!EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv) ||
        !EVP_EncryptUpdate(ctx, buf, &n, buf, (int)len) ||
        !EVP_EncryptFinal_ex(ctx, buf + n, &n) ||
        !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag))
        die("GCM message");
}

static void run(const char *op, unsigned long n)
{
    unsigned long i;
    int len;
    size_t tl;

    for (i = 0; i < n; i++) {
        if (strcmp(op, "stream") == 0 || strcmp(op, "gcm") == 0) {
            if (!EVP_EncryptUpdate(ctx, buf, &len, buf, sizeof buf))
                die("EVP_EncryptUpdate");
        } else if (strcmp(op, "p40") == 0) {
            if (!EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv) ||
                !EVP_EncryptUpdate(ctx, buf, &len, buf, 40))
                die("packet");
        } else if (strcmp(op, "key") == 0) {
            if (!EVP_EncryptInit_ex(ctx, NULL, NULL, key, NULL))
                die("key setup");
        } else if (strcmp(op, "gcm1420") == 0) {
            gcm_message(1420);
        } else if (strcmp(op, "gcm64") == 0) {
            gcm_message(64);
        } else if (strcmp(op, "poly") == 0) {
            if (!EVP_MAC_update(mctx, buf, sizeof buf))
                die("EVP_MAC_update");
        } else if (strcmp(op, "poly64") == 0) {
            if (!EVP_MAC_init(mctx, key, 32, NULL) ||
                !EVP_MAC_update(mctx, buf, 64) ||
                !EVP_MAC_final(mctx, tag, &tl, sizeof tag))
                die("Poly1305");
        } else {
            fprintf(stderr, "openssl_insncount: unknown operation %s\n", op);
            exit(2);
        }
    }
}

int main(int argc, char **argv)
{
    const char *op;
    unsigned long bits, n;
    const EVP_CIPHER *cipher;

    if (argc != 4) {
        fprintf(stderr, "usage: openssl_insncount OP BITS N\n");
        return 2;
    }
    op = argv[1];
    bits = strtoul(argv[2], NULL, 10);
    n = strtoul(argv[3], NULL, 10);
    for (size_t i = 0; i < sizeof key; i++)
        key[i] = (unsigned char)(3 * i + 1);
    for (size_t i = 0; i < sizeof iv; i++)
        iv[i] = (unsigned char)(0xf0 + i);
    if (strncmp(op, "gcm", 3) == 0)
        cipher = bits == 256 ? EVP_aes_256_gcm() : EVP_aes_128_gcm();
    else
        cipher = bits == 256 ? EVP_aes_256_ctr() : EVP_aes_128_ctr();
    ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL || !EVP_EncryptInit_ex(ctx, cipher, NULL, key, iv))
        die("cipher setup");
    if (strncmp(op, "poly", 4) == 0) {
        EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
        if (mac == NULL || (mctx = EVP_MAC_CTX_new(mac)) == NULL ||
            !EVP_MAC_init(mctx, key, 32, NULL))
            die("Poly1305 setup");
    }
    run(op, 1); /* warm-up, in both the N and the 0 run */
    run(op, n);
    printf("openssl %s check %02x\n", OpenSSL_version(OPENSSL_VERSION),
           buf[0]);
    return 0;
}
