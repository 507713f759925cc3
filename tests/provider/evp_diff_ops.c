/*
 * evp_diff's calls (see evp_diff.h): an `op` made on one side's context
 * and arena, with its OSSL_PARAM arrays built from the op and what a get
 * left in them captured in a form the two sides can be compared by
 * (pointers into the arena as offsets, pointers into a context as the
 * bytes there); the comparisons; the reference GCM; the cipher-wide
 * parameter surface; the generator of random calls and scenarios.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include "evp_diff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>

stats st;
pt_rng rng;

const char *const opname[NOP] = {
    "init", "ivlen", "aad", "data", "final", "settag", "gettag", "tlsaad",
    "tlsivfixed", "tlsivgen", "tlsivinv", "record", "copy", "get", "set",
    "num", "keylen", "padding" };

const char *const pname[NPARAM] = {
    OSSL_CIPHER_PARAM_IV, OSSL_CIPHER_PARAM_UPDATED_IV, OSSL_CIPHER_PARAM_IVLEN,
    OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_AEAD_TAGLEN,
    OSSL_CIPHER_PARAM_NUM, OSSL_CIPHER_PARAM_PADDING,
    OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, OSSL_CIPHER_PARAM_TLS_MAC,
    OSSL_CIPHER_PARAM_AEAD_TAG, OSSL_CIPHER_PARAM_USE_BITS,
    OSSL_CIPHER_PARAM_TLS_VERSION, OSSL_CIPHER_PARAM_TLS_MAC_SIZE,
    "rijn-no-such-parameter" };

int trace;

/* One line about an op (and what the shadow held before it). */
static void print_op(const pair *P, const op *o)
{
    const shadow *s = &P->s;

    fprintf(stderr, "%s-%zu %s via %d len %zu in %zu out %zu arg %d newc %d"
            " enc %d key %d iv %d content %d", P->gcm ? "GCM" : "CTR",
            P->keylen * 8, opname[o->kind], o->via, o->len, o->in, o->out,
            o->arg, o->newc, o->enc, o->key, o->iv, o->content);
    for (int i = 0; i < o->np; i++)
        fprintf(stderr, " [%s type %d sz %zu v %" PRIu64 "]",
                pname[o->p[i].name], o->p[i].type, o->p[i].sz, o->p[i].v);
    fprintf(stderr, " {cipher %d enc %d key %d ivs %d ivlen %zu iv_gen %d"
            " tag %d tls %d voided %d}", s->has_cipher, s->enc, s->key_set,
            s->ivs, s->ivlen, s->iv_gen, s->taglen_set, s->tls_aad,
            s->voided);
}

/* Mismatches by kind: the call, the cipher family, what differed. */
static struct {
    char what[128];
    unsigned long n;
} kinds[64];

void fail(const pair *P, const op *o, const char *fmt, const char *a)
{
    char what[128], msg[96];
    int k;

    snprintf(msg, sizeof msg, fmt, a);
    snprintf(what, sizeof what, "%s %s: %s", P->gcm ? "GCM" : "CTR",
             opname[o->kind], msg);
    for (k = 0; k < 64 && kinds[k].n != 0; k++)
        if (strcmp(kinds[k].what, what) == 0)
            break;
    if (k < 64) {
        if (kinds[k].n++ == 0)
            memcpy(kinds[k].what, what, sizeof what);
    }
    if (++st.fails <= 20 || trace) {
        fprintf(stderr, "MISMATCH %s\n  at ", msg);
        print_op(P, o);
        fprintf(stderr, "\n");
    }
}

void print_fail_kinds(void)
{
    for (int k = 0; k < 64 && kinds[k].n != 0; k++)
        printf("  mismatch x%lu: %s\n", kinds[k].n, kinds[k].what);
}

/* Storage of one parameter's value, typed as the OSSL_PARAM says. */
typedef union {
    size_t z;
    unsigned u;
    int i;
    void *p;
    unsigned char raw[8];
} pval;

