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
/* ...plus, in the VCT, this much for each place the move stands below the
 * first in the move order (the policy's score): df-pn tries the likelier
 * moves first and widens to the others only as they fail. (The VCF, where
 * every move is a four, does better without it.) 4 rather than 2 since the
 * proof history: the held-out puzzles need about a tenth fewer nodes. */
#define INIT_PN_RANK 4
/* ...and, in the VCT, a new child of a defender node starts with a
 * disproof number of 1 plus this much for each place it stands below the
 * defender's first answer in the move order: the likelier refutations are
 * tried first, so a losing attacker move is given up sooner. */
#define INIT_DN_RANK 2
/* ...and, in the VCT, a three or a quiet move of the attacker's starts this
 * much higher for each point where the defender could make a four: every
 * such four is one more answer to refute. */
#define INIT_PN_COUNTER 2
/* ...and a four that makes nothing else (no open two, no three: T_B4)
 * this much higher: it mostly spends a tempo. */
#define INIT_PN_PLAIN_FOUR 1
/* VCT move order: the attacker's moves gain this much of the policy's score
 * for each time the point has been the winning move of a proven attacker
 * node in this search, counted up to PROOF_HISTORY_MAX. After a quiet
 * opener or a counter-four, sibling answers are mostly beaten by the same
 * threats (a killer heuristic for df-pn). The cap keeps it below the
 * policy's gap between a three and a four: it reorders threes among
 * themselves and fours among themselves. */
#define PROOF_HISTORY_WEIGHT 15
#define PROOF_HISTORY_MAX 8
#define QUIET_MIN_PLIES 7 /* a quiet move, an answer, then at least a four-three */
/* a quiet move that threatens a VCF: itself, an answer, then a four, its
 * block and the five */
#define VCF_THREAT_MIN_PLIES 5
#define VCF_THREAT_NODES 3000 /* budget of the VCF looked for after a quiet move */
#define QUIET_LINE_SALT 0x4c494e453a3a3a3aull
#define QUIET_MOVES_SALT 0x4d4f5645533a3a3aull
#define FOLLOW_NODES 50000 /* budget on top to re-prove parts of a proof the table lost */
/* plies of the VCF's successive iterations (the last one is the caller's
 * limit): short wins are found first and reported as such. The VCT, whose
 * shallow iterations cost more than they save, searches to the caller's
 * limit at once and then shortens its proof (shorten). */
#define VCF_STEPS {7, 15, 31, 63}
/* after a first proof, shorter ones are looked for (two plies less each
 * time), each try within this share of the nodes spent so far, plus a floor */
#define SHORTEN_SHARE 4
#define SHORTEN_MIN_NODES 2000
/* VCT: when an answer of the defender's is proven lost, its unproven
 * siblings are first tried by replaying that proof (simulation, see sim):
 * most answers lose to the same attack, and a replay costs only the proof's
 * size. 0 turns it off (to measure it). */
#define SIMULATION 1

