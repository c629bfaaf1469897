/* search.c - iterative deepening PVS/NegaScout with threat-space search (see search.h). */
#include "search.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval.h"
#include "movegen.h"
#include "rules.h"

/* ---- tunables: every pruning, reduction and extension constant ---- */
#define ASPIRATION_DELTA 40       /* first aspiration half-window */
#define ASPIRATION_MAX_TRIES 3    /* then the full window */
#define POLL_MASK 255             /* check limits every 256 nodes */
/* time: no new iteration after this share (percent) of the optimum time
 * (Limits.optimum_ms, by default OPTIMUM_TIME_PCT of a time limit)... */
#define OPTIMUM_TIME_PCT 70
#define SOFT_TIME_PCT 70
#define SOFT_TIME_UNSTABLE_PCT 100 /* ...after a new best move or a score drop */
#define SOFT_TIME_STABLE_PCT 50   /* ...once the best move held SOFT_TIME_STABLE_ITERS iterations */
#define SOFT_TIME_STABLE_ITERS 4
#define SOFT_TIME_SCORE_DROP 30
#define PRUNE_BASE 8              /* quiet nodes keep at most PRUNE_BASE + PRUNE_PER_DEPTH * depth moves */
#define PRUNE_PER_DEPTH 4
/* step 5, reverse futility: a non-PV node whose eval beats beta by a margin */
#define RFP_MAX_DEPTH 6
#define RFP_MARGIN 70             /* per ply */
#define RFP_IMPROVING 30          /* less margin when the eval improves */
/* step 6, razoring: a node whose eval is far below alpha drops to the quiescence */
#define RAZOR_MAX_DEPTH 2
#define RAZOR_MARGIN 150          /* + RAZOR_MARGIN_SQ * depth^2 */
#define RAZOR_MARGIN_SQ 60
/* step 8, move-count pruning: once a non-losing move is found, a quiet node
 *    stops after (LMP_BASE + depth^1.3) / (2 - improving) moves; the side's
 *    fours, double threes and threes with a second threat stay (a single
 *    open three does not: see the reductions below) */
#define LMP_MAX_DEPTH 10
#define LMP_BASE 3.0
#define LMP_EXP 1.3
/* step 8, late move reductions of the moves weaker than an open three with
 *    a second threat (quiet moves, a single open three, a point where the
 *    opponent would make a three):
 *    r = LMR_BASE + ln(depth) * ln(move number) / LMR_DIV, nearer
 *    Rapfi's ln(depth) * ln(move number) than the / 2 of quiet moves alone
 *    before (20 s + 0.5 s a move against that, two opening sets: freestyle
 *    70-45-5 and 74-40-6, renju 63-47-10 and 60-51-9, 58.8% of 480) */
#define LMR_MIN_DEPTH 2
#define LMR_BASE 0.0
#define LMR_DIV 1.3
#define LMR_HISTORY_DIV 4096      /* one ply less per this much history */
#define LMR_CUT_NODE 2            /* more at an expected cut node, for a move that is not a killer */
#define LMR_NOT_IMPROVING 1       /* more at a non-PV node whose eval does not improve, when r > 1 */
/* ...and in a move to play, one ply less per LMR_CORRECTION_DIV of the
 *    correction history's change to the node's eval (an eval the search
 *    keeps correcting is one to trust less, as Stockfish's correction
 *    term); analysis keeps its trees, which the tests' mates need */
#define LMR_CORRECTION_DIV 256
/* ...and in a move to play, a four that blocks no four of the opponent's
 *    and makes no open three (an idle four) is reduced like the moves
 *    above, and a single open three that follows the side's own three or
 *    more two plies before (a continued attack, as Rapfi's) a ply less.
 *    These two together: docs/engine.md, stop 91 */
#define LMR_CONTINUED_ATTACK 1
/* ...and in a move to play, a PV node whose alpha a move raised (depth
 *    ALPHA_RAISED_MIN_DEPTH to ALPHA_RAISED_MAX_DEPTH, the score within
 *    ALPHA_RAISED_MAX_SCORE) searches its later moves a ply shallower, as
 *    Rapfi and Stockfish do. These three together: docs/engine.md, stop 90 */
#define ALPHA_RAISED_MIN_DEPTH 3
#define ALPHA_RAISED_MAX_DEPTH 11
#define ALPHA_RAISED_MAX_SCORE 2000
#define FAIL_HIGH_MARGIN 15       /* per ply: a cut node this far above beta reduces moves weaker than a four */
/* step 7, ProbCut: at a non-PV node of PROBCUT_MIN_DEPTH or more whose
 *    eval beats beta, a child search PROBCUT_REDUCTION plies shallower of
 *    one of the first PROBCUT_MOVES moves that make or block an open three
 *    or more (search_probcut_candidate) that beats beta by PROBCUT_MARGIN
 *    stands for the node's result (against the version before, 20 s + 0.5 s
 *    a move, two opening sets a rule: 462-390-28, 54.1% of 880; the threat
 *    moves only, against the first three moves of any kind, on new
 *    openings: 689-624-49, 52.4% of 1,362). A move to play starts it at
 *    depth 4 instead of 5, so that depth-4 nodes try the threat moves'
 *    quiescence too (freestyle +40 Elo over 600 games, renju +19 over 300:
 *    docs/engine.md, stop 77); analysis keeps depth 5, where depth 4 lost
 *    a mate in 10 that the tests ask for within 800,000 nodes */
#define PROBCUT_MIN_DEPTH 5
#define PROBCUT_MIN_DEPTH_PLAY 4
#define PROBCUT_REDUCTION 4
#define PROBCUT_MARGIN 200
#define PROBCUT_MOVES 3
/* extensions */
#define EXTENSION_MAX_PLY 96      /* no forced-reply extensions beyond this ply */
/* threat quiescence (step 2, below the horizon) */
#define QS_MAX_PLY 12
#define QS_DEFEND_PLIES 4         /* open threes are answered only this near the horizon */
/* every four at the first plies of the quiescence: freestyle 1 (the
 * replying side's bare four mostly puts off its answer: against 2, 20 s +
 * 0.5 s a move, freestyle 116-98-26 and 121-100-19, 54.1% of 480; 54.6%
 * of 240 on an older version), the other rules 2 (in renju a white bare
 * four can force black's block onto a forbidden point: there 1 scored
 * 73-90-10, stopped after 173) */
#define QS_ALL_FOURS_PLIES_FREESTYLE 1
#define QS_ALL_FOURS_PLIES 2
#define QS_NEAR_PLIES 2           /* from this ply on, a side's fours only near its own last move */
#define QS_DEFEND_MIN_FOUR T_B4P  /* against an open three, an own four that blocks nothing must make a two or more */
#define QS_LIKELY_LOST (-SCORE_MATE_MIN + 1) /* ...and where every such answer is mated, the score: no proof */
#define ROOT_VCF_NODES 200000     /* VCF budget at the root, for each side */
#define ROOT_VCF_PLIES 225        /* as long as a VCF can be on 15x15 */
#define ROOT_VCT_NODES 150000     /* VCT budget at the root, before the main search */
#define ROOT_THREAT_NODES_PER_DEPTH2 4000 /* a depth limit d caps root budgets at this * d * d */
#define ROOT_VCT_PLIES 25        /* VCT length limit: a move to play, and analysis in renju and standard */
/* ...and in freestyle analysis: threes and fours on 15x15 freestyle often
 * win only in 15 to 20 moves. On 157 freestyle positions of our games
 * against Rapfi where its 0.4-s search first announced a forced win, a
 * 1.2M-node analysis (about a second) proves 101 instead of 83 (21 that
 * 25 plies did not, 3 the other way; on the 80 proofs both find 30% fewer
 * nodes). In renju 45 plies cost proofs of the suite's VCT puzzles (the
 * public suite at 800,000 nodes 91 instead of 94) and gained 3 of 145 such
 * game positions; a move to play kept 25 (freestyle 47-61-12 with 45 in
 * play, 20 s + 0.5 s a move). */
#define ROOT_VCT_PLIES_FREESTYLE_ANALYSIS 45
#define ROOT_QUIET_PLIES 3        /* the VCT may open with a quiet double-threat move */
#define ROOT_QUIET_MOVES 2        /* ...and make up to this many quiet moves that threaten a VCF in a line */
#define COMPLETE_NODES 100000     /* threat search budget to play a mate's line on to the five */
#define ROOT_DEFENCE_BONUS 50000  /* root order bonus of points on the opponent's VCF */
#define ROOT_REFUTE_NODES 4000    /* budget per root move to see whether it refutes the opponent's VCF or VCT */
#define ROOT_REFUTE_TOTAL_NODES 150000 /* ...and for all of them */
#define ROOT_OPP_VCT_NODES 50000  /* the opponent's VCT at the root (analysis), when it has no VCF */
#define ROOT_THREAT_TIME_PCT 15   /* root threat searches stop at this share of a time limit */
/* ...and in analysis our own VCF and VCT at this percentage of that share,
 * so the opponent's are looked for too (an undecided VCT of ours goes on
 * later). A move to play keeps the whole share for its own threats and
 * looks only for the opponent's VCF: with its VCT too, 20 s + 0.5 s a
 * move, freestyle 39-37-4 and renju 35-43-2 (48% of 160 games). */
