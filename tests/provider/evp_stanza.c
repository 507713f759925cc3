/*
 * evp_stanza: OpenSSL's own AES-GCM and AES-CTR test stanzas
 * (vectors/evpciph_aes_common.txt, OpenSSL 3.0.22) run through EVP against
 * one provider, every way OpenSSL's test/evp_test.c feeds a cipher stanza
 * and then some:
 *
 *   - evp_test's own loop: output aligned / misaligned by 1, input in place
 *     or copied to an aligned / misaligned buffer, AAD and data whole or in
 *     1, n-2, 1 byte pieces, the context copied (EVP_CIPHER_CTX_copy, the
 *     original freed) after the key is set, the IV echoed back and NextIV
 *     checked against EVP_CIPHER_CTX_get_updated_iv;
 *   - more offsets (3, 7, 15 / 5, 13), more splits (1-byte, 16-byte, odd
 *     sizes, zero-length calls in between), the copy taken at four other
 *     points (after the AAD, mid-data, before final, none);
 *   - two more ways to set the context up (key first then IV, IV length
 *     and tag as init parameters) and the EVP_Cipher() call style.
 *
 * Each run goes in both directions unless the stanza's Operation says one.
 * A stanza with Result must fail, in every run, at the step that name
 * stands for (evp_test's error names: CIPHERFINAL_ERROR, TAG_SET_ERROR,
 * ...); one without must pass every run. Outputs live in exact-size
 * buffers with guard bytes on both sides; out-of-place input must not
 * change.
 *
 *   usage: test_evp_stanza VECTORS default|rijn|same [MODULE]
 *
 * "default" and "rijn" fetch with provider=default / provider=rijn (the
 * module is loaded in both cases when given; "rijn" needs it); "same" runs
 * both and fails unless the per-cipher counts are identical. Prints
 * "AES-128-GCM: N stanzas, M runs passed" per cipher; fails on any
 * mismatch and when no GCM or no CTR stanza was found.
 */
#include "provtest.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>

#define MAX_AAD 8
#define NCIPHERS 6
#define GUARD 16

typedef struct {
    unsigned char *p;
    size_t n;
    int set;
} blob;

typedef struct {
    const char *fetch_name; /* as the stanza spells it */
    int idx;                /* into cipher_names */
    int gcm;
    int line;
    blob key, iv, pt, ct, tag, next_iv, aad[MAX_AAD];
    int naad;
    int op;                 /* -1 both ways, 1 encrypt only, 0 decrypt only */
    char result[64];        /* "" when every run must pass */
    int tag_late;
} stanza;

static const char *const cipher_names[NCIPHERS] = {
    "AES-128-GCM", "AES-192-GCM", "AES-256-GCM",
    "AES-128-CTR", "AES-192-CTR", "AES-256-CTR",
};

typedef struct {
    unsigned long stanzas, runs, passed;
} counts;

/* How one run feeds the context. */
enum { COPY_NONE, COPY_BEFORE_AAD, COPY_AFTER_AAD, COPY_MID_DATA,
       COPY_BEFORE_FINAL, NCOPY };
enum { SPLIT_WHOLE, SPLIT_EVPTEST, SPLIT_BYTES, SPLIT_BLOCKS, SPLIT_ODD,
       SPLIT_EMPTIES, NSPLIT };

typedef struct {
    int in_place;
    size_t out_off, in_off;
    int dsplit, asplit;
    int copy_at;
    int init;   /* 0 evp_test's order, 1 key then IV, 2 init parameters */
    int api;    /* 0 EVP_CipherUpdate/Final, 1 EVP_Cipher */
} layout;

static int verbose;

