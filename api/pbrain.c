/* pbrain.c - the Gomocup protocol state machine (see pbrain.h). */
#include "api/pbrain.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "engine/board.h"
#include "engine/rules.h"
#include "engine/swap2.h"

#define PB_NAME "gomokud"
#define PB_AUTHOR "gomokud team"
#define PB_COUNTRY "International"

/* Time management. */
#define PB_DEFAULT_TIMEOUT_TURN 30000 /* ms, until the manager says otherwise */
#define PB_UNLIMITED_TIME 2147483647  /* time_left value the protocol uses for "no limit" */
#define PB_SAFETY_PERCENT 2           /* margin kept from every time slice... */
#define PB_SAFETY_MS 30               /* ...plus this much for I/O and scheduling */
#define PB_MIN_BUDGET_MS 5            /* never search for less than this */
#define PB_MOVES_LEFT_MIN 10          /* own moves still expected, whatever the board says */
#define PB_MOVES_LEFT_MAX 20
#define PB_QUEUED_MS 20               /* a command read this soon after a table was made waited for it */
#define PB_MAX_SHARES 2               /* a search may take this many shares when it needs them */
#define PB_TIME_CAP 1000000000000LL   /* ms; larger settings are taken as this */
#define PB_BUDGET_MAX_MS 1000000000LL /* about 11 days: the longest single search */

/* Memory: what the process needs besides the transposition table. */
#define PB_MEM_RESERVE_MIB 32
#define PB_TT_MAX_MIB 1024

#define PB_QUEUE_MAX 1024 /* lines held while a search runs */
#define PB_OUT_MAX 4096   /* longest reply line (FORBID with every point fits) */
#define PB_PV_SHOW 24     /* moves of a PV shown in a MESSAGE line */
#define PB_ERR_MAX 160

/* An input line that was too long travels as the empty string, which no
 * real line can be (blank lines are dropped before anything else). */
#define PB_TOO_LONG ""

/* Grid contents besides EMPTY, BLACK and WHITE: a point taken by a
 * finished line of a continuous game (BOARD field 3). */
#define PB_BLOCKED 3

typedef enum { MODE_COMMAND, MODE_BOARD, MODE_SWAP2 } ReadMode;

/* SWAP2BOARD, the swap2 opening of Gomocup tournaments (the Gomocup
 * protocol's 2020 extension, gomocup.org "Experimental tournament update
 * 2020"): between START and BOARD the manager sends SWAP2BOARD, the stones
 * placed so far one "x,y" a line (black, white, black, then white, black),
 * and DONE. With none the brain answers its three stones, "x,y x,y x,y";
 * with three it answers SWAP (it takes black), one "x,y" (it stays white
 * and plays the 4th stone), or "x,y x,y" (it places the 4th and 5th stones
 * and lets the opponent choose); with five, SWAP (black) or "x,y" (it plays
 * white's 6th stone). The decisions are engine/swap2.c's. */
#define PB_SWAP2_MAX 5

struct Pbrain {
    PbrainWriteFn write;
    void *ctx;
    bool threaded;
    size_t default_tt_mib;

    /* Settings from INFO. time_left < 0: not known this game. */
    int64_t timeout_turn, timeout_match, time_left;
    uint64_t max_memory;
    int64_t made_at, made_ms; /* when INFO max_memory's new table was ready, and how long it took */
    int max_depth;
    int64_t max_node;
    int rule_bits;
    Rule rule;
    const EngineBook *book; /* PbrainOptions.book */
    bool use_book;          /* INFO book: 1 (default) plays from it, 0 searches */

    /* The game: size 0 until START. Stones per colour in the order they
     * came; interleaving them gives the Position. */
    int size;
    bool ordered;
    int nblack, nwhite, nblocked;
    Move black[BOARD_MAX_MOVES], white[BOARD_MAX_MOVES], blocked[BOARD_MAX_MOVES];
    uint8_t grid[BOARD_CELLS];

    /* A BOARD/YXBOARD diagram being read. */
    ReadMode mode;
    bool board_moves; /* BOARD (the brain moves at DONE), not YXBOARD */
    int in_own, in_opp, in_blocked, in_lines;
    Move own[BOARD_MAX_MOVES], opp[BOARD_MAX_MOVES], wall[BOARD_MAX_MOVES];
    uint8_t in_grid[BOARD_CELLS];
    char board_err[PB_ERR_MAX];
    int in_swap2;
    uint64_t swap2_count; /* SWAP2BOARDs with no stone so far: the seed of the next three stones */
    Move swap2_in[PB_SWAP2_MAX];

    /* Engine and the search job. */
    Engine *engine;
    size_t engine_mib; /* the size asked for when it was made */
    Board scratch;     /* the position, for rule checks */
    Position job_pos;
    Limits job_limits;
    int job_multipv; /* lines the command asked for */
    bool job_swap2;  /* a SWAP2BOARD decision, not a search for a move */
    Swap2Decision swap2;
    int64_t job_start;
    EngineResult result;
    bool job_pending, searching, quitting, shutdown;
    atomic_bool stop;

    /* Threads. */
    pthread_mutex_t mu;
    pthread_cond_t wake, idle;
    pthread_t worker;
    bool have_worker;
    char *queue[PB_QUEUE_MAX];
    int qhead, qcount;

    char out[PB_OUT_MAX];
};

/* ---- small helpers ---------------------------------------------------- */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void reply(Pbrain *pb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(Pbrain *pb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pb->out, sizeof pb->out, fmt, ap);
    va_end(ap);
    pb->write(pb->ctx, pb->out);
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/* Copies at most cap-1 bytes of s into buf, printable ASCII only, for
 * quoting input back in an error message. */
static const char *quote(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 1 < cap; s++) buf[n++] = (*s >= 32 && *s < 127) ? *s : '?';
    buf[n] = 0;
    return buf;
}

/* Strict decimal: optional '-', digits, nothing else; false on overflow. */
static bool parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s) return false;
    const char *p = s;
    if (*p == '-') p++;
    if (*p < '0' || *p > '9') return false;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9') return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