#define ROOT_OWN_THREAT_SHARE 67
/* after the iterative deepening: the move found is checked against the
 * opponent's VCT; a move after which it is proven is replaced by the next
 * root move (those that led earlier iterations come first) */
#define MOVE_CHECK_NODES 40000    /* the opponent's VCT after each move tried */
#define MOVE_CHECK_MOVES 4        /* moves tried at most */
#define MOVE_CHECK_PCT 15         /* share of a time or node limit kept for it */
/* ...and of a move to play's time limit: the check of the move found
 * mostly ends within its first VCT (a median of about 12 ms at 0.5 s a
 * move), so 15% kept back left some 50 ms of each turn unused */
#define MOVE_CHECK_PLAY_TIME_PCT 5
/* ...not in renju: there, 20 s + 0.5 s a move, it scored 101-121-18 against
 * the version without it (freestyle 130-102-8); much later, with the
 * VCT's proof history and steeper ranks, 144-137-11 (51.2% of 292) */
#define MOVE_CHECK_RENJU false
/* when the root VCT ran out of budget undecided, the time the iterative
 * deepening leaves unused goes to it (its proof numbers are still in the
 * table), until LATE_VCT_TIME_PCT of a time limit */
#define LATE_VCT_TIME_PCT 95
#define LATE_VCT_NODES 4000000
/* ...and in analysis (not Limits.play) the iterative deepening itself
 * stops at this share of a time or node limit then, so that the VCT always
 * gets the rest: a position whose threats the root VCT could not settle is
 * where they decide the game. In play that cost about 30 Elo (45% of 240
 * games at 0.5 s a move against the version without it), so there the
 * VCT gets only what the iterations leave. */
#define VCT_OPEN_MAIN_PCT 50
/* correction history: the static eval plus what the search found it
 * missed in positions of the same threat mask, after a last move on the
 * same point, after a last move of the same pattern codes, and after an
 * own last move (two plies back) of the same pattern codes (the two code
 * tables' size: CORR_CODES_BITS, search.h); entries in 1/CORR_GRAIN of a
 * point, saturating at CORR_MAX, each update (best - eval) * depth /
 * CORR_DEPTH_DIV */
#define CORR_GRAIN 16
#define CORR_MAX (256 * CORR_GRAIN)
#define CORR_DEPTH_DIV 8
#define HISTORY_MAX 8192          /* history saturates at +-HISTORY_MAX (gravity update) */
#define HISTORY_BONUS_MAX 1200
#define HISTORY_DIV 32            /* history's weight in quiet-move order */
/* the attack history: threes and plain fours (own threat T_F3 to T_B4P)
 * that cut off at a node without a threat against the side to move, kept
 * apart from the quiet moves' history at the same point, as Rapfi keeps
 * them; those moves are ordered by it */
#define ATTACK_HISTORY_DIV 32     /* its weight in their order */
/* Move order classes: each class outranks every score of the classes below. */
#define ORDER_TT (1 << 30)
#define ORDER_FOUR (1 << 28)      /* a four that also makes a three, or a straight four */
#define ORDER_KILLER (1 << 26)

int64_t search_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline Score mate_in(int ply) { return SCORE_MATE - ply; }
static inline Score mated_in(int ply) { return -SCORE_MATE + ply; }

/* Whether the stop flag is up or the time limit is reached. */
static bool time_up(const Engine *e)
{
    return (e->stop && atomic_load_explicit(e->stop, memory_order_relaxed)) ||
           (e->deadline_ns && search_now_ns() >= e->deadline_ns);
}

static void check_limits(Engine *e)
{
    if (e->first_iteration) return; /* depth 1 always completes: every answer has a searched move */
    if (time_up(e) || (e->node_limit && e->nodes >= e->node_limit)) e->stopped = true;
}

static bool threat_should_stop(void *ctx)
{
    Engine *e = ctx;
    check_limits(e);
    return e->stopped || (e->threat_deadline_ns && search_now_ns() >= e->threat_deadline_ns);
}

/* A threat search on e->board with the engine's proof-number table, not
 * bound by the search's limits. A fresh search forgets earlier searches'
 * numbers (the salt) unless the engine is persistent. */
static ThreatSearch threat_setup(Engine *e, uint64_t budget, int quiet_plies)
{
    return (ThreatSearch){
        .b = &e->board,
        .salt = e->persistent ? 0 : e->tt.search * 0x9E3779B97F4A7C15ull,
        .cache = e->threat_cache,
        .cache_mask = e->threat_mask,
        .answers = e->quiet_answers,
        .answers_mask = e->answers_mask,
        .budget = budget,
        .quiet_plies = quiet_plies,
        .quiet_moves = quiet_plies ? ROOT_QUIET_MOVES : 0,
    };
}

/* Runs a threat search for the side to move on e->board, charging its nodes
 * to the search and stopping with it. Returns plies to the five or 0; then
 * *undecided (may be NULL) says whether budget or time ran out first. */
static int threat_search(Engine *e, bool vct, uint64_t budget, int plies, Move *line, int *len, bool *undecided)
{
    ThreatSearch ts = threat_setup(e, budget, vct ? ROOT_QUIET_PLIES : 0);
    ts.should_stop = threat_should_stop;
    ts.stop_ctx = e;
    if (e->node_limit) {
        if (e->nodes >= e->node_limit) return 0;
        if (e->node_limit - e->nodes < ts.budget) ts.budget = e->node_limit - e->nodes;
    }
    int r = vct ? vct_find(&ts, plies, line, len) : vcf_find(&ts, plies, line, len);
    e->nodes += ts.nodes;
    if (undecided) *undecided = !r && ts.aborted;
    return r;
}

static void pv_set(Engine *e, int ply, const Move *line, int n)
{
    if (ply + n > MAX_PLY) n = MAX_PLY - ply;
    memcpy(&e->pv[ply][ply], line, sizeof(Move) * (size_t)n);
    e->pvlen[ply] = ply + n;
}

static void pv_update(Engine *e, int ply, Move m)
{
    e->pv[ply][ply] = m;
    int n = e->pvlen[ply + 1];
    if (n < ply + 1) n = ply + 1;
    memcpy(&e->pv[ply][ply + 1], &e->pv[ply + 1][ply + 1], sizeof(Move) * (size_t)(n - ply - 1));
    e->pvlen[ply] = n;
}

/* Wins and losses that need no search: a five to make, two fives to stop,
 * a straight four to make against no five, a four-three against no four.
 * Returns true and the score. */
static bool quick_result(Engine *e, int ply, Score *out)
{
    Board *b = &e->board;
    Color me = b->to_move, opp = OPPONENT(me);
    Move m[2];
    if (movegen_five_points(b, me, m, 1)) {
        pv_set(e, ply, m, 1);
        *out = mate_in(ply + 1);
        return true;
    }
    int nf = b->tcount[opp - 1][T_FIVE];
    if (nf >= 2) {
        *out = mated_in(ply + 2);
        return true;
    }
    if (nf == 0 && b->tcount[me - 1][T_F4] && movegen_has_open_four_point(b, me)) {
        *out = mate_in(ply + 3);
        return true;
    }
    /* a four-three against no four of any kind: the four's block cannot make
     * a four either (it was no four point), then the three becomes a
     * straight four. Renju black's straight four might be forbidden: left
     * to the search. */
    const int *ot = b->tcount[opp - 1];
    if (nf == 0 && b->tcount[me - 1][T_B4F3] && !ot[T_B4] && !ot[T_B4P] && !ot[T_B4F3] && !ot[T_F4] &&
        !(b->rule == RULE_RENJU && me == BLACK)) {
        *out = mate_in(ply + 5);
        return true;
    }
    return false;
}

/* Every node starts here: it is counted, the limits are polled, and what
 * needs no search is settled. Returns true with the node's value in *out
 * when the node is done. */
static bool node_settled(Engine *e, int ply, Score *out)
{
    e->pvlen[ply] = ply;
    if (ply > e->seldepth) e->seldepth = ply;
    if (!(++e->nodes & POLL_MASK)) check_limits(e);
    *out = 0;
    if (e->stopped || quick_result(e, ply, out) || board_full(&e->board)) return true;
    if (ply >= MAX_PLY - 1) {
        *out = eval_static(&e->board);
        return true;
    }
    return false;
}

/* Mate distance pruning at a node that node_settled() did not settle:
 * with no five to make, the side to move mates three plies on at the
 * soonest, and it cannot be mated before two plies on (the opponent's
 * five comes after its own move). Narrows (alpha, beta) to that; true
 * when nothing in the window can be reached (the node returns alpha). */
