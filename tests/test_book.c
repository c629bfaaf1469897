/* The opening book: parsing, hits in every symmetry, misses, turning it off,
 * the committed book and make-book's determinism. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/book.h"
#include "engine/engine.h"
#include "support.h"

static Engine *e;

static void setup(void)
{
    support_init();
    cr_assert(engine_init());
    e = engine_new(&(EngineOptions){.tt_mib = 1});
    cr_assert_not_null(e);
}
static void teardown(void) { engine_free(e); }

TestSuite(book, .init = setup, .fini = teardown);

static Position pos_of(Rule rule, const char *moves)
{
    Position p = {.rule = rule, .size = 15, .ordered = true};
    char buf[512];
    snprintf(buf, sizeof buf, "%s", moves);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        Move m = move_parse_notation(tok, 15);
        cr_assert_neq(m, MOVE_NONE, "bad point %s", tok);
        p.moves[p.nmoves++] = m;
    }
    return p;
}

static Position transformed(const Position *p, int t)
{
    Position q = *p;
    for (int i = 0; i < p->nmoves; i++) q.moves[i] = board_sym_move(p->moves[i], p->size, t);
    return q;
}

/* The reduced key of p, or of p followed by m when m is not MOVE_NONE. */
static uint64_t reduced_key(const Position *p, Move m)
{
    static Board b;
    cr_assert(board_reset(&b, p->size, p->rule));
    for (int i = 0; i < p->nmoves; i++) board_play(&b, p->moves[i]);
    if (m != MOVE_NONE) board_play(&b, m);
    return book_key(&b, NULL);
}

