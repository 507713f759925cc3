/*
 * `rijn enc`: declarations shared by its source files.
 *
 *   enc.c       the flow: options -> input -> password -> key/IV -> output
 *               -> data; the openssl-compatible messages
 *   args.c      option parsing (openssl enc's syntax), hex rules,
 *               password sources, usage text
 *   b64.c       the data source and sink: raw, or through base64
 *   kdf.c       PBKDF2 with its blocks on several threads
 *   engine.c    the data phase: picks an I/O engine (engine.h), the
 *               error bookkeeping of their threads
 *   file_engine.c    regular file -> our temporary file, in parallel
 *   stream_engine.c  pipes and the rest: pipelined reader and writer
 *   simple_loop.c    small regular files: one thread, one buffer
 * The output file (temporary file + rename), the signal handlers, the
 * progress line and the password prompt are in ../common, shared with
 * `rijn seal` and `rijn open`.
 */
#ifndef RIJN_TOOL_ENC_H
#define RIJN_TOOL_ENC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "hash/hash.h"
#include "rijn.h"

/* ---- options (args.c) -------------------------------------------------- */

struct enc_opts {
    size_t key_len;          /* 16, 24, 32; 0 until a cipher is named */
    const char *cipher;      /* "aes-128-ctr", ...; NULL if none */
    const char *bad_cipher;  /* last cipher option that is not AES-CTR */
    int enc;                 /* 1 encrypt (default), 0 decrypt */
    const char *in_path, *out_path;  /* NULL: stdin / stdout */
    const char *hkey, *hiv, *hsalt;  /* -K, -iv, -S */
    char *pass;              /* -k or -kfile (owned, wiped) */
    const char *passarg;     /* -pass source */
    int pbkdf2;
    unsigned long iter;      /* 0: not given */
    const rijn_hash_alg *md;      /* NULL: sha256 */
    int nosalt;
    int printkey;            /* 0, 1 (-p), 2 (-P) */
    int verbose;
    int base64, olb64;       /* -a, -A */
    long bufsize;            /* -bufsize (only reported; default 8192) */
    int list;                /* -list / -ciphers */
    int threads;             /* 0: automatic */
    int progress;            /* -1 automatic, 0 off, 1 on */
    const char *impl;        /* -impl name */
};

/* Returns 0 to go on, 1 on error (message printed), 2 if help was
 * printed. argv[0] is "enc" or a cipher name ("aes-128-ctr"). */
int enc_parse_args(struct enc_opts *o, int argc, char **argv);
void enc_usage(FILE *f);

/*
 * openssl's set_hex(): `size` bytes from hex, zero-padded when short (with
 * its warning), truncated when long (with its warning), an odd digit count
 * leaves the last nibble high. Returns 0, or -1 after "non-hex digit".
 */
int enc_set_hex(const char *hex, unsigned char *out, size_t size);

/*
 * Read a password from an openssl -pass source (pass:, env:, file:, fd:,
 * stdin). Returns a malloc'ed string, or NULL after openssl's message.
 */
char *enc_pass_from_source(const char *arg);

/* Prompt on the terminal (or stdin/stderr without one), verifying when
 * encrypting. Returns malloc'ed, or NULL (*quiet set if the user entered
 * an empty password: exit 1 without a message, like openssl). */
char *enc_pass_prompt(const char *cipher_upper, int enc, int *quiet);

/* ---- source, sink, base64 (b64.c) -------------------------------------- */

struct enc_b64enc;   /* base64 writer state */
struct enc_b64dec;   /* base64 reader state */

/*
 * The input side: a file descriptor, optionally through a base64 decoder.
 * enc_src_read() returns bytes (>0), 0 at end, -1 after a message.
 */
struct enc_src {
    int fd;
    const char *name;
    uint64_t raw_read;        /* bytes read from fd (for -v) */
    struct enc_b64dec *b64;   /* NULL: raw */
};
ssize_t enc_src_read(struct enc_src *s, unsigned char *buf, size_t cap);
/* Read exactly n bytes unless the input ends; returns bytes read or -1. */
ssize_t enc_src_read_full(struct enc_src *s, unsigned char *buf, size_t n);

/* The output side: a descriptor, optionally through a base64 encoder. */
struct enc_dst {
    int fd;
    const char *name;
    uint64_t raw_written;     /* bytes written to fd (for -v) */
    struct enc_b64enc *b64;   /* NULL: raw */
};
int enc_dst_write(struct enc_dst *d, const unsigned char *p, size_t n);
int enc_dst_finish(struct enc_dst *d);   /* base64 tail; 0 or -1 */
/* Base64 on one line (-A): write out the whole groups encoded so far, as
 * openssl's base64 BIO does with what it was given (0 or -1). */
int enc_dst_flush_groups(struct enc_dst *d);

int enc_b64_setup(struct enc_src *s, struct enc_dst *d, int encrypting,
                  int single_line);
void enc_b64_free(struct enc_src *s, struct enc_dst *d);

/* ---- the data phase (engine.c and the engines, engine.h) --------------- */

struct enc_teardown;

/* Data phase: out = in XOR keystream, keystream offset 0 at the first
 * data byte. */
struct enc_run {
    const rijn_aes_ctr_ctx *ctx;  /* keyed, at offset 0 */
    struct enc_src *src;
    struct enc_dst *dst;
    int out_is_tmp;               /* dst->fd is our fresh regular file */
    int threads;                  /* >= 1 */
    int progress;                 /* 0/1 */
    struct enc_teardown *teardown; /* set by enc_run_data: see enc_run_end */
};
int enc_run_data(struct enc_run *r);
/* After enc_run_data and output_close: wait for the data phase's
 * last clean-up (it runs in the background while the output is renamed
 * into place). */
void enc_run_end(struct enc_run *r);

/* ---- the rest ---------------------------------------------------------- */

/* Write all n bytes to fd (EINTR-safe); 0 or -1 with errno (b64.c). */
int enc_write_all(int fd, const unsigned char *p, size_t n);

/* kdf.c: PBKDF2 (rijn_hash_pbkdf2) with its output blocks spread
 * over up to `threads` threads. */
void enc_pbkdf2(const rijn_hash_alg *alg, const unsigned char *pass,
                size_t pass_len, const unsigned char *salt, size_t salt_len,
                unsigned long iter, unsigned char *out, size_t out_len,
                int threads);

#endif /* RIJN_TOOL_ENC_H */
