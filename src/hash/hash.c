/* see hash.h */
#include "hash/hash.h"

#include <ctype.h>
#include <string.h>

#include "internal.h"

static uint32_t rol32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

static uint32_t ror32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static uint64_t ror64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64 - n));
}

/*
 * Merkle-Damgard padding shared by all six: 0x80, zeros, then the bit
 * length in the last 8 (MD5: little-endian) or 16 (SHA-384/512) bytes.
 * md_pad_block leaves the last block in buf (compressing a first one if
 * the length does not fit); md_pad compresses it.
 */
static void md_pad_block(rijn_hash_ctx *c)
{
    size_t bl = c->alg->block_len, lenbytes = bl == 128 ? 16 : 8;
    uint64_t bits = c->total << 3;

    c->buf[c->used++] = 0x80;
    if (c->used > bl - lenbytes) {
        memset(c->buf + c->used, 0, bl - c->used);
        c->compress(&c->h, c->buf);
        c->used = 0;
    }
    memset(c->buf + c->used, 0, bl - c->used);
    if (c->alg->little_endian) {
        rijn_store32_le(c->buf + bl - 8, (uint32_t)bits);
        rijn_store32_le(c->buf + bl - 4, (uint32_t)(bits >> 32));
    } else {
        rijn_store64_be(c->buf + bl - 8, bits);
    }
}

static void md_pad(rijn_hash_ctx *c)
{
    md_pad_block(c);
    c->compress(&c->h, c->buf);
}

/* The first out_len bytes of the chaining value, in the digest's byte
 * order: the digest after md_pad, and HMAC's inner hash in PBKDF2. */
static void store_state(const rijn_hash_alg *alg, const rijn_hash_state *h,
                        unsigned char *out)
{
    if (alg->block_len == 128) {
        for (size_t i = 0; i < alg->out_len / 8; i++)
            rijn_store64_be(out + 8 * i, h->w64[i]);
    } else if (alg->little_endian) {
        for (size_t i = 0; i < alg->out_len / 4; i++)
            rijn_store32_le(out + 4 * i, h->w32[i]);
    } else {
        for (size_t i = 0; i < alg->out_len / 4; i++)
            rijn_store32_be(out + 4 * i, h->w32[i]);
    }
}

/* ---- MD5 (RFC 1321) ---------------------------------------------------- */

static const uint32_t md5_k[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
    0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
    0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
    0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
    0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
    0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
    0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
    0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
static const unsigned char md5_r[64] = {
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
    5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

static void md5_compress(rijn_hash_state *h, const unsigned char *p)
{
    uint32_t m[16], a = h->w32[0], b = h->w32[1], cc = h->w32[2],
                    d = h->w32[3];

    for (int i = 0; i < 16; i++)
        m[i] = rijn_load32_le(p + 4 * i);
    for (unsigned i = 0; i < 64; i++) {
        uint32_t f;
        unsigned g;
        if (i < 16) {
            f = (b & cc) | (~b & d);
            g = i;
        } else if (i < 32) {
            f = (d & b) | (~d & cc);
            g = (5 * i + 1) & 15;
        } else if (i < 48) {
            f = b ^ cc ^ d;
            g = (3 * i + 5) & 15;
        } else {
            f = cc ^ (b | ~d);
            g = (7 * i) & 15;
        }
        f += a + md5_k[i] + m[g];
        a = d;
        d = cc;
        cc = b;
        b += rol32(f, md5_r[i]);
    }
    h->w32[0] += a;
    h->w32[1] += b;
    h->w32[2] += cc;
    h->w32[3] += d;
}

/* ---- SHA-1 (FIPS 180-4) ------------------------------------------------ */

static void sha1_compress(rijn_hash_state *h, const unsigned char *p)
{
    uint32_t w[80], a = h->w32[0], b = h->w32[1], cc = h->w32[2],
                    d = h->w32[3], e = h->w32[4];

    for (int i = 0; i < 16; i++)
        w[i] = rijn_load32_be(p + 4 * i);
    for (int i = 16; i < 80; i++)
        w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) {
            f = (b & cc) | (~b & d);
            k = 0x5a827999;
        } else if (i < 40) {
            f = b ^ cc ^ d;
            k = 0x6ed9eba1;
        } else if (i < 60) {
            f = (b & cc) | (b & d) | (cc & d);
            k = 0x8f1bbcdc;
        } else {
            f = b ^ cc ^ d;
            k = 0xca62c1d6;
        }
        uint32_t t = rol32(a, 5) + f + e + k + w[i];
        e = d;
        d = cc;
        cc = rol32(b, 30);
        b = a;
        a = t;
    }
    h->w32[0] += a;
    h->w32[1] += b;
    h->w32[2] += cc;
    h->w32[3] += d;
    h->w32[4] += e;
}

