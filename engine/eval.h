/*
 * eval.h - static evaluation from pattern combination codes.
 *
 * Every empty point has, per side, the code of its four line patterns
 * (pattern.h); a table learned from self-play games (eval_tables.h) gives
 * each code a value for the side to move and one for the side that waits.
 * The board keeps the sums of those values up to date on every play and
 * undo, so the evaluation is a subtraction whatever the position. A second
 * table adds a value by the threat flags of both sides (which threats one
 * move makes: a five, a straight four, a four-three, a four, a double
 * three, an open three), read from the board's threat counts. Tactics
 * (fives, fours, forced replies) are the search's business; this only values
 * shape.
 */
#ifndef GOMOKUD_EVAL_H
#define GOMOKUD_EVAL_H

#include "board.h"
#include "eval_tables.h"

/* Upper bound on |eval_static|, well below the search's mate scores. */
#define EVAL_MAX 20000

/* The threat flags of one side: which threats one move of its own makes
 * somewhere on the board, from the board's counts. */
enum {
    EVAL_FLAG_FIVE = 1,  /* a five (it has a four) */
    EVAL_FLAG_F4 = 2,    /* a straight four or a double four */
    EVAL_FLAG_B4F3 = 4,  /* a four-three */
    EVAL_FLAG_B4 = 8,    /* a plain four */
    EVAL_FLAG_F3X2 = 16, /* a double three */
    EVAL_FLAG_F3 = 32,   /* an open three */
};

static inline unsigned eval_flags(const Board *b, Color side)
{
    const int *t = b->tcount[side - 1];
    return (t[T_FIVE] > 0 ? EVAL_FLAG_FIVE : 0) | (t[T_F4] > 0 ? EVAL_FLAG_F4 : 0) |
           (t[T_B4F3] > 0 ? EVAL_FLAG_B4F3 : 0) | (t[T_B4] + t[T_B4P] > 0 ? EVAL_FLAG_B4 : 0) |
           (t[T_F3X2] > 0 ? EVAL_FLAG_F3X2 : 0) | (t[T_F3] + t[T_F3P] > 0 ? EVAL_FLAG_F3 : 0);
}

/* Index of eval_threat_value: the side to move's flags, then the other's. */
static inline unsigned eval_threat_mask(const Board *b)
{
    return eval_flags(b, b->to_move) | eval_flags(b, OPPONENT(b->to_move)) << EVAL_FLAG_BITS;
}

/* Value of the position for the side to move (positive is good for it). */
Score eval_static(const Board *b);

/* The same, given the board's eval_threat_mask (for a caller that needs
 * the mask too). */
Score eval_static_masked(const Board *b, unsigned mask);

/* Value of one side's shape alone, from that side's counts, as the side
 * without the move. */
Score eval_side(const Board *b, Color side);

#endif
