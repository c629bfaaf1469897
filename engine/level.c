/* level.c - the level table and the seeded choice among multi-PV lines (see level.h). */
#include "level.h"

#include <math.h>
#include <string.h>

#include "eval_tables.h"

/* Win-rate points per unit of level_choice_winrate (which is 0..1). */
#define WINRATE_POINTS 100.0

/* The ladder. Node caps rise from level to level, the middle levels
 * deepen by their depth caps, the lines narrow and the temperature falls. Win-rate points are
 * small between ordinary moves (the choice curve's scale is some 1,700 score
 * units: 100 units are about 1.4 points), so temperatures of a few points
 * already spread the choice over the lines of a quiet position while a move
 * that loses a three or a four (tens of points) stays rare. The Elo column
 * is what `make calibrate-levels` measured (docs/levels.md): each level
 * against the next from balanced openings, anchored at level 1 = 0. */
static const Level levels[LEVEL_COUNT] = {
    /* number, name, nodes, depth, multipv, temperature, safe, elo */
    {1, "beginner", 500, 0, 8, 40.0, false, 0},
    {2, "novice", 1000, 0, 8, 24.0, false, 163},
    {3, "casual", 2000, 0, 8, 15.0, false, 300},
    {4, "amateur", 4000, 0, 6, 9.0, false, 389},
    {5, "club", 8000, 0, 6, 6.0, true, 478},
    {6, "intermediate", 24000, 2, 5, 4.0, true, 544},
    {7, "advanced", 48000, 4, 4, 2.5, true, 799},
    {8, "expert", 80000, 6, 3, 1.5, true, 962},
    {9, "master", 160000, 0, 2, 0.5, true, 1125},
    {10, "grandmaster", 0, 0, 1, 0.0, true, 1262},
};

const Level *level_get(int n)
{
    if (n < LEVEL_MIN || n > LEVEL_MAX) return NULL;
    return &levels[n - 1];
}

const Level *level_by_name(const char *name)
{
    for (int i = 0; name && i < LEVEL_COUNT; i++)
        if (!strcmp(levels[i].name, name)) return &levels[i];
    return NULL;
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

uint64_t level_position_seed(const Position *p, uint64_t seed)
{
    uint64_t h = mix64(seed ^ ((uint64_t)p->rule << 8 | (uint64_t)p->size));
    for (int i = 0; i < p->nmoves; i++) h = mix64(h ^ (uint16_t)p->moves[i]);
    return h;
}

double level_choice_winrate(Score score, int mate) { return engine_winrate_curve(score, mate, 0, eval_winrate_scale); }

/* A uniform draw in [0, 1) from a seed: the top 53 bits of its mix. */
static double uniform(uint64_t seed) { return (double)(mix64(seed) >> 11) * (1.0 / 9007199254740992.0); }

int level_choose(const EngineResult *res, const Level *lv, uint64_t seed, LevelChoice *out)
{
    LevelChoice c;
    memset(&c, 0, sizeof c);
    c.chosen = -1;
    c.n = res->npv < 0 ? 0 : res->npv > ENGINE_MAX_MULTIPV ? ENGINE_MAX_MULTIPV : res->npv;
    bool allowed[ENGINE_MAX_MULTIPV];
    bool any_win = false, any_safe = false;
    int n = 0;
    for (int i = 0; i < c.n; i++) {
        const PvLine *l = &res->pvs[i];
        allowed[i] = l->move != MOVE_NONE;
        if (!allowed[i]) continue;
        n++;
        c.choice_winrate[i] = level_choice_winrate(l->score, l->mate);
        any_win |= l->mate > 0;
        any_safe |= l->mate >= 0;
    }
    if (n > 0) {
        /* the safe levels keep a proven win, and avoid a proven loss, when they can */
        for (int i = 0; lv->safe && i < c.n; i++)
            if (allowed[i] && ((any_win && res->pvs[i].mate <= 0) || (any_safe && res->pvs[i].mate < 0)))
                allowed[i] = false;
        int best = -1;
        for (int i = 0; i < c.n; i++)
            if (allowed[i] && (best < 0 || c.choice_winrate[i] > c.choice_winrate[best])) best = i;
        double total = 0;
        for (int i = 0; i < c.n; i++) {
            if (!allowed[i]) continue;
            double loss = WINRATE_POINTS * (c.choice_winrate[best] - c.choice_winrate[i]);
            c.probability[i] = lv->temperature > 0 ? exp(-loss / lv->temperature) : i == best;
            total += c.probability[i];
        }
        /* total >= 1: the best line weighs exp(0) = 1 */
        double u = uniform(seed) * total, acc = 0;
        for (int i = 0; i < c.n; i++) {
            acc += c.probability[i];
            if (c.chosen < 0 && allowed[i] && c.probability[i] > 0 && u < acc) c.chosen = i;
            c.probability[i] /= total;
        }
        if (c.chosen < 0) c.chosen = best; /* u rounded up to total */
    }
    if (out) *out = c;
    return c.chosen;
}

Limits level_limits(const Level *lv, Limits base)
{
    Limits l = base;
    l.play = true;
    if (lv->nodes <= 0) {
        l.multipv = 1;
        return l;
    }
    l.nodes = base.nodes > 0 && base.nodes < lv->nodes ? base.nodes : lv->nodes;
    if (lv->depth > 0 && (base.depth <= 0 || lv->depth < base.depth)) l.depth = lv->depth;
    l.multipv = lv->multipv;
    return l;
}
