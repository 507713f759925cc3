/*
 * evp_diff's two files: evp_diff.c (the sequences, the shadow of the
 * default provider's state, the DELIBERATE table, main) and evp_diff_ops.c
 * (one EVP call described by an `op`, made on one side, and the
 * comparison of what the two sides answered).
 */
#ifndef RIJN_EVP_DIFF_H
#define RIJN_EVP_DIFF_H

#include "provtest.h"

#include <stdint.h>

#define ARENA 4096 /* per side: every input and output of a sequence */
#define TXMAX 8192 /* the message kept to make its right tag */

enum { R, D }; /* the side under test (rijn), the reference (default) */

enum { UNINIT, BUFFERED, COPIED, FINISHED }; /* OpenSSL's GCM iv_state */

/* What the default provider's context holds, kept from the calls made. */
typedef struct {
    int has_cipher, enc, key_set, ivs, iv_gen, taglen_set, tls_aad, unsure;
    size_t ivlen;
    unsigned tls_len;   /* the length field of the last tlsaad */
    int voided;         /* D1/D2/D8: rijn's IV is spent, default's not */
    int zero_data, real_data; /* since the IV was started */
    int tx_ok;          /* the message so far, to make its right tag */
    int evp_enc;        /* EVP's own direction (what enc -1 means) */
    size_t tx_ivlen, aad_n, data_n;
    unsigned char key[32], iv[128], tlsaad[13], aad[TXMAX], data[TXMAX];
} shadow;

enum { OP_INIT, OP_IVLEN, OP_AAD, OP_DATA, OP_FINAL, OP_SETTAG, OP_GETTAG,
       OP_TLSAAD, OP_IVFIXED, OP_IVGEN, OP_IVINV, OP_RECORD, OP_COPY, OP_GET,
       OP_SET, OP_NUM, OP_KEYLEN, OP_PAD, NOP };
extern const char *const opname[NOP];
/* op.content: random bytes, the right tag (or a valid TLS record), the
 * right tag with one bit flipped, random again, NULL for the ctrl buffer */
enum { C_RANDOM, C_CORRECT, C_FLIP, C_WRONG, C_NULL };

/* Parameters by index into pname[], and the OSSL types used for them. */
enum { P_IV, P_UPDIV, P_IVLEN, P_KEYLEN, P_TAGLEN, P_NUM, P_PAD, P_AADPAD,
       P_TLSMAC, P_TAG, P_BITS, P_TLSVER, P_MACSIZE, P_BOGUS, NPARAM };
extern const char *const pname[NPARAM];
enum { T_SIZE, T_UINT, T_INT, T_OCT, T_PTR, T_QUERY };

typedef struct {
    int name, type;
    size_t sz;  /* octet string size */
    uint64_t v; /* value to set */
} pspec;

/* One EVP call, made the same way on both sides. */
typedef struct {
    int kind, via; /* via 1: params / EVP_Cipher instead of ctrl / Update */
    int newc, enc, key, iv, content, arg, np;
    size_t len, in, out; /* data length, arena offsets */
    unsigned char k[32], b[160];
    pspec p[6];
} op;

/* What one side answered. */
typedef struct {
    int rv, outl;
    unsigned char out[160]; /* the ctrl buffer */
    struct {
        size_t rs, vn;
        unsigned char v[136];
    } p[6];
} result;

typedef struct {
    int gcm, self;
    size_t keylen;
    EVP_CIPHER *ciph[2];
    EVP_CIPHER_CTX *ctx[2];
    unsigned char *arena[2];
    shadow s;
    op q[8]; /* queued calls of a scenario */
    int nq;
    unsigned char last_rand[128];
} pair;

typedef struct {
    unsigned long seqs, ops, calls, fails, randiv, randfix, rec_ok[2],
        dec_final_ok, resyncs;
} stats;
extern stats st;
extern pt_rng rng;
extern int trace; /* EVP_DIFF_TRACE set: every call printed */

/* Scenarios of several calls, picked like single calls (gen). */
enum { FLOW_TLS = NOP, FLOW_FINISH, FLOW_TLSIV, NKIND };

/* Report a mismatch (the first 20 in full); counts st.fails. */
void fail(const pair *P, const op *o, const char *fmt, const char *a);
/* Every kind of mismatch seen, with its count (stdout). */
void print_fail_kinds(void);
/* Make op o on one side's context and arena. */
void exec(const pair *P, int side, EVP_CIPHER_CTX *ctx, unsigned char *a,
          const op *o, result *res);
/* Whether rv is a success for the call o is. */
int succeeded(const op *o, int rv);
/* 1 if the two sides answered alike (bytes: compare the ctrl buffers). */
int same_result(const pair *P, const op *o, const result *a, const result *b,
                int bytes);
int same_arena(const pair *P, const op *o);
/* Compare the parameters the two contexts show, one get each. */
int snapshot(pair *P);
/* The IV a context shows (up to 128 bytes): its length, 0 if none. */
size_t read_iv(EVP_CIPHER_CTX *ctx, unsigned char iv[128]);
/* Reference GCM encryption on the default provider: ct and the tag. */
int ref_gcm(const pair *P, const unsigned char *key, const unsigned char *iv,
            size_t ivlen, const unsigned char *aad, size_t an,
            const unsigned char *pt, size_t n, unsigned char *ct,
            unsigned char tag[16]);
/* A CTR counter block 0..23 blocks before its low 32, 64, 96 or 128 bits
 * wrap (where a carry can go wrong). */
void near_wrap(unsigned char iv[16]);
/* A random call of the given kind, fitting the state s. */
void fill(const pair *P, op *o, int kind);
/* The next call of a sequence: a queued one of a scenario, or a new pick. */
void gen(pair *P, op *o);
/* The cipher-wide surface of a and b (flags, sizes, names, parameter
 * lists and values); 0 when identical. */
int same_surface(const char *name, const EVP_CIPHER *a, const EVP_CIPHER *b);

#endif /* RIJN_EVP_DIFF_H */
