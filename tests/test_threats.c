/* Threat-space search (VCF, VCT) and the transposition table. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/movegen.h"
#include "engine/rules.h"
#include "engine/tt.h"
#include "engine/vcf.h"
#include "server/tactics.h"
#include "support.h"

#define CACHE 4096
static ThreatEntry cache[CACHE];
static Board b;

static int run(bool vct, int plies, Move *line, int *len)
{
    memset(cache, 0, sizeof cache);
    ThreatSearch ts = {.b = &b, .cache = cache, .cache_mask = CACHE - 1, .budget = 1000000};
    uint64_t key = b.key;
    int r = vct ? vct_find(&ts, plies, line, len) : vcf_find(&ts, plies, line, len);
    cr_assert_eq(b.key, key, "the search leaves the board as it found it");
    cr_assert_not(ts.aborted);
    return r;
}

/* Plays the line and checks it is legal and ends with a five of the attacker. */
static void assert_winning_line(const Move *line, int len)
{
    Color attacker = b.to_move;
    for (int i = 0; i < len; i++) {
        cr_assert(rules_is_legal(&b, line[i]), "line[%d] is illegal", i);
        if (i + 1 == len) cr_assert(board_makes_five(&b, line[i], attacker), "the line ends with the attacker's five");
        board_play(&b, line[i]);
    }
    for (int i = 0; i < len; i++) board_undo(&b);
}

static Tactic *load_suite(int *n)
{
    const char *dir = getenv("GOMOKUD_DATA_DIR");
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/tactics.jsonl", dir ? dir : "tests/data");
    Tactic *t;
    *n = tactics_load(path, &t, err, sizeof err);
    cr_assert_gt(*n, 0, "%s", err);
    return t;
}

/* Sets b to the position of puzzle index (0-based) of the suite; *t holds
 * the suite, for the caller to free. */
static const Tactic *setup_puzzle(int index, Tactic **t)
{
    int n;
    *t = load_suite(&n);
    cr_assert_lt(index, n);
    const Tactic *p = &(*t)[index];
    cr_assert(board_reset(&b, p->pos.size, p->pos.rule));
    for (int k = 0; k < p->pos.nmoves; k++) board_play(&b, p->pos.moves[k]);
    return p;
}

/* VCF puzzles the threat search alone must solve (of 49; the others need
 * the full search, which the tactics test covers). */
#define VCF_MIN_FOUND 45

Test(threats, vcf_finds_a_chain_of_fours_in_the_vcf_puzzles)
{
    int n, tried = 0, found = 0;
    Tactic *t = load_suite(&n);
    for (int i = 0; i < n; i++) {
        if (strcmp(t[i].kind, "vcf")) continue;
        tried++;
        cr_assert(board_reset(&b, t[i].pos.size, t[i].pos.rule));
        for (int k = 0; k < t[i].pos.nmoves; k++) board_play(&b, t[i].pos.moves[k]);
        Move line[THREAT_MAX_LINE];
        int len;
        int r = run(false, THREAT_MAX_LINE - 1, line, &len);
        if (!r) {
            cr_log_info("vcf puzzle %d: no VCF found", i + 1);
            continue;
        }
        found++;
        cr_assert_eq(r % 2, 1, "a win ends on the attacker's move");
        cr_assert_eq(len, r);
        cr_assert(tactics_is_win(&t[i], line[0]), "puzzle %d: starts with a move that does not win", i + 1);
        assert_winning_line(line, len);
        for (int k = 0; k + 1 < len; k += 2) {
            Threat th = board_threat(&b, line[k], b.to_move);
            cr_assert(threat_is_four(th), "puzzle %d: attacker move %d is not a four", i + 1, k);
            board_play(&b, line[k]);
            board_play(&b, line[k + 1]);
        }
    }
    cr_assert_eq(tried, 49);
    cr_assert_geq(found, VCF_MIN_FOUND, "found %d", found);
    free(t);
}

Test(threats, vcf_does_not_claim_a_win_when_the_defender_fives_first)
{
    /* black has a double four at h8, but white has a four of its own */
    support_stones(&b, 15, RULE_FREESTYLE, "e8 f8 g8 h5 h6 h7 a1", "d8 h4 b3 c3 d3 e3", WHITE);
    Move line[THREAT_MAX_LINE];
    int len;
    cr_assert_eq(run(false, 15, line, &len), 1, "white just makes five");
    board_pass(&b);
    cr_assert_eq(run(false, 15, line, &len), 0, "black's fours come too late");
    board_pass(&b);
}

Test(threats, renju_vcf_uses_a_five_point_forbidden_to_black)
{
    /* white's f6 makes a four f3-f6 whose only five point, f2, would give
     * black an overline (c2-h2): black cannot block it */
    support_stones(&b, 15, RULE_RENJU, "c2 d2 e2 g2 h2 f7 f1", "f3 f4 f5 a15 c15 o15", WHITE);
    Move line[THREAT_MAX_LINE];
    int len;
    int r = run(false, 15, line, &len);
    cr_assert_eq(r, 3);
    cr_assert_eq(line[0], support_pt(&b, "f6"));
    cr_assert_eq(line[2], support_pt(&b, "f2"));
    assert_winning_line(line, len);
    /* under standard rules black may block with the overline: no win */
    support_stones(&b, 15, RULE_STANDARD, "c2 d2 e2 g2 h2 f7 f1", "f3 f4 f5 a15 c15 o15", WHITE);
    cr_assert_eq(run(false, 15, line, &len), 0);
}

Test(threats, vct_wins_with_an_open_three_then_fours)
{
    /* black f8 g8 and h6 h7: h8 makes a double three, which wins by threats */
    support_stones(&b, 15, RULE_FREESTYLE, "f8 g8 h6 h7", "a1 a3 o1 o3", BLACK);
    Move line[THREAT_MAX_LINE];
    int len;
    int r = run(true, 11, line, &len);
    cr_assert_gt(r, 0);
    assert_winning_line(line, len);
    cr_assert_eq(run(false, 11, line, &len), 0, "there is no win by fours alone");
}

Test(threats, tt_returns_what_was_stored_and_adjusts_mates_by_ply)
{
    TT tt;
    cr_assert(tt_init(&tt, 1));
    uint64_t key = 0x123456789abcdefull;
    tt_store(&tt, key, 3, MOVE_XY(7, 7), 55, 10, 6, BOUND_EXACT);
    TTProbe p = tt_probe(&tt, key, 3);
    cr_assert(p.hit);
    cr_assert_eq(p.move, MOVE_XY(7, 7));
    cr_assert_eq(p.score, 55);
    cr_assert_eq(p.depth, 6);
    cr_assert_eq(p.bound, BOUND_EXACT);
    /* a mate found 5 plies from the root at ply 3 is 2 plies from the node */
    tt_store(&tt, key ^ 1, 3, MOVE_NONE, SCORE_MATE - 5, 0, 4, BOUND_LOWER);
    p = tt_probe(&tt, key ^ 1, 1);
    cr_assert_eq(p.score, SCORE_MATE - 3, "seen from ply 1 it is 3 plies away");
    cr_assert_not(tt_probe(&tt, key ^ 2, 0).hit);
    tt_free(&tt);
}

