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
    int sync;             /* OUTPUT_SYNC was given */
    int unnamed;          /* fd is an unnamed file (O_TMPFILE), linked
                           * into place by output_close */
    int existed;          /* final existed when the output was opened */
    char *dir;            /* final's directory, or NULL */
};

/* output_open flag: refuse (with a message) a regular file that would have
 * to be written in place; its old contents then stay untouched whatever
 * happens later (`rijn open` releases nothing unverified). */
#define OUTPUT_ATOMIC_ONLY 1
/* output_open flag: a file that replaces the target (or appears) is
 * fsync()ed before it gets the target's name, and the directory after,
 * so that after a crash the name never points at a short file. */
#define OUTPUT_SYNC 2

/*
 * Open the output (path NULL: standard output) once every argument is
 * checked and the input is open; refuses the input file itself (in_st,
 * or NULL). A regular file is written to a temporary file (unnamed where
 * the file system has O_TMPFILE, else .NAME.rijn-XXXXXX) put in its place
 * by output_close, unless that would not be the same file afterwards
 * (other hard links, an owner we cannot give a new file) or no file can
 * be created next to it: then it is truncated and written in place, as
 * openssl does (or refused, with OUTPUT_ATOMIC_ONLY in flags). Returns 0,
 * or -1 after a message "rijn: <who>: ...".
 */
int output_open(struct output *o, const char *who, const char *path,
                const struct stat *in_st, int flags);
/* Finish: put the file in place when ok (OUTPUT_SYNC: synced first),
 * else remove the temporary file (or say that a file written in place is
 * incomplete). 0 or -1. A stop signal held while the file got its name
 * (output_defer_signal) is raised before it returns. */
int output_close(struct output *o, int ok);
/* Async-signal-safe: remove the named temporary file being written, if
 * any (the signal handlers call it). */
void output_abandon(void);
/* Async-signal-safe: 1 if the output is being given its name (two system
 * calls): then the stop signal sig is recorded, to be raised by
 * output_close once that is done, and the handler must return; else 0. */
int output_defer_signal(int sig);

/* Remove the temporary file on SIGINT, SIGTERM, SIGHUP and SIGBUS (which
 * ends the process with "rijn: <who>: a mapped file changed ..."); ignore
 * SIGPIPE, so that a closed pipe is a write error, and SIGXFSZ, so that a
 * write over the file size limit (ulimit -f) is an EFBIG write error
 * (signals.c). who must stay valid. */
void signals_install(const char *who);

#endif /* RIJN_TOOL_OUTPUT_H */