/* Build the OSSL_PARAM array of an op (values in vals, strings in bufs). */
static void build(const op *o, OSSL_PARAM *prm, pval *vals,
                  unsigned char (*bufs)[136])
{
    int i;

    for (i = 0; i < o->np; i++) {
        const pspec *ps = &o->p[i];
        const char *n = pname[ps->name];

        memset(&vals[i], 0, sizeof vals[i]);
        memcpy(bufs[i], o->b, 136);
        switch (ps->type) {
        case T_SIZE:
            vals[i].z = (size_t)ps->v;
            prm[i] = OSSL_PARAM_construct_size_t(n, &vals[i].z);
            break;
        case T_UINT:
            vals[i].u = (unsigned)ps->v;
            prm[i] = OSSL_PARAM_construct_uint(n, &vals[i].u);
            break;
        case T_INT:
            vals[i].i = (int)ps->v;
            prm[i] = OSSL_PARAM_construct_int(n, &vals[i].i);
            break;
        case T_OCT:
            prm[i] = OSSL_PARAM_construct_octet_string(n, bufs[i], ps->sz);
            break;
        case T_PTR:
            prm[i] = OSSL_PARAM_construct_octet_ptr(n, &vals[i].p, 0);
            break;
        default: /* T_QUERY: the size only */
            prm[i] = OSSL_PARAM_construct_octet_string(n, NULL, 0);
            break;
        }
    }
    prm[i] = OSSL_PARAM_construct_end();
}

/* What a get left in its parameters, comparable across the two sides. */
static void capture(const op *o, const OSSL_PARAM *prm, const pval *vals,
                    unsigned char (*bufs)[136], const unsigned char *arena,
                    result *res)
{
    for (int i = 0; i < o->np; i++) {
        const OSSL_PARAM *p = &prm[i];

        res->p[i].rs = p->return_size;
        if (o->p[i].type == T_OCT) { /* all of it, written or not */
            res->p[i].vn = o->p[i].sz < 136 ? o->p[i].sz : 136;
            memcpy(res->p[i].v, bufs[i], res->p[i].vn);
        } else if (o->p[i].type == T_PTR) {
            const unsigned char *q = vals[i].p;

            if (q == NULL) {
                res->p[i].vn = 1;
            } else if ((uintptr_t)q >= (uintptr_t)arena
                       && (uintptr_t)q < (uintptr_t)arena + ARENA) {
                uint64_t off = (uint64_t)(q - arena) + 2;

                memcpy(res->p[i].v, &off, 8); /* a place in the arena */
                res->p[i].vn = 8;
            } else if (p->return_size <= 128) {
                memcpy(res->p[i].v, q, p->return_size); /* context memory */
                res->p[i].vn = p->return_size;
            }
        } else if (o->p[i].type != T_QUERY) {
            memcpy(res->p[i].v, vals[i].raw, 8);
            res->p[i].vn = 8;
        }
    }
}

/* One op on one side. */
void exec(const pair *P, int side, EVP_CIPHER_CTX *ctx, unsigned char *a,
          const op *o, result *res)
{
    OSSL_PARAM prm[8];
    pval vals[6];
    unsigned char bufs[6][136], *in = a + o->in, *out = a + o->out;
    unsigned char *cb = o->content == C_NULL ? NULL : res->out;
    unsigned len = (unsigned)o->len;

    memset(res, 0, sizeof *res);
    memcpy(res->out, o->b, sizeof res->out);
    res->outl = -7;
    build(o, prm, vals, bufs);
    switch (o->kind) {
    case OP_INIT:
        res->rv = EVP_CipherInit_ex2(ctx, o->newc ? P->ciph[side] : NULL,
                                     o->key ? o->k : NULL, o->iv ? o->b : NULL,
                                     o->enc, o->np ? prm : NULL);
        break;
    case OP_IVLEN:
        res->rv = o->via ? EVP_CIPHER_CTX_set_params(ctx, prm)
                         : EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN,
                                               o->arg, NULL);
        break;
    case OP_AAD:
        res->rv = o->via ? EVP_Cipher(ctx, NULL, in, len)
                         : EVP_CipherUpdate(ctx, NULL, &res->outl, in, (int)len);
        break;
    case OP_DATA:
    case OP_RECORD:
        res->rv = o->via ? EVP_Cipher(ctx, out, in, len)
                         : EVP_CipherUpdate(ctx, out, &res->outl, in, (int)len);
        break;
    case OP_FINAL:
        res->rv = o->via ? EVP_Cipher(ctx, NULL, NULL, 0)
                         : EVP_CipherFinal_ex(ctx, out, &res->outl);
        break;
    case OP_SETTAG:
        res->rv = o->via ? EVP_CIPHER_CTX_set_params(ctx, prm)
                         : EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG,
                                               o->arg, cb);
        break;
    case OP_GETTAG:
        res->rv = o->via ? EVP_CIPHER_CTX_get_params(ctx, prm)
                         : EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG,
                                               o->arg, cb);
        break;
    case OP_TLSAAD:
        res->rv = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, o->arg, cb);
        break;
    case OP_IVFIXED:
        res->rv = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, o->arg, cb);
        break;
    case OP_IVGEN:
        res->rv = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_IV_GEN, o->arg, cb);
        break;
    case OP_IVINV:
        res->rv = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_INV, o->arg, cb);
        break;
    case OP_GET:
        res->rv = EVP_CIPHER_CTX_get_params(ctx, prm);
        break;
    case OP_SET:
        res->rv = EVP_CIPHER_CTX_set_params(ctx, prm);
        break;
    case OP_NUM:
        res->rv = o->via ? EVP_CIPHER_CTX_set_params(ctx, prm)
                         : EVP_CIPHER_CTX_set_num(ctx, o->arg);
        break;
    case OP_KEYLEN:
        res->rv = EVP_CIPHER_CTX_set_key_length(ctx, o->arg);
        break;
    case OP_PAD:
        res->rv = EVP_CIPHER_CTX_set_padding(ctx, o->arg);
        break;
    }
    if (o->kind == OP_GET || (o->kind == OP_GETTAG && o->via))
        capture(o, prm, vals, bufs, a, res);
    if (trace) {
        fprintf(stderr, "  %c ", side == R ? 'R' : 'D');
        print_op(P, o);
        fprintf(stderr, " -> %d, outl %d\n", res->rv, res->outl);
    }
    ERR_clear_error();
    st.calls++;
}

