/*
 * evp_diff: random EVP call sequences on two cipher contexts side by side,
 * one from provider=rijn (side R) and one from provider=default (side D),
 * AES-{128,192,256}-{GCM,CTR}, every answer compared: return value, output
 * length, every byte of a 4 KiB arena per side that holds all inputs and
 * outputs (so a stray write shows), the ctrl buffers, and after every call
 * a snapshot of the context's parameters. The calls: EVP_CipherInit_ex2
 * (new context or not, key / IV / both / neither, direction, parameters),
 * IV length (ctrl and params, 0..200), AAD and data pieces of 0..1500 bytes
 * in place or not through EVP_CipherUpdate and EVP_Cipher, final, tag get
 * and set (correct, wrong, short, invalid lengths), context copy (the
 * original freed), get/set of known and unknown parameters, the TLS 1.2
 * paths (tlsaad with valid and invalid lengths, tlsivfixed -1/4/.., tlsivgen,
 * tlsivinv, in-place records, valid ones built by a reference context), and
 * for CTR num, padding, the TLS MAC parameters and re-inits mid-block.
 *
 * A shadow of the default provider's state (struct shadow) predicts the
 * calls where rijn refuses on purpose and OpenSSL 3.0 goes on: the
 * DELIBERATE table and deliberate() below, the one place to change them.
 * Such a call is made on rijn's context and on a throwaway copy of
 * default's (some of them corrupt OpenSSL's context, D7); rijn must refuse,
 * and must not write; it is a hit when default accepted and "refused by
 * both" when default refused too (an OpenSSL with the fix: Debian's 3.0.22
 * already refuses D3 and D4, its 3.0.19 accepts any num); then both are
 * re-initialised. With 20000
 * sequences or more every Dn must have come up, and so must random IVs,
 * right-tag decryption finals and TLS records both ways.
 * Random IVs (GCM encryption without one, tlsivfixed when encrypting) differ
 * by nature: default answers on a copy first (success and length compared),
 * then gets rijn's IV fed in and must give rijn's bytes; a random IV equal
 * to the one before fails.
 *
 * The calls themselves, their comparison and the generator of random
 * calls and scenarios are in evp_diff_ops.c (types in evp_diff.h).
 *
 *   usage: test_evp_diff MODULE|default [SEED [COUNT]]
 *
 * "default" instead of a module path runs default against default (the
 * harness's own check: everything identical, no deliberate differences).
 */
#include "evp_diff.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>

/* ---------------------------------------------------------------------
 * DELIBERATE: where rijn refuses and OpenSSL 3.0's default provider
 * accepts (doc/provider.md). deliberate() maps a call and the shadow's
 * facts to one of these; nothing else may differ. D5 is a directed check
 * only (overlap()); the random calls never overlap their buffers.
 */
enum { D_NONE, D1, D2, D3, D4, D5, D6, D7, D8, ND };
static const char *const DELIBERATE[ND] = {
    [D1] = "GCM: AAD/data/final after a failed decryption final, until a new IV",
    [D2] = "GCM: AAD/data/final after a key-only init once the IV was in use",
    [D3] = "CTR: num set to anything but 0",
    [D4] = "CTR: data before any key was set",
    [D5] = "partially overlapping in/out buffers (directed check)",
    [D6] = "GCM: AAD after a zero-length EVP_Cipher data call",
    [D7] = "GCM TLS: IV under 8 bytes for tlsivgen/records, tlsivinv or "
           "tlsivfixed longer than the IV",
    [D8] = "GCM: AAD/data/final after an init that changed the direction"
           " mid-message, until a new IV",
};
static unsigned long hits[ND], refused_both[ND];