static size_t piece(int pattern, size_t rem, unsigned idx)
{
    static const size_t odd[] = { 15, 17, 1, 31, 2 };
    static const size_t empties[] = { 0, 5, 0, 16, 3, 0, 33 };
    size_t want;

    switch (pattern) {
    case SPLIT_EVPTEST: /* 1, n-2, 1 */
        if (idx == 0)
            return rem < 1 ? rem : 1;
        return rem > 1 ? rem - 1 : rem;
    case SPLIT_BYTES:
        want = 1;
        break;
    case SPLIT_BLOCKS:
        want = 16;
        break;
    case SPLIT_ODD:
        want = odd[idx % 5];
        break;
    case SPLIT_EMPTIES:
        want = empties[idx % 7];
        break;
    default:
        want = rem;
        break;
    }
    return want < rem ? want : rem;
}

static int ctx_copy(EVP_CIPHER_CTX **ctx)
{
    EVP_CIPHER_CTX *n = EVP_CIPHER_CTX_new();

    if (n == NULL || !EVP_CIPHER_CTX_copy(n, *ctx)) {
        EVP_CIPHER_CTX_free(n);
        return 0;
    }
    EVP_CIPHER_CTX_free(*ctx); /* the original goes first */
    *ctx = n;
    return 1;
}

static int get_iv(EVP_CIPHER_CTX *ctx, const char *which, unsigned char *buf,
                  size_t cap)
{
    OSSL_PARAM p[2];

    p[0] = OSSL_PARAM_construct_octet_string(which, buf, cap);
    p[1] = OSSL_PARAM_construct_end();
    return EVP_CIPHER_CTX_get_params(ctx, p) > 0;
}

/* Set up the context as layout L says; NULL or evp_test's error name. */
static const char *setup(const stanza *s, EVP_CIPHER *c, int enc,
                         const layout *L, EVP_CIPHER_CTX *ctx)
{
    size_t ivlen = s->iv.n;
    int dectag = s->gcm && !enc && !s->tag_late;
    OSSL_PARAM p[3], *q = p;

    if (L->init == 0) {
        if (!EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc))
            return "CIPHERINIT_ERROR";
        if (s->iv.set) {
            if (s->gcm) {
                if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN,
                                        (int)ivlen, NULL) <= 0)
                    return "INVALID_IV_LENGTH";
            } else if (ivlen != (size_t)EVP_CIPHER_CTX_get_iv_length(ctx)) {
                return "INVALID_IV_LENGTH";
            }
        }
        if (dectag && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG,
                                          (int)s->tag.n, s->tag.p) <= 0)
            return "TAG_SET_ERROR";
        if (!EVP_CIPHER_CTX_set_key_length(ctx, (int)s->key.n))
            return "INVALID_KEY_LENGTH";
        if (!EVP_CipherInit_ex(ctx, NULL, NULL, s->key.p,
                               s->iv.set ? s->iv.p : NULL, -1))
            return "KEY_SET_ERROR";
        return NULL;
    }
    if (L->init == 1 || !s->gcm) {
        /* the key alone first, then (GCM) IV length and tag, then the IV */
        if (!EVP_CipherInit_ex2(ctx, c, s->key.p, NULL, enc, NULL))
            return "KEY_SET_ERROR";
        if (s->gcm && s->iv.set) {
            *q++ = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN,
                                               &ivlen);
            *q = OSSL_PARAM_construct_end();
            if (!EVP_CIPHER_CTX_set_params(ctx, p))
                return "INVALID_IV_LENGTH";
        }
        q = p;
        if (dectag) {
            *q++ = OSSL_PARAM_construct_octet_string(
                OSSL_CIPHER_PARAM_AEAD_TAG, s->tag.p, s->tag.n);
            *q = OSSL_PARAM_construct_end();
            if (!EVP_CIPHER_CTX_set_params(ctx, p))
                return "TAG_SET_ERROR";
        }
        if (s->iv.set && !EVP_CipherInit_ex2(ctx, NULL, NULL, s->iv.p, -1, NULL))
            return "KEY_SET_ERROR";
        return NULL;
    }
    /* GCM: IV length and tag as parameters of a first init, then key+IV */
    if (s->iv.set)
        *q++ = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN,
                                           &ivlen);
    if (dectag)
        *q++ = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
                                                 s->tag.p, s->tag.n);
    *q = OSSL_PARAM_construct_end();
    if (!EVP_CipherInit_ex2(ctx, c, NULL, NULL, enc, p))
        return "CIPHERINIT_ERROR";
    if (!EVP_CipherInit_ex2(ctx, NULL, s->key.p, s->iv.set ? s->iv.p : NULL,
                            -1, NULL))
        return "KEY_SET_ERROR";
    return NULL;
}