/* ---- SHA-224 / SHA-256 ------------------------------------------------- */

/* FIPS 180-4 4.2.2; shared with rijn_hash_x86.c */
const uint32_t rijn_hash_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static void sha256_compress(rijn_hash_state *h, const unsigned char *p)
{
    uint32_t w[64], s[8];

    for (int i = 0; i < 16; i++)
        w[i] = rijn_load32_be(p + 4 * i);
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^
                      (w[i - 15] >> 3);
        uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^
                      (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    memcpy(s, h->w32, sizeof s);
    for (int i = 0; i < 64; i++) {
        uint32_t S1 = ror32(s[4], 6) ^ ror32(s[4], 11) ^ ror32(s[4], 25);
        uint32_t ch = (s[4] & s[5]) ^ (~s[4] & s[6]);
        uint32_t t1 = s[7] + S1 + ch + rijn_hash_sha256_k[i] + w[i];
        uint32_t S0 = ror32(s[0], 2) ^ ror32(s[0], 13) ^ ror32(s[0], 22);
        uint32_t maj = (s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]);
        uint32_t t2 = S0 + maj;
        s[7] = s[6];
        s[6] = s[5];
        s[5] = s[4];
        s[4] = s[3] + t1;
        s[3] = s[2];
        s[2] = s[1];
        s[1] = s[0];
        s[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++)
        h->w32[i] += s[i];
}

/* ---- SHA-384 / SHA-512 ------------------------------------------------- */

static const uint64_t sha512_k[80] = {
    0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL,
    0xe9b5dba58189dbbcULL, 0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL,
    0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL, 0xd807aa98a3030242ULL,
    0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
    0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL,
    0xc19bf174cf692694ULL, 0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL,
    0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL, 0x2de92c6f592b0275ULL,
    0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
    0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL,
    0xbf597fc7beef0ee4ULL, 0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL,
    0x06ca6351e003826fULL, 0x142929670a0e6e70ULL, 0x27b70a8546d22ffcULL,
    0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
    0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL,
    0x92722c851482353bULL, 0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL,
    0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL, 0xd192e819d6ef5218ULL,
    0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
    0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL,
    0x34b0bcb5e19b48a8ULL, 0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL,
    0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL, 0x748f82ee5defb2fcULL,
    0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
    0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL,
    0xc67178f2e372532bULL, 0xca273eceea26619cULL, 0xd186b8c721c0c207ULL,
    0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL, 0x06f067aa72176fbaULL,
    0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
    0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL,
    0x431d67c49c100d4cULL, 0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL,
    0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL};

/* One round; the caller rotates the names instead of moving eight words.
 * Ch(e,f,g) = ((f ^ g) & e) ^ g, Maj(a,b,c) = (a & b) | (c & (a | b)).
 * (About 7 cycles/byte on Zen 5 with GCC 12; OpenSSL's AVX2 assembly
 * does 4.2. In PBKDF2 the per-iteration HMAC overhead we do not have
 * makes up the difference.) */
#define SHA512_ROUND(a, b, c, d, e, f, g, h, i)                             \
    do {                                                                    \
        uint64_t hkw_ = h + sha512_k[i] + w[i];                             \
        uint64_t ch_ = ((f ^ g) & e) ^ g;                                   \
        uint64_t s1_ = ror64(e, 14) ^ ror64(e, 18) ^ ror64(e, 41);          \
        uint64_t t1_ = (hkw_ + ch_) + s1_;                                  \
        d += t1_;                                                           \
        h = t1_ + ((ror64(a, 28) ^ ror64(a, 34) ^ ror64(a, 39)) +           \
                   ((a & b) | (c & (a | b))));                              \
    } while (0)

static void sha512_compress(rijn_hash_state *h, const unsigned char *p)
{
    uint64_t w[80], a = h->w64[0], b = h->w64[1], c = h->w64[2],
                    d = h->w64[3], e = h->w64[4], f = h->w64[5],
                    g = h->w64[6], hh = h->w64[7];

    for (int i = 0; i < 16; i++)
        w[i] = rijn_load64_be(p + 8 * i);
    for (int i = 16; i < 80; i++) {
        uint64_t s0 = ror64(w[i - 15], 1) ^ ror64(w[i - 15], 8) ^
                      (w[i - 15] >> 7);
        uint64_t s1 = ror64(w[i - 2], 19) ^ ror64(w[i - 2], 61) ^
                      (w[i - 2] >> 6);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    for (int i = 0; i < 80; i += 8) {
        SHA512_ROUND(a, b, c, d, e, f, g, hh, i);
        SHA512_ROUND(hh, a, b, c, d, e, f, g, i + 1);
        SHA512_ROUND(g, hh, a, b, c, d, e, f, i + 2);
        SHA512_ROUND(f, g, hh, a, b, c, d, e, i + 3);
        SHA512_ROUND(e, f, g, hh, a, b, c, d, i + 4);
        SHA512_ROUND(d, e, f, g, hh, a, b, c, i + 5);
        SHA512_ROUND(c, d, e, f, g, hh, a, b, i + 6);
        SHA512_ROUND(b, c, d, e, f, g, hh, a, i + 7);
    }
    h->w64[0] += a;
    h->w64[1] += b;
    h->w64[2] += c;
    h->w64[3] += d;
    h->w64[4] += e;
    h->w64[5] += f;
    h->w64[6] += g;
    h->w64[7] += hh;
}

/* ---- registry ---------------------------------------------------------- */

#ifdef RIJN_HASH_X86
#define X86_SHA1 rijn_hash_x86_sha1
#define X86_SHA256 rijn_hash_x86_sha256
#else
#define X86_SHA1 NULL
#define X86_SHA256 NULL
#endif

/* Initial values: RFC 1321 3.3, FIPS 180-4 5.3. */
static const rijn_hash_alg algs[] = {
    {"md5", 16, 64, 1,
     {.w32 = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476}},
     md5_compress, NULL},
    {"sha1", 20, 64, 0,
     {.w32 = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0}},
     sha1_compress, X86_SHA1},
    {"sha224", 28, 64, 0,
     {.w32 = {0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31,
              0x68581511, 0x64f98fa7, 0xbefa4fa4}},
     sha256_compress, X86_SHA256},
    {"sha256", 32, 64, 0,
     {.w32 = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f,
              0x9b05688c, 0x1f83d9ab, 0x5be0cd19}},
     sha256_compress, X86_SHA256},
    {"sha384", 48, 128, 0,
     {.w64 = {0xcbbb9d5dc1059ed8ULL, 0x629a292a367cd507ULL,
              0x9159015a3070dd17ULL, 0x152fecd8f70e5939ULL,
              0x67332667ffc00b31ULL, 0x8eb44a8768581511ULL,
              0xdb0c2e0d64f98fa7ULL, 0x47b5481dbefa4fa4ULL}},
     sha512_compress, NULL},
    {"sha512", 64, 128, 0,
     {.w64 = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL,
              0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
              0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
              0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL}},
     sha512_compress, NULL},
};

