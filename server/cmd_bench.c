/*
 * cmd_bench.c - `gomokud bench`: the search benchmark.
 *
 *   gomokud bench [--depth N] [--timed-ms MS]   fixed positions of each rule
 *   gomokud bench tactics [--file F] [--time-ms MS | --nodes N] [--solver]   the tactics suite
 *
 * The fixed-depth part searches every position from a cleared engine, so
 * its node counts and best moves are the same on every machine; the
 * signature hashes them and changes only when the search does. The timed
 * part reports the depth each position reaches in MS milliseconds and the
 * effective branching factor: the nodes of the last completed iteration to
 * the power 1/depth.
 *
 * The tactics part gives each puzzle a time limit, or with --nodes a node
 * limit: then the count and the nodes spent are the same on every machine
 * and under any load, so two versions of the solver can be compared on a
 * shared machine by their counts and node totals. --solver runs the threat
 * solver alone (Limits.threats_only: the VCF, then the VCT with the root's
 * settings, no iterations), so a change to it is measured apart from the
 * main search.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/board.h"
#include "engine/rules.h"
#include "server/commands.h"
#include "server/tactics.h"

#define BENCH_DEFAULT_DEPTH 8
#define BENCH_DEFAULT_TIMED_MS 1000
#define BENCH_TT_MIB 64
#define TACTICS_DEFAULT_FILE "tests/data/tactics.jsonl"
#define TACTICS_DEFAULT_MS 1000

typedef struct {
    Rule rule;
    const char *moves;
} BenchPosition;

/* Quiet middle-game positions of each rule (no forced win at the root). */
static const BenchPosition positions[] = {
    {RULE_FREESTYLE, "h8 h9 j7 i7 j8 j9 k8 g8 l8 i8 i6 l9"},
    {RULE_FREESTYLE, "h8 i7 g6 h6 g8 f8 j8 g7 k8 i8 i5 j7 h7 f9"},
    {RULE_FREESTYLE, "h8 h10 g7 f6 g8 i8 g9 g10 h9 i10 f10 i7"},
    {RULE_STANDARD, "h8 i9 j8 h7 j10 j11 k10 i10 i11 g8"},
    {RULE_STANDARD, "h8 h9 j7 i7 j8 k8 j10 j9 i9 k11 h10 k7"},
    {RULE_STANDARD, "h8 h10 g7 f6 g8 i8 g9 g10 h9 i10 f10 i7"},
    {RULE_RENJU, "h8 i9 j8 h7 j10 j7 i7 k9 k8 i8"},
    {RULE_RENJU, "h8 i8 j10 h9 g10 f10 j11 k11 g11 j9 k10 i10"},
    {RULE_RENJU, "h8 g9 h10 i8 f10 i10 i9 g11 h11 h9 g10 f9 d9 g8"},
};
#define NPOSITIONS (int)(sizeof positions / sizeof positions[0])

static bool load(const BenchPosition *bp, Position *p)
{
    memset(p, 0, sizeof *p);
    p->rule = bp->rule;
    p->size = 15;
    p->ordered = true;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", bp->moves);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        Move m = move_parse_notation(tok, 15);
        if (m == MOVE_NONE) return false;
        p->moves[p->nmoves++] = m;
    }
    return position_check(p, NULL) == POSITION_OK;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xFF;
        h *= 0x100000001b3ull;
    }
    return h;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The depth and node count of the last completed iteration. */
typedef struct {
    int depth;
    uint64_t nodes;
} IterationMark;

static void mark_iteration(void *ctx, const EngineResult *r)
{
    IterationMark *m = ctx;
    m->depth = r->depth;
    m->nodes = r->nodes;
}