static const char *feed_aad(const stanza *s, const layout *L,
                            EVP_CIPHER_CTX *ctx)
{
    for (int i = 0; i < s->naad; i++) {
        size_t done = 0;
        unsigned idx = 0;

        do {
            size_t n = piece(L->asplit, s->aad[i].n - done, idx++);
            int outl = -1;

            if (L->api == 1) {
                if (EVP_Cipher(ctx, NULL, s->aad[i].p + done, (unsigned)n)
                    != (int)n)
                    return "AAD_SET_ERROR";
            } else {
                if (!EVP_CipherUpdate(ctx, NULL, &outl, s->aad[i].p + done,
                                      (int)n))
                    return "AAD_SET_ERROR";
                if (outl != (int)n)
                    return "AAD_LENGTH";
            }
            done += n;
        } while (done < s->aad[i].n);
    }
    return NULL;
}

/* One run in one direction; NULL when it passed, else evp_test's name. */
static const char *run(const stanza *s, EVP_CIPHER *c, int enc,
                       const layout *L)
{
    const blob *in = enc ? &s->pt : &s->ct, *want = enc ? &s->ct : &s->pt;
    size_t len = in->n, obsz = L->out_off + len + GUARD, ibsz = 0;
    unsigned char *ob = malloc(obsz), *ib = NULL, *inp, *outp, buf[128];
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    const char *err = NULL;
    size_t done = 0, total = 0;
    unsigned idx = 0;
    int outl;

    if (ob == NULL || ctx == NULL) {
        err = "ALLOC";
        goto out;
    }
    memset(ob, 0xA5, obsz);
    outp = ob + L->out_off;
    if (L->in_place) {
        memcpy(outp, in->p, len);
        inp = outp;
    } else {
        ibsz = L->in_off + len + GUARD;
        ib = malloc(ibsz);
        if (ib == NULL) {
            err = "ALLOC";
            goto out;
        }
        memset(ib, 0x3C, ibsz);
        inp = ib + L->in_off;
        memcpy(inp, in->p, len);
    }

    if ((err = setup(s, c, enc, L, ctx)) != NULL)
        goto out;
    /* the IV reads back as given, as the IV set and as the current one */
    if (s->iv.set && (!get_iv(ctx, OSSL_CIPHER_PARAM_IV, buf, sizeof buf)
                      || memcmp(buf, s->iv.p, s->iv.n) != 0
                      || !get_iv(ctx, OSSL_CIPHER_PARAM_UPDATED_IV, buf,
                                 sizeof buf)
                      || memcmp(buf, s->iv.p, s->iv.n) != 0)) {
        err = "INVALID_IV";
        goto out;
    }
    if (L->copy_at == COPY_BEFORE_AAD && !ctx_copy(&ctx)) {
        err = "COPY_ERROR";
        goto out;
    }
    if (s->gcm && (err = feed_aad(s, L, ctx)) != NULL)
        goto out;
    if (L->copy_at == COPY_AFTER_AAD && !ctx_copy(&ctx)) {
        err = "COPY_ERROR";
        goto out;
    }
    if (s->gcm && !enc && s->tag_late
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)s->tag.n,
                               s->tag.p) <= 0) {
        err = "TAG_SET_ERROR";
        goto out;
    }
    if (!EVP_CIPHER_CTX_set_padding(ctx, 0)) {
        err = "PADDING_ERROR";
        goto out;
    }
    do {
        size_t n = piece(L->dsplit, len - done, idx++);

        if (L->api == 1) {
            outl = EVP_Cipher(ctx, outp + total, inp + done, (unsigned)n);
            if (outl < 0) {
                err = "CIPHERUPDATE_ERROR";
                goto out;
            }
        } else if (!EVP_CipherUpdate(ctx, outp + total, &outl, inp + done,
                                     (int)n)) {
            err = "CIPHERUPDATE_ERROR";
            goto out;
        }
        if (outl != (int)n) {
            err = "UPDATE_LENGTH";
            goto out;
        }
        done += n;
        total += (size_t)outl;
        if (idx == 1 && L->copy_at == COPY_MID_DATA && !ctx_copy(&ctx)) {
            err = "COPY_ERROR";
            goto out;
        }
    } while (done < len);
    if (L->copy_at == COPY_BEFORE_FINAL && !ctx_copy(&ctx)) {
        err = "COPY_ERROR";
        goto out;
    }
    if (L->api == 1 && s->gcm) {
        if (EVP_Cipher(ctx, NULL, NULL, 0) < 0) {
            err = "CIPHERFINAL_ERROR";
            goto out;
        }
    } else {
        outl = -1;
        if (!EVP_CipherFinal_ex(ctx, outp + total, &outl)) {
            err = "CIPHERFINAL_ERROR";
            goto out;
        }
        if (outl != 0) {
            err = "FINAL_LENGTH";
            goto out;
        }
    }
    if (total != want->n || memcmp(outp, want->p, total) != 0) {
        err = "VALUE_MISMATCH";
        goto out;
    }
    if (enc && s->gcm) {
        unsigned char rtag[16];

        if (s->tag.n > sizeof rtag
            || !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)s->tag.n,
                                    rtag)) {
            err = "TAG_RETRIEVE_ERROR";
            goto out;
        }
        if (memcmp(rtag, s->tag.p, s->tag.n) != 0) {
            err = "TAG_VALUE_MISMATCH";
            goto out;
        }
    }
    if (s->next_iv.set
        && (!get_iv(ctx, OSSL_CIPHER_PARAM_UPDATED_IV, buf, sizeof buf)
            || s->next_iv.n > sizeof buf
            || memcmp(buf, s->next_iv.p, s->next_iv.n) != 0)) {
        err = "INVALID_NEXT_IV";
        goto out;
    }
