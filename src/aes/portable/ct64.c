/*
 * ct64: portable constant-time AES encryption (128/192/256-bit keys),
 * bitsliced and fixsliced on 64-bit words, 4 blocks per batch.
 *
 * Layout. A batch of 4 blocks is 8 words q[0..7]; q[j] holds bit j (LSB = 0)
 * of all 64 bytes. Byte (row r, column c) of block b sits at bit
 * 16*r + 4*c + b: each row is a 16-bit lane, so "row r+1" is a 64-bit
 * rotation by 16 and "column c+1" a rotation by 4 inside every lane. Packing
 * from and to the byte order is a fixed permutation of the 9 index bits,
 * done with delta swaps (4 layers between word pairs, 2 inside words).
 *
 * S-box. The circuit of Boyar and Peralta ("A new combinational logic
 * minimization technique with applications to cryptology", SEA 2010,
 * eprint 2009/191): 32 AND and 83 XOR, depth 28, without its 4 output
 * NOTs. Those add the constant 0x63 to every S-box output; MixColumns maps
 * the all-0x63 state to itself (2^3^1^1 = 1) and ShiftRows permutes it, so
 * the constant is added into round keys 1..Nr instead, which is exact.
 * (Their depth-16 circuit, 128 gates, measured slower here: this loop is
 * bound by instruction count more than by latency.)
 *
 * Fixslicing. ShiftRows is never computed, after Adomnicai and Peyrin,
 * "Fixslicing AES-like ciphers" (TCHES 2021/1), transposed to this layout.
 * The physical state P and the logical state S satisfy S = SR^k(P) with
 * k = (rounds done) mod 4, and MixColumns becomes
 *     MC_k: out(r,x) = 2P(r,x) ^ 3P(r+1,x+k) ^ P(r+2,x+2k) ^ P(r+3,x+3k)
 * (rows and columns mod 4), computed as out = 2t ^ R1(P) ^ R2(t) with
 * t = P ^ R1(P), where R1 / R2 fetch row r+1 / r+2 at column offset k / 2k:
 * one rotation when the column offset is 0, else two rotations and a blend.
 * Round key i is stored as SR^-i(rk_i), bitsliced and replicated for the 4
 * blocks (8 words per round key, 120 words for AES-256). After the last
 * round k = Nr mod 4: AES-192 ends at k = 0; AES-128 and AES-256 end at
 * k = 2; the unpacking applies that SR^2 (rows 1 and 3 move by two
 * columns) as one masked exchange between word pairs, 12 operations.
 *
 * CTR. Bytes 0..11 of the 4 counter blocks are packed once per call and
 * combined with round key 0; the four 32-bit counters live in nibble 3 of
 * every lane (bytes 12..15) and are stepped by 4 with a bitsliced
 * ripple-carry adder, which wraps mod 2^32 by construction.
 *
 * Constant time. Only XOR, AND, OR, shifts and rotations by constant
 * amounts on whole words; no tables. Branches and memory indices depend
 * only on lengths, the number of rounds and the (public) counter, never on
 * the key or the data, in the key schedule as well (SubWord goes through
 * the same bitsliced S-box circuit).
 */
#include "internal.h"

extern const rijn_aes_impl rijn_aes_ct64;

/* The round pieces take compile-time constants; they must be inlined. */
#if defined(__GNUC__)
#define CT64_INLINE static inline __attribute__((always_inline))
#else
#define CT64_INLINE static inline
#endif

#define ROTR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))

/* ------------------------------------------------------------------------
 * S-box (Boyar-Peralta). x0 is the most significant bit. The output lacks
 * the constant 0x63 (see the header comment).
 * --------------------------------------------------------------------- */
CT64_INLINE void sbox(uint64_t q[8])
{
#define RIJN_SBOX_T uint64_t
#include "sbox_bp.inc"
#undef RIJN_SBOX_T
}

