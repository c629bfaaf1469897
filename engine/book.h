/*
 * book.h - the opening book inside the engine (the public half, loading and
 * attaching, is in engine.h).
 *
 * A book is a read-only table sorted by key: per position, the move the
 * engine's long search chose, its score and depth. Keys are symmetry
 * reduced: the least of the position's Zobrist keys over the 8 symmetries of
 * the square board (board_sym_key), so one entry serves all 8 orientations.
 * The move is stored in the orientation of that least key and mapped back
 * through the symmetry that gave it. The key holds the rule, the size and
 * the side to move, so one table serves every rule.
 */
#ifndef GOMOKUD_BOOK_H
#define GOMOKUD_BOOK_H

#include "board.h"
#include "engine.h"

/* The symmetry-reduced key of b; *sym (may be NULL) gets the symmetry that
 * gives it (the lowest such t when several do). */
uint64_t book_key(const Board *b, int *sym);

typedef struct {
    Move move; /* in b's own orientation */
    Score score;
    int depth;
} BookHit;

/* Looks b up; true with *hit filled when the book holds it and its move is
 * an empty point of b. */
bool book_probe(const EngineBook *book, const Board *b, BookHit *hit);

#endif
