/*
 * move_check.h - the move parsers of engine/board.h against arbitrary text.
 *
 * The input, cut at its first NUL byte, is parsed on every board size from
 * 5 to 25 by move_parse, move_parse_notation and move_parse_xy. Checked:
 *   - move_parse takes the "x,y" reading for a leading digit and the
 *     notation reading otherwise;
 *   - a parsed point lies on the board;
 *   - notation is accepted only in its one written form: the lower-cased
 *     input equals move_to_notation of the point (no sign, no leading zero,
 *     nothing after it), and "x,y" is digits{1,2} ',' spaces digits{1,2}
 *     naming the same x and y;
 *   - round trips: move_to_notation and move_to_xy of the point parse back
 *     to it, through move_parse as well;
 *   - a point parsed on one size parses on every larger size too, at the
 *     same x,y (for "x,y") or the same column and row (notation).
 * The first two bytes, read as a Move, are also printed with both printers
 * into buffers of exactly the documented sizes (4 and 6 bytes) so that
 * AddressSanitizer sees any overflow; a printed point must parse back.
 */
#ifndef GOMOKUD_FUZZ_MOVE_CHECK_H
#define GOMOKUD_FUZZ_MOVE_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "engine/board.h"
#include "fuzz/fuzz_check.h"

#define FUZZ_MOVE_TEXT_MAX 64

static inline bool fuzz_move_on(Move m, int size)
{
    return m != MOVE_NONE && MOVE_X(m) >= 0 && MOVE_Y(m) >= 0 && MOVE_X(m) < size && MOVE_Y(m) < size;
}

/* Reads "x,y" the strict way the documentation describes: one or two
 * digits, a comma, any spaces, one or two digits, the end. */
static inline bool fuzz_move_xy_shape(const char *s, int *x, int *y)
{
    int v[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        int digits = 0;
        if (k == 1)
            while (*s == ' ') s++;
        for (; *s >= '0' && *s <= '9'; s++, digits++)
            if (digits < 2) v[k] = v[k] * 10 + (*s - '0');
        if (digits < 1 || digits > 2) return false;
        if (k == 0 && *s++ != ',') return false;
    }
    if (*s) return false;
    *x = v[0];
    *y = v[1];
    return true;
}

/* A point printed both ways must parse back to itself on this size. */
static inline void fuzz_move_round_trip(Move m, int size)
{
    char *note = malloc(4), *xy = malloc(6);
    FUZZ_CHECK(note && xy, "out of memory");
    move_to_notation(m, size, note);
    move_to_xy(m, xy);
    FUZZ_CHECK(move_parse_notation(note, size) == m, "move_to_notation does not parse back");
    FUZZ_CHECK(move_parse(note, size) == m, "move_to_notation does not parse back through move_parse");
    FUZZ_CHECK(move_parse_xy(xy, size) == m, "move_to_xy does not parse back");
    FUZZ_CHECK(move_parse(xy, size) == m, "move_to_xy does not parse back through move_parse");
    free(note);
    free(xy);
}

/* Prints an arbitrary Move into exactly sized buffers; what is printed is
 * either "-" or a point that parses back. */
static inline void fuzz_move_print_any(Move m)
{
    char *note = malloc(4), *xy = malloc(6);
    FUZZ_CHECK(note && xy, "out of memory");
    for (int size = BOARD_MIN_SIZE; size <= BOARD_MAX_SIZE; size++) {
        move_to_notation(m, size, note);
        if (fuzz_move_on(m, size)) FUZZ_CHECK(move_parse_notation(note, size) == m, "printed notation of an arbitrary move");
        else FUZZ_CHECK(!strcmp(note, "-"), "a move off the board prints as something other than '-'");
    }
    move_to_xy(m, xy);
    if (fuzz_move_on(m, BOARD_MAX_SIZE)) FUZZ_CHECK(move_parse_xy(xy, BOARD_MAX_SIZE) == m, "printed x,y of an arbitrary move");
    else FUZZ_CHECK(!strcmp(xy, "-"), "a move off the board prints as x,y");
    free(note);
    free(xy);
}

/* Checks one input (see the top of this file). */
static inline void fuzz_move_input(const uint8_t *data, size_t size)
{
    if (size >= 2) {
        uint16_t raw = (uint16_t)(data[0] | data[1] << 8);
        Move m;
        memcpy(&m, &raw, sizeof m);
        fuzz_move_print_any(m);
    }
    if (size > FUZZ_MOVE_TEXT_MAX) size = FUZZ_MOVE_TEXT_MAX;
    /* an exactly sized NUL-terminated copy, so over-reads are caught */
    char *s = malloc(size + 1);
    FUZZ_CHECK(s, "out of memory");
    if (size) memcpy(s, data, size);
    s[size] = 0;

    Move prev_xy = MOVE_NONE, prev_note = MOVE_NONE;
    int prev_note_size = 0;
    for (int n = BOARD_MIN_SIZE; n <= BOARD_MAX_SIZE; n++) {
        Move any = move_parse(s, n), note = move_parse_notation(s, n), xy = move_parse_xy(s, n);
        bool digit = s[0] >= '0' && s[0] <= '9';
        FUZZ_CHECK(any == (digit ? xy : note), "move_parse picks the wrong reading");
        FUZZ_CHECK(note == MOVE_NONE || xy == MOVE_NONE, "text parses both as notation and as x,y");

        if (note != MOVE_NONE) {
            FUZZ_CHECK(fuzz_move_on(note, n), "notation parses to a point off the board");
            char buf[8];
            move_to_notation(note, n, buf);
            size_t len = strlen(s);
            bool same = len == strlen(buf);
            for (size_t i = 0; same && i < len; i++) same = fuzz_lower(s[i]) == buf[i];
            FUZZ_CHECK(same, "accepted notation is not the canonical form of its point");
            fuzz_move_round_trip(note, n);
            if (prev_note != MOVE_NONE)
                FUZZ_CHECK(MOVE_X(note) == MOVE_X(prev_note) && n - MOVE_Y(note) == prev_note_size - MOVE_Y(prev_note),
                           "notation names another column or row on a larger board");
            prev_note = note;
            prev_note_size = n;
        } else {
            FUZZ_CHECK(prev_note == MOVE_NONE, "notation accepted on a smaller board is refused on a larger one");
        }

        if (xy != MOVE_NONE) {
            int x, y;
            FUZZ_CHECK(fuzz_move_on(xy, n), "x,y parses to a point off the board");
            FUZZ_CHECK(fuzz_move_xy_shape(s, &x, &y), "x,y accepted in a shape the documentation does not allow");
            FUZZ_CHECK(MOVE_X(xy) == x && MOVE_Y(xy) == y, "x,y parses to another point");
            fuzz_move_round_trip(xy, n);
            if (prev_xy != MOVE_NONE) FUZZ_CHECK(xy == prev_xy, "x,y names another point on a larger board");
            prev_xy = xy;
        } else {
            int x, y;
            FUZZ_CHECK(prev_xy == MOVE_NONE, "x,y accepted on a smaller board is refused on a larger one");
            if (fuzz_move_xy_shape(s, &x, &y))
                FUZZ_CHECK(x >= n || y >= n, "a well-formed x,y on the board is refused");
        }
    }
    free(s);
}

#endif
