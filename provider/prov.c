/*
 * rijn.so: the provider module's entry point (OSSL_provider_init), its
 * algorithm table and the services the cipher files share: errors through
 * the core, random bytes, the trace counters, aligned memory. See prov.h.
 */
#define _GNU_SOURCE /* secure_getenv */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "prov.h"

#define RP_PROPS "provider=rijn"

static const OSSL_ALGORITHM rp_ciphers[] = {
    {"AES-256-GCM:id-aes256-GCM:2.16.840.1.101.3.4.1.46", RP_PROPS,
     rp_aes256gcm_functions, "rijn AES-256-GCM"},
    {"AES-192-GCM:id-aes192-GCM:2.16.840.1.101.3.4.1.26", RP_PROPS,
     rp_aes192gcm_functions, "rijn AES-192-GCM"},
    {"AES-128-GCM:id-aes128-GCM:2.16.840.1.101.3.4.1.6", RP_PROPS,
     rp_aes128gcm_functions, "rijn AES-128-GCM"},
    {"AES-256-CTR", RP_PROPS, rp_aes256ctr_functions, "rijn AES-256-CTR"},
    {"AES-192-CTR", RP_PROPS, rp_aes192ctr_functions, "rijn AES-192-CTR"},
    {"AES-128-CTR", RP_PROPS, rp_aes128ctr_functions, "rijn AES-128-CTR"},
    {NULL, NULL, NULL, NULL}};

static const char *const rp_alg_names[RP_NALG] = {
    "AES-128-GCM", "AES-192-GCM", "AES-256-GCM",
    "AES-128-CTR", "AES-192-CTR", "AES-256-CTR"};

static const OSSL_ITEM rp_reasons[] = {
    {RP_R_INVALID_KEY_LENGTH, "invalid key length"},
    {RP_R_INVALID_IV_LENGTH, "invalid iv length"},
    {RP_R_INVALID_TAG, "invalid tag"},
    {RP_R_TAG_NOT_SET, "tag not set"},
    {RP_R_OUTPUT_BUFFER_TOO_SMALL, "output buffer too small"},
    {RP_R_CIPHER_OPERATION_FAILED, "cipher operation failed"},
    {RP_R_FAILED_TO_GET_PARAMETER, "failed to get parameter"},
    {RP_R_FAILED_TO_SET_PARAMETER, "failed to set parameter"},
    {RP_R_INVALID_AAD, "invalid additional authenticated data"},
    {RP_R_TOO_MANY_RECORDS, "too many records"},
    {RP_R_NO_KEY_SET, "no key set"},
    {RP_R_OVERLAP, "input and output overlap partially"},
    {RP_R_NEEDS_NEW_IV, "this GCM operation is over: set a new IV"},
    {RP_R_INVALID_NUM, "invalid num (must be below 16)"},
    {RP_R_KEY_SETUP_FAILED, "rijn key setup failed (RIJN_IMPL?)"},
    {RP_R_RANDOM_FAILED, "random bytes unavailable"},
    {RP_R_IV_TOO_SHORT, "iv too short for the TLS invocation field"},
    {0, NULL}};

/* ---- services for the cipher files ------------------------------------- */

/* vset_error takes a va_list: the message is the reason string alone. */
static void rp_vset(rijn_prov *p, int r, ...)
{
    va_list ap;

    va_start(ap, r);
    p->vset_error(p->handle, (uint32_t)r, NULL, ap);
    va_end(ap);
}

/* see prov.h */
void rp_error(rijn_prov *p, int r, const char *file, int line,
              const char *func)
{
    if (p == NULL || p->new_error == NULL || p->vset_error == NULL)
        return;
    p->new_error(p->handle);
    if (p->set_error_debug != NULL)
        p->set_error_debug(p->handle, file, line, func);
    rp_vset(p, r);
}

/* see prov.h: the kernel's generator (getrandom). Not the library
 * context's DRBG: reaching it from a module takes a child library context,
 * which holds references on every provider of its parent, this one
 * included, so the module was never torn down at exit (and the child and
 * its DRBG leaked). GCM IVs need uniqueness, which getrandom gives. */
int rp_random(rijn_prov *p, unsigned char *buf, size_t n)
{
    while (n > 0) {
        ssize_t r = getrandom(buf, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            RP_ERR(p, RP_R_RANDOM_FAILED);
            return 0;
        }
        buf += r;
        n -= (size_t)r;
    }
    return 1;
}

/* see prov.h */
void rp_count(rijn_prov *p, int alg, int dec, size_t n)
{
    if (p == NULL || p->trace == NULL)
        return;
    __atomic_fetch_add(&p->bytes[alg][dec], (uint64_t)n, __ATOMIC_RELAXED);
    __atomic_fetch_add(&p->calls[alg][dec], 1, __ATOMIC_RELAXED);
}

/* see prov.h */
void *rp_alloc(size_t n)
{
    void *q = NULL;

    if (posix_memalign(&q, 64, n) != 0)
        return NULL;
    memset(q, 0, n);
    return q;
}

/* see prov.h */
void rp_free(void *q, size_t n)
{
    if (q == NULL)
        return;
    OPENSSL_cleanse(q, n);
    free(q);
}

/* see prov.h */
int rp_overlap(const void *out, const void *in, size_t n)
{
    uintptr_t o = (uintptr_t)out, i = (uintptr_t)in;

    if (n == 0 || out == NULL || in == NULL || o == i)
        return 0;
    return o < i ? i - o < n : o - i < n;
}

