/*
 * fuzz_check.h - what the fuzz harnesses and their regression test share.
 *
 * Each harness keeps its per-input logic in a header (request_check.h,
 * move_check.h, pbrain_check.h) so that tests/test_fuzz_regressions.c can
 * replay the seed corpus and every saved crash through exactly the same
 * checks. A failed check calls FUZZ_FAIL(what): in a fuzzer it prints what
 * and traps, so libFuzzer saves the input as a crash; the test defines
 * FUZZ_FAIL as a Criterion failure before including these headers.
 */
#ifndef GOMOKUD_FUZZ_CHECK_H
#define GOMOKUD_FUZZ_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef FUZZ_FAIL
#define FUZZ_FAIL(what) (fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", (what), __FILE__, __LINE__), __builtin_trap())
#endif

#define FUZZ_CHECK(cond, what)            \
    do {                                  \
        if (!(cond)) FUZZ_FAIL(what);     \
    } while (0)

/* ASCII lower case, whatever the locale. */
static inline char fuzz_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* True when every byte of s is printable ASCII (0x20..0x7e). */
static inline bool fuzz_printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e) return false;
    return true;
}

/* True when s is well-formed UTF-8 by RFC 3629: shortest forms only, no
 * UTF-16 surrogates, nothing above U+10FFFF. Written independently of the
 * validator in api/request.c so the two can disagree. */
static inline bool fuzz_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char b = *p;
        if (b < 0x80) {
            p++;
            continue;
        }
        /* lead byte ranges and the allowed range of the first continuation */
        int n;
        unsigned char lo = 0x80, hi = 0xbf;
        if (b >= 0xc2 && b <= 0xdf) n = 1;
        else if (b == 0xe0) n = 2, lo = 0xa0;
        else if (b >= 0xe1 && b <= 0xec) n = 2;
        else if (b == 0xed) n = 2, hi = 0x9f;
        else if (b >= 0xee && b <= 0xef) n = 2;
        else if (b == 0xf0) n = 3, lo = 0x90;
        else if (b >= 0xf1 && b <= 0xf3) n = 3;
        else if (b == 0xf4) n = 3, hi = 0x8f;
        else return false;
        p++;
        if (*p < lo || *p > hi) return false;
        p++;
        for (int i = 1; i < n; i++, p++)
            if (*p < 0x80 || *p > 0xbf) return false;
    }
    return true;
}

/* True when data[0..size) holds a byte below 0x20 other than the four JSON
 * blanks (space is above). cJSON skips every such byte as white space
 * between tokens while the body-level checks in api/request.c only skip the
 * blanks, so differential checks leave these inputs out. */
static inline bool fuzz_has_odd_control(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if (data[i] < 0x20 && data[i] != '\t' && data[i] != '\n' && data[i] != '\r') return true;
    return false;
}

#endif
