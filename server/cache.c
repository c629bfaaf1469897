/* cache.c - least-recently-used result cache (see cache.h). */
#include "server/cache.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    Rule rule;
    int size;
    bool ordered;
    Color to_move;
    int64_t time_ms, nodes;
    int depth, multipv;
    bool no_book;
    int nmoves;
    Move moves[BOARD_MAX_MOVES];
} Key;

typedef struct {
    Key key;
    EngineResult res;
} Entry;

struct ResultCache {
    pthread_mutex_t mu;
    int cap, n;
    uint64_t tick;
    uint64_t *hash;    /* hash[i] of entry i, for a quick scan */
    uint64_t *used_at; /* tick of entry i's last use */
    Entry *e;
};

static void key_of(const ApiRequest *req, Key *k)
{
    memset(k, 0, sizeof *k); /* padding included: keys are compared with memcmp */
    k->rule = req->pos.rule;
    k->size = req->pos.size;
    k->ordered = req->pos.ordered;
    k->to_move = req->to_move;
    k->time_ms = req->time_ms;
    k->nodes = req->nodes;
    k->depth = req->depth;
    k->multipv = req->multipv;
    k->no_book = req->no_book;
    k->nmoves = req->pos.nmoves;
    memcpy(k->moves, req->pos.moves, (size_t)req->pos.nmoves * sizeof *k->moves);
}

/* Bytes of a key that matter: the header and its moves. */
static size_t key_len(const Key *k) { return offsetof(Key, moves) + (size_t)k->nmoves * sizeof k->moves[0]; }

static uint64_t key_hash(const Key *k)
{
    const unsigned char *b = (const unsigned char *)k;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0, n = key_len(k); i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h | 1; /* 0 marks an empty slot */
}

ResultCache *cache_new(int entries)
{
    if (entries < 1) return NULL;
    ResultCache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->cap = entries;
    c->hash = calloc((size_t)entries, sizeof *c->hash);
    c->used_at = calloc((size_t)entries, sizeof *c->used_at);
    c->e = malloc((size_t)entries * sizeof *c->e);
    if (!c->hash || !c->used_at || !c->e) {
        cache_free(c);
        return NULL;
    }
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

void cache_free(ResultCache *c)
{
    if (!c) return;
    if (c->e && c->hash && c->used_at) pthread_mutex_destroy(&c->mu);
    free(c->hash);
    free(c->used_at);
    free(c->e);
    free(c);
}

/* Index of the entry for k (hash h), or -1. Called under the lock. */
static int find(const ResultCache *c, const Key *k, uint64_t h)
{
    size_t len = key_len(k);
    for (int i = 0; i < c->n; i++)
        if (c->hash[i] == h && !memcmp(&c->e[i].key, k, len)) return i;
    return -1;
}

bool cache_get(ResultCache *c, const ApiRequest *req, EngineResult *out)
{
    Key k;
    key_of(req, &k);
    uint64_t h = key_hash(&k);
    pthread_mutex_lock(&c->mu);
    int i = find(c, &k, h);
    if (i >= 0) {
        *out = c->e[i].res;
        c->used_at[i] = ++c->tick;
    }
    pthread_mutex_unlock(&c->mu);
    return i >= 0;
}

void cache_put(ResultCache *c, const ApiRequest *req, const EngineResult *res)
{
    Key k;
    key_of(req, &k);
    uint64_t h = key_hash(&k);
    pthread_mutex_lock(&c->mu);
    int i = find(c, &k, h);
    if (i < 0) {
        if (c->n < c->cap) {
            i = c->n++;
        } else {
            i = 0;
            for (int j = 1; j < c->n; j++)
                if (c->used_at[j] < c->used_at[i]) i = j;
        }
        memcpy(&c->e[i].key, &k, key_len(&k));
        c->hash[i] = h;
    }
    c->e[i].res = *res;
    c->used_at[i] = ++c->tick;
    pthread_mutex_unlock(&c->mu);
}
