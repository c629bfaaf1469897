/*
 * train_eval.c - fits the evaluation's code tables to self-play games and
 * writes engine/eval_tables.c (`make train`).
 *
 *   build/bin/train-eval --out engine/eval_tables.c [--iterations N] [--l2 X] GAMES...
 *   build/bin/train-eval --out engine/eval_tables.c --prior
 *
 * GAMES are files of build/bin/gen-data (`make selfplay-data`): one game per
 * line. Every quiet position of a game after its opening (no five, straight
 * four or four-three point for either side: the search settles those) is a
 * sample: the result for the side to move (1, 0.5, 0), and per code how many
 * empty points hold it for the side to move and for the other side.
 *
 * The model is the engine's evaluation itself:
 *   v = sum over points of V[set(me)][MOVER][code_me] - V[set(op)][WAITER][code_op] + tempo[set(me)]
 * and the predicted score sigmoid(v / S). S is fitted first with the prior
 * (below), so the fitted values stay on the scale the search's margins were
 * set in; then every value is fitted by Adam on the cross-entropy, with an
 * L2 pull towards the prior, so that a code the games rarely show keeps
 * about its prior value. One game in twenty is held out and both losses are
 * printed.
 *
 * The prior is the additive evaluation the codes replaced: a point's value
 * is the sum of its four direction patterns' weights plus the weight of the
 * threat level they combine into (hand-set, then fitted to results as a
 * linear model). --prior writes it alone (the tables then reproduce that
 * evaluation exactly).
 *
 * With --fit-mask the threat-mask values (eval.h: a value per mover's set
 * and the yes/no threat flags of both sides) are fitted too, on every
 * position the search can stand pat on (four-threes allowed); --mask-only
 * fits them alone. --from-current starts from the built-in tables instead
 * of the prior (the sets not fitted keep them). --scale S fixes S instead
 * of fitting it, so that sets fitted apart share one scale.
 *
 * Codes without shape (every direction dead, an overline, or a lone stone)
 * stay at 0: their counts grow with the stones for both sides alike, and
 * values that differed between the roles would make the evaluation drift
 * with the move number. In renju, black's certainly forbidden points (an
 * overline or a double four) are worth nothing to black.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/board.h"
#include "engine/eval.h"
#include "engine/rules.h"

#define HOLD_OUT 20 /* one game in HOLD_OUT is for validation */
#define DEFAULT_ITERATIONS 600
#define DEFAULT_L2 2e-7
#define DEFAULT_LAMBDA 0.5 /* weight of the result against the search's score */
#define LEARNING_RATE 1.0
#define POLICY_RATE 2.0
#define NVALUES (EVAL_SETS * EVAL_ROLES * PATTERN_CODES)
#define MASK_RATE 8.0 /* the tempo and threat-mask values are fewer and larger: a larger step */
#define MASK_L2_FACTOR 0.01 /* a mask value's gradient has no per-point counts in it: less pull */
#define NMASK_FIRST (NVALUES + EVAL_SETS)
#define NPARAMS (NMASK_FIRST + EVAL_SETS * EVAL_MASKS) /* the values, the tempo per set, the threat-mask values */

/* The additive prior: per direction pattern and per threat level, for the
 * side to move and for the side that waits. */
static const int own_pattern[P_COUNT] = {
    [P_B2] = 3, [P_F2] = 13, [P_F2A] = 11, [P_B3] = 17, [P_F3] = 37, [P_F3S] = 46, [P_B4] = 41, [P_F4] = 88,
    [P_F44] = 88, [P_F5] = 150,
};
static const int opp_pattern[P_COUNT] = {
    [P_F2] = 10, [P_F2A] = 3, [P_B3] = 14, [P_F3] = 29, [P_F3S] = 36, [P_B4] = 33, [P_F4] = 70, [P_F44] = 70,
    [P_F5] = 120,
};
static const int own_threat[T_COUNT] = {
    [T_F2] = -6, [T_B3] = 2, [T_F2X2] = 14, [T_F3] = 1, [T_F3P] = 39, [T_B4P] = 50, [T_F3X2] = 150,
    [T_B4F3] = 250, [T_F4] = 313,
};
static const int opp_threat[T_COUNT] = {
    [T_F2] = -6, [T_B3] = 1, [T_F2X2] = 10, [T_F3] = 1, [T_F3P] = 30, [T_B4P] = 40, [T_F3X2] = 120,
    [T_B4F3] = 200, [T_F4] = 250,
};
/* The policy's prior: the ordering weights by threat level the tables
 * replaced, for the threat a move makes and for the opponent's it blocks. */
