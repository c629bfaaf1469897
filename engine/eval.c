/* eval.c - evaluation by pattern combination codes (see eval.h). */
#include "eval.h"

Score eval_static(const Board *b)
{
    int me = b->to_move - 1, op = 1 - me;
    int set = eval_set(b->rule, b->to_move);
    Score v = b->esum[me][EVAL_MOVER] - b->esum[op][EVAL_WAITER] + eval_tempo[set] + eval_threat_value[set][eval_threat_mask(b)];
    if (v > EVAL_MAX) v = EVAL_MAX;
    if (v < -EVAL_MAX) v = -EVAL_MAX;
    return v;
}

Score eval_side(const Board *b, Color side) { return b->esum[side - 1][EVAL_WAITER]; }
