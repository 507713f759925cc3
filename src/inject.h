/*
 * Deliberate bugs, for proving that the fuzzers' oracles bite (issue 19;
 * scripts/fuzz-inject.sh runs each target against the bug it should find).
 *
 * Only in a build configured with -DRIJN_FUZZ=ON -DRIJN_INJECT_BUGS=ON (the
 * top CMakeLists.txt refuses RIJN_INJECT_BUGS anywhere else). Otherwise
 * RIJN_INJECTED(n) is the constant 0 and every injection point compiles
 * to the correct code alone. In an injecting build, the environment
 * variable RIJN_INJECT=n (read once per file that tests a bug) turns on
 * bug n; unset, 0 or anything else: no bug.
 *
 * Each bug is one that shipped in some library:
 *   1  GCM: inc32 carries into the upper 96 bits of the counter block
 *      (src/modes/gcm.c)
 *   2  GCM: the wrong power of H for the tail blocks of a bulk GHASH
 *      (src/ghash/)
 *   3  GCM: an extra zero block hashed when the AAD is a multiple of 16
 *      bytes (src/modes/gcm.c)
 *   4  GCM: a streaming split inside a partial block loses state
 *      (src/modes/gcm.c)
 *   5  CTR: the counter carry stops at byte 8: the low 64 bits wrap
 *      without carrying into the upper 64 (src/modes/ctr.c, ctr_add)
 *   6  Poly1305: a missing final carry: tag = h + s mod 2^128 without the
 *      carry from bits 64..95 into 96..127 (src/mac/poly1305_32.c, the
 *      portable engine's finish)
 *   7  Chunked: the last-chunk flag ignored: a full-size chunk is accepted
 *      as the final one, so a file cut after a full chunk (its final chunk
 *      dropped) opens as a shorter message (src/file/chunked.c)
 *   8  GCM: the tag compared on 12 of its 16 bytes (src/modes/gcm.c)
 * Which fuzz target should find which: scripts/fuzz-inject.sh.
 */
#ifndef RIJN_INJECT_H
#define RIJN_INJECT_H

#ifdef RIJN_INJECT_BUGS

#include <stdlib.h>

/* The bug RIJN_INJECT selects (0: none); read once per file. */
static inline int rijn_inject_selected(void)
{
    static int sel = -1;

    if (sel < 0) {
        const char *v = getenv("RIJN_INJECT");
        int n = v != NULL ? atoi(v) : 0;
        sel = n >= 1 && n <= 8 ? n : 0;
    }
    return sel;
}

#define RIJN_INJECTED(n) (rijn_inject_selected() == (n))

#else

#define RIJN_INJECTED(n) 0

#endif /* RIJN_INJECT_BUGS */

#endif /* RIJN_INJECT_H */