/* ------------------------------------------------------------------------
 * Packing: 4 blocks (64 bytes) <-> 8 bit planes.
 *
 * Word w[2b+h] = little-endian bytes 8h..8h+7 of block b. As a 9-bit index
 * (word bits w2 w1 w0 | bit-position bits p5..p0) a bit of block b, column
 * c, row r, bit j starts at (b1 b0 c1 | c0 r1 r0 j2 j1 j0) and must end at
 * (j-plane | r1 r0 c1 c0 b1 b0). Exchanging w0<->p5, w0<->p2, w2<->p1 and
 * w1<->p0 between word pairs gives (j1 j0 j2 | c1 r1 r0 c0 b1 b0); swapping
 * p5<->p3 then p5<->p4 inside every word finishes. Plane j is then word
 * 4*j1 + 2*j0 + j2. Unpacking runs the same steps backwards.
 * --------------------------------------------------------------------- */
#define SWAPMOVE2(a, b, m, n)                                                 \
    do {                                                                      \
        uint64_t sm_t = (((a) >> (n)) ^ (b)) & (m);                           \
        (b) ^= sm_t;                                                          \
        (a) ^= sm_t << (n);                                                   \
    } while (0)

#define SWAPMOVE1(a, m, n)                                                    \
    do {                                                                      \
        uint64_t sm_t = (((a) >> (n)) ^ (a)) & (m);                           \
        (a) ^= sm_t ^ (sm_t << (n));                                          \
    } while (0)

static inline void pack_words(uint64_t q[8], const uint64_t w[8])
{
    uint64_t a0 = w[0], a1 = w[1], a2 = w[2], a3 = w[3];
    uint64_t a4 = w[4], a5 = w[5], a6 = w[6], a7 = w[7];
    const uint64_t m4 = 0x0F0F0F0F0F0F0F0F, m2 = 0x3333333333333333;
    const uint64_t m1 = 0x5555555555555555, m32 = 0x00000000FFFFFFFF;

    SWAPMOVE2(a0, a1, m32, 32);
    SWAPMOVE2(a2, a3, m32, 32);
    SWAPMOVE2(a4, a5, m32, 32);
    SWAPMOVE2(a6, a7, m32, 32);
    SWAPMOVE2(a0, a1, m4, 4);
    SWAPMOVE2(a2, a3, m4, 4);
    SWAPMOVE2(a4, a5, m4, 4);
    SWAPMOVE2(a6, a7, m4, 4);
    SWAPMOVE2(a0, a4, m2, 2);
    SWAPMOVE2(a1, a5, m2, 2);
    SWAPMOVE2(a2, a6, m2, 2);
    SWAPMOVE2(a3, a7, m2, 2);
    SWAPMOVE2(a0, a2, m1, 1);
    SWAPMOVE2(a1, a3, m1, 1);
    SWAPMOVE2(a4, a6, m1, 1);
    SWAPMOVE2(a5, a7, m1, 1);
#define PACK_INWORD(a)                                                        \
    SWAPMOVE1(a, 0x00000000FF00FF00, 24);                                     \
    SWAPMOVE1(a, 0x00000000FFFF0000, 16)
    PACK_INWORD(a0);
    PACK_INWORD(a1);
    PACK_INWORD(a2);
    PACK_INWORD(a3);
    PACK_INWORD(a4);
    PACK_INWORD(a5);
    PACK_INWORD(a6);
    PACK_INWORD(a7);
#undef PACK_INWORD
    q[0] = a0;
    q[1] = a2;
    q[2] = a4;
    q[3] = a6;
    q[4] = a1;
    q[5] = a3;
    q[6] = a5;
    q[7] = a7;
}

/*
 * sr2 != 0 also applies ShiftRows twice (the state after the last round of
 * AES-128/256, see encrypt_core): rows 1 and 3 move by two columns, i.e.
 * where r0 = 1 the words differing only in c1 trade places at the end.
 */