static bool on_board(const Pbrain *pb, Move m)
{
    if (m < 0 || m >= BOARD_CELLS) return false;
    int x = MOVE_X(m), y = MOVE_Y(m);
    return x >= 0 && y >= 0 && x < pb->size && y < pb->size;
}

static Color side_to_move(const Pbrain *pb) { return pb->nblack == pb->nwhite ? BLACK : WHITE; }

static int stones(const Pbrain *pb) { return pb->nblack + pb->nwhite; }

static void clear_game(Pbrain *pb)
{
    pb->nblack = pb->nwhite = pb->nblocked = 0;
    pb->ordered = true;
    memset(pb->grid, EMPTY, sizeof pb->grid);
}

/* Puts a stone of the side to move on the empty point m. */
static void add_stone(Pbrain *pb, Move m)
{
    if (side_to_move(pb) == BLACK) {
        pb->black[pb->nblack++] = m;
        pb->grid[m] = BLACK;
    } else {
        pb->white[pb->nwhite++] = m;
        pb->grid[m] = WHITE;
    }
}

static void build_position(const Pbrain *pb, Position *p)
{
    p->rule = pb->rule;
    p->size = pb->size;
    p->ordered = pb->ordered;
    int n = 0;
    for (int i = 0; i < pb->nblack || i < pb->nwhite; i++) {
        if (i < pb->nblack) p->moves[n++] = pb->black[i];
        if (i < pb->nwhite) p->moves[n++] = pb->white[i];
    }
    p->nmoves = n;
}

/* Sets the scratch board to the current position (blocked points are not
 * on it; callers check pb->grid for them). */
static void build_scratch(Pbrain *pb)
{
    Position p;
    build_position(pb, &p);
    board_reset(&pb->scratch, pb->size, pb->rule);
    for (int i = 0; i < p.nmoves; i++) board_play(&pb->scratch, p.moves[i]);
}

/* True when the side to move may play m (scratch must be current). */
static bool legal(Pbrain *pb, Move m)
{
    if (!on_board(pb, m) || pb->grid[m] != EMPTY) return false;
    return rules_is_legal(&pb->scratch, m);
}

/* The engine's move if legal, else its next lines' first moves, else the
 * legal point nearest the centre; MOVE_NONE when there is none. */
static Move choose_move(Pbrain *pb, const EngineResult *res)
{
    build_scratch(pb);
    if (res && legal(pb, res->best_move)) return res->best_move;
    for (int i = 0; res && i < res->npv; i++)
        if (legal(pb, res->pvs[i].move)) return res->pvs[i].move;
    Move best = MOVE_NONE;
    int best_d = 1 << 30, c2 = pb->size - 1; /* distances doubled: centre at c2/2 */
    for (int y = 0; y < pb->size; y++)
        for (int x = 0; x < pb->size; x++) {
            int dx = 2 * x - c2, dy = 2 * y - c2, d = dx * dx + dy * dy;
            Move m = MOVE_XY(x, y);
            if (d < best_d && legal(pb, m)) best = m, best_d = d;
        }
    return best;
}

/* ---- engine, time and memory ------------------------------------------ */

/* A move's budget less the time its request may have waited in the input
 * for the table INFO max_memory made just before (managers send INFO and
 * the move request together, and INFO has no reply to wait for). */
static int64_t less_waited(Pbrain *pb, int64_t budget)
{
    if (pb->made_ms && now_ms() - pb->made_at <= PB_QUEUED_MS) budget -= pb->made_ms;
    pb->made_ms = 0;
    return budget < PB_MIN_BUDGET_MS ? PB_MIN_BUDGET_MS : budget;
}

int64_t pbrain_budget_ms(int64_t timeout_turn, int64_t timeout_match, int64_t time_left, int empties,
                         int64_t *optimum_ms)
{
    if (timeout_turn > PB_TIME_CAP) timeout_turn = PB_TIME_CAP;
    if (timeout_match > PB_TIME_CAP) timeout_match = PB_TIME_CAP;
    if (time_left > PB_TIME_CAP && time_left != PB_UNLIMITED_TIME) time_left = PB_TIME_CAP;
    int64_t budget, optimum = PB_BUDGET_MAX_MS; /* no match clock: the turn is all there is */
    if (timeout_turn <= 0) budget = PB_MIN_BUDGET_MS;
    else budget = timeout_turn - timeout_turn * PB_SAFETY_PERCENT / 100 - PB_SAFETY_MS;

    if (timeout_match > 0 || (time_left >= 0 && time_left != PB_UNLIMITED_TIME)) {
        int64_t left = time_left >= 0 ? time_left : timeout_match;
        if (left != PB_UNLIMITED_TIME) {
            int moves = empties / 2;
            if (moves < PB_MOVES_LEFT_MIN) moves = PB_MOVES_LEFT_MIN;
            if (moves > PB_MOVES_LEFT_MAX) moves = PB_MOVES_LEFT_MAX;
            int64_t share = left / moves;
            share -= share * PB_SAFETY_PERCENT / 100 + PB_SAFETY_MS;
            if (share * PB_MAX_SHARES < budget) budget = share * PB_MAX_SHARES;
            optimum = share < PB_MIN_BUDGET_MS ? PB_MIN_BUDGET_MS : share;
        }
    }
    if (budget > PB_BUDGET_MAX_MS) budget = PB_BUDGET_MAX_MS;
    if (budget < PB_MIN_BUDGET_MS) budget = PB_MIN_BUDGET_MS;
    if (optimum_ms) *optimum_ms = optimum;
    return budget;
}

size_t pbrain_tt_mib_for_memory(uint64_t max_memory, size_t default_mib)
{
    if (max_memory == 0) return default_mib ? default_mib : ENGINE_DEFAULT_TT_MIB;
    uint64_t reserve = (uint64_t)PB_MEM_RESERVE_MIB << 20;
    if (max_memory < reserve + (2u << 20)) return 1;
    uint64_t mib = (max_memory - reserve) >> 20;
    if (mib > PB_TT_MAX_MIB) mib = PB_TT_MAX_MIB;
    size_t p = 1;
    while ((uint64_t)p * 2 <= mib) p *= 2;
    return p;
}

