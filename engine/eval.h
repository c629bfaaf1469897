/*
 * eval.h - static evaluation from pattern combination codes.
 *
 * Every empty point has, per side, the code of its four line patterns
 * (pattern.h); a table learned from self-play games (eval_tables.h) gives
 * each code a value for the side to move and one for the side that waits.
 * The board keeps the sums of those values up to date on every play and
 * undo, so the evaluation is a subtraction whatever the position. Tactics
 * (fives, fours, forced replies) are the search's business; this only values
 * shape.
 */
#ifndef GOMOKUD_EVAL_H
#define GOMOKUD_EVAL_H

#include "board.h"

/* Upper bound on |eval_static|, well below the search's mate scores. */
#define EVAL_MAX 20000

/* Value of the position for the side to move (positive is good for it). */
Score eval_static(const Board *b);

/* Value of one side's shape alone, from that side's counts, as the side
 * without the move. */
Score eval_side(const Board *b, Color side);

#endif
