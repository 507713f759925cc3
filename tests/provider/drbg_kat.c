/*
 * drbg_kat: the CTR-DRBG known answers of vectors/evprand_ctr_drbg.txt
 * (OpenSSL 3.0.22's evprand.txt stanzas, AES-128/192/256, with and without
 * derivation function, with and without prediction resistance) driven
 * through EVP_RAND the way OpenSSL's evp_test drives a RAND stanza: a
 * "TEST-RAND" parent (strength 256) hands the DRBG each item's entropy and
 * nonce; instantiate with the personalisation string, optional reseed with
 * its entropy and additional input, two generates (entropy for prediction
 * resistance fed before each when given), the second output compared,
 * then uninstantiate, zeroization verified.
 *
 * Run 1: OpenSSL's default provider and the module in one library context
 * with default properties "?provider=rijn", so the DRBG's own fetch of
 * AES-xxx-CTR lands on rijn (its derivation function's AES-xxx-ECB stays
 * with default). The module runs with RIJN_PROVIDER_TRACE=<file>; when the
 * context is freed it appends "rijn.so <pid> <ALG> <enc|dec> <bytes>
 * <calls>" lines, and every AES-CTR key size must show bytes > 0 for this
 * process: proof that rijn produced the keystream the answers were checked
 * against.
 * Run 2: the default provider alone; the same answers must come out.
 *
 *   usage: test_drbg_kat VECTORS MODULE [TRACEFILE]
 */
#define _POSIX_C_SOURCE 200809L

#include "provtest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>

#define MAX_ITEMS 15

enum { F_ENTROPY, F_NONCE, F_PERS, F_ADDIN_A, F_ADDIN_B, F_PR_A, F_PR_B,
       F_RESEED, F_RESEED_ADDIN, F_OUTPUT, NFIELD };

static const char *const item_keys[NFIELD] = {
    "Entropy", "Nonce", "PersonalisationString", "AdditionalInputA",
    "AdditionalInputB", "EntropyPredictionResistanceA",
    "EntropyPredictionResistanceB", "ReseedEntropy", "ReseedAdditionalInput",
    "Output",
};

typedef struct {
    unsigned char *v[NFIELD];
    size_t n[NFIELD];
} item;

typedef struct {
    char cipher[32];
    int use_df, pr;
    size_t gen_bytes;
    int nitems;
    item it[MAX_ITEMS];
} rand_stanza;

typedef struct {
    unsigned long stanzas, items, per_key[3], df, nodf, pr;
} kat_counts;

static void stanza_free(rand_stanza *s)
{
    for (int i = 0; i < MAX_ITEMS; i++)
        for (int f = 0; f < NFIELD; f++)
            free(s->it[i].v[f]);
    memset(s, 0, sizeof *s);
}

static int parse(const pt_reader *r, rand_stanza *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < r->n; i++) {
        const char *k = r->fld[i].key, *v = r->fld[i].value, *dot;

        if (strcmp(k, "RAND") == 0) {
            if (strcmp(v, "CTR-DRBG") != 0)
                goto bad;
        } else if (strcmp(k, "Cipher") == 0) {
            snprintf(s->cipher, sizeof s->cipher, "%s", v);
        } else if (strcmp(k, "DerivationFunction") == 0) {
            s->use_df = atoi(v) != 0;
        } else if (strcmp(k, "PredictionResistance") == 0) {
            s->pr = atoi(v) != 0;
        } else if (strcmp(k, "GenerateBits") == 0) {
            int bits = atoi(v);

            if (bits <= 0 || bits % 8 != 0)
                goto bad;
            s->gen_bytes = (size_t)bits / 8;
        } else if (strcmp(k, "FIPSversion") == 0) {
            /* selects FIPS provider versions; no FIPS provider here */
        } else if ((dot = strchr(k, '.')) != NULL) {
            int n = atoi(dot + 1), f;

            for (f = 0; f < NFIELD; f++)
                if (strlen(item_keys[f]) == (size_t)(dot - k)
                    && strncmp(k, item_keys[f], (size_t)(dot - k)) == 0)
                    break;
            if (f == NFIELD || n < 0 || n >= MAX_ITEMS
                || s->it[n].v[f] != NULL
                || pt_unhex(v, &s->it[n].v[f], &s->it[n].n[f]) != 0)
                goto bad;
            if (n + 1 > s->nitems)
                s->nitems = n + 1;
        } else {
            goto bad;
        }
        continue;
bad:
        fprintf(stderr, "%s:%d: cannot use \"%s = %s\"\n", r->path,
                r->fld[i].line, k, v);
        return -1;
    }
    if (s->cipher[0] == '\0' || s->gen_bytes == 0 || s->nitems == 0)
        return -1;
    for (int i = 0; i < s->nitems; i++)
        if (s->it[i].v[F_ENTROPY] == NULL || s->it[i].v[F_OUTPUT] == NULL)
            return -1;
    return 0;
}

