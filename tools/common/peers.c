/*
 * Comparison peers for `rijn speed`: OpenSSL's libcrypto (through EVP) and
 * libgcrypt, both loaded with dlopen() so that the tool never links them and
 * runs (without the comparison columns) where they are not installed.
 *
 * Only the handful of functions used are looked up; their prototypes are
 * declared here from the libraries' documented ABI, so no development
 * headers are needed either.
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/peers.h"
#include "rijn.h"

enum peer_kind { PEER_OPENSSL, PEER_GCRYPT };

/* libcrypto (OpenSSL 3 ABI) */
typedef void *(*evp_ctx_new_fn)(void);
typedef void (*evp_ctx_free_fn)(void *ctx);
typedef const void *(*evp_cipher_fn)(void);
typedef void *(*evp_fetch_fn)(void *libctx, const char *alg,
                              const char *props);
typedef int (*evp_init_fn)(void *ctx, const void *cipher, void *engine,
                           const unsigned char *key, const unsigned char *iv);
typedef int (*evp_update_fn)(void *ctx, unsigned char *out, int *outl,
                             const unsigned char *in, int inl);
typedef int (*evp_cipher_init_fn)(void *ctx, const void *cipher, void *engine,
                                  const unsigned char *key,
                                  const unsigned char *iv, int enc);
typedef int (*evp_final_fn)(void *ctx, unsigned char *out, int *outl);
typedef int (*evp_ctrl_fn)(void *ctx, int type, int arg, void *ptr);
typedef const char *(*ossl_version_fn)(int type);

/* libgcrypt (1.x ABI; gcry_error_t is an unsigned int) */
typedef const char *(*gcry_check_version_fn)(const char *req);
typedef unsigned (*gcry_control_fn)(int cmd, ...);
typedef unsigned (*gcry_open_fn)(void **hd, int algo, int mode,
                                 unsigned flags);
typedef void (*gcry_close_fn)(void *hd);
typedef unsigned (*gcry_setkey_fn)(void *hd, const void *key, size_t len);
typedef unsigned (*gcry_setctr_fn)(void *hd, const void *ctr, size_t len);
typedef unsigned (*gcry_encrypt_fn)(void *hd, void *out, size_t outlen,
                                    const void *in, size_t inlen);
typedef unsigned (*gcry_tag_fn)(void *hd, void *tag, size_t len);
typedef unsigned (*gcry_checktag_fn)(void *hd, const void *tag, size_t len);

#define GCRYCTL_DISABLE_SECMEM 37
#define GCRYCTL_DISABLE_HWF 63
#define GCRYCTL_INITIALIZATION_FINISHED 38
#define GCRY_CIPHER_AES128 7
#define GCRY_CIPHER_AES192 8
#define GCRY_CIPHER_AES256 9
#define GCRY_CIPHER_MODE_CTR 6
#define GCRY_CIPHER_MODE_GCM 9
#define EVP_CTRL_GCM_GET_TAG 0x10
#define EVP_CTRL_GCM_SET_TAG 0x11

struct peer {
    enum peer_kind kind;
    void *lib;              /* dlopen() handle, for peer_sym() */
    const char *name;
    const char *soname;
    char version[128];
    /* libcrypto */
    evp_ctx_new_fn ctx_new;
    evp_ctx_free_fn ctx_free;
    evp_init_fn init;
    evp_update_fn update;
    const void *cipher[3]; /* AES-128/192/256-CTR */
    /* libcrypto, GCM (gcm[0] NULL: no GCM) */
    evp_cipher_init_fn cipher_init;
    evp_update_fn cipher_update;
    evp_final_fn cipher_final;
    evp_ctrl_fn ctrl;
    const void *gcm[3]; /* AES-128/192/256-GCM */
    /* libgcrypt */
    gcry_open_fn gopen;
    gcry_close_fn gclose;
    gcry_setkey_fn gsetkey;
    gcry_setctr_fn gsetctr;
    gcry_encrypt_fn gencrypt;
    /* libgcrypt, GCM (has_gcm 0: no GCM) */
    int has_gcm;
    gcry_setctr_fn gsetiv;
    gcry_encrypt_fn gdecrypt;
    gcry_tag_fn ggettag;
    gcry_checktag_fn gchecktag;
};

