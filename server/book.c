/* book.c - reads the opening book a setting names (see book.h). */
#include "server/book.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOOK_MAX_BYTES (64u << 20)

bool book_load(const char *spec, EngineBook **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!spec || !*spec) return true;
    char why[160];
    if (!strcmp(spec, BOOK_BUILTIN)) {
        *out = engine_book_parse((const char *)book_data, book_data_len, why, sizeof why);
        if (!*out) snprintf(err, errlen, "the built-in book: %s", why);
        return *out != NULL;
    }
    FILE *f = fopen(spec, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read '%s': %s", spec, strerror(errno));
        return false;
    }
    char *buf = malloc(BOOK_MAX_BYTES);
    size_t n = buf ? fread(buf, 1, BOOK_MAX_BYTES, f) : 0;
    bool too_big = buf && n == BOOK_MAX_BYTES;
    bool read_err = ferror(f);
    fclose(f);
    if (!buf || too_big || read_err) {
        snprintf(err, errlen, "'%s': %s", spec,
                 !buf ? "out of memory" : too_big ? "larger than 64 MiB" : "read error");
        free(buf);
        return false;
    }
    *out = engine_book_parse(buf, n, why, sizeof why);
    free(buf);
    if (!*out) snprintf(err, errlen, "'%s' is not a book: %s", spec, why);
    return *out != NULL;
}