/* The DELIBERATE table as a predicate: which Dn, if any, this call is. */
static int deliberate(const shadow *s, int gcm, int kind, int via,
                      size_t len, int arg, int num_set, int same_buf)
{
    int data = kind == OP_AAD || kind == OP_DATA || kind == OP_FINAL
               || kind == OP_RECORD;

    if (!gcm && num_set) /* also an init that gives the cipher */
        return D3;
    if (!s->has_cipher)
        return D_NONE;
    if (!gcm)
        return (kind == OP_DATA || kind == OP_RECORD) && len > 0
                         && !s->key_set ? D4 : D_NONE;
    if (data && !via && len == 0 && kind != OP_FINAL)
        return D_NONE; /* EVP_CipherUpdate of nothing: no provider check */
    if (data && s->tls_aad) /* a TLS record */
        return s->key_set && same_buf && len >= 24 && s->iv_gen
                       && s->ivlen < 8 ? D7 : D_NONE;
    if (data && s->key_set && s->ivs != FINISHED && s->voided)
        return s->voided;
    if (kind == OP_AAD && s->ivs == COPIED && s->zero_data && !s->real_data)
        return D6;
    if (kind == OP_IVGEN && s->iv_gen && s->key_set && s->ivlen < 8)
        return D7;
    if (kind == OP_IVINV && s->iv_gen && s->key_set && !s->enc && arg >= 0
        && (size_t)arg > s->ivlen)
        return D7;
    if (kind == OP_IVFIXED && !s->enc && arg >= 4 && (size_t)arg > s->ivlen)
        return D7;
    return D_NONE;
}

static const pspec *first(const op *o, int name);

/* A CTR call that sets num to anything but 0 (D3). */
static int num_set(const pair *P, const op *o)
{
    const pspec *num = first(o, P_NUM);

    if (P->gcm)
        return 0;
    if (o->kind == OP_NUM && !o->via)
        return o->arg != 0;
    return (o->kind == OP_NUM || o->kind == OP_SET || o->kind == OP_INIT)
           && num != NULL && (unsigned)num->v != 0;
}

/* A new IV length voids an IV set or in use (OpenSSL 3.0.22 and rijn). */
static void set_ivlen(shadow *s, size_t v)
{
    if (v != s->ivlen && s->ivs != UNINIT) {
        s->ivs = FINISHED;
        s->voided = s->tx_ok = 0;
    }
    s->ivlen = v;
}

static const pspec *first(const op *o, int name)
{
    for (int i = 0; i < o->np; i++)
        if (o->p[i].name == name)
            return &o->p[i]; /* what OSSL_PARAM_locate finds */
    return NULL;
}

/*
 * GCM parameters in OpenSSL's order (tag, then ivlen; the rest ignored);
 * 1 when they are all good. Nothing is checked against default's answer
 * here: the caller does that.
 */
static int params(pair *P, const op *o)
{
    const pspec *tag = first(o, P_TAG), *ivl = first(o, P_IVLEN);
    shadow *s = &P->s;

    if (!P->gcm)
        return 1;
    if (tag != NULL) {
        if (s->enc || tag->sz == 0 || tag->sz > 16 || tag->type != T_OCT)
            return 0;
        s->taglen_set = 1;
    }
    if (ivl != NULL) {
        if (ivl->v == 0 || ivl->v > 128)
            return 0;
        set_ivlen(s, (size_t)ivl->v);
    }
    return 1;
}

/* The IV and key lengths given to an init go in before the init itself
 * (OpenSSL 3.0.12 on, CVE-2023-5363): 0 when that fails the init. */
static int init_lengths(pair *P, const op *o)
{
    const pspec *ivl = first(o, P_IVLEN);

    if (ivl == NULL || !P->gcm)
        return 1;
    if (ivl->v == 0 || ivl->v > 128)
        return 0;
    set_ivlen(&P->s, (size_t)ivl->v);
    return 1;
}

static void tx_add(shadow *s, unsigned char *t, size_t *n,
                   const unsigned char *p, size_t len)
{
    if (*n + len > TXMAX)
        s->tx_ok = 0;
    else
        memcpy(t + *n, p, len), *n += len;
}