static int set_entropy(EVP_RAND_CTX *parent, const unsigned char *p, size_t n)
{
    OSSL_PARAM prm[2];

    prm[0] = OSSL_PARAM_construct_octet_string(OSSL_RAND_PARAM_TEST_ENTROPY,
                                               (void *)p, n);
    prm[1] = OSSL_PARAM_construct_end();
    return EVP_RAND_CTX_set_params(parent, prm);
}

/* One stanza; 0 when every item's output matched. */
static int run_stanza(OSSL_LIB_CTX *libctx, const rand_stanza *s,
                      const char *where)
{
    EVP_RAND *rand = NULL;
    EVP_RAND_CTX *parent = NULL, *ctx = NULL;
    unsigned char *got = malloc(s->gen_bytes), empty[1] = { 0 };
    unsigned int strength = 256;
    OSSL_PARAM prm[3];
    int use_df = s->use_df, i = -1, ok = 0;

    if (got == NULL)
        goto out;
    rand = EVP_RAND_fetch(libctx, "TEST-RAND", "-fips");
    if (rand == NULL || (parent = EVP_RAND_CTX_new(rand, NULL)) == NULL)
        goto out;
    EVP_RAND_free(rand);
    rand = NULL;
    prm[0] = OSSL_PARAM_construct_uint(OSSL_RAND_PARAM_STRENGTH, &strength);
    prm[1] = OSSL_PARAM_construct_end();
    if (!EVP_RAND_CTX_set_params(parent, prm))
        goto out;
    rand = EVP_RAND_fetch(libctx, "CTR-DRBG", NULL);
    if (rand == NULL || (ctx = EVP_RAND_CTX_new(rand, parent)) == NULL)
        goto out;
    prm[0] = OSSL_PARAM_construct_int(OSSL_DRBG_PARAM_USE_DF, &use_df);
    prm[1] = OSSL_PARAM_construct_utf8_string(OSSL_DRBG_PARAM_CIPHER,
                                              (char *)s->cipher, 0);
    prm[2] = OSSL_PARAM_construct_end();
    if (!EVP_RAND_CTX_set_params(ctx, prm))
        goto out;
    strength = EVP_RAND_get_strength(ctx);
    for (i = 0; i < s->nitems; i++) {
        const item *it = &s->it[i];
        /*
         * An absent nonce or personalisation string is an empty one, not
         * NULL: a NULL personalisation string makes the DRBG use its own.
         */
        unsigned char *nonce = it->v[F_NONCE] != NULL ? it->v[F_NONCE] : empty;
        unsigned char *pers = it->v[F_PERS] != NULL ? it->v[F_PERS] : empty;

        prm[0] = OSSL_PARAM_construct_octet_string(
            OSSL_RAND_PARAM_TEST_ENTROPY, it->v[F_ENTROPY], it->n[F_ENTROPY]);
        prm[1] = OSSL_PARAM_construct_octet_string(
            OSSL_RAND_PARAM_TEST_NONCE, nonce, it->n[F_NONCE]);
        prm[2] = OSSL_PARAM_construct_end();
        if (!EVP_RAND_instantiate(parent, strength, 0, NULL, 0, prm)
            || !EVP_RAND_instantiate(ctx, strength, s->pr, pers,
                                     it->n[F_PERS], NULL))
            goto out;
        if (it->v[F_RESEED] != NULL
            && (!set_entropy(parent, it->v[F_RESEED], it->n[F_RESEED])
                || !EVP_RAND_reseed(ctx, s->pr, NULL, 0, it->v[F_RESEED_ADDIN],
                                    it->n[F_RESEED_ADDIN])))
            goto out;
        if (it->v[F_PR_A] != NULL
            && !set_entropy(parent, it->v[F_PR_A], it->n[F_PR_A]))
            goto out;
        if (!EVP_RAND_generate(ctx, got, s->gen_bytes, strength, s->pr,
                               it->v[F_ADDIN_A], it->n[F_ADDIN_A]))
            goto out;
        if (it->v[F_PR_B] != NULL
            && !set_entropy(parent, it->v[F_PR_B], it->n[F_PR_B]))
            goto out;
        if (!EVP_RAND_generate(ctx, got, s->gen_bytes, strength, s->pr,
                               it->v[F_ADDIN_B], it->n[F_ADDIN_B]))
            goto out;
        if (it->n[F_OUTPUT] != s->gen_bytes
            || memcmp(got, it->v[F_OUTPUT], s->gen_bytes) != 0) {
            fprintf(stderr, "%s: output mismatch in item %d\n", where, i);
            goto out;
        }
        if (!EVP_RAND_uninstantiate(ctx) || !EVP_RAND_uninstantiate(parent)
            || !EVP_RAND_verify_zeroization(ctx)
            || EVP_RAND_get_state(ctx) != EVP_RAND_STATE_UNINITIALISED)
            goto out;
    }
    ok = 1;
out:
    if (!ok) {
        fprintf(stderr, "%s: FAIL (item %d)\n", where, i);
        pt_print_errors(where);
    }
    ERR_clear_error();
    EVP_RAND_CTX_free(ctx);
    EVP_RAND_CTX_free(parent);
    EVP_RAND_free(rand);
    free(got);
    return ok ? 0 : -1;
}