typedef struct { /* (24 bytes: a deep VCF keeps a few hundred frames of these) */
    uint64_t key;
    uint32_t pn, dn;
    int16_t len;
    Move move;
    bool quiet; /* an attacker move that makes no four or three */
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

/* Table keys: the position, the search kind and how many quiet moves the
 * line to it has used (a node with fewer left is a different problem). */
static inline uint64_t node_key(const ThreatSearch *ts, uint64_t board_key, int quiet_used)
{
    return board_key ^ ts->kind_salt ^ (uint64_t)quiet_used * QUIET_LINE_SALT;
}

static inline void play_child(ThreatSearch *ts, const Child *c)
{
    board_play(ts->b, c->move);
    ts->quiet_used += c->quiet;
}

static inline void undo_child(ThreatSearch *ts, const Child *c)
{
    board_undo(ts->b);
    ts->quiet_used -= c->quiet;
}

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

static void mid(ThreatSearch *ts, int ply, int rem, uint32_t thpn, uint32_t thdn, Child *out);
static int follow(ThreatSearch *ts, int ply, int rem, Move *line);
static bool sim_child(ThreatSearch *ts, int ply, int rem, Child *ch, int j, int p);

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

/* Renju, white to move: m makes a closed three whose four could have its
 * five point where black may not play (an empty point forbidden to black
 * within a four's reach of m along that line). Such a three threatens a
 * win on its own: the four that follows cannot be blocked. */
static bool white_trap(Board *b, Move m)
{
    for (int d = 0; d < 4; d++) {
        if (board_pattern(b, m, d, WHITE) != P_B3) continue;
        for (int k = -4; k <= 4; k++) {
            Move p = (Move)(m + k * board_dir[d]);
            if (k && board_empty(b, p) && movegen_forbidden(b, p)) return true;
        }
    }
    return false;
}

static uint64_t vcf_salt(const ThreatSearch *ts)
{
    return ts->salt ^ VCF_SALT ^ (ts->attacker == WHITE ? WHITE_SALT : 0);
}

/*
 * The VCF the attacker would have if the defender (to move on the board)
 * passed: what a quiet move threatens. Searched within rem plies under its
 * own small budget (running out of it means no threat, never a false win);
 * the line goes to line. Returns its length or 0.
 */
static int vcf_threat(ThreatSearch *ts, int rem, Move *line)
{
    Board *b = ts->b;
    bool vct = ts->vct;
    uint64_t kind = ts->kind_salt, budget = ts->budget, cap = ts->nodes + VCF_THREAT_NODES;
    if (cap < budget) ts->budget = cap;
    int used = ts->quiet_used;
    ts->vct = false;
    ts->kind_salt = vcf_salt(ts);
    ts->quiet_used = 0;
    board_pass(b);
    Child root;
    mid(ts, 0, rem, PN_INF, PN_INF, &root);
    int len = !ts->aborted && root.pn == 0 ? follow(ts, 0, rem, line) : 0;
    board_pass(b);
    if (ts->aborted && ts->budget < budget && ts->nodes >= ts->budget) {
        ts->aborted = false; /* only the threat's own budget ran out */
        len = 0;
    }
    if (ts->aborted) len = 0;
    ts->budget = budget;
    ts->vct = vct;
    ts->kind_salt = kind;
    ts->quiet_used = used;
    return len;
}

/* What line_holds may note about a line as it plays it. */
#define RISKS_MAX 16
typedef struct {
    bool risky;     /* it leans on renju's forbidden points (see line_holds) */
    int nrisks;     /* ...at these points, after these many plies of the line */
    Move risk_point[RISKS_MAX];
    int16_t risk_ply[RISKS_MAX];
    int nreplies;   /* the defender's forced blocks, in order */
    Move replies[THREAT_MAX_LINE];
    uint8_t *zone;  /* when set: the points within a four's reach of each attacker move, along its fours */
} LineNotes;

static void note_risk(LineNotes *notes, Move m, int played)
{
    notes->risky = true;
    if (notes->nrisks < RISKS_MAX) {
        notes->risk_point[notes->nrisks] = m;
        notes->risk_ply[notes->nrisks] = (int16_t)played;
    }
    notes->nrisks++;
}

/*
 * Plays a VCF line on from the board (attacker to move), checking every
 * step: each attacker move a legal four, each answer the one forced block,
 * no five of the defender's on the way. Returns true when it ends in the
 * attacker's five (or a five point the defender cannot stop). The board is
 * left as it was. The notes (may be NULL) say where the line can be
 * touched: notes->risky when it depends on renju's forbidden points in a
 * way a stone far from it could change (a black move with two open threes
 * through it: the real-three check looks far; or a block black could not
 * make).
 */
static bool line_holds(Board *b, Color attacker, const Move *line, int len, LineNotes *notes)
{
    int played = 0, k = 0;
    bool won = false;
    Move f[2];
    for (;;) {
        Color me = b->to_move, opp = OPPONENT(me);
        if (me == attacker) {
            if (movegen_five_points(b, me, f, 1)) {
                won = true;
                break;
            }
            if (k >= len) break;
            Move m = line[k];
            /* a four of the defender's (made by a block): the line's move must close it */
            if (b->tcount[opp - 1][T_FIVE] && (movegen_five_points(b, opp, f, 2) != 1 || f[0] != m)) break;
            k += 2;
            if (!board_empty(b, m) || !legal(b, m) || !threat_is_four(board_threat(b, m, me))) break;
            if (notes) {
                int threes = 0;
                for (int d = 0; d < 4; d++) {
                    Pattern p = board_pattern(b, m, d, me);
                    threes += p == P_F3 || p == P_F3S;
                    if (notes->zone && p >= P_B4)
                        for (int j = -4; j <= 4; j++) notes->zone[m + j * board_dir[d]] = 1;
                }
                if (b->rule == RULE_RENJU && me == BLACK && threes >= 2) note_risk(notes, m, played);
            }
            board_play(b, m);
        } else {
            if (b->tcount[me - 1][T_FIVE]) break; /* the defender makes five first */
            int nf = movegen_five_points(b, opp, f, 2);
            if (nf == 0) break;
            if (nf >= 2 || !legal(b, f[0])) {
                if (nf == 1 && notes) note_risk(notes, f[0], played);
                won = true;
                break;
            }
            if (notes) notes->replies[notes->nreplies++] = f[0];
            board_play(b, f[0]);
        }
        played++;
    }
    while (played--) board_undo(b);
    return won;
}

/*
 * A line that leans on renju's forbidden points (notes from line_holds,
 * defender to move on the board): a stone of the defender's far from the
 * line changes none of the patterns it plays through, only, through the
 * real-three check, whether black may take one of the noted points. Marks
 * in zone every empty point whose stone, in the position where the line
 * asks, changes that answer for any of them (all points when the line asks
 * too often to note). Such points are then tried in full.
 */
static void far_risks(Board *b, const Move *line, const LineNotes *notes, uint8_t *zone)
{
    if (notes->nrisks > RISKS_MAX) {
        memset(zone, 1, BOARD_CELLS);
        return;
    }
    Color defender = b->to_move;
    board_pass(b); /* the line starts with the attacker to move */
    int played = 0;
    for (int r = 0; r < notes->nrisks; r++) {
        while (played < notes->risk_ply[r]) { /* the line's moves and its forced blocks, in turn */
            board_play(b, played % 2 ? notes->replies[played / 2] : line[played]);
            played++;
        }
        Move p = notes->risk_point[r];
        bool forbidden = movegen_forbidden(b, p);
        bool pass = b->to_move != defender; /* the stone goes in as the defender's */
        for (int y = 0; y < b->size; y++)
            for (int x = 0; x < b->size; x++) {
                Move m = MOVE_XY(x, y);
                if (zone[m] || m == p || b->cell[m].stone != EMPTY) continue;
                if (pass) board_pass(b);
                board_play(b, m);
                bool changed = movegen_forbidden(b, p) != forbidden;
                board_undo(b);
                if (pass) board_pass(b);
                if (changed) zone[m] = 1;
            }
    }
    while (played--) board_undo(b);
    board_pass(b);
}

/*
 * The defender's answers to a quiet move that threatens the VCF line
 * (defender to move on the board): every legal point after which the line
 * no longer wins, tried one by one. Only points that can touch the line are
 * tried: its own points, the points along each of its fours, and the
 * points where the defender would have a four with the help of its forced
 * blocks (a stone anywhere else changes none of the patterns the line
 * uses); every point when the line leans on renju's forbidden points. When
 * every point loses, one of them (*any) stands for them all. Returns the
 * count, or -1 when the line does not win at all.
 */
static int vcf_breakers(ThreatSearch *ts, const Move *line, int len, ScoredMove *out, Move *any)
{
    Board *b = ts->b;
    Color defender = b->to_move, attacker = OPPONENT(defender);
    uint8_t zone[BOARD_CELLS];
    LineNotes notes = {.zone = zone};
    memset(zone, 0, sizeof zone);
    board_pass(b);
    bool holds = line_holds(b, attacker, line, len, &notes);
    board_pass(b);
    if (!holds) return -1;
    for (int i = 0; i < len; i++) zone[line[i]] = 1;
    /* the defender's fours with each number of its blocks on the board
     * (and none of the attacker's stones that came with them: fewer stones
     * of the attacker only leave the defender more fours): a four, a five,
     * or for renju black a double four or overline that is forbidden only
     * with the blocks there; and a black four that a later block turns
     * into an overline counts before it */
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            Move m = MOVE_XY(x, y);
            if (b->cell[m].stone == EMPTY && board_threat(b, m, defender) >= T_B4) zone[m] = 1;
        }
    for (int i = 0; i < notes.nreplies; i++) { /* (a block changes only the points on its lines) */
        Move r = notes.replies[i];
        board_play(b, r);
        board_pass(b);
        for (int d = 0; d < 4; d++)
            for (int k = -PATTERN_HALF; k <= PATTERN_HALF; k++) {
                Move m = (Move)(r + k * board_dir[d]);
                if (board_empty(b, m) && board_threat(b, m, defender) >= T_B4) zone[m] = 1;
            }
    }
    for (int i = notes.nreplies; i-- > 0;) {
        board_pass(b);
        board_undo(b);
    }
    if (notes.risky) far_risks(b, line, &notes, zone);
    int n = 0;
    *any = MOVE_NONE;
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            Move m = MOVE_XY(x, y);
            if (!zone[m] || b->cell[m].stone != EMPTY || !legal(b, m)) continue;
            board_play(b, m);
            bool lost = line_holds(b, attacker, line, len, NULL);
            board_undo(b);
            if (!lost) {
                out[n].move = m;
                out[n++].score = movegen_score(b, m);
            } else if (*any == MOVE_NONE) {
                *any = m;
            }
        }
    if (n == 0 && *any == MOVE_NONE) *any = movegen_any_legal(b); /* every point is far from the line */
    return n;
}

