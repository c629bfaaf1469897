/* tt.c - bucketed transposition table (see tt.h). */
#include "tt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "engine.h"

/* An entry from an older generation counts this many plies shallower per
 * generation when choosing a victim. */
#define TT_AGE_WEIGHT 8
#define TT_HUGE_PAGE ((size_t)2 << 20)

static bool huge_table(size_t bytes) { return bytes >= TT_HUGE_PAGE && bytes % TT_HUGE_PAGE == 0; }

void *tt_alloc_table(size_t bytes)
{
    if (!huge_table(bytes)) return calloc(1, bytes);
    /* mapped with a huge page's slack, then trimmed to an aligned span; the
     * pages stay unwritten (zero) until first touched, as calloc's would */
    size_t span = bytes + TT_HUGE_PAGE;
    char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    char *p = (char *)(((uintptr_t)m + TT_HUGE_PAGE - 1) & ~(uintptr_t)(TT_HUGE_PAGE - 1));
    if (p > m) munmap(m, (size_t)(p - m));
    if (m + span > p + bytes) munmap(p + bytes, (size_t)(m + span - (p + bytes)));
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE); /* a hint: without huge pages the table works the same */
#endif
    return p;
}

void tt_free_table(void *p, size_t bytes)
{
    if (!p) return;
    if (huge_table(bytes)) munmap(p, bytes);
    else free(p);
}

bool tt_init(TT *tt, size_t mib)
{
    memset(tt, 0, sizeof *tt);
    if (mib == 0) mib = 1;
    size_t want = mib * 1024 * 1024 / sizeof(TTBucket), n = 1;
    while (n * 2 <= want) n *= 2;
    tt->buckets = tt_alloc_table(n * sizeof(TTBucket));
    if (!tt->buckets) return false;
    tt->mask = n - 1;
    return true;
}

void tt_free(TT *tt)
{
    tt_free_table(tt->buckets, tt_bytes(tt));
    memset(tt, 0, sizeof *tt);
}

void tt_clear(TT *tt)
{
    if (tt->buckets) memset(tt->buckets, 0, (tt->mask + 1) * sizeof(TTBucket));
    tt->generation = 0;
}

size_t tt_bytes(const TT *tt) { return tt->buckets ? (tt->mask + 1) * sizeof(TTBucket) : 0; }

void tt_new_search(TT *tt)
{
    tt->generation = (uint8_t)((tt->generation + 1) & 63);
    tt->search++;
}

Score tt_score_to(Score s, int ply)
{
    if (s >= SCORE_MATE_MIN) return s + ply;
    if (s <= -SCORE_MATE_MIN) return s - ply;
    return s;
}

Score tt_score_from(Score s, int ply)
{
    if (s >= SCORE_MATE_MIN) return s - ply;
    if (s <= -SCORE_MATE_MIN) return s + ply;
    return s;
}

TTProbe tt_probe(const TT *tt, uint64_t key, int ply)
{
    TTProbe p = {.hit = false, .move = MOVE_NONE};
    const TTBucket *b = &tt->buckets[key & tt->mask];
    uint32_t check = (uint32_t)(key >> 32);
    for (int i = 0; i < TT_BUCKET; i++) {
        const TTEntry *e = &b->e[i];
        if (e->check != check || !(e->genbound & 3) || (tt->fresh_only && e->search != tt->search)) continue;
        p.hit = true;
        p.move = e->move;
        p.score = tt_score_from(e->score, ply);
        p.eval = e->eval;
        p.depth = e->depth;
        p.bound = e->genbound & 3;
        break;
    }
    return p;
}

static int age_of(const TT *tt, const TTEntry *e) { return (tt->generation - (e->genbound >> 2)) & 63; }

void tt_store(TT *tt, uint64_t key, int ply, Move move, Score score, Score eval, int depth, int bound)
{
    TTBucket *b = &tt->buckets[key & tt->mask];
    uint32_t check = (uint32_t)(key >> 32);
    TTEntry *same = NULL, *free_slot = NULL, *weakest = NULL;
    int worst = 1 << 30;
    for (int i = 0; i < TT_BUCKET; i++) {
        TTEntry *e = &b->e[i];
        /* Searches that start fresh treat earlier searches' entries as empty:
         * neither their moves nor their depths may decide anything, so that
         * a search at a node or depth limit is a function of its position. */
        bool empty = !(e->genbound & 3) || (tt->fresh_only && e->search != tt->search);
        if (empty) {
            if (!free_slot) free_slot = e;
            continue;
        }
        if (e->check == check) {
            /* keep a deeper result of this search unless the new one is exact */
            if (age_of(tt, e) == 0 && bound != BOUND_EXACT && e->depth > depth + 2) return;
            if (move == MOVE_NONE) move = e->move;
            same = e;
            break;
        }
        int value = e->depth - TT_AGE_WEIGHT * age_of(tt, e);
        if (value < worst) {
            worst = value;
            weakest = e;
        }
    }
    TTEntry *victim = same ? same : free_slot ? free_slot : weakest;
    victim->check = check;
    victim->move = move;
    victim->score = (int16_t)tt_score_to(score, ply);
    victim->eval = (int16_t)eval;
    victim->depth = (int8_t)(depth < 0 ? 0 : depth > 127 ? 127 : depth);
    victim->genbound = (uint8_t)(tt->generation << 2 | bound);
    victim->search = tt->search;
}