/* Every stanza of the file in libctx; the number of failures (or -1). */
static long run_file(const char *path, OSSL_LIB_CTX *libctx, kat_counts *c)
{
    pt_reader r;
    long fails = 0;
    int rc;

    memset(c, 0, sizeof *c);
    if (pt_reader_open(&r, path) != 0)
        return -1;
    while ((rc = pt_reader_next(&r)) == 1) {
        rand_stanza s;
        char where[160];

        if (pt_reader_get(&r, "RAND") == NULL)
            continue;
        if (parse(&r, &s) != 0) {
            stanza_free(&s);
            fails = -1;
            break;
        }
        snprintf(where, sizeof where, "%s:%d %s%s%s", path, r.start, s.cipher,
                 s.use_df ? " df" : " no-df", s.pr ? " pr" : "");
        if (run_stanza(libctx, &s, where) != 0) {
            fails++;
        } else {
            int k = strstr(s.cipher, "128") ? 0 : strstr(s.cipher, "192") ? 1 : 2;

            c->stanzas++;
            c->items += (unsigned long)s.nitems;
            c->per_key[k]++;
            if (s.use_df)
                c->df++;
            else
                c->nodf++;
            c->pr += (unsigned long)s.pr;
        }
        stanza_free(&s);
    }
    pt_reader_close(&r);
    return rc < 0 ? -1 : fails;
}

static void print_counts(const char *label, const kat_counts *c, long fails)
{
    printf("%s: %lu stanzas passed (%lu items; AES-128 %lu, AES-192 %lu,"
           " AES-256 %lu; df %lu, no df %lu; prediction resistance %lu),"
           " %ld failed\n", label, c->stanzas, c->items, c->per_key[0],
           c->per_key[1], c->per_key[2], c->df, c->nodf, c->pr, fails);
}

/* Which provider serves `name` in libctx with its default properties. */
static const char *served_by(OSSL_LIB_CTX *libctx, const char *name,
                             const OSSL_PROVIDER *rijn)
{
    EVP_CIPHER *c = EVP_CIPHER_fetch(libctx, name, NULL);
    const char *who;

    if (c == NULL)
        return "nobody";
    who = EVP_CIPHER_get0_provider(c) == rijn ? "rijn" : "other";
    EVP_CIPHER_free(c);
    return who;
}

