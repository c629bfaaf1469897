/* eval.c - pattern-count evaluation (see eval.h). */
#include "eval.h"

/*
 * Weights of one (empty point, direction) pair on which a side would make
 * the pattern by playing there (an open three shows up as two or three F4
 * pairs, a four as one F5 pair, and so on), and of one empty point by the
 * threat it gives on top of its lines. The side to move realises its
 * threats first, so its shape has weights of its own; a tempo bonus is
 * added for having the move.
 */
static const int own_pattern[P_COUNT] = {
    [P_B2] = 3, [P_F2] = 13, [P_F2A] = 11, [P_B3] = 17, [P_F3] = 37, [P_F3S] = 46, [P_B4] = 41, [P_F4] = 88,
    [P_F44] = 88, [P_F5] = 150,
};
static const int opp_pattern[P_COUNT] = {
    [P_F2] = 10, [P_F2A] = 3, [P_B3] = 14, [P_F3] = 29, [P_F3S] = 36, [P_B4] = 33, [P_F4] = 70, [P_F44] = 70,
    [P_F5] = 120,
};
static const int own_threat[T_COUNT] = {
    [T_F2] = -6, [T_B3] = 2, [T_F2X2] = 14, [T_F3] = 1, [T_F3P] = 39, [T_B4P] = 50, [T_F3X2] = 150,
    [T_B4F3] = 250, [T_F4] = 313,
};
static const int opp_threat[T_COUNT] = {
    [T_F2] = -6, [T_B3] = 1, [T_F2X2] = 10, [T_F3] = 1, [T_F3P] = 30, [T_B4P] = 40, [T_F3X2] = 120,
    [T_B4F3] = 200, [T_F4] = 250,
};
#define EVAL_TEMPO 8

static Score weighted(const Board *b, Color side, const int *pw, const int *tw)
{
    const int *pc = b->pcount[side - 1], *tc = b->tcount[side - 1];
    Score s = 0;
    for (int p = 0; p < P_COUNT; p++) s += pw[p] * pc[p];
    for (int t = 0; t < T_COUNT; t++) s += tw[t] * tc[t];
    return s;
}

Score eval_side(const Board *b, Color side) { return weighted(b, side, opp_pattern, opp_threat); }

Score eval_static(const Board *b)
{
    Color me = b->to_move;
    Score v = weighted(b, me, own_pattern, own_threat) - weighted(b, OPPONENT(me), opp_pattern, opp_threat) + EVAL_TEMPO;
    if (v > EVAL_MAX) v = EVAL_MAX;
    if (v < -EVAL_MAX) v = -EVAL_MAX;
    return v;
}

void eval_weights(double *own, double *opp, double *tempo)
{
    for (int p = 0; p < P_COUNT; p++) own[p] = own_pattern[p], opp[p] = opp_pattern[p];
    for (int t = 0; t < T_COUNT; t++) own[P_COUNT + t] = own_threat[t], opp[P_COUNT + t] = opp_threat[t];
    *tempo = EVAL_TEMPO;
}