static int bench_search(int depth, int timed_ms)
{
    Engine *e = engine_new(&(EngineOptions){.tt_mib = BENCH_TT_MIB});
    if (!e) {
        fprintf(stderr, "gomokud bench: out of memory\n");
        return 1;
    }
    uint64_t total_nodes = 0, sig = 0xcbf29ce484222325ull;
    int64_t total_ms = 0;
    char buf[8];
    for (int i = 0; i < NPOSITIONS; i++) {
        Position p;
        if (!load(&positions[i], &p)) {
            fprintf(stderr, "gomokud bench: position %d is invalid\n", i + 1);
            engine_free(e);
            return 1;
        }
        engine_clear(e);
        EngineResult r;
        engine_analyze(e, &p, &(Limits){.depth = depth}, &r, NULL);
        total_nodes += r.nodes;
        total_ms += r.time_ms;
        sig = fnv(fnv(sig, r.nodes), (uint64_t)(uint16_t)r.best_move);
        printf("bench %d %-9s best %-4s score %6d depth %2d nodes %9llu time %6lld ms\n", i + 1, rule_name(p.rule),
               move_to_notation(r.best_move, 15, buf), r.score, r.depth, (unsigned long long)r.nodes,
               (long long)r.time_ms);
    }
    printf("bench depth %d: %d positions, nodes %llu, time %lld ms, nodes/s %llu, signature %016llx\n", depth,
           NPOSITIONS, (unsigned long long)total_nodes, (long long)total_ms,
           (unsigned long long)(total_ms ? total_nodes * 1000 / (uint64_t)total_ms : 0), (unsigned long long)sig);

    if (timed_ms > 0) {
        int depths[NPOSITIONS];
        int64_t nps[NPOSITIONS];
        double ebf[NPOSITIONS];
        for (int i = 0; i < NPOSITIONS; i++) {
            Position p;
            load(&positions[i], &p);
            engine_clear(e);
            EngineResult r;
            IterationMark last = {0, 0};
            engine_analyze(e, &p, &(Limits){.time_ms = timed_ms, .on_info = mark_iteration, .info_ctx = &last}, &r,
                           NULL);
            depths[i] = r.depth;
            nps[i] = r.time_ms ? (int64_t)(r.nodes * 1000 / (uint64_t)r.time_ms) : 0;
            /* effective branching factor: the nodes of the last completed
             * iteration (all iterations up to it) to the power 1/depth */
            ebf[i] = last.depth > 0 ? pow((double)last.nodes, 1.0 / last.depth) : 0;
            printf("bench %d ms %d %-9s depth %2d seldepth %2d nodes %9llu ebf %.2f\n", timed_ms, i + 1,
                   rule_name(p.rule), r.depth, r.seldepth, (unsigned long long)r.nodes, ebf[i]);
        }
        qsort(depths, NPOSITIONS, sizeof(int), cmp_int);
        qsort(nps, NPOSITIONS, sizeof(int64_t), cmp_i64);
        qsort(ebf, NPOSITIONS, sizeof(double), cmp_double);
        printf("bench %d ms: median depth %d (min %d, max %d), median nodes/s %lld, median ebf %.2f\n", timed_ms,
               depths[NPOSITIONS / 2], depths[0], depths[NPOSITIONS - 1], (long long)nps[NPOSITIONS / 2],
               ebf[NPOSITIONS / 2]);
    }
    engine_free(e);
    return 0;
}