struct peer_session {
    const peer *p;
    void *h;            /* EVP_CIPHER_CTX * or gcry_cipher_hd_t */
    const void *cipher; /* libcrypto: the session's EVP_CIPHER */
    size_t key_len;
    int failed;
};

/*
 * dlsym() returns an object pointer; POSIX guarantees it can be converted
 * to the function pointer type of the symbol. The conversion goes through
 * memcpy so that no compiler warns about it.
 */
static int sym(void *lib, const char *name, void *fnptr, size_t size)
{
    void *p = dlsym(lib, name);
    if (p == NULL || size != sizeof p)
        return -1;
    memcpy(fnptr, &p, size);
    return 0;
}
#define SYM(lib, name, var) sym((lib), (name), &(var), sizeof(var))

static peer openssl_peer, gcrypt_peer;
static int openssl_state, gcrypt_state; /* 0 untried, 1 loaded, -1 absent */
static char openssl_why[256], gcrypt_why[256];

static void set_why(char *why, size_t n, const char *what)
{
    const char *e = dlerror();
    snprintf(why, n, "%s%s%s", what, e ? ": " : "", e ? e : "");
}

/* A loaded library that lacks what the peer needs: why, unload, -1. */
static int give_up(void *lib, char *why, size_t n, const char *what)
{
    set_why(why, n, what);
    dlclose(lib);
    return -1;
}

/*
 * The CPU the peers see. RIJN_CPU_MASK makes rijn run as on a CPU without
 * the features it names (an AES-NI-only CPU: "vaes,vpclmul"); a row then
 * compares like with like only if the peers run as on that CPU too. So
 * under RIJN_CPU_MASK every x86 feature in this table that rijn's view
 * lacks (rijn_cpu_features(): the detected ones, masked) is turned off in
 * both: OpenSSL's through OPENSSL_ia32cap (its documented override, read
 * when libcrypto loads: a bit cleared for each, unless the caller set the
 * variable, which is then kept and not echoed), libgcrypt's through
 * GCRYCTL_DISABLE_HWF before gcry_check_version (what it has a name for).
 * A feature the CPU never had is turned off to no effect. Without
 * RIJN_CPU_MASK nothing changes. The description (peer_cpu_mask) shows
 * the mask with any byte outside [0-9A-Za-z,_~ -] as '?': it goes to the
 * terminal and into JSON strings as it is.
 *
 * OPENSSL_ia32cap="~A:~B" clears bit i of A in OpenSSL's copy of CPUID
 * leaf 1 (EDX in bits 0-31, ECX in 32-63) and bit i of B in leaf 7's
 * (EBX in 0-31, ECX in 32-63).
 */
#if defined(__x86_64__)
static const struct {
    const char *name;  /* rijn's name (rijn_cpu_features) */
    int leaf7;         /* 0: OpenSSL's word A (leaf 1), 1: word B */
    int bit;           /* in that word */
    const char *gcry;  /* libgcrypt's HWF name, NULL if none */
} peer_feats[] = {
    {"ssse3", 0, 32 + 9, "intel-ssse3"},
    {"aesni", 0, 32 + 25, "intel-aesni"},
    {"pclmul", 0, 32 + 1, "intel-pclmul"},
    {"avx", 0, 32 + 28, "intel-avx"},
    {"avx2", 1, 5, "intel-avx2"},
    {"bmi2", 1, 8, "intel-bmi2"},
    {"avx512f", 1, 16, NULL},
    {"avx512ifma", 1, 21, NULL},
    {"sha", 1, 29, "intel-shaext"},
    {"avx512bw", 1, 30, NULL},
    {"avx512vl", 1, 31, NULL},
    {"gfni", 1, 32 + 8, NULL},
    {"vaes", 1, 32 + 9, "intel-vaes-vpclmul"},
    {"vpclmul", 1, 32 + 10, "intel-vaes-vpclmul"},
};
#define PEER_FEATS (sizeof peer_feats / sizeof peer_feats[0])
static unsigned char mask_off[PEER_FEATS]; /* peer_feats[i] turned off */

