/* movegen.c - candidates, forced replies, ordering scores (see movegen.h). */
#include "movegen.h"

#include "rules.h"

#define WIN_SCORE 1000000 /* the one move when the side to move makes five */
#define CENTRE_WEIGHT 1 /* per step nearer the centre (Chebyshev) */
#define CANDIDATE_REACH 3 /* the near counts reach three points from a stone */

int32_t movegen_score(const Board *b, Move m)
{
    Color me = b->to_move;
    const int32_t(*policy)[2] = eval_policy[eval_set(b->rule, me)];
    const Cell *cell = &b->cell[m];
    int32_t v = policy[cell->code[me - 1]][POLICY_ATTACK] + policy[cell->code[2 - me]][POLICY_DEFEND];
    int c = b->size / 2, dx = MOVE_X(m) - c, dy = MOVE_Y(m) - c;
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    int dist = dx > dy ? dx : dy;
    return v + CENTRE_WEIGHT * (BOARD_MAX_SIZE - dist);
}

/* Whether four packed direction patterns hold two open threes or more. */
static bool two_open_threes(unsigned pat4)
{
    int threes = 0;
    for (int d = 0; d < 4; d++) {
        unsigned p = pat4 >> (4 * d) & 15;
        threes += p == P_F3 || p == P_F3S;
    }
    return threes >= 2;
}

static bool maybe_double_three(const Board *b, Move m) { return two_open_threes(b->cell[m].pat4[BLACK - 1]); }

bool movegen_forbidden(Board *b, Move m)
{
    if (b->rule != RULE_RENJU) return false;
    Threat t = board_threat(b, m, BLACK);
    if (t == T_FORBID) return true;
    if (t == T_FIVE || !maybe_double_three(b, m)) return false;
    return rules_is_forbidden(b, m);
}

static inline bool legal_for_mover(Board *b, Move m)
{
    return !(b->rule == RULE_RENJU && b->to_move == BLACK && movegen_forbidden(b, m));
}

/* The empty points near stones, inside the stones' bounding box widened by
 * the reach of the near counts, in board order. Returns the count. */
static int candidates(const Board *b, Move *out)
{
    int x0 = b->x0 - CANDIDATE_REACH, x1 = b->x1 + CANDIDATE_REACH;
    int y0 = b->y0 - CANDIDATE_REACH, y1 = b->y1 + CANDIDATE_REACH;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 >= b->size) x1 = b->size - 1;
    if (y1 >= b->size) y1 = b->size - 1;
    int n = 0;
    for (int y = y0; y <= y1; y++)
        for (Move m = MOVE_XY(x0, y), end = MOVE_XY(x1, y); m <= end; m++)
            if (board_candidate(b, m)) out[n++] = m;
    return n;
}

static int add(Board *b, ScoredMove *out, int n, Move m)
{
    if (!legal_for_mover(b, m)) return n;
    out[n].move = m;
    out[n].score = movegen_score(b, m);
    return n + 1;
}

/* Points in the union of side a's kinds ka and side c's kinds kc (TK_* bit
 * masks), in board order; returns the count. */
static int kind_points(const Board *b, Color a, unsigned ka, Color c, unsigned kc, Move *out)
{
    int n = 0, first, last;
    board_threat_words(b, &first, &last);
    for (int i = first; i <= last; i++) {
        uint64_t w = 0;
        for (int k = 0; k < TK_COUNT; k++) {
            if (ka >> k & 1) w |= b->tbits[a - 1][k][i];
            if (kc >> k & 1) w |= b->tbits[c - 1][k][i];
        }
        for (; w; w &= w - 1) out[n++] = (Move)(i * 64 + __builtin_ctzll(w));
    }
    return n;
}

/* One of side's straight-four points pts[np] that no stone off its four
 * lines (or farther than a line pattern reaches) can take away: one whose
 * pattern such a stone cannot touch and, for renju black, that no far stone
 * can make forbidden (with fewer than two open threes through it, the
 * real-three check never looks far). MOVE_NONE when there is none. */