static const int own_weight[T_COUNT] = {
    [T_NONE] = 0,     [T_LOW] = 4,     [T_F2] = 20,    [T_B3] = 24,     [T_F2X2] = 60,
    [T_F3] = 120,     [T_F3P] = 200,   [T_B4] = 150,   [T_B4P] = 260,   [T_F3X2] = 2000,
    [T_B4F3] = 8000,  [T_F4] = 30000,  [T_FIVE] = 1000000, [T_FORBID] = 0,
};
static const int block_weight[T_COUNT] = {
    [T_NONE] = 0,     [T_LOW] = 2,     [T_F2] = 12,    [T_B3] = 14,     [T_F2X2] = 40,
    [T_F3] = 90,      [T_F3P] = 150,   [T_B4] = 110,   [T_B4P] = 200,   [T_F3X2] = 1500,
    [T_B4F3] = 6000,  [T_F4] = 20000,  [T_FIVE] = 500000, [T_FORBID] = 0,
};
#define CENTRE_WEIGHT 1 /* movegen's tie-break, per step nearer the centre */
#define PRIOR_TEMPO 8
#define PRIOR_SCALE 2000.0 /* S of this prior on the first 1,263 games of gen-data */

static int vindex(int set, int role, unsigned code) { return (set * PATTERN_CODES + (int)code) * EVAL_ROLES + role; }
static int mindex(int set, unsigned mask) { return NMASK_FIRST + set * EVAL_MASKS + (int)mask; }

static uint16_t code_pat4(unsigned code)
{
    Pattern p[4];
    pattern_code_patterns(code, p);
    return (uint16_t)(p[0] | p[1] << 4 | p[2] << 8 | p[3] << 12);
}

static double prior_value(int set, int role, unsigned code)
{
    Pattern p[4];
    pattern_code_patterns(code, p);
    const int *pw = role == EVAL_MOVER ? own_pattern : opp_pattern;
    const int *tw = role == EVAL_MOVER ? own_threat : opp_threat;
    double v = 0;
    for (int d = 0; d < 4; d++) v += pw[p[d]];
    return v + tw[threat_of(code_pat4(code), set == EVAL_SET_RENJU_BLACK)];
}

#define NPOLICY (EVAL_SETS * PATTERN_CODES * 2)

static int pindex(int set, unsigned code, int kind) { return (set * PATTERN_CODES + (int)code) * 2 + kind; }

static double prior_policy(int set, unsigned code, int kind)
{
    /* the defender's code is the opponent's: in renju the mover white blocks black's threats */
    bool renju_black = kind == POLICY_ATTACK ? set == EVAL_SET_RENJU_BLACK : set == EVAL_SET_RENJU_WHITE;
    Threat t = threat_of(code_pat4(code), renju_black);
    return kind == POLICY_ATTACK ? own_weight[t] : block_weight[t];
}

/* Values fixed at their start: no shape, or a point black may not take. */
static bool frozen(int set, unsigned code, bool trained)
{
    Pattern p[4];
    pattern_code_patterns(code, p);
    if (p[3] <= P_F1) return true; /* ascending: the best direction is p[3] */
    return trained && set == EVAL_SET_RENJU_BLACK && threat_of(code_pat4(code), true) == T_FORBID;
}

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* Codes of twos and less: on most empty points near the stones. Values that
 * differed between the roles there would swing the evaluation from one ply
 * to the next by dozens of points at once (the search paid for it with 60%
 * more nodes to the same depth), so their two roles move together. */
static bool weak_code(unsigned code)
{
    Pattern p[4];
    pattern_code_patterns(code, p);
    return p[3] < P_B3;
}

/* ---- samples ------------------------------------------------------------- */

typedef struct {
    uint32_t index;
    int32_t coef;
} Term;

typedef struct {
    float y;      /* the target: the result, or its blend with the search's score */
    float result; /* the game's result for the side to move */
    float score;  /* the search's score at the position (gen-data), if has_score */
    uint32_t first, n; /* terms[first .. first + n) */
    bool held_out, has_score;
    bool score_only; /* a leaf position (gen-data --leaves): no result, the score is the target */
} Sample;