static const OSSL_PARAM rp_cipher_gettable[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL),
    OSSL_PARAM_END};

/* see prov.h */
const OSSL_PARAM *rp_gettable_params(void *provctx)
{
    (void)provctx;
    return rp_cipher_gettable;
}

/* see prov.h: in OpenSSL's order, failing where it fails */
int rp_get_params(OSSL_PARAM params[], unsigned int mode, int aead,
                  size_t keylen, size_t ivlen)
{
    OSSL_PARAM *q;

    if ((q = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) != NULL &&
        !OSSL_PARAM_set_uint(q, mode))
        goto fail;
    if ((q = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD)) != NULL &&
        !OSSL_PARAM_set_int(q, aead))
        goto fail;
    if ((q = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CUSTOM_IV)) != NULL &&
        !OSSL_PARAM_set_int(q, aead))
        goto fail;
    if ((q = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CTS)) != NULL &&
        !OSSL_PARAM_set_int(q, 0))
        goto fail;
    if ((q = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK)) !=
            NULL &&
        !OSSL_PARAM_set_int(q, 0))
        goto fail;
    if ((q = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY)) !=
            NULL &&
        !OSSL_PARAM_set_int(q, 0))
        goto fail;
    if ((q = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL &&
        !OSSL_PARAM_set_size_t(q, keylen))
        goto fail;
    if ((q = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) !=
            NULL &&
        !OSSL_PARAM_set_size_t(q, 1))
        goto fail;
    if ((q = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL &&
        !OSSL_PARAM_set_size_t(q, ivlen))
        goto fail;
    return 1;
fail:
    return 0;
}

/* ---- the provider --------------------------------------------------------
 */

static const OSSL_PARAM rp_prov_gettable[] = {
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_BUILDINFO, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER, NULL, 0),
    OSSL_PARAM_END};

static const OSSL_PARAM *rp_prov_gettable_params(void *provctx)
{
    (void)provctx;
    return rp_prov_gettable;
}

static int rp_prov_get_params(void *provctx, OSSL_PARAM params[])
{
    static char buildinfo[160];
    OSSL_PARAM *q;

    (void)provctx;
    if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(q, "rijn: AES-GCM and AES-CTR from librijn"))
        return 0;
    if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(q, rijn_version()))
        return 0;
    if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) != NULL) {
        /* the backend and GHASH engine a key set up now would get */
        const char *aes = rijn_impl_default(), *gh = rijn_gcm_impl_default();
        snprintf(buildinfo, sizeof buildinfo, "rijn %s (AES %s, GHASH %s)",
                 rijn_version(), aes != NULL ? aes : "none",
                 gh != NULL ? gh : "none");
        if (!OSSL_PARAM_set_utf8_ptr(q, buildinfo))
            return 0;
    }
    if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL &&
        !OSSL_PARAM_set_int(q, 1))
        return 0;
    return 1;
}

static const OSSL_ALGORITHM *rp_query(void *provctx, int operation_id,
                                      int *no_cache)
{
    (void)provctx;
    *no_cache = 0;
    return operation_id == OSSL_OP_CIPHER ? rp_ciphers : NULL;
}

static const OSSL_ITEM *rp_reason_strings(void *provctx)
{
    (void)provctx;
    return rp_reasons;
}

/* Appends one line per algorithm and direction used to the trace file. */
static void rp_write_trace(rijn_prov *p)
{
    FILE *f;
    int a, d;

    if (p->trace == NULL)
        return;
    f = fopen(p->trace, "a");
    if (f == NULL)
        return;
    for (a = 0; a < RP_NALG; a++)
        for (d = 0; d < 2; d++)
            if (p->calls[a][d] != 0)
                fprintf(f, "rijn.so %ld %s %s %llu %llu\n", (long)getpid(),
                        rp_alg_names[a], d ? "dec" : "enc",
                        (unsigned long long)p->bytes[a][d],
                        (unsigned long long)p->calls[a][d]);
    fclose(f);
}

static void rp_teardown(void *provctx)
{
    rijn_prov *p = provctx;

    if (p == NULL)
        return;
    rp_write_trace(p);
    free(p->trace);
    free(p);
}

static const OSSL_DISPATCH rp_dispatch[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))rp_teardown},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS,
     (void (*)(void))rp_prov_gettable_params},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))rp_prov_get_params},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))rp_query},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))rp_reason_strings},
    {0, NULL}};

__attribute__((visibility("default"))) int
OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                   const OSSL_DISPATCH **out, void **provctx);

int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                       const OSSL_DISPATCH **out, void **provctx)
{
    rijn_prov *p = calloc(1, sizeof *p);
    const OSSL_DISPATCH *d;
    const char *trace;

    if (p == NULL)
        return 0;
    p->handle = handle;
    p->in = in;
    for (d = in; d != NULL && d->function_id != 0; d++) {
        switch (d->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR:
            p->new_error = OSSL_FUNC_core_new_error(d);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            p->set_error_debug = OSSL_FUNC_core_set_error_debug(d);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            p->vset_error = OSSL_FUNC_core_vset_error(d);
            break;
        default:
            break;
        }
    }
    /* ignored in setuid programs, like every RIJN_* variable */
    trace = secure_getenv("RIJN_PROVIDER_TRACE");
    if (trace != NULL && trace[0] != '\0')
        p->trace = strdup(trace);
    *out = rp_dispatch;
    *provctx = p;
    return 1;
}