/* A book of the given entries (position as moves, best move, score). */
static EngineBook *book_of(int n, const Position *ps, const char *const *moves, const Score *scores)
{
    char text[4096] = "# a test book\n";
    for (int i = 0; i < n; i++) {
        size_t len = strlen(text);
        cr_assert_gt(engine_book_format_entry(&ps[i], move_parse_notation(moves[i], 15), scores[i], 12, text + len,
                                              sizeof text - len),
                     0);
    }
    char err[200];
    EngineBook *b = engine_book_parse(text, strlen(text), err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    cr_assert_eq(engine_book_size(b), (size_t)n);
    return b;
}

static EngineResult analyze(const Position *p, Limits l)
{
    EngineResult r;
    PositionError err = engine_analyze(e, p, &l, &r, NULL);
    cr_assert_eq(err, POSITION_OK, "%s", position_error_text(err));
    return r;
}

Test(book, the_symmetries_map_points_and_back)
{
    for (int t = 0; t < 8; t++)
        for (int y = 0; y < 15; y++)
            for (int x = 0; x < 15; x++) {
                Move m = MOVE_XY(x, y);
                Move s = board_sym_move(m, 15, t);
                cr_assert(MOVE_X(s) >= 0 && MOVE_X(s) < 15 && MOVE_Y(s) >= 0 && MOVE_Y(s) < 15);
                cr_assert_eq(board_sym_unmove(s, 15, t), m, "t %d point %d,%d", t, x, y);
            }
    cr_assert_eq(board_sym_move(move_parse_notation("h8", 15), 15, 5), move_parse_notation("h8", 15));
}

Test(book, an_asymmetric_position_is_hit_in_all_8_symmetries_with_the_move_mapped)
{
    /* h8 i9 j8 g10: no symmetry of the board leaves it unchanged */
    Position p = pos_of(RULE_FREESTYLE, "h8 i9 j8 g10");
    uint64_t keys[8];
    for (int t = 0; t < 8; t++) {
        Position q = transformed(&p, t);
        static Board b;
        board_reset(&b, 15, RULE_FREESTYLE);
        for (int i = 0; i < q.nmoves; i++) board_play(&b, q.moves[i]);
        keys[t] = b.key;
        for (int u = 0; u < t; u++) cr_assert_neq(keys[u], keys[t], "the test position must have no symmetry");
    }
    const char *mv = "k11";
    Score sc = 123;
    EngineBook *book = book_of(1, &p, &mv, &sc);
    engine_set_book(e, book);
    for (int t = 0; t < 8; t++) {
        Position q = transformed(&p, t);
        EngineResult r = analyze(&q, (Limits){.depth = 2});
        cr_assert(r.from_book, "symmetry %d: not answered from the book", t);
        cr_assert_eq(r.best_move, board_sym_move(move_parse_notation(mv, 15), 15, t), "symmetry %d", t);
        cr_assert_eq(r.score, sc);
        cr_assert_eq(r.nodes, 0);
        cr_assert_eq(r.depth, 12);
        cr_assert(r.complete);
        cr_assert_eq(r.npv, 1);
        cr_assert_eq(r.pvs[0].pv[0], r.best_move);
        cr_assert_eq(r.pvs[0].pv_len, 1, "the book knows nothing after the move");
    }
    engine_set_book(e, NULL);
    engine_book_free(book);
}

Test(book, the_centre_opening_is_hit_in_every_symmetry_and_the_pv_follows_the_book)
{
    Position p0 = pos_of(RULE_RENJU, ""), p1 = pos_of(RULE_RENJU, "h8"), p2 = pos_of(RULE_RENJU, "h8 i9");
    Position ps[3] = {p0, p1, p2};
    const char *mv[3] = {"h8", "i9", "h10"};
    Score sc[3] = {40, -30, 50};
    EngineBook *book = book_of(3, ps, mv, sc);
    engine_set_book(e, book);
    EngineResult r = analyze(&p0, (Limits){.depth = 2});
    cr_assert(r.from_book);
    cr_assert_eq(r.best_move, move_parse_notation("h8", 15));
    cr_assert_eq(r.pvs[0].pv_len, 3, "empty board, h8, its reply, then out of book");
    cr_assert_eq(r.pvs[0].pv[0], move_parse_notation("h8", 15));
    cr_assert_eq(r.score, 40);
    /* h8 is symmetric: any reply equivalent to the stored one is right */
    for (int t = 0; t < 8; t++) {
        Position q = transformed(&p1, t);
        r = analyze(&q, (Limits){.depth = 2});
        cr_assert(r.from_book, "symmetry %d", t);
        cr_assert_eq(r.score, -30);
        cr_assert_eq(reduced_key(&q, r.best_move), reduced_key(&p1, move_parse_notation("i9", 15)), "symmetry %d",
                     t);
        cr_assert_eq(r.pvs[0].pv_len, 2);
        Position after = q;
        after.moves[after.nmoves++] = r.best_move;
        cr_assert_eq(reduced_key(&after, r.pvs[0].pv[1]), reduced_key(&p2, move_parse_notation("h10", 15)));
    }
    /* the same stones under another rule are another position */
    Position f = pos_of(RULE_FREESTYLE, "h8");
    r = analyze(&f, (Limits){.depth = 2});
    cr_assert_not(r.from_book);
    engine_set_book(e, NULL);
    engine_book_free(book);
}

Test(book, a_position_not_in_the_book_no_book_and_multipv_are_searched)
{
    Position p = pos_of(RULE_FREESTYLE, "h8");
    const char *mv = "i9";
    Score sc = -30;
    EngineBook *book = book_of(1, &p, &mv, &sc);
    engine_set_book(e, book);
    Position out = pos_of(RULE_FREESTYLE, "h8 i9");
    EngineResult r = analyze(&out, (Limits){.depth = 2});
    cr_assert_not(r.from_book);
    cr_assert_gt(r.nodes, 0);
    r = analyze(&p, (Limits){.depth = 2, .no_book = true});
    cr_assert_not(r.from_book);
    cr_assert_gt(r.nodes, 0);
    r = analyze(&p, (Limits){.depth = 2, .multipv = 2});
    cr_assert_not(r.from_book);
    cr_assert_eq(r.npv, 2);
    r = analyze(&p, (Limits){.depth = 2});
    cr_assert(r.from_book);
    engine_set_book(e, NULL);
    r = analyze(&p, (Limits){.depth = 2});
    cr_assert_not(r.from_book, "detached");
    engine_book_free(book);
}

Test(book, a_bad_book_is_refused_naming_the_line)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"", "no positions"},
        {"# only a comment\n", "no positions"},
        {"freestyle 15 0123456789abcdef h8 10\n", "line 1"},
        {"# c\nfreestyle 15 0123456789abcdef h8 10 5 extra\n", "line 2"},
        {"gomoku 15 0123456789abcdef h8 10 5\n", "unknown rule"},
        {"freestyle 30 0123456789abcdef h8 10 5\n", "board size"},
        {"freestyle 15 0123456789ABCDEF h8 10 5\n", "hex"},
        {"freestyle 15 0123456789abcde h8 10 5\n", "hex"},
        {"freestyle 15 0123456789abcdef z99 10 5\n", "not a point"},
        {"freestyle 15 0123456789abcdef h8 40000 5\n", "score"},
        {"freestyle 15 0123456789abcdef h8 10 99\n", "depth"},
        {"freestyle 15 0123456789abcdef h8 10 5\nrenju 15 0123456789abcdef i9 1 5\n", "twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[200];
        EngineBook *b = engine_book_parse(cases[i].text, strlen(cases[i].text), err, sizeof err);
        cr_assert_null(b, "case %zu accepted", i);
        cr_assert(strstr(err, cases[i].want), "case %zu: '%s' lacks '%s'", i, err, cases[i].want);
    }
    const char bin[] = "freestyle 15 0123456789abcdef h8 10 5\n\0\1\2";
    char err[200];
    cr_assert_null(engine_book_parse(bin, sizeof bin - 1, err, sizeof err));
    const char crlf[] = "# c\r\n\r\nfreestyle 15 0123456789abcdef h8 10 5\r\n";
    EngineBook *b = engine_book_parse(crlf, sizeof crlf - 1, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    engine_book_free(b);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    static char buf[1 << 20];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cr_assert_lt(*len, sizeof buf);
    return buf;
}