/* Whether name is in the comma-separated list. */
static int listed(const char *list, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = list; *p != '\0';) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && memcmp(p, name, n) == 0)
            return 1;
        if (e == NULL)
            break;
        p = e + 1;
    }
    return 0;
}
#endif

static int mask_done;
static char mask_desc[512]; /* empty: no RIJN_CPU_MASK (or not x86) */

/* Once, before either peer loads: what to turn off, OPENSSL_ia32cap set,
 * and mask_desc written. */
static void peer_mask(void)
{
    if (mask_done)
        return;
    mask_done = 1;
#if defined(__x86_64__)
    const char *m = getenv("RIJN_CPU_MASK");
    char have[256], cap[64], gcry[160] = "", shown[64];
    unsigned long long w[2] = {0, 0};
    const char *user;
    size_t i, used = 0;

    if (m == NULL || *m == '\0')
        return;
    rijn_cpu_features(have, sizeof have);
    for (i = 0; i < PEER_FEATS; i++) {
        if (listed(have, peer_feats[i].name))
            continue;
        mask_off[i] = 1;
        w[peer_feats[i].leaf7] |= 1ULL << peer_feats[i].bit;
        if (peer_feats[i].gcry != NULL && !listed(gcry, peer_feats[i].gcry)) {
            int k = snprintf(gcry + used, sizeof gcry - used, "%s%s",
                             used ? "," : "", peer_feats[i].gcry);
            if (k > 0 && (size_t)k < sizeof gcry - used)
                used += (size_t)k;
        }
    }
    /* the mask as given, made safe to print (see the top) */
    for (i = 0; m[i] != '\0' && i + 1 < sizeof shown; i++) {
        const char c = m[i];
        shown[i] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                           (c >= 'A' && c <= 'Z') || c == ',' || c == '_' ||
                           c == '~' || c == ' ' || c == '-'
                       ? c
                       : '?';
    }
    shown[i] = '\0';
    snprintf(cap, sizeof cap, "~0x%llx:~0x%llx", w[0], w[1]);
    user = getenv("OPENSSL_ia32cap");
    if (user == NULL)
        setenv("OPENSSL_ia32cap", cap, 1);
    snprintf(mask_desc, sizeof mask_desc,
             "RIJN_CPU_MASK=%s: OPENSSL_ia32cap=%s, libgcrypt %s%s", shown,
             user ? "(the caller's, kept)" : cap,
             used ? "without " : "as it is (it names none of those features)",
             used ? gcry : "");
#endif
}

const char *peer_cpu_mask(void)
{
    peer_mask();
    return mask_desc[0] ? mask_desc : NULL;
}

/* dlopen() a peer's library and name the peer; NULL (why set) if the
 * library cannot be loaded. */
static void *open_peer(peer *p, enum peer_kind kind, const char *name,
                       const char *soname, char *why, size_t why_len)
{
    void *lib;
    char what[64];

    peer_mask(); /* OPENSSL_ia32cap before libcrypto reads it */
    lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

    if (lib == NULL) {
        snprintf(what, sizeof what, "cannot load %s", soname);
        set_why(why, why_len, what);
        return NULL;
    }
    p->kind = kind;
    p->lib = lib;
    p->name = name;
    p->soname = soname;
    return lib;
}

