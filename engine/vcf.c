/* vcf.c - VCF and VCT by depth-first proof-number search (see vcf.h). */
#include "vcf.h"

#include <string.h>

#include "movegen.h"
#include "rules.h"

#define THREAT_POLL_MASK 255 /* poll the stop check every 256 nodes */
#define VCF_SALT 0x5643463a5643463aull
#define VCT_SALT 0x5643543a5643543aull
#define QUIET_SALT 0x51554945543a3a3aull
#define WHITE_SALT 0x57484954453a3a3aull
#define MAX_CHILDREN 256
#define PN_INF 100000000u /* proof and disproof numbers saturate here */
/* 1 + epsilon: a child is searched until its number passes the second
 * best sibling's by this factor (numerator / denominator) */
#define EPS_NUM 5
#define EPS_DEN 4
/* first numbers of a new child of an attacker node, by the threat the
 * attacker's move makes: a four has one answer, a three a few, a quiet
 * move many */
#define INIT_PN_FOUR 1
#define INIT_PN_THREE 2
#define INIT_PN_QUIET 12
#define QUIET_MIN_PLIES 7 /* a quiet move, an answer, then at least a four-three */
#define FOLLOW_NODES 50000 /* budget on top to re-prove parts of a proof the table lost */
/* plies of the successive iterations (the last one is the caller's limit):
 * short wins are found first and reported as such */
#define VCF_STEPS {7, 15, 31}
#define VCT_STEPS {9, 15, 21}

typedef struct {
    Move move;
    uint64_t key;
    uint32_t pn, dn;
    int len;
} Child;

typedef enum { NODE_OPEN, NODE_PROVEN, NODE_DISPROVEN } NodeState;

static bool tick(ThreatSearch *ts)
{
    if (ts->aborted) return true;
    ts->nodes++;
    if (ts->nodes >= ts->budget) ts->aborted = true;
    else if (!(ts->nodes & THREAT_POLL_MASK) && ts->should_stop && ts->should_stop(ts->stop_ctx))
        ts->aborted = true;
    return ts->aborted;
}

static inline uint32_t sat_add(uint32_t a, uint32_t b) { return a + b >= PN_INF ? PN_INF : a + b; }

/* The numbers known for key with rem plies left: a proof longer than rem or
 * a disproof of fewer plies does not count. */
static bool lookup(const ThreatSearch *ts, uint64_t key, int rem, Child *c)
{
    const ThreatEntry *e = &ts->cache[key & ts->cache_mask];
    if (e->key != key) return false;
    if (e->pn == 0) {
        if (e->len > rem) return false;
    } else if (e->dn == 0) {
        if (e->plies < rem) return false;
    }
    c->pn = e->pn;
    c->dn = e->dn;
    c->len = e->len;
    return true;
}

static void store(ThreatSearch *ts, uint64_t key, int rem, uint32_t pn, uint32_t dn, int len, Move best)
{
    ThreatEntry *e = &ts->cache[key & ts->cache_mask];
    e->key = key;
    e->pn = pn;
    e->dn = dn;
    e->plies = (int16_t)rem;
    e->len = (int16_t)len;
    e->best = best;
}

static bool legal(Board *b, Move m) { return !(b->to_move == BLACK && movegen_forbidden(b, m)); }

/* A quiet move that makes two or more lines of threats at once: open twos
 * and closed threes in two directions, or an open two with two ways on. */
static bool quiet_double(const Board *b, Move m, Color side)
{
    int lines = 0;
    for (int d = 0; d < 4; d++) {
        Pattern p = board_pattern(b, m, d, side);
        if (p == P_F2A) lines += 2;
        else if (p == P_F2 || p == P_B3) lines++;
    }
    return lines >= 2;
}

static int add_move(Child *ch, int n, Move m)
{
    ch[n].move = m;
    return n + 1;
}