/*
 * The answers to the quiet move just made (defender to move): the breakers
 * of the VCF it threatens within rem - 1 plies (count, into mv; 0 with *any
 * when every point loses), or -1 when it threatens none. Kept in
 * ts->answers (see QuietAnswers).
 */
static int quiet_answers(ThreatSearch *ts, int rem, ScoredMove *mv, Move *any)
{
    Board *b = ts->b;
    QuietAnswers *qa = NULL;
    *any = MOVE_NONE;
    if (ts->quiet_limit == 0 || rem < VCF_THREAT_MIN_PLIES - 1) return -1;
    uint64_t key = node_key(ts, b->key, ts->quiet_used);
    if (ts->answers) {
        qa = &ts->answers[key & ts->answers_mask];
        if (qa->key == key && (qa->tl ? qa->tl <= rem - 1 : rem <= qa->rem)) {
            for (int i = 0; i < qa->n; i++) {
                mv[i].move = qa->moves[i];
                mv[i].score = movegen_score(b, qa->moves[i]);
            }
            *any = qa->any;
            return qa->n;
        }
    }
    Move threat[THREAT_MAX_LINE];
    int tl = vcf_threat(ts, rem - 1, threat);
    int n = tl ? vcf_breakers(ts, threat, tl, mv, any) : -1;
    if (qa && !ts->aborted && n <= QUIET_ANSWERS_MAX) {
        qa->key = key;
        qa->rem = (int16_t)rem;
        qa->tl = (int16_t)tl;
        qa->n = (int16_t)n;
        qa->any = *any;
        for (int i = 0; i < n; i++) qa->moves[i] = mv[i].move;
    }
    return n;
}

