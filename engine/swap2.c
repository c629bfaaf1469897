/* swap2.c - swap2 opening decisions (see swap2.h). */
#include "swap2.h"

#include <math.h>
#include <string.h>

#include "opening.h"

const char *swap2_choice_name(Swap2Choice c)
{
    switch (c) {
    case SWAP2_PLACE3: return "place3";
    case SWAP2_WHITE: return "white";
    case SWAP2_BLACK: return "black";
    case SWAP2_PLACE2: return "place2";
    }
    return "?";
}

/* A share of the caller's limits, num/den of its time and nodes (at
 * least 1 of a limit that is set); the depth and the rest stay. A decision
 * that takes several searches gives each a share, so that all of them
 * together keep to the limits. */
static int64_t part(int64_t limit, int num, int den)
{
    if (limit <= 0) return limit; /* no limit */
    int64_t p = limit * num / den;
    return p > 0 ? p : 1;
}

static Limits share(const Limits *l, int num, int den)
{
    Limits s = *l;
    s.time_ms = part(l->time_ms, num, den);
    s.optimum_ms = part(l->optimum_ms, num, den);
    s.nodes = part(l->nodes, num, den);
    return s;
}

static PositionError search(Engine *e, const Position *p, const Limits *base, int lines, EngineResult *r,
                            Swap2Decision *out, int *index)
{
    Limits l = *base;
    l.multipv = lines;
    l.on_info = NULL;
    PositionError pe = engine_analyze(e, p, &l, r, index);
    if (pe != POSITION_OK) return pe;
    out->nodes += r->nodes;
    out->complete &= r->complete;
    return POSITION_OK;
}

/* Fills the white-to-move part of *out from a search of p. */
static PositionError weigh_white(Engine *e, const Position *p, const Limits *l, int lines, EngineResult *r,
                                 Swap2Decision *out, int *index)
{
    PositionError pe = search(e, p, l, lines, r, out, index);
    if (pe != POSITION_OK) return pe;
    out->white_best = r->best_move;
    out->white_score = r->score;
    out->white_mate = r->mate;
    out->white_winrate = engine_winrate(p->rule, WHITE, r->score, r->mate);
    out->depth = r->depth;
    return POSITION_OK;
}

PositionError swap2_decide(Engine *e, Rule rule, int size, const Move *moves, int n, const Limits *limits,
                           uint64_t seed, Swap2Decision *out, int *index)
{
    memset(out, 0, sizeof *out);
    out->complete = true;
    out->white_best = out->place2[0] = out->place2[1] = MOVE_NONE;
    if (index) *index = -1;
    if (n != 0 && n != 3 && n != 5) return POSITION_TOO_MANY;
    Position p = {.rule = rule, .size = size, .ordered = true, .nmoves = n};
    if (n) memcpy(p.moves, moves, sizeof(Move) * (size_t)n);
    EngineResult r, rb;

    if (n == 0) {
        /* half the limits for the tries, half to weigh the stones kept;
         * a depth limit below OPENING_DEPTH is the tries' depth too */
        Limits half = share(limits, 1, 2);
        out->place3_depth = limits->depth > 0 && limits->depth < OPENING_DEPTH ? limits->depth : OPENING_DEPTH;
        OpeningGenParams g = {.rule = rule, .size = size, .min_stones = 3, .max_stones = 3, .seed = seed,
                              .depth = out->place3_depth, .max_tries = SWAP2_PLACE3_TRIES,
                              .max_nodes = half.nodes, .time_ms = half.time_ms, .stop = limits->stop};
        BalancedOpening o;
        OpeningGenStats st;
        int got = opening_balanced(e, &g, &o, 1, &st);
        out->place3_tries = st.tries;
        out->nodes += (uint64_t)st.nodes;
        if (!got) {
            /* the limits ran out first: the nearest to even of the tries */
            if (!st.has_closest || (limits->stop && atomic_load(limits->stop))) return POSITION_FULL;
            o = st.closest;
            out->place3_nearest = true;
        }
        out->place3_score = o.score;
        out->choice = SWAP2_PLACE3;
        out->nmoves = 3;
        memcpy(out->moves, o.moves, sizeof o.moves[0] * 3);
        p.nmoves = 3;
        memcpy(p.moves, o.moves, sizeof o.moves[0] * 3);
        return weigh_white(e, &p, &half, 1, &r, out, index);
    }

    /* 3 stones: a third of the limits for white's lines, the rest shared
     * by the searches of black's replies to them */
    Limits first = n == 3 ? share(limits, 1, 3) : *limits;
    PositionError pe = weigh_white(e, &p, &first, n == 3 ? SWAP2_WHITE_LINES : 1, &r, out, index);
    if (pe != POSITION_OK) return pe;
    double v = out->white_winrate;
    if (n == 5 || fabs(v - 0.5) >= SWAP2_EDGE) {
        out->choice = v >= 0.5 ? SWAP2_WHITE : SWAP2_BLACK;
        if (out->choice == SWAP2_WHITE) out->moves[out->nmoves++] = out->white_best;
        return POSITION_OK;
    }

    /* No clear edge: two more stones that keep it even. */
    out->place2_weighed = true;
    int nwhite = r.npv < SWAP2_WHITE_LINES ? r.npv : SWAP2_WHITE_LINES;
    Limits each = share(limits, 2, 3 * (nwhite > 0 ? nwhite : 1));
    Move whites[SWAP2_WHITE_LINES];
    for (int i = 0; i < nwhite; i++) whites[i] = r.pvs[i].move;
    double best_gap = 2;
    for (int i = 0; i < nwhite; i++) {
        if (limits->stop && atomic_load(limits->stop)) break;
        p.nmoves = 4;
        p.moves[3] = whites[i];
        if (search(e, &p, &each, SWAP2_BLACK_LINES, &rb, out, NULL) != POSITION_OK) continue;
        for (int j = 0; j < rb.npv; j++) {
            double w = 1 - engine_winrate(p.rule, BLACK, rb.pvs[j].score, rb.pvs[j].mate); /* white's, white to move */
            double gap = fabs(w - 0.5);
            if (gap < best_gap) {
                best_gap = gap;
                out->place2_found = true;
                out->place2[0] = whites[i];
                out->place2[1] = rb.pvs[j].move;
                out->place2_score = -rb.pvs[j].score;
                out->place2_mate = -rb.pvs[j].mate;
                out->place2_winrate = w;
            }
        }
    }
    if (out->place2_found && best_gap < SWAP2_EDGE) {
        out->choice = SWAP2_PLACE2;
        out->nmoves = 2;
        out->moves[0] = out->place2[0];
        out->moves[1] = out->place2[1];
    } else {
        out->choice = v >= 0.5 ? SWAP2_WHITE : SWAP2_BLACK;
        if (out->choice == SWAP2_WHITE) out->moves[out->nmoves++] = out->white_best;
    }
    return POSITION_OK;
}