/* Makes sure an engine of the size the settings ask for exists (halving
 * the table while memory is short); *made (may be NULL) says whether it is
 * a new one, whose tables are clear already. Only while no search runs. */
static bool ensure_engine(Pbrain *pb, bool *made)
{
    size_t want = pbrain_tt_mib_for_memory(pb->max_memory, pb->default_tt_mib);
    if (made) *made = false;
    if (pb->engine && pb->engine_mib == want) return true;
    engine_free(pb->engine);
    pb->engine = NULL;
    for (size_t mib = want; mib >= 1; mib /= 2) {
        EngineOptions o = {.tt_mib = mib, .persistent = true}; /* one game: keep what was learnt */
        Engine *e = engine_new(&o);
        if (!e) continue;
        if (pb->max_memory && mib > 1 && engine_tt_bytes(e) > ((size_t)want << 20)) {
            engine_free(e);
            continue;
        }
        engine_set_book(e, pb->book);
        pb->engine = e;
        pb->engine_mib = want;
        if (made) *made = true;
        return true;
    }
    return false;
}

/* Appends " x,y x,y ..." of a line to buf. */
static void append_pv(char *buf, size_t cap, const PvLine *pv)
{
    size_t n = strlen(buf);
    for (int i = 0; i < pv->pv_len && i < PB_PV_SHOW && n + 8 < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, " %d,%d", MOVE_X(pv->pv[i]), MOVE_Y(pv->pv[i]));
}

static void append_score(char *buf, size_t cap, Rule rule, Color side, const PvLine *pv)
{
    size_t n = strlen(buf);
    if (pv->mate) snprintf(buf + n, cap - n, " score %d mate %+d", (int)pv->score, pv->mate);
    else snprintf(buf + n, cap - n, " score %d", (int)pv->score);
    n = strlen(buf);
    snprintf(buf + n, cap - n, " winrate %.3f", engine_winrate(rule, side, pv->score, pv->mate));
}

/* MESSAGE lines after each completed iteration (search thread, no lock). */
static void on_info(void *ctx, const EngineResult *r)
{
    Pbrain *pb = ctx;
    pthread_mutex_lock(&pb->mu);
    if (!pb->quitting) {
        int lines = r->npv < pb->job_multipv ? r->npv : pb->job_multipv;
        PvLine only = {.move = r->best_move, .score = r->score, .mate = r->mate, .pv_len = 1, .pv = {r->best_move}};
        if (lines < 1) lines = 1;
        for (int k = 0; k < lines; k++) {
            const PvLine *pv = r->npv > 0 ? &r->pvs[k] : &only;
            int n = snprintf(pb->out, sizeof pb->out, "MESSAGE depth %d seldepth %d", r->depth, r->seldepth);
            if (pb->job_multipv > 1) n += snprintf(pb->out + n, sizeof pb->out - (size_t)n, " multipv %d", k + 1);
            append_score(pb->out, sizeof pb->out, pb->job_pos.rule, r->side_to_move, pv);
            n = (int)strlen(pb->out);
            n += snprintf(pb->out + n, sizeof pb->out - (size_t)n, " nodes %llu", (unsigned long long)r->nodes);
            if (r->time_ms > 0)
                n += snprintf(pb->out + n, sizeof pb->out - (size_t)n, " nps %llu",
                              (unsigned long long)(r->nodes * 1000 / (uint64_t)r->time_ms));
            snprintf(pb->out + n, sizeof pb->out - (size_t)n, " time %lld pv", (long long)r->time_ms);
            append_pv(pb->out, sizeof pb->out, pv);
            pb->write(pb->ctx, pb->out);
        }
    }
    pthread_mutex_unlock(&pb->mu);
}

/* Prepares a search for the side to move; the caller runs it (inline or on
 * the worker). Replies ERROR instead when there is nothing to search. */
static void start_search(Pbrain *pb, int multipv)
{
    build_scratch(pb);
    if (choose_move(pb, NULL) == MOVE_NONE) {
        reply(pb, "ERROR no legal move is left on the board");
        return;
    }
    if (!ensure_engine(pb, NULL)) {
        reply(pb, "ERROR not enough memory for the engine");
        return;
    }
    build_position(pb, &pb->job_pos);
    int empties = pb->size * pb->size - stones(pb) - pb->nblocked;
    Limits *l = &pb->job_limits;
    memset(l, 0, sizeof *l);
    l->time_ms = less_waited(pb, pbrain_budget_ms(pb->timeout_turn, pb->timeout_match, pb->time_left, empties,
                                                  &l->optimum_ms));
    l->depth = pb->max_depth;
    l->nodes = pb->max_node;
    l->no_book = !pb->use_book;
    l->play = true;
    /* The engine does not know blocked points: ask for enough lines that one
     * of them is playable. */
    int lines = multipv;
    if (pb->nblocked && lines < pb->nblocked + 1) lines = pb->nblocked + 1;
    l->multipv = lines > ENGINE_MAX_MULTIPV ? ENGINE_MAX_MULTIPV : lines;
    l->stop = &pb->stop;
    l->on_info = on_info;
    l->info_ctx = pb;
    pb->job_multipv = multipv;
    pb->job_swap2 = false;
    atomic_store(&pb->stop, false);
    pb->job_start = now_ms();
    pb->job_pending = true;
    if (pb->have_worker) pthread_cond_signal(&pb->wake);
}

/* Runs the prepared search (no lock held; nothing else touches the job or
 * the engine meanwhile). */
