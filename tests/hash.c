/*
 * Suite for the hash functions of `rijn enc` password mode (src/hash/hash.c):
 * MD5, SHA-1, SHA-224/256/384/512, HMAC, PBKDF2 and EVP_BytesToKey.
 *
 *   test_hash portable|sha-ni VECTOR_FILE [--seed N]
 *   test_hash masked FEATURE     run with RIJN_CPU_MASK=FEATURE (set by
 *                                ctest): the SHA-NI path must be off and
 *                                its needs must name FEATURE
 *
 * "portable" runs the C compression functions only; "sha-ni" the x86 SHA
 * extensions of src/hash/hash_x86.c (skipped, with the reason, on a CPU
 * without them).
 * Checks: the known answers of tests/vectors/hash.txt; streaming at every
 * split point equals one-shot; PBKDF2 is the same for every thread count
 * and output length, and its blocks are prefixes of each other; with
 * sha-ni, every result equals the portable code's; built with OpenSSL's
 * libcrypto, random messages, keys, passwords, salts, iteration counts and
 * lengths against EVP_Digest, HMAC, PKCS5_PBKDF2_HMAC and EVP_BytesToKey.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash/hash.h"
#include "testutil.h"

#ifdef RIJN_TEST_OPENSSL
#include <openssl/evp.h>
#include <openssl/hmac.h>
#endif

/* PBKDF2 as `parts` calls of rijn_hash_pbkdf2_part (blocks i, i + parts,
 * ...), as the CLI's threads make it. */
static void pbkdf2_parts(const rijn_hash_alg *alg, const uint8_t *pass,
                         size_t pl, const uint8_t *salt, size_t sl,
                         unsigned long iter, uint8_t *out, size_t ol,
                         uint32_t parts)
{
    for (uint32_t i = 1; i <= parts; i++)
        rijn_hash_pbkdf2_part(alg, pass, pl, salt, sl, iter, out, ol, i, parts);
}

static const char *const names[] = {"md5",    "sha1",   "sha224",
                                    "sha256", "sha384", "sha512"};
#define NALGS (sizeof names / sizeof names[0])

static int accel_wanted;

/* Compute with the portable code (on = 0) or the wanted path. */
static void use(int on)
{
    rijn_hash_set_accel(on && accel_wanted);
}

/* ---- known answers ------------------------------------------------------ */

#define FIELD_MAX 1024

struct vec {
    char kind[16], alg[16];
    uint8_t msg[FIELD_MAX], key[FIELD_MAX], pass[FIELD_MAX],
        salt[FIELD_MAX], out[FIELD_MAX], prk[FIELD_MAX], info[FIELD_MAX];
    long msg_len, key_len, pass_len, salt_len, out_len, prk_len, info_len;
    unsigned long rep, iter;
};

/* Parse "kind alg f=v ..." into v; every field must be known and wanted
 * by the kind. 0, or -1 after a failure report. */
static int parse_vec(char *line, struct vec *v, unsigned lineno)
{
    char *save = NULL, *tok;
    unsigned seen = 0;
    enum { F_MSG = 1, F_KEY = 2, F_PASS = 4, F_SALT = 8, F_OUT = 16,
           F_REP = 32, F_ITER = 64, F_PRK = 128, F_INFO = 256 };
    unsigned need;

    memset(v, 0, sizeof *v);
    v->rep = 1;
    tok = strtok_r(line, " \t\r\n", &save);
    if (tok == NULL || strlen(tok) >= sizeof v->kind)
        goto bad;
    strcpy(v->kind, tok);
    tok = strtok_r(NULL, " \t\r\n", &save);
    if (tok == NULL || strlen(tok) >= sizeof v->alg)
        goto bad;
    strcpy(v->alg, tok);
    while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
        char *eq = strchr(tok, '=');
        if (eq == NULL)
            goto bad;
        *eq++ = '\0';
#define HEXF(name, flag, field)                                            \
    if (strcmp(tok, name) == 0) {                                          \
        v->field##_len = tu_unhex(v->field, sizeof v->field, eq);          \
        if (v->field##_len < 0)                                            \
            goto bad;                                                      \
        seen |= flag;                                                      \
        continue;                                                          \
    }
        HEXF("msg", F_MSG, msg)
        HEXF("key", F_KEY, key)
        HEXF("pass", F_PASS, pass)
        HEXF("salt", F_SALT, salt)
        HEXF("out", F_OUT, out)
        HEXF("prk", F_PRK, prk)
        HEXF("info", F_INFO, info)
#undef HEXF
        if (strcmp(tok, "rep") == 0) {
            v->rep = strtoul(eq, NULL, 10);
            seen |= F_REP;
            continue;
        }
        if (strcmp(tok, "iter") == 0) {
            v->iter = strtoul(eq, NULL, 10);
            seen |= F_ITER;
            continue;
        }
        goto bad;
    }
    if (strcmp(v->kind, "digest") == 0)
        need = F_MSG | F_OUT;
    else if (strcmp(v->kind, "hmac") == 0)
        need = F_KEY | F_MSG | F_OUT;
    else if (strcmp(v->kind, "pbkdf2") == 0)
        need = F_PASS | F_SALT | F_ITER | F_OUT;
    else if (strcmp(v->kind, "hkdf") == 0)
        need = F_PRK | F_INFO | F_OUT;
    else
        goto bad;
    if ((seen & need) != need || (seen & ~(need | F_REP)) != 0 ||
        ((seen & F_REP) && strcmp(v->kind, "digest") != 0))
        goto bad;
    return 0;
bad:
    tu_fail("vector file line %u: malformed or unknown field", lineno);
    return -1;
}

