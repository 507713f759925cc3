/*
 * The rijn envelope of `rijn seal` (doc/format.md): the header codec, the
 * Argon2id passphrase key (libargon2), randomness and the error messages.
 *
 *   header = "rijnseal" (8 bytes) || version (1) || key mode (1)
 *            [ mode 2: t_cost (4, big-endian) || m_cost KiB (4) ||
 *              parallelism (1) || Argon2id salt (16) ]
 * 10 bytes for a key file, 35 for a passphrase. The whole header is the
 * Cobblestone-256 context of the ciphertext that follows it.
 */
#define _GNU_SOURCE 1 /* getrandom */
#include <errno.h>
#include <sys/random.h>

#include "internal.h"
#include "rijn_seal.h"

#if defined(RIJN_HAVE_ARGON2)
#include <argon2.h>
#endif

static const unsigned char magic[8] = {'r', 'i', 'j', 'n', 's', 'e', 'a', 'l'};

/* n bytes from the kernel's CSPRNG; 0 or -1. */
int rijn_seal_random(unsigned char *p, size_t n);
int rijn_seal_random(unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

/* see rijn_seal.h */
const char *rijn_seal_strerror(int err)
{
    switch (err) {
    case RIJN_SEAL_OK: return "success";
    case RIJN_SEAL_EARG: return "invalid argument";
    case RIJN_SEAL_EMAGIC: return "not a rijn sealed file";
    case RIJN_SEAL_EVERSION: return "unsupported format version";
    case RIJN_SEAL_EHEADER: return "corrupted header";
    case RIJN_SEAL_ELIMITS:
        return "key derivation parameters over the limits this program "
               "accepts";
    case RIJN_SEAL_EKEY:
        return "wrong key or passphrase (or a modified header)";
    case RIJN_SEAL_ECHUNK:
        return "the file was modified: a chunk fails authentication "
               "(modified, reordered, duplicated or dropped data)";
    case RIJN_SEAL_ETRUNC: return "the file is truncated";
    case RIJN_SEAL_ELAST:
        return "the file is truncated or modified: its last chunk fails "
               "authentication";
    case RIJN_SEAL_ETRAIL: return "data after the end of the message";
    case RIJN_SEAL_ETOOBIG: return "message too long for the format";
    case RIJN_SEAL_ERANDOM: return "no randomness from getrandom()";
    case RIJN_SEAL_EKDF: return "Argon2id key derivation failed";
    case RIJN_SEAL_ESINK: return "output failed";
    default: return "unknown error";
    }
}

static int params_ok(const rijn_seal_params *p)
{
    return p->t_cost >= 1 && p->t_cost <= RIJN_SEAL_ARGON2_MAX_T &&
           p->parallelism >= 1 && p->parallelism <= RIJN_SEAL_ARGON2_MAX_P &&
           p->m_cost >= 8 * p->parallelism &&
           p->m_cost <= RIJN_SEAL_ARGON2_MAX_M;
}

/* see rijn_seal.h */
int rijn_seal_header_write(unsigned char out[RIJN_SEAL_HEADER_MAX],
                           rijn_seal_params *p, int salt_random)
{
    memcpy(out, magic, 8);
    out[8] = RIJN_SEAL_VERSION;
    out[9] = (unsigned char)p->mode;
    if (p->mode == RIJN_SEAL_KEYFILE)
        return 10;
    if (p->mode != RIJN_SEAL_PASSPHRASE || !params_ok(p))
        return RIJN_SEAL_EARG;
    if (salt_random && rijn_seal_random(p->salt, sizeof p->salt) != 0)
        return RIJN_SEAL_ERANDOM;
    rijn_store32_be(out + 10, p->t_cost);
    rijn_store32_be(out + 14, p->m_cost);
    out[18] = (unsigned char)p->parallelism;
    memcpy(out + 19, p->salt, 16);
    return 35;
}

/* see rijn_seal.h */
int rijn_seal_header_read(const unsigned char *in, size_t len,
                          rijn_seal_params *p)
{
    memset(p, 0, sizeof *p);
    if (len < 10) {
        /* a prefix of the magic is still a (truncated) rijn file */
        return memcmp(in, magic, len < 8 ? len : 8) == 0 ? RIJN_SEAL_ETRUNC
                                                         : RIJN_SEAL_EMAGIC;
    }
    if (memcmp(in, magic, 8) != 0)
        return RIJN_SEAL_EMAGIC;
    if (in[8] != RIJN_SEAL_VERSION)
        return RIJN_SEAL_EVERSION;
    p->mode = in[9];
    if (p->mode == RIJN_SEAL_KEYFILE)
        return 10;
    if (p->mode != RIJN_SEAL_PASSPHRASE)
        return RIJN_SEAL_EHEADER;
    if (len < 35)
        return RIJN_SEAL_ETRUNC;
    p->t_cost = rijn_load32_be(in + 10);
    p->m_cost = rijn_load32_be(in + 14);
    p->parallelism = in[18];
    memcpy(p->salt, in + 19, 16);
    if (p->t_cost == 0 || p->parallelism == 0 || p->m_cost < 8 * p->parallelism)
        return RIJN_SEAL_EHEADER;
    if (!params_ok(p))
        return RIJN_SEAL_ELIMITS;
    return 35;
}

/* see rijn_seal.h */
int rijn_seal_have_argon2(void)
{
#if defined(RIJN_HAVE_ARGON2)
    return 1;
#else
    return 0;
#endif
}

/* see rijn_seal.h */
int rijn_seal_passphrase_key(unsigned char key[32], const rijn_seal_params *p,
                             const unsigned char *pass, size_t pass_len)
{
    if (p->mode != RIJN_SEAL_PASSPHRASE || !params_ok(p))
        return RIJN_SEAL_EARG;
#if defined(RIJN_HAVE_ARGON2)
    if (argon2id_hash_raw(p->t_cost, p->m_cost, p->parallelism, pass, pass_len,
                          p->salt, sizeof p->salt, key, 32) != ARGON2_OK)
        return RIJN_SEAL_EKDF;
    return RIJN_SEAL_OK;
#else
    (void)key;
    (void)pass;
    (void)pass_len;
    return RIJN_SEAL_EKDF;
#endif
}
