/*
 * bench_core - speed of the engine core on 15x15: play+undo pairs per second
 * with full incremental pattern upkeep, and static evaluations per second.
 * Prints the median of several runs; the move sequences are fixed (seeded),
 * so runs differ only by the machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "engine/board.h"
#include "engine/eval.h"

#define GAMES 64
#define GAME_LEN 80
#define RUNS 7
#define PLAY_REPEAT 400
#define EVAL_REPEAT 200

static Move games[GAMES][GAME_LEN];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 12345;
static uint32_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

/* Random games that stay near the stones already played, as real ones do. */
static void make_games(Board *b)
{
    for (int g = 0; g < GAMES; g++) {
        board_reset(b, 15, RULE_FREESTYLE); /* stone placement only: any rule does */
        for (int i = 0; i < GAME_LEN; i++) {
            Move m;
            do {
                m = i == 0 ? MOVE_XY(7, 7) : MOVE_XY(rng() % 15, rng() % 15);
            } while (!board_empty(b, m) || (i && !board_near(b, m)));
            games[g][i] = m;
            board_play(b, m);
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Play/undo pairs per second over the fixed games, under one rule. */
static double play_undo_rate(Board *b, Rule rule)
{
    long pairs = 0;
    double t0 = now_s();
    for (int rep = 0; rep < PLAY_REPEAT; rep++) {
        const Move *g = games[rep % GAMES];
        board_reset(b, 15, rule);
        for (int i = 0; i < GAME_LEN / 2; i++) board_play(b, g[i]);
        /* the measured part: a search-like walk of play/undo pairs */
        for (int i = GAME_LEN / 2; i < GAME_LEN; i++) {
            for (int j = i; j < GAME_LEN; j++) board_play(b, g[j]);
            for (int j = i; j < GAME_LEN; j++) board_undo(b);
            pairs += GAME_LEN - i;
            board_play(b, g[i]);
            pairs++;
        }
    }
    return pairs / (now_s() - t0);
}

static void report(const char *what, const double *sorted)
{
    printf("%s %.2fM (median of %d; min %.2fM max %.2fM)\n", what, sorted[RUNS / 2] / 1e6, RUNS, sorted[0] / 1e6,
           sorted[RUNS - 1] / 1e6);
}

int main(void)
{
    if (!board_init_tables()) {
        fprintf(stderr, "bench-core: out of memory building tables\n");
        return 1;
    }
    static Board b;
    make_games(&b);

    double play_rate[RUNS], renju_rate[RUNS], eval_rate[RUNS];
    volatile Score sink = 0;
    for (int r = 0; r < RUNS; r++) {
        play_rate[r] = play_undo_rate(&b, RULE_FREESTYLE);
        renju_rate[r] = play_undo_rate(&b, RULE_RENJU);

        long evals = 0;
        double t0 = now_s();
        for (int g = 0; g < GAMES; g++) {
            board_reset(&b, 15, RULE_FREESTYLE);
            for (int i = 0; i < GAME_LEN; i++) {
                board_play(&b, games[g][i]);
                for (int k = 0; k < EVAL_REPEAT; k++) sink += eval_static(&b);
                evals += EVAL_REPEAT;
            }
        }
        double t1 = now_s();
        eval_rate[r] = evals / (t1 - t0);
    }
    qsort(play_rate, RUNS, sizeof(double), cmp_double);
    qsort(renju_rate, RUNS, sizeof(double), cmp_double);
    qsort(eval_rate, RUNS, sizeof(double), cmp_double);
    report("core 15x15 play+undo pairs/s (freestyle):", play_rate);
    report("core 15x15 play+undo pairs/s (renju):    ", renju_rate);
    report("core 15x15 evaluations/s:                ", eval_rate);
    return (int)(sink & 0);
}