Test(threats, tt_keeps_deep_entries_and_replaces_old_ones)
{
    TT tt;
    cr_assert(tt_init(&tt, 1));
    size_t buckets = tt_bytes(&tt) / sizeof(TTBucket);
    /* five keys in one bucket: the shallowest of this search goes */
    for (int i = 0; i < 5; i++) tt_store(&tt, (uint64_t)(i + 1) << 40 | 7, 0, MOVE_NONE, i, 0, 10 - i, BOUND_EXACT);
    cr_assert(tt_probe(&tt, 1ull << 40 | 7, 0).hit, "the deepest stays");
    cr_assert(tt_probe(&tt, 5ull << 40 | 7, 0).hit, "the newest was stored");
    cr_assert_not(tt_probe(&tt, 4ull << 40 | 7, 0).hit, "the shallowest was replaced");
    /* after a new search, an old deep entry gives way */
    tt_new_search(&tt);
    tt_new_search(&tt);
    tt_store(&tt, 9ull << 40 | 7, 0, MOVE_NONE, 1, 0, 1, BOUND_EXACT);
    cr_assert(tt_probe(&tt, 9ull << 40 | 7, 0).hit);
    cr_assert_gt(buckets, 1000);
    tt_free(&tt);
}

Test(threats, large_tables_come_zeroed_and_aligned_for_huge_pages)
{
    size_t huge = (size_t)2 << 20;
    /* a 16 MiB table: 2 MiB aligned, every byte 0, and it can be written */
    unsigned char *p = tt_alloc_table(8 * huge);
    cr_assert_not_null(p);
    cr_assert_eq((uintptr_t)p % huge, 0, "a large table starts on a 2 MiB boundary");
    size_t nonzero = 0;
    for (size_t i = 0; i < 8 * huge; i++) nonzero += p[i] != 0;
    cr_assert_eq(nonzero, 0, "%zu bytes of a fresh table are not zero", nonzero);
    p[8 * huge - 1] = 1;
    tt_free_table(p, 8 * huge);
    /* a small one (or one that is not whole huge pages) is plain zeroed memory */
    unsigned char *q = tt_alloc_table(huge + 100);
    cr_assert_not_null(q);
    for (size_t i = 0; i < huge + 100; i++) cr_assert_eq(q[i], 0);
    tt_free_table(q, huge + 100);
    /* the table of a 64 MiB engine sits on a boundary too */
    TT tt;
    cr_assert(tt_init(&tt, 64));
    cr_assert_eq((uintptr_t)tt.buckets % huge, 0);
    cr_assert_eq(tt_bytes(&tt), (size_t)64 << 20);
    tt_free(&tt);
}