/*
 * OpenSSL 3 looks a legacy EVP_aes_*() cipher up in its provider on every
 * EVP_EncryptInit_ex() that names it; an explicitly fetched cipher avoids
 * that, which is what a careful application does. out[0..3) = the fetched
 * AES-128/192/256 ciphers of a mode ("CTR", "GCM"), else the legacy ones
 * (named e.g. EVP_aes_128_ctr); all NULL if the library has neither.
 */
static void openssl_ciphers(void *lib, const char *mode, const void *out[3])
{
    static const int bits[3] = {128, 192, 256};
    evp_fetch_fn fetch = NULL;
    char name[32];
    int i;

    (void)SYM(lib, "EVP_CIPHER_fetch", fetch);
    for (i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "AES-%d-%s", bits[i], mode);
        out[i] = fetch ? fetch(NULL, name, NULL) : NULL;
    }
    if (out[0] != NULL && out[1] != NULL && out[2] != NULL)
        return;
    for (i = 0; i < 3; i++) {
        evp_cipher_fn legacy;
        snprintf(name, sizeof name, "EVP_aes_%d_%s", bits[i], mode);
        for (char *c = name + 8; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
        out[i] = SYM(lib, name, legacy) == 0 ? legacy() : NULL;
    }
}

static int load_openssl(peer *p)
{
    void *lib = open_peer(p, PEER_OPENSSL, "openssl", "libcrypto.so.3",
                          openssl_why, sizeof openssl_why);
    ossl_version_fn version = NULL;

    if (lib == NULL)
        return -1;
    if (SYM(lib, "EVP_CIPHER_CTX_new", p->ctx_new) ||
        SYM(lib, "EVP_CIPHER_CTX_free", p->ctx_free) ||
        SYM(lib, "EVP_EncryptInit_ex", p->init) ||
        SYM(lib, "EVP_EncryptUpdate", p->update))
        return give_up(lib, openssl_why, sizeof openssl_why,
                       "libcrypto.so.3 lacks an EVP function");
    openssl_ciphers(lib, "CTR", p->cipher);
    if (p->cipher[0] == NULL || p->cipher[1] == NULL || p->cipher[2] == NULL)
        return give_up(lib, openssl_why, sizeof openssl_why,
                       "libcrypto.so.3 lacks AES-CTR");
    /* GCM is optional: without it only `rijn speed --gcm` loses a column */
    if (SYM(lib, "EVP_CipherInit_ex", p->cipher_init) == 0 &&
        SYM(lib, "EVP_CipherUpdate", p->cipher_update) == 0 &&
        SYM(lib, "EVP_CipherFinal_ex", p->cipher_final) == 0 &&
        SYM(lib, "EVP_CIPHER_CTX_ctrl", p->ctrl) == 0)
        openssl_ciphers(lib, "GCM", p->gcm);
    if (SYM(lib, "OpenSSL_version", version) == 0)
        snprintf(p->version, sizeof p->version, "%s", version(0));
    else
        snprintf(p->version, sizeof p->version, "%s", p->soname);
    return 0;
}