/* The default provider's state after a call it answered ok (1) or not. */
static void update(pair *P, const op *o, int ok, const unsigned char *pre)
{
    shadow *s = &P->s;
    int k = o->kind;

    if (k == OP_INIT) {
        int enc = o->enc >= 0 ? o->enc : s->evp_enc;

        s->evp_enc = enc; /* EVP sets it first, whatever happens next */
        if (o->newc) {
            memset(s, 0, offsetof(shadow, tx_ok));
            s->has_cipher = 1;
            s->ivlen = P->gcm ? 12 : 16;
            s->tx_ok = 0;
        }
        if (!s->has_cipher)
            return;
        if (!init_lengths(P, o)) {
            s->unsure |= ok;
            return;
        }
        /* D8: the other direction, no new IV, once data started */
        if (P->gcm && !o->iv && enc != s->enc && s->ivs == COPIED
            && (s->zero_data || s->real_data) && !s->voided)
            s->voided = D8;
        s->enc = enc;
        if (o->iv && P->gcm) {
            s->ivs = BUFFERED;
            s->voided = 0;
            memcpy(s->iv, o->b, sizeof s->iv);
            s->tx_ivlen = s->ivlen;
            s->tx_ok = 1;
            s->aad_n = s->data_n = 0;
        }
        if (o->key) {
            if (P->gcm && s->ivs == COPIED) {
                s->voided = s->voided ? s->voided : D2;
                s->tx_ok = 0;
            }
            s->key_set = 1;
            memcpy(s->key, o->k, 32);
        }
        if (params(P, o) != ok)
            s->unsure = 1; /* the model and default disagree: start afresh */
        return;
    }
    if (!P->gcm || !s->has_cipher)
        return;
    switch (k) {
    case OP_AAD:
    case OP_DATA:
    case OP_FINAL:
    case OP_RECORD:
        if (!o->via && o->len == 0 && k != OP_FINAL)
            return;
        if (s->tls_aad) { /* the record path, whatever the call */
            if (s->key_set && o->in == o->out && o->len >= 24 && s->iv_gen
                && k != OP_FINAL && k != OP_AAD) {
                s->taglen_set = 1;
                st.rec_ok[s->enc] += (unsigned long)ok;
            }
            s->ivs = FINISHED;
            s->tls_aad = s->voided = s->tx_ok = 0;
            return;
        }
        if (!s->key_set || s->ivs == FINISHED || (s->ivs == UNINIT && !ok))
            return;
        if (s->ivs == BUFFERED || s->ivs == UNINIT) {
            s->ivs = COPIED;
            s->zero_data = s->real_data = 0;
            s->aad_n = s->data_n = 0;
        }
        if (k == OP_AAD && ok)
            tx_add(s, s->aad, &s->aad_n, P->arena[D] + o->in, o->len);
        if ((k == OP_DATA || k == OP_RECORD) && ok) {
            if (o->len == 0)
                s->zero_data = 1;
            else
                s->real_data = 1;
            tx_add(s, s->data, &s->data_n, s->enc ? pre : P->arena[D] + o->out,
                   o->len);
        }
        if (k == OP_FINAL && (s->enc || s->taglen_set)) {
            if (ok) {
                s->ivs = FINISHED;
                s->taglen_set |= s->enc;
                st.dec_final_ok += (unsigned long)!s->enc;
            } else if (!s->enc && !s->voided) {
                s->voided = D1;
            }
        }
        return;
    case OP_SETTAG:
        if (o->via && params(P, o) != ok)
            s->unsure = 1;
        else if (!o->via && ok)
            s->taglen_set = 1;
        return;
    case OP_TLSAAD:
        if (o->arg == 13) {
            s->tls_aad = 1;
            memcpy(s->tlsaad, o->b, 13);
            s->tls_len = (unsigned)o->b[11] << 8 | o->b[12];
        }
        return;
    case OP_IVFIXED:
    case OP_IVGEN:
    case OP_IVINV:
        if (ok) {
            s->iv_gen |= k == OP_IVFIXED;
            s->ivs = k == OP_IVFIXED ? BUFFERED : COPIED;
            s->voided = s->zero_data = s->real_data = s->tx_ok = 0;
        }
        return;
    case OP_IVLEN:
        if (!o->via && ok)
            set_ivlen(s, (size_t)o->arg);
        if (o->via && params(P, o) != ok)
            s->unsure = 1;
        return;
    case OP_SET:
        if (params(P, o) != ok)
            s->unsure = 1;
        return;
    default:
        return;
    }
}