out:
    if (ob != NULL) {
        for (size_t i = 0; i < L->out_off; i++)
            if (ob[i] != 0xA5 && err == NULL)
                err = "GUARD_BEFORE_OUTPUT";
        for (size_t i = L->out_off + len; i < obsz; i++)
            if (ob[i] != 0xA5 && err == NULL)
                err = "GUARD_AFTER_OUTPUT";
    }
    if (ib != NULL) {
        for (size_t i = 0; i < ibsz; i++) {
            int inside = i >= L->in_off && i < L->in_off + len;

            if ((inside ? ib[i] != in->p[i - L->in_off] : ib[i] != 0x3C)
                && err == NULL)
                err = "INPUT_CHANGED";
        }
    }
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
    free(ob);
    free(ib);
    return err;
}

static void describe(const layout *L, char *buf, size_t n)
{
    static const char *const splits[NSPLIT] = {
        "whole", "1,n-2,1", "1-byte", "16-byte", "odd", "with-empties" };
    static const char *const copies[NCOPY] = {
        "no copy", "copy before AAD", "copy after AAD", "copy mid-data",
        "copy before final" };
    char where[48];

    if (L->in_place)
        snprintf(where, sizeof where, "in place +%zu", L->out_off);
    else
        snprintf(where, sizeof where, "out +%zu in +%zu", L->out_off,
                 L->in_off);
    snprintf(buf, n, "%s, data %s, AAD %s, %s, init %d, %s", where,
             splits[L->dsplit], splits[L->asplit], copies[L->copy_at],
             L->init, L->api ? "EVP_Cipher" : "Update/Final");
}