static inline bool mate_distance_prune(int ply, Score *alpha, Score *beta)
{
    if (*alpha < mated_in(ply + 2)) *alpha = mated_in(ply + 2);
    if (*beta > mate_in(ply + 3)) *beta = mate_in(ply + 3);
    return *alpha >= *beta;
}

/* A move's rank in pick(): its score, then the lower point. */
static inline int64_t pick_key(ScoredMove m) { return (int64_t)m.score * 65536 + (65535 - m.move); }

/* Swaps the best of mv[i..n) into mv[i]; ties go to the lower point. */
static void pick(ScoredMove *mv, int n, int i)
{
    int best = i;
    int64_t top = pick_key(mv[i]);
    for (int j = i + 1; j < n; j++) {
        int64_t k = pick_key(mv[j]);
        if (k > top) {
            top = k;
            best = j;
        }
    }
    ScoredMove t = mv[i];
    mv[i] = mv[best];
    mv[best] = t;
}

/* Whether a table entry's bound settles a node searched with (alpha, beta). */
static inline bool tt_cuts(const TTProbe *t, Score alpha, Score beta)
{
    return t->bound == BOUND_EXACT || (t->bound == BOUND_LOWER && t->score >= beta) ||
           (t->bound == BOUND_UPPER && t->score <= alpha);
}

/* Whether m is near a side's last move p (a chain of fours goes on there):
 * in the 5x5 square around p or on one of p's lines within four points. */
static bool near_own(Move m, Move p)
{
    int dx = abs(MOVE_X(m) - MOVE_X(p)), dy = abs(MOVE_Y(m) - MOVE_Y(p));
    return (dx <= 2 && dy <= 2) || ((dx == 0 || dy == 0 || dx == dy) && dx <= 4 && dy <= 4);
}

/* Saturating update of a history or correction entry: moves towards
 * +-max, never past it. */
static inline void gravity_add(int32_t *v, int bonus, int max)
{
    *v += bonus - *v * (bonus < 0 ? -bonus : bonus) / max;
}

/* A move's slot in a code table: the pattern codes its point held for the
 * side that played it (mover) and for the other side, hashed. */
static inline unsigned corr_codes_slot(const BoardUndo *u, int mover)
{
    uint64_t codes = (uint64_t)u->code[mover] * PATTERN_CODES + u->code[1 - mover] + 1;
    return (unsigned)((codes * 0x9E3779B97F4A7C15ull) >> (64 - CORR_CODES_BITS));
}

/* The correction entries of the side to move in the current position
 * (mask: the board's eval_threat_mask): by mask; when there is a last
 * move, by its point and by its pattern codes; when the side to move has
 * a last move too, by that move's pattern codes. Returns how many. */
static inline int corr_entries(Engine *e, unsigned mask, int32_t *entry[4])
{
    const Board *b = &e->board;
    int me = b->to_move - 1;
    Move last = board_last(b);
    entry[0] = &e->corr.mask[me][mask];
    if (last == MOVE_NONE) return 1;
    entry[1] = &e->corr.last[me][last];
    /* what the last move did: the pattern codes its point held for the
     * side that played it and for the side to move; then the same of the
     * side to move's own last move */
    entry[2] = &e->corr.codes[me][corr_codes_slot(&b->history[b->nmoves - 1], 1 - me)];
    if (b->nmoves < 2) return 3;
    entry[3] = &e->corr.own[me][corr_codes_slot(&b->history[b->nmoves - 2], me)];
    return 4;
}

/* The static eval corrected by the correction history. */
static inline Score corrected(Engine *e, Score raw, unsigned mask)
{
    if (e->disable & ENGINE_NO_CORRECTION) return raw;
    int32_t *entry[4], c = 0;
    for (int i = 0, n = corr_entries(e, mask, entry); i < n; i++) c += *entry[i];
    Score v = raw + c / CORR_GRAIN;
    return v > EVAL_MAX ? EVAL_MAX : v < -EVAL_MAX ? -EVAL_MAX : v;
}

/* After a node's search: moves the corrections towards what it found. */
static void corr_update(Engine *e, unsigned mask, int depth, Score best, Score eval)
{
    int bonus = (best - eval) * CORR_GRAIN * depth / CORR_DEPTH_DIV;
    if (bonus > CORR_MAX / 4) bonus = CORR_MAX / 4;
    if (bonus < -CORR_MAX / 4) bonus = -CORR_MAX / 4;
    int32_t *entry[4];
    for (int i = 0, n = corr_entries(e, mask, entry); i < n; i++) gravity_add(entry[i], bonus, CORR_MAX);
}

/*
 * The threat quiescence below the horizon. The side to move that faces a
 * five blocks it; one that faces a straight four to come (an open three)
 * answers with the real defences or fours of its own that also make a two
 * or three (a bare four elsewhere only puts the answer off, past the
 * quiescence's reach); otherwise it may stand pat on the static eval
 * (corrected by the correction history) or
 * play on with fours: every four it finds at the first QS_ALL_FOURS_PLIES
 * plies (QS_ALL_FOURS_PLIES_FREESTYLE in freestyle), later only fours
 * that also make a two or three, and from
 * QS_NEAR_PLIES on only near its own last move (a chain of such fours is
 * how a VCF goes on: in threat-rich positions fours all over the board
 * made a depth-13 iteration ten times larger). Mates found here are real:
 * every reply to a four is forced; where every answer to an open three
 * searched is mated, the node is only likely lost (QS_LIKELY_LOST: a bare
 * four left out may gain the tempo that saves it). Its results go to the
 * transposition table at depth 0, only for positions the table does not
 * hold (so they never replace a main-search entry, and any entry settles a
 * quiescence node its bound allows): a chain of fours transposes often, and
 * this halves the quiescence nodes of the depth-10 bench.
 */
static Score qsearch(Engine *e, int ply, Score alpha, Score beta, int qply)
{
    Board *b = &e->board;
    Score settled;
    if (node_settled(e, ply, &settled)) return settled;
    if (e->disable & ENGINE_NO_HORIZON) return eval_static(b);
    if (mate_distance_prune(ply, &alpha, &beta)) return alpha;

    Color me = b->to_move, opp = OPPONENT(me);
    TTProbe t = {.hit = false, .move = MOVE_NONE};
    if (!(e->disable & ENGINE_NO_TT)) {
        t = tt_probe(&e->tt, b->key, ply);
        if (t.hit && tt_cuts(&t, alpha, beta)) return t.score;
    }
    Score alpha0 = alpha, eval = 0;
    bool stood = false; /* eval is the static eval */
    Move best_move = MOVE_NONE;
    ScoredMove mv[BOARD_MAX_MOVES];
    int n = 0;
    Score best = -SCORE_INF;
    bool defending = false; /* answering an open three, without the bare fours */
    if (b->tcount[opp - 1][T_FIVE]) {
        Move pts[2];
        int np = movegen_five_points(b, opp, pts, 2);
        for (int i = 0; i < np; i++)
            if (!(me == BLACK && movegen_forbidden(b, pts[i]))) mv[n++] = (ScoredMove){.move = pts[i], .score = 0};
        if (n == 0) return mated_in(ply + 2);
    } else if (b->tcount[opp - 1][T_F4] && movegen_has_open_four_point(b, opp)) {
        if (qply >= QS_DEFEND_PLIES) return eval_static(b);
        n = movegen_defences(b, mv, QS_DEFEND_MIN_FOUR);
        if (n == 0) return mated_in(ply + 4);
        defending = true;
    } else {
        unsigned mask = eval_threat_mask(b);
        eval = t.hit ? t.eval : eval_static_masked(b, mask);
        best = corrected(e, eval, mask);
        stood = true;
        if (best >= beta || qply >= QS_MAX_PLY) return best;
        if (best > alpha) alpha = best;
        ScoredMove fours[BOARD_MAX_MOVES];
        int nf = movegen_threats(b, fours, true);
        Move own_last = qply >= QS_NEAR_PLIES ? b->history[b->nmoves - 2].move : MOVE_NONE;
        int all_fours = b->rule == RULE_FREESTYLE ? QS_ALL_FOURS_PLIES_FREESTYLE : QS_ALL_FOURS_PLIES;
        for (int i = 0; i < nf; i++) {
            Threat t = board_threat(b, fours[i].move, me);
            if ((qply < all_fours || t >= T_B4P) && (own_last == MOVE_NONE || near_own(fours[i].move, own_last)))
                mv[n++] = fours[i];
        }
    }
    for (int i = 0; i < n; i++) {
        pick(mv, n, i);
        Move m = mv[i].move;
        tt_prefetch(&e->tt, board_key_after(b, m));
        board_play(b, m);
        Score s = -qsearch(e, ply + 1, -beta, -alpha, qply + 1);
        board_undo(b);
        if (e->stopped) return 0;
        if (s > best) {
            best = s;
            if (s > alpha) {
                alpha = s;
                best_move = m;
                pv_update(e, ply, m);
                if (s >= beta) break;
            }
        }
    }
    /* every answer to the open three searched is mated: the bare fours
     * left out may still gain the tempo that saves the game, so in an
     * analysis this is no proof: likely lost, just outside the mate scores.
     * Searching those fours here instead only put the loss past the
     * quiescence's reach (against the build before, 20 s + 0.5 s a move,
     * freestyle 70-87-3); the main search counts a likely loss as not
     * holding (its candidate cap and move-count pruning wait for a better
     * score; where they did not, 35-44-1). In play it stays a mate: this
     * way there scored 48.8% of 980 games against the build before
     * (freestyle 324-336-20, renju 139-151-10), and a move to play needs
     * no proof. */
    if (defending && !e->play && best <= -SCORE_MATE_MIN && best > -SCORE_INF) best = QS_LIKELY_LOST;
    if (!t.hit && n && !(e->disable & ENGINE_NO_TT)) {
        int bound = best >= beta ? BOUND_LOWER : best > alpha0 ? BOUND_EXACT : BOUND_UPPER;
        tt_store(&e->tt, b->key, ply, best_move, best, stood ? eval : eval_static(b), 0, bound);
    }
    return best;
}

