/*
 * cmd_selfplay.c - `gomokud selfplay`: two engine configurations play each
 * other from a set of openings, each opening twice with colours swapped, at
 * equal time per move; prints wins/draws/losses of A and the Elo difference
 * with its 95% error bar.
 *
 *   gomokud selfplay [--a FEATURES] [--b FEATURES] [--time-ms MS] [--games N]
 *                    [--rule R] [--threads N] [--max-moves N]
 * FEATURES: "all" or a comma list of nopvs, nott, noordering, nothreats, nohorizon;
 * "plain" means nopvs,nott,noordering (plain alpha-beta with static order).
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/board.h"
#include "engine/engine.h"
#include "engine/rules.h"
#include "server/commands.h"

#define SELFPLAY_TT_MIB 32
#define SELFPLAY_MAX_THREADS 8

/* Openings: four to six stones in the 7x7 centre, made from a fixed seed
 * and kept only when a short search finds them roughly balanced; a bare
 * two-stone start is a sure win for black at any depth that matters. */
#define OPENING_TRIES 4000
#define OPENING_BALANCE 60 /* |score| at OPENING_DEPTH */
#define OPENING_DEPTH 4
#define MAX_OPENINGS 64

typedef struct {
    int n;
    Move moves[8];
} Opening;

static int make_openings(Rule rule, Opening *out, int want)
{
    Engine *e = engine_new(&(EngineOptions){.tt_mib = 4});
    if (!e) return 0;
    uint64_t seed = 0x5e1f9147ull;
    int n = 0;
    for (int t = 0; t < OPENING_TRIES && n < want; t++) {
        Position p = {.rule = rule, .size = 15, .ordered = true};
        int stones = 4 + t % 3;
        while (p.nmoves < stones) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            Move m = MOVE_XY(4 + (int)(seed >> 33) % 7, 4 + (int)(seed >> 45) % 7);
            bool taken = false;
            for (int i = 0; i < p.nmoves; i++) taken |= p.moves[i] == m;
            if (!taken) p.moves[p.nmoves++] = m;
        }
        EngineResult r;
        engine_clear(e);
        if (engine_analyze(e, &p, &(Limits){.depth = OPENING_DEPTH}, &r, NULL) != POSITION_OK) continue;
        if (r.mate || r.score > OPENING_BALANCE || r.score < -OPENING_BALANCE) continue;
        out[n].n = p.nmoves;
        memcpy(out[n].moves, p.moves, sizeof(Move) * (size_t)p.nmoves);
        n++;
    }
    engine_free(e);
    return n;
}

typedef struct {
    unsigned disable_a, disable_b;
    int time_ms, games, max_moves;
    Rule rule;
    atomic_int next;
    atomic_int wins, draws, losses; /* of A */
    pthread_mutex_t print_lock;
    int nopenings;
    Opening openings[MAX_OPENINGS];
} Match;

static bool parse_features(const char *s, unsigned *out)
{
    *out = 0;
    if (!strcmp(s, "all")) return true;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "nopvs")) *out |= ENGINE_NO_PVS;
        else if (!strcmp(tok, "nott")) *out |= ENGINE_NO_TT;
        else if (!strcmp(tok, "noordering")) *out |= ENGINE_NO_ORDERING;
        else if (!strcmp(tok, "nothreats")) *out |= ENGINE_NO_THREATS;
        else if (!strcmp(tok, "nohorizon")) *out |= ENGINE_NO_HORIZON;
        else if (!strcmp(tok, "plain")) *out |= ENGINE_NO_PVS | ENGINE_NO_TT | ENGINE_NO_ORDERING;
        else return false;
    }
    return true;
}

/* Plays game g; returns +1 when A wins, 0 for a draw, -1 when B wins. */
static int play_game(Match *m, Engine *a, Engine *b, int g)
{
    bool a_black = g % 2 == 0;
    Position p = {.rule = m->rule, .size = 15, .ordered = true};
    const Opening *o = &m->openings[(g / 2) % m->nopenings];
    p.nmoves = o->n;
    memcpy(p.moves, o->moves, sizeof(Move) * (size_t)o->n);
    engine_clear(a);
    engine_clear(b);
    static _Thread_local Board board;
    board_reset(&board, p.size, p.rule);
    for (int i = 0; i < p.nmoves; i++) board_play(&board, p.moves[i]);
    while (p.nmoves < m->max_moves && !board_full(&board)) {
        bool black = board.to_move == BLACK;
        Engine *e = black == a_black ? a : b;
        EngineResult r;
        if (engine_analyze(e, &p, &(Limits){.time_ms = m->time_ms}, &r, NULL) != POSITION_OK ||
            r.best_move == MOVE_NONE || !rules_is_legal(&board, r.best_move))
            return 0; /* cannot happen with a sound engine; scored as a draw */
        bool five = board_makes_five(&board, r.best_move, board.to_move);
        board_play(&board, r.best_move);
        p.moves[p.nmoves++] = r.best_move;
        if (five) return (e == a) ? 1 : -1;
    }
    return 0;
}