static Move fixed_open_four_point(const Board *b, Color side, const Move *pts, int np)
{
    for (int i = 0; i < np; i++) {
        if (b->rule == RULE_RENJU && side == BLACK) {
            if (maybe_double_three(b, pts[i]) || board_threat(b, pts[i], BLACK) == T_FORBID) continue;
        }
        return pts[i];
    }
    return MOVE_NONE;
}

/* The direction d and signed distance k (1..5) with m == p + k * board_dir[d];
 * false when m is not on a line through p within a pattern's reach. */
static bool line_offset(Move p, Move m, int *d, int *k)
{
    int dx = MOVE_X(m) - MOVE_X(p), dy = MOVE_Y(m) - MOVE_Y(p);
    int n = dx ? dx : dy; /* steps along board_dir[d] */
    if (n == 0 || n > PATTERN_HALF || n < -PATTERN_HALF) return false;
    if (dy == 0) *d = 0;
    else if (dx == 0) *d = 1;
    else if (dx == dy) *d = 2;
    else if (dx == -dy) *d = 3;
    else return false;
    if (*d == 3) n = dy; /* board_dir[3] steps one row down and one column left */
    *k = n;
    return true;
}

/* True when m is p or on one of the four lines through p within a line
 * pattern's reach of it. */
static bool in_reach(Move m, Move p)
{
    int d, k;
    return m == p || line_offset(p, m, &d, &k);
}

static bool stops_when_played(Board *b, Move m, Color opp)
{
    board_play(b, m);
    bool stops = !movegen_has_open_four_point(b, opp);
    board_undo(b);
    return stops;
}

/* Whether a stone of the side to move at m leaves the opponent no straight
 * four point (it has pts[np] now), read from the patterns instead of playing m where that is
 * certain. A stone changes patterns only along its four lines, so each
 * straight-four point is re-read in the one direction that m touches. A
 * defender's stone never gives the attacker a new straight four, except in
 * renju, where a block can free one of black's forbidden double fours; and
 * black's straight four may be a forbidden double three, which only the
 * board can tell. Those cases are played. */
static bool stops_every_open_four(Board *b, Move m, Color opp, const Move *pts, int np)
{
    bool renju_black = b->rule == RULE_RENJU && opp == BLACK;
    Color me = OPPONENT(opp);
    int d, k;
    for (int i = 0; i < np; i++) {
        Move q = pts[i];
        if (q == m) continue;
        const Cell *c = &b->cell[q];
        unsigned pat4 = c->pat4[opp - 1];
        if (line_offset(q, m, &d, &k)) {
            uint32_t key = c->key[d] | (uint32_t)me << pattern_key_shift(k);
            pat4 = (pat4 & ~(15u << (4 * d))) | (unsigned)pattern_of(b->rule, key, opp) << (4 * d);
            if (threat_of((uint16_t)pat4, renju_black) != T_F4) continue;
        }
        if (!renju_black || !two_open_threes(pat4)) return false;
        return stops_when_played(b, m, opp);
    }
    if (renju_black)
        for (d = 0; d < 4; d++)
            for (k = -PATTERN_HALF; k <= PATTERN_HALF; k++) {
                const Cell *c = &b->cell[m + k * board_dir[d]];
                if (k && c->stone == EMPTY && c->threat[0] == T_FORBID) return stops_when_played(b, m, opp);
            }
    return true;
}

int movegen_defences(Board *b, ScoredMove *out, Threat min_four)
{
    Color me = b->to_move, opp = OPPONENT(me);
    Move pts[BOARD_MAX_MOVES];
    int np = kind_points(b, me, 1u << TK_FOUR, opp, 1u << TK_FOUR, pts), n = 0, nall = 0;
    ScoredMove all[BOARD_MAX_MOVES];
    Move f4[BOARD_MAX_MOVES]; /* the opponent's straight-four points */
    int nf4 = board_threat_points(b, opp, TK_OPEN4, f4, BOARD_MAX_MOVES);
    /* a point out of reach of this straight-four point leaves it, so it
     * need not be tried */
    Move fixed = fixed_open_four_point(b, opp, f4, nf4);
    for (int i = 0; i < np; i++) {
        Move m = pts[i];
        if (!legal_for_mover(b, m)) continue;
        ScoredMove sm = {.move = m, .score = movegen_score(b, m)};
        all[nall++] = sm;
        /* an own four (of min_four or more) gains a tempo; any other point
         * must really stop every straight four the opponent threatens */
        Threat t = board_threat(b, m, me);
        bool keep = threat_is_four(t) && t >= min_four;
        if (!keep && (fixed == MOVE_NONE || in_reach(m, fixed))) keep = stops_every_open_four(b, m, opp, f4, nf4);
        if (keep) out[n++] = sm;
    }
    if (n == 0) /* nothing holds: every answer loses, so keep them all to be searched */
        for (int i = 0; i < nall; i++) out[n++] = all[i];
    return n;
}