/* Fill in what depends on the state at the time: right tags, records. */
static void prepare(pair *P, op *o)
{
    shadow *s = &P->s;
    static unsigned char ct[TXMAX];
    unsigned char tag[16], ivb[128];

    if (o->kind == OP_SETTAG
        && (o->content == C_CORRECT || o->content == C_FLIP)) {
        if (s->tx_ok && s->key_set && !s->enc
            && (s->ivs == BUFFERED || s->ivs == COPIED)
            && ref_gcm(P, s->key, s->iv, s->tx_ivlen, s->aad, s->aad_n,
                       s->data, s->data_n, ct, tag))
            memcpy(o->b, tag, 16); /* a short tag is its first bytes */
        else
            o->content = C_RANDOM;
        if (o->content == C_FLIP) /* one bit off, anywhere in the tag */
            o->b[pt_below(&rng, o->arg >= 1 && o->arg <= 16 ? (unsigned)o->arg
                                                            : 16)]
                ^= (unsigned char)(1u << pt_below(&rng, 8));
    }
    if (o->kind == OP_RECORD && o->content == C_CORRECT && s->tls_aad
        && !s->enc && s->key_set && s->iv_gen && s->ivlen >= 8
        && s->ivlen <= 128 && o->len >= 24 && s->tls_len >= 24) {
        OSSL_PARAM prm[2] = { OSSL_PARAM_construct_octet_string(
                                  OSSL_CIPHER_PARAM_IV, ivb, sizeof ivb),
                              OSSL_PARAM_construct_end() };
        unsigned char aad[13], *rec = P->arena[D] + o->in;
        size_t n = o->len - 24, pl = s->tls_len - 24;

        if (EVP_CIPHER_CTX_get_params(P->ctx[D], prm) <= 0)
            return;
        memcpy(ivb + s->ivlen - 8, rec, 8); /* the record's explicit IV */
        memcpy(aad, s->tlsaad, 13);
        aad[11] = (unsigned char)(pl >> 8);
        aad[12] = (unsigned char)pl;
        if (ref_gcm(P, s->key, ivb, s->ivlen, aad, 13, rec + 8, n, ct, tag)) {
            memcpy(rec + 8, ct, n);
            memcpy(rec + 8 + n, tag, 16);
            memcpy(P->arena[R] + o->in, rec, o->len);
        }
    }
}

/* Re-initialise both contexts from scratch with a fresh key and IV. */
static int resync(pair *P)
{
    shadow *s = &P->s;
    int enc = s->has_cipher ? s->enc : (int)pt_below(&rng, 2);

    memset(s, 0, sizeof *s);
    pt_fill(&rng, s->key, 32);
    pt_fill(&rng, s->iv, 128);
    if (!P->gcm && pt_chance(&rng, 1, 4))
        near_wrap(s->iv);
    for (int i = R; i <= D; i++)
        if (!EVP_CipherInit_ex2(P->ctx[i], P->ciph[i], s->key, s->iv, enc,
                                NULL)) {
            fprintf(stderr, "resync: init failed\n");
            st.fails++;
            return 0;
        }
    s->has_cipher = s->key_set = s->tx_ok = 1;
    s->enc = s->evp_enc = enc;
    s->ivs = BUFFERED;
    s->ivlen = s->tx_ivlen = P->gcm ? 12 : 16;
    st.resyncs++;
    return 1;
}

/* Both contexts copied, the originals freed. */
static int copy_both(pair *P, const op *o)
{
    int rv[2];

    for (int i = R; i <= D; i++) {
        EVP_CIPHER_CTX *n = EVP_CIPHER_CTX_new();

        rv[i] = n != NULL && EVP_CIPHER_CTX_copy(n, P->ctx[i]);
        if (rv[i]) {
            EVP_CIPHER_CTX_free(P->ctx[i]);
            P->ctx[i] = n;
        } else {
            EVP_CIPHER_CTX_free(n);
        }
        ERR_clear_error();
        st.calls++;
    }
    if (rv[R] != rv[D]) {
        fail(P, o, "%s", "copy succeeded on one side only");
        return 0;
    }
    return snapshot(P);
}

