/*
 * Fuzz target seal_header: arbitrary bytes as the header of a sealed file
 * (rijn_seal_header_read), with an oracle written from doc/format.md alone.
 *
 * Oracle:
 *  1. model_parse() below is an independent reader of section 2 of
 *     doc/format.md that decides, for the input and for every prefix of it
 *     (up to 40 bytes), valid or invalid and the error the library must
 *     return for each kind of defect (the table of section 4;
 *     include/rijn_seal.h for _ETRUNC, which is the API's answer to a
 *     header cut short). The library must agree on the code, the header
 *     length and every parsed field.
 *  2. An accepted header re-serialises (rijn_seal_header_write) to exactly
 *     the bytes it was read from.
 *  3. The other direction: parameters taken from the input (not
 *     necessarily valid ones) are written with rijn_seal_header_write; it
 *     must refuse exactly what the model refuses, and what it writes must
 *     read back to the same parameters.
 *  4. KDF limits. The library enforces them twice: rijn_seal_header_read
 *     refuses a header over the limits (RIJN_SEAL_ELIMITS), and
 *     rijn_seal_passphrase_key refuses parameters outside them
 *     (RIJN_SEAL_EARG) before it calls Argon2id, which is the only place
 *     the memory cost becomes an allocation (libargon2 allocates m_cost
 *     KiB). The target proves it by interposing argon2id_hash_raw: this
 *     file defines it, so the static library's call lands here first. The
 *     interposer aborts if it is reached with parameters outside the
 *     documented limits (t 1..10, p 1..16, m 8p KiB .. 1 GiB) or with
 *     anything other than the parameters, salt and passphrase of the
 *     header; it then runs the real libargon2 (dlsym RTLD_NEXT) with the
 *     cost replaced by the smallest one (t = 1, m = 8p), so the target
 *     stays fast and no header can make it allocate much. The target
 *     calls rijn_seal_passphrase_key on every parse result, including the
 *     parameters the library stored before it refused them (t = 11,
 *     m = 4 GiB, ...), and on the input-derived parameters of 3: a valid
 *     set must reach the KDF exactly once and give the key the real
 *     libargon2 gives for the substituted cost; an invalid one must give
 *     RIJN_SEAL_EARG without reaching it. Without libargon2 in the build
 *     (RIJN_FUZZ_HAVE_ARGON2 unset) the check is the return code alone
 *     (RIJN_SEAL_EKDF for valid parameters, RIJN_SEAL_EARG for the rest).
 */
#define _GNU_SOURCE 1 /* RTLD_NEXT */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzutil.h"
#include "rijn_seal.h"

#if defined(RIJN_FUZZ_HAVE_ARGON2)
#include <argon2.h>
#include <dlfcn.h>
#endif

/* ---- the model: doc/format.md, section 2 and the table of section 4 ---- */

/* The documented limits (doc/format.md section 3, "Limits on what a header
 * may ask"): t_cost 1..10, m_cost 8p KiB .. 1 GiB, parallelism 1..16. */
#define DOC_MAX_T 10u
#define DOC_MAX_M (1024u * 1024u) /* KiB */
#define DOC_MAX_P 16u

struct model {
    int rc;            /* header length, or the RIJN_SEAL_E* code */
    int mode;
    uint32_t t, m, p;
    unsigned char salt[16];
};

/* "zero or inconsistent Argon2id parameters (t = 0, p = 0, m < 8p)":
 * corrupted header. Listed first in the table, so it wins over "over the
 * limits" when both hold (p = 200, m = 100). */
static int doc_inconsistent(uint32_t t, uint32_t m, uint32_t p)
{
    return t == 0 || p == 0 || (uint64_t)m < 8 * (uint64_t)p;
}

static int doc_over_limits(uint32_t t, uint32_t m, uint32_t p)
{
    return t > DOC_MAX_T || p > DOC_MAX_P || m > DOC_MAX_M;
}

static uint32_t be32(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
           (uint32_t)b[3];
}

