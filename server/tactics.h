/*
 * tactics.h - the tactical test suite (tests/data/tactics.jsonl): positions
 * with a proven forced win for the side to move and every winning first
 * move. Used by the tactics test and by `gomokud bench tactics`.
 */
#ifndef GOMOKUD_TACTICS_H
#define GOMOKUD_TACTICS_H

#include "engine/engine.h"

#define TACTIC_MAX_WINS 32

typedef struct {
    Position pos;
    char kind[8]; /* "vcf" or "vct" */
    int nwins;
    Move wins[TACTIC_MAX_WINS];
} Tactic;

/* Reads every line of the file at path. Returns the count (and a malloc'd
 * array in *out, caller frees) or -1 with a message in err. */
int tactics_load(const char *path, Tactic **out, char *err, size_t errlen);

/* True when m is one of t's winning first moves. */
bool tactics_is_win(const Tactic *t, Move m);

#endif