/* Every layout a stanza runs with, in order; returns the count. */
static int layouts(layout *out, int max)
{
    static const size_t outs[] = { 3, 7, 15 }, ins[] = { 5, 13 };
    int n = 0;
    layout L;

#define ADD()                                                               \
    do {                                                                    \
        if (n < max)                                                        \
            out[n] = L;                                                     \
        n++;                                                                \
    } while (0)
    /* evp_test's loop */
    for (int frag = 0; frag <= 1; frag++)
        for (size_t oo = 0; oo <= 1; oo++)
            for (int im = -1; im <= 1; im++) {
                memset(&L, 0, sizeof L);
                L.in_place = im < 0;
                L.out_off = oo;
                L.in_off = im < 0 ? 0 : (size_t)im;
                L.dsplit = L.asplit = frag ? SPLIT_EVPTEST : SPLIT_WHOLE;
                L.copy_at = COPY_BEFORE_AAD;
                ADD();
            }
    /* more offsets */
    for (int i = 0; i < 3; i++)
        for (int j = -1; j < 2; j++) {
            memset(&L, 0, sizeof L);
            L.in_place = j < 0;
            L.out_off = outs[i];
            L.in_off = j < 0 ? 0 : ins[j];
            L.dsplit = L.asplit = (i * 3 + j + 1) % NSPLIT;
            L.copy_at = (i + j + 1) % NCOPY;
            ADD();
        }
    /* every split of the data and the AAD, with every copy point */
    for (int d = 0; d < NSPLIT; d++)
        for (int cp = 0; cp < NCOPY; cp++) {
            memset(&L, 0, sizeof L);
            L.dsplit = d;
            L.asplit = (d + cp) % NSPLIT;
            L.copy_at = cp;
            L.in_place = cp % 2;
            ADD();
        }
    /* the other set-up orders and the EVP_Cipher() style */
    for (int init = 0; init <= 2; init++)
        for (int api = 0; api <= 1; api++)
            for (int d = 0; d <= 2; d += 2) {
                memset(&L, 0, sizeof L);
                L.init = init;
                L.api = api;
                L.dsplit = L.asplit = d;
                L.copy_at = api ? COPY_MID_DATA : COPY_NONE;
                L.in_place = api;
                L.out_off = (size_t)init;
                ADD();
            }
#undef ADD
    return n;
}

static void stanza_free(stanza *s)
{
    blob *b[] = { &s->key, &s->iv, &s->pt, &s->ct, &s->tag, &s->next_iv };

    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        free(b[i]->p);
    for (int i = 0; i < s->naad; i++)
        free(s->aad[i].p);
    memset(s, 0, sizeof *s);
}

static int hex_field(const pt_reader *r, int i, blob *b)
{
    if (b->set) {
        fprintf(stderr, "%s:%d: %s given twice\n", r->path, r->fld[i].line,
                r->fld[i].key);
        return -1;
    }
    if (pt_unhex(r->fld[i].value, &b->p, &b->n) != 0) {
        fprintf(stderr, "%s:%d: bad hex in %s\n", r->path, r->fld[i].line,
                r->fld[i].key);
        return -1;
    }
    b->set = 1;
    return 0;
}

/*
 * Parse a GCM/CTR stanza; every field it has must be one this program
 * understands (an unknown one is an error, never ignored).
 */