int movegen_five_points(const Board *b, Color side, Move *out, int max)
{
    if (!b->tcount[side - 1][T_FIVE]) return 0;
    return board_threat_points(b, side, TK_FIVE, out, max);
}

bool movegen_has_open_four_point(Board *b, Color side)
{
    if (!b->tcount[side - 1][T_F4]) return false;
    if (b->rule != RULE_RENJU || side != BLACK) return true;
    Move pts[BOARD_MAX_MOVES];
    int np = board_threat_points(b, side, TK_OPEN4, pts, BOARD_MAX_MOVES);
    for (int i = 0; i < np; i++)
        if (!movegen_forbidden(b, pts[i])) return true;
    return false;
}

Move movegen_any_legal(Board *b)
{
    Move cand[BOARD_MAX_MOVES];
    int nc = candidates(b, cand);
    for (int i = 0; i < nc; i++)
        if (legal_for_mover(b, cand[i])) return cand[i];
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            Move m = MOVE_XY(x, y);
            if (b->cell[m].stone == EMPTY && legal_for_mover(b, m)) return m;
        }
    return MOVE_NONE;
}

int movegen(Board *b, ScoredMove *out, GenKind *kind)
{
    Color me = b->to_move, opp = OPPONENT(me);
    int n = 0;
    Move pts[BOARD_MAX_MOVES];
    if (b->nmoves == 0) {
        *kind = GEN_ALL;
        int c = b->size / 2;
        out[0].move = MOVE_XY(c, c);
        out[0].score = 0;
        return 1;
    }
    if (movegen_five_points(b, me, pts, 1)) {
        *kind = GEN_WIN;
        out[0].move = pts[0];
        out[0].score = WIN_SCORE;
        return 1;
    }
    if (b->tcount[opp - 1][T_FIVE]) {
        *kind = GEN_BLOCK_FIVE;
        int np = movegen_five_points(b, opp, pts, BOARD_MAX_MOVES);
        for (int i = 0; i < np; i++) n = add(b, out, n, pts[i]);
        return n;
    }
    if (b->tcount[opp - 1][T_F4] && movegen_has_open_four_point(b, opp)) {
        *kind = GEN_DEFEND_THREE;
        n = movegen_defences(b, out, T_B4);
        if (n) return n;
    }
    *kind = GEN_ALL;
    int nc = candidates(b, pts);
    for (int i = 0; i < nc; i++) n = add(b, out, n, pts[i]);
    return n;
}

int movegen_threats(Board *b, ScoredMove *out, bool fours_only)
{
    Move pts[BOARD_MAX_MOVES];
    unsigned kinds = 1u << TK_FIVE | 1u << TK_FOUR | (fours_only ? 0 : 1u << TK_THREE);
    int np = kind_points(b, b->to_move, kinds, b->to_move, 0, pts), n = 0;
    for (int i = 0; i < np; i++) n = add(b, out, n, pts[i]);
    return n;
}

void movegen_sort(ScoredMove *m, int n)
{
    for (int i = 1; i < n; i++) {
        ScoredMove x = m[i];
        int j = i - 1;
        while (j >= 0 && (m[j].score < x.score || (m[j].score == x.score && m[j].move > x.move))) {
            m[j + 1] = m[j];
            j--;
        }
        m[j + 1] = x;
    }
}
