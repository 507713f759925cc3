/* The vector-file reader of the test suites; see reader.h. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include "reader.h"

#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void rd_error(reader *r, const char *msg, const char *detail)
{
    tu_fail("%s:%d: %s%s%s", r->path, r->line, msg, detail ? ": " : "",
            detail ? detail : "");
    r->error = 1;
}

static char *trim(char *s)
{
    char *e;
    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
                     e[-1] == '\r'))
        *--e = '\0';
    return s;
}

static void clear_attrs(reader *r)
{
    for (int i = 0; i < r->nattrs; i++) {
        free(r->attrs[i].value);
        r->attrs[i].value = NULL;
    }
    r->nattrs = 0;
}

int rd_open(reader *r, const char *path, const char *name, int bare_flags)
{
    memset(r, 0, sizeof *r);
    r->path = name;
    r->bare_flags = bare_flags;
    r->f = fopen(path, "r");
    if (r->f == NULL) {
        tu_fail("cannot open %s", path);
        r->error = 1;
        return -1;
    }
    return 0;
}

void rd_close(reader *r)
{
    clear_attrs(r);
    free(r->buf);
    r->buf = NULL;
    if (r->f != NULL)
        fclose(r->f);
    r->f = NULL;
}

static int add_attr(reader *r, const char *name, const char *value)
{
    if (*name == '\0' || strlen(name) >= sizeof r->attrs[0].name) {
        rd_error(r, "bad attribute name", name);
        return -1;
    }
    for (int i = 0; i < r->nattrs; i++) {
        if (strcmp(r->attrs[i].name, name) == 0) {
            rd_error(r, "duplicate attribute", name);
            return -1;
        }
    }
    if (r->nattrs == RD_MAX_ATTRS) {
        rd_error(r, "too many attributes in one record", name);
        return -1;
    }
    if (r->nattrs == 0)
        r->rec_line = r->line;
    strcpy(r->attrs[r->nattrs].name, name);
    r->attrs[r->nattrs].value = strdup(value);
    if (r->attrs[r->nattrs].value == NULL) {
        rd_error(r, "out of memory", NULL);
        return -1;
    }
    r->attrs[r->nattrs].used = 0;
    r->nattrs++;
    return 0;
}

int rd_next(reader *r)
{
    ssize_t got;

    clear_attrs(r);
    while ((got = getline(&r->buf, &r->cap, r->f)) >= 0) {
        char *s = trim(r->buf), *eq;

        r->line++;
        if (r->line == 1) {
            if (strncmp(s, "# Provenance:", 13) != 0) {
                rd_error(r, "first line is not a \"# Provenance:\" line",
                         NULL);
                return -1;
            }
            continue;
        }
        if (*s == '#')
            continue;
        if (*s == '\0') {
            if (r->nattrs > 0)
                return 1;
            continue;
        }
        if (*s == '[') {
            size_t m = strlen(s);
            if (r->nattrs > 0) {
                rd_error(r, "section header inside a record", s);
                return -1;
            }
            if (s[m - 1] != ']' || m - 2 >= sizeof r->section) {
                rd_error(r, "bad section header", s);
                return -1;
            }
            memcpy(r->section, s + 1, m - 2);
            r->section[m - 2] = '\0';
            continue;
        }
        eq = strchr(s, '=');
        if (eq == NULL) {
            if (r->bare_flags && strchr(s, ' ') == NULL) {
                if (add_attr(r, s, "") != 0)
                    return -1;
                continue;
            }
            rd_error(r, "expected \"Name = value\"", s);
            return -1;
        }
        *eq = '\0';
        if (add_attr(r, trim(s), trim(eq + 1)) != 0)
            return -1;
    }
    if (ferror(r->f)) {
        rd_error(r, "read error", NULL);
        return -1;
    }
    return r->nattrs > 0 ? 1 : 0;
}

const char *rd_opt(reader *r, const char *name)
{
    for (int i = 0; i < r->nattrs; i++) {
        if (strcmp(r->attrs[i].name, name) == 0) {
            r->attrs[i].used = 1;
            return r->attrs[i].value;
        }
    }
    return NULL;
}

const char *rd_get(reader *r, const char *name)
{
    const char *v = rd_opt(r, name);
    if (v == NULL) {
        tu_fail("%s:%d: record has no %s attribute", r->path, r->rec_line,
                name);
        r->error = 1;
    }
    return v;
}

long rd_hex(reader *r, const char *name, uint8_t *out, size_t cap)
{
    const char *v = rd_get(r, name);
    long n;
    if (v == NULL)
        return -1;
    n = tu_unhex(out, cap, v);
    if (n < 0) {
        tu_fail("%s:%d: %s is not valid hex of at most %zu bytes", r->path,
                r->rec_line, name, cap);
        r->error = 1;
    }
    return n;
}

int rd_all_used(reader *r)
{
    int ok = 1;
    for (int i = 0; i < r->nattrs; i++) {
        if (!r->attrs[i].used) {
            tu_fail("%s:%d: unknown attribute \"%s\" in [%s] record", r->path,
                    r->rec_line, r->attrs[i].name, r->section);
            r->error = 1;
            ok = 0;
        }
    }
    return ok;
}

const char *rd_label(reader *r, char *buf, size_t n)
{
    for (int i = 0; i < r->nattrs; i++) {
        if (strcmp(r->attrs[i].name, "COUNT") == 0 ||
            strcmp(r->attrs[i].name, "Count") == 0 ||
            strcmp(r->attrs[i].name, "SECTION") == 0) {
            r->attrs[i].used = 1;
            snprintf(buf, n, "%s %s", r->attrs[i].name, r->attrs[i].value);
            return buf;
        }
    }
    snprintf(buf, n, "line %d", r->rec_line);
    return buf;
}