bool search_probcut_candidate(const Board *b, Move m)
{
    return board_threat(b, m, b->to_move) >= T_F3 || board_threat(b, m, OPPONENT(b->to_move)) >= T_F3;
}

/* Reductions by depth and move number, built by search_init(). */
#define LMR_TABLE 64
static int8_t lmr_table[LMR_TABLE][LMR_TABLE];
static int8_t lmp_table[2][LMR_TABLE];

void search_init(void)
{
    for (int d = 1; d < LMR_TABLE; d++)
        for (int i = 1; i < LMR_TABLE; i++) {
            double r = LMR_BASE + log(d) * log(i) / LMR_DIV;
            lmr_table[d][i] = (int8_t)(r < 0 ? 0 : r);
        }
    for (int d = 0; d < LMR_TABLE; d++)
        for (int imp = 0; imp < 2; imp++) lmp_table[imp][d] = (int8_t)((LMP_BASE + pow(d, LMP_EXP)) / (2 - imp));
}

/* The reduction of the n-th move at depth d; both beyond the table read its
 * last row and column. */
static inline int lmr_at(int d, int n)
{
    return lmr_table[d < LMR_TABLE ? d : LMR_TABLE - 1][n < LMR_TABLE ? n : LMR_TABLE - 1];
}

/* A move of the attack history: a three or a four outside the four class
 * (a four-three and a straight four are ordered by class). */
static inline bool is_attack(const Engine *e, Threat own)
{
    return !(e->disable & ENGINE_NO_ATTACK_HISTORY) && own >= T_F3 && own != T_B4F3 && own != T_F4 && own != T_FIVE;
}

/* Adds the order classes to the generator's scores (moves are then picked
 * best first, lazily: most nodes cut off after a move or two). A plain four
 * is ordered by its score like any move: most of them only waste a tempo. */
static void order_moves(Engine *e, ScoredMove *mv, int n, Move tt_move, int ply)
{
    const Board *b = &e->board;
    int me = b->to_move - 1;
    if (e->disable & ENGINE_NO_ORDERING) return;
    for (int i = 0; i < n; i++) {
        Move m = mv[i].move;
        Threat t = board_threat(b, m, b->to_move);
        if (m == tt_move) mv[i].score = ORDER_TT;
        else if (t == T_B4F3 || t == T_F4) mv[i].score += ORDER_FOUR;
        else if (m == e->killers[ply][0] || m == e->killers[ply][1]) mv[i].score += ORDER_KILLER;
        else if (is_attack(e, t)) mv[i].score += e->hist.attack[me][m] / ATTACK_HISTORY_DIV;
        else mv[i].score += e->hist.quiet[me][m] / HISTORY_DIV;
    }
}

/* Both histories' reward for a cutoff at depth. */
static inline int history_bonus(int depth)
{
    int bonus = depth * depth * 16;
    return bonus > HISTORY_BONUS_MAX ? HISTORY_BONUS_MAX : bonus;
}

/* One history table (a side's) after a cutoff: the move that cut (unless
 * MOVE_NONE) rewarded, the other moves tried before it penalised. */
static void history_update(int32_t *table, Move m, int depth, const Move *tried, int ntried)
{
    int bonus = history_bonus(depth);
    if (m != MOVE_NONE) gravity_add(&table[m], bonus, HISTORY_MAX);
    for (int i = 0; i < ntried; i++)
        if (tried[i] != m) gravity_add(&table[tried[i]], -bonus, HISTORY_MAX);
}

/* A cutoff at a node without a threat against the side to move: the
 * attack that cut (m, or MOVE_NONE when a quiet move or a four of the
 * four class did) is rewarded, the attacks tried before it penalised. */
static void reward_attacks(Engine *e, Move m, int depth, const Move *tried, int ntried)
{
    history_update(e->hist.attack[e->board.to_move - 1], m, depth, tried, ntried);
}

/* A quiet move cut off: reward it, penalise the quiet moves tried before it. */
static void reward(Engine *e, Move m, int depth, int ply, const Move *tried, int ntried)
{
    history_update(e->hist.quiet[e->board.to_move - 1], m, depth, tried, ntried);
    if (e->killers[ply][0] != m) {
        e->killers[ply][1] = e->killers[ply][0];
        e->killers[ply][0] = m;
    }
}

/*
 * The main search. Steps, in this order:
 *   1. limits, quick wins and losses, mate distance pruning
 *   2. the horizon (a four must still be answered)
 *   3. transposition table cut-off
 *   4. static eval (from the table when it has one) plus the correction
 *      history (ENGINE_NO_CORRECTION), the improving flag; for pruning,
 *      the table's score where its bound says it is nearer the truth
 *   5. reverse futility pruning          (ENGINE_NO_FUTILITY)
 *   6. razoring                          (ENGINE_NO_FUTILITY)
 *   7. moves: forced replies or candidates, ordered; then ProbCut
 *      (ENGINE_NO_PROBCUT)
 *   8. per move: move-count pruning      (ENGINE_NO_MOVECOUNT)
 *                fail-high reduction     (ENGINE_NO_FAIL_HIGH)
 *                alpha-raised reduction  (a move to play's PV nodes)
 *                late move reductions    (ENGINE_NO_LMR)
 *                PVS with re-searches
 *   9. history and killers, attack history (ENGINE_NO_ATTACK_HISTORY),
 *      correction history, table store
 * Pruning (5, 6, 7, 8) happens only where the opponent threatens nothing: no
 * five and no straight four to make. The fail-high reduction needs only no
 * five to block, and the reductions never take a ply from a four-three or
 * a straight four. cut_node marks an expected cut node (never a PV node).
 * Nothing is pruned while every move searched so far loses (move-count
 * pruning and the candidate cap wait for a move that holds): a mate score
 * the search returns is a proof against every answer of the loser's.
 */