static void run_vector(const struct vec *v, unsigned lineno)
{
    const rijn_hash_alg *alg = rijn_hash_find(v->alg);
    uint8_t got[FIELD_MAX];
    char what[96];

    snprintf(what, sizeof what, "line %u: %s %s", lineno, v->kind, v->alg);
    if (alg == NULL) {
        tu_fail("%s: unknown digest", what);
        return;
    }
    if (strcmp(v->kind, "digest") == 0) {
        rijn_hash_ctx c;
        rijn_hash_init(&c, alg);
        for (unsigned long i = 0; i < v->rep; i++)
            rijn_hash_update(&c, v->msg, (size_t)v->msg_len);
        rijn_hash_final(&c, got);
        if ((size_t)v->out_len != alg->out_len) {
            tu_fail("%s: digest length", what);
            return;
        }
    } else if (strcmp(v->kind, "hmac") == 0) {
        rijn_hash_hmac(alg, got, v->key, (size_t)v->key_len, v->msg,
                  (size_t)v->msg_len);
    } else if (strcmp(v->kind, "hkdf") == 0) {
        rijn_hash_hkdf_expand(alg, got, (size_t)v->out_len, v->prk,
                              (size_t)v->prk_len, v->info,
                              (size_t)v->info_len);
    } else {
        for (uint32_t parts = 1; parts <= 3; parts++) {
            pbkdf2_parts(alg, v->pass, (size_t)v->pass_len, v->salt,
                         (size_t)v->salt_len, v->iter, got,
                         (size_t)v->out_len, parts);
            if (!tu_check_eq(got, v->out, (size_t)v->out_len, what))
                return;
        }
    }
    if (tu_check_eq(got, v->out, (size_t)v->out_len, what))
        tu_pass();
}

static void known_answers(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    unsigned lineno = 0, n = 0;
    static struct vec v;

    if (f == NULL) {
        tu_fail("cannot open %s", path);
        return;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (parse_vec(line, &v, lineno) == 0) {
            run_vector(&v, lineno);
            n++;
        }
    }
    fclose(f);
    if (n < 43) /* the file has 43 */
        tu_fail("only %u vectors in %s", n, path);
    tu_note("%u known answers", n);
}

/* ---- properties --------------------------------------------------------- */

static void digest(const rijn_hash_alg *alg, uint8_t *out, const uint8_t *m,
                   size_t n, int on)
{
    use(on);
    rijn_hash(alg, out, m, n);
}

/* Streaming at every split point (two and three pieces) equals one-shot,
 * and the wanted path equals the portable one, for lengths around every
 * block boundary. */
