/*
 * ref: the byte-wise FIPS-197 AES, written to be obviously right.
 *
 * One block at a time: SubBytes by table lookup, ShiftRows, MixColumns with
 * xtime, AddRoundKey, exactly as in FIPS-197 section 5.1; the key expansion
 * of section 5.2.
 *
 * VARIABLE-TIME: the S-box table is indexed by secret bytes, so cache
 * timing leaks the key. This backend is a test oracle only and is never
 * picked automatically (rank 0); the constant-time validation test expects
 * valgrind to flag it.
 */
#include "internal.h"

static const uint8_t sbox[256] = {
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b,
    0xfe, 0xd7, 0xab, 0x76, 0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0,
    0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0, 0xb7, 0xfd, 0x93, 0x26,
    0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
    0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2,
    0xeb, 0x27, 0xb2, 0x75, 0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0,
    0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84, 0x53, 0xd1, 0x00, 0xed,
    0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
    0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f,
    0x50, 0x3c, 0x9f, 0xa8, 0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5,
    0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2, 0xcd, 0x0c, 0x13, 0xec,
    0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
    0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14,
    0xde, 0x5e, 0x0b, 0xdb, 0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c,
    0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79, 0xe7, 0xc8, 0x37, 0x6d,
    0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
    0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f,
    0x4b, 0xbd, 0x8b, 0x8a, 0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e,
    0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e, 0xe1, 0xf8, 0x98, 0x11,
    0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
    0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f,
    0xb0, 0x54, 0xbb, 0x16};

/* Multiplication by x (i.e. {02}) in GF(2^8) mod x^8+x^4+x^3+x+1. */
static uint8_t xtime(uint8_t a)
{
    return (uint8_t)((a << 1) ^ ((a >> 7) * 0x1b));
}

/* Key expansion, FIPS-197 5.2: Nk = key_len/4 words in, 4*(Nr+1) words out.
 * Round keys are stored as bytes, round r at rk + 16*r. */
static void ref_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len)
{
    uint8_t w[240];
    size_t nk = key_len / 4, total = 4 * ((size_t)k->rounds + 1);
    uint8_t rcon = 1;

    memcpy(w, key, key_len);
    for (size_t i = nk; i < total; i++) {
        uint8_t t[4];
        memcpy(t, w + 4 * (i - 1), 4);
        if (i % nk == 0) {
            uint8_t t0 = t[0]; /* RotWord, SubWord, Rcon */
            t[0] = (uint8_t)(sbox[t[1]] ^ rcon);
            t[1] = sbox[t[2]];
            t[2] = sbox[t[3]];
            t[3] = sbox[t0];
            rcon = xtime(rcon);
        } else if (nk > 6 && i % nk == 4) {
            for (int j = 0; j < 4; j++) /* SubWord */
                t[j] = sbox[t[j]];
        }
        for (int j = 0; j < 4; j++)
            w[4 * i + j] = (uint8_t)(w[4 * (i - nk) + j] ^ t[j]);
    }
    memcpy(k->rk, w, 4 * total);
    rijn_burn(w, sizeof w);
}

/* State s[4*c + r] holds row r, column c (FIPS-197 3.4, input order). */
static void add_round_key(uint8_t s[16], const uint8_t *rk)
{
    for (int i = 0; i < 16; i++)
        s[i] ^= rk[i];
}

static void sub_bytes(uint8_t s[16])
{
    for (int i = 0; i < 16; i++)
        s[i] = sbox[s[i]];
}

/* Row r is rotated left by r columns. */
static void shift_rows(uint8_t s[16])
{
    uint8_t t[16];
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            t[4 * c + r] = s[4 * ((c + r) % 4) + r];
    memcpy(s, t, 16);
    rijn_burn(t, sizeof t);
}

/* Each column times {03}x^3 + {01}x^2 + {01}x + {02}. */
static void mix_columns(uint8_t s[16])
{
    for (int c = 0; c < 4; c++) {
        uint8_t *a = s + 4 * c;
        uint8_t all = (uint8_t)(a[0] ^ a[1] ^ a[2] ^ a[3]);
        uint8_t a0 = a[0];
        a[0] ^= (uint8_t)(all ^ xtime((uint8_t)(a[0] ^ a[1])));
        a[1] ^= (uint8_t)(all ^ xtime((uint8_t)(a[1] ^ a[2])));
        a[2] ^= (uint8_t)(all ^ xtime((uint8_t)(a[2] ^ a[3])));
        a[3] ^= (uint8_t)(all ^ xtime((uint8_t)(a[3] ^ a0)));
    }
}

static void encrypt_block(const rijn_aes_key *k, uint8_t out[16],
                          const uint8_t in[16])
{
    const uint8_t *rk = (const uint8_t *)k->rk;
    uint8_t s[16];

    memcpy(s, in, 16);
    add_round_key(s, rk);
    for (unsigned r = 1; r < k->rounds; r++) {
        sub_bytes(s);
        shift_rows(s);
        mix_columns(s);
        add_round_key(s, rk + 16 * r);
    }
    sub_bytes(s);
    shift_rows(s);
    add_round_key(s, rk + 16 * k->rounds);
    memcpy(out, s, 16);
    rijn_burn(s, sizeof s);
}

static void ref_ecb(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                    size_t nblocks)
{
    for (size_t i = 0; i < nblocks; i++)
        encrypt_block(k, out + 16 * i, in + 16 * i);
    rijn_stack_burn(); /* encrypt_block's spills of the state */
}

static void ref_ctr32(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                      size_t nblocks, const uint8_t ctr[16])
{
    uint8_t block[16], ks[16];
    uint32_t low = rijn_load32_be(ctr + 12);

    memcpy(block, ctr, 12);
    for (size_t i = 0; i < nblocks; i++) {
        rijn_store32_be(block + 12, low + (uint32_t)i);
        encrypt_block(k, ks, block);
        rijn_xor_bytes(out + 16 * i, in + 16 * i, ks, 16);
    }
    rijn_burn(ks, sizeof ks);
    rijn_stack_burn(); /* encrypt_block's spills of the state */
}

RIJN_AES_KEY_FITS(15 * 16, "ref's AES-256 schedule");
const rijn_aes_impl rijn_aes_ref = {
    .base = {.name = "ref", .needs = 0, .constant_time = 0, .rank = 0},
    .key_bytes = RIJN_AES_KEY_BYTES(16),
    .setkey = ref_setkey,
    .ecb = ref_ecb,
    .ctr32 = ref_ctr32,
};
