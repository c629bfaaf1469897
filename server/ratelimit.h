/*
 * ratelimit.h - per-client token buckets for the server's rate limit.
 *
 * Each client (an API key, or an address when there are none) has a bucket
 * of `burst` tokens that refills at `rate` tokens a second; a request takes
 * one token or is refused with the time until one is back. The table is
 * bounded: when it is full, a client idle long enough for its bucket to be
 * full again is forgotten (it would start full anyway), and failing that
 * the longest idle one is. Safe from any thread.
 */
#ifndef GOMOKUD_RATELIMIT_H
#define GOMOKUD_RATELIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct RateLimiter RateLimiter;

/* What one request found in its client's bucket. */
typedef struct {
    bool allowed;
    int remaining;      /* whole tokens left after this request */
    int retry_after_s;  /* refused: seconds until a token is back (>= 1) */
    int reset_s;        /* seconds until the bucket is full again */
} RateDecision;

/* A limiter of `rate` requests a second and bursts of `burst`, remembering
 * at most `clients` clients. NULL when memory is short. */
RateLimiter *ratelimit_new(int rate, int burst, int clients);
void ratelimit_free(RateLimiter *rl);

/* Takes a token of client (len bytes, any content) at time now_ns
 * (monotonic). */
RateDecision ratelimit_take(RateLimiter *rl, const void *client, size_t len, int64_t now_ns);

/* Clients currently remembered. */
int ratelimit_clients(RateLimiter *rl);

#endif