int succeeded(const op *o, int rv)
{
    int evp_cipher = o->via && (o->kind == OP_AAD || o->kind == OP_DATA
                                || o->kind == OP_FINAL || o->kind == OP_RECORD);

    return evp_cipher ? rv >= 0 : rv > 0;
}

int same_result(const pair *P, const op *o, const result *a,
                const result *b, int bytes)
{
    if (a->rv != b->rv) {
        char m[64];

        snprintf(m, sizeof m, "rijn %d, default %d", a->rv, b->rv);
        fail(P, o, "return value: %s", m);
        return 0;
    }
    if (a->outl != b->outl) {
        fail(P, o, "%s", "output length");
        return 0;
    }
    if (bytes && memcmp(a->out, b->out, sizeof a->out) != 0) {
        fail(P, o, "%s", "ctrl buffer bytes");
        return 0;
    }
    for (int i = 0; i < o->np; i++)
        if (a->p[i].rs != b->p[i].rs || a->p[i].vn != b->p[i].vn
            || memcmp(a->p[i].v, b->p[i].v, a->p[i].vn) != 0) {
            fail(P, o, "parameter %s", pname[o->p[i].name]);
            return 0;
        }
    return 1;
}

int same_arena(const pair *P, const op *o)
{
    if (memcmp(P->arena[R], P->arena[D], ARENA) != 0) {
        fail(P, o, "%s", "arena bytes (output or stray write)");
        return 0;
    }
    return 1;
}

/* Compare the parameters a context shows, one get per parameter. */
int snapshot(pair *P)
{
    static const int gcmp[] = { P_IVLEN, P_KEYLEN, P_TAGLEN, P_IV, P_UPDIV,
                                P_AADPAD, P_BOGUS };
    static const int ctrp[] = { P_IVLEN, P_KEYLEN, P_NUM, P_PAD, P_IV, P_UPDIV,
                                P_TLSMAC, P_BOGUS };
    const int *l = P->gcm ? gcmp : ctrp;
    int n = P->gcm ? 7 : 8;
    result r[2];
    op o;

    memset(&o, 0, sizeof o);
    o.kind = OP_GET;
    o.np = 1;
    for (int i = 0; i < n; i++) {
        o.p[0].name = l[i];
        o.p[0].type = l[i] == P_IV || l[i] == P_UPDIV || l[i] == P_BOGUS ? T_OCT
                      : l[i] == P_TLSMAC ? T_PTR
                      : l[i] == P_NUM || l[i] == P_PAD ? T_UINT : T_SIZE;
        o.p[0].sz = 128;
        for (int s = R; s <= D; s++)
            exec(P, s, P->ctx[s], P->arena[s], &o, &r[s]);
        if (!same_result(P, &o, &r[R], &r[D], 0))
            return 0;
    }
    return 1;
}

