/*
 * The vector-file reader of the test suites: "Name = value" records
 * separated by blank lines, "[SECTION]" headers (the last one is kept) and
 * "#" comments; the first line must be a "# Provenance:" line. With
 * bare_flags, a line of one word ("FAIL" in the CAVP GCM files) is an
 * attribute with an empty value. A record attribute that the test did not
 * consume is an error (rd_all_used), so a misspelt or new field cannot be
 * ignored. Errors are reported with tu_fail and set r->error.
 */
#ifndef RIJN_TEST_READER_H
#define RIJN_TEST_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RD_MAX_ATTRS 16

typedef struct {
    char name[32];
    char *value; /* malloc'd */
    int used;
} rd_attr;

typedef struct {
    FILE *f;
    const char *path;  /* for messages */
    int line;          /* current line number */
    int rec_line;      /* first line of the current record */
    char section[64];  /* without brackets; "" before any header */
    rd_attr attrs[RD_MAX_ATTRS];
    int nattrs;
    int error;
    int bare_flags;
    char *buf;         /* the current line (getline) */
    size_t cap;
} reader;

/* Open `path` (shown as `name` in messages); 0, or -1 (reported). */
int rd_open(reader *r, const char *path, const char *name, int bare_flags);
void rd_close(reader *r);
/* Read the next record: 1 = got one, 0 = end of file, -1 = error. */
int rd_next(reader *r);
/* The value of attribute `name` (marked consumed), or NULL with an error. */
const char *rd_get(reader *r, const char *name);
/* The same, but NULL without an error when the record has no such one. */
const char *rd_opt(reader *r, const char *name);
/* Decode hex attribute `name`; returns its length or -1 (error reported). */
long rd_hex(reader *r, const char *name, uint8_t *out, size_t cap);
/* Every attribute must have been consumed by the test. */
int rd_all_used(reader *r);
/* The record's label (COUNT, Count or SECTION), consumed, for messages. */
const char *rd_label(reader *r, char *buf, size_t n);

#endif /* RIJN_TEST_READER_H */
