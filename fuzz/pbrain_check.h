/*
 * pbrain_check.h - the Gomocup protocol state machine of api/pbrain.h
 * against arbitrary sessions.
 *
 * One input is a session: its lines (split at '\n', at most
 * FUZZ_PB_LINES of them and none after the FUZZ_PB_SEARCHES-th search,
 * each passed as an exactly sized NUL-terminated copy, so a CR or a NUL
 * byte inside stays part of the line) are fed to a new Pbrain in its
 * synchronous mode (threaded = false: every search runs inside pbrain_feed,
 * no thread is left behind). Checked:
 *   - every reply line is printable ASCII (no CR or LF that would break the
 *     protocol's framing), shorter than the brain's reply buffer, and is one
 *     of the protocol's replies: OK, ERROR ..., UNKNOWN ..., MESSAGE ...,
 *     FORBID ..., the ABOUT line, or a move "x,y" on a 25x25 board;
 *   - pbrain_feed returns PBRAIN_QUIT only for a line whose first word is
 *     END, always for a line of END alone, and again for a line after it;
 *   - everything is freed (LeakSanitizer) and nothing reads or writes out
 *     of bounds (AddressSanitizer, UBSan).
 * Every search is kept small so that one input runs in milliseconds: the
 * session starts with INFO max_node / max_depth / timeout_turn caps, and
 * after any line that mentions one of those keys with a value outside the
 * caps (or one that turns the limit off, 0 or negative), the cap is sent
 * again. A line mentioning max_memory with a value over FUZZ_PB_MEMORY_MAX
 * bytes is replaced by "INFO max_memory 0" before it is fed, since the
 * brain sizes its transposition table from it at once (up to 1 GiB).
 */
#ifndef GOMOKUD_FUZZ_PBRAIN_CHECK_H
#define GOMOKUD_FUZZ_PBRAIN_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "api/pbrain.h"
#include "engine/board.h"
#include "fuzz/fuzz_check.h"

#define FUZZ_PB_LINES 1000   /* enough for a BOARD of more lines than points */
#define FUZZ_PB_SEARCHES 24 /* searches answered before the rest of a session is dropped */
#define FUZZ_PB_NODE_CAP 300
#define FUZZ_PB_DEPTH_CAP 2
#define FUZZ_PB_TIME_CAP 1000              /* ms per turn: a backstop, the node cap binds first */
#define FUZZ_PB_MEMORY_MAX (40ull << 20)   /* gives at most an 8 MiB table */
#define FUZZ_PB_REPLY_MAX 4096             /* the brain's reply buffer */

typedef struct {
    int replies;
    int moves;    /* "x,y" replies */
    int searches; /* moves and the errors a search or its set-up answers with */
} FuzzPbrainOut;

static bool fuzz_pb_starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* "x,y" with 0 <= x, y < 25, one or two digits each, nothing else. */
static bool fuzz_pb_is_move(const char *s)
{
    int v[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        int digits = 0;
        for (; *s >= '0' && *s <= '9'; s++, digits++)
            if (digits < 2) v[k] = v[k] * 10 + (*s - '0');
        if (digits < 1 || digits > 2) return false;
        if (k == 0 && *s++ != ',') return false;
    }
    return !*s && v[0] < BOARD_MAX_SIZE && v[1] < BOARD_MAX_SIZE;
}

/* "FORBID " then four-digit xxyy groups, then ".". */
static bool fuzz_pb_is_forbid(const char *s)
{
    s += strlen("FORBID ");
    size_t n = strlen(s);
    if (!n || s[n - 1] != '.' || (n - 1) % 4) return false;
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

static void fuzz_pb_write(void *ctx, const char *line)
{
    FuzzPbrainOut *out = ctx;
    FUZZ_CHECK(line, "a NULL reply line");
    FUZZ_CHECK(strlen(line) < FUZZ_PB_REPLY_MAX, "a reply line longer than the reply buffer");
    FUZZ_CHECK(fuzz_printable(line), "a reply line with bytes other than printable ASCII (framing broken)");
    out->replies++;
    if (line[0] >= '0' && line[0] <= '9') {
        FUZZ_CHECK(fuzz_pb_is_move(line), "a reply starting with a digit is not a move x,y");
        out->moves++;
        out->searches++;
    } else if (fuzz_pb_starts(line, "FORBID ")) {
        FUZZ_CHECK(fuzz_pb_is_forbid(line), "a malformed FORBID reply");
    } else {
        if (fuzz_pb_starts(line, "ERROR cannot analyse") || fuzz_pb_starts(line, "ERROR no legal move"))
            out->searches++;
        FUZZ_CHECK(!strcmp(line, "OK") || fuzz_pb_starts(line, "ERROR ") || fuzz_pb_starts(line, "UNKNOWN ") ||
                       fuzz_pb_starts(line, "MESSAGE ") || fuzz_pb_starts(line, "name=\""),
                   "a reply that is no protocol reply");
    }
}

/* Case-insensitive: does s contain word? */
static bool fuzz_pb_mentions(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && fuzz_lower(s[i]) == word[i]) i++;
        if (i == n) return true;
    }
    return false;
}

/* True when no '-' is in s and every run of digits in s has a value in
 * lo..hi (a line without digits sets nothing). */
