/*
 * rules.h - what wins and what is forbidden under the three rules.
 *
 * Freestyle: five or more in a row wins. Standard: exactly five wins, for
 * both sides; an overline is an ordinary move. Renju: white wins with five
 * or more; black wins only with exactly five, and black may not play an
 * overline, a double four or a double three. A three counts toward a double
 * three only when it is real: some point turns it into a straight four and
 * that point is not itself forbidden to black (checked recursively). A move
 * that makes a five is never forbidden.
 *
 * The line-local part of all this is in the pattern tables; this module adds
 * the board-level checks. Functions that take a non-const Board play and undo
 * stones on it while they work and leave it exactly as they found it.
 */
#ifndef GOMOKUD_RULES_H
#define GOMOKUD_RULES_H

#include "board.h"

/* Parses "freestyle", "standard" or "renju"; returns false otherwise. */
bool rule_parse(const char *s, Rule *out);
const char *rule_name(Rule r);

/* True when black may not play the empty point m under renju. Always false
 * for other rules and for occupied or off-board points. */
bool rules_is_forbidden(Board *b, Move m);

/* True when the side to move may play m: an empty point of the board that,
 * under renju for black, is not forbidden. */
bool rules_is_legal(Board *b, Move m);

/* Lists black's forbidden points into out (room for BOARD_MAX_MOVES) in
 * board order, whoever is to move; returns how many. Zero unless renju. */
int rules_forbidden_points(Board *b, Move *out);

/* Colour that has a winning line on the board, or EMPTY. */
Color rules_winner(const Board *b);

#endif