/* A call the table says rijn refuses: rijn's context, default's copy. */
static int probe_deliberate(pair *P, const op *o, int d)
{
    static unsigned char save[2][ARENA];
    EVP_CIPHER_CTX *cp[2] = { NULL, NULL };
    result r[2];
    int ok = 1;

    for (int i = R; i <= D; i++) {
        memcpy(save[i], P->arena[i], ARENA);
        if (i == D || P->self) {
            cp[i] = EVP_CIPHER_CTX_new();
            /* a context without a cipher (an init giving it) cannot be
             * copied, and a new one is the same */
            if (cp[i] == NULL
                || (EVP_CIPHER_CTX_get0_cipher(P->ctx[i]) != NULL
                    && !EVP_CIPHER_CTX_copy(cp[i], P->ctx[i]))) {
                fail(P, o, "%s", "cannot copy a context for a probe");
                ok = 0;
            }
        }
    }
    if (ok) {
        exec(P, R, cp[R] != NULL ? cp[R] : P->ctx[R], P->arena[R], o, &r[R]);
        exec(P, D, cp[D], P->arena[D], o, &r[D]);
        if (P->self) {
            ok = same_result(P, o, &r[R], &r[D], 1) && same_arena(P, o);
            hits[d]++;
        } else if (succeeded(o, r[R].rv)) {
            fail(P, o, "rijn accepted a deliberate refusal (%s)",
                 DELIBERATE[d]);
            ok = 0;
        } else if (memcmp(P->arena[R], save[R], ARENA) != 0) {
            fail(P, o, "rijn wrote output while refusing (%s)", DELIBERATE[d]);
            ok = 0;
        } else if (succeeded(o, r[D].rv)) {
            hits[d]++;
        } else {
            refused_both[d]++;
        }
    }
    EVP_CIPHER_CTX_free(cp[R]);
    EVP_CIPHER_CTX_free(cp[D]);
    memcpy(P->arena[R], save[R], ARENA);
    memcpy(P->arena[D], save[D], ARENA);
    return ok && resync(P) && snapshot(P);
}

/* GCM encryption that will make up a random IV (none set). */
static int random_iv(pair *P, const op *o, const unsigned char *pre)
{
    static unsigned char scratch[ARENA];
    EVP_CIPHER_CTX *cp = EVP_CIPHER_CTX_new();
    unsigned char iv[128];
    result r[2], pr;
    size_t n;

    memcpy(scratch, P->arena[D], ARENA);
    if (cp == NULL || !EVP_CIPHER_CTX_copy(cp, P->ctx[D])) {
        EVP_CIPHER_CTX_free(cp);
        fail(P, o, "%s", "cannot copy a context for a probe");
        return 0;
    }
    exec(P, D, cp, scratch, o, &pr); /* default's own answer, on a copy */
    EVP_CIPHER_CTX_free(cp);
    exec(P, R, P->ctx[R], P->arena[R], o, &r[R]);
    if (pr.rv != r[R].rv || pr.outl != r[R].outl) {
        fail(P, o, "%s", "random-IV call: success or length differs");
        return 0;
    }
    if (succeeded(o, r[R].rv)) {
        n = read_iv(P->ctx[R], iv);
        if (n != P->s.ivlen || memcmp(iv, P->last_rand, n) == 0) {
            fail(P, o, "%s", "random IV: wrong length, or the same again");
            return 0;
        }
        memcpy(P->last_rand, iv, n);
        if (!EVP_CipherInit_ex2(P->ctx[D], NULL, NULL, iv, -1, NULL)) {
            fail(P, o, "%s", "cannot give default rijn's random IV");
            return 0;
        }
        P->s.ivs = BUFFERED;
        memcpy(P->s.iv, iv, n);
        P->s.tx_ivlen = n;
        P->s.tx_ok = 1;
        st.randiv++;
    }
    exec(P, D, P->ctx[D], P->arena[D], o, &r[D]);
    if (!same_result(P, o, &r[R], &r[D], 1) || !same_arena(P, o))
        return 0;
    update(P, o, succeeded(o, r[D].rv), pre);
    return snapshot(P);
}