/* True when the last move (a quiet move of the attacker's) answered an
 * open three of the side to move's. */
static bool answered_three(Board *b)
{
    Move m = board_last(b);
    board_undo(b);
    bool three = movegen_has_open_four_point(b, OPPONENT(b->to_move));
    board_play(b, m);
    return three;
}

static int add_move(Child *ch, int n, Move m)
{
    ch[n].move = m;
    ch[n].quiet = false;
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
        bool opener = ply < ts->quiet_plies && rem >= QUIET_MIN_PLIES;
        if (ts->vct && (opener || (ts->quiet_used < ts->quiet_limit && rem >= VCF_THREAT_MIN_PLIES))) {
            ScoredMove all[BOARD_MAX_MOVES];
            GenKind kind;
            bool traps = b->rule == RULE_RENJU && me == WHITE && ts->quiet_used < ts->quiet_limit;
            int na = movegen(b, all, &kind);
            /* (against an open three of the defender's: those of its
             * defences that are such moves, when they threaten a VCF; as
             * openers answered by every move they cost the freestyle move
             * check its reach) */
            if (kind == GEN_ALL || (kind == GEN_DEFEND_THREE && ts->quiet_used < ts->quiet_limit))
                for (int i = 0; i < na; i++) {
                    Move m = all[i].move;
                    Threat t = board_threat(b, m, me);
                    if (threat_is_four(t) || threat_is_three(t)) continue;
                    if (quiet_double(b, m, me) || (traps && t == T_B3 && white_trap(b, m))) mv[nm++] = all[i];
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
            nm = movegen_defences(b, mv, T_B4);
            if (nm == 0) {
                Move any = movegen_any_legal(b);
                if (any == MOVE_NONE) return NODE_DISPROVEN;
                *n = add_move(ch, 0, any);
                return NODE_OPEN;
            }
        } else if (ts->vct && (ts->quiet_limit > 0 || ply - 1 < ts->quiet_plies)) {
            /* after a quiet move: the answers to the VCF it threatens (in
             * the pass with quiet VCF threats), or (an opener) every
             * candidate answer */
            Move any = MOVE_NONE;
            nm = quiet_answers(ts, rem, mv, &any);
            if (ts->aborted) return NODE_DISPROVEN; /* (mid discards it) */
            if (nm == 0) {
                if (any == MOVE_NONE) return NODE_DISPROVEN;
                *n = add_move(ch, 0, any);
                return NODE_OPEN;
            }
            if (nm < 0) {
                if (ply - 1 >= ts->quiet_plies || answered_three(b)) return NODE_DISPROVEN; /* it threatened nothing */
                GenKind kind;
                nm = movegen(b, mv, &kind);
            }
            if (nm > MAX_CHILDREN) return NODE_DISPROVEN; /* too wide to prove */
        } else {
            return NODE_DISPROVEN; /* the attacker's last move threatened nothing */
        }
    }
    if (nm > MAX_CHILDREN) nm = MAX_CHILDREN;
    if (ts->vct && me == ts->attacker)
        for (int i = 0; i < nm; i++) mv[i].score += PROOF_HISTORY_WEIGHT * ts->proved[mv[i].move];
    movegen_sort(mv, nm);
    for (int i = 0; i < nm; i++) {
        Threat t = board_threat(b, mv[i].move, me);
        ch[i].move = mv[i].move;
        /* (counted only where there is a limit to count against, so the
         * first pass's table keys are the plain VCT's) */
        ch[i].quiet = ts->quiet_limit > 0 && me == ts->attacker && !threat_is_four(t) && !threat_is_three(t) &&
                      t != T_FIVE;
    }
    *n = nm;
    return nm ? NODE_OPEN : NODE_DISPROVEN;
}

