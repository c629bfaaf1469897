/*
 * eval.h - static evaluation from the board's pattern counts.
 *
 * The board keeps, per side, how many (empty point, direction) pairs hold
 * each line pattern and how many empty points hold each threat level; the
 * evaluation is a weighted difference of those counts, so it costs a few
 * dozen multiply-adds whatever the position. Tactics (fives, fours, forced
 * replies) are the search's business; this only values shape.
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

/* The weights, for the tuner (tools/tune_eval.c): own[] and opp[] get
 * P_COUNT pattern weights then T_COUNT threat weights each. */
void eval_weights(double *own, double *opp, double *tempo);

#endif
