/*
 * The messages every command prints (tool.h): "rijn: ..." on stderr, and
 * the spelling of a help option. In a file of their own so that the fuzz
 * targets that link the tool's sources (tests/fuzz/cli_targets.cmake) use
 * these and not a copy; they set tool_quiet to keep their logs readable.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tool.h"

int tool_quiet;

void tool_verr(const char *fmt, va_list ap)
{
    if (tool_quiet)
        return;
    fflush(stdout);
    fputs("rijn: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void tool_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tool_verr(fmt, ap);
    va_end(ap);
}

int tool_is_help(const char *s)
{
    return strcmp(s, "-h") == 0 || strcmp(s, "-help") == 0 ||
           strcmp(s, "--help") == 0;
}