/* -1: not decided yet; 0: portable code only; 1: CPU extensions. */
static int accel = -1;

int rijn_hash_set_accel(int on)
{
#ifdef RIJN_HASH_X86
    accel = on && rijn_impl_runnable(&rijn_hash_x86_impl);
#else
    (void)on;
    accel = 0;
#endif
    return accel;
}

int rijn_hash_accel_info(rijn_impl_info *info)
{
#ifdef RIJN_HASH_X86
    const rijn_impl *d = &rijn_hash_x86_impl;

    if (accel < 0)
        rijn_hash_set_accel(1);
    info->name = d->name;
    info->available = rijn_impl_runnable(d);
    info->constant_time = d->constant_time;
    info->is_default = accel;
    rijn_cpu_names(d->needs, info->needs, sizeof info->needs);
    return 0;
#else
    (void)info;
    return -1;
#endif
}

static rijn_hash_compress_fn *pick_compress(const rijn_hash_alg *alg)
{
    if (accel < 0)
        rijn_hash_set_accel(1);
    return accel && alg->compress_fast ? alg->compress_fast : alg->compress;
}

const char *rijn_hash_names(void)
{
    return "md5, sha1, sha224, sha256, sha384, sha512";
}

const rijn_hash_alg *rijn_hash_find(const char *name)
{
    /* Accept what OpenSSL's fetch accepts for these: any case, and the
     * aliases SHA-1, SHA2-256, SHA-256, ... */
    static const struct {
        const char *alias, *name;
    } aliases[] = {
        {"sha-1", "sha1"},       {"ssl3-md5", "md5"},
        {"ssl3-sha1", "sha1"},   {"sha2-224", "sha224"},
        {"sha-224", "sha224"},   {"sha2-256", "sha256"},
        {"sha-256", "sha256"},   {"sha2-384", "sha384"},
        {"sha-384", "sha384"},   {"sha2-512", "sha512"},
        {"sha-512", "sha512"},
    };
    char low[16];
    size_t n = strlen(name);

    if (n == 0 || n >= sizeof low)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(low, aliases[i].alias) == 0) {
            memcpy(low, aliases[i].name, strlen(aliases[i].name) + 1);
            break;
        }
    for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++)
        if (strcmp(low, algs[i].name) == 0)
            return &algs[i];
    return NULL;
}