static int load_gcrypt(peer *p)
{
    void *lib = open_peer(p, PEER_GCRYPT, "gcrypt", "libgcrypt.so.20",
                          gcrypt_why, sizeof gcrypt_why);
    gcry_check_version_fn check;
    gcry_control_fn control;
    const char *v;

    if (lib == NULL)
        return -1;
    if (SYM(lib, "gcry_check_version", check) ||
        SYM(lib, "gcry_control", control) ||
        SYM(lib, "gcry_cipher_open", p->gopen) ||
        SYM(lib, "gcry_cipher_close", p->gclose) ||
        SYM(lib, "gcry_cipher_setkey", p->gsetkey) ||
        SYM(lib, "gcry_cipher_setctr", p->gsetctr) ||
        SYM(lib, "gcry_cipher_encrypt", p->gencrypt))
        return give_up(lib, gcrypt_why, sizeof gcrypt_why,
                       "libgcrypt.so.20 lacks a function");
    p->has_gcm = SYM(lib, "gcry_cipher_setiv", p->gsetiv) == 0 &&
                 SYM(lib, "gcry_cipher_decrypt", p->gdecrypt) == 0 &&
                 SYM(lib, "gcry_cipher_gettag", p->ggettag) == 0 &&
                 SYM(lib, "gcry_cipher_checktag", p->gchecktag) == 0;
    /* The documented initialisation sequence for an application, after
     * the features RIJN_CPU_MASK turns off (peer_mask) */
#if defined(__x86_64__)
    for (size_t i = 0; i < PEER_FEATS; i++)
        if (mask_off[i] && peer_feats[i].gcry != NULL)
            control(GCRYCTL_DISABLE_HWF, peer_feats[i].gcry, NULL);
#endif
    v = check(NULL);
    control(GCRYCTL_DISABLE_SECMEM, 0);
    control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    snprintf(p->version, sizeof p->version, "libgcrypt %s", v ? v : "?");
    return 0;
}

const peer *peer_openssl(void)
{
    if (openssl_state == 0)
        openssl_state = load_openssl(&openssl_peer) == 0 ? 1 : -1;
    return openssl_state > 0 ? &openssl_peer : NULL;
}

const peer *peer_gcrypt(void)
{
    if (gcrypt_state == 0)
        gcrypt_state = load_gcrypt(&gcrypt_peer) == 0 ? 1 : -1;
    return gcrypt_state > 0 ? &gcrypt_peer : NULL;
}

const char *peer_openssl_error(void)
{
    return peer_openssl() ? NULL : openssl_why;
}

const char *peer_gcrypt_error(void)
{
    return peer_gcrypt() ? NULL : gcrypt_why;
}

int peer_sym(const peer *p, const char *name, void *fnptr, size_t size)
{
    return sym(p->lib, name, fnptr, size);
}

const char *peer_name(const peer *p) { return p->name; }
const char *peer_version(const peer *p) { return p->version; }
const char *peer_soname(const peer *p) { return p->soname; }

static int key_index(size_t key_len)
{
    return key_len == 16 ? 0 : key_len == 24 ? 1 : key_len == 32 ? 2 : -1;
}

/* A CTR session (iv given) or a GCM one (iv NULL); NULL on failure. */
static peer_session *open_session(const peer *p, const unsigned char *key,
                                  size_t key_len, const unsigned char *iv)
{
    static const int galgo[3] = {GCRY_CIPHER_AES128, GCRY_CIPHER_AES192,
                                 GCRY_CIPHER_AES256};
    int ki = key_index(key_len), gcm = iv == NULL;
    peer_session *s;

    if (ki < 0 || (gcm && (p->kind == PEER_OPENSSL ? p->gcm[ki] == NULL
                                                   : !p->has_gcm)) ||
        (s = calloc(1, sizeof *s)) == NULL)
        return NULL;
    s->p = p;
    s->key_len = key_len;
    if (p->kind == PEER_OPENSSL) {
        s->cipher = gcm ? p->gcm[ki] : p->cipher[ki];
        s->h = p->ctx_new();
        if (s->h == NULL || p->init(s->h, s->cipher, NULL, key, iv) != 1)
            goto fail;
    } else {
        if (p->gopen(&s->h, galgo[ki],
                     gcm ? GCRY_CIPHER_MODE_GCM : GCRY_CIPHER_MODE_CTR,
                     0) != 0) {
            s->h = NULL;
            goto fail;
        }
        if (p->gsetkey(s->h, key, key_len) != 0 ||
            (!gcm && p->gsetctr(s->h, iv, 16) != 0))
            goto fail;
    }
    return s;
fail:
    peer_close(s);
    return NULL;
}

peer_session *peer_open(const peer *p, const unsigned char *key,
                        size_t key_len, const unsigned char iv[16])
{
    return open_session(p, key, key_len, iv);
}

