/*
 * gen_data.c - self-play games for fitting the evaluation (`make selfplay-data`).
 *
 *   build/bin/gen-data --rule renju --games 4000 --nodes 8000 --shard 3 --out data/renju-3.games
 *
 * Plays games of the current engine against itself at a fixed node count
 * per move from random openings and appends one line per finished game:
 *
 *   <rule> <result B|W|D> <opening stones> <move> <move> ...
 *
 * moves in notation (h8), black first; each move the engine chose carries
 * its search's score from the mover's view (h8/-35; a mate is +-30000 less
 * its distance), a deeper opinion of the position than its static value. Everything is a function of the rule,
 * shard and game number: game i of shard k starts from an opening drawn from
 * the seed (k, i) and is then played by one engine that forgets everything
 * between games, at a fixed node count, so it is deterministic. The file is
 * the checkpoint: a run counts the games already in it and goes on from the
 * next one, so an interrupted shard resumes where it stopped and a finished
 * one costs nothing to run again.
 *
 *   build/bin/gen-data --rule freestyle --games 700 --nodes 30000 --openings open5.txt --out data/fs-200.games
 *
 * plays game i from the i-th opening of a `gomokud opengen` file instead
 * (balanced openings: the games last about twice as long); a fixed node
 * count would replay an opening's game exactly, so --games may not exceed
 * the openings.
 *
 * Openings: two to six stones placed alternately on random points of the
 * 7x7 centre (renju: none of black's forbidden), kept when a short search
 * gives neither side a forced win or a large score; the margin is loose
 * because every position is labelled with its own game's result anyway.
 * A game ends at a five, at a full board (draw), or as soon as the engine
 * announces a proven win: the rest is a forced line of fours and threes,
 * positions the evaluation is never asked about.
 *
 *   build/bin/gen-data --leaves data/freestyle-0.games --positions 50000 --nodes 10000 --out data/freestyle-0.leaves
 *
 * writes positions like the ones the search stands pat on instead of games:
 * a position of a game from the file, one or two random candidate moves
 * further (a side that just made a poor move, as at the search's leaves),
 * kept when it has no five or straight four to make for either side, and
 * labelled with its own search's score instead of a result:
 *
 *   <rule> S <stones before the move> <move> ... <best move>/<score>
 *
 * A threat-rich sample of what the evaluation is asked about, for fitting
 * the values of threats (train-eval --fit-mask) to what a search finds.
 * Deterministic per (file, shard, position number), resumable the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/board.h"
#include "engine/engine.h"
#include "engine/rules.h"

#define GEN_TT_MIB 16
#define OPENING_NODES 3000
#define OPENING_BALANCE 250
#define OPENING_TRIES 1000

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Appends to p the moves of a list in notation (a "/score" after a move is
 * dropped). Returns NULL, or the first word that is not a move (or one
 * move too many): the caller refuses the line rather than cut it short. */
static const char *read_moves(char *s, Position *p)
{
    for (char *save = NULL, *tok = strtok_r(s, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
        char *slash = strchr(tok, '/');
        if (slash) *slash = 0;
        Move m = move_parse(tok, 15);
        if (m == MOVE_NONE || p->nmoves >= BOARD_MAX_MOVES) return tok;
        p->moves[p->nmoves++] = m;
    }
    return NULL;
}

/* Reads the first n openings of a `gomokud opengen` file (moves in
 * notation, black first, then an optional "# comment") into out, each
 * checked as a position (position_check). Returns how many it read, or -1
 * after printing why the file cannot be used. */
static int read_openings(const char *path, Rule rule, Position *out, int n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "gen-data: cannot read %s\n", path);
        return -1;
    }
    static char line[4096];
    int got = 0, lineno = 0;
    while (got < n && fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        Position *p = &out[got];
        *p = (Position){.rule = rule, .size = 15, .ordered = true};
        const char *bad = read_moves(line, p);
        if (bad) {
            fprintf(stderr, "gen-data: %s line %d: \"%s\" is not a move\n", path, lineno, bad);
            fclose(f);
            return -1;
        }
        if (!p->nmoves) continue;
        PositionError err = position_check(p, NULL);
        if (err != POSITION_OK) {
            fprintf(stderr, "gen-data: %s line %d: %s\n", path, lineno, position_error_text(err));
            fclose(f);
            return -1;
        }
        got++;
    }
    fclose(f);
    return got;
}