/*
 * The fields in order (offset, size), each checked when the bytes are
 * there:
 *   magic "rijnseal": a byte that differs -> EMAGIC, even in a short input
 *       (rijn_seal.h: only a prefix of the magic is a truncated rijn file);
 *   the fixed part (magic, version, key mode) is 10 bytes: fewer -> ETRUNC
 *       (rijn_seal.h: "_ETRUNC if len is too short"; the doc does not say
 *       which of "truncated" and a defect of a field already present in a
 *       short input wins: the 10-byte fixed part and the 35-byte passphrase
 *       header are read as units, so truncation does);
 *   version != 1 -> EVERSION; key mode not 1 or 2 -> EHEADER;
 *   mode 1: the header is 10 bytes; mode 2: 35 (fewer -> ETRUNC), then
 *   the Argon2id parameters: inconsistent -> EHEADER, over the limits ->
 *   ELIMITS.
 * (`rijn open` reports empty input as "not a rijn sealed file" itself,
 * tools/seal/seal.c; for the API an empty input is a prefix of the magic.)
 */
static void model_parse(const unsigned char *in, size_t len, struct model *r)
{
    static const char magic[9] = "rijnseal";

    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < 8 && i < len; i++)
        if (in[i] != (unsigned char)magic[i]) {
            r->rc = RIJN_SEAL_EMAGIC;
            return;
        }
    if (len < 10) {
        r->rc = RIJN_SEAL_ETRUNC;
        return;
    }
    if (in[8] != 1) {
        r->rc = RIJN_SEAL_EVERSION;
        return;
    }
    r->mode = in[9];
    if (r->mode == 1) {
        r->rc = 10;
        return;
    }
    if (r->mode != 2) {
        r->rc = RIJN_SEAL_EHEADER;
        return;
    }
    if (len < 35) {
        r->rc = RIJN_SEAL_ETRUNC;
        return;
    }
    r->t = be32(in + 10);
    r->m = be32(in + 14);
    r->p = in[18];
    memcpy(r->salt, in + 19, 16);
    if (doc_inconsistent(r->t, r->m, r->p))
        r->rc = RIJN_SEAL_EHEADER;
    else if (doc_over_limits(r->t, r->m, r->p))
        r->rc = RIJN_SEAL_ELIMITS;
    else
        r->rc = 35;
}

/* ---- the KDF interposer -------------------------------------------------- */

static const unsigned char pass[] = "correct horse";
#define PASS_LEN (sizeof pass - 1)

static struct {
    int armed;                    /* inside rijn_seal_passphrase_key */
    const rijn_seal_params *want; /* what the call must carry */
    unsigned long calls;
} kdf;

#if defined(RIJN_FUZZ_HAVE_ARGON2)
typedef int (*argon2id_fn)(const uint32_t, const uint32_t, const uint32_t,
                           const void *, const size_t, const void *,
                           const size_t, void *, const size_t);

static argon2id_fn real_argon2id(void)
{
    static argon2id_fn fn;
    static int looked;

    if (!looked) {
        looked = 1;
        fn = (argon2id_fn)(uintptr_t)dlsym(RTLD_NEXT, "argon2id_hash_raw");
        if (fn == NULL) { /* linked --as-needed away: load it */
            void *h = dlopen("libargon2.so.1", RTLD_NOW | RTLD_LOCAL);
            if (h != NULL)
                fn = (argon2id_fn)(uintptr_t)dlsym(h, "argon2id_hash_raw");
        }
        FZ_CHECK(fn != NULL, "the real argon2id_hash_raw cannot be found");
    }
    return fn;
}