static Score negamax(Engine *e, int depth, int ply, Score alpha, Score beta, bool pv_node, bool cut_node)
{
    Board *b = &e->board;

    /* 1. */
    Score settled;
    if (node_settled(e, ply, &settled)) return settled;
    if (mate_distance_prune(ply, &alpha, &beta)) return alpha;

    /* 2. */
    Color me = b->to_move, opp = OPPONENT(me);
    bool must_block = b->tcount[opp - 1][T_FIVE] > 0, at_horizon = depth <= 0;
    if (at_horizon && !must_block) return qsearch(e, ply, alpha, beta, 0);
    if (at_horizon) depth = 1;

    /* 3. */
    TTProbe t = {.hit = false, .move = MOVE_NONE};
    if (!(e->disable & ENGINE_NO_TT)) t = tt_probe(&e->tt, b->key, ply);
    if (t.hit && !pv_node && t.depth >= depth && tt_cuts(&t, alpha, beta)) return t.score;

    /* 4. */
    unsigned mask = eval_threat_mask(b);
    Score raw_eval = t.hit ? t.eval : eval_static_masked(b, mask), static_eval = corrected(e, raw_eval, mask);
    Score eval = static_eval;
    e->eval[ply] = static_eval;
    /* a searched score is a better guess than the static eval when its
     * bound lies on the far side of it (mates are left to the search) */
    if (t.hit && t.score > -SCORE_MATE_MIN && t.score < SCORE_MATE_MIN &&
        (t.bound == BOUND_EXACT || (t.bound == BOUND_LOWER && t.score > eval) ||
         (t.bound == BOUND_UPPER && t.score < eval)))
        eval = t.score;
    bool improving = ply >= 2 && static_eval > e->eval[ply - 2];
    int unsure = e->play ? abs(static_eval - raw_eval) / LMR_CORRECTION_DIV : 0;
    bool threatened = must_block || b->tcount[opp - 1][T_F4] > 0;
    bool prune = !pv_node && !threatened && beta < SCORE_MATE_MIN && alpha > -SCORE_MATE_MIN;

    /* 5. */
    if (prune && depth <= RFP_MAX_DEPTH && !(e->disable & ENGINE_NO_FUTILITY) &&
        eval - RFP_MARGIN * depth + RFP_IMPROVING * improving >= beta)
        return eval;

    /* 6. */
    if (prune && depth <= RAZOR_MAX_DEPTH && !(e->disable & ENGINE_NO_FUTILITY) &&
        eval + RAZOR_MARGIN + RAZOR_MARGIN_SQ * depth * depth < alpha) {
        Score v = qsearch(e, ply, alpha, beta, 0);
        if (v < alpha) return v;
    }

    /* 7. */
    ScoredMove mv[BOARD_MAX_MOVES];
    GenKind kind;
    int n = movegen(b, mv, &kind);
    if (n == 0) return kind == GEN_BLOCK_FIVE ? mated_in(ply + 2) : 0;
    order_moves(e, mv, n, t.hit ? t.move : MOVE_NONE, ply);
    /* the candidate cap: moves past it are searched only while every move
     * so far loses (below), so that a mate this node returns is a proof */
    int limit = n;
    if (kind == GEN_ALL && limit > PRUNE_BASE + PRUNE_PER_DEPTH * depth) limit = PRUNE_BASE + PRUNE_PER_DEPTH * depth;

    /* 7. ProbCut */
    Score rbeta = beta + PROBCUT_MARGIN;
    if (prune && depth >= (e->play ? PROBCUT_MIN_DEPTH_PLAY : PROBCUT_MIN_DEPTH) && eval >= beta && rbeta < SCORE_MATE_MIN &&
        !(e->disable & ENGINE_NO_PROBCUT) && !(t.hit && t.depth >= depth - PROBCUT_REDUCTION && t.score < rbeta)) {
        for (int i = 0, tried = 0; i < limit && tried < PROBCUT_MOVES; i++) {
            pick(mv, n, i);
            Move m = mv[i].move;
            if (!search_probcut_candidate(b, m)) continue;
            tried++;
            board_play(b, m);
            Score s = -negamax(e, depth - 1 - PROBCUT_REDUCTION, ply + 1, -rbeta, -rbeta + 1, false, !cut_node);
            board_undo(b);
            if (e->stopped) return 0;
            if (s >= rbeta) {
                if (!(e->disable & ENGINE_NO_TT))
                    tt_store(&e->tt, b->key, ply, m, s, raw_eval, depth - PROBCUT_REDUCTION, BOUND_LOWER);
                return s;
            }
        }
    }
    int ext = (n == 1 && !at_horizon && ply < EXTENSION_MAX_PLY) ? 1 : 0;
    int lmp = depth < LMR_TABLE ? lmp_table[improving][depth] : LMR_TABLE;
    bool may_lmp = kind == GEN_ALL && !pv_node && depth <= LMP_MAX_DEPTH && !(e->disable & ENGINE_NO_MOVECOUNT);
    bool likely_fail_high = cut_node && !must_block && eval >= beta + FAIL_HIGH_MARGIN * depth &&
                            !(e->disable & ENGINE_NO_FAIL_HIGH);
    bool may_shallow = e->play && pv_node && depth >= ALPHA_RAISED_MIN_DEPTH && depth <= ALPHA_RAISED_MAX_DEPTH;

    Score alpha0 = alpha, best = -SCORE_INF;
    Move best_move = MOVE_NONE;
    Move quiets[BOARD_MAX_MOVES], attacks[BOARD_MAX_MOVES];
    int nquiets = 0, nattacks = 0, searched = 0, shallower = 0;
    for (int i = 0; i < n; i++) {
        /* (a move holds when it scores better than a likely loss) */
        if (i >= limit && best > QS_LIKELY_LOST) break;
        pick(mv, n, i);
        Move m = mv[i].move;
        Threat own = board_threat(b, m, me), theirs = board_threat(b, m, opp);
        bool quiet = own < T_F3 && theirs < T_F3, attack = is_attack(e, own);
        bool reducible = (own < T_F3P || (e->play && (own == T_B4 || own == T_B4P))) && theirs < T_B4;

        /* 8. move-count pruning: fours and double threats of the side to move stay */
        if (may_lmp && searched >= lmp && best > QS_LIKELY_LOST && own < T_F3P) continue;

        /* 8. fail-high reduction: one ply for every move weaker than a four;
         *    alpha-raised reduction: one ply after a move raised alpha */
        int child = depth - 1 + ext - shallower, reduction = 0;
        if (likely_fail_high && own < T_B4) child--;

        /* 8. late move reductions */
        if (searched >= 1 && depth >= LMR_MIN_DEPTH && kind == GEN_ALL && own != T_B4F3 && own != T_F4 &&
            !(e->disable & ENGINE_NO_LMR)) {
            bool killer = m == e->killers[ply][0] || m == e->killers[ply][1];
            if (reducible) {
                reduction = lmr_at(depth, searched + 1);
                if (!pv_node && !improving && reduction > 1) reduction += LMR_NOT_IMPROVING;
                if (cut_node && !killer) reduction += LMR_CUT_NODE;
            }
            reduction -= pv_node + unsure;
            /* (the board keeps what each move's point held before it, so
             *  the side's move two plies back is read there) */
            if (e->play && own == T_F3 && ply >= 2 && b->history[b->nmoves - 2].threat[me - 1] >= T_F3)
                reduction -= LMR_CONTINUED_ATTACK;
            if (killer) reduction--;
            if (quiet && e->hist.quiet[me - 1][m] > 0) reduction -= e->hist.quiet[me - 1][m] / LMR_HISTORY_DIV;
            if (reduction > child - 1) reduction = child - 1;
            if (reduction < 0) reduction = 0;
        }

        tt_prefetch(&e->tt, board_key_after(b, m));
        board_play(b, m);
        Score s;
        if (searched == 0 || (e->disable & ENGINE_NO_PVS)) {
            s = -negamax(e, child, ply + 1, -beta, -alpha, pv_node, !pv_node && !cut_node);
        } else {
            s = -negamax(e, child - reduction, ply + 1, -alpha - 1, -alpha, false, true);
            if (s > alpha && reduction) s = -negamax(e, child, ply + 1, -alpha - 1, -alpha, false, !cut_node);
            if (s > alpha && s < beta) s = -negamax(e, child, ply + 1, -beta, -alpha, true, false);
        }
        board_undo(b);
        if (e->stopped) return 0;
        searched++;
        if (s > best) {
            best = s;
            best_move = m;
            if (s > alpha) {
                alpha = s;
                pv_update(e, ply, m);
                if (may_shallow && s < ALPHA_RAISED_MAX_SCORE && s > -ALPHA_RAISED_MAX_SCORE) shallower = 1;
                if (s >= beta) {
                    /* 9. */
                    if (quiet) reward(e, m, depth, ply, quiets, nquiets);
                    if (!threatened) reward_attacks(e, attack ? m : MOVE_NONE, depth, attacks, nattacks);
                    break;
                }
            }
        }
        if (quiet) quiets[nquiets++] = m;
        else if (attack) attacks[nattacks++] = m;
    }
    int bound = best >= beta ? BOUND_LOWER : best > alpha0 ? BOUND_EXACT : BOUND_UPPER;
    /* 9. correction history: from quiet results only (no threat against
     * the side to move, a best move weaker than a four, no mate), and
     * only where the bound says on which side of the eval the truth is */
    if (!threatened && best > QS_LIKELY_LOST && best < -QS_LIKELY_LOST && best_move != MOVE_NONE &&
        !threat_is_four(board_threat(b, best_move, me)) && !(bound == BOUND_LOWER && best <= static_eval) &&
        !(bound == BOUND_UPPER && best >= static_eval))
        corr_update(e, mask, depth, best, static_eval);
    if (!(e->disable & ENGINE_NO_TT)) tt_store(&e->tt, b->key, ply, best_move, best, raw_eval, depth, bound);
    return best;
}

/* Searches root moves [first, nroot) and moves the best of them to first. */
static Score root_search(Engine *e, int depth, Score alpha, Score beta, int first)
{
    Board *b = &e->board;
    Score best = -SCORE_INF;
    e->pvlen[0] = 0;
    for (int i = first; i < e->nroot; i++) {
        Move m = e->root[i].move;
        board_play(b, m);
        Score s;
        if (i == first || (e->disable & ENGINE_NO_PVS)) {
            s = -negamax(e, depth - 1, 1, -beta, -alpha, true, false);
        } else {
            s = -negamax(e, depth - 1, 1, -alpha - 1, -alpha, false, true);
            if (s > alpha && s < beta) s = -negamax(e, depth - 1, 1, -beta, -alpha, true, false);
        }
        board_undo(b);
        if (e->stopped) break;
        if (s > best) best = s;
        if (s <= alpha) {
            e->root[i].score = -SCORE_INF;
            continue;
        }
        RootMove rm = e->root[i];
        rm.score = s;
        rm.pv[0] = m;
        int n = e->pvlen[1] > 1 ? e->pvlen[1] - 1 : 0;
        if (n > ENGINE_MAX_PV - 1) n = ENGINE_MAX_PV - 1;
        memcpy(&rm.pv[1], &e->pv[1][1], sizeof(Move) * (size_t)n);
        rm.pv_len = n + 1;
        memmove(&e->root[first + 1], &e->root[first], sizeof(RootMove) * (size_t)(i - first));
        e->root[first] = rm;
        alpha = s;
        if (s >= beta) break;
    }
    return best;
}