/* ---- streaming interface ------------------------------------------------ */

void rijn_hash_init(rijn_hash_ctx *c, const rijn_hash_alg *alg)
{
    memset(c, 0, sizeof *c);
    c->alg = alg;
    c->h = alg->iv;
    c->compress = pick_compress(alg);
}

void rijn_hash_update(rijn_hash_ctx *c, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t bl = c->alg->block_len;

    if (len == 0) /* data may be NULL */
        return;
    c->total += len;
    if (c->used > 0) {
        size_t take = bl - c->used < len ? bl - c->used : len;
        memcpy(c->buf + c->used, p, take);
        c->used += take;
        p += take;
        len -= take;
        if (c->used < bl)
            return;
        c->compress(&c->h, c->buf);
        c->used = 0;
    }
    while (len >= bl) {
        c->compress(&c->h, p);
        p += bl;
        len -= bl;
    }
    memcpy(c->buf, p, len);
    c->used = len;
}

void rijn_hash_final(rijn_hash_ctx *c, unsigned char *out)
{
    md_pad(c);
    store_state(c->alg, &c->h, out);
    rijn_burn(c, sizeof *c);
}

void rijn_hash(const rijn_hash_alg *alg, unsigned char *out, const void *data,
          size_t len)
{
    rijn_hash_ctx c;
    rijn_hash_init(&c, alg);
    rijn_hash_update(&c, data, len);
    rijn_hash_final(&c, out);
}

/* ---- HMAC, PBKDF2, EVP_BytesToKey -------------------------------------- */

/* Keyed inner and outer contexts, so PBKDF2 hashes the pads only once. */
struct hmac_key {
    rijn_hash_ctx inner, outer;
};