static PositionError run_search(Pbrain *pb, int *index)
{
    if (pb->job_swap2)
        return swap2_decide(pb->engine, pb->job_pos.rule, pb->job_pos.size, pb->job_pos.moves, pb->job_pos.nmoves,
                            &pb->job_limits, pb->swap2_count++, &pb->swap2, index);
    PositionError err = engine_analyze(pb->engine, &pb->job_pos, &pb->job_limits, &pb->result, index);
    if (err == POSITION_FORBIDDEN && pb->job_pos.ordered) {
        /* a forbidden move the manager let through: go on from the diagram */
        pb->job_pos.ordered = false;
        err = engine_analyze(pb->engine, &pb->job_pos, &pb->job_limits, &pb->result, index);
    }
    return err;
}

/* Plays and sends the result of a search (lock held). */
static void finish_search(Pbrain *pb, PositionError err, int index)
{
    pb->searching = false;
    int64_t used = now_ms() - pb->job_start;
    if (pb->timeout_match > 0 && pb->time_left != PB_UNLIMITED_TIME) {
        int64_t left = (pb->time_left >= 0 ? pb->time_left : pb->timeout_match) - used;
        pb->time_left = left > 0 ? left : 0;
    }
    if (pb->quitting) return;
    if (err != POSITION_OK) {
        if (index >= 0 && index < pb->job_pos.nmoves) {
            Move m = pb->job_pos.moves[index];
            reply(pb, "ERROR cannot analyse this position: %s (%d,%d)", position_error_text(err), MOVE_X(m),
                  MOVE_Y(m));
        } else {
            reply(pb, "ERROR cannot analyse this position: %s", position_error_text(err));
        }
        return;
    }
    if (pb->job_swap2) {
        const Swap2Decision *d = &pb->swap2;
        if (d->choice == SWAP2_BLACK) {
            reply(pb, "SWAP");
            return;
        }
        char line[64] = "";
        for (int i = 0; i < d->nmoves; i++) {
            size_t n = strlen(line);
            snprintf(line + n, sizeof line - n, "%s%d,%d", i ? " " : "", MOVE_X(d->moves[i]), MOVE_Y(d->moves[i]));
        }
        reply(pb, "%s", line);
        return;
    }
    const EngineResult *r = &pb->result;
    if (pb->job_multipv > 1) {
        for (int k = 0; k < r->npv && k < pb->job_multipv; k++) {
            snprintf(pb->out, sizeof pb->out, "MESSAGE nbest %d", k + 1);
            append_score(pb->out, sizeof pb->out, pb->job_pos.rule, r->side_to_move, &r->pvs[k]);
            size_t n = strlen(pb->out);
            snprintf(pb->out + n, sizeof pb->out - n, " pv");
            append_pv(pb->out, sizeof pb->out, &r->pvs[k]);
            pb->write(pb->ctx, pb->out);
        }
    }
    Move m = choose_move(pb, r);
    if (m == MOVE_NONE) {
        reply(pb, "ERROR no legal move is left on the board");
        return;
    }
    add_stone(pb, m);
    reply(pb, "%d,%d", MOVE_X(m), MOVE_Y(m));
}

/* Prepares a swap2 decision on the stones read (see MODE_SWAP2). The
 * time for a move is shared by its searches: up to 1 + SWAP2_WHITE_LINES. */
static void start_swap2(Pbrain *pb)
{
    if (!ensure_engine(pb, NULL)) {
        reply(pb, "ERROR not enough memory for the engine");
        return;
    }
    Position *p = &pb->job_pos;
    memset(p, 0, sizeof *p);
    p->rule = pb->rule;
    p->size = pb->size;
    p->ordered = true;
    p->nmoves = pb->in_swap2;
    memcpy(p->moves, pb->swap2_in, sizeof(Move) * (size_t)pb->in_swap2);
    int index = -1;
    PositionError e = position_check(p, &index);
    if (e != POSITION_OK) {
        reply(pb, "ERROR SWAP2BOARD: %s", position_error_text(e));
        return;
    }
    Limits *l = &pb->job_limits;
    memset(l, 0, sizeof *l);
    int64_t budget = less_waited(pb, pbrain_budget_ms(pb->timeout_turn, pb->timeout_match, pb->time_left,
                                                      pb->size * pb->size - pb->in_swap2, NULL));
    int searches = pb->in_swap2 == 3 ? 1 + SWAP2_WHITE_LINES : 1;
    l->time_ms = budget / searches > 0 ? budget / searches : 1;
    l->depth = pb->max_depth;
    l->nodes = pb->max_node;
    l->stop = &pb->stop;
    l->play = true;
    pb->job_multipv = 1;
    pb->job_swap2 = true;
    pb->job_start = now_ms();
    atomic_store(&pb->stop, false);
    pb->job_pending = true;
    if (pb->have_worker) pthread_cond_signal(&pb->wake);
}

static void swap2_line(Pbrain *pb, const char *line)
{
    if (pb->board_err[0]) return;
    Move m = *line ? move_parse_xy(line, pb->size) : MOVE_NONE;
    if (m == MOVE_NONE) {
        char q[40];
        snprintf(pb->board_err, sizeof pb->board_err, "'%s' is not x,y on the %dx%d board", quote(line, q, sizeof q),
                 pb->size, pb->size);
        return;
    }
    if (pb->in_swap2 == PB_SWAP2_MAX) {
        snprintf(pb->board_err, sizeof pb->board_err, "more than %d stones", PB_SWAP2_MAX);
        return;
    }
    pb->swap2_in[pb->in_swap2++] = m;
}

static void swap2_done(Pbrain *pb)
{
    pb->mode = MODE_COMMAND;
    if (!pb->board_err[0] && pb->in_swap2 != 0 && pb->in_swap2 != 3 && pb->in_swap2 != 5)
        snprintf(pb->board_err, sizeof pb->board_err, "%d stones: swap2 decides with 0, 3 or 5", pb->in_swap2);
    if (pb->board_err[0]) {
        reply(pb, "ERROR SWAP2BOARD: %s", pb->board_err);
        return;
    }
    start_swap2(pb);
}

/* ---- commands --------------------------------------------------------- */

static bool need_board(Pbrain *pb, const char *cmd)
{
    if (pb->size) return true;
    reply(pb, "ERROR %s: no board yet, send START first", cmd);
    return false;
}