/*
 * What the node on the board is: won, lost, or open with its children in
 * ch[0..*n) (moves only). Proven nodes give their length and best move.
 */
static NodeState expand(ThreatSearch *ts, int ply, int rem, Child *ch, int *n, int *len, Move *best)
{
    Board *b = ts->b;
    Color me = b->to_move, opp = OPPONENT(me);
    Move f[2];
    ScoredMove mv[BOARD_MAX_MOVES];
    int nm = 0;
    *n = 0;
    if (me == ts->attacker) {
        if (movegen_five_points(b, me, f, 1)) {
            *len = 1;
            *best = f[0];
            return NODE_PROVEN;
        }
        if (rem < 3) return NODE_DISPROVEN;
        int nf = movegen_five_points(b, opp, f, 2);
        if (nf) {
            if (nf >= 2 || !legal(b, f[0])) return NODE_DISPROVEN;
            if (!ts->vct && !threat_is_four(board_threat(b, f[0], me))) return NODE_DISPROVEN;
            *n = add_move(ch, 0, f[0]);
            return NODE_OPEN;
        }
        nm = movegen_threats(b, mv, !ts->vct || rem < 5);
        if (ts->vct && ply < ts->quiet_plies && rem >= QUIET_MIN_PLIES) {
            ScoredMove all[BOARD_MAX_MOVES];
            GenKind kind;
            int na = movegen(b, all, &kind);
            if (kind == GEN_ALL)
                for (int i = 0; i < na; i++) {
                    Threat t = board_threat(b, all[i].move, me);
                    if (!threat_is_four(t) && !threat_is_three(t) && quiet_double(b, all[i].move, me))
                        mv[nm++] = all[i];
                }
        }
    } else {
        if (b->tcount[me - 1][T_FIVE]) return NODE_DISPROVEN; /* the defender makes five first */
        if (rem < 2) return NODE_DISPROVEN;
        int nf = movegen_five_points(b, opp, f, 2);
        if (nf >= 2 || (nf == 1 && !legal(b, f[0]))) {
            /* any move, then the five it could not stop */
            Move any = movegen_any_legal(b);
            if (any == MOVE_NONE) return NODE_DISPROVEN;
            *len = 2;
            *best = any;
            return NODE_PROVEN;
        }
        if (nf == 1) {
            *n = add_move(ch, 0, f[0]);
            return NODE_OPEN;
        }
        if (movegen_has_open_four_point(b, opp)) {
            nm = movegen_defences(b, mv);
            if (nm == 0) {
                Move any = movegen_any_legal(b);
                if (any == MOVE_NONE) return NODE_DISPROVEN;
                *n = add_move(ch, 0, any);
                return NODE_OPEN;
            }
        } else if (ply - 1 < ts->quiet_plies && ts->vct) {
            /* after a quiet move: every candidate answer */
            GenKind kind;
            nm = movegen(b, mv, &kind);
            if (nm > MAX_CHILDREN) return NODE_DISPROVEN; /* too wide to prove */
        } else {
            return NODE_DISPROVEN; /* the attacker's last move threatened nothing */
        }
    }
    if (nm > MAX_CHILDREN) nm = MAX_CHILDREN;
    movegen_sort(mv, nm);
    for (int i = 0; i < nm; i++) ch[i].move = mv[i].move;
    *n = nm;
    return nm ? NODE_OPEN : NODE_DISPROVEN;
}

/* First numbers of a child not in the table. */
static void init_child(const ThreatSearch *ts, Child *c, bool or_node)
{
    c->dn = 1;
    c->pn = 1;
    c->len = 0;
    if (!or_node) return;
    const Board *b = ts->b;
    Threat t = board_threat(b, c->move, b->to_move);
    c->pn = threat_is_four(t) || t == T_FIVE ? INIT_PN_FOUR : threat_is_three(t) ? INIT_PN_THREE : INIT_PN_QUIET;
}