static void fill_line(PvLine *l, const RootMove *rm)
{
    l->move = rm->move;
    l->score = rm->score;
    l->mate = engine_mate_moves(rm->score);
    l->pv_len = rm->pv_len;
    memcpy(l->pv, rm->pv, sizeof(Move) * (size_t)rm->pv_len);
}

static void fill_proven(EngineResult *out, Score s, const Move *line, int len)
{
    out->npv = 1;
    PvLine *l = &out->pvs[0];
    l->move = line[0];
    l->score = s;
    l->mate = engine_mate_moves(s);
    l->pv_len = len < ENGINE_MAX_PV ? len : ENGINE_MAX_PV;
    memcpy(l->pv, line, sizeof(Move) * (size_t)l->pv_len);
    out->depth = len;
}

/* The move the loser plays in a completed mate line: the transposition
 * table's move when it is one of the forced replies, else the best ordered. */
static Move loser_reply(Engine *e)
{
    Board *b = &e->board;
    ScoredMove mv[BOARD_MAX_MOVES];
    GenKind kind;
    int n = movegen(b, mv, &kind);
    if (n == 0) return movegen_any_legal(b);
    TTProbe t = tt_probe(&e->tt, b->key, 0);
    for (int i = 0; i < n && t.hit; i++)
        if (mv[i].move == t.move) return t.move;
    movegen_sort(mv, n);
    return mv[0].move;
}

/* Plays line[0..len) on from the board while each move is legal for the
 * side to move, up to and including the first five. Returns how many moves
 * it played (left on the board for the caller to undo); *ok is false when
 * it stopped at an illegal move or a five of the loser's, *five true when
 * the last move played made winner's five. */
static int play_to_five(Board *b, const Move *line, int len, Color winner, bool *ok, bool *five)
{
    int n = 0;
    *ok = true;
    *five = false;
    while (n < len && *ok && !*five) {
        Move m = line[n];
        if (!board_empty(b, m) || !rules_is_legal(b, m)) {
            *ok = false;
            break;
        }
        *five = board_makes_five(b, m, b->to_move);
        *ok = !*five || b->to_move == winner;
        board_play(b, m);
        n++;
    }
    return n;
}

/*
 * A mate found by the main search may end its line early (at a straight
 * four to come, a four-three, a transposition). The line is played on to
 * the five: the winner's moves by VCF or VCT (or the table's move where
 * those find nothing), the loser's by loser_reply.
 * The mate count then follows the completed line. A line that cannot be
 * completed within COMPLETE_NODES (for a move to play, within its time
 * limit) is left as it was.
 */
static bool time_up_ctx(void *ctx) { return time_up(ctx); }

static void complete_mate_line(Engine *e, PvLine *l)
{
    Board *b = &e->board;
    Color winner = l->mate > 0 ? b->to_move : OPPONENT(b->to_move);
    Move line[ENGINE_MAX_PV];
    bool done, ok;
    int n = play_to_five(b, l->pv, l->pv_len, winner, &ok, &done);
    memcpy(line, l->pv, sizeof(Move) * (size_t)n);
    while (ok && !done && n < ENGINE_MAX_PV) {
        Move m;
        if (b->to_move == winner) {
            if (!movegen_five_points(b, winner, &m, 1)) {
                if (e->play && time_up(e)) {
                    ok = false;
                    break;
                }
                ThreatSearch ts = threat_setup(e, COMPLETE_NODES, ROOT_QUIET_PLIES);
                if (e->play) { /* the move is found: its line must not make it late */
                    ts.should_stop = time_up_ctx;
                    ts.stop_ctx = e;
                }
                Move t[THREAT_MAX_LINE];
                int tl = 0, room = ENGINE_MAX_PV - n;
                if (!vcf_find(&ts, room, t, &tl)) {
                    ts.aborted = false;
                    ts.nodes = 0;
                    if (!vct_find(&ts, room < e->vct_plies ? room : e->vct_plies, t, &tl)) tl = 0;
                }
                if (tl > 0 && n + tl <= ENGINE_MAX_PV) {
                    for (int i = 0; i < tl; i++) {
                        board_play(b, t[i]);
                        line[n++] = t[i];
                    }
                    done = true;
                    break;
                }
                /* beyond the threat search: the main search's move */
                TTProbe tp = tt_probe(&e->tt, b->key, 0);
                m = tp.hit ? tp.move : MOVE_NONE;
                ok = m != MOVE_NONE && board_empty(b, m) && rules_is_legal(b, m);
                if (!ok) break;
            }
        } else {
            m = loser_reply(e);
            ok = m != MOVE_NONE;
            if (!ok) break;
        }
        done = board_makes_five(b, m, b->to_move);
        board_play(b, m);
        line[n++] = m;
    }
    for (int i = 0; i < n; i++) board_undo(b);
    if (!ok || !done) return;
    memcpy(l->pv, line, sizeof(Move) * (size_t)n);
    l->pv_len = n;
    l->score = winner == b->to_move ? mate_in(n) : mated_in(n);
    l->mate = engine_mate_moves(l->score);
}

static void finish(Engine *e, EngineResult *out)
{
    for (int k = 0; k < out->npv; k++)
        if (out->pvs[k].mate) complete_mate_line(e, &out->pvs[k]);
    if (out->npv > 0) {
        out->best_move = out->pvs[0].move;
        out->score = out->pvs[0].score;
        out->mate = out->pvs[0].mate;
    }
    out->nodes = e->nodes;
    out->seldepth = e->seldepth > out->depth ? e->seldepth : out->depth;
    out->time_ms = (search_now_ns() - e->start_ns) / 1000000;
}

/* Whether the opponent's VCF (or, when vct, VCT) is proven within budget
 * nodes after the root move m. */
static bool opponent_wins_after(Engine *e, Move m, bool vct, uint64_t budget)
{
    Move line[THREAT_MAX_LINE];
    int len;
    board_play(&e->board, m);
    int r = threat_search(e, vct, budget, vct ? e->vct_plies : ROOT_VCF_PLIES, line, &len, NULL);
    board_undo(&e->board);
    return r > 0;
}

/* The opponent has a VCF (or, when vct, a VCT): a root move after which it
 * still has one loses, so only the moves that refute it are searched (all
 * of them when none does, or when the budget runs out before every move
 * was tried). A move is dropped only when the opponent's win after it is
 * proven. Returns how many refute it, or -1 when not every move was
 * tried. */
static int drop_refuted_moves(Engine *e, bool vct)
{
    uint64_t start = e->nodes;
    bool keep[BOARD_MAX_MOVES];
    int nkept = 0, i = 0;
    for (; i < e->nroot && !threat_should_stop(e) && e->nodes - start < ROOT_REFUTE_TOTAL_NODES; i++) {
        keep[i] = !opponent_wins_after(e, e->root[i].move, vct, ROOT_REFUTE_NODES);
        nkept += keep[i];
    }
    if (i < e->nroot) return -1;
    if (nkept == 0) return 0;
    nkept = 0;
    for (i = 0; i < e->nroot; i++)
        if (keep[i]) e->root[nkept++] = e->root[i];
    e->nroot = nkept;
    return nkept;
}

/* The side to move's VCF, then (unproven) its VCT, within those budgets:
 * plies to the five or 0; *undecided says whether the VCT was cut short
 * (untouched when it did not run: a stop came first). */
static int own_threats(Engine *e, uint64_t vcf, uint64_t vct, Move *line, int *len, bool *undecided)
{
    int r = threat_search(e, false, vcf, ROOT_VCF_PLIES, line, len, NULL);
    if (!r && !e->stopped) r = threat_search(e, true, vct, e->vct_plies, line, len, undecided);
    return r;
}

/* Threat-space search at the root: our own win (returned as the line and
 * its length in plies), else the opponent's VCF, or failing that (in
 * analysis, not for a move to play) its VCT, whose points then go first in
 * the root order (and which goes to out, with how many moves refute it).
 * Returns 0 when no win was proven. */
