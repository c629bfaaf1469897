/* ratelimit.c - token buckets in an open-addressing table (see ratelimit.h). */
#include "server/ratelimit.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CLIENT_KEY_MAX 64 /* longer client ids are hashed down to their first bytes plus a digest */

typedef struct {
    bool used;
    uint8_t len;
    char key[CLIENT_KEY_MAX];
    double tokens;
    int64_t at_ns;   /* when tokens was last brought up to date */
    int64_t used_ns; /* the client's last request */
} Bucket;

struct RateLimiter {
    pthread_mutex_t mu;
    double rate, burst;
    int cap, n; /* slots (a power of two, twice the clients) and clients held */
    int max_clients;
    Bucket *slot;
};

static uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h ^ (h >> 29);
}

RateLimiter *ratelimit_new(int rate, int burst, int clients)
{
    if (rate < 1 || burst < 1 || clients < 1) return NULL;
    RateLimiter *rl = calloc(1, sizeof *rl);
    if (!rl) return NULL;
    rl->cap = 16;
    while (rl->cap < 2 * clients) rl->cap *= 2;
    rl->slot = calloc((size_t)rl->cap, sizeof *rl->slot);
    if (!rl->slot) {
        free(rl);
        return NULL;
    }
    rl->rate = rate;
    rl->burst = burst;
    rl->max_clients = clients;
    pthread_mutex_init(&rl->mu, NULL);
    return rl;
}

void ratelimit_free(RateLimiter *rl)
{
    if (!rl) return;
    pthread_mutex_destroy(&rl->mu);
    free(rl->slot);
    free(rl);
}

/* Brings a bucket's tokens up to now. */
static void refill(const RateLimiter *rl, Bucket *b, int64_t now_ns)
{
    if (now_ns > b->at_ns) {
        b->tokens = fmin(rl->burst, b->tokens + rl->rate * (double)(now_ns - b->at_ns) / 1e9);
        b->at_ns = now_ns;
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Rebuilds the table without the buckets that are full again (or, if none
 * is, without the longest idle half), so that a new client finds room. */
static void evict(RateLimiter *rl, int64_t now_ns)
{
    int64_t oldest_keep = INT64_MIN;
    int full = 0;
    for (int i = 0; i < rl->cap; i++) {
        Bucket *b = &rl->slot[i];
        if (!b->used) continue;
        refill(rl, b, now_ns);
        full += b->tokens >= rl->burst;
    }
    if (full == 0 && rl->n > 0) { /* nobody is full: forget the idler half, by last use */
        int64_t *at = malloc((size_t)(unsigned)rl->n * sizeof *at);
        int k = 0;
        if (at) {
            for (int i = 0; i < rl->cap; i++)
                if (rl->slot[i].used) at[k++] = rl->slot[i].used_ns;
            qsort(at, (size_t)k, sizeof *at, cmp_i64);
            int mid = k / 2;
            oldest_keep = k ? at[mid] : INT64_MIN;
            free(at);
        }
    }
    Bucket *old = rl->slot;
    Bucket *fresh = calloc((size_t)rl->cap, sizeof *fresh);
    if (!fresh) { /* no memory to rebuild: drop everything, every client starts full */
        memset(rl->slot, 0, (size_t)rl->cap * sizeof *rl->slot);
        rl->n = 0;
        return;
    }
    rl->slot = fresh;
    rl->n = 0;
    for (int i = 0; i < rl->cap; i++) {
        Bucket *b = &old[i];
        if (!b->used || b->tokens >= rl->burst || (full == 0 && b->used_ns <= oldest_keep)) continue;
        uint64_t h = hash_bytes(b->key, b->len);
        int j = (int)(h & (uint64_t)(rl->cap - 1));
        while (rl->slot[j].used) j = (j + 1) & (rl->cap - 1);
        rl->slot[j] = *b;
        rl->n++;
    }
    free(old);
}

RateDecision ratelimit_take(RateLimiter *rl, const void *client, size_t len, int64_t now_ns)
{
    char key[CLIENT_KEY_MAX];
    if (len > CLIENT_KEY_MAX) { /* keep a prefix and a digest of the whole */
        uint64_t h = hash_bytes(client, len);
        memcpy(key, client, CLIENT_KEY_MAX - 8);
        memcpy(key + CLIENT_KEY_MAX - 8, &h, 8);
        len = CLIENT_KEY_MAX;
    } else {
        memcpy(key, client, len);
    }
    RateDecision d = {0};
    pthread_mutex_lock(&rl->mu);
    uint64_t h = hash_bytes(key, len);
    int i = (int)(h & (uint64_t)(rl->cap - 1));
    while (rl->slot[i].used && !(rl->slot[i].len == len && !memcmp(rl->slot[i].key, key, len)))
        i = (i + 1) & (rl->cap - 1);
    if (!rl->slot[i].used) {
        if (rl->n >= rl->max_clients) {
            evict(rl, now_ns);
            i = (int)(h & (uint64_t)(rl->cap - 1));
            while (rl->slot[i].used) i = (i + 1) & (rl->cap - 1);
        }
        Bucket *b = &rl->slot[i];
        b->used = true;
        b->len = (uint8_t)len;
        memcpy(b->key, key, len);
        b->tokens = rl->burst;
        b->at_ns = now_ns;
        rl->n++;
    }
    Bucket *b = &rl->slot[i];
    refill(rl, b, now_ns);
    b->used_ns = now_ns;
    if (b->tokens >= 1.0) {
        b->tokens -= 1.0;
        d.allowed = true;
    } else {
        d.retry_after_s = (int)ceil((1.0 - b->tokens) / rl->rate);
        if (d.retry_after_s < 1) d.retry_after_s = 1;
    }
    d.remaining = (int)floor(b->tokens);
    d.reset_s = (int)ceil((rl->burst - b->tokens) / rl->rate);
    pthread_mutex_unlock(&rl->mu);
    return d;
}

int ratelimit_clients(RateLimiter *rl)
{
    pthread_mutex_lock(&rl->mu);
    int n = rl->n;
    pthread_mutex_unlock(&rl->mu);
    return n;
}