/*
 * Multiple iterative deepening (Nagai's MID) at the node on the board with
 * rem plies left: searches until the node is proven or disproven or its
 * numbers reach the thresholds; stores and returns them in *c.
 */
static void mid(ThreatSearch *ts, int ply, int rem, uint32_t thpn, uint32_t thdn, Child *out)
{
    Board *b = ts->b;
    uint64_t key = b->key ^ ts->kind_salt;
    bool or_node = b->to_move == ts->attacker;
    out->pn = out->dn = 1;
    out->len = 0;
    if (tick(ts)) return;
    Child ch[MAX_CHILDREN];
    int n, len = 0;
    Move best = MOVE_NONE;
    NodeState st = expand(ts, ply, rem, ch, &n, &len, &best);
    if (st != NODE_OPEN) {
        bool won = st == NODE_PROVEN;
        out->pn = won ? 0 : PN_INF;
        out->dn = won ? PN_INF : 0;
        out->len = won ? len : 0;
        store(ts, key, rem, out->pn, out->dn, out->len, best);
        return;
    }
    for (int i = 0; i < n; i++) {
        ch[i].key = board_key_after(b, ch[i].move) ^ ts->kind_salt;
        if (!lookup(ts, ch[i].key, rem - 1, &ch[i])) init_child(ts, &ch[i], or_node);
    }
    uint32_t pn, dn;
    for (;;) {
        /* this node's numbers from its children's: the best child by its
         * own kind's number, the second best, and the sum of the others */
        uint32_t v1 = PN_INF + 1, v2 = PN_INF + 1, sum = 0;
        int bi = 0;
        for (int i = 0; i < n; i++) {
            uint32_t v = or_node ? ch[i].pn : ch[i].dn, o = or_node ? ch[i].dn : ch[i].pn;
            sum = sat_add(sum, o);
            if (v < v1) {
                v2 = v1;
                v1 = v;
                bi = i;
            } else if (v < v2) {
                v2 = v;
            }
        }
        pn = or_node ? v1 : sum;
        dn = or_node ? sum : v1;
        if (pn == 0 || dn == 0 || pn >= thpn || dn >= thdn || ts->aborted) break;
        uint32_t second = v2 > PN_INF ? PN_INF : v2;
        uint64_t wide = (uint64_t)second * EPS_NUM / EPS_DEN + 1;
        uint32_t cap = wide > PN_INF ? PN_INF : (uint32_t)wide;
        uint32_t cpn, cdn;
        if (or_node) {
            cpn = thpn < cap ? thpn : cap;
            cdn = thdn - dn + ch[bi].dn;
        } else {
            cdn = thdn < cap ? thdn : cap;
            cpn = thpn - pn + ch[bi].pn;
        }
        board_play(b, ch[bi].move);
        mid(ts, ply + 1, rem - 1, cpn, cdn, &ch[bi]);
        board_undo(b);
    }
    if (pn == 0) {
        /* attacker: the shortest proven move; defender: the longest answer */
        len = or_node ? 1000 : 0;
        for (int i = 0; i < n; i++) {
            if (ch[i].pn) continue;
            if (or_node ? ch[i].len < len : ch[i].len > len) {
                len = ch[i].len;
                best = ch[i].move;
            }
        }
        len++;
    }
    out->pn = pn;
    out->dn = dn;
    out->len = pn == 0 ? len : 0;
    store(ts, key, rem, pn, dn, out->len, best);
}

/* Proves the node on the board again when the table lost it. */
static bool reprove(ThreatSearch *ts, int ply, int rem, Child *c)
{
    uint64_t key = ts->b->key ^ ts->kind_salt;
    if (lookup(ts, key, rem, c) && c->pn == 0) return true;
    mid(ts, ply, rem, PN_INF, PN_INF, c);
    return c->pn == 0;
}

/*
 * Writes the proven node's line: the attacker's shortest winning move, the
 * defender's longest answer, down to the five. Returns its length or 0
 * when the proof cannot be followed (the budget ran out re-proving a part
 * the table had lost).
 */