static Term *terms;
static size_t nterms, cap_terms;
static Sample *samples;
static size_t nsamples, cap_samples;
static long ngames;

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    void *q = realloc(p, c * size);
    if (!q) {
        fprintf(stderr, "train-eval: out of memory\n");
        exit(1);
    }
    *cap = c;
    return q;
}

static void add_term(uint32_t index, int32_t coef)
{
    terms = grow(terms, &cap_terms, nterms + 1, sizeof *terms);
    terms[nterms++] = (Term){index, coef};
}

/* Policy samples: the candidates of a position (their attack and defence
 * entries and centre bonus) and which of them the search chose. */
typedef struct {
    uint32_t att, def;
    float fixed;
} Cand;

typedef struct {
    uint32_t first, n, chosen;
    bool held_out;
} PSample;

static double policy_summary[4], policy_prior_summary[4];
static Cand *cands;
static size_t ncands, cap_cands;
static PSample *psamples;
static size_t npsamples, cap_psamples;

static void add_policy_sample(Board *b, Move chosen, bool held_out)
{
    int set = eval_set(b->rule, b->to_move), me = b->to_move - 1;
    size_t first = ncands;
    int pick = -1, n = 0;
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            Move m = MOVE_XY(x, y);
            if (!board_candidate(b, m) || !rules_is_legal(b, m)) continue;
            const Cell *c = &b->cell[m];
            int dx = abs(x - b->size / 2), dy = abs(y - b->size / 2);
            cands = grow(cands, &cap_cands, ncands + 1, sizeof *cands);
            cands[ncands++] = (Cand){(uint32_t)pindex(set, c->code[me], POLICY_ATTACK),
                                     (uint32_t)pindex(set, c->code[1 - me], POLICY_DEFEND),
                                     (float)(CENTRE_WEIGHT * (BOARD_MAX_SIZE - (dx > dy ? dx : dy)))};
            if (m == chosen) pick = n;
            n++;
        }
    if (pick < 0 || n < 2) { /* the choice was no candidate, or there was no choice */
        ncands = first;
        return;
    }
    psamples = grow(psamples, &cap_psamples, npsamples + 1, sizeof *psamples);
    psamples[npsamples++] = (PSample){(uint32_t)first, (uint32_t)n, (uint32_t)pick, held_out};
}

/* The positions that are samples: with the threat mask fitted, every one
 * the search can stand pat on (no five and no straight four to make for
 * either side); else only quiet ones (no four-three either). */
static bool fit_mask;

static bool sample_position(const Board *b)
{
    for (int c = 0; c < 2; c++)
        if (b->tcount[c][T_FIVE] || b->tcount[c][T_F4] || (!fit_mask && b->tcount[c][T_B4F3])) return false;
    return true;
}

static void add_sample(const Board *b, double y, bool held_out, bool has_score, double score, bool score_only)
{
    static int count[2][PATTERN_CODES];
    static unsigned seen[2][BOARD_MAX_MOVES];
    int nseen[2] = {0, 0};
    int me = b->to_move - 1, op = 1 - me;
    int set[2] = {eval_set(b->rule, b->to_move), eval_set(b->rule, OPPONENT(b->to_move))};
    size_t first = nterms;
    for (int y0 = 0; y0 < b->size; y0++)
        for (int x0 = 0; x0 < b->size; x0++) {
            const Cell *c = &b->cell[MOVE_XY(x0, y0)];
            if (c->stone != EMPTY) continue;
            for (int r = 0; r < 2; r++) {
                unsigned code = c->code[r == 0 ? me : op];
                if (!count[r][code]++) seen[r][nseen[r]++] = code;
            }
        }
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < nseen[r]; i++) {
            unsigned code = seen[r][i];
            int role = r == 0 ? EVAL_MOVER : EVAL_WAITER;
            if (!frozen(set[r], code, false)) add_term((uint32_t)vindex(set[r], role, code), r == 0 ? count[r][code] : -count[r][code]);
            count[r][code] = 0;
        }
    add_term((uint32_t)(NVALUES + set[0]), 1);
    add_term((uint32_t)mindex(set[0], eval_threat_mask(b)), 1);
    samples = grow(samples, &cap_samples, nsamples + 1, sizeof *samples);
    samples[nsamples++] = (Sample){(float)y, (float)y, (float)score, (uint32_t)first, (uint32_t)(nterms - first),
                                   held_out, has_score, score_only};
}