/* The table keys of the children of the node on the board; their table
 * lines are fetched together, to be read after. */
static void child_keys(const ThreatSearch *ts, Child *ch, int n)
{
    for (int i = 0; i < n; i++) {
        ch[i].key = node_key(ts, board_key_after(ts->b, ch[i].move), ts->quiet_used + ch[i].quiet);
        __builtin_prefetch(&ts->cache[ch[i].key & ts->cache_mask]);
    }
}

/* What a three or a quiet move of the attacker's (to move) adds to its
 * first proof number in the VCT: INIT_PN_COUNTER for each point where the
 * defender could make a four. The same for every child of a node. */
static uint32_t counter_pn(const Board *b)
{
    const int *dt = b->tcount[OPPONENT(b->to_move) - 1];
    return (uint32_t)((dt[T_B4] + dt[T_B4P] + dt[T_B4F3] + dt[T_F4]) * INIT_PN_COUNTER);
}

/* First numbers of a child not in the table; rank is its place in the move
 * order (the attacker's or the defender's); counter is counter_pn() of the
 * node (attacker nodes of the VCT). */
static void init_child(const ThreatSearch *ts, Child *c, bool or_node, int rank, uint32_t counter)
{
    c->dn = 1;
    c->pn = 1;
    c->len = 0;
    if (!or_node) {
        if (ts->vct) c->dn += (uint32_t)rank * INIT_DN_RANK;
        return;
    }
    const Board *b = ts->b;
    Threat t = board_threat(b, c->move, b->to_move);
    bool four = threat_is_four(t) || t == T_FIVE;
    c->pn = four ? INIT_PN_FOUR : threat_is_three(t) ? INIT_PN_THREE : INIT_PN_QUIET;
    if (!ts->vct) return;
    c->pn += (uint32_t)rank * INIT_PN_RANK;
    if (t == T_B4) c->pn += INIT_PN_PLAIN_FOUR;
    if (!four) c->pn += counter;
}

