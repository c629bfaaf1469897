/* opening.c - renju opening names and balanced openings (see opening.h). */
#include "opening.h"

#include <string.h>

#include "search.h"

/* Black's second stone, x right and y down from the centre. Direct: white
 * at (0, -1), the point above the centre; indirect: white at (1, -1), the
 * point above and to the right. One shape of each mirror pair is listed;
 * identification tries all eight symmetries. Shapes and names: RIF's
 * diagrams of the 13 direct and 13 indirect openings (renju.net). */
const RenjuOpening opening_renju[OPENING_RENJU_COUNT] = {
    {1, true, "Kansei", "寒星", 0, -2},
    {2, true, "Keigetsu", "渓月", 1, -2},
    {3, true, "Sosei", "疎星", 2, -2},
    {4, true, "Kagetsu", "花月", 1, -1},
    {5, true, "Zangetsu", "残月", 2, -1},
    {6, true, "Ugetsu", "雨月", 1, 0},
    {7, true, "Kinsei", "金星", 2, 0},
    {8, true, "Shogetsu", "松月", 0, 1},
    {9, true, "Kyugetsu", "丘月", 1, 1},
    {10, true, "Shingetsu", "新月", 2, 1},
    {11, true, "Zuisei", "瑞星", 0, 2},
    {12, true, "Sangetsu", "山月", 1, 2},
    {13, true, "Yusei", "遊星", 2, 2},
    {1, false, "Chosei", "長星", 2, -2},
    {2, false, "Kyogetsu", "峡月", 2, -1},
    {3, false, "Kosei", "恒星", 2, 0},
    {4, false, "Suigetsu", "水月", 2, 1},
    {5, false, "Ryusei", "流星", 2, 2},
    {6, false, "Ungetsu", "雲月", 1, 0},
    {7, false, "Hogetsu", "浦月", 1, 1},
    {8, false, "Rangetsu", "嵐月", 1, 2},
    {9, false, "Gingetsu", "銀月", 0, 1},
    {10, false, "Myojo", "明星", 0, 2},
    {11, false, "Shagetsu", "斜月", -1, 1},
    {12, false, "Meigetsu", "名月", -1, 2},
    {13, false, "Suisei", "彗星", -2, 2},
};

static int iabs(int v) { return v < 0 ? -v : v; }

const RenjuOpening *opening_renju_identify(int size, Move b1, Move w2, Move b3)
{
    if (size % 2 == 0 || b1 == MOVE_NONE || w2 == MOVE_NONE || b3 == MOVE_NONE) return NULL;
    int c = size / 2;
    if (MOVE_X(b1) != c || MOVE_Y(b1) != c) return NULL;
    int wx = MOVE_X(w2) - c, wy = MOVE_Y(w2) - c, bx = MOVE_X(b3) - c, by = MOVE_Y(b3) - c;
    if (iabs(wx) > 1 || iabs(wy) > 1 || (wx == 0 && wy == 0)) return NULL;
    if (iabs(bx) > 2 || iabs(by) > 2 || (bx == 0 && by == 0) || (bx == wx && by == wy)) return NULL;
    bool direct = wx == 0 || wy == 0;
    /* the board's symmetries (board_sym_move) about the centre, where b1 is */
    for (int s = 0; s < 8; s++) {
        Move tw = board_sym_move(w2, size, s), tb = board_sym_move(b3, size, s);
        int tx = MOVE_X(tw) - c, ty = MOVE_Y(tw) - c, ux = MOVE_X(tb) - c, uy = MOVE_Y(tb) - c;
        if (direct ? !(tx == 0 && ty == -1) : !(tx == 1 && ty == -1)) continue;
        for (int i = 0; i < OPENING_RENJU_COUNT; i++)
            if (opening_renju[i].direct == direct && opening_renju[i].dx == ux && opening_renju[i].dy == uy)
                return &opening_renju[i];
    }
    return NULL; /* unreachable: the 26 shapes cover every case */
}

/* ---- balanced openings ------------------------------------------------ */

static uint64_t lcg_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s;
}

int opening_balanced(Engine *e, const OpeningGenParams *p, BalancedOpening *out, int want, OpeningGenStats *stats)
{
    OpeningGenStats st = {.complete = false};
    int64_t start_ns = p->time_ms > 0 ? search_now_ns() : 0;
    int closest_gap = 0;
    int n = 0;
    int region = p->size < OPENING_REGION ? p->size : OPENING_REGION;
    int lo = (p->size - region) / 2;
    int span = p->max_stones - p->min_stones + 1;
    int depth = p->depth > 0 ? p->depth : OPENING_DEPTH;
    Score balance = p->balance > 0 ? p->balance : OPENING_BALANCE;
    uint64_t seed = p->seed;
    if (span < 1 || p->min_stones < 1 || p->max_stones > OPENING_MAX_STONES || p->max_stones > region * region)
        goto done;
    while (n < want && st.tries < p->max_tries) {
        if (p->stop && atomic_load(p->stop)) break;
        if (p->max_nodes > 0 && st.nodes >= p->max_nodes) break;
        if (p->time_ms > 0 && st.tries > 0 && search_now_ns() - start_ns >= p->time_ms * 1000000) break;
        Position pos = {.rule = p->rule, .size = p->size, .ordered = true};
        int stones = p->min_stones + st.tries % span;
        st.tries++;
        while (pos.nmoves < stones) {
            lcg_next(&seed);
            Move m = MOVE_XY(lo + (int)(seed >> 33) % region, lo + (int)(seed >> 45) % region);
            bool taken = false;
            for (int i = 0; i < pos.nmoves; i++) taken |= pos.moves[i] == m;
            if (!taken) pos.moves[pos.nmoves++] = m;
        }
        if (e->persistent) engine_clear(e);
        /* judged by the depth-D search itself, never the opening book, so that
         * a seed gives the same openings with or without one (CLI and HTTP) */
        Limits lim = {.depth = depth, .stop = p->stop, .no_book = true};
        if (p->max_nodes > 0) lim.nodes = p->max_nodes - st.nodes;
        EngineResult r;
        unsigned disable = e->disable;
        if (pos.nmoves <= OPENING_QUICK_STONES) e->disable |= ENGINE_NO_THREATS;
        PositionError pe = engine_analyze(e, &pos, &lim, &r, NULL);
        e->disable = disable;
        if (pe != POSITION_OK) continue;
        st.nodes += (int64_t)r.nodes;
        if (!r.complete) break; /* the budget or the stop flag cut it: not a verdict */
        /* the window is centred on the score at which the side to move is
         * even (OPENING_EVEN_WHITE, above) */
        Score even = p->rule == RULE_RENJU ? 0 : r.side_to_move == WHITE ? OPENING_EVEN_WHITE : -OPENING_EVEN_WHITE;
        if (r.mate) continue;
        BalancedOpening o;
        memset(&o, 0, sizeof o); /* (the same seed, the same bytes) */
        o.n = pos.nmoves;
        o.score = r.score;
        o.to_move = r.side_to_move;
        memcpy(o.moves, pos.moves, sizeof(Move) * (size_t)pos.nmoves);
        if (!st.has_closest || iabs(r.score - even) < closest_gap) {
            st.closest = o;
            st.has_closest = true;
            closest_gap = iabs(r.score - even);
        }
        if (r.score > even + balance || r.score < even - balance) continue;
        out[n++] = o;
    }
    st.complete = n >= want;
done:
    if (stats) *stats = st;
    return n;
}