peer_session *peer_open_gcm(const peer *p, const unsigned char *key,
                            size_t key_len)
{
    return open_session(p, key, key_len, NULL);
}

void peer_close(peer_session *s)
{
    if (s == NULL)
        return;
    if (s->h != NULL) {
        if (s->p->kind == PEER_OPENSSL)
            s->p->ctx_free(s->h);
        else
            s->p->gclose(s->h);
    }
    free(s);
}

void peer_setkey(peer_session *s, const unsigned char *key)
{
    const peer *p = s->p;
    if (p->kind == PEER_OPENSSL) {
        if (p->init(s->h, s->cipher, NULL, key, NULL) != 1)
            s->failed = 1;
    } else if (p->gsetkey(s->h, key, s->key_len) != 0) {
        s->failed = 1;
    }
}

void peer_setiv(peer_session *s, const unsigned char iv[16])
{
    const peer *p = s->p;
    if (p->kind == PEER_OPENSSL) {
        if (p->init(s->h, NULL, NULL, NULL, iv) != 1)
            s->failed = 1;
    } else if (p->gsetctr(s->h, iv, 16) != 0) {
        s->failed = 1;
    }
}

void peer_xor(peer_session *s, unsigned char *out, const unsigned char *in,
              size_t len)
{
    const peer *p = s->p;
    if (p->kind == PEER_OPENSSL) {
        int outl = 0;
        if (len > INT_MAX || p->update(s->h, out, &outl, in, (int)len) != 1 ||
            (size_t)outl != len)
            s->failed = 1;
    } else if (p->gencrypt(s->h, out, len, in, len) != 0) {
        s->failed = 1;
    }
}

int peer_failed(const peer_session *s)
{
    return s->failed;
}

void peer_gcm_seal(peer_session *s, unsigned char *out, unsigned char tag[16],
                   const unsigned char iv[12], const unsigned char *in,
                   size_t len)
{
    const peer *p = s->p;
    if (p->kind == PEER_OPENSSL) {
        int outl = 0, finl = 0;
        if (len > INT_MAX ||
            p->cipher_init(s->h, NULL, NULL, NULL, iv, 1) != 1 ||
            p->cipher_update(s->h, out, &outl, in, (int)len) != 1 ||
            p->cipher_final(s->h, out + outl, &finl) != 1 ||
            (size_t)outl + (size_t)finl != len ||
            p->ctrl(s->h, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1)
            s->failed = 1;
    } else if (p->gsetiv(s->h, iv, 12) != 0 ||
               p->gencrypt(s->h, out, len, in, len) != 0 ||
               p->ggettag(s->h, tag, 16) != 0) {
        s->failed = 1;
    }
}

int peer_gcm_open(peer_session *s, unsigned char *out,
                  const unsigned char tag[16], const unsigned char iv[12],
                  const unsigned char *in, size_t len)
{
    const peer *p = s->p;
    if (p->kind == PEER_OPENSSL) {
        unsigned char t[16];
        int outl = 0, finl = 0;
        memcpy(t, tag, 16); /* EVP_CTRL_GCM_SET_TAG takes a void * */
        if (len > INT_MAX ||
            p->cipher_init(s->h, NULL, NULL, NULL, iv, 0) != 1 ||
            p->cipher_update(s->h, out, &outl, in, (int)len) != 1 ||
            p->ctrl(s->h, EVP_CTRL_GCM_SET_TAG, 16, t) != 1) {
            s->failed = 1;
            return -1;
        }
        return p->cipher_final(s->h, out + outl, &finl) == 1 ? 0 : -1;
    }
    if (p->gsetiv(s->h, iv, 12) != 0 ||
        p->gdecrypt(s->h, out, len, in, len) != 0) {
        s->failed = 1;
        return -1;
    }
    return p->gchecktag(s->h, tag, 16) == 0 ? 0 : -1;
}