static void *worker(void *arg)
{
    Match *m = arg;
    /* persistent, as in a real game: each side keeps its table from move to move */
    Engine *a = engine_new(&(EngineOptions){.tt_mib = SELFPLAY_TT_MIB, .disable = m->disable_a, .persistent = true});
    Engine *b = engine_new(&(EngineOptions){.tt_mib = SELFPLAY_TT_MIB, .disable = m->disable_b, .persistent = true});
    if (!a || !b) goto done;
    for (int g; (g = atomic_fetch_add(&m->next, 1)) < m->games;) {
        int r = play_game(m, a, b, g);
        atomic_fetch_add(r > 0 ? &m->wins : r < 0 ? &m->losses : &m->draws, 1);
        pthread_mutex_lock(&m->print_lock);
        printf("game %3d: opening %2d, A plays %s: %s\n", g + 1, (g / 2) % m->nopenings + 1,
               g % 2 == 0 ? "black" : "white", r > 0 ? "A wins" : r < 0 ? "B wins" : "draw");
        fflush(stdout);
        pthread_mutex_unlock(&m->print_lock);
    }
done:
    engine_free(a);
    engine_free(b);
    return NULL;
}

static double elo_of(double score)
{
    if (score <= 0.0005) score = 0.0005;
    if (score >= 0.9995) score = 0.9995;
    return -400.0 * log10(1.0 / score - 1.0);
}

int cmd_selfplay(int argc, char **argv)
{
    Match m = {.time_ms = 50, .games = 32, .max_moves = 225, .rule = RULE_FREESTYLE};
    int threads = 2;
    const char *fa = "all", *fb = "plain";
    for (int i = 0; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            printf("usage: gomokud selfplay [--a FEATURES] [--b FEATURES] [--time-ms MS] [--games N]\n"
                   "                        [--rule freestyle|standard|renju] [--threads N] [--max-moves N]\n"
                   "FEATURES: all, or a comma list of nopvs, nott, noordering, nothreats, nohorizon, plain\n");
            return 0;
        }
        if (!v) goto bad;
        if (!strcmp(a, "--a")) fa = v;
        else if (!strcmp(a, "--b")) fb = v;
        else if (!strcmp(a, "--time-ms")) m.time_ms = atoi(v);
        else if (!strcmp(a, "--games")) m.games = atoi(v);
        else if (!strcmp(a, "--threads")) threads = atoi(v);
        else if (!strcmp(a, "--max-moves")) m.max_moves = atoi(v);
        else if (!strcmp(a, "--rule")) {
            if (!rule_parse(v, &m.rule)) goto bad;
        } else goto bad;
    }
    if (!parse_features(fa, &m.disable_a) || !parse_features(fb, &m.disable_b) || m.time_ms < 1 || m.games < 1 ||
        threads < 1 || threads > SELFPLAY_MAX_THREADS || m.max_moves < 5 || m.max_moves > 225)
        goto bad;
    m.nopenings = make_openings(m.rule, m.openings, m.games / 2 + 1 < MAX_OPENINGS ? m.games / 2 + 1 : MAX_OPENINGS);
    if (m.nopenings == 0) {
        fprintf(stderr, "gomokud selfplay: no balanced opening found\n");
        return 1;
    }
    pthread_mutex_init(&m.print_lock, NULL);
    pthread_t th[SELFPLAY_MAX_THREADS];
    for (int t = 0; t < threads; t++) pthread_create(&th[t], NULL, worker, &m);
    for (int t = 0; t < threads; t++) pthread_join(th[t], NULL);
    pthread_mutex_destroy(&m.print_lock);

    int w = m.wins, d = m.draws, l = m.losses, n = w + d + l;
    if (n == 0) {
        fprintf(stderr, "gomokud selfplay: no game was played (out of memory?)\n");
        return 1;
    }
    double s = (w + 0.5 * d) / n;
    double var = (w * (1 - s) * (1 - s) + d * (0.5 - s) * (0.5 - s) + l * s * s) / n;
    double se = sqrt(var / n);
    double elo = elo_of(s), lo = elo_of(s - 1.96 * se), hi = elo_of(s + 1.96 * se);
    printf("selfplay %s, %d ms/move: A (%s) vs B (%s): +%d =%d -%d of %d, score %.1f%%, Elo %+.0f "
           "(95%%: %+.0f to %+.0f)\n",
           rule_name(m.rule), m.time_ms, fa, fb, w, d, l, n, 100 * s, elo, lo, hi);
    return 0;
bad:
    fprintf(stderr, "gomokud selfplay: bad arguments (see gomokud selfplay --help)\n");
    return 2;
}