/*
 * Multiple iterative deepening (Nagai's MID) at the node on the board with
 * rem plies left: searches until the node is proven or disproven or its
 * numbers reach the thresholds; stores and returns them in *c.
 */
static void mid(ThreatSearch *ts, int ply, int rem, uint32_t thpn, uint32_t thdn, Child *out)
{
    Board *b = ts->b;
    uint64_t key = node_key(ts, b->key, ts->quiet_used);
    bool or_node = b->to_move == ts->attacker;
    out->pn = out->dn = 1;
    out->len = 0;
    if (tick(ts)) return;
    Child ch[MAX_CHILDREN];
    int n, len = 0;
    Move best = MOVE_NONE;
    NodeState st = expand(ts, ply, rem, ch, &n, &len, &best);
    if (ts->aborted) return; /* (a threat's VCF was cut short: nothing is known) */
    if (st != NODE_OPEN) {
        bool won = st == NODE_PROVEN;
        out->pn = won ? 0 : PN_INF;
        out->dn = won ? PN_INF : 0;
        out->len = (int16_t)(won ? len : 0);
        store(ts, key, rem, out->pn, out->dn, out->len, best);
        return;
    }
    child_keys(ts, ch, n);
    uint32_t counter = or_node && ts->vct ? counter_pn(b) : 0;
    for (int i = 0; i < n; i++)
        if (!lookup(ts, ch[i].key, rem - 1, &ch[i])) init_child(ts, &ch[i], or_node, i, counter);
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
        play_child(ts, &ch[bi]);
        mid(ts, ply + 1, rem - 1, cpn, cdn, &ch[bi]);
        undo_child(ts, &ch[bi]);
        if (SIMULATION && ts->vct && !or_node && ch[bi].pn == 0 && !ts->aborted)
            for (int j = 0; j < n && !ts->aborted; j++)
                if (ch[j].pn && ch[j].dn) sim_child(ts, ply, rem, ch, j, bi);
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
        if (or_node && ts->vct && ts->proved[best] < PROOF_HISTORY_MAX) ts->proved[best]++;
    }
    out->pn = pn;
    out->dn = dn;
    out->len = (int16_t)(pn == 0 ? len : 0);
    store(ts, key, rem, pn, dn, out->len, best);
}

static int sim(ThreatSearch *ts, int ply, int rem, uint64_t delta);

/* Simulation (see sim) of the defender's answer c at the node on the
 * board: the child mapped by delta, or (four: c is a four of the
 * defender's) the position after c and its forced block, which is this
 * node with two more stones, mapped to the node this one maps to. */
static int sim_answer(ThreatSearch *ts, int ply, int rem, uint64_t delta, const Child *c, bool four)
{
    Board *b = ts->b;
    if (!four) {
        play_child(ts, c);
        int l = sim(ts, ply + 1, rem - 1, delta);
        undo_child(ts, c);
        return l;
    }
    uint64_t here = node_key(ts, b->key, ts->quiet_used);
    play_child(ts, c);
    Move f[2];
    Color att = b->to_move;
    int l = 0;
    if (rem >= 3 && !movegen_five_points(b, att, f, 1) && movegen_five_points(b, OPPONENT(att), f, 2) == 1 && legal(b, f[0])) {
        uint64_t after = node_key(ts, b->key, ts->quiet_used);
        board_play(b, f[0]);
        int k = sim(ts, ply + 2, rem - 2, node_key(ts, b->key, ts->quiet_used) ^ here ^ delta);
        board_undo(b);
        if (k) {
            l = k + 1;
            store(ts, after, rem - 1, 0, PN_INF, l, f[0]);
        }
    }
    undo_child(ts, c);
    return l;
}