static int bench_tactics(const char *file, int time_ms, int64_t node_limit, bool solver)
{
    Tactic *t;
    char err[256];
    int n = tactics_load(file, &t, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "gomokud bench tactics: %s\n", err);
        return 1;
    }
    Engine *e = engine_new(&(EngineOptions){.tt_mib = BENCH_TT_MIB});
    int64_t *cost = malloc(sizeof *cost * (size_t)(n ? n : 1)); /* ms, or nodes with a node limit */
    if (!e || !cost) {
        fprintf(stderr, "gomokud bench tactics: out of memory\n");
        engine_free(e);
        free(cost);
        free(t);
        return 1;
    }
    int solved = 0, kinds_solved[2] = {0, 0}, kinds[2] = {0, 0};
    int64_t total_nodes = 0;
    char buf[8];
    Limits lim = node_limit ? (Limits){.nodes = node_limit} : (Limits){.time_ms = time_ms};
    lim.threats_only = solver;
    for (int i = 0; i < n; i++) {
        t[i].pos.ordered = false; /* the suite's move orders are not always legal games */
        engine_clear(e);
        EngineResult r;
        PositionError pe = engine_analyze(e, &t[i].pos, &lim, &r, NULL);
        bool ok = pe == POSITION_OK && r.mate > 0 && tactics_is_win(&t[i], r.best_move) && tactics_proof_replays(&t[i], &r);
        int k = strcmp(t[i].kind, "vcf") != 0; /* a "win3" (a win in three own moves) goes with the VCTs */
        kinds[k]++;
        kinds_solved[k] += ok;
        solved += ok;
        total_nodes += (int64_t)r.nodes;
        cost[i] = node_limit ? (ok ? (int64_t)r.nodes : node_limit) : (ok ? r.time_ms : time_ms);
        if (!ok)
            printf("tactics %d (%s %s) unsolved: played %s, score %d\n", i + 1, rule_name(t[i].pos.rule), t[i].kind,
                   move_to_notation(r.best_move, t[i].pos.size, buf), r.score);
    }
    qsort(cost, (size_t)n, sizeof *cost, cmp_i64);
    long long median = (long long)(n ? cost[n / 2] : 0);
    if (node_limit)
        printf("tactics: solved %d/%d within %lld nodes each (vcf %d/%d, vct %d/%d), median nodes %lld, "
               "total nodes %lld%s\n",
               solved, n, (long long)node_limit, kinds_solved[0], kinds[0], kinds_solved[1], kinds[1], median,
               (long long)total_nodes, solver ? " (solver alone)" : "");
    else
        printf("tactics: solved %d/%d within %d ms each (vcf %d/%d, vct %d/%d), median time %lld ms%s\n", solved, n,
               time_ms, kinds_solved[0], kinds[0], kinds_solved[1], kinds[1], median, solver ? " (solver alone)" : "");
    engine_free(e);
    free(cost);
    free(t);
    return 0;
}

int cmd_bench(int argc, char **argv)
{
    bool tactics = argc > 0 && !strcmp(argv[0], "tactics");
    int depth = BENCH_DEFAULT_DEPTH, timed = BENCH_DEFAULT_TIMED_MS, time_ms = TACTICS_DEFAULT_MS;
    long long nodes = 0;
    bool time_given = false, nodes_given = false, solver = false;
    const char *file = TACTICS_DEFAULT_FILE;
    for (int i = tactics; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            printf("usage: gomokud bench [--depth N] [--timed-ms MS]\n"
                   "       gomokud bench tactics [--file FILE] [--time-ms MS | --nodes N] [--solver]\n");
            return 0;
        }
        if (tactics && !strcmp(a, "--solver")) {
            solver = true;
            i--; /* a flag: no value */
            continue;
        }
        if (!v) goto bad;
        if (!tactics && !strcmp(a, "--depth")) depth = atoi(v);
        else if (!tactics && !strcmp(a, "--timed-ms")) timed = atoi(v);
        else if (tactics && !strcmp(a, "--file")) file = v;
        else if (tactics && !strcmp(a, "--time-ms")) time_ms = atoi(v), time_given = true;
        else if (tactics && !strcmp(a, "--nodes")) nodes = atoll(v), nodes_given = true;
        else goto bad;
    }
    if (depth < 1 || depth > ENGINE_MAX_DEPTH || timed < 0 || time_ms < 1) goto bad;
    if (nodes_given && (nodes < 1 || time_given)) goto bad; /* one limit: a time or a node count */
    return tactics ? bench_tactics(file, time_ms, nodes, solver) : bench_search(depth, timed);
bad:
    fprintf(stderr, "gomokud bench: bad arguments (see gomokud bench --help)\n");
    return 2;
}
