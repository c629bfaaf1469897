/*
 * level.h - playing strength levels for "play a move as a player of level N"
 * (POST /v1/move, `gomokud selfplay --a-level/--b-level`).
 *
 * A level is a search budget plus a way to choose among the search's
 * multi-PV lines:
 *   - levels 1 .. LEVEL_COUNT - 1 search a fixed number of nodes with
 *     `multipv` lines, the middle ones also to a fixed depth. (Below some
 *     50,000 nodes a node cap alone leaves depth 1: the root's threat search
 *     takes the budget first, while a depth cap also scales that search
 *     down, so depth caps grade the middle levels and temperatures the low
 *     ones.) Engines that start every search afresh (the server's)
 *     are deterministic at a node limit, and the choice below is a function
 *     of its inputs, so the same position, level and seed give the same move.
 *   - the top level is full strength: the caller's normal limits (the
 *     server's default time), one line, no randomness.
 *
 * The choice: each candidate line i has a win rate w_i from the mover's view
 * on the evaluation's training curve, level_choice_winrate (flatter than the
 * engine_winrate the answers report: the temperatures were set, and the
 * ladder measured, on it). It is chosen with probability proportional to
 * exp(-100 (w_best - w_i) / T): a softmax over the win-rate points it gives
 * away, at the level's temperature T (in win-rate points; T = 0 always plays
 * the best line). The chance of a weaker move thus depends on how much
 * weaker it is: a move 1 point worse is close to a coin toss at T = 8, one
 * that throws away 40 points is almost never played. At the levels marked
 * `safe` (LEVEL_SAFE_FROM and up) a move that gives up a proven win, or that
 * walks into a proven loss, is not a candidate when another move avoids
 * that: below them a player may still blunder a won game, as beginners do.
 *
 * Pure: read-only tables and arithmetic, no I/O, no state.
 */
#ifndef GOMOKUD_LEVEL_H
#define GOMOKUD_LEVEL_H

#include <stdint.h>

#include "engine.h"

#define LEVEL_COUNT 10
#define LEVEL_MIN 1
#define LEVEL_MAX LEVEL_COUNT
#define LEVEL_SAFE_FROM 5 /* from this level on, proven wins are kept and proven losses avoided */

typedef struct {
    int number;         /* 1 .. LEVEL_COUNT */
    const char *name;   /* "beginner" .. "grandmaster" */
    int64_t nodes;      /* node cap per move; 0 = the caller's normal limits (full strength) */
    int depth;          /* depth cap as well; 0 = none */
    int multipv;        /* candidate lines searched, 1 .. ENGINE_MAX_MULTIPV */
    double temperature; /* softmax temperature in win-rate points; 0 = always the best */
    bool safe;          /* never gives up a proven win or walks into a proven loss when it can avoid it */
    int elo;            /* measured by `make calibrate-levels` (docs/levels.md), level 1 = 0 */
} Level;

/* The level numbered n (1 .. LEVEL_COUNT), or NULL. */
const Level *level_get(int n);

/* The level of that name (exact, lower case), or NULL. */
const Level *level_by_name(const char *name);

/* How level_choose weighed a result's lines. */
typedef struct {
    int n;                                /* candidate lines (the result's npv) */
    double choice_winrate[ENGINE_MAX_MULTIPV]; /* each line's win rate on the choice's curve, mover's view */
    double probability[ENGINE_MAX_MULTIPV]; /* chance of being chosen; 0 when excluded; sums to 1 */
    int chosen;                           /* index into res->pvs; -1 when the result has no line */
} LevelChoice;

/* Chooses among res->pvs[0 .. npv) as a player of level lv, with the random
 * draw taken from seed (any 64-bit value; equal seeds draw equally). Fills
 * *out (may be NULL) and returns the chosen index, or -1 when the result has
 * no line (no legal move). Pure. */
int level_choose(const EngineResult *res, const Level *lv, uint64_t seed, LevelChoice *out);

/* The win rate a line has in the choice: 1 for a proven win, 0 for a
 * proven loss, else 1 / (1 + exp(-score / eval_winrate_scale)). Pure. */
double level_choice_winrate(Score score, int mate);

/* Mixes a client's seed with the position, so that one seed used for a whole
 * game does not draw the same number at every move. Pure. */
uint64_t level_position_seed(const Position *p, uint64_t seed);

/* Limits for a search at level lv. At full strength (nodes == 0): base as
 * it is (the caller's normal limits) with one line. Below: base's time (the
 * caller's hard cap, which should only bind in an emergency), the level's
 * node and depth caps (base's when tighter) and its lines. The stop flag
 * and callbacks of base are kept. */
Limits level_limits(const Level *lv, Limits base);

#endif
