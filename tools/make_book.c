/*
 * make_book - writes the opening book (make book; README, "The opening book").
 *
 * For each rule on 15x15 it expands the early tree from the empty board:
 * the empty board, the centre stone h8, every distinct reply within two
 * points of it (the symmetries leave five), and from there on the engine's
 * best move plus its next-best lines within a score margin, fewer the deeper
 * it goes, down to positions of --stones stones. Each position is searched
 * once with a fixed node budget from a fresh engine, so the book is the same
 * on every machine and run. Positions are deduplicated by their
 * symmetry-reduced key. The book goes to --out, with the command in its
 * header; progress goes to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/book.h"
#include "engine/engine.h"
#include "engine/rules.h"

#define MAX_POS 4096
#define MAX_LINE 96

static long long nodes = 2000000;
static int max_stones = 5;
static int margin = 60;          /* alternatives within this many points of the best */
static const int width[] = {1, 1, 3, 2, 2, 1, 1, 1, 1, 1}; /* lines followed from a position of n stones */

typedef struct {
    Position p;
} Item;

static Item queue[MAX_POS];
static uint64_t seen[MAX_POS];
static int nseen;

static bool have(uint64_t k)
{
    for (int i = 0; i < nseen; i++)
        if (seen[i] == k) return true;
    return false;
}

static uint64_t pos_key(Board *b, const Position *p)
{
    board_reset(b, p->size, p->rule);
    for (int i = 0; i < p->nmoves; i++) board_play(b, p->moves[i]);
    return book_key(b, NULL);
}

/* Queues p + m unless its reduced key is known. */
static int push(Board *b, int *tail, const Position *p, Move m)
{
    if (*tail >= MAX_POS) return 0;
    Position q = *p;
    q.moves[q.nmoves++] = m;
    if (position_check(&q, NULL) != POSITION_OK) return 0;
    uint64_t k = pos_key(b, &q);
    if (have(k)) return 0;
    seen[nseen++] = k;
    queue[(*tail)++].p = q;
    return 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int usage(void)
{
    fprintf(stderr, "usage: make-book [--nodes N] [--stones N] [--margin N] [--rules r1,r2,...] --out FILE\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *rules = "freestyle,standard,renju";
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) return usage();
        if (!strcmp(argv[i], "--nodes")) nodes = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--stones")) max_stones = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--margin")) margin = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rules")) rules = argv[++i];
        else if (!strcmp(argv[i], "--out")) out = argv[++i];
        else return usage();
    }
    if (!out || nodes < 1 || max_stones < 1 || max_stones > 9) return usage();
    if (!engine_init()) return 1;
    Engine *e = engine_new(&(EngineOptions){0});
    Board *b = malloc(sizeof *b);
    EngineResult *r = malloc(sizeof *r);
    if (!e || !b || !r) return 1;
    FILE *f = fopen(out, "w");
    if (!f) {
        perror(out);
        return 1;
    }
    fprintf(f, "# gomokud opening book, written by our engine:\n");
    fprintf(f, "#   make book  (make-book --nodes %lld --stones %d --margin %d --rules %s)\n", nodes, max_stones,
            margin, rules);
    fprintf(f, "# per rule on 15x15: the empty board, h8, every reply within two points of it, then the best\n"
               "# move and the lines within the margin; each position searched with the node budget.\n");
    fprintf(f, "# rule size key move score depth  (key: least Zobrist key over the 8 symmetries; move in its\n"
               "# orientation; score from the side to move's view)\n");
    double t0 = now_s();
    int total = 0;
    char rl[64];
    snprintf(rl, sizeof rl, "%s", rules);
    for (char *save = NULL, *name = strtok_r(rl, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        Rule rule;
        if (!rule_parse(name, &rule)) return usage();
        nseen = 0;
        int head = 0, tail = 1;
        memset(&queue[0], 0, sizeof queue[0]);
        queue[0].p = (Position){.rule = rule, .size = BOARD_DEFAULT_SIZE, .ordered = true};
        seen[nseen++] = pos_key(b, &queue[0].p);
        while (head < tail) {
            Position *p = &queue[head++].p;
            int w = p->nmoves < max_stones ? width[p->nmoves] : 0;
            Limits lim = {.nodes = nodes, .multipv = w > 1 ? w : 1, .no_book = true};
            engine_clear(e);
            if (engine_analyze(e, p, &lim, r, NULL) != POSITION_OK || r->best_move == MOVE_NONE) continue;
            char line[MAX_LINE];
            if (!engine_book_format_entry(p, r->best_move, r->score, r->depth, line, sizeof line)) return 1;
            fputs(line, f);
            total++;
            char mv[8];
            fprintf(stderr, "%6.1fs %-9s %4d/%-4d stones %d best %s score %d depth %d\n", now_s() - t0, name,
                    head, tail, p->nmoves, move_to_notation(r->best_move, p->size, mv), r->score, r->depth);
            if (p->nmoves >= max_stones || r->mate) continue;
            if (p->nmoves == 0) {
                push(b, &tail, p, MOVE_XY(p->size / 2, p->size / 2)); /* the centre opening */
            } else if (p->nmoves == 1) {
                Move c = p->moves[0];
                for (int dy = -2; dy <= 2; dy++)
                    for (int dx = -2; dx <= 2; dx++)
                        if (dx || dy) push(b, &tail, p, MOVE_XY(MOVE_X(c) + dx, MOVE_Y(c) + dy));
            } else {
                for (int i = 0; i < r->npv && i < w; i++)
                    if (i == 0 || r->pvs[i].score >= r->pvs[0].score - margin) push(b, &tail, p, r->pvs[i].move);
            }
        }
        fflush(f);
    }
    fprintf(stderr, "%d positions in %.1fs\n", total, now_s() - t0);
    free(b);
    free(r);
    engine_free(e);
    return fclose(f) == 0 ? 0 : 1;
}