static void load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "train-eval: cannot open %s\n", path);
        exit(1);
    }
    static char line[8192];
    static Board b;
    while (fgets(line, sizeof line, f)) {
        char rule_s[16], res;
        int first, off;
        Rule rule;
        if (sscanf(line, "%15s %c %d%n", rule_s, &res, &first, &off) != 3 || !rule_parse(rule_s, &rule)) continue;
        board_reset(&b, 15, rule);
        bool held_out = ngames++ % HOLD_OUT == HOLD_OUT - 1;
        int ply = 0;
        for (char *save = NULL, *tok = strtok_r(line + off, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
            char *slash = strchr(tok, '/');
            if (slash) *slash = 0;
            Move m = move_parse(tok, 15);
            if (m == MOVE_NONE || !board_empty(&b, m)) break;
            if (ply >= first && sample_position(&b)) {
                double y = res == 'D' || res == 'S' ? 0.5 : (res == 'B') == (b.to_move == BLACK) ? 1.0 : 0.0;
                add_sample(&b, y, held_out, slash != NULL, slash ? atof(slash + 1) : 0, res == 'S');
                if (slash) add_policy_sample(&b, m, held_out); /* a move of the engine's, not the opening's */
            }
            board_play(&b, m);
            ply++;
        }
    }
    fclose(f);
}

/* ---- the fit ------------------------------------------------------------- */


static double value_of(const double *w, const Sample *s)
{
    double v = 0;
    for (uint32_t i = 0; i < s->n; i++) v += w[terms[s->first + i].index] * terms[s->first + i].coef;
    if (v > EVAL_MAX) v = EVAL_MAX;
    if (v < -EVAL_MAX) v = -EVAL_MAX;
    return v;
}

static double cross_entropy(double y, double p)
{
    const double eps = 1e-9;
    return -(y * log(p + eps) + (1 - y) * log(1 - p + eps));
}

/* Mean cross-entropy over the training or the held-out samples; with grad,
 * also its gradient (training samples only). */
static double loss(const double *w, double scale, bool held_out, double *grad)
{
    double total = 0;
    size_t n = 0;
    if (grad) memset(grad, 0, NPARAMS * sizeof *grad);
    for (size_t k = 0; k < nsamples; k++) {
        const Sample *s = &samples[k];
        if (s->held_out != held_out) continue;
        double p = sigmoid(value_of(w, s) / scale);
        total += cross_entropy(held_out ? s->result : s->y, p); /* held out: against the results alone */
        n++;
        if (grad) {
            double g = (p - s->y) / scale;
            for (uint32_t i = 0; i < s->n; i++) grad[terms[s->first + i].index] += g * terms[s->first + i].coef;
        }
    }
    if (grad)
        for (int i = 0; i < NPARAMS; i++) grad[i] /= n ? (double)n : 1;
    return n ? total / (double)n : 0;
}

/* The x in [lo, hi] that minimises f(w, x), by golden-section search. */
static double golden_min(double (*f)(const double *, double), const double *w, double lo, double hi)
{
    for (int i = 0; i < 60; i++) {
        double a = hi - (hi - lo) / 1.618, b = lo + (hi - lo) / 1.618;
        if (f(w, a) < f(w, b)) hi = b;
        else lo = a;
    }
    return (lo + hi) / 2;
}

/* One Adam step (iteration it, from 1) of the value *w with gradient g. */
static void adam_step(double *w, double g, double *m1, double *m2, int it, double rate)
{
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    *m1 = b1 * *m1 + (1 - b1) * g;
    *m2 = b2 * *m2 + (1 - b2) * g * g;
    *w -= rate * (*m1 / (1 - pow(b1, it))) / (sqrt(*m2 / (1 - pow(b2, it))) + eps);
}

static double train_loss(const double *w, double scale) { return loss(w, scale, false, NULL); }

/* S: the scale at which the values best predict the training results. */
static double fit_scale(const double *w) { return golden_min(train_loss, w, 20, 3000); }

/* Mean cross-entropy of the softmax over each position's candidates
 * (logits = score / temp) against the chosen move, and the share of
 * positions whose chosen move scores highest; with grad, its gradient. */
