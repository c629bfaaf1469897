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

/* True when m is one of t's winning first moves; any move when the line
 * lists none (a held-out puzzle without its answer: the proof decides, see
 * tactics_proof_replays). */
bool tactics_is_win(const Tactic *t, Move m);

/* True when r claims a win (mate > 0) whose main line proves it from t's
 * position: 2 * mate - 1 plies, every move legal under the rule, no five
 * before the last move, and the last one the side to move's five. */
bool tactics_proof_replays(const Tactic *t, const EngineResult *r);

#endif
