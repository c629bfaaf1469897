/* errors.h - the error-message helper the server modules share. */
#ifndef GOMOKUD_SERVER_ERRORS_H
#define GOMOKUD_SERVER_ERRORS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* Writes a printf-style message into err (errlen bytes; either may be
 * 0/NULL) and returns false, so callers can `return server_fail(...)`. */
static inline bool server_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline bool server_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return false;
}

#endif