static int parse(const pt_reader *r, stanza *s)
{
    for (int i = 0; i < r->n; i++) {
        const char *k = r->fld[i].key, *v = r->fld[i].value;
        int rc = 0;

        if (strcmp(k, "Cipher") == 0 || strcmp(k, "Availablein") == 0)
            continue;
        if (strcmp(k, "Key") == 0)
            rc = hex_field(r, i, &s->key);
        else if (strcmp(k, "IV") == 0)
            rc = hex_field(r, i, &s->iv);
        else if (strcmp(k, "Plaintext") == 0)
            rc = hex_field(r, i, &s->pt);
        else if (strcmp(k, "Ciphertext") == 0)
            rc = hex_field(r, i, &s->ct);
        else if (strcmp(k, "Tag") == 0)
            rc = hex_field(r, i, &s->tag);
        else if (strcmp(k, "NextIV") == 0)
            rc = hex_field(r, i, &s->next_iv);
        else if (strcmp(k, "AAD") == 0) {
            if (s->naad == MAX_AAD) {
                fprintf(stderr, "%s:%d: too many AAD\n", r->path, r->fld[i].line);
                return -1;
            }
            rc = hex_field(r, i, &s->aad[s->naad++]);
        } else if (strcmp(k, "Operation") == 0) {
            if (strcmp(v, "ENCRYPT") == 0)
                s->op = 1;
            else if (strcmp(v, "DECRYPT") == 0)
                s->op = 0;
            else if (strcmp(v, "BOTH") == 0)
                s->op = -1;
            else
                rc = -1;
        } else if (strcmp(k, "Result") == 0) {
            snprintf(s->result, sizeof s->result, "%s", v);
        } else if (strcmp(k, "SetTagLate") == 0) {
            s->tag_late = strcmp(v, "TRUE") == 0;
        } else {
            fprintf(stderr, "%s:%d: field %s not understood\n", r->path,
                    r->fld[i].line, k);
            return -1;
        }
        if (rc != 0)
            return -1;
    }
    if (!s->key.set || !s->pt.set || !s->ct.set || (s->gcm && !s->tag.set)
        || (!s->gcm && s->naad > 0)) {
        fprintf(stderr, "%s:%d: incomplete stanza\n", r->path, r->start);
        return -1;
    }
    return 0;
}

/* The stanza's cipher as one of ours (-1: another cipher, not run here). */
static int classify(pt_env *e, const char *name)
{
    EVP_CIPHER *c = EVP_CIPHER_fetch(e->libctx, name, "provider=default");
    int mode, bits, idx = -1;

    if (c == NULL) {
        ERR_clear_error();
        return -1;
    }
    mode = EVP_CIPHER_get_mode(c);
    bits = EVP_CIPHER_get_key_length(c) * 8;
    if (strncmp(EVP_CIPHER_get0_name(c), "AES", 3) == 0
        || strncmp(EVP_CIPHER_get0_name(c), "aes", 3) == 0) {
        int k = bits == 128 ? 0 : bits == 192 ? 1 : bits == 256 ? 2 : -1;

        if (k >= 0 && mode == EVP_CIPH_GCM_MODE)
            idx = k;
        else if (k >= 0 && mode == EVP_CIPH_CTR_MODE)
            idx = 3 + k;
    }
    EVP_CIPHER_free(c);
    return idx;
}

/* Run the whole file against one provider; 0 when everything passed. */
static int run_file(const char *path, pt_env *e, int rijn,
                    counts cnt[NCIPHERS], unsigned long *other)
{
    layout L[128];
    int nl = layouts(L, 128), fails = 0, rc;
    pt_reader r;

    if (nl > 128) {
        fprintf(stderr, "internal: too many layouts\n");
        return -1;
    }
    memset(cnt, 0, sizeof(counts) * NCIPHERS);
    *other = 0;
    if (pt_reader_open(&r, path) != 0)
        return -1;
    while ((rc = pt_reader_next(&r)) == 1) {
        const char *name = pt_reader_get(&r, "Cipher");
        const char *avail = pt_reader_get(&r, "Availablein");
        stanza s;
        EVP_CIPHER *c;
        int idx;

        if (name == NULL)
            continue; /* Title and the like */
        idx = classify(e, name);
        if (idx < 0 || (avail != NULL && strstr(avail, "default") == NULL)) {
            ++*other;
            continue;
        }
        memset(&s, 0, sizeof s);
        s.op = -1;
        s.idx = idx;
        s.gcm = idx < 3;
        s.line = r.start;
        s.fetch_name = name;
        if (parse(&r, &s) != 0) {
            stanza_free(&s);
            fails++;
            break;
        }
        c = pt_fetch(e, name, rijn);
        if (c == NULL) {
            fprintf(stderr, "%s:%d: cannot fetch %s\n", path, s.line, name);
            stanza_free(&s);
            fails++;
            continue;
        }
        cnt[idx].stanzas++;
        for (int enc = 1; enc >= 0; enc--) {
            if (s.op >= 0 && s.op != enc)
                continue;
            for (int i = 0; i < nl; i++) {
                const char *err;

                /* setup-phase failures are only defined for evp_test's order */
                if (s.result[0] != '\0' && L[i].init != 0
                    && strcmp(s.result, "CIPHERFINAL_ERROR") != 0
                    && strcmp(s.result, "CIPHERUPDATE_ERROR") != 0
                    && strcmp(s.result, "AAD_SET_ERROR") != 0)
                    continue;
                cnt[idx].runs++;
                err = run(&s, c, enc, &L[i]);
                if ((err == NULL && s.result[0] == '\0')
                    || (err != NULL && strcmp(err, s.result) == 0)) {
                    cnt[idx].passed++;
                    continue;
                }
                fails++;
                if (fails <= 30 || verbose) {
                    char d[160];

                    describe(&L[i], d, sizeof d);
                    fprintf(stderr, "FAIL %s:%d %s %s [%s]: got %s, want %s\n",
                            path, s.line, name, enc ? "encrypt" : "decrypt", d,
                            err != NULL ? err : "success",
                            s.result[0] != '\0' ? s.result : "success");
                }
            }
        }
        EVP_CIPHER_free(c);
        stanza_free(&s);
    }
    pt_reader_close(&r);
    return rc < 0 || fails > 0 ? -1 : 0;
}

