/*
 * pbrain.h - the Gomocup ("pbrain") protocol front end, with the Yixin-Board
 * extensions GUIs use for analysis.
 *
 * Design. A Pbrain is a state machine fed one input line at a time
 * (pbrain_feed); every reply line goes out through a PbrainWriteFn callback,
 * so the protocol can be tested without processes and the library never
 * prints. It owns the game as the manager describes it (board size, rule,
 * the black and the white stones, blocked points of a continuous game), the
 * time and memory settings, and one Engine.
 *
 * A command that needs a move (BEGIN, TURN, BOARD...DONE, YXNBEST) starts a
 * search. In threaded mode the search runs on a worker thread owned by the
 * Pbrain, and pbrain_feed returns at once so the caller can keep reading its
 * input: YXSTOP stops the search (the best move so far is still played and
 * sent), END stops it and asks the caller to quit, INFO and ABOUT are handled
 * at once, and every other line is queued and handled, in order, after the
 * search has replied. Without threads the search runs inside pbrain_feed.
 * All state is guarded by one mutex; the callback is only ever called with
 * that mutex held, so reply lines never interleave.
 *
 * Who is black. The side to move follows from the stone counts (black moves
 * when both sides have as many stones) and every search is for the side to
 * move: after BEGIN the brain is black; after BOARD the brain, which moves
 * next, is black when both sides have as many stones and white when the
 * opponent has one more. A game played through BEGIN/TURN is an ordered
 * Position; a BOARD or YXBOARD diagram is not (ordered = false).
 */
#ifndef GOMOKUD_PBRAIN_H
#define GOMOKUD_PBRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

/* Longest input line handled; longer lines are answered with ERROR. */
#define PBRAIN_LINE_MAX 1024

/* Receives one reply line, without a line end. Called with the Pbrain's
 * mutex held, from the thread that called pbrain_feed or from the search
 * thread; it must not call back into the Pbrain. */
typedef void (*PbrainWriteFn)(void *ctx, const char *line);

typedef struct {
    bool threaded; /* search on a worker thread (true for the real brain) */
    size_t tt_mib; /* TT size while no max_memory is given; 0 = ENGINE_DEFAULT_TT_MIB */
    const EngineBook *book; /* opening book to play from (must outlive the brain); NULL = none.
                               INFO book 0 turns it off for the session, INFO book 1 on again */
} PbrainOptions;

typedef enum {
    PBRAIN_CONTINUE = 0, /* keep feeding lines */
    PBRAIN_QUIT,         /* END was received: stop reading and free the Pbrain */
} PbrainStatus;

typedef struct Pbrain Pbrain;

/* A new brain writing its replies through write(ctx, line). engine_init()
 * must have been called. Returns NULL when memory or the worker thread cannot
 * be had. The caller owns it and frees it with pbrain_free. */
Pbrain *pbrain_new(const PbrainOptions *opt, PbrainWriteFn write, void *ctx);

/* Stops a running search (its move is not sent), joins the worker thread
 * and frees everything. NULL is a no-op. */
void pbrain_free(Pbrain *pb);

/* Handles one input line (with or without its CR/LF). Every command gets its
 * protocol reply, or ERROR/UNKNOWN with a reason; nothing on the line can
 * make it fail. Returns PBRAIN_QUIT after END. */
PbrainStatus pbrain_feed(Pbrain *pb, const char *line);

/* Blocks until no search is running or waiting and every queued line has
 * been handled. Returns at once without threads. */
void pbrain_wait(Pbrain *pb);

/* True while a search is running or about to start. */
bool pbrain_busy(Pbrain *pb);

/* Bytes of transposition table of the current engine (0 before it exists). */
size_t pbrain_tt_bytes(Pbrain *pb);

/* The hard time limit for one move, in ms: the turn limit less a safety
 * margin (10% + 30 ms), and at most PB_MAX_SHARES (2) shares of the match
 * time, a share being an even part of the time left over the moves still
 * expected (from the empty points), less the same margin; never below a
 * small floor. *optimum_ms (may be NULL) gets the share, the time the
 * search aims at: it may exceed the turn limit, and without a match limit
 * it is unbounded, so the whole turn is used (time not used in a turn is
 * lost). timeout_turn 0 means "as fast as possible"; timeout_match 0 means
 * no match limit; time_left < 0 means unknown (then timeout_match is used). */
int64_t pbrain_budget_ms(int64_t timeout_turn, int64_t timeout_match, int64_t time_left, int empties,
                         int64_t *optimum_ms);

/* Transposition table size (MiB, a power of two) that keeps the whole
 * process within max_memory bytes, leaving room for everything else; 0 means
 * no limit and gives default_mib. */
size_t pbrain_tt_mib_for_memory(uint64_t max_memory, size_t default_mib);

#endif