static double policy_loss(const double *p, double temp, bool held_out, double *grad, double *top1)
{
    double total = 0;
    size_t n = 0, hits = 0;
    static double z[BOARD_MAX_MOVES];
    if (grad) memset(grad, 0, NPOLICY * sizeof *grad);
    for (size_t k = 0; k < npsamples; k++) {
        const PSample *s = &psamples[k];
        if (s->held_out != held_out) continue;
        const Cand *c = &cands[s->first];
        double zmax = -1e300, sum = 0;
        for (uint32_t i = 0; i < s->n; i++) {
            z[i] = (p[c[i].att] + p[c[i].def] + c[i].fixed) / temp;
            if (z[i] > zmax) zmax = z[i];
        }
        bool top = true;
        for (uint32_t i = 0; i < s->n; i++) {
            top &= i == s->chosen || z[i] < z[s->chosen];
            sum += exp(z[i] - zmax);
        }
        hits += top;
        total += -(z[s->chosen] - zmax - log(sum));
        n++;
        if (grad)
            for (uint32_t i = 0; i < s->n; i++) {
                double g = (exp(z[i] - zmax) / sum - (i == s->chosen)) / temp;
                grad[c[i].att] += g;
                grad[c[i].def] += g;
            }
    }
    if (grad)
        for (int i = 0; i < NPOLICY; i++) grad[i] /= n ? (double)n : 1;
    if (top1) *top1 = n ? (double)hits / (double)n : 0;
    return n ? total / (double)n : 0;
}

static double policy_train_loss(const double *p, double temp) { return policy_loss(p, temp, false, NULL, NULL); }

/* Fits the policy by Adam from its prior p0 into p, keeping the values with
 * the best held-out loss; prints the losses and top-1 rates. */
static void fit_policy(const double *p0, double *p, int iterations, double l2)
{
    static double grad[NPOLICY], m1[NPOLICY], m2[NPOLICY], best[NPOLICY];
    memcpy(p, p0, NPOLICY * sizeof *p);
    double temp = golden_min(policy_train_loss, p, 1, 2000), top_t, top_v;
    double lt = policy_loss(p, temp, false, NULL, &top_t), lv = policy_loss(p, temp, true, NULL, &top_v);
    fprintf(stderr, "train-eval: policy: %zu positions, temperature %.1f; prior loss %.4f / held out %.4f, top-1 %.3f / %.3f\n",
            npsamples, temp, lt, lv, top_t, top_v);
    policy_prior_summary[0] = lt, policy_prior_summary[1] = lv, policy_prior_summary[2] = top_t,
    policy_prior_summary[3] = top_v;
    double best_val = lv;
    memcpy(best, p, sizeof best);
    for (int it = 1; it <= iterations; it++) {
        lt = policy_loss(p, temp, false, grad, NULL);
        for (int i = 0; i < NPOLICY; i++)
            adam_step(&p[i], grad[i] + 2 * l2 * (p[i] - p0[i]), &m1[i], &m2[i], it, POLICY_RATE);
        if (it % 25 == 0 || it == iterations) {
            lv = policy_loss(p, temp, true, NULL, &top_v);
            fprintf(stderr, "train-eval: policy iteration %d: loss %.4f, held out %.4f, top-1 %.3f\n", it, lt, lv, top_v);
            if (lv < best_val) {
                best_val = lv;
                memcpy(best, p, sizeof best);
            }
        }
    }
    memcpy(p, best, sizeof best);
    lt = policy_loss(p, temp, false, NULL, &top_t);
    lv = policy_loss(p, temp, true, NULL, &top_v);
    fprintf(stderr, "train-eval: policy kept: loss %.4f / held out %.4f, top-1 %.3f / %.3f\n", lt, lv, top_t, top_v);
    policy_summary[0] = lt, policy_summary[1] = lv, policy_summary[2] = top_t, policy_summary[3] = top_v;
}

/* ---- output -------------------------------------------------------------- */

static int value_pair(int set, unsigned code, int role) { return vindex(set, role, code); }

/* Writes a table of value pairs per set and code, index(set, code, k)
 * giving the k-th value of a pair, rounded. */
