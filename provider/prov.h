/*
 * rijn.so, the OpenSSL 3 provider module: what its three files share.
 *
 * prov.c      the module: OSSL_provider_init, the algorithm table, errors
 *             (reported through the core, with the module's own reason
 *             strings), random bytes for GCM IVs, the RIJN_PROVIDER_TRACE
 *             counters.
 * prov_gcm.c  AES-{128,192,256}-GCM
 * prov_ctr.c  AES-{128,192,256}-CTR
 *
 * The module is a front end of librijn like the CLI: the AES, CTR and GCM
 * work is rijn.h's; what is here is OpenSSL's calling contract, kept call
 * for call with OpenSSL 3.0's default provider (the same parameters, the
 * same answers, the same successes and failures) except where doc/provider.md
 * lists a deliberate refusal. It changes no global state of libcrypto and
 * the CTR paths never ask for random bytes (OpenSSL's CTR-DRBG runs on them).
 */
#ifndef RIJN_PROV_H
#define RIJN_PROV_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/crypto.h>

#include <rijn.h>

/* The algorithms, for the trace counters. */
enum {
    RP_GCM128,
    RP_GCM192,
    RP_GCM256,
    RP_CTR128,
    RP_CTR192,
    RP_CTR256,
    RP_NALG
};

/* Reasons the module reports (prov.c has the strings). */
enum {
    RP_R_INVALID_KEY_LENGTH = 1,
    RP_R_INVALID_IV_LENGTH,
    RP_R_INVALID_TAG,
    RP_R_TAG_NOT_SET,
    RP_R_OUTPUT_BUFFER_TOO_SMALL,
    RP_R_CIPHER_OPERATION_FAILED,
    RP_R_FAILED_TO_GET_PARAMETER,
    RP_R_FAILED_TO_SET_PARAMETER,
    RP_R_INVALID_AAD,
    RP_R_TOO_MANY_RECORDS,
    RP_R_NO_KEY_SET,
    RP_R_OVERLAP,
    RP_R_NEEDS_NEW_IV,
    RP_R_INVALID_NUM,
    RP_R_KEY_SETUP_FAILED,
    RP_R_RANDOM_FAILED,
    RP_R_IV_TOO_SHORT
};

typedef struct rijn_prov {
    const OSSL_CORE_HANDLE *handle;
    const OSSL_DISPATCH *in; /* the core's functions */
    OSSL_FUNC_core_new_error_fn *new_error;
    OSSL_FUNC_core_set_error_debug_fn *set_error_debug;
    OSSL_FUNC_core_vset_error_fn *vset_error;
    char *trace;          /* RIJN_PROVIDER_TRACE, or NULL */
    uint64_t bytes[RP_NALG][2], calls[RP_NALG][2]; /* [alg][dec] */
} rijn_prov;

/* Reports reason r through the core's error queue. */
void rp_error(rijn_prov *p, int r, const char *file, int line,
              const char *func);
#define RP_ERR(p, r)                                                          \
    rp_error((p), (r), OPENSSL_FILE, OPENSSL_LINE, OPENSSL_FUNC)

/* n random bytes (GCM IVs only; getrandom): 1, or 0 with an error. */
int rp_random(rijn_prov *p, unsigned char *buf, size_t n);

/* Counts one call of n bytes (only when RIJN_PROVIDER_TRACE is set). */
void rp_count(rijn_prov *p, int alg, int dec, size_t n);

/* Zeroed memory aligned to 64 bytes (rijn's keys need it); rp_free wipes
 * n bytes before freeing. */
void *rp_alloc(size_t n);
void rp_free(void *q, size_t n);

/* 1 if [out, out+n) and [in, in+n) overlap other than exactly. */
int rp_overlap(const void *out, const void *in, size_t n);

/* a == b, inline: the names are a few bytes long, and strcmp through the
 * PLT was a tenth of a 16-byte EVP GCM message's time (OpenSSL 3.0 asks
 * for the IV length at every init, and libssl for the tag) */
static inline int rp_streq(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

/* One pass over params: found[i] = the first parameter named names[i]
 * (what OSSL_PARAM_locate would return), or NULL. Callers then handle them
 * in OpenSSL's order, with a cheap match per parameter instead of a string
 * comparison per name and call. Inline, so that n is a constant at each
 * call: found[] is then cleared with a few stores, not a call to memset,
 * and the names' loop unrolled (as a function of its own, it was 12% of
 * a 16-byte EVP GCM message's time, 5 calls a message, each with one
 * parameter). */
static inline void rp_params_find(const OSSL_PARAM *params,
                                  const char *const names[], int n,
                                  const OSSL_PARAM *found[])
{
    int i;

    for (i = 0; i < n; i++)
        found[i] = NULL;
    for (; params != NULL && params->key != NULL; params++) {
        const char *k = params->key;
        for (i = 0; i < n; i++)
            if (k[0] == names[i][0] && k[1] == names[i][1] &&
                found[i] == NULL && rp_streq(k, names[i]))
                break;
        if (i < n)
            found[i] = params;
    }
}

/* The algorithm-wide parameters of every cipher here (mode, keylen, ...). */
const OSSL_PARAM *rp_gettable_params(void *provctx);
int rp_get_params(OSSL_PARAM params[], unsigned int mode, int aead,
                  size_t keylen, size_t ivlen);

extern const OSSL_DISPATCH rp_aes128gcm_functions[];
extern const OSSL_DISPATCH rp_aes192gcm_functions[];
extern const OSSL_DISPATCH rp_aes256gcm_functions[];
extern const OSSL_DISPATCH rp_aes128ctr_functions[];
extern const OSSL_DISPATCH rp_aes192ctr_functions[];
extern const OSSL_DISPATCH rp_aes256ctr_functions[];

#endif /* RIJN_PROV_H */