Test(book, the_committed_book_parses_and_holds_the_centre_opening_of_every_rule)
{
    size_t len;
    const char *text = read_all("config/book.txt", &len);
    cr_assert(strstr(text, "make book"), "the header names the command that made it");
    char err[200];
    EngineBook *book = engine_book_parse(text, len, err, sizeof err);
    cr_assert_not_null(book, "%s", err);
    cr_assert_gt(engine_book_size(book), 150);
    engine_set_book(e, book);
    for (int rule = 0; rule < RULE_COUNT; rule++) {
        Position p = pos_of((Rule)rule, "");
        EngineResult r = analyze(&p, (Limits){.depth = 1});
        cr_assert(r.from_book, "rule %d: empty board", rule);
        p = pos_of((Rule)rule, "h8");
        r = analyze(&p, (Limits){.depth = 1});
        cr_assert(r.from_book, "rule %d: h8", rule);
        /* each reply within two points of h8 is in the book */
        Position q = pos_of((Rule)rule, "h8 j10");
        r = analyze(&q, (Limits){.depth = 1});
        cr_assert(r.from_book, "rule %d: h8 j10", rule);
        q = pos_of((Rule)rule, "h8 h7");
        r = analyze(&q, (Limits){.depth = 1});
        cr_assert(r.from_book, "rule %d: h8 h7", rule);
        cr_assert_lt(r.score, SCORE_MATE_MIN);
    }
    engine_set_book(e, NULL);
    engine_book_free(book);
}

Test(book, make_book_is_deterministic, .timeout = 120)
{
    const char *dir = getenv("GOMOKUD_BIN_DIR");
    cr_assert_not_null(dir, "GOMOKUD_BIN_DIR is not set");
    char a[64], b[64], cmd[1024];
    snprintf(a, sizeof a, "/tmp/gomokud-book-a-%d.txt", (int)getpid());
    snprintf(b, sizeof b, "/tmp/gomokud-book-b-%d.txt", (int)getpid());
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "%s/make-book --nodes 3000 --stones 3 --rules standard,renju --out %s 2>/dev/null",
                 dir, i ? b : a);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
    }
    size_t la, lb;
    char *ta = strdup(read_all(a, &la));
    const char *tb = read_all(b, &lb);
    cr_assert_eq(la, lb);
    cr_assert_eq(memcmp(ta, tb, la), 0, "two runs wrote different books");
    char err[200];
    EngineBook *book = engine_book_parse(ta, la, err, sizeof err);
    cr_assert_not_null(book, "%s", err);
    cr_assert_geq(engine_book_size(book), 2 * (1 + 1 + 5), "empty board, h8 and its five replies per rule");
    engine_book_free(book);
    free(ta);
    unlink(a);
    unlink(b);
}
