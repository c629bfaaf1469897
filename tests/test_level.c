/* engine/level: the level table and the seeded choice among multi-PV lines. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/eval_tables.h"
#include "engine/level.h"

/* A result with n lines of the given scores (mates where mate[i] != 0). */
static EngineResult result_of(int n, const Score *score, const int *mate)
{
    EngineResult r;
    memset(&r, 0, sizeof r);
    r.npv = n;
    for (int i = 0; i < n; i++) {
        r.pvs[i].move = MOVE_XY(i, 0);
        r.pvs[i].score = score[i];
        r.pvs[i].mate = mate ? mate[i] : 0;
        r.pvs[i].pv_len = 1;
        r.pvs[i].pv[0] = r.pvs[i].move;
    }
    r.best_move = r.pvs[0].move;
    r.score = r.pvs[0].score;
    return r;
}

/* A level like lv with another temperature and safety. */
static Level variant(int number, double temperature, bool safe)
{
    Level lv = *level_get(number);
    lv.temperature = temperature;
    lv.safe = safe;
    return lv;
}

static const Score quiet[] = {120, 100, 60, -40, -300};

Test(level, the_table_runs_from_1_to_10_with_names_and_full_strength_at_the_top)
{
    cr_assert_null(level_get(0));
    cr_assert_null(level_get(LEVEL_COUNT + 1));
    for (int n = LEVEL_MIN; n <= LEVEL_MAX; n++) {
        const Level *lv = level_get(n);
        cr_assert_eq(lv->number, n);
        cr_assert_eq(level_by_name(lv->name), lv, "%s", lv->name);
        cr_assert(lv->multipv >= 1 && lv->multipv <= ENGINE_MAX_MULTIPV);
        cr_assert_eq(lv->safe, n >= LEVEL_SAFE_FROM);
        if (n > 1) cr_assert_geq(lv->elo, level_get(n - 1)->elo, "the ladder rises at level %d", n);
        if (n < LEVEL_MAX) cr_assert(lv->nodes > 0 && lv->nodes > (n > 1 ? level_get(n - 1)->nodes : 0));
    }
    const Level *top = level_get(LEVEL_MAX);
    cr_assert_eq(top->nodes, 0, "full strength: the normal limits");
    cr_assert_eq(top->multipv, 1);
    cr_assert_eq(top->temperature, 0);
    cr_assert_eq(level_get(1)->elo, 0, "anchored at level 1");
    cr_assert_null(level_by_name("Beginner"));
    cr_assert_null(level_by_name(NULL));
}

Test(level, the_same_seed_chooses_the_same_line)
{
    EngineResult r = result_of(5, quiet, NULL);
    Level lv = variant(3, 50, false); /* hot: every line has a real chance */
    for (uint64_t seed = 0; seed < 200; seed++) {
        int a = level_choose(&r, &lv, seed, NULL), b = level_choose(&r, &lv, seed, NULL);
        cr_assert_eq(a, b, "seed %llu", (unsigned long long)seed);
        cr_assert(a >= 0 && a < 5);
    }
}

Test(level, different_seeds_spread_the_choice_by_the_probabilities)
{
    EngineResult r = result_of(5, quiet, NULL);
    Level lv = variant(3, 1.0, false);
    LevelChoice c;
    level_choose(&r, &lv, 0, &c);
    int count[5] = {0}, draws = 20000;
    for (int s = 0; s < draws; s++) count[level_choose(&r, &lv, (uint64_t)s * 7919, NULL)]++;
    for (int i = 0; i < 5; i++)
        cr_assert(fabs((double)count[i] / draws - c.probability[i]) < 0.02, "line %d: %d of %d, p %.3f", i, count[i],
                  draws, c.probability[i]);
    cr_assert_gt(count[1], 0, "a weaker line is chosen now and then");
}

Test(level, temperature_zero_always_plays_the_best_line)
{
    Score s[] = {-50, 40, 40, 10}; /* the best line need not come first */
    EngineResult r = result_of(4, s, NULL);
    Level lv = variant(9, 0, true);
    LevelChoice c;
    for (uint64_t seed = 0; seed < 100; seed++) cr_assert_eq(level_choose(&r, &lv, seed * 31 + 5, &c), 1);
    cr_assert_eq(c.probability[1], 1);
    cr_assert_eq(c.probability[0] + c.probability[2] + c.probability[3], 0);
}