static void streaming(tu_rng *rng)
{
    static uint8_t m[700];
    tu_rng_fill(rng, m, sizeof m);
    for (size_t a = 0; a < NALGS; a++) {
        const rijn_hash_alg *alg = rijn_hash_find(names[a]);
        unsigned long bad = tu_failures();
        for (size_t n = 0; n <= 300; n++) {
            uint8_t one[RIJN_HASH_MAX_OUT], ref[RIJN_HASH_MAX_OUT], got[RIJN_HASH_MAX_OUT];
            digest(alg, one, m, n, 1);
            digest(alg, ref, m, n, 0);
            tu_check_eq(one, ref, alg->out_len, names[a]);
            use(1);
            for (size_t i = 0; i <= n; i++) {
                rijn_hash_ctx c;
                size_t j = i + (n - i) / 3;
                rijn_hash_init(&c, alg);
                rijn_hash_update(&c, m, i);
                rijn_hash_update(&c, m + i, j - i);
                rijn_hash_update(&c, m + j, n - j);
                rijn_hash_final(&c, got);
                if (!tu_check_eq(got, one, alg->out_len, "split"))
                    break;
            }
        }
        if (tu_failures() == bad)
            tu_pass();
    }
}

/* PBKDF2: any split into parts gives the same bytes, a shorter output is
 * a prefix of a longer one, and the wanted path equals the portable one. */
static void pbkdf2_props(tu_rng *rng)
{
    for (size_t a = 0; a < NALGS; a++) {
        const rijn_hash_alg *alg = rijn_hash_find(names[a]);
        unsigned long bad = tu_failures();
        for (int round = 0; round < 6; round++) {
            uint8_t pass[200], salt[40], ref[300], got[300];
            size_t pl = (size_t)tu_rng_below(rng, sizeof pass + 1);
            size_t sl = (size_t)tu_rng_below(rng, sizeof salt + 1);
            unsigned long iter = 1 + (unsigned long)tu_rng_below(rng, 2500);
            size_t ol = 1 + (size_t)tu_rng_below(rng, sizeof ref);
            tu_rng_fill(rng, pass, pl);
            tu_rng_fill(rng, salt, sl);
            use(0);
            rijn_hash_pbkdf2(alg, pass, pl, salt, sl, iter, ref, ol);
            use(1);
            for (uint32_t parts = 1; parts <= 4; parts++) {
                memset(got, 0, sizeof got);
                pbkdf2_parts(alg, pass, pl, salt, sl, iter, got, ol, parts);
                tu_check_eq(got, ref, ol, "pbkdf2 in parts");
            }
            size_t shorter = ol > 1 ? ol - 1 - (size_t)tu_rng_below(rng, ol - 1)
                                    : 1;
            memset(got, 0xa5, sizeof got);
            pbkdf2_parts(alg, pass, pl, salt, sl, iter, got, shorter, 2);
            tu_check_eq(got, ref, shorter, "pbkdf2 prefix");
            if (got[shorter] != 0xa5)
                tu_fail("%s: pbkdf2 wrote past %zu bytes", names[a], shorter);
        }
        if (tu_failures() == bad)
            tu_pass();
    }
}

/* ---- against libcrypto -------------------------------------------------- */

#ifdef RIJN_TEST_OPENSSL
static const EVP_MD *evp_md(const char *name)
{
    return EVP_get_digestbyname(name);
}