static int report(const char *label, const counts cnt[NCIPHERS],
                  unsigned long other)
{
    unsigned long gcm = 0, ctr = 0;

    for (int i = 0; i < NCIPHERS; i++) {
        printf("%s%s: %lu stanzas, %lu runs passed", label, cipher_names[i],
               cnt[i].stanzas, cnt[i].passed);
        if (cnt[i].passed != cnt[i].runs)
            printf(" (of %lu)", cnt[i].runs);
        printf("\n");
        if (i < 3)
            gcm += cnt[i].stanzas;
        else
            ctr += cnt[i].stanzas;
    }
    printf("%sother ciphers' stanzas (not run here): %lu\n", label, other);
    if (gcm == 0 || ctr == 0) {
        printf("%sFAIL: %lu GCM and %lu CTR stanzas found; both must be > 0\n",
               label, gcm, ctr);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    counts c[2][NCIPHERS];
    unsigned long other[2];
    const char *mode, *module;
    int rc = 0;
    pt_env e;

    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s VECTORS default|rijn|same [MODULE]\n",
                argv[0]);
        return 2;
    }
    mode = argv[2];
    module = argc == 4 ? argv[3] : NULL;
    verbose = getenv("PT_VERBOSE") != NULL;
    if (strcmp(mode, "default") != 0 && module == NULL) {
        fprintf(stderr, "mode %s needs the module's path\n", mode);
        return 2;
    }
    if (pt_env_open(&e, module) != 0)
        return 1;
    if (strcmp(mode, "default") == 0 || strcmp(mode, "rijn") == 0) {
        int rijn = strcmp(mode, "rijn") == 0;

        if (run_file(argv[1], &e, rijn, c[0], &other[0]) != 0)
            rc = 1;
        if (report(rijn ? "rijn " : "default ", c[0], other[0]) != 0)
            rc = 1;
    } else if (strcmp(mode, "same") == 0) {
        if (run_file(argv[1], &e, 0, c[0], &other[0]) != 0)
            rc = 1;
        if (run_file(argv[1], &e, 1, c[1], &other[1]) != 0)
            rc = 1;
        if (report("default ", c[0], other[0]) != 0
            || report("rijn ", c[1], other[1]) != 0)
            rc = 1;
        if (memcmp(c[0], c[1], sizeof c[0]) != 0 || other[0] != other[1]) {
            printf("FAIL: the per-cipher counts differ between the providers\n");
            rc = 1;
        } else {
            printf("same: identical per-cipher counts for default and rijn\n");
        }
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        rc = 2;
    }
    pt_env_close(&e);
    printf("%s\n", rc == 0 ? "PASS" : "FAIL");
    return rc;
}