CT64_INLINE void unpack_words(uint64_t w[8], const uint64_t q[8], int sr2)
{
    uint64_t a0 = q[0], a2 = q[1], a4 = q[2], a6 = q[3];
    uint64_t a1 = q[4], a3 = q[5], a5 = q[6], a7 = q[7];
    const uint64_t m4 = 0x0F0F0F0F0F0F0F0F, m2 = 0x3333333333333333;
    const uint64_t m1 = 0x5555555555555555, m32 = 0x00000000FFFFFFFF;

#define UNPACK_INWORD(a)                                                      \
    SWAPMOVE1(a, 0x00000000FFFF0000, 16);                                     \
    SWAPMOVE1(a, 0x00000000FF00FF00, 24)
    UNPACK_INWORD(a0);
    UNPACK_INWORD(a1);
    UNPACK_INWORD(a2);
    UNPACK_INWORD(a3);
    UNPACK_INWORD(a4);
    UNPACK_INWORD(a5);
    UNPACK_INWORD(a6);
    UNPACK_INWORD(a7);
#undef UNPACK_INWORD
    SWAPMOVE2(a0, a2, m1, 1);
    SWAPMOVE2(a1, a3, m1, 1);
    SWAPMOVE2(a4, a6, m1, 1);
    SWAPMOVE2(a5, a7, m1, 1);
    SWAPMOVE2(a0, a4, m2, 2);
    SWAPMOVE2(a1, a5, m2, 2);
    SWAPMOVE2(a2, a6, m2, 2);
    SWAPMOVE2(a3, a7, m2, 2);
    SWAPMOVE2(a0, a1, m4, 4);
    SWAPMOVE2(a2, a3, m4, 4);
    SWAPMOVE2(a4, a5, m4, 4);
    SWAPMOVE2(a6, a7, m4, 4);
    SWAPMOVE2(a0, a1, m32, 32);
    SWAPMOVE2(a2, a3, m32, 32);
    SWAPMOVE2(a4, a5, m32, 32);
    SWAPMOVE2(a6, a7, m32, 32);
    if (sr2) {
        const uint64_t r0 = 0xFF00FF00FF00FF00;
        uint64_t t;
        t = (a0 ^ a1) & r0;
        a0 ^= t;
        a1 ^= t;
        t = (a2 ^ a3) & r0;
        a2 ^= t;
        a3 ^= t;
        t = (a4 ^ a5) & r0;
        a4 ^= t;
        a5 ^= t;
        t = (a6 ^ a7) & r0;
        a6 ^= t;
        a7 ^= t;
    }
    w[0] = a0;
    w[1] = a1;
    w[2] = a2;
    w[3] = a3;
    w[4] = a4;
    w[5] = a5;
    w[6] = a6;
    w[7] = a7;
}

static inline void load_blocks(uint64_t q[8], const uint8_t *in)
{
    uint64_t w[8];
    int i;

    for (i = 0; i < 8; i++)
        w[i] = rijn_load64_le(in + 8 * i);
    pack_words(q, w);
}

/* ------------------------------------------------------------------------
 * Rounds
 * --------------------------------------------------------------------- */

/* out(r,x) = a(r+dr, x+dx) for every block; constant dr, dx in 0..3. */
CT64_INLINE uint64_t fetch(uint64_t a, unsigned dr, unsigned dx)
{
    static const uint64_t lo_mask[4] = {
        0, 0x0FFF0FFF0FFF0FFF, 0x00FF00FF00FF00FF, 0x000F000F000F000F
    };
    uint64_t lo, hi;

    if (dx == 0)
        return ROTR64(a, 16 * dr);
    /* columns x < 4-dx come from the same lane offset, the rest wrap */
    lo = ROTR64(a, (16 * dr + 4 * dx) & 63);
    hi = ROTR64(a, (16 * dr + 4 * dx - 16) & 63);
    return hi ^ ((lo ^ hi) & lo_mask[dx]);
}

/*
 * MixColumns on a state k ShiftRows behind (k constant):
 * out = xtime(t) ^ R1(q) ^ R2(t) with t = q ^ R1(q), plane by plane so that
 * few values are live at once (xtime needs only t[j-1] and t[7]).
 */
CT64_INLINE void mix_columns(uint64_t q[8], unsigned k)
{
    const unsigned k2 = (2 * k) & 3;
    uint64_t r7, t7, r, t, tp;

    r7 = fetch(q[7], 1, k);
    t7 = q[7] ^ r7;
#define MC_PLANE(j, xt)                                                       \
    r = fetch(q[j], 1, k);                                                    \
    t = q[j] ^ r;                                                             \
    q[j] = (xt) ^ r ^ fetch(t, 2, k2);                                        \
    tp = t
    MC_PLANE(0, t7);
    MC_PLANE(1, tp ^ t7);
    MC_PLANE(2, tp);
    MC_PLANE(3, tp ^ t7);
    MC_PLANE(4, tp ^ t7);
    MC_PLANE(5, tp);
    MC_PLANE(6, tp);
#undef MC_PLANE
    q[7] = tp ^ r7 ^ fetch(t7, 2, k2);
}