/* Sum this process's trace lines; 0 when every AES-CTR size shows bytes. */
static int check_trace(const char *path)
{
    static const char *const algs[3] = { "AES-128-CTR", "AES-192-CTR",
                                         "AES-256-CTR" };
    unsigned long long bytes[3] = { 0 }, calls[3] = { 0 };
    char line[256], alg[64], dir[16], tag[32];
    unsigned long long b, n;
    long pid;
    int rc = 0, lines = 0;
    FILE *f = fopen(path, "r");

    if (f == NULL) {
        printf("FAIL: no trace file %s: the module did not write its"
               " RIJN_PROVIDER_TRACE lines\n", path);
        return -1;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "%31s %ld %63s %15s %llu %llu", tag, &pid, alg, dir,
                   &b, &n) != 6 || strcmp(tag, "rijn.so") != 0) {
            printf("FAIL: malformed trace line: %s", line);
            rc = -1;
            continue;
        }
        if (pid != (long)getpid())
            continue;
        lines++;
        for (int k = 0; k < 3; k++)
            if (strcmp(alg, algs[k]) == 0 && strcmp(dir, "enc") == 0) {
                bytes[k] += b;
                calls[k] += n;
            }
    }
    fclose(f);
    for (int k = 0; k < 3; k++) {
        printf("trace: %s enc %llu bytes in %llu calls by rijn.so\n", algs[k],
               bytes[k], calls[k]);
        if (bytes[k] == 0 || calls[k] == 0) {
            printf("FAIL: rijn.so served no %s keystream to the DRBG\n",
                   algs[k]);
            rc = -1;
        }
    }
    if (lines == 0)
        rc = -1;
    return rc;
}

int main(int argc, char **argv)
{
    char tracebuf[512];
    const char *trace;
    kat_counts c1, c2;
    long f1, f2;
    int rc = 0;
    pt_env e;

    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s VECTORS MODULE [TRACEFILE]\n", argv[0]);
        return 2;
    }
    if (argc == 4) {
        trace = argv[3];
    } else {
        const char *tmp = getenv("TMPDIR");

        snprintf(tracebuf, sizeof tracebuf, "%s/rijn_drbg_trace.%ld",
                 tmp != NULL ? tmp : "/tmp", (long)getpid());
        trace = tracebuf;
    }

    /* The known answers need OpenSSL's TEST-RAND (a test entropy source). */
    if (pt_env_open(&e, NULL) != 0)
        return 1;
    {
        EVP_RAND *t = EVP_RAND_fetch(e.libctx, "TEST-RAND", "-fips");

        EVP_RAND_free(t);
        pt_env_close(&e);
        if (t == NULL) {
            printf("skip: this libcrypto has no TEST-RAND\n");
            return PT_SKIP;
        }
    }

    /* Run 1: rijn preferred, traced; the trace is written at unload. */
    remove(trace);
    if (setenv("RIJN_PROVIDER_TRACE", trace, 1) != 0)
        return 1;
    if (pt_env_open(&e, argv[2]) != 0)
        return 1;
    if (!EVP_set_default_properties(e.libctx, "?provider=rijn")) {
        pt_print_errors("");
        pt_env_close(&e);
        return 1;
    }
    printf("with ?provider=rijn: AES-256-CTR served by %s, AES-256-ECB by %s\n",
           served_by(e.libctx, "AES-256-CTR", e.rijn),
           served_by(e.libctx, "AES-256-ECB", e.rijn));
    if (strcmp(served_by(e.libctx, "AES-256-CTR", e.rijn), "rijn") != 0)
        rc = 1;
    f1 = run_file(argv[1], e.libctx, &c1);
    pt_env_close(&e);
    unsetenv("RIJN_PROVIDER_TRACE");
    print_counts("rijn preferred", &c1, f1);
    if (f1 != 0 || c1.stanzas == 0)
        rc = 1;
    if (check_trace(trace) != 0)
        rc = 1;

    /* Run 2: the default provider alone. */
    if (pt_env_open(&e, NULL) != 0)
        return 1;
    f2 = run_file(argv[1], e.libctx, &c2);
    pt_env_close(&e);
    print_counts("default only", &c2, f2);
    if (f2 != 0 || c2.stanzas != c1.stanzas)
        rc = 1;
    printf("%s\n", rc == 0 ? "PASS" : "FAIL");
    return rc;
}