static int root_threats(Engine *e, int depth_limit, bool play, Move *line, int *len, EngineResult *out)
{
    Board *b = &e->board;
    uint64_t vcf = ROOT_VCF_NODES, vct = ROOT_VCT_NODES;
    if (depth_limit > 0) {
        /* a shallow search should not spend far longer proving threats */
        uint64_t cap = (uint64_t)ROOT_THREAT_NODES_PER_DEPTH2 * (uint64_t)depth_limit * (uint64_t)depth_limit;
        if (vcf > cap) vcf = cap;
        if (vct > cap) vct = cap;
    }
    int64_t deadline = e->threat_deadline_ns;
    if (deadline && !play) e->threat_deadline_ns = e->start_ns + (deadline - e->start_ns) * ROOT_OWN_THREAT_SHARE / 100;
    int r = own_threats(e, vcf, vct, line, len, &e->vct_open);
    e->threat_deadline_ns = deadline;
    if (r || b->tcount[2 - b->to_move][T_FIVE] || e->stopped) return r;
    Move opp[THREAT_MAX_LINE];
    int opp_len;
    board_pass(b);
    int o = threat_search(e, false, vcf, ROOT_VCF_PLIES, opp, &opp_len, NULL);
    bool opp_vct = false;
    if (!o && !e->stopped && !play) {
        uint64_t budget = ROOT_OPP_VCT_NODES < vct ? ROOT_OPP_VCT_NODES : vct;
        o = threat_search(e, true, budget, e->vct_plies, opp, &opp_len, NULL);
        opp_vct = o > 0;
    }
    board_pass(b);
    if (!o) return 0;
    for (int i = 0; i < e->nroot; i++)
        for (int k = 0; k < opp_len; k++)
            if (e->root[i].move == opp[k]) e->root[i].order += ROOT_DEFENCE_BONUS;
    out->threat_len = opp_len < ENGINE_MAX_PV ? opp_len : ENGINE_MAX_PV;
    memcpy(out->threat, opp, sizeof(Move) * (size_t)out->threat_len);
    out->threat_vct = opp_vct;
    out->refutations = drop_refuted_moves(e, opp_vct);
    return 0;
}

/* The opponent's VCT after the move found (see MOVE_CHECK_*). Only a move
 * whose loss is proven is replaced, by the first of the next root moves
 * after which the opponent's VCT is not proven; when every move tried
 * loses, the answer stays. */
static void check_move(Engine *e, EngineResult *out)
{
    if (out->npv != 1 || out->pvs[0].mate != 0) return;
    Move first = out->pvs[0].move;
    if (threat_should_stop(e) || !opponent_wins_after(e, first, true, MOVE_CHECK_NODES)) return;
    for (int i = 0, tried = 1; i < e->nroot && tried < MOVE_CHECK_MOVES && !threat_should_stop(e); i++) {
        const RootMove *rm = &e->root[i];
        if (rm->move == first) continue;
        tried++;
        if (opponent_wins_after(e, rm->move, true, MOVE_CHECK_NODES)) continue;
        Score s = out->pvs[0].score;
        fill_line(&out->pvs[0], rm);
        if (rm->score == -SCORE_INF || rm->score > s) out->pvs[0].score = s;
        out->pvs[0].mate = 0;
        return;
    }
}

/* Keeps a proven win (keep_proofs): the line from the root, and from each
 * later position of it, the rest of it. Where the winner is to move the
 * rest is a win; where the loser is, a loss (every answer of the loser's
 * was refuted in the proof). */
bool search_keep_proof(Engine *e, const Move *line, int len)
{
    if (!e->proofs || len < 1 || len > THREAT_MAX_LINE) return false;
    Board *b = &e->board;
    int played = 0;
    for (int k = 0; k + 1 < len; k++) {
        ProvenLine *p = &e->proofs[b->key & e->proofs_mask];
        p->key = b->key;
        p->len = (int16_t)(len - k);
        memcpy(p->line, line + k, sizeof(Move) * (size_t)(len - k));
        board_play(b, line[k]);
        played++;
    }
    while (played--) board_undo(b);
    return true;
}

/* A win this search proved: kept, and noted for engine_last_proof. */
static void keep_found(Engine *e, const Move *line, int len)
{
    if (!search_keep_proof(e, line, len)) return;
    memcpy(e->last_proof, line, sizeof(Move) * (size_t)len);
    e->last_proof_len = len;
}

/* A kept proof of the position on the board: its line, after checking
 * that it replays to a five under the rule (a key that only collides is
 * not taken); *won says whether the side to move wins (an odd length) or
 * loses. Returns its length or 0. */
static int proof_find(Engine *e, Move *line, bool *won)
{
    if (!e->proofs) return 0;
    Board *b = &e->board;
    const ProvenLine *p = &e->proofs[b->key & e->proofs_mask];
    if (p->key != b->key || p->len < 1) return 0;
    *won = p->len % 2 == 1;
    bool ok, five;
    int played = play_to_five(b, p->line, p->len, *won ? b->to_move : OPPONENT(b->to_move), &ok, &five);
    for (int i = 0; i < played; i++) board_undo(b);
    if (!ok || !five || played != p->len) return 0;
    memcpy(line, p->line, sizeof(Move) * (size_t)p->len);
    return p->len;
}

/* Puts a proven win first among the reported lines (multi-PV searches keep
 * the other lines the search found). */
static void merge_proven(EngineResult *out, Score s, const Move *line, int len)
{
    if (out->npv > 0 && out->pvs[0].score >= s) return;
    int keep = 0;
    PvLine rest[ENGINE_MAX_MULTIPV];
    for (int k = 0; k < out->npv; k++)
        if (out->pvs[k].move != line[0]) rest[keep++] = out->pvs[k];
    int npv = out->npv > 0 ? out->npv : 1, depth = out->depth;
    fill_proven(out, s, line, len);
    for (int k = 0; k + 1 < npv && k < keep; k++) out->pvs[k + 1] = rest[k];
    out->npv = keep + 1 < npv ? keep + 1 : npv;
    if (depth > out->depth) out->depth = depth;
}

static int cmp_root(const void *a, const void *b)
{
    const RootMove *x = a, *y = b;
    if (x->order != y->order) return x->order < y->order ? 1 : -1;
    return (x->move > y->move) - (x->move < y->move);
}

/* The depth 0 answer: the root moves in order, the first with the static
 * eval. */
static void first_answer(Engine *e, EngineResult *out)
{
    qsort(e->root, (size_t)e->nroot, sizeof(RootMove), cmp_root);
    out->npv = 1;
    fill_line(&out->pvs[0], &e->root[0]);
    e->eval[0] = eval_static(&e->board);
    out->pvs[0].score = e->eval[0];
    out->pvs[0].mate = 0;
}