CT64_INLINE void add_round_key(uint64_t q[8], const uint64_t *rk)
{
    q[0] ^= rk[0];
    q[1] ^= rk[1];
    q[2] ^= rk[2];
    q[3] ^= rk[3];
    q[4] ^= rk[4];
    q[5] ^= rk[5];
    q[6] ^= rk[6];
    q[7] ^= rk[7];
}

CT64_INLINE void full_round(uint64_t q[8], const uint64_t *rk, unsigned k)
{
    sbox(q);
    mix_columns(q, k);
    add_round_key(q, rk);
}

/* Rounds 1..Nr on a state that already has round key 0 added. The result
 * still lacks ShiftRows^(Nr mod 4); unpack_words(..., rounds != 12) adds it. */
static void encrypt_core(uint64_t q[8], const uint64_t *rk, unsigned rounds)
{
    const uint64_t *last = rk + 8 * rounds;

    /* round i uses MixColumns variant k = i mod 4 */
    rk += 8;
    for (;;) {
        full_round(q, rk, 1);
        rk += 8;
        if (rk == last) /* AES-128, AES-256: k = 2 after the last round */
            break;
        full_round(q, rk, 2);
        full_round(q, rk + 8, 3);
        rk += 16;
        if (rk == last) /* AES-192: k = 0 after the last round */
            break;
        full_round(q, rk, 0);
        rk += 8;
    }
    sbox(q);
    add_round_key(q, rk);
    /*
     * Now logical = SR^k(physical) with k = rounds mod 4: 2 for AES-128 and
     * AES-256, 0 for AES-192. The unpacking applies the SR^2 (sr2 flag).
     */
}

/* ------------------------------------------------------------------------
 * Key schedule
 * --------------------------------------------------------------------- */

/* SubWord through the bitsliced S-box (constant time). */
static uint32_t sub_word(uint32_t w)
{
    uint64_t q[8];
    uint32_t r = 0;
    int i, j;

    for (j = 0; j < 8; j++) {
        uint64_t p = 0;
        for (i = 0; i < 4; i++)
            p |= (uint64_t)((w >> (8 * i + j)) & 1) << i;
        q[j] = p;
    }
    sbox(q);
    for (j = 0; j < 8; j++)
        for (i = 0; i < 4; i++)
            r |= (uint32_t)((q[j] >> i) & 1) << (8 * i + j);
    return r ^ 0x63636363;
}

