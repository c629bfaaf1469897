/* eval.c - pattern-count evaluation (see eval.h). */
#include "eval.h"

/* Weight of one (empty point, direction) pair on which a side would make the
 * pattern by playing there. An open three shows up as two or three F4
 * pairs, a four as one F5 pair, and so on. */
enum {
    W_B1 = 0, /* lone stones are valued through the twos they allow */
    W_F1 = 0,
    W_B2 = 4,
    W_F2 = 10,
    W_F2A = 14,
    W_B3 = 12,
    W_F3 = 28,
    W_F3S = 36,
    W_B4 = 32,
    W_F4 = 70,
    W_F44 = 70,
    W_F5 = 120,
};

/* Extra weight of an empty point by the threat it gives, on top of its
 * lines: points that combine threats are what wins games. */
enum {
    WT_F2X2 = 12,
    WT_F3P = 30,
    WT_B4P = 40,
    WT_F3X2 = 120,
    WT_B4F3 = 200,
    WT_F4 = 250,
};

/* The side to move realises its threats first; its shape is worth more. */
#define EVAL_TEMPO_NUM 5
#define EVAL_TEMPO_DEN 4
#define EVAL_TEMPO_BONUS 8

static const int pattern_weight[P_COUNT] = {
    [P_B1] = W_B1, [P_F1] = W_F1, [P_B2] = W_B2, [P_F2] = W_F2,  [P_F2A] = W_F2A, [P_B3] = W_B3,
    [P_F3] = W_F3, [P_F3S] = W_F3S, [P_B4] = W_B4, [P_F4] = W_F4, [P_F44] = W_F44, [P_F5] = W_F5,
};

static const int threat_weight[T_COUNT] = {
    [T_F2X2] = WT_F2X2, [T_F3P] = WT_F3P,   [T_B4P] = WT_B4P,
    [T_F3X2] = WT_F3X2, [T_B4F3] = WT_B4F3, [T_F4] = WT_F4,
};

Score eval_side(const Board *b, Color side)
{
    const int *pc = b->pcount[side - 1], *tc = b->tcount[side - 1];
    Score s = 0;
    for (int p = 0; p < P_COUNT; p++) s += pattern_weight[p] * pc[p];
    for (int t = 0; t < T_COUNT; t++) s += threat_weight[t] * tc[t];
    return s;
}

Score eval_static(const Board *b)
{
    Score own = eval_side(b, b->to_move), opp = eval_side(b, OPPONENT(b->to_move));
    Score v = own * EVAL_TEMPO_NUM / EVAL_TEMPO_DEN - opp + EVAL_TEMPO_BONUS;
    if (v > EVAL_MAX) v = EVAL_MAX;
    if (v < -EVAL_MAX) v = -EVAL_MAX;
    return v;
}
