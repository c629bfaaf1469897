/* eval.c - evaluation by pattern combination codes (see eval.h). */
#include "eval.h"

Score eval_static(const Board *b) { return eval_static_masked(b, eval_threat_mask(b)); }

Score eval_static_masked(const Board *b, unsigned mask)
{
    int me = b->to_move - 1, op = 1 - me;
    int set = eval_set(b->rule, b->to_move);
    Score v = b->esum[me][EVAL_MOVER] - b->esum[op][EVAL_WAITER] + eval_tempo[set] + eval_threat_value[set][mask];
    if (v > EVAL_MAX) v = EVAL_MAX;
    if (v < -EVAL_MAX) v = -EVAL_MAX;
    return v;
}

Score eval_side(const Board *b, Color side) { return b->esum[side - 1][EVAL_WAITER]; }