/* Replaces libargon2's for the library (see 4. above). */
int argon2id_hash_raw(const uint32_t t_cost, const uint32_t m_cost,
                      const uint32_t parallelism, const void *pwd,
                      const size_t pwdlen, const void *salt,
                      const size_t saltlen, void *hash, const size_t hashlen)
{
    const rijn_seal_params *w = kdf.want;

    kdf.calls++;
    FZ_CHECK(kdf.armed, "Argon2id called outside rijn_seal_passphrase_key");
    FZ_CHECK(!doc_inconsistent(t_cost, m_cost, parallelism) &&
              !doc_over_limits(t_cost, m_cost, parallelism),
          "Argon2id reached with t=%u m=%u KiB p=%u: outside the documented "
          "limits", (unsigned)t_cost, (unsigned)m_cost, (unsigned)parallelism);
    FZ_CHECK(t_cost == w->t_cost && m_cost == w->m_cost &&
              parallelism == w->parallelism,
          "Argon2id got t=%u m=%u p=%u, the header says t=%u m=%u p=%u",
          (unsigned)t_cost, (unsigned)m_cost, (unsigned)parallelism,
          (unsigned)w->t_cost, (unsigned)w->m_cost,
          (unsigned)w->parallelism);
    FZ_CHECK(saltlen == 16 && memcmp(salt, w->salt, 16) == 0,
          "Argon2id got another salt than the header's");
    FZ_CHECK(pwdlen == PASS_LEN && memcmp(pwd, pass, PASS_LEN) == 0,
          "Argon2id got another passphrase");
    FZ_CHECK(hashlen == 32, "Argon2id asked for %zu bytes, not 32", hashlen);
    /* the smallest cost with the same lanes: fast, and a few KiB at most */
    return real_argon2id()(1, 8 * parallelism, parallelism, pwd, pwdlen, salt,
                           saltlen, hash, hashlen);
}
#endif

/* rijn_seal_passphrase_key on p: refused without reaching the KDF unless
 * the model says p is within the limits; then exactly one KDF call with
 * p's values, and the key of the substituted cost. */
static void check_passphrase_key(const rijn_seal_params *p)
{
    unsigned char key[32];
    int valid = p->mode == RIJN_SEAL_PASSPHRASE &&
                !doc_inconsistent(p->t_cost, p->m_cost, p->parallelism) &&
                !doc_over_limits(p->t_cost, p->m_cost, p->parallelism);
    unsigned long before = kdf.calls;

    memset(key, 0xa5, sizeof key);
    kdf.armed = 1;
    kdf.want = p;
    int rc = rijn_seal_passphrase_key(key, p, pass, PASS_LEN);
    kdf.armed = 0;
    if (!valid) {
        FZ_CHECK(rc == RIJN_SEAL_EARG,
              "passphrase key for mode=%d t=%u m=%u p=%u (outside the "
              "limits): %d, want RIJN_SEAL_EARG", p->mode,
              (unsigned)p->t_cost, (unsigned)p->m_cost,
              (unsigned)p->parallelism, rc);
        FZ_CHECK(kdf.calls == before, "the KDF ran for refused parameters");
        return;
    }
#if defined(RIJN_FUZZ_HAVE_ARGON2)
    unsigned char want[32];
    FZ_CHECK(rc == RIJN_SEAL_OK, "passphrase key for t=%u m=%u p=%u: %d",
          (unsigned)p->t_cost, (unsigned)p->m_cost, (unsigned)p->parallelism,
          rc);
    FZ_CHECK(kdf.calls == before + 1, "%lu KDF calls for one key",
          kdf.calls - before);
    FZ_CHECK(real_argon2id()(1, 8 * p->parallelism, p->parallelism, pass,
                          PASS_LEN, p->salt, 16, want, 32) == ARGON2_OK,
          "libargon2 failed");
    FZ_CHECK(memcmp(key, want, 32) == 0,
          "the passphrase key is not Argon2id's output");
#else
    FZ_CHECK(rc == (rijn_seal_have_argon2() ? RIJN_SEAL_OK : RIJN_SEAL_EKDF),
          "passphrase key without libargon2: %d", rc);
    FZ_CHECK(kdf.calls == before, "KDF calls counted without the interposer");
#endif
}

/* ---- one header ------------------------------------------------------------ */