static int follow(ThreatSearch *ts, int ply, int rem, Move *line)
{
    Board *b = ts->b;
    Child node;
    if (ply >= THREAT_MAX_LINE || !reprove(ts, ply, rem, &node)) return 0;
    Child ch[MAX_CHILDREN];
    int n, len = 0;
    Move best = MOVE_NONE;
    NodeState st = expand(ts, ply, rem, ch, &n, &len, &best);
    if (st == NODE_DISPROVEN) return 0;
    if (st == NODE_PROVEN) {
        line[0] = best;
        if (len == 1) return 1;
        /* two five points or a forbidden block: the five after any move */
        board_play(b, best);
        Move f;
        int r = movegen_five_points(b, b->to_move, &f, 1) ? 1 : 0;
        board_undo(b);
        if (!r || ply + 1 >= THREAT_MAX_LINE) return 0;
        line[1] = f;
        return 2;
    }
    bool or_node = b->to_move == ts->attacker;
    int pick = -1, pick_len = or_node ? 1000 : -1;
    Child c;
    if (or_node) /* the shortest of the winning moves the table still holds */
        for (int i = 0; i < n; i++) {
            board_play(b, ch[i].move);
            bool proven = lookup(ts, b->key ^ ts->kind_salt, rem - 1, &c) && c.pn == 0;
            board_undo(b);
            if (proven && c.len < pick_len) {
                pick = i;
                pick_len = c.len;
            }
        }
    for (int i = 0; i < n && !(or_node && pick >= 0); i++) {
        board_play(b, ch[i].move);
        bool proven = reprove(ts, ply + 1, rem - 1, &c);
        board_undo(b);
        if (!proven) {
            if (or_node) continue;
            return 0; /* a defence holds after all */
        }
        if (or_node || c.len > pick_len) {
            pick = i;
            pick_len = c.len;
        }
    }
    if (pick < 0) return 0;
    line[0] = ch[pick].move;
    board_play(b, ch[pick].move);
    int r = follow(ts, ply + 1, rem - 1, line + 1);
    board_undo(b);
    return r ? r + 1 : 0;
}

static int solve(ThreatSearch *ts, bool vct, const int *steps, int nsteps, int max_plies, Move *line, int *len)
{
    *len = 0;
    if (max_plies > THREAT_MAX_LINE - 1) max_plies = THREAT_MAX_LINE - 1;
    ts->attacker = ts->b->to_move;
    ts->vct = vct;
    ts->kind_salt = ts->salt ^ (vct ? VCT_SALT : VCF_SALT) ^ (ts->attacker == WHITE ? WHITE_SALT : 0) ^
                    (vct && ts->quiet_plies ? QUIET_SALT * (uint64_t)ts->quiet_plies : 0);
    for (int i = 0; i <= nsteps; i++) {
        int max = i < nsteps && steps[i] < max_plies ? steps[i] : max_plies;
        Child root;
        mid(ts, 0, max, PN_INF, PN_INF, &root);
        if (ts->aborted) return 0;
        if (root.pn == 0) {
            if (ts->budget < ts->nodes + FOLLOW_NODES) ts->budget = ts->nodes + FOLLOW_NODES;
            *len = follow(ts, 0, max, line);
            return ts->aborted ? (*len = 0) : *len;
        }
        if (max == max_plies) break;
    }
    return 0;
}

int vcf_find(ThreatSearch *ts, int max_plies, Move *line, int *len)
{
    static const int steps[] = VCF_STEPS;
    return solve(ts, false, steps, (int)(sizeof steps / sizeof steps[0]), max_plies, line, len);
}

int vct_find(ThreatSearch *ts, int max_plies, Move *line, int *len)
{
    static const int steps[] = VCT_STEPS;
    return solve(ts, true, steps, (int)(sizeof steps / sizeof steps[0]), max_plies, line, len);
}
