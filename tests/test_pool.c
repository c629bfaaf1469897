/* The bounded work queue and its worker threads. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "server/pool.h"

#define MAX_LOG 64

/* What the test workers record. */
typedef struct {
    atomic_int inits, finis;
    int fail_init_at; /* worker index whose init fails; -1 = none */
    atomic_bool gate; /* items with .blocking wait until this opens */
    pthread_mutex_t mu;
    int log[MAX_LOG]; /* item ids in run order */
    int nlog;
    int worker_of[MAX_LOG];
} Ctx;

typedef struct {
    int id;
    bool blocking;
    atomic_bool started;
} TestItem;

static int states[8];

static void *t_init(void *ctx, int index)
{
    Ctx *c = ctx;
    if (index == c->fail_init_at) return NULL;
    atomic_fetch_add(&c->inits, 1);
    states[index] = index;
    return &states[index];
}

static void t_fini(void *ctx, void *state)
{
    (void)state;
    atomic_fetch_add(&((Ctx *)ctx)->finis, 1);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void t_run(void *ctx, void *state, void *item)
{
    Ctx *c = ctx;
    TestItem *it = item;
    atomic_store(&it->started, true);
    if (it->blocking)
        while (!atomic_load(&c->gate)) sleep_ms(1);
    pthread_mutex_lock(&c->mu);
    if (c->nlog < MAX_LOG) {
        c->worker_of[c->nlog] = *(int *)state;
        c->log[c->nlog++] = it->id;
    }
    pthread_mutex_unlock(&c->mu);
}

static Ctx ctx;

static Pool *start(int workers, int capacity)
{
    memset(&ctx, 0, sizeof ctx);
    ctx.fail_init_at = -1;
    pthread_mutex_init(&ctx.mu, NULL);
    PoolConfig pc = {workers, capacity, t_init, t_fini, t_run, &ctx};
    Pool *p = NULL;
    char err[128];
    cr_assert(pool_start(&pc, &p, err, sizeof err), "%s", err);
    return p;
}

static void wait_started(TestItem *it)
{
    for (int i = 0; i < 5000 && !atomic_load(&it->started); i++) sleep_ms(1);
    cr_assert(atomic_load(&it->started), "item %d never started", it->id);
}

static void submit(Pool *p, TestItem *it)
{
    cr_assert_eq(pool_reserve(p, 1), POOL_OK, "item %d refused", it->id);
    void *ptr = it;
    pool_commit(p, &ptr, 1);
}

Test(pool, items_run_once_each_in_fifo_order)
{
    Pool *p = start(1, 16);
    TestItem items[10];
    void *ptrs[10];
    for (int i = 0; i < 10; i++) {
        items[i] = (TestItem){.id = i};
        ptrs[i] = &items[i];
    }
    cr_assert_eq(pool_reserve(p, 10), POOL_OK);
    pool_commit(p, ptrs, 10);
    cr_assert(pool_wait_idle(p, 5000));
    cr_assert_eq(ctx.nlog, 10);
    for (int i = 0; i < 10; i++) cr_assert_eq(ctx.log[i], i);
    pool_free(p);
}

Test(pool, every_worker_gets_its_own_state_made_and_freed_once)
{
    Pool *p = start(4, 8);
    cr_assert_eq(atomic_load(&ctx.inits), 4);
    cr_assert_eq(pool_workers(p), 4);
    cr_assert_eq(pool_capacity(p), 8);
    pool_free(p);
    cr_assert_eq(atomic_load(&ctx.finis), 4);
}

Test(pool, a_full_queue_refuses_a_reservation_and_release_gives_room_back)
{
    Pool *p = start(1, 2);
    atomic_store(&ctx.gate, false);
    TestItem running = {.id = 0, .blocking = true};
    submit(p, &running);
    wait_started(&running);
    cr_assert_eq(pool_busy(p), 1);
    cr_assert_eq(pool_queued(p), 0, "a running item does not take a queue slot");

    cr_assert_eq(pool_reserve(p, 3), POOL_FULL, "more than the capacity at once");
    cr_assert_eq(pool_reserve(p, 2), POOL_OK);
    cr_assert_eq(pool_queued(p), 2, "reserved slots count as queued");
    cr_assert_eq(pool_reserve(p, 1), POOL_FULL);
    pool_release(p, 1);
    TestItem waiting = {.id = 1};
    void *ptr = &waiting;
    pool_commit(p, &ptr, 1);
    cr_assert_eq(pool_queued(p), 1);
    cr_assert_eq(pool_reserve(p, 1), POOL_OK);
    pool_release(p, 1);

    atomic_store(&ctx.gate, true);
    cr_assert(pool_wait_idle(p, 5000));
    cr_assert_eq(ctx.nlog, 2);
    cr_assert_eq(pool_busy(p), 0);
    pool_free(p);
}

Test(pool, a_closed_pool_refuses_new_work_but_runs_what_is_queued)
{
    Pool *p = start(1, 4);
    atomic_store(&ctx.gate, false);
    TestItem a = {.id = 0, .blocking = true}, b = {.id = 1}, c = {.id = 2};
    submit(p, &a);
    wait_started(&a);
    submit(p, &b);
    submit(p, &c);
    pool_close(p);
    cr_assert_eq(pool_reserve(p, 1), POOL_CLOSED);
    atomic_store(&ctx.gate, true);
    pool_free(p); /* joins only after b and c ran */
    cr_assert_eq(ctx.nlog, 3);
    cr_assert_eq(ctx.log[1], 1);
    cr_assert_eq(ctx.log[2], 2);
}

Test(pool, wait_idle_times_out_while_an_item_runs)
{
    Pool *p = start(2, 4);
    atomic_store(&ctx.gate, false);
    TestItem a = {.id = 0, .blocking = true};
    submit(p, &a);
    wait_started(&a);
    cr_assert_not(pool_wait_idle(p, 20));
    atomic_store(&ctx.gate, true);
    cr_assert(pool_wait_idle(p, 5000));
    pool_free(p);
}

Test(pool, items_spread_over_the_workers)
{
    Pool *p = start(2, 8);
    atomic_store(&ctx.gate, false);
    TestItem a = {.id = 0, .blocking = true}, b = {.id = 1, .blocking = true};
    submit(p, &a);
    submit(p, &b);
    wait_started(&a);
    wait_started(&b); /* both run at once: a single worker could not start b */
    cr_assert_eq(pool_busy(p), 2);
    atomic_store(&ctx.gate, true);
    cr_assert(pool_wait_idle(p, 5000));
    cr_assert_neq(ctx.worker_of[0], ctx.worker_of[1]);
    pool_free(p);
}

Test(pool, a_failed_worker_setup_fails_the_start_and_frees_the_others)
{
    memset(&ctx, 0, sizeof ctx);
    ctx.fail_init_at = 2;
    PoolConfig pc = {4, 4, t_init, t_fini, t_run, &ctx};
    Pool *p = (Pool *)&ctx;
    char err[128] = "";
    cr_assert_not(pool_start(&pc, &p, err, sizeof err));
    cr_assert_null(p);
    cr_assert(strstr(err, "worker 2"), "%s", err);
    cr_assert_eq(atomic_load(&ctx.inits), 2);
    cr_assert_eq(atomic_load(&ctx.finis), 2);
}

Test(pool, bad_sizes_are_refused)
{
    memset(&ctx, 0, sizeof ctx);
    ctx.fail_init_at = -1;
    PoolConfig pc = {0, 4, t_init, t_fini, t_run, &ctx};
    Pool *p = NULL;
    char err[128];
    cr_assert_not(pool_start(&pc, &p, err, sizeof err));
    pc.workers = 1;
    pc.capacity = 0;
    cr_assert_not(pool_start(&pc, &p, err, sizeof err));
    cr_assert_null(p);
}