static void hmac_setkey(struct hmac_key *hk, const rijn_hash_alg *alg,
                        const unsigned char *key, size_t key_len)
{
    unsigned char k[RIJN_HASH_MAX_BLOCK], pad[RIJN_HASH_MAX_BLOCK];
    size_t bl = alg->block_len;

    memset(k, 0, sizeof k);
    if (key_len > bl)
        rijn_hash(alg, k, key, key_len);
    else if (key_len > 0)
        memcpy(k, key, key_len);
    for (size_t i = 0; i < bl; i++)
        pad[i] = (unsigned char)(k[i] ^ 0x36);
    rijn_hash_init(&hk->inner, alg);
    rijn_hash_update(&hk->inner, pad, bl);
    for (size_t i = 0; i < bl; i++)
        pad[i] = (unsigned char)(k[i] ^ 0x5c);
    rijn_hash_init(&hk->outer, alg);
    rijn_hash_update(&hk->outer, pad, bl);
    rijn_burn(k, sizeof k);
    rijn_burn(pad, sizeof pad);
}

static void hmac_run(const struct hmac_key *hk, unsigned char *out,
                     const unsigned char *m1, size_t l1,
                     const unsigned char *m2, size_t l2)
{
    rijn_hash_ctx c = hk->inner;
    unsigned char ih[RIJN_HASH_MAX_OUT];

    rijn_hash_update(&c, m1, l1);
    rijn_hash_update(&c, m2, l2);
    rijn_hash_final(&c, ih);
    c = hk->outer;
    rijn_hash_update(&c, ih, hk->inner.alg->out_len);
    rijn_hash_final(&c, out);
    rijn_burn(ih, sizeof ih);
}

void rijn_hash_hmac(const rijn_hash_alg *alg, unsigned char *out,
               const unsigned char *key, size_t key_len,
               const unsigned char *msg, size_t msg_len)
{
    struct hmac_key hk;
    hmac_setkey(&hk, alg, key, key_len);
    hmac_run(&hk, out, msg, msg_len, NULL, 0);
    rijn_burn(&hk, sizeof hk);
}

void rijn_hash_hkdf_expand(const rijn_hash_alg *alg, unsigned char *out,
                           size_t out_len, const unsigned char *prk,
                           size_t prk_len, const unsigned char *info,
                           size_t info_len)
{
    struct hmac_key hk;
    unsigned char t[RIJN_HASH_MAX_OUT], n = 0;
    size_t tl = 0, hl = alg->out_len;

    hmac_setkey(&hk, alg, prk, prk_len);
    while (out_len > 0) {
        /* T(n) = HMAC(PRK, T(n - 1) || info || n) */
        rijn_hash_ctx c = hk.inner;
        size_t take = out_len < hl ? out_len : hl;
        n++;
        rijn_hash_update(&c, t, tl);
        rijn_hash_update(&c, info, info_len);
        rijn_hash_update(&c, &n, 1);
        rijn_hash_final(&c, t);
        c = hk.outer;
        rijn_hash_update(&c, t, hl);
        rijn_hash_final(&c, t);
        tl = hl;
        memcpy(out, t, take);
        out += take;
        out_len -= take;
    }
    rijn_burn(t, sizeof t);
    rijn_burn(&hk, sizeof hk);
}

/*
 * One PBKDF2 block: T_i = U_1 ^ ... ^ U_iter, U_1 = PRF(P, S || INT(i)),
 * U_j = PRF(P, U_{j-1}). From U_2 on, HMAC's inner and outer messages are
 * one digest each: a single block, already padded, whose padding is the
 * same for both (block_len + out_len bytes hashed). So each iteration is
 * two compressions from the keyed states, with no buffering.
 */