static bool fuzz_pb_numbers_within(const char *s, uint64_t lo, uint64_t hi)
{
    if (strchr(s, '-')) return false;
    while (*s) {
        if (*s < '0' || *s > '9') {
            s++;
            continue;
        }
        uint64_t v = 0;
        for (; *s >= '0' && *s <= '9'; s++) v = v > hi ? v : v * 10 + (uint64_t)(*s - '0');
        if (v < lo || v > hi) return false;
    }
    return true;
}

static void fuzz_pb_send(Pbrain *pb, const char *line)
{
    FUZZ_CHECK(pbrain_feed(pb, line) == PBRAIN_CONTINUE, "a cap line ended the session");
}

/* Sends the search caps again after a line that may have lifted them. */
static void fuzz_pb_recap(Pbrain *pb, const char *line)
{
    char buf[64];
    if (fuzz_pb_mentions(line, "max_node") && !fuzz_pb_numbers_within(line, 1, FUZZ_PB_NODE_CAP)) {
        snprintf(buf, sizeof buf, "INFO max_node %d", FUZZ_PB_NODE_CAP);
        fuzz_pb_send(pb, buf);
    }
    if (fuzz_pb_mentions(line, "max_depth") && !fuzz_pb_numbers_within(line, 1, FUZZ_PB_DEPTH_CAP)) {
        snprintf(buf, sizeof buf, "INFO max_depth %d", FUZZ_PB_DEPTH_CAP);
        fuzz_pb_send(pb, buf);
    }
    if (fuzz_pb_mentions(line, "timeout_turn") && !fuzz_pb_numbers_within(line, 0, FUZZ_PB_TIME_CAP)) {
        snprintf(buf, sizeof buf, "INFO timeout_turn %d", FUZZ_PB_TIME_CAP);
        fuzz_pb_send(pb, buf);
    }
}

static bool fuzz_pb_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/* May line end the session: is its first word (after the white space the
 * brain trims) END, in any case? While a BOARD diagram is read only a line
 * of END alone ends it, so "END x" may or may not. */
static bool fuzz_pb_may_end(const char *s)
{
    while (fuzz_pb_space(*s)) s++;
    if (fuzz_lower(s[0]) != 'e' || fuzz_lower(s[1]) != 'n' || fuzz_lower(s[2]) != 'd') return false;
    return !s[3] || fuzz_pb_space(s[3]);
}

/* Must line end the session: is it END alone, white space aside, and not
 * over PBRAIN_LINE_MAX characters before its line end? */
static bool fuzz_pb_must_end(const char *s)
{
    size_t len = strlen(s);
    while (len && (s[len - 1] == '\n' || s[len - 1] == '\r')) len--;
    if (len > PBRAIN_LINE_MAX || !fuzz_pb_may_end(s)) return false;
    while (fuzz_pb_space(*s)) s++;
    for (s += 3; *s; s++)
        if (!fuzz_pb_space(*s)) return false;
    return true;
}

/* Checks one session (see the top of this file); engine_init() must have
 * been called. Returns how many reply lines the brain sent, and fills
 * *stats with the counts when stats is not NULL. */
static int fuzz_pbrain_input(const uint8_t *data, size_t size, FuzzPbrainOut *stats)
{
    FuzzPbrainOut local, *out = stats ? stats : &local;
    memset(out, 0, sizeof *out);
    PbrainOptions opt = {.threaded = false, .tt_mib = 1};
    Pbrain *pb = pbrain_new(&opt, fuzz_pb_write, out);
    FUZZ_CHECK(pb, "pbrain_new failed");
    char buf[64];
    snprintf(buf, sizeof buf, "INFO max_node %d", FUZZ_PB_NODE_CAP);
    fuzz_pb_send(pb, buf);
    snprintf(buf, sizeof buf, "INFO max_depth %d", FUZZ_PB_DEPTH_CAP);
    fuzz_pb_send(pb, buf);
    snprintf(buf, sizeof buf, "INFO timeout_turn %d", FUZZ_PB_TIME_CAP);
    fuzz_pb_send(pb, buf);
    FUZZ_CHECK(out->replies == 0, "the cap lines got replies");

    size_t at = 0;
    for (int n = 0; at < size && n < FUZZ_PB_LINES && out->searches < FUZZ_PB_SEARCHES; n++) {
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
        char *line = malloc(len + 1);
        FUZZ_CHECK(line, "out of memory");
        memcpy(line, data + at, len);
        line[len] = 0;
        at += len + (nl ? 1 : 0);

        const char *feed = line;
        if (fuzz_pb_mentions(line, "max_memory") && !fuzz_pb_numbers_within(line, 0, FUZZ_PB_MEMORY_MAX))
            feed = "INFO max_memory 0";
        PbrainStatus st = pbrain_feed(pb, feed);
        FUZZ_CHECK(st != PBRAIN_QUIT || fuzz_pb_may_end(feed), "PBRAIN_QUIT on a line that is not END");
        FUZZ_CHECK(st == PBRAIN_QUIT || !fuzz_pb_must_end(feed), "END did not end the session");
        if (st != PBRAIN_QUIT) fuzz_pb_recap(pb, feed);
        free(line);
        if (st == PBRAIN_QUIT) {
            /* the brain stays quit whatever comes next; nothing more to feed */
            FUZZ_CHECK(pbrain_feed(pb, "ABOUT") == PBRAIN_QUIT, "the brain woke up after END");
            break;
        }
    }
    pbrain_wait(pb); /* returns at once without threads; part of the contract */
    FUZZ_CHECK(!pbrain_busy(pb), "a synchronous brain is still busy");
    pbrain_free(pb);
    return out->replies;
}

#endif
