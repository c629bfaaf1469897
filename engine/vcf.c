/* vcf.c - VCF and VCT threat-space search (see vcf.h). */
#include "vcf.h"

#include <string.h>

#include "movegen.h"
#include "rules.h"

#define THREAT_POLL_MASK 255 /* poll the stop check every 256 nodes */
#define VCF_SALT 0x5643463a5643463aull
#define VCT_SALT 0x5643543a5643543aull
#define MAX_MOVES_HERE 256

static bool tick(ThreatSearch *ts)
{
    if (ts->aborted) return true;
    ts->nodes++;
    if (ts->nodes >= ts->budget) ts->aborted = true;
    else if (!(ts->nodes & THREAT_POLL_MASK) && ts->should_stop && ts->should_stop(ts->stop_ctx))
        ts->aborted = true;
    return ts->aborted;
}

static bool known_fail(const ThreatSearch *ts, uint64_t key, int remaining)
{
    const ThreatCacheEntry *e = &ts->cache[key & ts->cache_mask];
    return e->key == key && e->plies >= remaining;
}

static void remember_fail(ThreatSearch *ts, uint64_t key, int remaining)
{
    if (ts->aborted) return; /* a cut-short search proves nothing */
    ThreatCacheEntry *e = &ts->cache[key & ts->cache_mask];
    e->key = key;
    e->plies = remaining;
}

static bool legal(Board *b, Move m) { return !(b->to_move == BLACK && movegen_forbidden(b, m)); }

static int attack(ThreatSearch *ts, int ply, int max, Move *line, int *len, bool vct);

/*
 * The defender is to move and the attacker has just made at least one five
 * point. Returns plies to the five (>= 2) or 0; writes the line.
 */
static int answer_four(ThreatSearch *ts, int ply, int max, Move *line, int *len, bool vct)
{
    Board *b = ts->b;
    Color def = b->to_move, att = OPPONENT(def);
    if (b->tcount[def - 1][T_FIVE]) return 0; /* the defender makes five first */
    Move fives[2];
    int nf = movegen_five_points(b, att, fives, 2);
    if (nf == 0) return 0;
    Move block = fives[0];
    if (nf >= 2 || !legal(b, block)) {
        /* cannot stop it: any defence, then a five it left open */
        Move d = legal(b, block) ? block : movegen_any_legal(b);
        if (d == MOVE_NONE) return 0;
        line[0] = d;
        line[1] = d == fives[0] ? fives[1] : fives[0];
        *len = 2;
        return 2;
    }
    board_play(b, block);
    int r = attack(ts, ply + 1, max, line + 1, len, vct);
    board_undo(b);
    if (!r) return 0;
    line[0] = block;
    (*len)++;
    return r + 1;
}

/* Attacker to move. If the defender threatens five, the attacker must block
 * first; writes that block into *forced and returns true, or returns false
 * with *forced = MOVE_NONE when no block is needed. A needed block that is
 * impossible gives *forced = MOVE_NONE and true. */
static bool must_block(Board *b, Move *forced)
{
    Color att = b->to_move, def = OPPONENT(att);
    *forced = MOVE_NONE;
    if (!b->tcount[def - 1][T_FIVE]) return false;
    Move fives[2];
    int nf = movegen_five_points(b, def, fives, 2);
    if (nf == 1 && legal(b, fives[0])) *forced = fives[0];
    return true;
}

/* VCT only: the defender is to move against a threatened straight four and
 * may answer with any defence or a four of its own; all must lose. */
