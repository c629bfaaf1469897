/* The token buckets of the rate limit, on a clock the test moves. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "server/ratelimit.h"

#define SEC 1000000000LL

static RateDecision take(RateLimiter *rl, const char *client, int64_t t)
{
    return ratelimit_take(rl, client, strlen(client), t);
}

Test(ratelimit, a_bucket_gives_its_burst_then_refills_at_the_rate)
{
    RateLimiter *rl = ratelimit_new(2, 4, 16);
    cr_assert_not_null(rl);
    for (int i = 0; i < 4; i++) {
        RateDecision d = take(rl, "a", 0);
        cr_assert(d.allowed, "token %d of the burst", i + 1);
        cr_assert_eq(d.remaining, 3 - i);
    }
    RateDecision d = take(rl, "a", 0);
    cr_assert_not(d.allowed);
    cr_assert_eq(d.retry_after_s, 1);
    cr_assert_eq(d.reset_s, 2, "four tokens at two a second");
    cr_assert_not(take(rl, "a", SEC / 4).allowed, "half a token is not one");
    cr_assert(take(rl, "a", SEC / 2).allowed, "one token after half a second");
    cr_assert_not(take(rl, "a", SEC / 2).allowed);
    d = take(rl, "a", 100 * SEC);
    cr_assert(d.allowed);
    cr_assert_eq(d.remaining, 3, "a bucket never holds more than its burst");
    ratelimit_free(rl);
}

Test(ratelimit, clients_have_their_own_buckets)
{
    RateLimiter *rl = ratelimit_new(1, 1, 16);
    cr_assert(take(rl, "a", 0).allowed);
    cr_assert_not(take(rl, "a", 0).allowed);
    cr_assert(take(rl, "b", 0).allowed);
    cr_assert(ratelimit_take(rl, "a\0x", 3, 0).allowed, "ids are bytes, not strings");
    cr_assert_eq(ratelimit_clients(rl), 3);
    ratelimit_free(rl);
}

Test(ratelimit, a_full_table_forgets_idle_clients_but_not_a_busy_one)
{
    RateLimiter *rl = ratelimit_new(1, 2, 8);
    char id[16];
    /* a busy client, empty bucket */
    cr_assert(take(rl, "busy", 0).allowed);
    cr_assert(take(rl, "busy", 0).allowed);
    for (int i = 0; i < 100; i++) {
        snprintf(id, sizeof id, "c%d", i);
        cr_assert(take(rl, id, 10 * i).allowed, "a new client starts full");
        cr_assert_leq(ratelimit_clients(rl), 8);
        cr_assert_not(take(rl, "busy", 10 * i).allowed, "client %d made room by forgetting the busy one", i);
    }
    ratelimit_free(rl);
}

Test(ratelimit, long_client_ids_are_kept_apart_by_a_digest)
{
    RateLimiter *rl = ratelimit_new(1, 1, 16);
    char a[200], b[200];
    memset(a, 'k', sizeof a);
    memcpy(b, a, sizeof b);
    b[199] = 'z';
    cr_assert(ratelimit_take(rl, a, sizeof a, 0).allowed);
    cr_assert(ratelimit_take(rl, b, sizeof b, 0).allowed, "differs only at the end");
    cr_assert_not(ratelimit_take(rl, a, sizeof a, 0).allowed);
    ratelimit_free(rl);
}