/* Sorted move list of a generator call, for comparing with expected sets. */
static int gen_sorted(GenKind *kind, Move *out)
{
    ScoredMove mv[BOARD_MAX_MOVES];
    int n = movegen(&b, mv, kind);
    for (int i = 0; i < n; i++) out[i] = mv[i].move;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && out[j] < out[j - 1]; j--) {
            Move t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

static void assert_moves(const Move *got, int n, const char *want)
{
    Move w[16];
    int nw = 0;
    char buf[128];
    strncpy(buf, want, sizeof buf - 1);
    buf[sizeof buf - 1] = 0;
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
        w[nw++] = support_pt(&b, tok);
    cr_assert_eq(n, nw, "%d moves where %d (%s) were expected", n, nw, want);
    for (int i = 0; i < nw; i++) {
        bool found = false;
        for (int j = 0; j < n; j++) found |= got[j] == w[i];
        cr_assert(found, "the answers miss a defence of '%s'", want);
    }
}

Test(threats, an_open_three_is_answered_only_by_real_defences)
{
    static const struct {
        const char *game, *answers;
    } cases[] = {
        /* .XXX. with two free points each side: of the four points where
         * black would make a four, only the two next to the three stop
         * every straight four (a stone two away leaves .XXXX. to be made) */
        {"g8 a1 h8 a15 i8", "f8 j8"},
        /* against the wall (|.XXX..) the far point also holds: black's
         * straight four needs the two points on the open side */
        {"b8 a15 c8 o15 d8", "a8 e8 f8"},
        /* a broken three X.XX: the gap and both ends */
        {"f8 a1 h8 a15 i8", "e8 g8 j8"},
        /* a four of white's own gains the tempo and is kept besides */
        {"c2 c3 g8 c4 h8 c5 i8", "f8 j8 c6 c7"},
        /* two open threes cannot both be stopped: every four point is
         * searched (all of them lose) */
        {"g8 a15 h8 o15 e3 o1 e4 a1 e5 a3 i8", "e8 f8 j8 k8 e1 e2 e6 e7"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        support_moves(&b, 15, RULE_FREESTYLE, cases[i].game);
        GenKind kind;
        Move got[BOARD_MAX_MOVES];
        int n = gen_sorted(&kind, got);
        cr_assert_eq(kind, GEN_DEFEND_THREE, "case %zu", i + 1);
        assert_moves(got, n, cases[i].answers);
    }
}

Test(threats, the_quiescence_answers_an_open_three_without_bare_fours_elsewhere)
{
    static const struct {
        const char *game, *every_four, *fours_with_more;
    } cases[] = {
        /* white's fours c6 and c7 make nothing else: kept in the main
         * search, left out where only fours that make a two or more count */
        {"c2 c3 g8 c4 h8 c5 i8", "f8 j8 c6 c7", "f8 j8"},
        /* with d7, each of them also makes an open two: kept either way */
        {"c2 c3 g8 c4 h8 c5 a15 d7 i8", "f8 j8 c6 c7", "f8 j8 c6 c7"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        support_moves(&b, 15, RULE_FREESTYLE, cases[i].game);
        ScoredMove mv[BOARD_MAX_MOVES];
        Move got[BOARD_MAX_MOVES];
        int n = movegen_defences(&b, mv, T_B4);
        for (int k = 0; k < n; k++) got[k] = mv[k].move;
        assert_moves(got, n, cases[i].every_four);
        n = movegen_defences(&b, mv, T_B4P);
        for (int k = 0; k < n; k++) got[k] = mv[k].move;
        assert_moves(got, n, cases[i].fours_with_more);
    }
}

/* The defences by their definition, every four point tried: a point of a
 * four of either side that the side to move may take, kept when it is a
 * four of its own or leaves the opponent no straight four to make (all of
 * them when none does). Sorted by point. */
static int defences_by_definition(Move *out)
{
    Color me = b.to_move, opp = OPPONENT(me);
    Move pts[2][BOARD_MAX_MOVES], all[BOARD_MAX_MOVES];
    int np[2] = {board_threat_points(&b, me, TK_FOUR, pts[0], BOARD_MAX_MOVES),
                 board_threat_points(&b, opp, TK_FOUR, pts[1], BOARD_MAX_MOVES)};
    int n = 0, nall = 0;
    for (Move m = 0; m < BOARD_CELLS; m++) {
        bool four_point = false;
        for (int s = 0; s < 2; s++)
            for (int i = 0; i < np[s]; i++) four_point |= pts[s][i] == m;
        if (!four_point || !rules_is_legal(&b, m)) continue;
        all[nall++] = m;
        bool keep = threat_is_four(board_threat(&b, m, me));
        if (!keep) {
            board_play(&b, m);
            keep = !movegen_has_open_four_point(&b, opp);
            board_undo(&b);
        }
        if (keep) out[n++] = m;
    }
    if (n == 0)
        for (int i = 0; i < nall; i++) out[n++] = all[i];
    return n;
}

Test(threats, defences_skip_only_points_that_cannot_stop_the_straight_four)
{
    /* every open three that can be made in the suite's positions: the
     * generator's answers (which skip the four points out of reach of one
     * straight-four point) are the answers by definition */
    int n, checked = 0;
    Tactic *t = load_suite(&n);
    for (int i = 0; i < n; i++) {
        cr_assert(board_reset(&b, t[i].pos.size, t[i].pos.rule));
        for (int k = 0; k < t[i].pos.nmoves; k++) board_play(&b, t[i].pos.moves[k]);
        ScoredMove threes[BOARD_MAX_MOVES];
        int nt = movegen_threats(&b, threes, false);
        for (int j = 0; j < nt; j++) {
            if (!threat_is_three(board_threat(&b, threes[j].move, b.to_move))) continue;
            board_play(&b, threes[j].move);
            GenKind kind;
            Move got[BOARD_MAX_MOVES], want[BOARD_MAX_MOVES];
            int ng = gen_sorted(&kind, got);
            if (kind == GEN_DEFEND_THREE) {
                int nw = defences_by_definition(want);
                cr_assert_eq(ng, nw, "puzzle %d, three %d: %d answers, %d by definition", i + 1, j, ng, nw);
                for (int k = 0; k < nw; k++) cr_assert_eq(got[k], want[k], "puzzle %d, three %d", i + 1, j);
                checked++;
            }
            board_undo(&b);
        }
    }
    cr_log_info("%d defence sets checked", checked);
    cr_assert_gt(checked, 400);
    free(t);
}

/* The tactics suite: positions with a proven forced win. Every first move
 * must be right at this budget (a little under what the one-second bench
 * searches), and every win but puzzle 63's proven (its proof, 29 plies with
 * a quiet move, takes the solver about 20M nodes). */
#define TACTICS_NODES 800000
#define TACTICS_UNPROVEN 63

Test(threats, the_tactics_suite_is_proven_within_a_node_budget, .timeout = 600)
{
    int n;
    Tactic *t = load_suite(&n);
    Engine *e = engine_new(&(EngineOptions){.tt_mib = 16});
    int solved = 0, proven = 0;
    for (int i = 0; i < n; i++) {
        t[i].pos.ordered = false;
        engine_clear(e);
        EngineResult r;
        cr_assert_eq(engine_analyze(e, &t[i].pos, &(Limits){.nodes = TACTICS_NODES}, &r, NULL), POSITION_OK);
        bool right = tactics_is_win(&t[i], r.best_move);
        cr_expect(r.mate <= 0 || right, "position %d: claims a win with a move that is not one", i + 1);
        cr_expect_geq(r.mate, 0, "position %d: the side to move has a win, not a loss", i + 1);
        if (r.mate > 0)
            cr_assert(tactics_proof_replays(&t[i], &r), "position %d: the win in %d (PV of %d plies) does not replay to a five",
                      i + 1, r.mate, r.pvs[0].pv_len);
        cr_expect(right, "position %d (%s): %s is not a winning move", i + 1, t[i].kind,
                  move_to_notation(r.best_move, t[i].pos.size, (char[8]){0}));
        cr_expect(r.mate > 0 || i + 1 == TACTICS_UNPROVEN, "position %d (%s): no proof within %d nodes", i + 1,
                  t[i].kind, TACTICS_NODES);
        solved += right;
        proven += right && r.mate > 0;
        if (!right || r.mate <= 0) cr_log_info("tactics %d (%s) %s", i + 1, t[i].kind, right ? "unproven" : "unsolved");
    }
    cr_log_info("tactics at %d nodes: %d/%d right first moves, %d proven", TACTICS_NODES, solved, n, proven);
    cr_assert_eq(solved, n, "solved %d of %d", solved, n);
    engine_free(e);
    free(t);
}

/* The threat quiescence below the horizon: with the root threat search off,
 * a one-ply search still proves four-chain wins, because every four past
 * the horizon is answered by its forced block. Without the quiescence the
 * same search proves far fewer. */
static int vcf_mates_at_depth_one(unsigned disable)
{
    int n, mates = 0;
    Tactic *t = load_suite(&n);
    Engine *e = engine_new(&(EngineOptions){.tt_mib = 4, .disable = disable});
    cr_assert_not_null(e);
    for (int i = 0; i < n; i++) {
        if (strcmp(t[i].kind, "vcf")) continue;
        t[i].pos.ordered = false;
        engine_clear(e);
        EngineResult r;
        cr_assert_eq(engine_analyze(e, &t[i].pos, &(Limits){.depth = 1}, &r, NULL), POSITION_OK);
        if (r.mate > 0) {
            cr_assert(tactics_is_win(&t[i], r.best_move), "puzzle %d: a mate claimed with a move that does not win",
                      i + 1);
            mates++;
        }
    }
    engine_free(e);
    free(t);
    return mates;
}

#define QS_MIN_VCF_MATES 10

Test(threats, the_quiescence_proves_four_chains_past_the_horizon)
{
    int with = vcf_mates_at_depth_one(ENGINE_NO_THREATS);
    int without = vcf_mates_at_depth_one(ENGINE_NO_THREATS | ENGINE_NO_HORIZON);
    cr_log_info("vcf puzzles proven at depth 1: %d with the quiescence, %d without", with, without);
    cr_assert_geq(with, QS_MIN_VCF_MATES, "only %d proven", with);
    cr_assert_geq(with, 2 * without, "%d with, %d without", with, without);
}

Test(threats, vct_opens_with_a_quiet_double_threat_when_allowed)
{
    /* renju puzzle 78: black's only wins start with a move that threatens
     * nothing yet but makes two lines of threats at once */
    Tactic *t;
    const Tactic *p = setup_puzzle(77, &t);
    Move line[THREAT_MAX_LINE];
    int len;
    cr_assert_eq(run(true, 25, line, &len), 0, "threes and fours alone do not win here");
    memset(cache, 0, sizeof cache);
    ThreatSearch ts = {.b = &b, .cache = cache, .cache_mask = CACHE - 1, .budget = 1000000, .quiet_plies = 1};
    int r = vct_find(&ts, 25, line, &len);
    cr_assert_gt(r, 0, "the quiet first move wins");
    cr_assert_eq(len, r);
    cr_assert(tactics_is_win(p, line[0]), "a winning first move");
    Threat first = board_threat(&b, line[0], b.to_move);
    cr_assert(!threat_is_four(first) && !threat_is_three(first), "the first move is quiet");
    assert_winning_line(line, len);
    free(t);
}

/* A table big enough for the longer renju proofs. */
#define BIG_CACHE (1u << 18)
static ThreatEntry big_cache[BIG_CACHE];

static int run_quiet(int quiet_moves, int plies, Move *line, int *len, uint64_t *nodes)
{
    memset(big_cache, 0, sizeof big_cache);
    ThreatSearch ts = {.b = &b, .cache = big_cache, .cache_mask = BIG_CACHE - 1, .budget = 2000000,
                       .quiet_plies = 3, .quiet_moves = quiet_moves};
    uint64_t key = b.key;
    int r = vct_find(&ts, plies, line, len);
    cr_assert_eq(b.key, key, "the search leaves the board as it found it");
    cr_assert_not(ts.aborted);
    *nodes = ts.nodes;
    return r;
}

/* Puzzle index + 1 (renju) is not won by threes and fours alone within 25
 * plies, and is with two quiet moves that threaten a VCF: the proof's line
 * (in line[0..*len), its nodes in *nodes) replays to a five. */
static const Tactic *quiet_proof(int index, Tactic **t, Move *line, int *len, uint64_t *nodes)
{
    const Tactic *p = setup_puzzle(index, t);
    cr_assert_eq(run_quiet(0, 25, line, len, nodes), 0, "no win by threes and fours");
    int r = run_quiet(2, 25, line, len, nodes);
    cr_log_info("renju puzzle %d: a win in %d plies, %llu nodes", index + 1, r, (unsigned long long)*nodes);
    cr_assert_gt(r, 0, "the quiet moves win");
    cr_assert_eq(*len, r);
    assert_winning_line(line, *len);
    return p;
}

Test(threats, renju_vct_wins_with_quiet_moves_that_threaten_a_vcf)
{
    /* renju puzzle 72: black's j10 makes no three, but threatens the VCF
     * l10 k9 k10; after white's only answers black needs a second such
     * move (j9). Threes and fours alone, even with quiet openers, do not
     * win within 25 plies. */
    Tactic *t;
    Move line[THREAT_MAX_LINE];
    int len;
    uint64_t nodes;
    quiet_proof(71, &t, line, &len, &nodes);
    cr_assert_eq(line[0], support_pt(&b, "j10"), "the only winning first move");
    int quiet = 0;
    for (int k = 0; k < len; k++) {
        Threat th = board_threat(&b, line[k], b.to_move);
        if (k % 2 == 0 && !threat_is_four(th) && !threat_is_three(th) && th != T_FIVE) quiet++;
        board_play(&b, line[k]);
    }
    for (int k = 0; k < len; k++) board_undo(&b);
    cr_assert_geq(quiet, 1, "the line has a quiet move");
    free(t);
}

Test(threats, a_quiet_move_that_blocks_an_open_three_may_open_the_vct, .timeout = 300)
{
    /* renju, white to move (a line of a puzzle of the lfz084 collections,
     * taken out of the held-out set): black's f9 g10 . i12 is an open
     * three, so white must block it or win by fours, and its fours do not
     * win. White's h11 blocks it in the middle and makes a closed three
     * (h9 . h11 h12) and an open two (g12 h11) at once: it threatens the
     * VCF h13 h10 h14 ..., and every answer loses. */
    support_moves(&b, 15, RULE_RENJU, "f11 f12 g11 h12 e9 e11 f9 h9 g9 i9 g8 f8 h8 g12 c9 d9 g10 g7 i12");
    cr_assert(movegen_has_open_four_point(&b, BLACK), "black threatens a straight four");
    Move line[THREAT_MAX_LINE];
    int len;
    uint64_t nodes;
    cr_assert_eq(run(true, 25, line, &len), 0, "no win by threes and fours");
    /* it counts as a move that threatens a VCF, not as an opener whose
     * every answer would be tried */
    cr_assert_eq(run_quiet(0, 25, line, &len, &nodes), 0, "not as an opener");
    cr_assert_gt(run_quiet(2, 25, line, &len, &nodes), 0, "the quiet block wins");
    cr_assert_eq(line[0], support_pt(&b, "h11"), "by h11");
    Threat th = board_threat(&b, line[0], WHITE);
    cr_assert(!threat_is_four(th) && !threat_is_three(th), "a quiet move");
    assert_winning_line(line, len);
}

Test(threats, renju_white_wins_by_a_closed_three_whose_four_black_cannot_block, .timeout = 300)
{
    /* renju puzzle 87: after j7 j6 j11 j8, white's k7 makes only a closed
     * three, but its four i7 would have its five point at h7, a double
     * three of black's: a block black may not make. The VCF k7 threatens
     * starts with g10, whose block f10 makes a black four that white's i7
     * closes; the answers are every point that breaks that line. */
    Tactic *t;
    Move line[THREAT_MAX_LINE];
    int len;
    uint64_t nodes;
    const Tactic *p = quiet_proof(86, &t, line, &len, &nodes);
    int r = len;
    cr_assert(tactics_is_win(p, line[0]), "a winning first move");
    bool trap = false, trap_won = false;
    for (int k = 0; k < len; k++) {
        if (k % 2 == 0 && board_threat(&b, line[k], WHITE) == T_B3) trap = true;
        Move f[2];
        if (k % 2 == 1 && movegen_five_points(&b, WHITE, f, 2) == 1 && movegen_forbidden(&b, f[0]))
            trap_won = true; /* black is to block a four on a point it may not take */
        board_play(&b, line[k]);
    }
    for (int k = 0; k < len; k++) board_undo(&b);
    cr_assert(trap, "the line has a white move that makes only a closed three");
    cr_assert(trap_won, "and ends with a four black cannot block");
    /* the same proof with the answers to quiet moves kept between visits */
    static QuietAnswers answers[1 << 12];
    memset(big_cache, 0, sizeof big_cache);
    ThreatSearch ts = {.b = &b, .cache = big_cache, .cache_mask = BIG_CACHE - 1, .answers = answers,
                       .answers_mask = (1 << 12) - 1, .budget = 2000000, .quiet_plies = 3, .quiet_moves = 2};
    Move kept[THREAT_MAX_LINE];
    int kept_len;
    cr_assert_eq(vct_find(&ts, 25, kept, &kept_len), r, "the kept answers prove the same win");
    cr_assert(tactics_is_win(p, kept[0]));
    cr_assert_leq(ts.nodes, nodes, "and need no more nodes");
    free(t);
}

/* Puzzle 61, a renju VCT of 21 plies or more with counter-fours on the way:
 * with every attacker move started at the proof number of its threat
 * alone, df-pn needed 1.41M nodes to its first proof; ranked by the move
 * order's score, about 0.55M. */
#define PUZZLE_61_NODES 800000

/* Puzzle index + 1 of the suite is proven by the VCT alone (root
 * settings; with keep_answers, the quiet moves' answers kept as the
 * engine keeps them) within budget nodes, and its line replays to a five. */
static void assert_vct_proven_within(int index, uint64_t budget, bool keep_answers)
{
    static QuietAnswers answers[1 << 13];
    Tactic *t;
    const Tactic *p = setup_puzzle(index, &t);
    memset(big_cache, 0, sizeof big_cache);
    memset(answers, 0, sizeof answers);
    ThreatSearch ts = {.b = &b, .cache = big_cache, .cache_mask = BIG_CACHE - 1,
                       .answers = keep_answers ? answers : NULL, .answers_mask = keep_answers ? (1u << 13) - 1 : 0,
                       .budget = budget, .quiet_plies = 3, .quiet_moves = 2};
    Move line[THREAT_MAX_LINE];
    int len = 0;
    int r = vct_find(&ts, 25, line, &len);
    cr_log_info("puzzle %d: a win in %d plies, %llu nodes", index + 1, r, (unsigned long long)ts.nodes);
    cr_assert_gt(r, 0, "puzzle %d proven within %llu nodes", index + 1, (unsigned long long)budget);
    cr_assert_eq(len, r);
    cr_assert(tactics_is_win(p, line[0]), "a winning first move");
    assert_winning_line(line, len);
    free(t);
}

Test(threats, the_move_order_ranks_the_vct_so_puzzle_61_is_proven_within_800k_nodes, .timeout = 300)
{
    assert_vct_proven_within(60, PUZZLE_61_NODES, false);
}

/* Puzzle 72, a renju VCT through a quiet VCF threat (j10): with every
 * defender answer started at the same disproof number, df-pn needs about
 * 386,000 nodes to its first proof (256k-entry table; 200,000 before the
 * attacker's steeper rank); with the likelier answers first
 * (INIT_DN_RANK), about 174,000 (100,000 before). */
#define PUZZLE_72_NODES 250000

Test(threats, the_defenders_likelier_answers_go_first_so_puzzle_72_is_proven_within_250k_nodes, .timeout = 300)
{
    assert_vct_proven_within(71, PUZZLE_72_NODES, true);
}

/* Puzzle 56, a renju VCT: with every three of the attacker's started at
 * the same proof number, however many fours the defender could answer it
 * with, df-pn needed between 175,000 and 200,000 nodes to its first proof
 * (256k-entry table); with each such four counted (INIT_PN_COUNTER) and
 * plain fours behind the fours that make more (INIT_PN_PLAIN_FOUR), about
 * 139,000 (136,000 with the proof history too, 82,000 with the
 * attacker's steeper rank). */
#define PUZZLE_56_NODES 150000

Test(threats, threes_the_defender_can_answer_with_fours_wait_so_puzzle_56_is_proven_within_150k_nodes, .timeout = 300)
{
    assert_vct_proven_within(55, PUZZLE_56_NODES, true);
}

/* Puzzle 62, a renju VCT of 19 plies: many of the defender's answers
 * along the way are beaten by the same few threats. With the attacker's
 * moves in the policy's order alone, df-pn needs about 57,000 nodes to its
 * first proof (256k-entry table); with the points that won proven attacker
 * nodes before moved up among their kind (PROOF_HISTORY_WEIGHT), about
 * 12,000. (Puzzle 84 showed it first, 213,000 against 124,000; with the
 * steeper rank below its path changed and it now needs more with it.) */
#define PUZZLE_62_NODES 30000

Test(threats, threats_that_won_before_go_first_so_puzzle_62_is_proven_within_30k_nodes, .timeout = 300)
{
    assert_vct_proven_within(61, PUZZLE_62_NODES, true);
}

/* Puzzle 65, a renju VCT of 19 plies: with each attacker move started 2
 * higher for each place below the first in the move order, df-pn needed
 * about 54,000 nodes to its first proof (256k-entry table); at 4 a place
 * (INIT_PN_RANK), about 3,400: the likelier threats are kept longer
 * before the others are tried. */
#define PUZZLE_65_NODES 20000

Test(threats, unlikely_threats_wait_longer_so_puzzle_65_is_proven_within_20k_nodes, .timeout = 300)
{
    assert_vct_proven_within(64, PUZZLE_65_NODES, true);
}

/* Puzzle 64, a renju VCT: most of the defender's answers along the way
 * lose to the same attack as an answer proven before. Proving each of them
 * by df-pn anew took about 10,700 nodes to the first proof (256k-entry
 * table); trying first to replay the proof of a proven sibling answer
 * (simulation, SIMULATION), about 3,400. */
#define PUZZLE_64_NODES 6000

Test(threats, answers_that_lose_like_a_sibling_are_proven_by_its_proof_so_puzzle_64_takes_6k_nodes, .timeout = 300)
{
    assert_vct_proven_within(63, PUZZLE_64_NODES, true);
}

Test(threats, every_answer_to_a_quiet_vcf_threat_loses, .timeout = 300)
{
    /* puzzle 72 again: after black's quiet j10 the VCT answers only with
     * the points that break the VCF j10 threatens and takes every other
     * point as lost to it. Each of white's legal answers is searched here
     * on its own: none may hold. */
    Tactic *t;
    setup_puzzle(71, &t);
    board_play(&b, support_pt(&b, "j10"));
    Move line[THREAT_MAX_LINE];
    int len, answers = 0;
    uint64_t nodes, total = 0;
    for (int y = 0; y < b.size; y++)
        for (int x = 0; x < b.size; x++) {
            Move m = MOVE_XY(x, y);
            if (!rules_is_legal(&b, m)) continue;
            board_play(&b, m);
            int r = run_quiet(2, 23, line, &len, &nodes);
            char buf[8];
            cr_assert_gt(r, 0, "white's %s holds", move_to_notation(m, b.size, buf));
            assert_winning_line(line, len);
            board_undo(&b);
            answers++;
            total += nodes;
        }
    cr_log_info("every one of %d answers to j10 loses (%llu nodes)", answers, (unsigned long long)total);
    cr_assert_gt(answers, 150);
    free(t);
}

Test(threats, the_root_searches_only_moves_that_refute_the_opponents_vcf)
{
    /* white threatens k8: a four on row 8 (black g8 closes it) and an open
     * three k8-k10, then a straight four. Black has no threat of its own. */
    Position p = {.rule = RULE_FREESTYLE, .size = 15};
    support_moves(&b, 15, RULE_FREESTYLE, "g8 h8 a1 i8 a3 j8 o1 k9 o15 k10");
    int ncand = 0, nrefute = 0;
    bool refutes[BOARD_CELLS] = {false};
    Move line[THREAT_MAX_LINE];
    int len;
    board_pass(&b);
    cr_assert_gt(run(false, 15, line, &len), 0, "white has a VCF if black passes");
    board_pass(&b);
    ScoredMove mv[BOARD_MAX_MOVES];
    GenKind kind;
    int nm = movegen(&b, mv, &kind);
    for (int i = 0; i < nm; i++) {
        Move m = mv[i].move;
        ncand++;
        board_play(&b, m);
        refutes[m] = run(false, 15, line, &len) == 0;
        board_undo(&b);
        nrefute += refutes[m];
    }
    cr_assert(nrefute >= 2 && nrefute < ncand / 4, "%d of %d moves refute", nrefute, ncand);
    for (int i = 0; i < b.nmoves; i++) p.moves[p.nmoves++] = b.history[i].move;
    Engine *e = engine_new(&(EngineOptions){.tt_mib = 4});
    EngineResult r;
    cr_assert_eq(engine_analyze(e, &p, &(Limits){.depth = 2, .multipv = ENGINE_MAX_MULTIPV}, &r, NULL), POSITION_OK);
    cr_assert_gt(r.npv, 0);
    cr_assert_leq(r.npv, nrefute, "only refuting moves are searched");
    for (int k = 0; k < r.npv; k++) cr_assert(refutes[r.pvs[k].move], "line %d plays a move that loses to the VCF", k);
    /* the answer names the threat and how many moves stop it */
    cr_assert_eq(r.refutations, nrefute);
    cr_assert_gt(r.threat_len, 2);
    board_pass(&b);
    for (int i = 0; i < r.threat_len; i++) {
        cr_assert(board_empty(&b, r.threat[i]));
        if (i + 1 == r.threat_len) cr_assert(board_makes_five(&b, r.threat[i], WHITE), "the threat ends with white's five");
        board_play(&b, r.threat[i]);
    }
    /* and no threat when there is none: black's move (g8 taken back) */
    p.nmoves = 1;
    cr_assert_eq(engine_analyze(e, &p, &(Limits){.depth = 2}, &r, NULL), POSITION_OK);
    cr_assert_eq(r.threat_len, 0);
    engine_free(e);
}

Test(threats, the_root_searches_only_moves_that_refute_the_opponents_vct)
{
    /* black's twos f8 g8 and h9 h10 meet at h8, where black would make two
     * open threes; white's i10 and g9 close the diagonals, and black has no
     * four to make. If white passes, black wins by that VCT; h8 is the only
     * move after which black has no VCT (every one of white's 98 candidates
     * was searched to 25 plies with 2M nodes when this test was written). */
    Position p = {.rule = RULE_FREESTYLE, .size = 15};
    support_moves(&b, 15, RULE_FREESTYLE, "f8 i10 g8 g9 h9 a1 h10 o1 a15");
    Move line[THREAT_MAX_LINE];
    int len;
    board_pass(&b);
    cr_assert_eq(run(false, 25, line, &len), 0, "black has no VCF if white passes");
    cr_assert_gt(run(true, 25, line, &len), 0, "but a VCT");
    board_pass(&b);
    for (int i = 0; i < b.nmoves; i++) p.moves[p.nmoves++] = b.history[i].move;
    Engine *e = engine_new(&(EngineOptions){.tt_mib = 4});
    EngineResult r;
    cr_assert_eq(engine_analyze(e, &p, &(Limits){.depth = 2, .multipv = ENGINE_MAX_MULTIPV}, &r, NULL), POSITION_OK);
    cr_assert(r.threat_vct, "the threat is a VCT");
    cr_assert_gt(r.refutations, 0, "some moves were dropped, not all");
    cr_assert_eq(r.npv, r.refutations, "only the moves kept were searched");
    bool h8 = false;
    for (int k = 0; k < r.npv; k++) h8 |= r.pvs[k].move == support_pt(&b, "h8");
    cr_assert(h8, "the one defence is kept");
    cr_assert_eq(r.best_move, support_pt(&b, "h8"));
    board_pass(&b);
    for (int i = 0; i < r.threat_len; i++) {
        cr_assert(board_empty(&b, r.threat[i]));
        if (i + 1 == r.threat_len) cr_assert(board_makes_five(&b, r.threat[i], BLACK), "the threat ends with black's five");
        board_play(&b, r.threat[i]);
    }
    for (int i = 0; i < r.threat_len; i++) board_undo(&b);
    board_pass(&b);
    engine_free(e);
}

/* A worker that keeps proofs (EngineOptions.keep_proofs) answers a position
 * on the line of a win it proved before at once, with the rest of that line,
 * whatever the new search's budget (a win for the winner to move, a loss for
 * the loser); one that does not, or after engine_clear, searches it from
 * nothing. */
Test(threats, a_kept_proof_answers_the_positions_on_its_line, .timeout = 120)
{
    int n;
    Tactic *t = load_suite(&n);
    Engine *keep = engine_new(&(EngineOptions){.tt_mib = 4, .keep_proofs = true});
    Engine *fresh = engine_new(&(EngineOptions){.tt_mib = 4});
    Engine *other = engine_new(&(EngineOptions){.tt_mib = 4, .keep_proofs = true});
    int checked = 0;
    for (int i = 0; i < n && checked < 3; i++) {
        if (strcmp(t[i].kind, "vct")) continue;
        t[i].pos.ordered = false;
        EngineResult r, later, cold;
        engine_clear(keep);
        cr_assert_eq(engine_analyze(keep, &t[i].pos, &(Limits){.nodes = 300000}, &r, NULL), POSITION_OK);
        if (r.mate < 5 || r.from_proof) continue;
        /* what it proved, handed to another engine (as the server's workers share it) */
        Move kept[ENGINE_MAX_PV];
        int kept_len = engine_last_proof(keep, kept);
        engine_clear(other);
        if (kept_len) cr_assert(engine_add_proof(other, &t[i].pos, kept, kept_len));
        /* two plies on: the winner to move again, a win in r.mate - 1 */
        Tactic on = t[i];
        on.pos.moves[on.pos.nmoves++] = r.pvs[0].pv[0];
        on.pos.moves[on.pos.nmoves++] = r.pvs[0].pv[1];
        on.nwins = 1;
        on.wins[0] = r.pvs[0].pv[2];
        cr_assert_eq(engine_analyze(fresh, &on.pos, &(Limits){.nodes = 50}, &cold, NULL), POSITION_OK);
        if (cold.mate > 0) continue; /* 50 nodes prove it anyway: no test of the kept line */
        cr_assert_not(cold.from_proof);
        cr_assert_eq(engine_analyze(keep, &on.pos, &(Limits){.nodes = 50}, &later, NULL), POSITION_OK);
        /* (only the threat solver's proofs are kept: a shorter mate the main
         * search found can take the answer's place, off the kept line) */
        if (!later.from_proof) continue;
        cr_assert_eq(later.mate, r.mate - 1, "puzzle %d", i + 1);
        cr_assert_eq(later.best_move, r.pvs[0].pv[2], "puzzle %d", i + 1);
        cr_assert_eq(later.pvs[0].pv_len, r.pvs[0].pv_len - 2, "puzzle %d", i + 1);
        cr_assert(tactics_proof_replays(&on, &later), "puzzle %d: the kept line replays to a five", i + 1);
        cr_assert_eq(kept_len, r.pvs[0].pv_len, "puzzle %d: the line kept is the answer's", i + 1);
        EngineResult passed;
        cr_assert_eq(engine_analyze(other, &on.pos, &(Limits){.nodes = 50}, &passed, NULL), POSITION_OK);
        cr_assert(passed.from_proof && passed.mate == later.mate, "puzzle %d: the other engine answers from it", i + 1);
        cr_assert_eq(engine_last_proof(other, kept), 0, "puzzle %d: an answer from a kept proof proves nothing new", i + 1);
        cr_assert_not(engine_add_proof(fresh, &t[i].pos, kept, kept_len), "an engine without kept proofs takes none");
        /* a move to play from a fresh engine (/v1/move) stays a function of
         * its request: no kept proof */
        EngineResult play;
        cr_assert_eq(engine_analyze(keep, &on.pos, &(Limits){.nodes = 50, .play = true}, &play, NULL), POSITION_OK);
        cr_assert_not(play.from_proof, "puzzle %d", i + 1);
        /* (a mate it claims is its own search's, whose quiescence in play
         * counts a three whose searched answers all lose as mated) */
        if (play.mate > 0) cr_assert(tactics_proof_replays(&on, &play), "puzzle %d: the line played replays", i + 1);
        /* one ply on, the loser to move: lost, the proof's longest defence */
        Position lost = t[i].pos;
        lost.moves[lost.nmoves++] = r.pvs[0].pv[0];
        EngineResult def;
        cr_assert_eq(engine_analyze(keep, &lost, &(Limits){.nodes = 50}, &def, NULL), POSITION_OK);
        cr_assert(def.from_proof, "puzzle %d: the loser's position is on the kept line too", i + 1);
        cr_assert_eq(def.mate, -(r.mate - 1), "puzzle %d", i + 1);
        cr_assert_eq(def.best_move, r.pvs[0].pv[1], "puzzle %d", i + 1);
        cr_assert_eq(def.pvs[0].pv_len, r.pvs[0].pv_len - 1, "puzzle %d", i + 1);
        engine_clear(keep);
        cr_assert_eq(engine_analyze(keep, &on.pos, &(Limits){.nodes = 50}, &later, NULL), POSITION_OK);
        cr_assert_not(later.from_proof, "puzzle %d: engine_clear forgets kept proofs", i + 1);
        cr_assert_eq(later.mate, cold.mate, "puzzle %d", i + 1);
        checked++;
    }
    cr_assert_eq(checked, 3, "three VCT puzzles with long proofs checked");
    engine_free(keep);
    engine_free(fresh);
    engine_free(other);
    free(t);
}

/* A puzzle line may leave winning_moves empty (a held-out puzzle without
 * its answer): any first move counts, and only a proof that replays to a
 * five makes it solved. */
Test(threats, a_puzzle_without_answers_is_judged_by_its_proof)
{
    char path[] = "/tmp/gomokud-tactics-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("{\"src\": \"test\", \"rule\": \"freestyle\", \"size\": 15, \"moves\": [\"i12\", \"j14\", \"j12\", \"j13\", "
          "\"k10\", \"h12\", \"l10\", \"k11\", \"h9\", \"m10\", \"j9\", \"n10\", \"k9\", \"h8\", \"m9\", \"i8\", \"h7\", "
          "\"j8\", \"l7\", \"m6\", \"k6\", \"j5\"], \"to_move\": \"black\", \"kind\": \"vcf\", \"winning_moves\": []}\n",
          f);
    fclose(f);
    Tactic *t;
    char err[256];
    int n = tactics_load(path, &t, err, sizeof err);
    unlink(path);
    cr_assert_eq(n, 1, "%s", err);
    cr_assert_eq(t[0].nwins, 0);
    cr_assert(tactics_is_win(&t[0], MOVE_XY(0, 0)), "without answers any first move may win");
    Engine *e = engine_new(&(EngineOptions){.tt_mib = 4});
    EngineResult r;
    t[0].pos.ordered = false;
    cr_assert_eq(engine_analyze(e, &t[0].pos, &(Limits){.nodes = 200000}, &r, NULL), POSITION_OK);
    cr_assert_gt(r.mate, 0, "the VCF is proven");
    cr_assert(tactics_proof_replays(&t[0], &r));
    EngineResult bad = r;
    bad.mate++; /* a PV two plies short of its claim */
    cr_assert_not(tactics_proof_replays(&t[0], &bad));
    bad = r;
    bad.pvs[0].pv[bad.pvs[0].pv_len - 1] = bad.pvs[0].pv[0]; /* ends on a taken point */
    cr_assert_not(tactics_proof_replays(&t[0], &bad));
    bad = r;
    bad.pvs[0].pv_len -= 2; /* stops before the five */
    bad.mate--;
    cr_assert(bad.mate == 0 || !tactics_proof_replays(&t[0], &bad));
    engine_free(e);
    free(t);
}

/* A VCF of 175 plies (88 fours) from a "super gomoku" renju puzzle
 * (lfz084, 超级五子棋 #109): the threat search follows it to the five, and
 * the engine reports the whole line as its PV. */
Test(threats, a_vcf_of_175_plies_is_proven_and_reported_whole, .timeout = 120)
{
    static const char *moves[] = {"e15", "a15", "m15", "f14", "o15", "j14", "a14", "m14", "o14", "h13",
                                  "l12", "n13", "o12", "a12", "a11", "m11", "c9",  "a10", "i9",  "c10",
                                  "h8",  "a9",  "b7",  "b9",  "m7",  "d9",  "o6",  "m9",  "a5",  "a8",
                                  "m5",  "c8",  "o5",  "d8",  "n4",  "j8",  "a3",  "j7",  "n3",  "i6",
                                  "h2",  "o4",  "a1",  "o2",  "f1",  "b1",  "i1",  "c1",  "k1",  "d1"};
    int n = (int)(sizeof moves / sizeof moves[0]);
    Position pos = {.size = 15, .rule = RULE_RENJU, .nmoves = n};
    for (int i = 0; i < n; i++) pos.moves[i] = move_parse_notation(moves[i], 15);
    cr_assert(board_reset(&b, 15, RULE_RENJU));
    for (int i = 0; i < n; i++) board_play(&b, pos.moves[i]);
    size_t entries = 1u << 20;
    ThreatEntry *big = calloc(entries, sizeof *big);
    cr_assert_not_null(big);
    ThreatSearch ts = {.b = &b, .cache = big, .cache_mask = entries - 1, .budget = 2000000};
    Move line[THREAT_MAX_LINE];
    int len = 0;
    uint64_t key = b.key;
    int r = vcf_find(&ts, 225, line, &len);
    free(big);
    cr_assert_eq(b.key, key);
    cr_assert_geq(r, 151, "a VCF of %d plies (the puzzle's runs to 175)", r);
    cr_assert_eq(len, r);
    assert_winning_line(line, len);
    for (int i = 0; i < len; i++) { /* fours all the way */
        if (i % 2 == 0) cr_assert(threat_is_four(board_threat(&b, line[i], BLACK)) || i + 1 == len, "ply %d", i);
        board_play(&b, line[i]);
    }
    Engine *e = engine_new(&(EngineOptions){.tt_mib = 16});
    EngineResult res;
    cr_assert_eq(engine_analyze(e, &pos, &(Limits){.nodes = 1000000}, &res, NULL), POSITION_OK);
    cr_assert_geq(res.mate, 76, "win in %d", res.mate);
    Tactic t = {.pos = pos};
    cr_assert(tactics_proof_replays(&t, &res), "the reported PV of %d plies replays to the five", res.pvs[0].pv_len);
    engine_free(e);
}

/* The main search alone (no root threat search) on the tactics suite at
 * depths 2, 4 and 6: every mate it claims replays to a five in as many
 * moves as it says, and mate distance pruning (a node with no five to
 * make mates three plies on at the soonest) cuts no shorter mate: puzzle
 * 45 is a mate in 7 at depths 4 and 6 (bounding that node at five plies
 * on instead makes depth 6 claim a mate in 8). */
Test(threats, the_main_search_alone_claims_exact_mates)
{
    int n, mates = 0;
    Tactic *t = load_suite(&n);
    Engine *en = engine_new(&(EngineOptions){.tt_mib = 4, .disable = ENGINE_NO_THREATS});
    cr_assert_not_null(en);
    for (int d = 2; d <= 6; d += 2)
        for (int i = 0; i < n; i++) {
            t[i].pos.ordered = false;
            engine_clear(en);
            EngineResult r;
            cr_assert_eq(engine_analyze(en, &t[i].pos, &(Limits){.depth = d}, &r, NULL), POSITION_OK);
            if (r.mate <= 0) continue;
            mates++;
            cr_assert(tactics_proof_replays(&t[i], &r), "depth %d, puzzle %d: the win in %d (PV of %d plies) does not replay",
                      d, i + 1, r.mate, r.pvs[0].pv_len);
            if (i + 1 == 45 && d >= 4) cr_assert_eq(r.mate, 7, "depth %d: puzzle 45 claimed as a win in %d", d, r.mate);
        }
    cr_log_info("%d mates claimed", mates);
    /* 79 since the quiescence no longer claims a mate where every answer
     * to an open three it searched lost (a bare four may save it) */
    cr_assert_geq(mates, 75);
    engine_free(en);
    free(t);
}

/* Limits.threats_only runs the solver alone (how `bench tactics --solver`
 * measures it): the VCF and VCT puzzles it proves come back as replayable
 * wins with no iterations of the main search; a position without a forced
 * win gets the first candidate, no mate and depth 0, complete when the
 * solver disproved within the limit and not when the limit cut it short. */
Test(threats, the_solver_alone_proves_wins_and_runs_no_iterations, .timeout = 120)
{
    int n;
    Tactic *t = load_suite(&n);
    Engine *e = engine_new(&(EngineOptions){.tt_mib = 4});
    int picked[] = {0, 49, 50}; /* a freestyle VCF, two renju VCTs */
    for (int k = 0; k < 3; k++) {
        Tactic *p = &t[picked[k]];
        p->pos.ordered = false;
        engine_clear(e);
        EngineResult r;
        cr_assert_eq(engine_analyze(e, &p->pos, &(Limits){.nodes = 300000, .threats_only = true}, &r, NULL),
                     POSITION_OK);
        cr_assert_gt(r.mate, 0, "puzzle %d (%s): no proof", picked[k] + 1, p->kind);
        cr_assert(tactics_is_win(p, r.best_move), "puzzle %d: not a winning move", picked[k] + 1);
        cr_assert(tactics_proof_replays(p, &r), "puzzle %d: the proof does not replay to a five", picked[k] + 1);
        cr_assert_eq(r.depth, r.pvs[0].pv_len, "the depth is the proof's length in plies");
        cr_assert_eq(r.mate, (r.pvs[0].pv_len + 1) / 2);
    }
    /* a quiet opening: the full analysis iterates, the solver alone does not */
    engine_clear(e);
    EngineResult full, alone;
    Position quiet = {.rule = RULE_FREESTYLE, .size = 15};
    support_moves(&b, 15, RULE_FREESTYLE, "h8 h9 i9 g7");
    for (int i = 0; i < b.nmoves; i++) quiet.moves[quiet.nmoves++] = b.history[i].move;
    cr_assert_eq(engine_analyze(e, &quiet, &(Limits){.depth = 6}, &full, NULL), POSITION_OK);
    cr_assert_eq(full.depth, 6, "the full analysis iterates");
    engine_clear(e);
    cr_assert_eq(engine_analyze(e, &quiet, &(Limits){.nodes = 200000, .threats_only = true}, &alone, NULL),
                 POSITION_OK);
    cr_assert_eq(alone.mate, 0);
    cr_assert_eq(alone.depth, 0, "no iterations");
    cr_assert(alone.complete, "four stones: the solver disproves every VCT within the limit");
    cr_assert_lt(alone.nodes, 200000);
    cr_assert(board_empty(&b, alone.best_move) && board_candidate(&b, alone.best_move), "a candidate move");
    /* cut short: puzzle 63's proof needs millions of nodes */
    Tactic *hard = &t[62];
    hard->pos.ordered = false;
    engine_clear(e);
    cr_assert_eq(engine_analyze(e, &hard->pos, &(Limits){.nodes = 20000, .threats_only = true}, &alone, NULL),
                 POSITION_OK);
    cr_assert_eq(alone.mate, 0);
    cr_assert_not(alone.complete, "the node limit cut the solver short");
    cr_assert_leq(alone.nodes, 20000);
    engine_free(e);
    free(t);
}
