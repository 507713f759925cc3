/*
 * The output of the commands that write a file (enc, seal, open), and the
 * signal handlers that clean up after them (output.c, signals.c).
 */
#ifndef RIJN_TOOL_OUTPUT_H
#define RIJN_TOOL_OUTPUT_H

#include <sys/stat.h>

struct output {
    int fd;
    const char *who;      /* the command, first word of its messages */
    const char *name;     /* for messages */
    char *final;          /* rename target (regular file), or NULL */
    int is_regular_tmp;   /* fd is a fresh temporary regular file */
    const char *in_place; /* why a regular file is overwritten in place
                           * instead of replaced, or NULL */
    int atomic_only;      /* OUTPUT_ATOMIC_ONLY was given */
};

/* output_open flag: refuse (with a message) a regular file that would have
 * to be written in place; its old contents then stay untouched whatever
 * happens later (`rijn open` releases nothing unverified). */
#define OUTPUT_ATOMIC_ONLY 1

/*
 * Open the output (path NULL: standard output) once every argument is
 * checked and the input is open; refuses the input file itself (in_st,
 * or NULL). A regular file is written to a temporary file renamed over it
 * by output_close, unless that would not be the same file afterwards
 * (other hard links, an owner we cannot give a new file) or no file can
 * be created next to it: then it is truncated and written in place, as
 * openssl does (or refused, with OUTPUT_ATOMIC_ONLY in flags). Returns 0,
 * or -1 after a message "rijn: <who>: ...".
 */
int output_open(struct output *o, const char *who, const char *path,
                const struct stat *in_st, int flags);
/* Finish: rename into place when ok, else remove the temporary file (or
 * say that a file written in place is incomplete). 0 or -1. */
int output_close(struct output *o, int ok);
/* Async-signal-safe: remove the temporary file being written, if any
 * (the signal handlers call it). */
void output_abandon(void);

/* Remove the temporary file on SIGINT, SIGTERM, SIGHUP and SIGBUS (which
 * ends the process with "rijn: <who>: a mapped file changed ..."); ignore
 * SIGPIPE, so that a closed pipe is a write error (signals.c). who must
 * stay valid. */
void signals_install(const char *who);

#endif /* RIJN_TOOL_OUTPUT_H */