static void against_openssl(tu_rng *rng)
{
    static uint8_t m[3000];
    unsigned long checks = 0, bad = tu_failures();

    use(1);
    for (size_t a = 0; a < NALGS; a++) {
        const rijn_hash_alg *alg = rijn_hash_find(names[a]);
        const EVP_MD *md = evp_md(names[a]);
        uint8_t got[300], want[300];
        unsigned wl = 0;

        if (md == NULL) {
            tu_fail("libcrypto has no %s", names[a]);
            continue;
        }
        for (int i = 0; i < 200; i++) {
            size_t n = (size_t)tu_rng_below(rng, i < 100 ? 300 : sizeof m);
            tu_rng_fill(rng, m, n);
            rijn_hash(alg, got, m, n);
            EVP_Digest(m, n, want, &wl, md, NULL);
            tu_check_eq(got, want, wl, "digest vs EVP_Digest");
            size_t kl = (size_t)tu_rng_below(rng, 300);
            uint8_t key[300];
            tu_rng_fill(rng, key, kl);
            rijn_hash_hmac(alg, got, key, kl, m, n);
            HMAC(md, key, (int)kl, m, n, want, &wl);
            tu_check_eq(got, want, wl, "hmac vs HMAC");
            checks += 2;
        }
        for (int i = 0; i < 12; i++) {
            uint8_t pass[100], salt[20];
            size_t pl = (size_t)tu_rng_below(rng, sizeof pass);
            size_t sl = (size_t)tu_rng_below(rng, sizeof salt + 1);
            unsigned long iter = 1 + (unsigned long)tu_rng_below(rng, 3000);
            size_t ol = 1 + (size_t)tu_rng_below(rng, 200);
            tu_rng_fill(rng, pass, pl);
            tu_rng_fill(rng, salt, sl);
            pbkdf2_parts(alg, pass, pl, salt, sl, iter, got, ol,
                         1 + (uint32_t)tu_rng_below(rng, 4));
            PKCS5_PBKDF2_HMAC((const char *)pass, (int)pl, salt, (int)sl,
                              (int)iter, md, (int)ol, want);
            tu_check_eq(got, want, ol, "pbkdf2 vs PKCS5_PBKDF2_HMAC");
            /* EVP_BytesToKey (count 1), the key and IV of AES-256-CTR,
             * with an 8-byte salt or none */
            uint8_t k1[32], iv1[16], k2[32], iv2[16];
            int salted = (int)tu_rng_below(rng, 2);
            if (sl < 8)
                tu_rng_fill(rng, salt + sl, 8 - sl);
            rijn_hash_bytes_to_key(alg, pass, pl, salted ? salt : NULL, 8, k1, 32,
                              iv1, 16);
            EVP_BytesToKey(EVP_aes_256_ctr(), md, salted ? salt : NULL, pass,
                           (int)pl, 1, k2, iv2);
            tu_check_eq(k1, k2, 32, "EVP_BytesToKey key");
            tu_check_eq(iv1, iv2, 16, "EVP_BytesToKey iv");
            checks += 2;
        }
    }
    if (tu_failures() == bad)
        tu_pass();
    tu_note("%lu checks against libcrypto", checks);
}
#endif

/* RIJN_CPU_MASK=feature turns the SHA extensions off when they need it
 * (they are compiled for SSSE3 as well as SHA: masking either must do). */
static int masked(const char *feature)
{
    rijn_impl_info info;
    const char *mask = getenv("RIJN_CPU_MASK");

    tu_set_name("hash.masked");
    if (mask == NULL || strcmp(mask, feature) != 0)
        tu_fail("run with RIJN_CPU_MASK=%s (ctest sets it)", feature);
    if (rijn_hash_accel_info(&info) != 0) {
        printf("hash.masked: SKIPPED: no CPU-extension hash path here\n");
        return TU_SKIP;
    }
    char want[64];
    snprintf(want, sizeof want, ",%s,", feature);
    char needs[sizeof info.needs + 2];
    snprintf(needs, sizeof needs, ",%s,", info.needs);
    if (strstr(needs, want) != NULL)
        tu_pass();
    else
        tu_fail("%s needs %s, not %s", info.name, info.needs, feature);
    if (!info.available && !info.is_default && rijn_hash_set_accel(1) == 0)
        tu_pass();
    else
        tu_fail("RIJN_CPU_MASK=%s leaves %s in use", feature, info.name);
    tu_note("RIJN_CPU_MASK=%s: %s off (needs %s)", feature, info.name,
            info.needs);
    return tu_end();
}

int main(int argc, char **argv)
{
    uint64_t seed = tu_seed_from_args(&argc, argv);
    tu_rng rng;

    if (argc == 3 && strcmp(argv[1], "masked") == 0)
        return masked(argv[2]);

    if (argc != 3 || (strcmp(argv[1], "portable") != 0 &&
                      strcmp(argv[1], "sha-ni") != 0)) {
        fprintf(stderr, "usage: test_hash portable|sha-ni VECTOR_FILE "
                        "[--seed N]\n");
        return 2;
    }
    tu_set_name(strcmp(argv[1], "portable") == 0 ? "hash.portable"
                                                  : "hash.sha-ni");
    if (strcmp(argv[1], "sha-ni") == 0) {
        if (!rijn_hash_set_accel(1)) {
            /* a CPU (or build) without the SHA extensions, or with one of
             * the features they need masked */
            rijn_impl_info info = {"sha-ni", 0, 1, 0, "sha"};
            rijn_hash_accel_info(&info);
            tu_require_available(&info, "engine");
        }
        accel_wanted = 1;
    }
    tu_rng_seed(&rng, seed);
    use(1);
    known_answers(argv[2]);
    streaming(&rng);
    pbkdf2_props(&rng);
#ifdef RIJN_TEST_OPENSSL
    against_openssl(&rng);
#else
    tu_note("built without libcrypto: no comparison with OpenSSL");
#endif
    return tu_end();
}
