/*
 * opening.h - openings: the 26 renju opening names, and balanced openings
 * made by the engine (gomokud opengen, POST /v1/openings/balanced, the
 * openings of gomokud selfplay and the first three stones of swap2).
 *
 * Renju names. A renju opening is the shape of a game's first three
 * stones: black in the centre, white on one of the eight neighbours (a
 * "direct" opening when orthogonal, "indirect" when diagonal), black's
 * second stone in the 5x5 square around the centre. Up to the eight
 * symmetries of the board these are 26 shapes, 13 of each kind, with the
 * names the Renju International Federation uses (renju.net, "openings").
 * The shapes are named on any odd board size (the centre exists; 15x15 is
 * the renju board) and under any rule: the name says where the stones are,
 * not who stands better under which rule.
 *
 * Balanced openings. Stones are put at random (a seeded generator, so the
 * same seed gives the same openings) in the 7x7 square around the centre,
 * black and white alternately, black first; an opening is kept when a
 * search to OPENING_DEPTH finds its score within OPENING_BALANCE of the even
 * point (OPENING_EVEN_WHITE for white to move, its negation for black; 0 in
 * renju) and no forced five. The work is bounded by a number of tries and a node budget.
 * Pure: no I/O, no globals but the const table.
 */
#ifndef GOMOKUD_OPENING_H
#define GOMOKUD_OPENING_H

#include "engine.h"

#define OPENING_RENJU_COUNT 26

typedef struct {
    int number;       /* 1..13 within its kind (RIF's 1D..13D, 1I..13I) */
    bool direct;      /* white's first stone orthogonal to the centre */
    const char *name; /* "Kagetsu" */
    const char *kanji;
    int dx, dy;       /* black's second stone from the centre, x right and y down,
                         with white's stone at (0, -1) (direct) or (1, -1) (indirect) */
} RenjuOpening;

/* The table, OPENING_RENJU_COUNT entries: the 13 direct openings then the
 * 13 indirect ones, each in RIF order. */
extern const RenjuOpening opening_renju[OPENING_RENJU_COUNT];

/* The renju opening that black b1, white w2 and black b3 form on a size x
 * size board, in any of the 8 symmetries: an entry of opening_renju, or
 * NULL when b1 is not the centre (or size is even), w2 is not next to it,
 * or b3 is outside the 5x5 square around it. */
const RenjuOpening *opening_renju_identify(int size, Move b1, Move w2, Move b3);

/* Balanced openings. */
#define OPENING_MAX_STONES 12
#define OPENING_BALANCE 60 /* |score - even| at OPENING_DEPTH; win rate +- 0.043 (freestyle), 0.021 (renju) */
#define OPENING_DEPTH 4
/* Tries of up to this many stones are searched without the root threat
 * searches (ENGINE_NO_THREATS), which cost most of a depth-4 try and found
 * nothing there: 150 openings of three stones (seed 21) came out the
 * same, each score too, with 13.1M nodes instead of 95.5M in freestyle
 * (1,034 tries), 10.5M instead of 80.4M in standard (873) and 1.5M instead
 * of 106.6M in renju (1,316). At five stones they do find the opponent's
 * VCTs that move a score out of the window. */
#define OPENING_QUICK_STONES 3
/* The depth-OPENING_DEPTH score at which white to move is even in freestyle
 * and standard: the evaluation misses much of the first move's edge
 * (engine_winrate's colour term, B +256.5 at 100,000 nodes). From
 * three-stone openings in self-play at 20 s + 0.5 s a move, black won 73.3%
 * with the window centred on 0 (600 games) and 16% centred on +257 (80
 * games): +100 is where the two meet even on the logistic scale. Renju's
 * openings centred on 0 already gave black 51.9%: there the colour term is
 * a middle-game effect. */
#define OPENING_EVEN_WHITE 100
#define OPENING_REGION 7   /* stones go in the REGION x REGION square around the centre */

typedef struct {
    Rule rule;
    int size;
    int min_stones, max_stones; /* try t has min_stones + t % (max - min + 1) stones */
    uint64_t seed;
    int depth;          /* of the balance check; 0 = OPENING_DEPTH */
    Score balance;      /* |score| kept; 0 = OPENING_BALANCE */
    int max_tries;      /* positions tried at most */
    int64_t max_nodes;  /* nodes searched at most over all tries; 0 = no budget */
    int64_t time_ms;    /* no new try once this many ms have passed since the first
                           began (the try under way finishes); 0 = no limit */
    const atomic_bool *stop; /* may be NULL */
} OpeningGenParams;

typedef struct {
    int n;
    Move moves[OPENING_MAX_STONES];
    Score score; /* at the balance check, from the side to move's view */
    Color to_move;
} BalancedOpening;

typedef struct {
    int tries;
    int64_t nodes;
    bool complete; /* found all wanted; false when tries, nodes, time or stop ran out */
    bool has_closest;       /* closest holds a try: */
    BalancedOpening closest; /* of the finished tries without a mate, the one whose score
                                was nearest even (kept or not) */
} OpeningGenStats;

/* Makes up to want balanced openings into out with engine e (its earlier
 * searches do not matter when it is not persistent; a persistent engine is
 * cleared before each try). Returns how many were made; *stats (may be NULL)
 * says what it cost. */
int opening_balanced(Engine *e, const OpeningGenParams *p, BalancedOpening *out, int want, OpeningGenStats *stats);

#endif