/* The reference GCM: encrypt (aad, pt) under key/iv, tag and ciphertext. */
int ref_gcm(const pair *P, const unsigned char *key, const unsigned char *iv,
            size_t ivlen, const unsigned char *aad, size_t an,
            const unsigned char *pt, size_t n, unsigned char *ct,
            unsigned char tag[16])
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    OSSL_PARAM prm[2] = { OSSL_PARAM_construct_size_t(
                              OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                          OSSL_PARAM_construct_end() };
    int l, ok = c != NULL
        && EVP_EncryptInit_ex2(c, P->ciph[D], NULL, NULL, prm)
        && EVP_EncryptInit_ex2(c, NULL, key, iv, NULL)
        && (an == 0 || EVP_EncryptUpdate(c, NULL, &l, aad, (int)an))
        && (n == 0 || EVP_EncryptUpdate(c, ct, &l, pt, (int)n))
        && EVP_EncryptFinal_ex(c, ct, &l)
        && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;

    EVP_CIPHER_CTX_free(c);
    return ok;
}

/* Read a context's IV (ivlen bytes) into iv; its length or 0. */
size_t read_iv(EVP_CIPHER_CTX *ctx, unsigned char iv[128])
{
    OSSL_PARAM prm[2] = { OSSL_PARAM_construct_octet_string(
                              OSSL_CIPHER_PARAM_IV, iv, 128),
                          OSSL_PARAM_construct_end() };

    if (EVP_CIPHER_CTX_get_params(ctx, prm) <= 0)
        return 0;
    return prm[0].return_size;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names collected, then sorted and joined into a description. */
typedef struct {
    char *item[64];
    int n;
} strlist;

static void add_item(strlist *l, const char *s)
{
    if (l->n < 64)
        l->item[l->n++] = strdup(s);
}

static void join(strlist *l, char *out, size_t cap)
{
    size_t used = strlen(out);

    qsort(l->item, (size_t)l->n, sizeof l->item[0], cmp_str);
    for (int i = 0; i < l->n; i++) {
        used += (size_t)snprintf(out + used, used < cap ? cap - used : 0, "%s%s",
                                 i ? "," : "", l->item[i] ? l->item[i] : "?");
        free(l->item[i]);
    }
    l->n = 0;
    if (used < cap)
        snprintf(out + used, cap - used, "; ");
}

static void one_name(const char *name, void *arg)
{
    add_item(arg, name);
}

static void describe(const EVP_CIPHER *c, char *out, size_t cap)
{
    const OSSL_PARAM *lists[3] = { EVP_CIPHER_gettable_params(c),
                                   EVP_CIPHER_gettable_ctx_params(c),
                                   EVP_CIPHER_settable_ctx_params(c) };
    strlist l = { { NULL }, 0 };
    char item[160];

    snprintf(out, cap, "flags %lx mode %d block %d iv %d key %d nid %d; ",
             EVP_CIPHER_get_flags(c), EVP_CIPHER_get_mode(c),
             EVP_CIPHER_get_block_size(c), EVP_CIPHER_get_iv_length(c),
             EVP_CIPHER_get_key_length(c), EVP_CIPHER_get_nid(c));
    EVP_CIPHER_names_do_all(c, one_name, &l);
    join(&l, out, cap);
    for (int k = 0; k < 3; k++) {
        for (const OSSL_PARAM *p = lists[k]; p != NULL && p->key != NULL; p++) {
            snprintf(item, sizeof item, "%s:%u", p->key, p->data_type);
            if (k == 0) { /* its value too */
                unsigned char v[16] = { 0 };
                OSSL_PARAM q[2] = { { p->key, p->data_type, v, p->data_size,
                                      OSSL_PARAM_UNMODIFIED },
                                    OSSL_PARAM_END };
                uint64_t x = 0;

                if (p->data_size <= sizeof v
                    && EVP_CIPHER_get_params((EVP_CIPHER *)c, q) > 0) {
                    memcpy(&x, v, p->data_size < 8 ? p->data_size : 8);
                    snprintf(item, sizeof item, "%s:%u=%" PRIu64, p->key,
                             p->data_type, x);
                }
            }
            add_item(&l, item);
        }
        join(&l, out, cap);
    }
}

int same_surface(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *b)
{
    static char da[4096], db[4096];

    describe(a, da, sizeof da);
    describe(b, db, sizeof db);
    ERR_clear_error();
    if (strcmp(da, db) == 0)
        return 1;
    fprintf(stderr, "MISMATCH %s surface:\n  rijn:    %s\n  default: %s\n",
            name, da, db);
    st.fails++;
    return 0;
}

/* ---- the generator: random calls and scenarios ---- */

static size_t rlen(unsigned big)
{
    unsigned w = pt_below(&rng, 100);

    if (w < 10)
        return 0;
    if (w < 40)
        return 1 + pt_below(&rng, 16);
    if (w < 65)
        return 17 + pt_below(&rng, 48);
    if (w < 90)
        return 65 + pt_below(&rng, 236);
    return 301 + pt_below(&rng, big - 300);
}

static size_t rivlen(void)
{
    static const size_t odd[] = { 8, 60, 64, 128, 0, 129, 200 };
    unsigned w = pt_below(&rng, 100);

    if (w < 45)
        return 12;
    if (w < 75)
        return 1 + pt_below(&rng, 16);
    if (w < 90)
        return odd[pt_below(&rng, 4)];
    if (w < 95)
        return odd[4 + pt_below(&rng, 3)];
    return 17 + pt_below(&rng, 112);
}

void near_wrap(unsigned char iv[16])
{
    static const unsigned bytes[] = { 4, 8, 12, 16 };
    unsigned k = bytes[pt_below(&rng, 4)];

    memset(iv + 16 - k, 0xff, k);
    iv[15] = (unsigned char)(0xff - pt_below(&rng, 24));
}

static void place(op *o, int in_place)
{
    o->in = pt_below(&rng, 64);
    o->out = in_place ? o->in : 2048 + pt_below(&rng, 64);
}

static void add(op *o, int name, int type, uint64_t v, size_t sz)
{
    pspec *p = &o->p[o->np++];

    p->name = name;
    p->type = type;
    p->v = v;
    p->sz = sz;
}

/* Parameters to set (init or set_params): known ones and an unknown one. */
static void rand_params(const pair *P, op *o)
{
    int n = 1 + (int)pt_below(&rng, 3);

    while (n-- > 0) {
        unsigned w = pt_below(&rng, 100);

        if (P->gcm && w < 40)
            add(o, P_IVLEN, w < 35 ? T_SIZE : T_UINT, rivlen(), 0);
        else if (P->gcm && w < 70)
            add(o, P_TAG, T_OCT, 0, w < 66 ? 1 + pt_below(&rng, 16) : 17);
        else if (!P->gcm && w < 40)
            add(o, P_NUM, T_UINT, w < 34 ? pt_below(&rng, 16)
                                         : 16 + pt_below(&rng, 300), 0);
        else if (!P->gcm && w < 55)
            add(o, P_TLSVER, T_UINT, w < 48 ? 0 : 0x303, 0);
        else if (!P->gcm && w < 70)
            add(o, P_MACSIZE, T_SIZE, pt_below(&rng, 40), 0);
        else if (w < 80)
            add(o, P_PAD, T_UINT, pt_below(&rng, 2), 0);
        else if (w < 88)
            add(o, P_BITS, T_UINT, pt_below(&rng, 2), 0);
        else
            add(o, P_BOGUS, T_OCT, 0, pt_below(&rng, 20));
    }
}

/* Parameters to get, in every type and size a caller may use. */
static void rand_get(op *o)
{
    static const size_t ivsz[] = { 128, 16, 12, 8, 0, 20 };
    int n = 1 + (int)pt_below(&rng, 4);

    while (n-- > 0) {
        int name = (int)pt_below(&rng, NPARAM);
        unsigned w = pt_below(&rng, 100);

        if (name == P_IV || name == P_UPDIV)
            add(o, name, w < 75 ? T_OCT : w < 90 ? T_PTR : T_QUERY, 0,
                ivsz[pt_below(&rng, 6)]);
        else if (name == P_TAG || name == P_BOGUS)
            add(o, name, w < 90 ? T_OCT : T_QUERY, 0, pt_below(&rng, 18));
        else if (name == P_TLSMAC)
            add(o, name, T_PTR, 0, 0);
        else
            add(o, name, w < 70 ? T_SIZE : w < 90 ? T_UINT : T_INT, 0, 0);
    }
}

void fill(const pair *P, op *o, int kind)
{
    const shadow *s = &P->s;
    unsigned w = pt_below(&rng, 100), L;

    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->enc = -1;
    pt_fill(&rng, o->k, sizeof o->k);
    pt_fill(&rng, o->b, sizeof o->b);
    switch (kind) {
    case OP_INIT:
        o->newc = s->has_cipher ? w < 20 : w < 85;
        o->key = pt_chance(&rng, 7, 10);
        o->iv = pt_chance(&rng, 13, 20);
        o->enc = (int)pt_below(&rng, 3) - 1;
        if (!P->gcm && pt_chance(&rng, 1, 4))
            near_wrap(o->b);
        if (pt_chance(&rng, 1, 5))
            rand_params(P, o);
        break;
    case OP_IVLEN:
        o->arg = (int)rivlen();
        if ((o->via = pt_chance(&rng, 1, 2)))
            add(o, P_IVLEN, w < 80 ? T_SIZE : T_UINT, (uint64_t)o->arg, 0);
        break;
    case OP_AAD:
    case OP_DATA:
    case OP_FINAL:
        o->len = kind == OP_FINAL ? 0 : rlen(kind == OP_AAD ? 400 : 1500);
        place(o, kind == OP_AAD || pt_chance(&rng, 1, 2));
        o->via = s->has_cipher && pt_chance(&rng, 1, 4);
        break;
    case OP_SETTAG:
    case OP_GETTAG:
        o->arg = w < 45 ? 16 : w < 65 ? 12 + (int)pt_below(&rng, 4)
                 : w < 90 ? 1 + (int)pt_below(&rng, 11) : w < 95 ? 0
                 : w < 98 ? 17 : -1;
        L = pt_below(&rng, 10); /* a draw of its own */
        o->content = kind == OP_GETTAG ? C_RANDOM
                     : L < 5 ? C_CORRECT : L < 7 ? C_FLIP : C_WRONG;
        if (pt_chance(&rng, 1, 20))
            o->content = C_NULL;
        if (pt_chance(&rng, 3, 10) && o->arg >= 0 && o->content != C_NULL) {
            o->via = 1;
            add(o, P_TAG, T_OCT, 0, (size_t)o->arg);
        }
        break;
    case OP_TLSAAD:
        o->arg = w < 85 ? 13 : w < 90 ? 12 : w < 95 ? 14 : 0;
        L = pt_chance(&rng, 4, 5) ? 24 + pt_below(&rng, 400)
                                  : pt_below(&rng, 24);
        o->b[11] = (unsigned char)(L >> 8);
        o->b[12] = (unsigned char)L;
        break;
    case OP_IVFIXED:
        o->arg = w < 25 ? -1 : w < 65 ? 4 : w < 80 ? (int)pt_below(&rng, 17)
                 : w < 90 ? (int)s->ivlen - 8 + (int)pt_below(&rng, 13)
                 : 17 + (int)pt_below(&rng, 112);
        break;
    case OP_IVGEN:
        o->arg = w < 50 ? 8 : w < 65 ? 0 : w < 90 ? (int)pt_below(&rng, 17)
                 : w < 95 ? (int)s->ivlen : -1;
        if (pt_chance(&rng, 1, 20))
            o->content = C_NULL;
        break;
    case OP_IVINV:
        o->arg = w < 50 ? 8 : w < 80 ? (int)pt_below(&rng, (unsigned)s->ivlen + 1)
                 : w < 90 ? (int)s->ivlen + 1 + (int)pt_below(&rng, 8) : 4;
        break;
    case OP_RECORD:
        o->len = s->tls_aad && w < 75 ? s->tls_len
                 : w < 85 ? 24 + pt_below(&rng, 300) : pt_below(&rng, 24);
        o->len = o->len > 1400 ? 1400 : o->len;
        place(o, pt_chance(&rng, 9, 10));
        o->via = s->has_cipher && pt_chance(&rng, 4, 5);
        o->content = C_CORRECT;
        break;
    case OP_GET:
        rand_get(o);
        break;
    case OP_SET:
        rand_params(P, o);
        break;
    case OP_NUM:
        o->arg = w < 85 ? (int)pt_below(&rng, 16)
                 : w < 95 ? 16 + (int)pt_below(&rng, 48)
                          : (int)pt_below(&rng, 100000) - 50000;
        if ((o->via = pt_chance(&rng, 3, 10)))
            add(o, P_NUM, T_UINT, (unsigned)o->arg, 0);
        break;
    case OP_KEYLEN:
        o->arg = w < 50 ? (int)P->keylen : (int)pt_below(&rng, 40);
        break;
    case OP_PAD:
        o->arg = (int)pt_below(&rng, 2);
        break;
    default:
        break;
    }
}

/* Scenarios the single calls seldom line up by chance. */
static void flow(pair *P, int f)
{
    const shadow *s = &P->s;
    op *q = P->q;
    int n = 0;
    unsigned L = 24 + pt_below(&rng, 600);

    if (f == FLOW_TLS) { /* a TLS 1.2 record, maybe a new direction first */
        if (pt_chance(&rng, 3, 10)) {
            fill(P, &q[n], OP_INIT);
            q[n].key = 1;
            q[n].iv = 0;
            q[n].np = 0;
            q[n++].enc = (int)pt_below(&rng, 2);
        }
        if (!s->iv_gen || pt_chance(&rng, 1, 2)) {
            fill(P, &q[n], OP_IVFIXED);
            q[n++].arg = pt_chance(&rng, 1, 4) ? -1 : 4;
        }
        fill(P, &q[n], OP_TLSAAD);
        q[n].arg = 13;
        q[n].b[11] = (unsigned char)(L >> 8);
        q[n++].b[12] = (unsigned char)L;
        fill(P, &q[n], OP_RECORD);
        q[n].in = q[n].out;
        q[n++].len = L;
    } else if (f == FLOW_TLSIV) { /* fixed IV, the next one, a message */
        fill(P, &q[n], OP_IVFIXED);
        q[n++].arg = pt_chance(&rng, 1, 3) ? -1 : 4;
        fill(P, &q[n], s->enc ? OP_IVGEN : OP_IVINV);
        q[n++].arg = 8;
        fill(P, &q[n++], OP_AAD);
        fill(P, &q[n++], OP_DATA);
    }
    /* the end of a message: decryption sets its tag first (mostly the
     * right one), encryption reads its tag after */
    if (f != FLOW_TLS && !s->enc) {
        fill(P, &q[n], OP_SETTAG);
        L = pt_below(&rng, 10);
        q[n++].content = L < 7 ? C_CORRECT : L < 9 ? C_FLIP : C_WRONG;
    }
    fill(P, &q[n++], OP_FINAL);
    if (f != FLOW_TLS && s->enc)
        fill(P, &q[n++], OP_GETTAG);
    P->nq = f == FLOW_TLS ? n - 1 : n; /* a record needs no final */
}

void gen(pair *P, op *o)
{
    /* weights: GCM, CTR (CTR never gets AAD: OpenSSL writes to NULL) */
    static const unsigned char mix[NKIND][2] = {
        [OP_INIT] = { 9, 14 }, [OP_IVLEN] = { 4, 2 }, [OP_AAD] = { 13, 0 },
        [OP_DATA] = { 20, 34 }, [OP_FINAL] = { 7, 5 }, [OP_SETTAG] = { 4, 1 },
        [OP_GETTAG] = { 4, 1 }, [OP_TLSAAD] = { 3, 1 }, [OP_IVFIXED] = { 3, 1 },
        [OP_IVGEN] = { 2, 1 }, [OP_IVINV] = { 2, 1 }, [OP_RECORD] = { 3, 3 },
        [OP_COPY] = { 4, 5 }, [OP_GET] = { 5, 8 }, [OP_SET] = { 3, 7 },
        [OP_NUM] = { 1, 8 }, [OP_KEYLEN] = { 1, 1 }, [OP_PAD] = { 1, 2 },
        [FLOW_TLS] = { 4, 0 }, [FLOW_FINISH] = { 5, 0 }, [FLOW_TLSIV] = { 2, 0 },
    };
    unsigned total = 0, w;
    int k;

    if (P->nq == 0) {
        for (k = 0; k < NKIND; k++)
            total += mix[k][!P->gcm];
        w = pt_below(&rng, total);
        for (k = 0; w >= mix[k][!P->gcm]; k++)
            w -= mix[k][!P->gcm];
        /* without a cipher in the context only calls EVP checks for that */
        if (!P->s.has_cipher && k != OP_DATA && k != OP_AAD && k != OP_FINAL
            && k != OP_COPY && k != OP_GET)
            k = OP_INIT;
        if (k < NOP) {
            fill(P, o, k);
            return;
        }
        flow(P, k);
    }
    *o = P->q[0];
    memmove(P->q, P->q + 1, sizeof(op) * (size_t)--P->nq);
}