static bool make_opening(Engine *e, Rule rule, uint64_t seed, Position *p)
{
    for (int t = 0; t < OPENING_TRIES; t++) {
        uint64_t s = mix(mix(seed) + (uint64_t)t); /* not seed ^ mix(t): symmetric in game and try */
        Board b;
        board_reset(&b, 15, rule);
        *p = (Position){.rule = rule, .size = 15, .ordered = true};
        int stones = 2 + (int)(s % 5);
        for (int guard = 0; p->nmoves < stones && guard < 200; guard++) {
            s = mix(s);
            Move m = MOVE_XY(4 + (int)(s % 7), 4 + (int)((s >> 8) % 7));
            if (!board_empty(&b, m) || !rules_is_legal(&b, m) || board_makes_five(&b, m, b.to_move)) continue;
            board_play(&b, m);
            p->moves[p->nmoves++] = m;
        }
        if (p->nmoves < stones) continue;
        EngineResult r;
        engine_clear(e);
        if (engine_analyze(e, p, &(Limits){.nodes = OPENING_NODES}, &r, NULL) != POSITION_OK) continue;
        if (r.mate || r.score > OPENING_BALANCE || r.score < -OPENING_BALANCE) continue;
        return true;
    }
    return false;
}

/* Plays one game from p, with the search scores of the moves from the
 * opening on in score[]; returns the winner (EMPTY for a draw). */
static Color play(Engine *e, Position *p, int64_t nodes, Score *score)
{
    Board b;
    board_reset(&b, p->size, p->rule);
    for (int i = 0; i < p->nmoves; i++) board_play(&b, p->moves[i]);
    engine_clear(e);
    while (!board_full(&b)) {
        EngineResult r;
        if (engine_analyze(e, p, &(Limits){.nodes = nodes}, &r, NULL) != POSITION_OK || r.best_move == MOVE_NONE ||
            !rules_is_legal(&b, r.best_move))
            return EMPTY;
        if (r.mate > 0) return b.to_move;
        if (r.mate < 0) return OPPONENT(b.to_move);
        score[p->nmoves] = r.score;
        bool five = board_makes_five(&b, r.best_move, b.to_move);
        Color mover = b.to_move;
        board_play(&b, r.best_move);
        p->moves[p->nmoves++] = r.best_move;
        if (five) return mover;
    }
    return EMPTY;
}

/* The search's leaves: see the header. Returns false on failure. */
static bool gen_leaves(Engine *e, const char *games_path, long positions, long nodes, long shard, long done, FILE *out)
{
    FILE *f = fopen(games_path, "r");
    if (!f) {
        fprintf(stderr, "gen-data: cannot open %s\n", games_path);
        return false;
    }
    static char line[8192];
    static Position games[20000];
    static int firsts[20000];
    int ngames = 0, lineno = 0;
    while (ngames < 20000 && fgets(line, sizeof line, f)) {
        lineno++;
        char rule_s[16], res;
        int first, off;
        Position *p = &games[ngames];
        *p = (Position){.size = 15, .ordered = true};
        if (sscanf(line, "%15s %c %d%n", rule_s, &res, &first, &off) != 3 || !rule_parse(rule_s, &p->rule)) continue;
        const char *bad = read_moves(line + off, p);
        if (bad) {
            fprintf(stderr, "gen-data: %s line %d: \"%s\" is not a move\n", games_path, lineno, bad);
            fclose(f);
            return false;
        }
        if (p->nmoves > first + 1) firsts[ngames++] = first;
    }
    fclose(f);
    if (!ngames) {
        fprintf(stderr, "gen-data: no games in %s\n", games_path);
        return false;
    }
    for (long i = done; i < positions; i++) {
        uint64_t s = mix(((uint64_t)shard << 40) ^ (uint64_t)i ^ 0x1EAF000000000000ull);
        static Position p;
        Board b;
        for (;;) {
            s = mix(s);
            const Position *g = &games[s % (uint64_t)ngames];
            int k = firsts[s % (uint64_t)ngames] + (int)((s >> 20) % (uint64_t)(g->nmoves - firsts[s % (uint64_t)ngames]));
            p = *g;
            p.nmoves = k;
            board_reset(&b, 15, p.rule);
            for (int j = 0; j < k; j++) board_play(&b, p.moves[j]);
            int extra = 1 + (int)((s >> 40) & 1);
            for (int j = 0; j < extra; j++) {
                Move cand[BOARD_MAX_MOVES];
                int n = 0;
                for (Move m = 0; m < BOARD_MAX_MOVES; m++)
                    if (board_candidate(&b, m) && rules_is_legal(&b, m) && !board_makes_five(&b, m, b.to_move)) cand[n++] = m;
                if (!n) break;
                s = mix(s);
                Move m = cand[s % (uint64_t)n];
                board_play(&b, m);
                p.moves[p.nmoves++] = m;
            }
            bool stand_pat = true;
            for (int c = 0; c < 2; c++) stand_pat &= !b.tcount[c][T_FIVE] && !b.tcount[c][T_F4];
            if (stand_pat && !board_full(&b)) break;
        }
        EngineResult r;
        engine_clear(e);
        if (engine_analyze(e, &p, &(Limits){.nodes = nodes}, &r, NULL) != POSITION_OK || r.best_move == MOVE_NONE) {
            fprintf(stderr, "gen-data: position %ld has no move\n", i);
            return false;
        }
        fprintf(out, "%s S %d", rule_name(p.rule), p.nmoves);
        for (int j = 0; j < p.nmoves; j++) {
            char buf[8];
            fprintf(out, " %s", move_to_notation(p.moves[j], p.size, buf));
        }
        char buf[8];
        fprintf(out, " %s/%d\n", move_to_notation(r.best_move, p.size, buf), (int)r.score);
        fflush(out);
    }
    return true;
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int n = 0, c, last = '\n';
    while ((c = fgetc(f)) != EOF) {
        if (c == '\n') n++;
        last = c;
    }
    fclose(f);
    if (last != '\n') {
        fprintf(stderr, "gen-data: %s ends in a partial line; remove it and run again\n", path);
        return -1;
    }
    return n;
}