static void ct64_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len)
{
    uint32_t w[60];
    uint8_t buf[64];
    uint64_t ws[8];
    unsigned nk = (unsigned)(key_len / 4), rounds = k->rounds;
    unsigned nw = 4 * (rounds + 1), i, r, c;
    uint32_t rcon = 1;

    for (i = 0; i < nk; i++)
        w[i] = rijn_load32_be(key + 4 * i);
    for (i = nk; i < nw; i++) {
        uint32_t t = w[i - 1];
        if (i % nk == 0) {
            t = sub_word((t << 8) | (t >> 24)) ^ (rcon << 24);
            rcon = (rcon << 1) ^ (0x11b & -(rcon >> 7));
        } else if (nk > 6 && i % nk == 4) {
            t = sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }

    for (i = 0; i <= rounds; i++) {
        unsigned sh = i & 3, b;

        /* stored key (r,x) = rk_i(r, x - k*r); byte index 4*column + row */
        for (c = 0; c < 4; c++) {
            for (r = 0; r < 4; r++) {
                unsigned src = (c + 4 - (sh * r) % 4) % 4;
                uint8_t v = (uint8_t)(w[4 * i + src] >> (24 - 8 * r));
                if (i > 0)
                    v ^= 0x63;
                for (b = 0; b < 4; b++)
                    buf[16 * b + 4 * c + r] = v;
            }
        }
        for (b = 0; b < 8; b++)
            ws[b] = rijn_load64_le(buf + 8 * b);
        pack_words(k->rk + 8 * i, ws);
    }
    rijn_burn(w, sizeof w);
    rijn_burn(buf, sizeof buf);
    rijn_burn(ws, sizeof ws);
}

/* ------------------------------------------------------------------------
 * ECB and CTR
 * --------------------------------------------------------------------- */
static void ct64_ecb(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                     size_t nblocks)
{
    uint64_t q[8], w[8];
    uint8_t buf[64];
    int i;

    while (nblocks > 0) {
        size_t n = nblocks < 4 ? nblocks : 4;
        if (n == 4) {
            load_blocks(q, in);
        } else {
            memset(buf, 0, sizeof buf);
            memcpy(buf, in, 16 * n);
            load_blocks(q, buf);
        }
        add_round_key(q, k->rk);
        encrypt_core(q, k->rk, k->rounds);
        unpack_words(w, q, k->rounds != 12);
        if (n == 4) {
            for (i = 0; i < 8; i++)
                rijn_store64_le(out + 8 * i, w[i]);
        } else {
            for (i = 0; i < 8; i++)
                rijn_store64_le(buf + 8 * i, w[i]);
            memcpy(out, buf, 16 * n);
            /* the padding blocks' ciphertexts are key material */
            rijn_burn(buf, sizeof buf);
        }
        in += 16 * n;
        out += 16 * n;
        nblocks -= n;
    }
    rijn_burn(w, sizeof w);
    rijn_burn(q, sizeof q);
}

/*
 * Add 4 to the four 32-bit counters held in nibble 3 of every lane: counter
 * bit 8*(3-r)+j is plane j, lane r. A ripple-carry adder on the low byte;
 * the upper bytes only when a carry leaves it (once per 64 batches). That
 * branch depends on the counter, which is public, never on key or data.
 */
CT64_INLINE void ctr_add4(uint64_t c[8])
{
    uint64_t carry = 0xF000000000000000, s;
    int j, r;

    for (j = 2; j < 8; j++) {
        s = c[j] ^ carry;
        carry &= c[j];
        c[j] = s;
    }
    if (carry == 0)
        return;
    for (r = 2; r >= 0; r--) {
        carry >>= 16;
        for (j = 0; j < 8; j++) {
            s = c[j] ^ carry;
            carry &= c[j];
            c[j] = s;
        }
    }
}

static void ct64_ctr32(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                       size_t nblocks, const uint8_t ctr[16])
{
    const uint64_t nib3 = 0xF000F000F000F000;
    uint64_t base[8], cnt[8], q[8], w[8];
    uint8_t buf[64];
    uint32_t c0 = rijn_load32_be(ctr + 12);
    int i;

    if (nblocks == 0)
        return;
    for (i = 0; i < 4; i++) {
        memcpy(buf + 16 * i, ctr, 12);
        rijn_store32_be(buf + 16 * i + 12, c0 + (uint32_t)i);
    }
    load_blocks(q, buf);
    for (i = 0; i < 8; i++) {
        cnt[i] = q[i] & nib3;
        base[i] = (q[i] & ~nib3) ^ k->rk[i];
    }

    while (nblocks >= 4) {
        for (i = 0; i < 8; i++)
            q[i] = base[i] ^ cnt[i];
        ctr_add4(cnt);
        encrypt_core(q, k->rk, k->rounds);
        unpack_words(w, q, k->rounds != 12);
        for (i = 0; i < 8; i++)
            rijn_store64_le(out + 8 * i, w[i] ^ rijn_load64_le(in + 8 * i));
        in += 64;
        out += 64;
        nblocks -= 4;
    }
    if (nblocks > 0) {
        for (i = 0; i < 8; i++)
            q[i] = base[i] ^ cnt[i];
        encrypt_core(q, k->rk, k->rounds);
        unpack_words(w, q, k->rounds != 12);
        for (i = 0; i < 8; i++)
            rijn_store64_le(buf + 8 * i, w[i]);
        rijn_xor_bytes(out, in, buf, 16 * nblocks);
    }
    /* keystream (buf, w, q) and rk[0] ^ counter (base) */
    rijn_burn(buf, sizeof buf);
    rijn_burn(w, sizeof w);
    rijn_burn(q, sizeof q);
    rijn_burn(base, sizeof base);
}

RIJN_AES_KEY_FITS(15 * 64, "ct64's AES-256 schedule");
const rijn_aes_impl rijn_aes_ct64 = {
    .base = {.name = "ct64", .needs = 0, .constant_time = 1, .rank = 10},
    .key_bytes = RIJN_AES_KEY_BYTES(64),
    .setkey = ct64_setkey,
    .ecb = ct64_ecb,
    .ctr32 = ct64_ctr32,
};