static int answer_three(ThreatSearch *ts, int ply, int max, Move *line, int *len)
{
    Board *b = ts->b;
    Color att = OPPONENT(b->to_move);
    if (!movegen_has_open_four_point(b, att)) return 0; /* the last attack threatened nothing */
    if (tick(ts)) return 0;

    ScoredMove mv[MAX_MOVES_HERE];
    int n = movegen_defences(b, mv);
    movegen_sort(mv, n);
    if (n == 0) {
        Move d = movegen_any_legal(b);
        if (d == MOVE_NONE) return 0;
        mv[0].move = d;
        n = 1;
    }
    int worst = 0;
    Move sub[THREAT_MAX_LINE];
    for (int i = 0; i < n; i++) {
        int sublen = 0;
        board_play(b, mv[i].move);
        int r = attack(ts, ply + 1, max, sub, &sublen, true);
        board_undo(b);
        if (!r) return 0; /* this defence holds */
        if (r > worst) {
            worst = r;
            line[0] = mv[i].move;
            memcpy(line + 1, sub, sizeof(Move) * (size_t)sublen);
            *len = sublen + 1;
        }
    }
    return worst + 1;
}

/* The defender to move after an attacking move. */
static int defend(ThreatSearch *ts, int ply, int max, Move *line, int *len, bool vct)
{
    Board *b = ts->b;
    Color def = b->to_move, att = OPPONENT(def);
    if (b->tcount[def - 1][T_FIVE]) return 0;
    if (b->tcount[att - 1][T_FIVE]) return answer_four(ts, ply, max, line, len, vct);
    return vct ? answer_three(ts, ply, max, line, len) : 0;
}

/*
 * The attacker to move: a five if there is one, else a block of the
 * defender's four (in a VCF that block must itself be a four), else its
 * fours (and in a VCT its threes, when enough plies are left for a three to
 * win: three, answer, four, answer, five).
 */
static int attack(ThreatSearch *ts, int ply, int max, Move *line, int *len, bool vct)
{
    Board *b = ts->b;
    Color att = b->to_move;
    Move five;
    if (movegen_five_points(b, att, &five, 1)) {
        line[0] = five;
        *len = 1;
        return 1;
    }
    int remaining = max - ply;
    if (remaining < 3 || tick(ts)) return 0;
    uint64_t key = b->key ^ (vct ? VCT_SALT : VCF_SALT) ^ ts->salt;
    if (known_fail(ts, key, remaining)) return 0;

    ScoredMove mv[MAX_MOVES_HERE];
    int n = 0;
    Move forced;
    if (must_block(b, &forced)) {
        if (forced != MOVE_NONE && (vct || threat_is_four(board_threat(b, forced, att)))) {
            mv[0].move = forced;
            n = 1;
        }
    } else {
        n = movegen_threats(b, mv, !vct || remaining < 5);
        movegen_sort(mv, n);
    }
    for (int i = 0; i < n; i++) {
        board_play(b, mv[i].move);
        int r = defend(ts, ply + 1, max, line + 1, len, vct);
        board_undo(b);
        if (r) {
            line[0] = mv[i].move;
            (*len)++;
            return r + 1;
        }
        if (ts->aborted) return 0;
    }
    remember_fail(ts, key, remaining);
    return 0;
}

int vcf_find(ThreatSearch *ts, int max_plies, Move *line, int *len)
{
    static const int steps[] = {7, 15, 31};
    *len = 0;
    if (max_plies > THREAT_MAX_LINE - 1) max_plies = THREAT_MAX_LINE - 1;
    for (size_t i = 0; i <= sizeof steps / sizeof steps[0]; i++) {
        int max = i < sizeof steps / sizeof steps[0] && steps[i] < max_plies ? steps[i] : max_plies;
        int r = attack(ts, 0, max, line, len, false);
        if (r || ts->aborted || max == max_plies) return r;
    }
    return 0;
}

int vct_find(ThreatSearch *ts, int max_plies, Move *line, int *len)
{
    *len = 0;
    if (max_plies > THREAT_MAX_LINE - 1) max_plies = THREAT_MAX_LINE - 1;
    for (int max = 5; max <= max_plies; max += 2) {
        int r = attack(ts, 0, max, line, len, true);
        if (r || ts->aborted) return r;
    }
    return 0;
}
