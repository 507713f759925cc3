/*
 * provider.params: the parameter surface of every cipher rijn.so serves is
 * the default provider's (OpenSSL 3.0): the same names for each algorithm
 * (and every name the default provider gives it, the OIDs included), the
 * same gettable, gettable-context and settable-context parameter lists
 * (names, types, sizes, in order), and the same algorithm parameter values
 * (mode, key and IV length, block size, AEAD and custom-IV flags, ...).
 * What `openssl list -cipher-algorithms -verbose` prints, checked through
 * the API so no formatting gets in the way.
 *
 * Usage: test_params_list /abs/path/rijn.so
 */
#include <stdio.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "provtest.h"

static const char *const ciphers[] = {
    "AES-128-GCM", "AES-192-GCM", "AES-256-GCM",
    "AES-128-CTR", "AES-192-CTR", "AES-256-CTR",
};

static int failures;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            failures++;                                                       \
            printf("FAIL: " __VA_ARGS__);                                     \
            putchar('\n');                                                    \
        }                                                                     \
    } while (0)

/* Two parameter lists are the same: keys, types and sizes, in order. */
static int same_list(const char *what, const char *name, const OSSL_PARAM *a,
                     const OSSL_PARAM *b)
{
    size_t i;

    if (a == NULL || b == NULL) {
        CHECK(a == b, "%s %s: one list missing", name, what);
        return a == b;
    }
    for (i = 0; a[i].key != NULL && b[i].key != NULL; i++) {
        CHECK(strcmp(a[i].key, b[i].key) == 0 &&
                  a[i].data_type == b[i].data_type &&
                  a[i].data_size == b[i].data_size,
              "%s %s [%zu]: rijn %s (type %u, size %zu), default %s "
              "(type %u, size %zu)",
              name, what, i, a[i].key, a[i].data_type, a[i].data_size,
              b[i].key, b[i].data_type, b[i].data_size);
    }
    CHECK(a[i].key == NULL && b[i].key == NULL,
          "%s %s: lists of different lengths", name, what);
    return 1;
}

/* Every name of the default's algorithm is a name of rijn's. */
static void add_name(const char *n, void *arg)
{
    const EVP_CIPHER *r = arg;

    CHECK(EVP_CIPHER_is_a(r, n), "%s: rijn's algorithm lacks the name %s",
          EVP_CIPHER_get0_name(r), n);
}

/* The algorithm parameters' values, through EVP_CIPHER_get_params. */
static void same_values(const char *name, EVP_CIPHER *r, EVP_CIPHER *d)
{
    unsigned int mode[2];
    size_t keylen[2], ivlen[2], bs[2];
    int aead[2], civ[2], cts[2], multi[2], rk[2];
    int i;

    for (i = 0; i < 2; i++) {
        OSSL_PARAM p[] = {
            OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, &mode[i]),
            OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, &keylen[i]),
            OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen[i]),
            OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, &bs[i]),
            OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, &aead[i]),
            OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, &civ[i]),
            OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, &cts[i]),
            OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, &multi[i]),
            OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, &rk[i]),
            OSSL_PARAM_END};
        CHECK(EVP_CIPHER_get_params(i ? d : r, p) == 1,
              "%s: get_params failed (%s)", name, i ? "default" : "rijn");
    }
    CHECK(mode[0] == mode[1] && keylen[0] == keylen[1] &&
              ivlen[0] == ivlen[1] && bs[0] == bs[1] && aead[0] == aead[1] &&
              civ[0] == civ[1] && cts[0] == cts[1] &&
              multi[0] == multi[1] && rk[0] == rk[1],
          "%s: algorithm parameters differ (mode %u/%u keylen %zu/%zu ivlen "
          "%zu/%zu blocksize %zu/%zu aead %d/%d custom-iv %d/%d)",
          name, mode[0], mode[1], keylen[0], keylen[1], ivlen[0], ivlen[1],
          bs[0], bs[1], aead[0], aead[1], civ[0], civ[1]);
    /* and what EVP caches from them */
    CHECK(EVP_CIPHER_get_flags(r) == EVP_CIPHER_get_flags(d),
          "%s: EVP flags %lx (rijn) vs %lx (default)", name,
          (unsigned long)EVP_CIPHER_get_flags(r),
          (unsigned long)EVP_CIPHER_get_flags(d));
    CHECK(EVP_CIPHER_get_nid(r) == EVP_CIPHER_get_nid(d),
          "%s: nid %d (rijn) vs %d (default)", name, EVP_CIPHER_get_nid(r),
          EVP_CIPHER_get_nid(d));
}

int main(int argc, char **argv)
{
    pt_env e;
    size_t i;

    if (argc != 2) {
        fprintf(stderr, "usage: %s /abs/path/rijn.so\n", argv[0]);
        return 2;
    }
    if (pt_env_open(&e, argv[1]) != 0)
        return 1;
    for (i = 0; i < sizeof ciphers / sizeof ciphers[0]; i++) {
        EVP_CIPHER *r = pt_fetch(&e, ciphers[i], 1);
        EVP_CIPHER *d = pt_fetch(&e, ciphers[i], 0);

        if (r == NULL || d == NULL) {
            CHECK(0, "%s: cannot fetch from both providers", ciphers[i]);
            EVP_CIPHER_free(r);
            EVP_CIPHER_free(d);
            continue;
        }
        EVP_CIPHER_names_do_all(d, add_name, r);
        same_list("gettable", ciphers[i], EVP_CIPHER_gettable_params(r),
                  EVP_CIPHER_gettable_params(d));
        same_list("gettable ctx", ciphers[i],
                  EVP_CIPHER_gettable_ctx_params(r),
                  EVP_CIPHER_gettable_ctx_params(d));
        same_list("settable ctx", ciphers[i],
                  EVP_CIPHER_settable_ctx_params(r),
                  EVP_CIPHER_settable_ctx_params(d));
        same_values(ciphers[i], r, d);
        printf("%s: names, parameter lists and values as default's\n",
               ciphers[i]);
        EVP_CIPHER_free(r);
        EVP_CIPHER_free(d);
    }
    pt_env_close(&e);
    if (failures != 0) {
        printf("%d difference(s)\n", failures);
        return 1;
    }
    puts("PASS");
    return 0;
}