/* tlsivfixed when encrypting: the rest of the IV is random on each side. */
static int random_fixed(pair *P, op *o)
{
    unsigned char iv[2][128];
    result r[2];
    size_t n[2];

    for (int i = R; i <= D; i++)
        exec(P, i, P->ctx[i], P->arena[i], o, &r[i]);
    if (!same_result(P, o, &r[R], &r[D], 1))
        return 0;
    if (r[D].rv > 0) {
        n[R] = read_iv(P->ctx[R], iv[R]);
        n[D] = read_iv(P->ctx[D], iv[D]);
        if (n[R] != n[D] || n[R] != P->s.ivlen
            || memcmp(iv[R], iv[D], (size_t)o->arg) != 0
            || memcmp(iv[R], P->last_rand, n[R]) == 0) {
            fail(P, o, "%s", "tlsivfixed: fixed part or random part wrong");
            return 0;
        }
        memcpy(P->last_rand, iv[R], n[R]);
        o->arg = -1; /* default takes rijn's whole IV */
        memcpy(o->b, iv[R], 128);
        for (int i = R; i <= D; i++)
            exec(P, i, P->ctx[i], P->arena[i], o, &r[i]);
        if (!same_result(P, o, &r[R], &r[D], 1) || r[D].rv <= 0)
            return 0;
        st.randfix++;
    }
    update(P, o, r[D].rv > 0, NULL);
    return snapshot(P);
}

/* Keep a call within what OpenSSL 3.0 survives (see the notes at each). */
static void sanitize(const pair *P, op *o)
{
    const shadow *s = &P->s;

    if (o->kind == OP_IVFIXED) {
        if (o->arg > 128) /* memcpy into its 128-byte IV */
            o->arg = 128;
        if (o->arg < -1) /* -2 and below pass its check: memcpy of ~2^64 */
            o->arg = 0;
        if (s->enc && o->arg > (int)s->ivlen) /* RAND_bytes of ~2^64 */
            o->arg = (int)s->ivlen;
        if (o->content == C_NULL)
            o->content = C_RANDOM;
    }
    if (o->kind == OP_IVINV) { /* memcpy before its IV: a few bytes only */
        if (o->arg < 0 || o->arg > (int)s->ivlen + 8)
            o->arg = o->arg < 0 ? 0 : (int)s->ivlen + 8;
    }
    if (o->kind == OP_TLSAAD && o->content == C_NULL)
        o->content = C_RANDOM; /* memcpy from NULL */
}

/* GCM encryption about to start without an IV: a random one is made. */
static int makes_random_iv(const pair *P, const op *o)
{
    const shadow *s = &P->s;
    int data = o->kind == OP_AAD || o->kind == OP_DATA || o->kind == OP_FINAL
               || o->kind == OP_RECORD;

    return P->gcm && data && s->has_cipher && s->enc && s->key_set
           && s->ivs == UNINIT && !s->tls_aad
           && !(!o->via && o->len == 0 && o->kind != OP_FINAL);
}