static void write_pairs(FILE *f, const char *decl, const char *set_suffix, const double *v,
                        int (*index)(int, unsigned, int))
{
    static const char *set_names[EVAL_SETS] = {"freestyle", "standard", "renju black", "renju white"};
    fprintf(f, "%s = {\n", decl);
    for (int s = 0; s < EVAL_SETS; s++) {
        fprintf(f, "    { /* %s%s */", set_names[s], set_suffix);
        for (unsigned c = 0; c < PATTERN_CODES; c++) {
            if (c % 8 == 0) fprintf(f, "\n       ");
            fprintf(f, " {%ld, %ld},", lround(v[index(s, c, 0)]), lround(v[index(s, c, 1)]));
        }
        fprintf(f, "\n    },\n");
    }
    fprintf(f, "};\n");
}

static void write_tables(const char *path, const double *w, const double *pol, int argc, char **argv, double scale, double l_train0,
                         double l_val0, double l_train, double l_val, size_t ntrain, size_t nval)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "train-eval: cannot write %s\n", path);
        exit(1);
    }
    fprintf(f, "/* eval_tables.c - generated by tools/train_eval.c; do not edit.\n *\n *   train-eval");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *slash = strrchr(a, '/');
        fprintf(f, " %s", a[0] == '/' && slash ? slash + 1 : a); /* no machine paths */
    }
    if (nsamples)
        fprintf(f,
                "\n *\n * %ld games, %zu training and %zu held-out positions; win rate scale S = %.1f.\n"
                " * Cross-entropy, training / held out: prior %.5f / %.5f, fitted %.5f / %.5f.\n */\n",
                ngames, ntrain, nval, scale, l_train0, l_val0, l_train, l_val);
    if (npsamples)
        fprintf(f,
                "/* Policy: %zu positions with the move the search chose. Cross-entropy, training / held out:\n"
                " * prior %.4f / %.4f, fitted %.4f / %.4f; the chosen move ranked first: prior %.3f / %.3f,\n"
                " * fitted %.3f / %.3f.\n */\n",
                npsamples, policy_prior_summary[0], policy_prior_summary[1], policy_summary[0], policy_summary[1],
                policy_prior_summary[2], policy_prior_summary[3], policy_summary[2], policy_summary[3]);
    else
        fprintf(f, "\n *\n * The prior alone: the additive evaluation the codes replaced.\n */\n");
    fprintf(f, "#include \"eval_tables.h\"\n\n");
    fprintf(f, "/* {side to move, side waiting} per code */\n");
    write_pairs(f, "const int16_t eval_code_value[EVAL_SETS][PATTERN_CODES][EVAL_ROLES]", "", w, value_pair);
    fprintf(f, "\nconst int16_t eval_tempo[EVAL_SETS] = {");
    for (int s = 0; s < EVAL_SETS; s++) fprintf(f, "%s%ld", s ? ", " : "", lround(w[NVALUES + s]));
    fprintf(f, "};\n\n/* by mover's set and threat mask (eval_threat_mask); the masks not listed are 0 */\n");
    fprintf(f, "const int16_t eval_threat_value[EVAL_SETS][EVAL_MASKS] = {\n");
    for (int s = 0; s < EVAL_SETS; s++) {
        int k = 0;
        fprintf(f, "    [%d] = {", s);
        for (unsigned m = 0; m < EVAL_MASKS; m++)
            if (lround(w[mindex(s, m)])) fprintf(f, "%s[%u] = %ld,", k++ % 6 ? " " : "\n        ", m, lround(w[mindex(s, m)]));
        fprintf(f, "%s},\n", k ? "\n    " : "0");
    }
    fprintf(f, "};\n\n/* {attack, defence} per code */\n");
    write_pairs(f, "const int32_t eval_policy[EVAL_SETS][PATTERN_CODES][2]", " to move", pol, pindex);
    fprintf(f, "\nconst double eval_winrate_scale = %.1f;\n", scale);
    fclose(f);
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    bool prior_only = false, tie_roles = false, strong_only = false, from_current = false, mask_only = false;
    unsigned fit_sets = (1u << EVAL_SETS) - 1; /* --fit-sets: the others keep the prior */
    int iterations = DEFAULT_ITERATIONS, policy_iterations = DEFAULT_ITERATIONS;
    double l2 = DEFAULT_L2, lambda = DEFAULT_LAMBDA, fixed_scale = 0;
    int first_file = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--prior")) prior_only = true;
        else if (!strcmp(argv[i], "--tie-roles")) tie_roles = true;
        else if (!strcmp(argv[i], "--strong-only")) strong_only = true;
        else if (!strcmp(argv[i], "--from-current")) from_current = true;
        else if (!strcmp(argv[i], "--fit-mask")) fit_mask = true;
        else if (!strcmp(argv[i], "--mask-only")) fit_mask = mask_only = true;
        else if (!strcmp(argv[i], "--fit-sets") && i + 1 < argc) {
            fit_sets = 0;
            static const char *const names[EVAL_SETS] = {"freestyle", "standard", "renju-black", "renju-white"};
            for (int k = 0; k < EVAL_SETS; k++)
                if (strstr(argv[i + 1], names[k])) fit_sets |= 1u << k;
            i++;
        }
        else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--policy-iterations") && i + 1 < argc) policy_iterations = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--l2") && i + 1 < argc) l2 = atof(argv[++i]);
        else if (!strcmp(argv[i], "--lambda") && i + 1 < argc) lambda = atof(argv[++i]);
        else if (!strcmp(argv[i], "--scale") && i + 1 < argc) fixed_scale = atof(argv[++i]);
        else if (argv[i][0] == '-') {
            fprintf(stderr, "train-eval: unknown argument %s\n", argv[i]);
            return 2;
        } else {
            first_file = i;
            break;
        }
    }
    if (!out || (!prior_only && first_file == argc) || iterations < 0) {
        fprintf(stderr, "usage: train-eval --out FILE [--iterations N] [--l2 X] [--lambda X] [--fit-sets SETS] [--strong-only]\n"
                        "                  [--tie-roles] [--fit-mask | --mask-only] [--from-current] [--scale S]\n"
                        "                  [--policy-iterations N] GAMES...\n"
                        "       train-eval --out FILE --prior\n");
        return 2;
    }
    if (!board_init_tables()) return 1;
    static double w0[NPARAMS], w[NPARAMS], grad[NPARAMS], m1[NPARAMS], m2[NPARAMS];
    for (int s = 0; s < EVAL_SETS; s++) {
        for (int r = 0; r < EVAL_ROLES; r++)
            for (unsigned c = 0; c < PATTERN_CODES; c++)
                w0[vindex(s, r, c)] = frozen(s, c, false) ? 0 : prior_value(s, r, c);
        w0[NVALUES + s] = PRIOR_TEMPO;
    }
    if (from_current) /* the built-in tables, not the prior */
        for (int s = 0; s < EVAL_SETS; s++) {
            for (int r = 0; r < EVAL_ROLES; r++)
                for (unsigned c = 0; c < PATTERN_CODES; c++) w0[vindex(s, r, c)] = eval_code_value[s][c][r];
            w0[NVALUES + s] = eval_tempo[s];
            for (unsigned m = 0; m < EVAL_MASKS; m++) w0[mindex(s, m)] = eval_threat_value[s][m];
        }
    memcpy(w, w0, sizeof w);
    static double p0[NPOLICY], pol[NPOLICY];
    for (int s = 0; s < EVAL_SETS; s++)
        for (unsigned c = 0; c < PATTERN_CODES; c++)
            for (int k = 0; k < 2; k++) p0[pindex(s, c, k)] = from_current ? eval_policy[s][c][k] : prior_policy(s, c, k);
    if (prior_only) {
        write_tables(out, w, p0, argc, argv, PRIOR_SCALE, 0, 0, 0, 0, 0, 0);
        return 0;
    }
    for (int i = first_file; i < argc; i++) load(argv[i]);
    size_t nval = 0;
    for (size_t k = 0; k < nsamples; k++) nval += samples[k].held_out;
    fprintf(stderr, "train-eval: %ld games, %zu positions (%zu held out), %zu terms\n", ngames, nsamples, nval,
            nterms);
    if (nsamples == nval || nval == 0) {
        fprintf(stderr, "train-eval: too few games\n");
        return 1;
    }
    /* forbidden points of black: nothing, from the start (when that set is fitted) */
    for (int r = 0; r < EVAL_ROLES && (fit_sets >> EVAL_SET_RENJU_BLACK & 1); r++)
        for (unsigned c = 0; c < PATTERN_CODES; c++)
            if (frozen(EVAL_SET_RENJU_BLACK, c, true)) w[vindex(EVAL_SET_RENJU_BLACK, r, c)] = w0[vindex(EVAL_SET_RENJU_BLACK, r, c)] = 0;
    size_t leaves = 0;
    for (size_t k = 0; k < nsamples; k++) leaves += samples[k].score_only;
    if (leaves && fixed_scale <= 0) {
        fprintf(stderr, "train-eval: leaf positions need --scale (their targets are scores)\n");
        return 2;
    }
    double scale = fixed_scale > 0 ? fixed_scale : fit_scale(w);
    /* the targets: where the search's score is known, the result blended
     * with the score's win rate on the prior's scale */
    size_t scored = 0;
    for (size_t k = 0; k < nsamples; k++) {
        Sample *s = &samples[k];
        if (!s->has_score) continue;
        if (s->score_only) s->result = (float)sigmoid(s->score / scale);
        s->y = s->score_only ? s->result : (float)(lambda * s->result + (1 - lambda) * sigmoid(s->score / scale));
        scored++;
    }
    fprintf(stderr, "train-eval: %zu positions with a search score (%zu leaves: the score alone), lambda %.2f\n", scored,
            leaves, lambda);
    double lt0 = loss(w, scale, false, NULL), lv0 = loss(w, scale, true, NULL);
    fprintf(stderr, "train-eval: S = %.1f; prior loss %.5f / held out %.5f\n", scale, lt0, lv0);
    /* the values that move: their set is fitted, and they have shape (and
     * with --strong-only a closed three or more); the threat-mask values
     * with --fit-mask, and with --mask-only nothing else */
    static bool fitted[NPARAMS];
    for (int i = 0; i < NPARAMS; i++) {
        int set = i < NVALUES ? i / (EVAL_ROLES * PATTERN_CODES) : i < NMASK_FIRST ? i - NVALUES : (i - NMASK_FIRST) / EVAL_MASKS;
        unsigned code = (unsigned)(i / EVAL_ROLES % PATTERN_CODES);
        fitted[i] = (fit_sets >> set & 1) &&
                    (i >= NMASK_FIRST ? fit_mask && (i - NMASK_FIRST) % EVAL_MASKS /* mask 0: the tempo's */
                     : !mask_only && (i >= NVALUES || (!frozen(set, code, true) && !(strong_only && weak_code(code)))));
    }
    double best_val = lv0;
    static double best[NPARAMS];
    memcpy(best, w, sizeof w);
    for (int it = 1; it <= iterations; it++) {
        double lt = loss(w, scale, false, grad);
        /* one change for both roles (the sum of their gradients): for every
         * code with --tie-roles, else for the codes below a closed three */
        for (int i = 0; i < NVALUES; i += EVAL_ROLES)
            if (tie_roles || weak_code((unsigned)(i / EVAL_ROLES % PATTERN_CODES))) grad[i] = grad[i + 1] = grad[i] + grad[i + 1];
        for (int i = 0; i < NPARAMS; i++)
            if (fitted[i])
                adam_step(&w[i], grad[i] + 2 * l2 * (i >= NMASK_FIRST ? MASK_L2_FACTOR : 1) * (w[i] - w0[i]), &m1[i], &m2[i], it,
                          i >= NVALUES ? MASK_RATE : LEARNING_RATE);
        if (it % 25 == 0 || it == iterations) {
            double lv = loss(w, scale, true, NULL);
            fprintf(stderr, "train-eval: iteration %d: loss %.5f, held out %.5f\n", it, lt, lv);
            if (lv < best_val) {
                best_val = lv;
                memcpy(best, w, sizeof w);
            }
        }
    }
    /* the values the held-out games liked best (early stopping) */
    double lt = loss(best, scale, false, NULL), lv = loss(best, scale, true, NULL);
    fprintf(stderr, "train-eval: kept: loss %.5f, held out %.5f\n", lt, lv);
    /* the win rate's S: refitted on the kept values (close to S) */
    double wscale = fixed_scale > 0 ? fixed_scale : fit_scale(best);
    fprintf(stderr, "train-eval: win rate scale %.1f\n", wscale);
    fit_policy(p0, pol, policy_iterations, l2);
    write_tables(out, best, pol, argc, argv, wscale, lt0, lv0, lt, lv, nsamples - nval, nval);
    return 0;
}