static bool no_args(Pbrain *pb, const char *cmd, const char *args)
{
    if (!*args) return true;
    reply(pb, "ERROR %s takes no argument", cmd);
    return false;
}

/* A new game; clear_engine forgets the last game (engine_new_game: a new
 * engine has nothing to forget). */
static void new_game(Pbrain *pb, int size, bool clear_engine)
{
    pb->size = size;
    clear_game(pb);
    pb->time_left = -1;
    if (pb->engine && clear_engine) engine_new_game(pb->engine);
}

static void start_board(Pbrain *pb, int size)
{
    if (size < BOARD_MIN_SIZE || size > BOARD_MAX_SIZE) {
        reply(pb, "ERROR unsupported board size %d (%d to %d are supported)", size, BOARD_MIN_SIZE, BOARD_MAX_SIZE);
        return;
    }
    bool made;
    if (!ensure_engine(pb, &made)) {
        reply(pb, "ERROR not enough memory for the engine");
        return;
    }
    new_game(pb, size, !made);
    reply(pb, "OK");
}

static void cmd_start(Pbrain *pb, const char *args)
{
    int64_t n;
    if (!parse_i64(args, &n)) {
        char q[40];
        reply(pb, "ERROR START needs a board size, not '%s'", quote(args, q, sizeof q));
        return;
    }
    start_board(pb, n < 0 || n > 1000 ? 0 : (int)n);
}

static void cmd_rectstart(Pbrain *pb, const char *args)
{
    char buf[64], q[40];
    const char *comma = strchr(args, ',');
    size_t wlen = comma ? (size_t)(comma - args) : 0;
    int64_t w, h;
    if (!comma || wlen >= sizeof buf) goto bad;
    memcpy(buf, args, wlen);
    buf[wlen] = 0;
    while (wlen && is_space(buf[wlen - 1])) buf[--wlen] = 0;
    const char *hs = comma + 1;
    while (is_space(*hs)) hs++;
    if (!parse_i64(buf, &w) || !parse_i64(hs, &h)) goto bad;
    if (w != h) {
        reply(pb, "ERROR only square boards are supported");
        return;
    }
    start_board(pb, w < 0 || w > 1000 ? 0 : (int)w);
    return;
bad:
    reply(pb, "ERROR RECTSTART needs width,height, not '%s'", quote(args, q, sizeof q));
}

static void cmd_restart(Pbrain *pb, const char *args)
{
    if (!no_args(pb, "RESTART", args) || !need_board(pb, "RESTART")) return;
    new_game(pb, pb->size, true);
    reply(pb, "OK");
}

static void cmd_begin(Pbrain *pb, const char *args)
{
    if (!no_args(pb, "BEGIN", args) || !need_board(pb, "BEGIN")) return;
    if (stones(pb)) {
        reply(pb, "ERROR BEGIN needs an empty board");
        return;
    }
    start_search(pb, 1);
}

/* The point "x,y" of args, or MOVE_NONE after replying ERROR. */
static Move parse_point(Pbrain *pb, const char *cmd, const char *args)
{
    Move m = move_parse_xy(args, pb->size);
    if (m == MOVE_NONE) {
        char q[40];
        reply(pb, "ERROR %s: '%s' is not a point x,y of the %dx%d board", cmd, quote(args, q, sizeof q), pb->size,
              pb->size);
    }
    return m;
}

static void cmd_turn(Pbrain *pb, const char *args)
{
    if (!need_board(pb, "TURN")) return;
    Move m = parse_point(pb, "TURN", args);
    if (m == MOVE_NONE) return;
    if (pb->grid[m] != EMPTY) {
        reply(pb, "ERROR TURN: %d,%d is already taken", MOVE_X(m), MOVE_Y(m));
        return;
    }
    add_stone(pb, m);
    start_search(pb, 1);
}

static void cmd_takeback(Pbrain *pb, const char *args)
{
    if (!need_board(pb, "TAKEBACK")) return;
    Move m = parse_point(pb, "TAKEBACK", args);
    if (m == MOVE_NONE) return;
    Color c = (Color)pb->grid[m];
    if (c != BLACK && c != WHITE) {
        reply(pb, "ERROR TAKEBACK: no stone on %d,%d", MOVE_X(m), MOVE_Y(m));
        return;
    }
    int nb = pb->nblack - (c == BLACK), nw = pb->nwhite - (c == WHITE);
    if (nb != nw && nb != nw + 1) {
        reply(pb, "ERROR TAKEBACK: without %d,%d the stone counts would not fit", MOVE_X(m), MOVE_Y(m));
        return;
    }
    Move last = pb->nblack > pb->nwhite ? pb->black[pb->nblack - 1] : pb->white[pb->nwhite - 1];
    if (m != last) pb->ordered = false;
    Move *list = c == BLACK ? pb->black : pb->white;
    int *n = c == BLACK ? &pb->nblack : &pb->nwhite;
    int i = 0;
    while (list[i] != m) i++;
    memmove(list + i, list + i + 1, (size_t)(*n - i - 1) * sizeof *list);
    (*n)--;
    pb->grid[m] = EMPTY;
    reply(pb, "OK");
}

static void cmd_board(Pbrain *pb, const char *args, bool moves)
{
    pb->mode = MODE_BOARD;
    pb->board_moves = moves;
    pb->in_own = pb->in_opp = pb->in_blocked = pb->in_lines = 0;
    memset(pb->in_grid, EMPTY, sizeof pb->in_grid);
    pb->board_err[0] = 0;
    if (*args) snprintf(pb->board_err, sizeof pb->board_err, "%s takes no argument", moves ? "BOARD" : "YXBOARD");
    else if (!pb->size) snprintf(pb->board_err, sizeof pb->board_err, "no board yet, send START first");
}