/* One call on both sides: compared, the shadow moved on. */
static int step(pair *P, op *o)
{
    static unsigned char pre[ARENA];
    const shadow *s = &P->s;
    result r[2];
    int d;

    sanitize(P, o);
    prepare(P, o);
    st.ops++;
    if (o->kind == OP_COPY)
        return copy_both(P, o);
    d = deliberate(s, P->gcm, o->kind, o->via, o->len, o->arg, num_set(P, o),
                   o->in == o->out);
    if (d != D_NONE)
        return probe_deliberate(P, o, d);
    memcpy(pre, P->arena[D] + o->in, o->len);
    if (makes_random_iv(P, o)) {
        /* rijn's IV goes to default by an init with enc -1, which means
         * EVP's direction: where that is not the provider's, start over */
        if (P->s.evp_enc != P->s.enc)
            return resync(P) && step(P, o);
        return random_iv(P, o, pre);
    }
    if (P->gcm && o->kind == OP_IVFIXED && s->has_cipher && s->enc
        && o->arg >= 4 && s->ivlen >= 12 && (size_t)o->arg <= s->ivlen - 8)
        return random_fixed(P, o);
    for (int i = R; i <= D; i++)
        exec(P, i, P->ctx[i], P->arena[i], o, &r[i]);
    if (!same_result(P, o, &r[R], &r[D], 1) || !same_arena(P, o))
        return 0;
    update(P, o, succeeded(o, r[D].rv), pre);
    return snapshot(P);
}

static const char *const names[6] = { "AES-128-GCM", "AES-192-GCM",
                                      "AES-256-GCM", "AES-128-CTR",
                                      "AES-192-CTR", "AES-256-CTR" };

/* One random sequence on cipher c; 1 when every call matched. */
static int sequence(pair *P, EVP_CIPHER *ciph[6][2])
{
    int c = (int)pt_below(&rng, 6), n = 4 + (int)pt_below(&rng, 40), ok = 1;
    op o;

    if (trace)
        fprintf(stderr, "sequence %lu: %s, %d calls\n", st.seqs, names[c], n);
    P->gcm = c < 3;
    P->keylen = 16 + 8 * (size_t)(c % 3);
    P->ciph[R] = ciph[c][R];
    P->ciph[D] = ciph[c][D];
    memset(&P->s, 0, sizeof P->s);
    P->s.ivlen = P->gcm ? 12 : 16;
    P->nq = 0;
    pt_fill(&rng, P->arena[D], ARENA);
    memcpy(P->arena[R], P->arena[D], ARENA);
    P->ctx[R] = EVP_CIPHER_CTX_new();
    P->ctx[D] = EVP_CIPHER_CTX_new();
    if (P->ctx[R] == NULL || P->ctx[D] == NULL)
        ok = 0;
    if (ok && pt_chance(&rng, 9, 10)) { /* mostly a proper start */
        fill(P, &o, OP_INIT);
        o.newc = 1;
        o.key = pt_chance(&rng, 17, 20);
        ok = step(P, &o);
    }
    for (int i = 0; ok && i < n; i++) {
        if (P->s.unsure && !resync(P))
            break;
        gen(P, &o);
        ok = step(P, &o);
    }
    EVP_CIPHER_CTX_free(P->ctx[R]);
    EVP_CIPHER_CTX_free(P->ctx[D]);
    st.seqs++;
    return ok;
}

/* D5, directed: data whose output partly overlaps its input. */
static void overlap(const pair *P0, EVP_CIPHER *ciph[6][2])
{
    static const int shift[] = { 1, 15, -1, -7 };
    unsigned char key[32] = { 1 }, iv[16] = { 2 };

    for (int c = 0; c < 6; c++)
        for (int k = 0; k < 8; k++) {
            unsigned char buf[2][96];
            int rv[2], l;

            for (int i = R; i <= D; i++) {
                EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
                unsigned char *in = buf[i] + 32, *out = in + shift[k % 4];

                memset(buf[i], 0x55, sizeof buf[i]);
                rv[i] = x != NULL
                        && EVP_CipherInit_ex2(x, ciph[c][i], key, iv, 1, NULL)
                        && (k < 4 ? EVP_CipherUpdate(x, out, &l, in, 32)
                                  : EVP_Cipher(x, out, in, 32) == 32);
                EVP_CIPHER_CTX_free(x);
                ERR_clear_error();
            }
            if (P0->self ? rv[R] != rv[D] : rv[R] != 0) {
                fprintf(stderr, "MISMATCH %s: overlap by %d (%s): rijn %d,"
                        " default %d\n", names[c], shift[k % 4],
                        k < 4 ? "EVP_CipherUpdate" : "EVP_Cipher", rv[R],
                        rv[D]);
                st.fails++;
            } else if (rv[D] || P0->self) {
                hits[D5]++;
            } else {
                refused_both[D5]++;
            }
        }
}