Test(level, the_probabilities_sum_to_one_and_fall_with_the_win_rate)
{
    EngineResult r = result_of(5, quiet, NULL);
    for (int n = LEVEL_MIN; n <= LEVEL_MAX; n++) {
        LevelChoice c;
        int k = level_choose(&r, level_get(n), 12345, &c);
        double sum = 0;
        for (int i = 0; i < c.n; i++) {
            sum += c.probability[i];
            if (i > 0) cr_assert_leq(c.probability[i], c.probability[i - 1] + 1e-12, "level %d line %d", n, i);
            cr_assert(fabs(c.choice_winrate[i] - 1 / (1 + exp(-quiet[i] / eval_winrate_scale))) < 1e-12);
            if (level_get(n)->temperature > 0)
                cr_assert(fabs(c.probability[i] / c.probability[0] -
                               exp(-100 * (c.choice_winrate[0] - c.choice_winrate[i]) / level_get(n)->temperature)) < 1e-9,
                          "level %d line %d: the softmax over the choice's win-rate points", n, i);
        }
        cr_assert(fabs(sum - 1) < 1e-9, "level %d: sum %.12f", n, sum);
        cr_assert_gt(c.probability[k], 0, "the chosen line had a chance");
    }
}

Test(level, a_safe_level_never_walks_into_a_proven_loss_when_it_can_avoid_it)
{
    /* the second line is a proven loss, the others are merely worse */
    Score s[] = {30, -SCORE_MATE + 6, -20};
    int mate[] = {0, -3, 0};
    EngineResult r = result_of(3, s, mate);
    Level hot_safe = variant(LEVEL_SAFE_FROM, 1e6, true), hot_unsafe = variant(1, 1e6, false);
    LevelChoice c;
    level_choose(&r, &hot_safe, 0, &c);
    cr_assert_eq(c.probability[1], 0, "excluded");
    bool unsafe_lost = false;
    for (uint64_t seed = 0; seed < 300; seed++) {
        cr_assert_neq(level_choose(&r, &hot_safe, seed, NULL), 1, "seed %llu", (unsigned long long)seed);
        unsafe_lost |= level_choose(&r, &hot_unsafe, seed, NULL) == 1;
    }
    cr_assert(unsafe_lost, "below LEVEL_SAFE_FROM a hot player may still blunder");
    /* when every line loses, one is still played */
    int all_lose[] = {-2, -3, -5};
    Score ls[] = {-SCORE_MATE + 4, -SCORE_MATE + 6, -SCORE_MATE + 10};
    r = result_of(3, ls, all_lose);
    cr_assert_geq(level_choose(&r, &hot_safe, 7, NULL), 0);
}

Test(level, a_safe_level_keeps_a_proven_win)
{
    Score s[] = {SCORE_MATE - 5, 900, 880};
    int mate[] = {3, 0, 0};
    EngineResult r = result_of(3, s, mate);
    Level hot_safe = variant(LEVEL_SAFE_FROM, 1e6, true);
    for (uint64_t seed = 0; seed < 300; seed++) cr_assert_eq(level_choose(&r, &hot_safe, seed, NULL), 0);
}

Test(level, a_result_without_lines_chooses_nothing)
{
    EngineResult r = result_of(0, NULL, NULL);
    LevelChoice c;
    cr_assert_eq(level_choose(&r, level_get(1), 0, &c), -1);
    cr_assert_eq(c.n, 0);
}

Test(level, the_position_seed_depends_on_the_seed_and_every_move)
{
    Position p = {.rule = RULE_FREESTYLE, .size = 15, .ordered = true, .nmoves = 2};
    p.moves[0] = MOVE_XY(7, 7);
    p.moves[1] = MOVE_XY(8, 8);
    uint64_t a = level_position_seed(&p, 1);
    cr_assert_eq(a, level_position_seed(&p, 1));
    cr_assert_neq(a, level_position_seed(&p, 2));
    p.moves[1] = MOVE_XY(8, 7);
    cr_assert_neq(a, level_position_seed(&p, 1));
}

Test(level, limits_below_the_top_are_the_node_cap_and_lines_within_the_callers_caps)
{
    const Level *lv = level_get(4), *top = level_get(LEVEL_MAX);
    Limits base = {.time_ms = 9000, .depth = 64, .nodes = 0, .multipv = 1};
    Limits l = level_limits(lv, base);
    cr_assert_eq(l.nodes, lv->nodes);
    cr_assert_eq(l.multipv, lv->multipv);
    cr_assert_eq(l.time_ms, 9000);
    cr_assert_eq(l.depth, 64, "no depth cap at this level");
    const Level *deep = level_get(7);
    cr_assert_gt(deep->depth, 0);
    cr_assert_eq(level_limits(deep, base).depth, deep->depth, "the level's depth cap");
    base.depth = 1;
    cr_assert_eq(level_limits(deep, base).depth, 1, "a tighter depth wins");
    base.depth = 64;
    base.nodes = lv->nodes / 2;
    cr_assert_eq(level_limits(lv, base).nodes, lv->nodes / 2, "a tighter cap wins");
    base = (Limits){.time_ms = 1000, .multipv = 3};
    l = level_limits(top, base);
    cr_assert_eq(l.time_ms, 1000);
    cr_assert_eq(l.nodes, 0);
    cr_assert_eq(l.multipv, 1);
}