/*
 * Simulation (Kawano's, from tsume-shogi df-pn): proves the node on the
 * board by replaying the proof of a similar node, the one whose table key
 * is this node's key ^ delta (a sibling answer, or the position before a
 * counter-four and its block). At attacker nodes only the move the similar
 * node won with is tried; at defender nodes every answer is (each must map
 * to a proven node, checked before any is played). Every step is checked
 * on the board, so a simulation that succeeds is a proof; one that fails
 * says nothing. Returns the proof's length or 0.
 */
static int sim(ThreatSearch *ts, int ply, int rem, uint64_t delta)
{
    Board *b = ts->b;
    uint64_t key = node_key(ts, b->key, ts->quiet_used);
    Child c;
    if (lookup(ts, key, rem, &c)) {
        if (c.pn == 0) return c.len;
        if (c.dn == 0) return 0;
    }
    if (tick(ts)) return 0;
    Child ch[MAX_CHILDREN];
    int n, len = 0;
    Move best = MOVE_NONE;
    NodeState st = expand(ts, ply, rem, ch, &n, &len, &best);
    if (ts->aborted) return 0;
    if (st != NODE_OPEN) {
        bool won = st == NODE_PROVEN;
        store(ts, key, rem, won ? 0 : PN_INF, won ? PN_INF : 0, won ? len : 0, best);
        return won ? len : 0;
    }
    if (b->to_move == ts->attacker) {
        uint64_t mk = key ^ delta;
        const ThreatEntry *e = &ts->cache[mk & ts->cache_mask];
        if (e->key != mk || e->pn != 0 || e->best == MOVE_NONE) return 0;
        int i = 0;
        while (i < n && ch[i].move != e->best) i++;
        if (i == n) return 0;
        play_child(ts, &ch[i]);
        int l = sim(ts, ply + 1, rem - 1, delta);
        undo_child(ts, &ch[i]);
        if (!l) return 0;
        len = l + 1;
        best = ch[i].move;
    } else {
        bool mapped[MAX_CHILDREN];
        child_keys(ts, ch, n);
        for (int i = 0; i < n; i++) {
            uint64_t ck = ch[i].key;
            const ThreatEntry *e = &ts->cache[ck & ts->cache_mask], *m = &ts->cache[(ck ^ delta) & ts->cache_mask];
            mapped[i] = (e->key == ck && e->pn == 0) || (m->key == (ck ^ delta) && m->pn == 0);
            if (!mapped[i] && !threat_is_four(board_threat(b, ch[i].move, b->to_move))) return 0;
        }
        for (int i = 0; i < n; i++) {
            int l = sim_answer(ts, ply, rem, delta, &ch[i], !mapped[i]);
            if (!l) return 0;
            if (l + 1 > len) {
                len = l + 1;
                best = ch[i].move;
            }
        }
    }
    store(ts, key, rem, 0, PN_INF, len, best);
    return len;
}

/* Tries to prove child j of the defender node on the board (not yet
 * proven) by simulation of its proven sibling p. A defender's four is
 * tried instead against the node itself: after the four and its forced
 * block the same answers should win again. */
static bool sim_child(ThreatSearch *ts, int ply, int rem, Child *ch, int j, int p)
{
    Board *b = ts->b;
    bool four = threat_is_four(board_threat(b, ch[j].move, b->to_move));
    int l = sim_answer(ts, ply, rem, four ? 0 : ch[j].key ^ ch[p].key, &ch[j], four);
    if (!l) return false;
    ch[j].pn = 0;
    ch[j].dn = PN_INF;
    ch[j].len = (int16_t)l;
    return true;
}

/* Proves the node on the board again when the table lost it. */
static bool reprove(ThreatSearch *ts, int ply, int rem, Child *c)
{
    uint64_t key = node_key(ts, ts->b->key, ts->quiet_used);
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
            play_child(ts, &ch[i]);
            bool proven = lookup(ts, node_key(ts, b->key, ts->quiet_used), rem - 1, &c) && c.pn == 0;
            undo_child(ts, &ch[i]);
            if (proven && c.len < pick_len) {
                pick = i;
                pick_len = c.len;
            }
        }
    for (int i = 0; i < n && !(or_node && pick >= 0); i++) {
        play_child(ts, &ch[i]);
        bool proven = reprove(ts, ply + 1, rem - 1, &c);
        undo_child(ts, &ch[i]);
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
    play_child(ts, &ch[pick]);
    int r = follow(ts, ply + 1, rem - 1, line + 1);
    undo_child(ts, &ch[pick]);
    return r ? r + 1 : 0;
}