/* One "x,y,field" line of a diagram. */
static void board_line(Pbrain *pb, const char *line)
{
    pb->in_lines++;
    if (pb->board_err[0]) return;
    char q[40];
    if (!*line) {
        snprintf(pb->board_err, sizeof pb->board_err, "line %d is too long", pb->in_lines);
        return;
    }
    if (pb->in_lines > BOARD_MAX_MOVES) {
        snprintf(pb->board_err, sizeof pb->board_err, "more lines than points on the board");
        return;
    }
    const char *comma = strrchr(line, ',');
    char xy[16];
    size_t len = comma ? (size_t)(comma - line) : 0;
    const char *f = comma ? comma + 1 : "";
    while (is_space(*f)) f++;
    Move m = MOVE_NONE;
    if (comma && len < sizeof xy) {
        memcpy(xy, line, len);
        xy[len] = 0;
        m = move_parse_xy(xy, pb->size);
    }
    if (m == MOVE_NONE || (strcmp(f, "1") && strcmp(f, "2") && strcmp(f, "3"))) {
        snprintf(pb->board_err, sizeof pb->board_err, "'%s' is not x,y,field (field 1, 2 or 3) on the %dx%d board",
                 quote(line, q, sizeof q), pb->size, pb->size);
        return;
    }
    if (pb->in_grid[m] != EMPTY) {
        snprintf(pb->board_err, sizeof pb->board_err, "%d,%d is given twice", MOVE_X(m), MOVE_Y(m));
        return;
    }
    pb->in_grid[m] = (uint8_t)(*f - '0');
    if (*f == '1') pb->own[pb->in_own++] = m;
    else if (*f == '2') pb->opp[pb->in_opp++] = m;
    else pb->wall[pb->in_blocked++] = m;
}

static void board_done(Pbrain *pb)
{
    const char *cmd = pb->board_moves ? "BOARD" : "YXBOARD";
    pb->mode = MODE_COMMAND;
    if (pb->board_err[0]) {
        reply(pb, "ERROR %s: %s", cmd, pb->board_err);
        return;
    }
    Color own;
    if (pb->in_own == pb->in_opp) own = BLACK;
    else if (pb->in_opp == pb->in_own + 1) own = WHITE;
    else if (!pb->board_moves && pb->in_own == pb->in_opp + 1) own = BLACK; /* a diagram with white to move */
    else {
        reply(pb, "ERROR %s: %d own and %d opponent stones: the brain cannot be the side to move", cmd, pb->in_own,
              pb->in_opp);
        return;
    }
    clear_game(pb);
    pb->ordered = false;
    const Move *b = own == BLACK ? pb->own : pb->opp, *w = own == BLACK ? pb->opp : pb->own;
    pb->nblack = own == BLACK ? pb->in_own : pb->in_opp;
    pb->nwhite = own == BLACK ? pb->in_opp : pb->in_own;
    memcpy(pb->black, b, (size_t)pb->nblack * sizeof *b);
    memcpy(pb->white, w, (size_t)pb->nwhite * sizeof *w);
    for (int i = 0; i < pb->nblack; i++) pb->grid[pb->black[i]] = BLACK;
    for (int i = 0; i < pb->nwhite; i++) pb->grid[pb->white[i]] = WHITE;
    pb->nblocked = pb->in_blocked;
    for (int i = 0; i < pb->nblocked; i++) {
        pb->blocked[i] = pb->wall[i];
        pb->grid[pb->wall[i]] = PB_BLOCKED;
    }
    if (pb->board_moves) start_search(pb, 1);
}

static void cmd_about(Pbrain *pb, const char *args)
{
    (void)args;
    reply(pb, "name=\"%s\", version=\"%s\", author=\"%s\", country=\"%s\"", PB_NAME, GOMOKUD_VERSION, PB_AUTHOR,
          PB_COUNTRY);
}

static void cmd_info(Pbrain *pb, const char *args)
{
    char key[32], q[40];
    size_t k = 0;
    while (args[k] && !is_space(args[k]) && k + 1 < sizeof key) key[k] = args[k], k++;
    key[k] = 0;
    if (!k) {
        reply(pb, "ERROR INFO needs a key and a value");
        return;
    }
    const char *value = args + k;
    while (is_space(*value)) value++;

    static const char *const known[] = {"timeout_turn", "timeout_match", "time_left", "max_memory", "game_type",
                                        "rule",         "max_depth",     "max_node",  "book"};
    int which = -1;
    for (int i = 0; i < (int)(sizeof known / sizeof *known); i++)
        if (!strcasecmp(key, known[i])) which = i;
    if (which < 0) return; /* folder, evaluate and anything unknown: nothing to do */

    int64_t v;
    if (!parse_i64(value, &v)) {
        reply(pb, "ERROR INFO %s needs a whole number, not '%s'", known[which], quote(value, q, sizeof q));
        return;
    }
    bool may_be_negative = which == 6 || which == 7; /* Yixin sends -1 for "no limit" */
    if (v < 0 && !may_be_negative) {
        reply(pb, "ERROR INFO %s cannot be negative", known[which]);
        return;
    }
    switch (which) {
    case 0: pb->timeout_turn = v; break;
    case 1: pb->timeout_match = v; break;
    case 2: pb->time_left = v; break;
    case 3:
        pb->max_memory = (uint64_t)v;
        if (v && (uint64_t)v < ((uint64_t)PB_MEM_RESERVE_MIB + 2) << 20)
            reply(pb, "MESSAGE max_memory %lld is less than the brain needs; using the smallest table", (long long)v);
        /* make the table now, unless a search owns the engine: off the clock,
         * but a move request that came with this INFO waited for it, and
         * less_waited() charges that wait to the move */
        if (!pb->searching && !pb->job_pending) {
            int64_t t0 = now_ms();
            bool made;
            if (ensure_engine(pb, &made) && made) {
                pb->made_at = now_ms();
                pb->made_ms = pb->made_at - t0;
            }
        }
        break;
    case 4: break; /* game_type: nothing depends on it */
    case 5:
        if (v & ~7) {
            reply(pb, "ERROR INFO rule %lld is not supported (1 exactly five, 2 continuous, 4 renju)", (long long)v);
            return;
        }
        pb->rule_bits = (int)v;
        pb->rule = (v & 4) ? RULE_RENJU : (v & 1) ? RULE_STANDARD : RULE_FREESTYLE;
        break;
    case 6: pb->max_depth = v <= 0 ? 0 : v > ENGINE_MAX_DEPTH ? ENGINE_MAX_DEPTH : (int)v; break;
    case 7: pb->max_node = v <= 0 ? 0 : v; break;
    case 8: pb->use_book = v != 0; break;
    }
}