void search_run(Engine *e, const Limits *limits, EngineResult *out)
{
    memset(e, 0, offsetof(Engine, disable));
    e->start_ns = search_now_ns();
    e->stop = limits->stop;
    e->node_limit = limits->nodes > 0 ? (uint64_t)limits->nodes : 0;
    e->vct_plies = !limits->play && e->board.rule == RULE_FREESTYLE ? ROOT_VCT_PLIES_FREESTYLE_ANALYSIS : ROOT_VCT_PLIES;
    e->play = limits->play;
    if (limits->time_ms > 0) e->deadline_ns = e->start_ns + limits->time_ms * 1000000;
    int64_t optimum_ms = limits->optimum_ms > 0 ? limits->optimum_ms : limits->time_ms * OPTIMUM_TIME_PCT / 100;
    int max_depth = limits->depth > 0 && limits->depth < ENGINE_MAX_DEPTH ? limits->depth : ENGINE_MAX_DEPTH;
    int multipv = limits->multipv < 1 ? 1 : limits->multipv > ENGINE_MAX_MULTIPV ? ENGINE_MAX_MULTIPV : limits->multipv;
    /* the move check's share of the limits is kept back until it runs */
    bool move_check = multipv == 1 && !limits->threats_only && !(e->disable & ENGINE_NO_MOVE_CHECK) &&
                      (MOVE_CHECK_RENJU || e->board.rule != RULE_RENJU);
    uint64_t full_node_limit = e->node_limit;
    int64_t full_deadline = e->deadline_ns;
    if (move_check) {
        e->node_limit -= e->node_limit * MOVE_CHECK_PCT / 100;
        if (e->deadline_ns)
            e->deadline_ns -= limits->time_ms * 10000 * (limits->play ? MOVE_CHECK_PLAY_TIME_PCT : MOVE_CHECK_PCT);
    }
    if (e->persistent) {
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < BOARD_CELLS; i++) {
                e->hist.quiet[c][i] /= 2;
                e->hist.attack[c][i] /= 2;
            }
    } else {
        memset(&e->hist, 0, sizeof e->hist);
        memset(&e->corr, 0, sizeof e->corr);
    }
    tt_new_search(&e->tt);

    Board *b = &e->board;
    out->side_to_move = b->to_move;
    out->best_move = MOVE_NONE;
    out->complete = true;

    ScoredMove mv[BOARD_MAX_MOVES];
    GenKind kind;
    int n = movegen(b, mv, &kind);
    if (kind == GEN_ALL && n == 0 && !board_full(b)) {
        /* renju: every candidate point is forbidden to black; try the rest */
        for (int y = 0; y < b->size; y++)
            for (int x = 0; x < b->size; x++) {
                Move m = MOVE_XY(x, y);
                if (b->cell[m].stone == EMPTY && !movegen_forbidden(b, m)) {
                    mv[n].move = m;
                    mv[n++].score = 0;
                }
            }
    }
    if (n == 0 && kind == GEN_BLOCK_FIVE) {
        /* renju: black cannot take the five point; it still has to move */
        Move m = movegen_any_legal(b);
        if (m != MOVE_NONE) fill_proven(out, mated_in(2), &m, 1);
    }
    if (n == 0) {
        finish(e, out);
        return;
    }
    for (int i = 0; i < n; i++) {
        e->root[i] = (RootMove){.move = mv[i].move, .score = -SCORE_INF, .order = mv[i].score, .pv_len = 1};
        e->root[i].pv[0] = mv[i].move;
    }
    e->nroot = n;
    if (kind == GEN_WIN) {
        fill_proven(out, mate_in(1), &mv[0].move, 1);
        finish(e, out);
        return;
    }
    Move proven[THREAT_MAX_LINE];
    int proven_len = 0, proven_plies = 0;
    bool proven_won = true; /* false: a kept proof says the side to move loses */
    if (limits->threats_only) {
        /* the solver alone, with every limit for it (no share kept back) */
        e->threat_deadline_ns = e->deadline_ns;
        uint64_t rest = e->node_limit ? e->node_limit : UINT64_MAX;
        bool undecided = false;
        proven_plies = own_threats(e, ROOT_VCF_NODES, rest, proven, &proven_len, &undecided);
        if (proven_plies) {
            fill_proven(out, mate_in(proven_plies), proven, proven_len);
        } else {
            first_answer(e, out);
            out->complete = !undecided && !e->stopped;
        }
        finish(e, out);
        return;
    }
    if (limits->time_ms > 0) e->threat_deadline_ns = e->start_ns + limits->time_ms * 10000 * ROOT_THREAT_TIME_PCT;
    e->vct_open = false; /* (set by the root VCT, if it runs) */
    if (!(e->disable & ENGINE_NO_THREATS)) {
        /* (a move to play from a fresh engine, as /v1/move's, stays a
         * function of its request: it never reads kept proofs) */
        proven_plies = proven_len = e->persistent || !limits->play ? proof_find(e, proven, &proven_won) : 0;
        if (proven_plies && !proven_won && multipv > 1) proven_plies = proven_len = 0; /* lost: search the lines */
        out->from_proof = proven_plies > 0 && multipv == 1;
        if (!proven_plies) {
            proven_plies = root_threats(e, limits->depth, limits->play, proven, &proven_len, out);
            if (proven_plies) keep_found(e, proven, proven_len);
        }
    }
    e->threat_deadline_ns = 0; /* the horizon's small searches run under the main limits */
    if (proven_plies && multipv == 1) { /* (a kept loss: the proof's longest defence) */
        fill_proven(out, proven_won ? mate_in(proven_plies) : mated_in(proven_plies), proven, proven_len);
        finish(e, out);
        return;
    }
    if (proven_plies)
        for (int i = 0; i < e->nroot; i++)
            if (e->root[i].move == proven[0]) e->root[i].order = ORDER_TT;
    first_answer(e, out); /* in case the first iteration does not finish */
    if (multipv > e->nroot) multipv = e->nroot;

    int64_t deadline = e->deadline_ns;
    uint64_t node_limit = e->node_limit;
    if (e->vct_open && !proven_plies && !limits->play) {
        if (deadline) e->deadline_ns = e->start_ns + limits->time_ms * 10000 * VCT_OPEN_MAIN_PCT;
        if (node_limit && full_node_limit * VCT_OPEN_MAIN_PCT / 100 < node_limit)
            e->node_limit = full_node_limit * VCT_OPEN_MAIN_PCT / 100;
    }
    Score prev[ENGINE_MAX_MULTIPV];
    bool cut_short = false;
    Move last_best = MOVE_NONE;
    Score last_score = 0;
    int stable = 0;
    e->stopped = false; /* a stop during the root threat searches still gets depth 1 */
    for (int depth = 1; depth <= max_depth && !e->stopped; depth++) {
        e->first_iteration = depth == 1;
        for (int k = 0; k < multipv && !e->stopped; k++) {
            Score delta = ASPIRATION_DELTA, alpha = -SCORE_INF, beta = SCORE_INF;
            if (depth >= 3 && !(e->disable & ENGINE_NO_PVS) && prev[k] > -SCORE_MATE_MIN && prev[k] < SCORE_MATE_MIN) {
                alpha = prev[k] - delta;
                beta = prev[k] + delta;
            }
            for (int tries = 0;; tries++) {
                Score s = root_search(e, depth, alpha, beta, k);
                if (e->stopped) break;
                if (s > alpha && s < beta) break;
                if (tries + 1 >= ASPIRATION_MAX_TRIES) {
                    alpha = -SCORE_INF;
                    beta = SCORE_INF;
                } else {
                    delta *= 4;
                    if (s <= alpha) alpha = s - delta < -SCORE_INF ? -SCORE_INF : s - delta;
                    else beta = s + delta > SCORE_INF ? SCORE_INF : s + delta;
                }
            }
            if (e->stopped) break;
            prev[k] = e->root[k].score;
        }
        if (e->stopped) break;
        /* slots searched later can come out higher: keep the lines best first */
        for (int k = 1; k < multipv; k++)
            for (int j = k; j > 0 && e->root[j].score > e->root[j - 1].score; j--) {
                RootMove tmp = e->root[j];
                e->root[j] = e->root[j - 1];
                e->root[j - 1] = tmp;
            }
        if (e->first_iteration) {
            e->first_iteration = false;
            check_limits(e);
        }
        out->depth = depth;
        out->npv = multipv;
        for (int k = 0; k < multipv; k++) fill_line(&out->pvs[k], &e->root[k]);
        if (limits->on_info) {
            finish(e, out);
            limits->on_info(limits->info_ctx, out);
        }
        Score best = e->root[0].score;
        /* a proven result cannot change with more depth */
        if ((best >= SCORE_MATE_MIN || best <= -SCORE_MATE_MIN) && SCORE_MATE - (best > 0 ? best : -best) < depth)
            break;
        /* a move to play that is the only one is played at once; analysis
         * goes on for its score and line */
        if (e->nroot == 1 && depth >= 2 && limits->play) break;
        /* stop early when the answer is stable, later when it is not */
        if (depth > 1 && (e->root[0].move != last_best || best < last_score - SOFT_TIME_SCORE_DROP)) stable = 0;
        else stable++;
        last_best = e->root[0].move;
        last_score = best;
        int soft = stable == 0 ? SOFT_TIME_UNSTABLE_PCT
                   : stable >= SOFT_TIME_STABLE_ITERS ? SOFT_TIME_STABLE_PCT
                                                      : SOFT_TIME_PCT;
        if (e->deadline_ns && search_now_ns() - e->start_ns > optimum_ms * 10000 * soft) {
            cut_short = depth < max_depth;
            break;
        }
    }
    /* a move that beat the last iteration's best in an unfinished iteration
     * was searched in full: it is the better answer */
    if (e->stopped && multipv == 1 && out->depth > 0 && e->root[0].move != out->pvs[0].move &&
        e->root[0].score > -SCORE_INF)
        fill_line(&out->pvs[0], &e->root[0]);
    out->complete = !e->stopped && !cut_short;
    if ((e->deadline_ns != deadline || e->node_limit != node_limit) && e->stopped &&
        (!deadline || search_now_ns() < deadline) && !(e->stop && atomic_load_explicit(e->stop, memory_order_relaxed)) &&
        !(node_limit && e->nodes >= node_limit)) {
        cut_short = true; /* only the share kept for the VCT is over */
        e->stopped = false;
    }
    e->deadline_ns = deadline;
    e->node_limit = node_limit;
    if (move_check && !proven_plies) {
        e->deadline_ns = full_deadline;
        e->node_limit = full_node_limit;
        e->stopped = false; /* ...unless a limit of the whole search is reached */
        check_limits(e);
        check_move(e, out);
    }
    if (!proven_plies && e->vct_open && cut_short) {
        if (e->deadline_ns) e->threat_deadline_ns = e->start_ns + limits->time_ms * 10000 * LATE_VCT_TIME_PCT;
        if (!e->stopped) proven_plies = threat_search(e, true, LATE_VCT_NODES, e->vct_plies, proven, &proven_len, NULL);
        e->threat_deadline_ns = 0;
        if (proven_plies) keep_found(e, proven, proven_len);
    }
    if (proven_plies) merge_proven(out, mate_in(proven_plies), proven, proven_len);
    finish(e, out);
}
