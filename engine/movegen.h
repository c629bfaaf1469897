/*
 * movegen.h - candidate moves, forced replies and threat move sets.
 *
 * Candidates are the empty points near stones (the board's near counts, read
 * inside the stones' bounding box), legal for the side to move. Forced
 * replies cut that set: a side that can make five has one move; a side
 * facing a four must block it; a side facing an open three (the opponent
 * threatens a straight four) only blocks or makes fours of its own. Every
 * move carries an ordering score from the policy tables (eval_tables.h):
 * what the move makes for the side to move and what it blocks of the
 * opponent's, by the two sides' pattern codes there, with a centre
 * tie-break.
 */
#ifndef GOMOKUD_MOVEGEN_H
#define GOMOKUD_MOVEGEN_H

#include "board.h"

typedef struct {
    Move move;
    int32_t score;
} ScoredMove;

typedef enum {
    GEN_ALL = 0,      /* no threat: every candidate */
    GEN_WIN,          /* the side to move makes five: the list holds that point */
    GEN_BLOCK_FIVE,   /* the opponent threatens five: only its five points */
    GEN_DEFEND_THREE, /* the opponent threatens a straight four: defences and own fours */
} GenKind;

/* Fills out (room for BOARD_MAX_MOVES) with the moves worth searching for
 * the side to move, scored for ordering but not sorted; returns the count
 * and the kind of situation in *kind. Renju points forbidden to black are
 * left out. Modifies nothing visible (the board may be played on and undone
 * by the renju check). */
int movegen(Board *b, ScoredMove *out, GenKind *kind);

/* Attacker moves for threat-space search: the points where the side to move
 * makes a four or five (fours_only) or also an open three. Legal for the
 * side to move; scored; returns the count. */
int movegen_threats(Board *b, ScoredMove *out, bool fours_only);

/* Points where side makes a five, in board order, at most max of them;
 * returns how many were written. */
int movegen_five_points(const Board *b, Color side, Move *out, int max);

/* Answers of the side to move to the opponent's threat of a straight four:
 * the points after which the opponent has no straight four to make (found
 * among the points where it would make a four, tried one by one) and the
 * side's own fours of threat level min_four or more (T_B4: every four; a
 * four that also defends is kept whatever its level). When no point holds,
 * every point where the opponent would make a four (all of them lose).
 * Legal for the side to move; scored. */
int movegen_defences(Board *b, ScoredMove *out, Threat min_four);

/* True when side has a point where it makes a straight four (or double
 * four) that it may legally play. */
bool movegen_has_open_four_point(Board *b, Color side);

/* Some legal point for the side to move, near the stones when possible:
 * what a side plays when it cannot stop a five (a renju point forbidden to
 * black), so a line stays legal. MOVE_NONE when there is none. */
Move movegen_any_legal(Board *b);

/* Ordering score of m for the side to move (the policy's attack value of
 * its own code at m plus the defence value of the opponent's, centre
 * tie-break). */
int32_t movegen_score(const Board *b, Move m);

/* True when black may not play m under renju; a cheap test first, the full
 * check only for points that could be a double three. */
bool movegen_forbidden(Board *b, Move m);

/* Sorts moves by score, highest first (stable for equal scores, by move
 * index, so results do not depend on memory layout). */
void movegen_sort(ScoredMove *m, int n);

#endif