/*
 * The root is proven and line[0..len) is its proof: looks for shorter
 * proofs, two plies less at a time, each try within a share of the nodes
 * spent so far (a deep first proof is often longer than it needs to be).
 * A try that fails, or whose line cannot be followed, leaves the line
 * found last. Returns its length.
 */
static int shorten(ThreatSearch *ts, Move *line, int len)
{
    uint64_t budget = ts->budget;
    while (len >= 3) {
        uint64_t cap = ts->nodes + ts->nodes / SHORTEN_SHARE + SHORTEN_MIN_NODES;
        ts->budget = cap < budget ? cap : budget;
        Child root;
        Move shorter[THREAT_MAX_LINE];
        mid(ts, 0, len - 2, PN_INF, PN_INF, &root);
        int n = !ts->aborted && root.pn == 0 ? follow(ts, 0, len - 2, shorter) : 0;
        ts->aborted = false;
        ts->budget = budget;
        if (n == 0 || n >= len) break;
        memcpy(line, shorter, (size_t)n * sizeof *line);
        len = n;
    }
    return len;
}

static int solve(ThreatSearch *ts, bool vct, const int *steps, int nsteps, int max_plies, Move *line, int *len)
{
    *len = 0;
    if (max_plies > THREAT_MAX_LINE - 1) max_plies = THREAT_MAX_LINE - 1;
    ts->attacker = ts->b->to_move;
    ts->vct = vct;
    ts->quiet_used = 0;
    if (vct) memset(ts->proved, 0, sizeof ts->proved); /* (the VCF neither reads nor counts it) */
    /* first threes and fours alone (with the openers): most wins need
     * nothing more and their trees stay small; only when that fails, the
     * quiet moves that threaten a VCF too, in a table of their own (a
     * disproof without them proves nothing with them) */
    int passes = vct && ts->quiet_moves > 0 ? 2 : 1;
    for (int pass = 0; pass < passes; pass++) {
        ts->quiet_limit = pass ? ts->quiet_moves : 0;
        ts->kind_salt = ts->salt ^ (vct ? VCT_SALT : VCF_SALT) ^ (ts->attacker == WHITE ? WHITE_SALT : 0) ^
                        (vct && ts->quiet_plies ? QUIET_SALT * (uint64_t)ts->quiet_plies : 0) ^
                        (uint64_t)ts->quiet_limit * QUIET_MOVES_SALT;
        for (int i = 0; i <= nsteps; i++) {
            int max = i < nsteps && steps[i] < max_plies ? steps[i] : max_plies;
            Child root;
            mid(ts, 0, max, PN_INF, PN_INF, &root);
            if (ts->aborted) return 0;
            if (root.pn == 0) {
                if (ts->budget < ts->nodes + FOLLOW_NODES) ts->budget = ts->nodes + FOLLOW_NODES;
                *len = follow(ts, 0, max, line);
                if (ts->aborted || *len == 0) return *len = 0;
                return *len = shorten(ts, line, *len);
            }
            if (max == max_plies) break;
        }
    }
    return 0;
}

/* Runs solve with the board's evaluation upkeep off (the threat search
 * reads patterns and threats only; see Board.no_eval). */
static int solve_fast(ThreatSearch *ts, bool vct, const int *steps, int nsteps, int max_plies, Move *line, int *len)
{
    bool no_eval = ts->b->no_eval;
    ts->b->no_eval = true;
    int r = solve(ts, vct, steps, nsteps, max_plies, line, len);
    ts->b->no_eval = no_eval;
    return r;
}

int vcf_find(ThreatSearch *ts, int max_plies, Move *line, int *len)
{
    static const int steps[] = VCF_STEPS;
    return solve_fast(ts, false, steps, (int)(sizeof steps / sizeof steps[0]), max_plies, line, len);
}

int vct_find(ThreatSearch *ts, int max_plies, Move *line, int *len)
{
    return solve_fast(ts, true, NULL, 0, max_plies, line, len);
}
