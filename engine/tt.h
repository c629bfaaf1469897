/*
 * tt.h - the transposition table an Engine owns (there is no global table).
 *
 * Design. The table is an array of 64-byte buckets of four 16-byte entries,
 * indexed by the low bits of the Zobrist key; an entry keeps the high 32 bits
 * of the key as a check, the best move, the score with its bound type
 * (exact, lower, upper), the depth, the static evaluation and the search
 * generation ("age"). A store replaces the entry of the same position, else
 * the least valuable entry of the bucket: the shallowest, counting an entry
 * from an older search as eight plies shallower per generation. Mate scores
 * are stored relative to the node (distance from the node, not the root) and
 * turned back on probe, so a mate found through a transposition reports the
 * right distance. With fresh_only set, a probe ignores what earlier searches
 * stored, so each search gives the same result whatever came before, at no
 * cost of clearing the table.
 */
#ifndef GOMOKUD_TT_H
#define GOMOKUD_TT_H

#include <stddef.h>

#include "types.h"

enum { BOUND_NONE = 0, BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };

typedef struct {
    uint32_t check;
    Move move;
    int16_t score;
    int16_t eval;
    int8_t depth;
    uint8_t genbound; /* generation << 2 | bound */
    uint32_t search;  /* which search stored it (see TT.fresh_only) */
} TTEntry;

#define TT_BUCKET 4
typedef struct {
    TTEntry e[TT_BUCKET];
} TTBucket;

typedef struct {
    TTBucket *buckets;
    size_t mask; /* bucket count - 1 (a power of two) */
    uint8_t generation;
    uint32_t search;  /* count of searches, never wraps in practice */
    bool fresh_only;  /* probes see only this search's entries */
} TT;

typedef struct {
    bool hit;
    Move move;
    Score score; /* adjusted to the probing ply */
    Score eval;
    int depth;
    int bound;
} TTProbe;

/* Zeroed memory for a large table, given back with tt_free_table and the
 * same size: whole 2 MiB multiples are mapped on 2 MiB boundaries and
 * asked to sit on huge pages where the system gives them on request, so
 * random probes also miss the TLB less. */
void *tt_alloc_table(size_t bytes);
void tt_free_table(void *p, size_t bytes);

/* Allocates a table of at most mib MiB (rounded down to a power of two of
 * buckets, at least 1). Returns false when the memory cannot be had, leaving
 * tt empty. */
bool tt_init(TT *tt, size_t mib);
void tt_free(TT *tt);
void tt_clear(TT *tt);
size_t tt_bytes(const TT *tt);

/* Starts a new search generation (older entries age). */
void tt_new_search(TT *tt);

/* Starts fetching the bucket of key, for a probe soon after (a child's,
 * before its move is made). */
static inline void tt_prefetch(const TT *tt, uint64_t key) { __builtin_prefetch(&tt->buckets[key & tt->mask]); }

/* Looks key up; ply turns stored mate distances back into root distances. */
TTProbe tt_probe(const TT *tt, uint64_t key, int ply);

void tt_store(TT *tt, uint64_t key, int ply, Move move, Score score, Score eval, int depth, int bound);

/* Mate-aware score conversions between root-relative and node-relative. */
Score tt_score_to(Score s, int ply);
Score tt_score_from(Score s, int ply);

#endif
