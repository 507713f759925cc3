/*
 * Helpers of the Poly1305 suites: engine selection and pass/fail counting
 * (like testutil.h does for the AES backends), a small MD5 for Bernstein's
 * checksums (the cross builds have no OpenSSL), and reading vector files.
 */
#ifndef RIJN_MAC_MUTIL_H
#define RIJN_MAC_MUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "rijn.h"
#include "rijn_poly1305.h"
#include "testutil.h"

/*
 * Start suite "<suite>.<engine>": forces the engine for the whole process
 * (RIJN_POLY1305_IMPL, set before the library reads it), or keeps the
 * default pick when engine is "default". An engine this CPU cannot run
 * is skipped with its reason (tu_require_available); an engine not
 * compiled in is an error. Returns the engine's info.
 */
rijn_impl_info mt_begin(const char *suite, const char *engine);
/* Reporting is testutil's (one name and one pass/fail count per process). */
#define mt_name tu_name
#define mt_rename tu_set_name
#define mt_pass tu_pass
#define mt_fail tu_fail
#define mt_note tu_note
#define mt_failures tu_failures
#define mt_end tu_end
/* Check equality; reports `what` on a mismatch. Returns 1 if equal. */
int mt_eq(const uint8_t *got, const uint8_t *want, size_t n,
          const char *what);

/* ---- MD5 (RFC 1321) ------------------------------------------------------ */
typedef struct {
    uint32_t a, b, c, d;
    uint64_t len;
    uint8_t buf[64];
} mt_md5;
void mt_md5_init(mt_md5 *c);
void mt_md5_update(mt_md5 *c, const void *p, size_t n);
void mt_md5_final(mt_md5 *c, uint8_t out[16]);

/* ---- files --------------------------------------------------------------- */
/* Read a whole file (NUL-terminated); exits on error. Caller frees. */
char *mt_read_file(const char *dir, const char *name);



/*
 * Run fn on every record of a raw-Poly1305 vector file (Key = r || s,
 * Input = hex or "text", or Repeat = byte + Length = n, MAC). Fails (exit
 * 1) on an attribute it does not know or an incomplete record. Returns the
 * number of records.
 */
typedef void (*mt_rec_fn)(const uint8_t key[32], const uint8_t *msg,
                          size_t len, const uint8_t mac[16], int line,
                          void *arg);
size_t mt_poly_vectors(const char *dir, const char *file, mt_rec_fn fn,
                       void *arg);

/* Find `"name": "` after *pos in a JSON text and decode the hex string
 * that follows into out (capacity cap); advances *pos. Returns the length,
 * or -1 if not found. */
long mt_json_hex(const char **pos, const char *name, uint8_t *out,
                 size_t cap);
#endif