int main(int argc, char **argv)
{
    uint64_t seed = 0x52494a4e44494646ull; /* "RIJNDIFF" */
    unsigned long count = 20000, bad = 0;
    EVP_CIPHER *ciph[6][2] = { { NULL } };
    pair P;
    pt_env e;
    int rc = 0;

    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s MODULE|default [SEED [COUNT]]\n", argv[0]);
        return 2;
    }
    memset(&P, 0, sizeof P);
    trace = getenv("EVP_DIFF_TRACE") != NULL;
    P.self = strcmp(argv[1], "default") == 0;
    if (argc > 2)
        seed = strtoull(argv[2], NULL, 0);
    if (argc > 3)
        count = strtoul(argv[3], NULL, 0);
    if (pt_env_open(&e, P.self ? NULL : argv[1]) != 0)
        return 1;
    printf("evp_diff: provider=%s against provider=default, seed 0x%016" PRIx64
           ", %lu sequences\n", P.self ? "default" : "rijn", seed, count);
    for (int c = 0; c < 6; c++) {
        ciph[c][R] = pt_fetch(&e, names[c], !P.self);
        ciph[c][D] = pt_fetch(&e, names[c], 0);
        if (ciph[c][R] == NULL || ciph[c][D] == NULL)
            rc = 1;
        else if (!same_surface(names[c], ciph[c][R], ciph[c][D]))
            rc = 1;
    }
    P.arena[R] = malloc(ARENA);
    P.arena[D] = malloc(ARENA);
    if (rc != 0 || P.arena[R] == NULL || P.arena[D] == NULL) {
        rc = 1;
        goto out;
    }
    printf("parameter surface (flags, sizes, names, parameter lists and"
           " values) of the 6 ciphers: identical\n");
    overlap(&P, ciph);
    rng.s = seed;
    for (unsigned long i = 0; i < count; i++)
        bad += (unsigned long)!sequence(&P, ciph);
    printf("%lu sequences, %lu operations, %lu EVP calls per side (each"
           " compared; parameter snapshots included), %lu mismatching"
           " sequences\n", st.seqs, st.ops, st.calls / 2, bad);
    printf("random IVs matched: %lu (encryption without IV), %lu (tlsivfixed);"
           " decryption finals with the right tag: %lu; TLS records: %lu"
           " encrypted, %lu decrypted; re-inits: %lu\n", st.randiv, st.randfix,
           st.dec_final_ok, st.rec_ok[1], st.rec_ok[0], st.resyncs);
    for (int d = D1; d < ND; d++)
        printf("D%d %s: %lu %s, %lu refused by both\n", d, DELIBERATE[d],
               hits[d], P.self ? "cases compared" : "hits", refused_both[d]);
    /* with the default count every case must have come up */
    for (int d = D1; d < ND && count >= 20000; d++)
        if (hits[d] + refused_both[d] == 0) {
            printf("FAIL: no D%d case in %lu sequences\n", d, count);
            rc = 1;
        }
    if (count >= 20000 && (st.randiv == 0 || st.randfix == 0
                           || st.dec_final_ok == 0 || st.rec_ok[0] == 0
                           || st.rec_ok[1] == 0)) {
        printf("FAIL: a path was never reached (see the counts above)\n");
        rc = 1;
    }
    if (bad != 0 || st.fails != 0) {
        print_fail_kinds();
        rc = 1;
    }
out:
    for (int c = 0; c < 6; c++) {
        EVP_CIPHER_free(ciph[c][R]);
        EVP_CIPHER_free(ciph[c][D]);
    }
    free(P.arena[R]);
    free(P.arena[D]);
    pt_env_close(&e);
    printf("%s\n", rc == 0 ? "PASS" : "FAIL");
    return rc;
}