static void pbkdf2_block(const struct hmac_key *hk, const unsigned char *salt,
                         size_t salt_len, uint32_t index,
                         unsigned long iter, unsigned char t[RIJN_HASH_MAX_OUT])
{
    const rijn_hash_alg *alg = hk->inner.alg;
    rijn_hash_compress_fn *compress = hk->inner.compress;
    unsigned char idx[4], blk[RIJN_HASH_MAX_BLOCK];
    rijn_hash_ctx c;
    rijn_hash_state st;

    rijn_store32_be(idx, index);
    hmac_run(hk, blk, salt, salt_len, idx, 4); /* U_1 */
    /* t: all RIJN_HASH_MAX_OUT bytes are XORed (a fixed-size loop); only the
     * first out_len are the block */
    memcpy(t, blk, RIJN_HASH_MAX_OUT);

    /* blk = U || 0x80 || 0... || bit length: the last block of the outer
     * hash of U, which is also the inner hash's (same lengths) */
    c = hk->outer;
    rijn_hash_update(&c, blk, alg->out_len);
    md_pad_block(&c);
    memcpy(blk, c.buf, alg->block_len);
    for (unsigned long j = 1; j < iter; j++) {
        st = hk->inner.h;
        compress(&st, blk);
        store_state(alg, &st, blk);
        st = hk->outer.h;
        compress(&st, blk);
        store_state(alg, &st, blk);
        for (size_t i = 0; i < RIJN_HASH_MAX_OUT; i++)
            t[i] ^= blk[i];
    }
    rijn_burn(&c, sizeof c);
    rijn_burn(&st, sizeof st);
    rijn_burn(blk, sizeof blk);
}

void rijn_hash_pbkdf2_part(const rijn_hash_alg *alg, const unsigned char *pass,
                           size_t pass_len, const unsigned char *salt,
                           size_t salt_len, unsigned long iter,
                           unsigned char *out, size_t out_len, uint32_t first,
                           uint32_t step)
{
    struct hmac_key hk;
    const size_t hl = alg->out_len;
    unsigned char t[RIJN_HASH_MAX_OUT];

    hmac_setkey(&hk, alg, pass, pass_len);
    for (uint32_t b = first; b >= 1 && (size_t)(b - 1) * hl < out_len;
         b += step) {
        size_t pos = (size_t)(b - 1) * hl;
        size_t take = out_len - pos < hl ? out_len - pos : hl;
        pbkdf2_block(&hk, salt, salt_len, b, iter, t);
        memcpy(out + pos, t, take);
        if (step == 0 || b > UINT32_MAX - step)
            break;
    }
    rijn_burn(t, sizeof t);
    rijn_burn(&hk, sizeof hk);
}

void rijn_hash_pbkdf2(const rijn_hash_alg *alg, const unsigned char *pass,
                      size_t pass_len, const unsigned char *salt,
                      size_t salt_len, unsigned long iter, unsigned char *out,
                      size_t out_len)
{
    rijn_hash_pbkdf2_part(alg, pass, pass_len, salt, salt_len, iter, out,
                          out_len, 1, 1);
}

void rijn_hash_bytes_to_key(const rijn_hash_alg *alg, const unsigned char *pass,
                       size_t pass_len, const unsigned char *salt,
                       size_t salt_len, unsigned char *key, size_t key_len,
                       unsigned char *iv, size_t iv_len)
{
    unsigned char d[RIJN_HASH_MAX_OUT];
    size_t hl = alg->out_len, have = 0;
    int first = 1;

    while (key_len > 0 || iv_len > 0) {
        rijn_hash_ctx c;
        size_t pos = 0;
        rijn_hash_init(&c, alg);
        if (!first)
            rijn_hash_update(&c, d, have);
        rijn_hash_update(&c, pass, pass_len);
        if (salt != NULL && salt_len > 0)
            rijn_hash_update(&c, salt, salt_len);
        rijn_hash_final(&c, d);
        have = hl;
        first = 0;
        while (key_len > 0 && pos < hl) {
            *key++ = d[pos++];
            key_len--;
        }
        while (iv_len > 0 && pos < hl) {
            *iv++ = d[pos++];
            iv_len--;
        }
    }
    rijn_burn(d, sizeof d);
}