static void cmd_yxshowforbid(Pbrain *pb, const char *args)
{
    if (!no_args(pb, "YXSHOWFORBID", args) || !need_board(pb, "YXSHOWFORBID")) return;
    int n = snprintf(pb->out, sizeof pb->out, "FORBID ");
    if (pb->rule == RULE_RENJU && side_to_move(pb) == BLACK) {
        Move pts[BOARD_MAX_MOVES];
        build_scratch(pb);
        int k = rules_forbidden_points(&pb->scratch, pts);
        for (int i = 0; i < k; i++)
            if (pb->grid[pts[i]] == EMPTY && n + 6 < (int)sizeof pb->out)
                n += snprintf(pb->out + n, sizeof pb->out - (size_t)n, "%02d%02d", MOVE_X(pts[i]), MOVE_Y(pts[i]));
    }
    snprintf(pb->out + n, sizeof pb->out - (size_t)n, ".");
    pb->write(pb->ctx, pb->out);
}

static void cmd_yxnbest(Pbrain *pb, const char *args)
{
    int64_t n;
    if (!parse_i64(args, &n) || n < 1) {
        char q[40];
        reply(pb, "ERROR YXNBEST needs a number of lines of at least 1, not '%s'", quote(args, q, sizeof q));
        return;
    }
    if (!need_board(pb, "YXNBEST")) return;
    start_search(pb, n > ENGINE_MAX_MULTIPV ? ENGINE_MAX_MULTIPV : (int)n);
}

/* Handles one trimmed, non-empty line (lock held, no search running). */
static PbrainStatus process_line(Pbrain *pb, char *line)
{
    if (pb->mode == MODE_SWAP2) {
        if (!strcasecmp(line, "DONE")) swap2_done(pb);
        else if (!strcasecmp(line, "END")) return pb->quitting = true, PBRAIN_QUIT;
        else swap2_line(pb, line);
        return PBRAIN_CONTINUE;
    }
    if (pb->mode == MODE_BOARD) {
        if (!strcasecmp(line, "DONE")) board_done(pb);
        else if (!strcasecmp(line, "END")) return pb->quitting = true, PBRAIN_QUIT;
        else board_line(pb, line);
        return PBRAIN_CONTINUE;
    }
    if (!*line) {
        reply(pb, "ERROR line too long (more than %d characters)", PBRAIN_LINE_MAX);
        return PBRAIN_CONTINUE;
    }
    char *args = line;
    while (*args && !is_space(*args)) args++;
    if (*args) *args++ = 0;
    while (is_space(*args)) args++;

    if (!strcasecmp(line, "END")) return pb->quitting = true, PBRAIN_QUIT;
    if (!strcasecmp(line, "START")) cmd_start(pb, args);
    else if (!strcasecmp(line, "RECTSTART")) cmd_rectstart(pb, args);
    else if (!strcasecmp(line, "RESTART")) cmd_restart(pb, args);
    else if (!strcasecmp(line, "BEGIN")) cmd_begin(pb, args);
    else if (!strcasecmp(line, "TURN")) cmd_turn(pb, args);
    else if (!strcasecmp(line, "BOARD")) cmd_board(pb, args, true);
    else if (!strcasecmp(line, "YXBOARD")) cmd_board(pb, args, false);
    else if (!strcasecmp(line, "SWAP2BOARD")) {
        pb->mode = MODE_SWAP2;
        pb->in_swap2 = 0;
        pb->board_err[0] = 0;
        if (*args) snprintf(pb->board_err, sizeof pb->board_err, "SWAP2BOARD takes no argument");
        else if (!pb->size) snprintf(pb->board_err, sizeof pb->board_err, "no board yet, send START first");
    }
    else if (!strcasecmp(line, "TAKEBACK")) cmd_takeback(pb, args);
    else if (!strcasecmp(line, "ABOUT")) cmd_about(pb, args);
    else if (!strcasecmp(line, "INFO")) cmd_info(pb, args);
    else if (!strcasecmp(line, "YXSTOP")) (void)no_args(pb, "YXSTOP", args); /* nothing runs */
    else if (!strcasecmp(line, "YXSHOWFORBID")) cmd_yxshowforbid(pb, args);
    else if (!strcasecmp(line, "YXNBEST")) cmd_yxnbest(pb, args);
    else {
        char q[40];
        reply(pb, "UNKNOWN command '%s'", quote(line, q, sizeof q));
    }
    return PBRAIN_CONTINUE;
}

/* Handles queued lines until one starts a search (lock held). */
static void drain_queue(Pbrain *pb)
{
    while (pb->qcount && !pb->job_pending && !pb->quitting) {
        char *line = pb->queue[pb->qhead];
        pb->qhead = (pb->qhead + 1) % PB_QUEUE_MAX;
        pb->qcount--;
        process_line(pb, line);
        free(line);
    }
}

static void *worker_main(void *arg)
{
    Pbrain *pb = arg;
    pthread_mutex_lock(&pb->mu);
    for (;;) {
        while (!pb->job_pending && !pb->shutdown) pthread_cond_wait(&pb->wake, &pb->mu);
        if (pb->shutdown) break;
        pb->job_pending = false;
        pb->searching = true;
        pthread_mutex_unlock(&pb->mu);
        int index = -1;
        PositionError err = run_search(pb, &index);
        pthread_mutex_lock(&pb->mu);
        finish_search(pb, err, index);
        drain_queue(pb);
        if (!pb->job_pending) pthread_cond_broadcast(&pb->idle);
    }
    pb->searching = pb->job_pending = false;
    pthread_cond_broadcast(&pb->idle);
    pthread_mutex_unlock(&pb->mu);
    return NULL;
}

