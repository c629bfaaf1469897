/*
 * swap2.h - the decisions of the swap2 opening protocol (gomoku
 * tournaments, Gomocup): the first player places three stones (black,
 * white, black); the second player then plays white (a fourth stone),
 * swaps (takes black: the first player now plays white), or places two more
 * stones (white, black) and lets the first player choose; after five
 * stones the first player chooses a colour.
 *
 * How the engine decides, all win rates from engine_winrate of its
 * searches. The caller's time and node limits are for the whole decision:
 * each search gets a share (its depth limit holds for every search):
 *  - 0 stones: three stones from opening_balanced (the 7x7 centre, kept
 *    within OPENING_BALANCE of even at OPENING_DEPTH, or the depth limit
 *    when lower; the seed picks which), with half the limits; when they
 *    run out first, the try nearest even. Then weighed by white's win
 *    rate with the other half.
 *  - 3 stones: white's win rate v with white to move (a third of the
 *    limits; the searches for two more stones share the rest). When one colour is
 *    clearly better, |v - 0.5| >= SWAP2_EDGE, take it (play white's best
 *    move, or swap to black). Otherwise neither colour is a clear edge at
 *    this depth: look for two stones that keep the game even (white's
 *    SWAP2_WHITE_LINES best moves, then black's SWAP2_BLACK_LINES best
 *    replies to each; the pair whose win rate is nearest 0.5) and place
 *    them when that is within SWAP2_EDGE of even, so that the opponent's
 *    choice is a guess; else take the better colour.
 *  - 5 stones: white's win rate v with white to move: play white (its best
 *    move) when v >= 0.5, else swap to black.
 * Pure: no I/O, no globals.
 */
#ifndef GOMOKUD_SWAP2_H
#define GOMOKUD_SWAP2_H

#include "engine.h"

#define SWAP2_EDGE 0.05        /* win-rate margin over 0.5 that counts as a clear edge */
#define SWAP2_WHITE_LINES 4
#define SWAP2_BLACK_LINES 8
#define SWAP2_PLACE3_TRIES 4000 /* opening_balanced tries for the first three stones */

typedef enum {
    SWAP2_PLACE3 = 0, /* moves: black, white, black */
    SWAP2_WHITE,      /* play white: moves[0] is white's move (4th or 6th stone) */
    SWAP2_BLACK,      /* swap: take black, the opponent plays white next */
    SWAP2_PLACE2,     /* moves: white, black (4th and 5th stones) */
} Swap2Choice;

typedef struct {
    Swap2Choice choice;
    int nmoves;
    Move moves[3];
    /* The position the choice was made on (after placing, for PLACE3):
     * white to move, its best move, score and win rate for white. */
    Move white_best;
    Score white_score;
    int white_mate;
    double white_winrate;
    /* PLACE2 weighed (3 stones, no clear edge): the most even pair found
     * and white's win rate after it. */
    bool place2_weighed, place2_found;
    Move place2[2];
    Score place2_score; /* white's view, white to move after the five stones */
    int place2_mate;
    double place2_winrate;
    int place3_tries;   /* PLACE3: positions the generator tried, */
    int place3_depth;   /* the depth of its tries, */
    Score place3_score; /* the kept try's score at that depth (white to move), and */
    bool place3_nearest; /* whether the limits ran out before a try came within
                            OPENING_BALANCE of even: the nearest was kept */
    int depth;          /* of the main search */
    uint64_t nodes;     /* over every search */
    bool complete;      /* no search was cut short by a limit or the stop flag */
} Swap2Decision;

/* Decides for the stones of a swap2 opening (moves alternate from black;
 * n is 0, 3 or 5) within limits (shared as above; multipv is set here) and,
 * for 0 stones, seed. Returns POSITION_OK and fills *out; a position
 * problem as engine_analyze (with *index); POSITION_TOO_MANY when n is not
 * 0, 3 or 5; POSITION_FULL when not one try for three stones finished (the
 * stop flag, or a node limit below one try's search). */
PositionError swap2_decide(Engine *e, Rule rule, int size, const Move *moves, int n, const Limits *limits,
                           uint64_t seed, Swap2Decision *out, int *index);

const char *swap2_choice_name(Swap2Choice c);

#endif