static void check_read(const unsigned char *in, size_t len)
{
    /* an exact-size copy, so ASan sees any read past len */
    unsigned char *buf = malloc(len ? len : 1);
    rijn_seal_params p;
    struct model m;

    FZ_CHECK(buf != NULL, "out of memory");
    memcpy(buf, in, len);
    memset(&p, 0x5a, sizeof p);
    int rc = rijn_seal_header_read(buf, len, &p);
    model_parse(buf, len, &m);
    FZ_CHECK(rc == m.rc, "header of %zu bytes: rijn_seal_header_read gives %d "
          "(%s), the format says %d (%s)", len, rc, rc < 0 ?
          rijn_seal_strerror(rc) : "ok", m.rc, m.rc < 0 ?
          rijn_seal_strerror(m.rc) : "ok");
    if (rc > 0) {
        unsigned char out[RIJN_SEAL_HEADER_MAX];
        rijn_seal_params q = p;

        FZ_CHECK(p.mode == m.mode, "mode %d, want %d", p.mode, m.mode);
        if (m.mode == RIJN_SEAL_PASSPHRASE)
            FZ_CHECK(p.t_cost == m.t && p.m_cost == m.m &&
                      p.parallelism == m.p && memcmp(p.salt, m.salt, 16) == 0,
                  "Argon2id fields differ from the bytes");
        int w = rijn_seal_header_write(out, &q, 0);
        FZ_CHECK(w == rc && memcmp(out, buf, (size_t)rc) == 0,
              "an accepted header (%d bytes) re-serialises differently "
              "(%d)", rc, w);
    }
    /* whatever the library left in p, the KDF sees it only within the
     * limits (after ELIMITS, p holds the values it refused); the prefixes
     * longer than the header repeat the same p: checked once */
    static rijn_seal_params last;
    static int have_last;
    if (!have_last || memcmp(&last, &p, sizeof p) != 0)
        check_passphrase_key(&p);
    last = p;
    have_last = 1;
    free(buf);
}

/* Parameters from the input bytes (not necessarily valid): the writer
 * refuses what the model refuses, and what it writes reads back. */
static void check_write(const unsigned char *in, size_t len)
{
    rijn_seal_params p, back;
    unsigned char out[RIJN_SEAL_HEADER_MAX], src[32];

    memset(src, 0, sizeof src);
    memcpy(src, in, len < sizeof src ? len : sizeof src);
    memset(&p, 0, sizeof p);
    p.mode = src[0] % 4;
    p.t_cost = be32(src + 1);
    p.m_cost = be32(src + 5);
    p.parallelism = be32(src + 9);
    memcpy(p.salt, src + 13, 16);

    int valid_mode = p.mode == RIJN_SEAL_KEYFILE ||
                     (p.mode == RIJN_SEAL_PASSPHRASE &&
                      !doc_inconsistent(p.t_cost, p.m_cost, p.parallelism) &&
                      !doc_over_limits(p.t_cost, p.m_cost, p.parallelism));
    rijn_seal_params q = p;
    int w = rijn_seal_header_write(out, &q, 0);
    if (!valid_mode) {
        FZ_CHECK(w == RIJN_SEAL_EARG, "header_write of mode=%d t=%u m=%u p=%u "
              "(invalid): %d", p.mode, (unsigned)p.t_cost, (unsigned)p.m_cost,
              (unsigned)p.parallelism, w);
    } else {
        FZ_CHECK(w == (p.mode == RIJN_SEAL_KEYFILE ? 10 : 35),
              "header_write of valid parameters: %d", w);
        FZ_CHECK(memcmp(q.salt, p.salt, 16) == 0, "the salt changed");
        FZ_CHECK(rijn_seal_header_read(out, (size_t)w, &back) == w,
              "a written header does not read back");
        FZ_CHECK(back.mode == p.mode, "mode changed");
        if (p.mode == RIJN_SEAL_PASSPHRASE)
            FZ_CHECK(back.t_cost == p.t_cost && back.m_cost == p.m_cost &&
                      back.parallelism == p.parallelism &&
                      memcmp(back.salt, p.salt, 16) == 0,
                  "parameters changed through write and read");
    }
    check_passphrase_key(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the input and each of its short prefixes (every truncation point
     * of both header sizes) */
    check_read(data, size);
    for (size_t n = 0; n < size && n <= 40; n++)
        check_read(data, n);
    check_write(data, size);
    return 0;
}
