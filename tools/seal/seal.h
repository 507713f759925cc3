/*
 * `rijn seal` and `rijn open`: authenticated file encryption in the format
 * of doc/format.md, on the library's rijn_seal.h. Declarations shared by
 * the files of this folder:
 *
 *   seal.c    the two commands: options, the flow (input, header, key,
 *             commitment, output, data), messages and exit codes
 *   key.c     the input key: a 32-byte key file, or a passphrase (file,
 *             environment variable, or asked on the terminal) through
 *             Argon2id
 *   engine.c  the data phase: a reader, worker threads that seal or open
 *             16 KiB chunks, a writer that releases them in order
 */
#ifndef RIJN_TOOL_SEAL_H
#define RIJN_TOOL_SEAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rijn_seal.h"

/* Exit statuses of `rijn open` (and `seal`), so that scripts can tell a
 * wrong key from a damaged file; 1 for everything else (usage, I/O). */
enum {
    SEAL_EXIT_ERROR = 1,   /* usage, I/O, resources */
    SEAL_EXIT_KEY = 2,     /* wrong key or passphrase, or modified header */
    SEAL_EXIT_FORMAT = 3,  /* not a rijn file, unsupported version,
                            * corrupted header, KDF limits */
    SEAL_EXIT_DAMAGED = 4  /* modified, truncated, reordered or extended
                            * data */
};

/* The exit status for a RIJN_SEAL_E* code. */
int seal_exit_status(int err);

/* ---- key.c ------------------------------------------------------------- */

struct seal_key_opts {
    const char *key_file;    /* --key-file */
    const char *pass_file;   /* --passphrase-file */
    const char *pass_env;    /* --passphrase-env */
};

/* The 32 bytes of a key file (which must hold exactly 32). 0, or -1 after
 * a message. who: "seal" or "open". */
int seal_read_key_file(const char *who, const char *path,
                       unsigned char key[32]);

/* The passphrase from --passphrase-file (its first line, without the
 * newline), --passphrase-env, or the terminal (asked twice when confirm).
 * Returns a malloc'ed NUL-terminated string (wipe and free it), or NULL
 * after a message. An empty passphrase is refused. */
char *seal_get_passphrase(const char *who, const struct seal_key_opts *o,
                          int confirm);

/* ---- engine.c ---------------------------------------------------------- */

struct seal_run {
    const rijn_chunked *c;   /* keyed, commitment checked (open) */
    int open;                /* 0: seal, 1: open */
    int in_fd, out_fd;
    const char *in_name, *out_name;
    /* a regular input: the workers pread() its in_len bytes from offset
     * in_off (its size when the run started), each slot into a private
     * buffer of its own just before they process it; 0: the reader
     * thread read()s in_fd in order (pipes, devices, RIJN_SEAL_IO=read) */
    int in_pread;
    uint64_t in_off, in_len;
    /* seal only: a regular input mapped from in_off, in_len bytes (the
     * workers seal from the mapping, no copy), or NULL. Never for open: a
     * decrypt must not read memory another process can write. */
    const unsigned char *in_map;
    const char *who;         /* "seal" or "open", for messages */
    /* open: the input is positioned at chunk first_chunk; read up to and
     * including last_chunk (UINT64_MAX: to the end); write only message
     * bytes [win_lo, win_hi). seal: first_chunk = 0, the rest unused. */
    uint64_t first_chunk, last_chunk;
    uint64_t win_lo, win_hi;
    uint64_t total;          /* input bytes expected (progress), 0: unknown */
    int threads;             /* worker threads, >= 1 */
    int progress;            /* 0/1 */
    /* results */
    int fmt_err;             /* RIJN_SEAL_E* that stopped it, or 0 */
    uint64_t fmt_chunk;      /* the chunk it was found at */
    uint64_t msg_end;        /* open: message length, once the final chunk
                              * authenticated (UINT64_MAX before) */
    uint64_t written;        /* bytes written to out_fd */
};

/*
 * Seal or open the chunks. Every chunk of the output is written in order
 * and only after it authenticated (open); at the first failure nothing
 * more is written and -1 is returned: with r->fmt_err set for a format
 * error (the caller reports it), or after a message (I/O errors).
 */
int seal_run_data(struct seal_run *r);

/* Read n bytes, fewer only at the end of the input (EINTR-safe); the
 * count, or -1 with errno. */
ssize_t seal_read_full(int fd, unsigned char *p, size_t n);
/* Write all n bytes (EINTR-safe); 0, or -1 with errno. */
int seal_write_all(int fd, const unsigned char *p, size_t n);

#endif /* RIJN_TOOL_SEAL_H */
