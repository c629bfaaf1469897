/* support.h - small helpers shared by the unit tests. */
#ifndef GOMOKUD_TESTS_SUPPORT_H
#define GOMOKUD_TESTS_SUPPORT_H

#include <stddef.h>

#include "engine/board.h"

/* Tables once per test process (Criterion forks a process per test):
 * engine_init, the board's and the search's. */
void support_init(void);

/* Empties b, then puts black stones at the space-separated notation points
 * of black and white ones at those of white, with side to move to_move,
 * rebuilding derived state from scratch. Fails the test on a bad point. */
void support_stones(Board *b, int size, Rule rule, const char *black, const char *white, Color to_move);

/* Empties b and plays the space-separated moves in order with board_play. */
void support_moves(Board *b, int size, Rule rule, const char *moves);

/* The point named in notation on b, failing the test when it is not one. */
Move support_pt(const Board *b, const char *notation);

/* Runs the program `name` of $GOMOKUD_BIN_DIR with the arguments args
 * (NULL-terminated; at most 14) and input on stdin (from a temporary file,
 * so nothing can deadlock). Its stdout goes to out (NUL-terminated, at most
 * outmax - 1 bytes; *len its length when len is not NULL), the start of
 * its stderr to err (may be NULL: dropped). Returns the exit code, or -1
 * when it did not exit normally. Fails the test when it cannot run. */
int support_run(const char *name, const char *const *args, const char *input, char *out, size_t outmax,
                size_t *len, char *err, size_t errmax);

#endif
