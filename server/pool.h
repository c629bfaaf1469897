/*
 * pool.h - a bounded queue of work items and the threads that run them.
 *
 * Each worker thread owns a private state made once at start (the server's
 * is an Engine), so items run without locks of their own. The queue holds at
 * most `capacity` items waiting for a worker; running items do not count.
 *
 * Submission is two-step so that a caller can prepare for the items to run
 * (the server suspends the HTTP connection) only once room is certain:
 * pool_reserve takes n slots or fails at once (full or closed), then
 * pool_commit hands over exactly those n items, or pool_release gives the
 * slots back. Items are run in FIFO order, each exactly once, even after
 * pool_close: closing refuses new reservations but never drops queued work.
 */
#ifndef GOMOKUD_POOL_H
#define GOMOKUD_POOL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct Pool Pool;

typedef struct {
    int workers;  /* >= 1 */
    int capacity; /* >= 1: items that may wait */
    /* Makes worker index's private state; NULL = failure (pool_start then
     * fails). Called on the starting thread, before any worker runs. */
    void *(*worker_init)(void *ctx, int index);
    /* Frees a state made by worker_init (NULL-safe not required). */
    void (*worker_fini)(void *ctx, void *state);
    /* Runs one item on a worker thread with that worker's state. */
    void (*run)(void *ctx, void *state, void *item);
    void *ctx;
} PoolConfig;

typedef enum { POOL_OK = 0, POOL_FULL, POOL_CLOSED } PoolStatus;

/* Starts the workers. Returns false with a message in err (bad sizes, a
 * worker_init failure, no thread) and *out NULL; nothing is left running. */
bool pool_start(const PoolConfig *cfg, Pool **out, char *err, size_t errlen);

/* Reserves room for n items (1..capacity). POOL_FULL when fewer than n slots
 * are free, POOL_CLOSED after pool_close; nothing is reserved then. */
PoolStatus pool_reserve(Pool *p, int n);

/* Queues n items into slots reserved by pool_reserve(p, n). */
void pool_commit(Pool *p, void *const *items, int n);

/* Gives back n reserved slots that will not be committed. */
void pool_release(Pool *p, int n);

/* Refuses further reservations (POOL_CLOSED); queued items still run. */
void pool_close(Pool *p);

/* Waits until nothing is queued, reserved or running, at most timeout_ms
 * (< 0: no limit). Returns true when idle. */
bool pool_wait_idle(Pool *p, int timeout_ms);

/* Items waiting (reserved slots included), workers running an item, and the
 * fixed sizes. Snapshots; safe from any thread. */
int pool_queued(Pool *p);
int pool_busy(Pool *p);
int pool_workers(const Pool *p);
int pool_capacity(const Pool *p);

/* Closes the pool, lets the workers run every queued item, joins them,
 * frees their states and the pool. NULL is a no-op. Must not be called from
 * a worker. */
void pool_free(Pool *p);

#endif