/* ---- public ----------------------------------------------------------- */

Pbrain *pbrain_new(const PbrainOptions *opt, PbrainWriteFn write, void *ctx)
{
    Pbrain *pb = calloc(1, sizeof *pb);
    if (!pb) return NULL;
    pb->write = write;
    pb->ctx = ctx;
    pb->threaded = opt && opt->threaded;
    pb->default_tt_mib = opt ? opt->tt_mib : 0;
    pb->book = opt ? opt->book : NULL;
    pb->use_book = true;
    pb->timeout_turn = PB_DEFAULT_TIMEOUT_TURN;
    pb->time_left = -1;
    pb->rule = RULE_FREESTYLE;
    pb->mode = MODE_COMMAND;
    atomic_init(&pb->stop, false);
    clear_game(pb);
    if (pthread_mutex_init(&pb->mu, NULL)) goto fail_mutex;
    if (pthread_cond_init(&pb->wake, NULL)) goto fail_wake;
    if (pthread_cond_init(&pb->idle, NULL)) goto fail_idle;
    if (pb->threaded) {
        pthread_attr_t attr;
        if (pthread_attr_init(&attr)) goto fail_thread;
        pthread_attr_setstacksize(&attr, ENGINE_THREAD_STACK);
        int rc = pthread_create(&pb->worker, &attr, worker_main, pb);
        pthread_attr_destroy(&attr);
        if (rc) goto fail_thread;
        pb->have_worker = true;
    }
    return pb;

fail_thread:
    pthread_cond_destroy(&pb->idle);
fail_idle:
    pthread_cond_destroy(&pb->wake);
fail_wake:
    pthread_mutex_destroy(&pb->mu);
fail_mutex:
    free(pb);
    return NULL;
}

void pbrain_free(Pbrain *pb)
{
    if (!pb) return;
    pthread_mutex_lock(&pb->mu);
    pb->quitting = pb->shutdown = true;
    atomic_store(&pb->stop, true);
    pthread_cond_broadcast(&pb->wake);
    pthread_mutex_unlock(&pb->mu);
    if (pb->have_worker) pthread_join(pb->worker, NULL);
    while (pb->qcount) {
        free(pb->queue[pb->qhead]);
        pb->qhead = (pb->qhead + 1) % PB_QUEUE_MAX;
        pb->qcount--;
    }
    engine_free(pb->engine);
    pthread_cond_destroy(&pb->idle);
    pthread_cond_destroy(&pb->wake);
    pthread_mutex_destroy(&pb->mu);
    free(pb);
}

/* The first word of line, for deciding what to do while a search runs. */
static bool first_word_is(const char *line, const char *word)
{
    size_t n = strlen(word);
    return !strncasecmp(line, word, n) && (!line[n] || is_space(line[n]));
}

PbrainStatus pbrain_feed(Pbrain *pb, const char *line)
{
    char buf[PBRAIN_LINE_MAX + 1];
    size_t len = line ? strnlen(line, PBRAIN_LINE_MAX + 3) : 0;
    const char *s = line ? line : "";
    while (len && (s[len - 1] == '\n' || s[len - 1] == '\r')) len--;
    bool too_long = len > PBRAIN_LINE_MAX;
    while (len && is_space(s[len - 1])) len--;
    while (len && is_space(*s)) s++, len--;
    if (too_long) strcpy(buf, PB_TOO_LONG);
    else {
        memcpy(buf, s, len);
        buf[len] = 0;
    }

    PbrainStatus st = PBRAIN_CONTINUE;
    pthread_mutex_lock(&pb->mu);
    if (pb->quitting) st = PBRAIN_QUIT;
    else if (!buf[0] && !too_long) {
        /* empty lines are ignored */
    } else if (pb->searching || pb->job_pending) {
        if (first_word_is(buf, "END")) {
            pb->quitting = true;
            atomic_store(&pb->stop, true);
            st = PBRAIN_QUIT;
        } else if (first_word_is(buf, "YXSTOP")) {
            atomic_store(&pb->stop, true);
        } else if (!pb->qcount && (first_word_is(buf, "INFO") || first_word_is(buf, "ABOUT"))) {
            process_line(pb, buf);
        } else if (pb->qcount == PB_QUEUE_MAX) {
            reply(pb, "ERROR busy: too many commands while thinking, line dropped");
        } else {
            char *copy = strdup(buf);
            if (!copy) reply(pb, "ERROR out of memory, line dropped");
            else {
                pb->queue[(pb->qhead + pb->qcount) % PB_QUEUE_MAX] = copy;
                pb->qcount++;
            }
        }
    } else {
        st = process_line(pb, buf);
        /* without a worker, search here */
        while (!pb->have_worker && pb->job_pending) {
            pb->job_pending = false;
            pb->searching = true;
            pthread_mutex_unlock(&pb->mu);
            int index = -1;
            PositionError err = run_search(pb, &index);
            pthread_mutex_lock(&pb->mu);
            finish_search(pb, err, index);
        }
    }
    pthread_mutex_unlock(&pb->mu);
    return st;
}

void pbrain_wait(Pbrain *pb)
{
    pthread_mutex_lock(&pb->mu);
    while (pb->have_worker && (pb->searching || pb->job_pending) && !pb->shutdown)
        pthread_cond_wait(&pb->idle, &pb->mu);
    pthread_mutex_unlock(&pb->mu);
}

bool pbrain_busy(Pbrain *pb)
{
    pthread_mutex_lock(&pb->mu);
    bool busy = pb->searching || pb->job_pending;
    pthread_mutex_unlock(&pb->mu);
    return busy;
}

size_t pbrain_tt_bytes(Pbrain *pb)
{
    pthread_mutex_lock(&pb->mu);
    size_t n = pb->engine ? engine_tt_bytes(pb->engine) : 0;
    pthread_mutex_unlock(&pb->mu);
    return n;
}