int main(int argc, char **argv)
{
    Rule rule = RULE_FREESTYLE;
    long games = 1000, nodes = 8000, shard = 0, positions = 0;
    const char *out = NULL, *leaves = NULL, *openings = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--rule") && rule_parse(v, &rule)) continue;
        else if (!strcmp(a, "--games")) games = strtol(v, NULL, 10);
        else if (!strcmp(a, "--nodes")) nodes = strtol(v, NULL, 10);
        else if (!strcmp(a, "--shard")) shard = strtol(v, NULL, 10);
        else if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--leaves")) leaves = v;
        else if (!strcmp(a, "--openings")) openings = v;
        else if (!strcmp(a, "--positions")) positions = strtol(v, NULL, 10);
        else {
            fprintf(stderr, "gen-data: unknown argument %s\n", a);
            return 2;
        }
    }
    if (!out || games < 1 || nodes < 100 || shard < 0 || argc % 2 == 0 || (leaves && positions < 1)) {
        fprintf(stderr, "usage: gen-data --out FILE [--rule R] [--games N] [--nodes N] [--shard K] [--openings FILE]\n"
                        "       gen-data --out FILE --leaves GAMES --positions N [--nodes N] [--shard K]\n");
        return 2;
    }
    int done = count_lines(out);
    if (done < 0) return 1;
    if (done >= (leaves ? positions : games)) return 0;
    if (!engine_init()) return 1;
    /* (after engine_init: position_check reads the pattern tables) */
    static Position *book; /* --openings: game i's opening (static: reachable until the exit, which frees it) */
    if (openings) {
        book = malloc((size_t)games * sizeof *book);
        int nbook = book ? read_openings(openings, rule, book, (int)games) : -1;
        if (nbook < 0) return 1;
        if (nbook < games) {
            /* (a fixed node count replays an opening's game exactly: one game each) */
            fprintf(stderr, "gen-data: %ld games need as many openings, %s has %d\n", games, openings, nbook);
            return 2;
        }
    }
    Engine *e = engine_new(&(EngineOptions){.tt_mib = GEN_TT_MIB, .persistent = true});
    FILE *f = fopen(out, "a");
    if (!e || !f) {
        fprintf(stderr, "gen-data: cannot start (%s)\n", f ? "out of memory" : strerror(errno));
        return 1;
    }
    if (leaves) {
        bool ok = gen_leaves(e, leaves, positions, nodes, shard, done, f);
        fclose(f);
        engine_free(e);
        return ok ? 0 : 1;
    }
    for (long g = done; g < games; g++) {
        static Position p;
        uint64_t seed = mix(((uint64_t)rule << 56) ^ ((uint64_t)shard << 32) ^ (uint64_t)g);
        if (book) p = book[g];
        else if (!make_opening(e, rule, seed, &p)) {
            fprintf(stderr, "gen-data: no opening for game %ld\n", g);
            return 1;
        }
        int first = p.nmoves;
        static Score score[BOARD_MAX_MOVES];
        Color w = play(e, &p, nodes, score);
        fprintf(f, "%s %c %d", rule_name(rule), w == BLACK ? 'B' : w == WHITE ? 'W' : 'D', first);
        for (int i = 0; i < p.nmoves; i++) {
            char buf[8];
            fprintf(f, " %s", move_to_notation(p.moves[i], p.size, buf));
            if (i >= first) fprintf(f, "/%d", (int)score[i]);
        }
        fputc('\n', f);
        fflush(f);
    }
    fclose(f);
    engine_free(e);
    return 0;
}
