/* render.c - board pictures: the scene model and its SVG, PNG (cairo) and
 * GIF (cairo + giflib) back ends; see render.h. */
#include "server/render.h"

#include <cairo/cairo.h>
#include <gif_lib.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/board.h"
#include "engine/rules.h"

/* Geometry, in cells (the distance between two lines). */
#define PAD 0.75           /* board beyond the outer lines */
#define COORD_BAND 0.9     /* room for the coordinates, left and below */
#define MIN_WINDOW 5       /* a cropped picture shows at least this many lines */
#define STONE_R 0.46
#define PV_R 0.40         /* PV stones are smaller than played ones */
#define GRID_W 0.035
#define EDGE_W 0.07
#define STAR_R 0.1
#define NUMBER_H 0.36      /* text height of a move number (3 digits: smaller) */
#define COORD_H 0.34
#define WINRATE_H 0.24
#define LAST_R 0.13
#define CROSS 0.2
#define GRAIN_LINES 22
#define GRAIN_POINTS 28
#define PV_ALPHA 150       /* PV stones are see-through */
#define LABEL_ALPHA 230    /* the win rate label under a PV stone */

/* ---- scene -------------------------------------------------------------- */

typedef struct {
    uint8_t r, g, b, a;
} Rgba;

typedef enum { PR_RECT, PR_LINE, PR_CIRCLE, PR_TEXT } PrimKind;

/* One drawing primitive, in pixels. rect: corner x, y, size w, h; line:
 * points pts[p0 .. p0 + np); circle: centre x, y, radius w; text: centre
 * x, y, height h (stroke font). A colour with a == 0 is not drawn. */
typedef struct {
    PrimKind kind;
    double x, y, w, h;
    Rgba fill, stroke;
    double lw;
    int p0, np;
    char text[16];
} Prim;

typedef struct {
    Prim *prims;
    int n, cap;
    double *pts; /* x, y pairs */
    int npts, ptscap;
    int width, height;
    bool oom;
} Scene;

typedef struct {
    Rgba bg, grain, grid, coord, black, black_edge, white, white_edge, on_black, on_white, last, forbid, accent,
        shade, shade_text, label_text;
} Theme;

#define RGB(v) ((Rgba){(uint8_t)((v) >> 16), (uint8_t)((v) >> 8), (uint8_t)(v), 255})
#define RGBA(v, a) ((Rgba){(uint8_t)((v) >> 16), (uint8_t)((v) >> 8), (uint8_t)(v), (uint8_t)(a)})

static Theme theme_of(bool wood, bool dark)
{
    Theme t;
    if (!dark) {
        t.bg = wood ? RGB(0xdcb36c) : RGB(0xf3efe6);
        t.grain = wood ? RGBA(0xa8783c, 60) : RGBA(0, 0);
        t.grid = wood ? RGB(0x3b2a16) : RGB(0x4a4a4a);
        t.coord = t.grid;
        t.accent = RGB(0x1760c8);
        t.shade = RGB(0x2e9d4f);
        t.shade_text = RGB(0x0b4a1f);
    } else {
        t.bg = wood ? RGB(0x5a4129) : RGB(0x1f2328);
        t.grain = wood ? RGBA(0x2e1f10, 70) : RGBA(0, 0);
        t.grid = wood ? RGB(0xd9c6a0) : RGB(0x8d96a0);
        t.coord = t.grid;
        t.accent = RGB(0x5aa9ff);
        t.shade = RGB(0x3fbf6a);
        t.shade_text = RGB(0xc8f5d6);
    }
    t.black = RGB(0x141414);
    t.black_edge = dark ? RGB(0x9aa0a6) : RGB(0x000000); /* a black stone must stand out on a dark board */
    t.white = RGB(0xf7f7f2);
    t.white_edge = dark ? RGB(0x000000) : RGB(0x3c3c3c);
    t.on_black = RGB(0xf7f7f2);
    t.on_white = RGB(0x141414);
    t.last = RGB(0xe0301e);
    t.forbid = RGB(0xd2231a);
    t.label_text = RGB(0xffffff);
    return t;
}

static Prim *add(Scene *s, PrimKind kind)
{
    if (s->oom) return NULL;
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 256;
        Prim *p = realloc(s->prims, (size_t)cap * sizeof *p);
        if (!p) {
            s->oom = true;
            return NULL;
        }
        s->prims = p;
        s->cap = cap;
    }
    Prim *p = &s->prims[s->n++];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    return p;
}

static int add_point(Scene *s, double x, double y)
{
    if (s->oom) return -1;
    if (s->npts == s->ptscap) {
        int cap = s->ptscap ? s->ptscap * 2 : 1024;
        double *p = realloc(s->pts, (size_t)cap * 2 * sizeof *p);
        if (!p) {
            s->oom = true;
            return -1;
        }
        s->pts = p;
        s->ptscap = cap;
    }
    s->pts[2 * s->npts] = x;
    s->pts[2 * s->npts + 1] = y;
    return s->npts++;
}

static void rect(Scene *s, double x, double y, double w, double h, Rgba fill)
{
    Prim *p = add(s, PR_RECT);
    if (p) p->x = x, p->y = y, p->w = w, p->h = h, p->fill = fill;
}

static void line(Scene *s, double x1, double y1, double x2, double y2, Rgba c, double lw)
{
    Prim *p = add(s, PR_LINE);
    if (!p) return;
    p->stroke = c;
    p->lw = lw;
    p->p0 = add_point(s, x1, y1);
    add_point(s, x2, y2);
    p->np = 2;
}

static void circle(Scene *s, double x, double y, double r, Rgba fill, Rgba stroke, double lw)
{
    Prim *p = add(s, PR_CIRCLE);
    if (p) p->x = x, p->y = y, p->w = r, p->fill = fill, p->stroke = stroke, p->lw = lw;
}

static void text(Scene *s, double x, double y, double h, Rgba c, const char *t)
{
    Prim *p = add(s, PR_TEXT);
    if (!p) return;
    p->x = x, p->y = y, p->h = h, p->stroke = c, p->lw = h * 0.13;
    snprintf(p->text, sizeof p->text, "%s", t);
}

static void scene_free(Scene *s)
{
    free(s->prims);
    free(s->pts);
    memset(s, 0, sizeof *s);
}

/* ---- stroke font -------------------------------------------------------- */

/* Glyphs on a grid 4 wide and 6 high (y down; descenders to 8): strokes
 * separated by spaces, each a run of two-digit points "xy". */
static const char *glyph(char c)
{
    static const char *const digits[10] = {
        "103041453616050110", "112026 1636",          "01103041420646",     "0110304142334445361605 1333",
        "36300444",           "400002324345361605",   "4130100105163645443303", "004016",
        "13020110304142331304051636454433", "0516364541301001021343"};
    static const char *const letters[26] = {
        "12324346 441405163645", "0006 0312324345361605", "4332120305163645",   "4046 4332120305163645",
        "044443321203051636",    "30201116 0232",          "4332120304153544 4247381807", "0006 0312324346",
        "2226 2021",             "3237281807 3031",        "0006 4204 2346",     "102026 1636",
        "0602 03122326 23324346", "0206 0312324346",       "123243453616050312", "0208 0312324345361605",
        "4248 4332120305163645", "0206 042242",            "4212031434453606",   "10152636 0232",
        "0205163645 4246",       "022642",                 "0216233642",         "0246 4206",
        "0226 4218",             "02424206"};
    if (c >= '0' && c <= '9') return digits[c - '0'];
    if (c >= 'a' && c <= 'z') return letters[c - 'a'];
    if (c == '%') return "0640 0010110100 3545463635";
    return "";
}

#define GLYPH_ADVANCE 5.5

typedef void (*StrokeFn)(void *ctx, const double *xy, int n);

/* Calls fn once per stroke of t, in pixels, centred on (cx, cy) by its ink. */
static void text_strokes(const Prim *p, StrokeFn fn, void *ctx)
{
    double minx = 1e9, maxx = -1e9, miny = 1e9, maxy = -1e9;
    const char *t = p->text;
    for (int i = 0; t[i]; i++)
        for (const char *g = glyph(t[i]); *g; g++) {
            if (*g == ' ') continue;
            double x = i * GLYPH_ADVANCE + (g[0] - '0'), y = g[1] - '0';
            minx = fmin(minx, x), maxx = fmax(maxx, x), miny = fmin(miny, y), maxy = fmax(maxy, y);
            g++;
        }
    if (minx > maxx) return;
    double k = p->h / 6.0, ox = p->x - (minx + maxx) / 2 * k, oy = p->y - (miny + maxy) / 2 * k;
    double xy[64];
    for (int i = 0; t[i]; i++) {
        const char *g = glyph(t[i]);
        while (*g) {
            int n = 0;
            while (*g && *g != ' ' && n < 32) {
                xy[2 * n] = ox + (i * GLYPH_ADVANCE + (g[0] - '0')) * k;
                xy[2 * n + 1] = oy + (g[1] - '0') * k;
                n++;
                g += 2;
            }
            if (n) fn(ctx, xy, n);
            while (*g == ' ') g++;
        }
    }
}

/* ---- building the scene ------------------------------------------------- */

typedef struct {
    int x0, y0, x1, y1; /* the points shown (board coordinates, y from the top) */
    double cell, gx, gy; /* pixels between lines; where point (x0, y0) is */
    int size;
} Layout;

static void grow_window(int *lo, int *hi, int size, int want)
{
    while (*hi - *lo + 1 < want && *hi - *lo + 1 < size) {
        if (*lo > 0) (*lo)--;
        if (*hi - *lo + 1 < want && *hi < size - 1) (*hi)++;
    }
}

static Layout layout_of(const ApiRender *r)
{
    Layout l;
    int size = r->req.pos.size;
    l.size = size;
    l.x0 = l.y0 = 0;
    l.x1 = l.y1 = size - 1;
    if (r->crop) {
        int x0 = size, y0 = size, x1 = -1, y1 = -1;
        const ApiOverlay *ov = &r->overlay;
        Move pts[BOARD_MAX_MOVES + API_RENDER_PV_MAX + ENGINE_MAX_MULTIPV];
        int n = 0;
        for (int i = 0; i < r->req.pos.nmoves; i++) pts[n++] = r->req.pos.moves[i];
        for (int i = 0; ov->present && i < ov->pv_len; i++) pts[n++] = ov->pv[i];
        for (int i = 0; ov->present && i < ov->ncand; i++) pts[n++] = ov->cand[i];
        for (int i = 0; i < n; i++) {
            int x = MOVE_X(pts[i]), y = MOVE_Y(pts[i]);
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
        }
        if (x1 >= 0) {
            l.x0 = x0 - r->margin < 0 ? 0 : x0 - r->margin;
            l.y0 = y0 - r->margin < 0 ? 0 : y0 - r->margin;
            l.x1 = x1 + r->margin > size - 1 ? size - 1 : x1 + r->margin;
            l.y1 = y1 + r->margin > size - 1 ? size - 1 : y1 + r->margin;
            grow_window(&l.x0, &l.x1, size, MIN_WINDOW);
            grow_window(&l.y0, &l.y1, size, MIN_WINDOW);
        }
    }
    int cols = l.x1 - l.x0 + 1, rows = l.y1 - l.y0 + 1, n = cols > rows ? cols : rows;
    double band = r->coordinates ? COORD_BAND : 0;
    l.cell = r->pixels / (n - 1 + 2 * PAD + band);
    l.gx = (band + PAD) * l.cell;
    l.gy = PAD * l.cell;
    return l;
}

static double px(const Layout *l, int x) { return l->gx + (x - l->x0) * l->cell; }
static double py(const Layout *l, int y) { return l->gy + (y - l->y0) * l->cell; }
static bool shown(const Layout *l, Move m)
{
    return MOVE_X(m) >= l->x0 && MOVE_X(m) <= l->x1 && MOVE_Y(m) >= l->y0 && MOVE_Y(m) <= l->y1;
}

/* A fixed pseudo-random sequence for the wood grain (same picture every time). */
static double grain_rand(uint32_t *st)
{
    *st = *st * 1664525u + 1013904223u;
    return (double)(*st >> 8) / 16777216.0;
}

static void draw_board(Scene *s, const Layout *l, const Theme *t, const ApiRender *r)
{
    double c = l->cell, W = s->width, H = s->height;
    rect(s, 0, 0, W, H, t->bg);
    if (r->wood) {
        uint32_t st = 0x9e3779b9u;
        for (int i = 0; i < GRAIN_LINES; i++) {
            double base = (i + 0.5) * H / GRAIN_LINES + (grain_rand(&st) - 0.5) * H / GRAIN_LINES;
            double amp = (0.15 + grain_rand(&st) * 0.35) * c, freq = 0.6 + grain_rand(&st) * 1.4,
                   phase = grain_rand(&st), lw = (0.05 + grain_rand(&st) * 0.15) * c;
            Prim *p = add(s, PR_LINE);
            if (!p) return;
            p->stroke = t->grain;
            p->lw = lw;
            p->p0 = s->npts;
            for (int k = 0; k < GRAIN_POINTS; k++) {
                double x = W * k / (GRAIN_POINTS - 1);
                add_point(s, x, base + amp * sin(2 * M_PI * (x / W * freq + phase)));
            }
            p->np = GRAIN_POINTS;
        }
    }
    /* lines: a cut side runs on to the picture's edge of the board */
    double left = l->x0 > 0 ? l->gx - PAD * c : px(l, l->x0), right = l->x1 < l->size - 1 ? W : px(l, l->x1);
    double top = l->y0 > 0 ? 0 : py(l, l->y0), bottom = l->y1 < l->size - 1 ? py(l, l->y1) + PAD * c : py(l, l->y1);
    for (int x = l->x0; x <= l->x1; x++) {
        bool edge = x == 0 || x == l->size - 1;
        line(s, px(l, x), top, px(l, x), bottom, t->grid, (edge ? EDGE_W : GRID_W) * c);
    }
    for (int y = l->y0; y <= l->y1; y++) {
        bool edge = y == 0 || y == l->size - 1;
        line(s, left, py(l, y), right, py(l, y), t->grid, (edge ? EDGE_W : GRID_W) * c);
    }
    int n = l->size, d = n >= 13 ? 3 : n >= 9 ? 2 : -1;
    int stars[3], ns = 0;
    if (d > 0) stars[ns++] = d, stars[ns++] = n - 1 - d;
    if (n % 2) stars[ns++] = n / 2;
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < ns; j++) {
            bool centre = stars[i] == n / 2 || stars[j] == n / 2;
            if (centre && !(stars[i] == n / 2 && stars[j] == n / 2)) continue; /* only the centre on the middle lines */
            Move m = MOVE_XY(stars[i], stars[j]);
            if (shown(l, m)) circle(s, px(l, stars[i]), py(l, stars[j]), STAR_R * c, t->grid, RGBA(0, 0), 0);
        }
    if (r->coordinates) {
        char buf[4];
        double ty = py(l, l->y1) + (PAD + COORD_BAND * 0.45) * c, tx = COORD_BAND * 0.5 * c;
        for (int x = l->x0; x <= l->x1; x++) {
            buf[0] = (char)('a' + x), buf[1] = 0;
            text(s, px(l, x), ty, COORD_H * c, t->coord, buf);
        }
        for (int y = l->y0; y <= l->y1; y++) {
            snprintf(buf, sizeof buf, "%d", n - y);
            text(s, tx, py(l, y), COORD_H * c, t->coord, buf);
        }
    }
}

static void number_on(Scene *s, const Layout *l, Move m, int num, Rgba c)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%d", num);
    double h = (num >= 100 ? 0.28 : NUMBER_H) * l->cell;
    text(s, px(l, MOVE_X(m)), py(l, MOVE_Y(m)), h, c, buf);
}

/* The scene of the position after its first nshown moves; the overlay is
 * drawn when with_overlay (it belongs to the whole position). */
static bool build_scene(const ApiRender *r, const Layout *l, int nshown, bool with_overlay, Board *b, Scene *s)
{
    const Position *pos = &r->req.pos;
    Theme t = theme_of(r->wood, r->dark);
    double c = l->cell;
    int cols = l->x1 - l->x0 + 1, rows = l->y1 - l->y0 + 1;
    double band = r->coordinates ? COORD_BAND : 0;
    s->width = (int)lround(c * (cols - 1 + 2 * PAD + band));
    s->height = (int)lround(c * (rows - 1 + 2 * PAD + band));
    draw_board(s, l, &t, r);

    const ApiOverlay *ov = &r->overlay;
    bool over = with_overlay && ov->present;
    /* candidates: shaded points, the best most */
    for (int i = 0; over && i < ov->ncand; i++) {
        if (!shown(l, ov->cand[i])) continue;
        int a = 150 - 25 * i;
        Rgba sh = t.shade;
        sh.a = (uint8_t)(a < 60 ? 60 : a);
        double x = px(l, MOVE_X(ov->cand[i])), y = py(l, MOVE_Y(ov->cand[i]));
        rect(s, x - 0.45 * c, y - 0.45 * c, 0.9 * c, 0.9 * c, sh);
    }
    /* stones */
    for (int i = 0; i < nshown; i++) {
        Move m = pos->moves[i];
        if (!shown(l, m)) continue;
        bool black = i % 2 == 0;
        circle(s, px(l, MOVE_X(m)), py(l, MOVE_Y(m)), STONE_R * c, black ? t.black : t.white,
               black ? t.black_edge : t.white_edge, 0.035 * c);
        bool last = r->last_move && i == nshown - 1 && pos->ordered;
        bool numbered = pos->ordered && r->numbers_from > 0 && i + 1 >= r->numbers_from;
        if (numbered)
            number_on(s, l, m, i + 1, last ? t.last : black ? t.on_black : t.on_white);
        else if (last)
            circle(s, px(l, MOVE_X(m)), py(l, MOVE_Y(m)), LAST_R * c, t.last, RGBA(0, 0), 0);
    }
    /* renju: black's forbidden points, when black is to move */
    if (r->forbidden && pos->rule == RULE_RENJU && nshown % 2 == 0) {
        Move *f = malloc(sizeof(Move) * BOARD_MAX_MOVES);
        if (!f) return false;
        board_reset(b, pos->size, pos->rule);
        for (int i = 0; i < nshown; i++) board_play(b, pos->moves[i]);
        int nf = rules_forbidden_points(b, f);
        for (int i = 0; i < nf; i++) {
            if (!shown(l, f[i])) continue;
            double x = px(l, MOVE_X(f[i])), y = py(l, MOVE_Y(f[i])), k = CROSS * c;
            line(s, x - k, y - k, x + k, y + k, t.forbid, 0.07 * c);
            line(s, x - k, y + k, x + k, y - k, t.forbid, 0.07 * c);
        }
        free(f);
    }
    if (over) {
        /* the main line: smaller see-through stones ringed in the accent colour */
        for (int i = 0; i < ov->pv_len; i++) {
            Move m = ov->pv[i];
            if (!shown(l, m)) continue;
            bool black = (nshown + i) % 2 == 0;
            Rgba fill = black ? t.black : t.white;
            fill.a = PV_ALPHA;
            circle(s, px(l, MOVE_X(m)), py(l, MOVE_Y(m)), PV_R * c, fill, t.accent, 0.06 * c);
            number_on(s, l, m, i + 1, black ? t.on_black : t.on_white);
        }
        if (ov->best != MOVE_NONE && shown(l, ov->best))
            circle(s, px(l, MOVE_X(ov->best)), py(l, MOVE_Y(ov->best)), 0.56 * c, RGBA(0, 0), t.accent, 0.09 * c);
        /* win rates: in the shaded square, or on a label under a PV stone */
        for (int i = 0; i < ov->ncand; i++) {
            Move m = ov->cand[i];
            if (!shown(l, m)) continue;
            bool on_pv = false;
            for (int k = 0; k < ov->pv_len; k++) on_pv |= ov->pv[k] == m;
            char buf[16];
            snprintf(buf, sizeof buf, "%d%%", (int)lround(ov->winrate[i] * 100));
            double x = px(l, MOVE_X(m)), y = py(l, MOVE_Y(m));
            if (on_pv) {
                Rgba back = t.shade;
                back.a = LABEL_ALPHA;
                rect(s, x - 0.42 * c, y + 0.5 * c - 0.17 * c, 0.84 * c, 0.34 * c, back);
                text(s, x, y + 0.5 * c, WINRATE_H * c, t.label_text, buf);
            } else {
                text(s, x, y, WINRATE_H * c, t.shade_text, buf);
            }
        }
    }
    return !s->oom;
}

/* ---- SVG ---------------------------------------------------------------- */

typedef struct {
    char *buf;
    size_t len, cap;
    bool oom;
} Text;

static void put(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Text *t, const char *fmt, ...)
{
    if (t->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->oom = true;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 16384;
        while (cap - t->len <= (size_t)n) cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b) {
            t->oom = true;
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
}

/* A coordinate with at most two decimals and no trailing zeros. */
static const char *num(double v, char *buf)
{
    snprintf(buf, 32, "%.2f", v);
    char *e = buf + strlen(buf);
    while (e[-1] == '0') *--e = 0;
    if (e[-1] == '.') *--e = 0;
    if (!strcmp(buf, "-0")) strcpy(buf, "0");
    return buf;
}

static void put_paint(Text *t, const char *what, Rgba c)
{
    if (c.a == 0) {
        put(t, " %s=\"none\"", what);
        return;
    }
    put(t, " %s=\"#%02x%02x%02x\"", what, c.r, c.g, c.b);
    if (c.a < 255) put(t, " %s-opacity=\"%.3f\"", what, c.a / 255.0);
}

static void svg_stroke(void *ctx, const double *xy, int n)
{
    Text *t = ctx;
    char a[32], b[32];
    for (int i = 0; i < n; i++) put(t, "%s%s %s", i ? " L" : "M", num(xy[2 * i], a), num(xy[2 * i + 1], b));
    put(t, " ");
}

static bool render_svg(const Scene *s, RenderOutput *out)
{
    Text t = {0};
    char a[32], b[32], c[32], d[32];
    put(&t, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
        s->width, s->height, s->width, s->height);
    for (int i = 0; i < s->n; i++) {
        const Prim *p = &s->prims[i];
        switch (p->kind) {
        case PR_RECT:
            put(&t, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"", num(p->x, a), num(p->y, b), num(p->w, c),
                num(p->h, d));
            put_paint(&t, "fill", p->fill);
            put(&t, "/>\n");
            break;
        case PR_CIRCLE:
            put(&t, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\"", num(p->x, a), num(p->y, b), num(p->w, c));
            put_paint(&t, "fill", p->fill);
            put_paint(&t, "stroke", p->stroke);
            if (p->stroke.a) put(&t, " stroke-width=\"%s\"", num(p->lw, a));
            put(&t, "/>\n");
            break;
        case PR_LINE:
            put(&t, "<polyline points=\"");
            for (int k = 0; k < p->np; k++)
                put(&t, "%s%s,%s", k ? " " : "", num(s->pts[2 * (p->p0 + k)], a), num(s->pts[2 * (p->p0 + k) + 1], b));
            put(&t, "\" fill=\"none\"");
            put_paint(&t, "stroke", p->stroke);
            put(&t, " stroke-width=\"%s\" stroke-linecap=\"%s\"/>\n", num(p->lw, a), p->np > 2 ? "round" : "square");
            break;
        case PR_TEXT:
            put(&t, "<path d=\"");
            text_strokes(p, svg_stroke, &t);
            if (!t.oom && t.len && t.buf[t.len - 1] == ' ') t.len--;
            put(&t, "\" fill=\"none\"");
            put_paint(&t, "stroke", p->stroke);
            put(&t, " stroke-width=\"%s\" stroke-linecap=\"round\" stroke-linejoin=\"round\"><title>%s</title></path>\n",
                num(p->lw, a), p->text);
            break;
        }
    }
    put(&t, "</svg>\n");
    if (t.oom) {
        free(t.buf);
        return false;
    }
    out->data = (unsigned char *)t.buf;
    out->len = t.len;
    out->width = s->width;
    out->height = s->height;
    out->frames = 1;
    return true;
}

/* ---- cairo -------------------------------------------------------------- */

static void set_colour(cairo_t *cr, Rgba c)
{
    cairo_set_source_rgba(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0, c.a / 255.0);
}

static void cairo_stroke_fn(void *ctx, const double *xy, int n)
{
    cairo_t *cr = ctx;
    cairo_move_to(cr, xy[0], xy[1]);
    for (int i = 1; i < n; i++) cairo_line_to(cr, xy[2 * i], xy[2 * i + 1]);
    if (n == 1) cairo_line_to(cr, xy[0], xy[1]);
}

static void draw_cairo(const Scene *s, cairo_t *cr)
{
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (int i = 0; i < s->n; i++) {
        const Prim *p = &s->prims[i];
        switch (p->kind) {
        case PR_RECT:
            cairo_rectangle(cr, p->x, p->y, p->w, p->h);
            set_colour(cr, p->fill);
            cairo_fill(cr);
            break;
        case PR_CIRCLE:
            cairo_new_sub_path(cr);
            cairo_arc(cr, p->x, p->y, p->w, 0, 2 * M_PI);
            if (p->fill.a) {
                set_colour(cr, p->fill);
                cairo_fill_preserve(cr);
            }
            if (p->stroke.a) {
                set_colour(cr, p->stroke);
                cairo_set_line_width(cr, p->lw);
                cairo_stroke_preserve(cr);
            }
            cairo_new_path(cr);
            break;
        case PR_LINE:
            cairo_set_line_cap(cr, p->np > 2 ? CAIRO_LINE_CAP_ROUND : CAIRO_LINE_CAP_SQUARE);
            cairo_stroke_fn(cr, &s->pts[2 * p->p0], p->np);
            set_colour(cr, p->stroke);
            cairo_set_line_width(cr, p->lw);
            cairo_stroke(cr);
            break;
        case PR_TEXT:
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
            text_strokes(p, cairo_stroke_fn, cr);
            set_colour(cr, p->stroke);
            cairo_set_line_width(cr, p->lw);
            cairo_stroke(cr);
            break;
        }
    }
}

/* The scene drawn on a new ARGB surface (NULL when cairo fails). */
static cairo_surface_t *draw_surface(const Scene *s)
{
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, s->width, s->height);
    if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surf);
        return NULL;
    }
    cairo_t *cr = cairo_create(surf);
    draw_cairo(s, cr);
    bool ok = cairo_status(cr) == CAIRO_STATUS_SUCCESS;
    cairo_destroy(cr);
    cairo_surface_flush(surf);
    if (!ok) {
        cairo_surface_destroy(surf);
        return NULL;
    }
    return surf;
}

typedef struct {
    unsigned char *buf;
    size_t len, cap;
    bool oom;
} Bytes;

static bool bytes_put(Bytes *b, const unsigned char *data, size_t n)
{
    if (b->oom) return false;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 65536;
        while (cap < b->len + n) cap *= 2;
        unsigned char *p = realloc(b->buf, cap);
        if (!p) {
            b->oom = true;
            return false;
        }
        b->buf = p;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, data, n);
    b->len += n;
    return true;
}

static cairo_status_t png_write(void *ctx, const unsigned char *data, unsigned int n)
{
    return bytes_put(ctx, data, n) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static bool render_png(const Scene *s, RenderOutput *out)
{
    cairo_surface_t *surf = draw_surface(s);
    if (!surf) return false;
    Bytes b = {0};
    bool ok = cairo_surface_write_to_png_stream(surf, png_write, &b) == CAIRO_STATUS_SUCCESS && !b.oom;
    cairo_surface_destroy(surf);
    if (!ok) {
        free(b.buf);
        return false;
    }
    out->data = b.buf;
    out->len = b.len;
    out->width = s->width;
    out->height = s->height;
    out->frames = 1;
    return true;
}

/* ---- GIF ---------------------------------------------------------------- */

#define LUT_BITS 5
#define LUT_SIZE (1 << (3 * LUT_BITS))

typedef struct {
    GifColorType colors[256];
    int n;
    uint8_t *lut; /* LUT_SIZE entries: 5-bit RGB -> nearest palette index */
} Palette;

static void palette_add(Palette *p, Rgba c, Rgba over)
{
    if (p->n >= 256 || c.a == 0) return;
    double a = c.a / 255.0;
    GifColorType g = {(GifByteType)lround(c.r * a + over.r * (1 - a)), (GifByteType)lround(c.g * a + over.g * (1 - a)),
                      (GifByteType)lround(c.b * a + over.b * (1 - a))};
    for (int i = 0; i < p->n; i++)
        if (p->colors[i].Red == g.Red && p->colors[i].Green == g.Green && p->colors[i].Blue == g.Blue) return;
    p->colors[p->n++] = g;
}

/* The theme's colours (see-through ones over the board), then a 6x6x6 cube
 * for the anti-aliased edges, and the lookup table of nearest entries. */
static bool palette_make(Palette *p, const Theme *t)
{
    memset(p, 0, sizeof *p);
    const Rgba *list[] = {&t->bg,    &t->grid,     &t->black,    &t->white,     &t->black_edge, &t->white_edge,
                          &t->last,  &t->forbid,   &t->accent,   &t->shade,     &t->shade_text, &t->grain, &t->label_text};
    for (size_t i = 0; i < sizeof list / sizeof *list; i++) palette_add(p, *list[i], t->bg);
    Rgba pv_black = t->black, pv_white = t->white, shade = t->shade;
    pv_black.a = pv_white.a = PV_ALPHA;
    palette_add(p, pv_black, t->bg);
    palette_add(p, pv_white, t->bg);
    for (int a = 60; a <= 150; a += 25) {
        shade.a = (uint8_t)a;
        palette_add(p, shade, t->bg);
    }
    shade.a = LABEL_ALPHA;
    palette_add(p, shade, t->bg);
    for (int r = 0; r < 6 && p->n < 256; r++)
        for (int g = 0; g < 6 && p->n < 256; g++)
            for (int b = 0; b < 6 && p->n < 256; b++)
                p->colors[p->n++] = (GifColorType){(GifByteType)(r * 51), (GifByteType)(g * 51), (GifByteType)(b * 51)};
    while (p->n < 256) p->colors[p->n++] = (GifColorType){0, 0, 0};
    p->lut = malloc(LUT_SIZE);
    if (!p->lut) return false;
    for (int i = 0; i < LUT_SIZE; i++) {
        int r = ((i >> 10) & 31) * 255 / 31, g = ((i >> 5) & 31) * 255 / 31, b = (i & 31) * 255 / 31;
        int best = 0, bestd = 1 << 30;
        for (int k = 0; k < p->n; k++) {
            int dr = r - p->colors[k].Red, dg = g - p->colors[k].Green, db = b - p->colors[k].Blue;
            int d = 2 * dr * dr + 4 * dg * dg + 3 * db * db;
            if (d < bestd) bestd = d, best = k;
        }
        p->lut[i] = (uint8_t)best;
    }
    return true;
}

static void quantise(cairo_surface_t *surf, const Palette *p, uint8_t *out, int w, int h)
{
    const unsigned char *data = cairo_image_surface_get_data(surf);
    int stride = cairo_image_surface_get_stride(surf);
    for (int y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)(const void *)(data + (size_t)y * (size_t)stride);
        for (int x = 0; x < w; x++) {
            uint32_t v = row[x]; /* opaque: the board covers every pixel */
            unsigned r = (v >> 19) & 31, g = (v >> 11) & 31, b = (v >> 3) & 31;
            out[(size_t)y * (size_t)w + (size_t)x] = p->lut[(r << 10) | (g << 5) | b];
        }
    }
}

static int gif_write(GifFileType *g, const GifByteType *data, int n)
{
    return bytes_put(g->UserData, data, (size_t)n) ? n : 0;
}

static bool gif_frame(GifFileType *g, const uint8_t *idx, const uint8_t *prev, int w, int h, int delay_cs)
{
    int x0 = 0, y0 = 0, x1 = w - 1, y1 = h - 1;
    if (prev) { /* only the rectangle that changed; the rest stays (disposal: none) */
        x0 = w, y0 = h, x1 = -1, y1 = -1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                if (idx[(size_t)y * (size_t)w + (size_t)x] != prev[(size_t)y * (size_t)w + (size_t)x]) {
                    if (x < x0) x0 = x;
                    if (x > x1) x1 = x;
                    if (y < y0) y0 = y;
                    if (y > y1) y1 = y;
                }
        if (x1 < 0) x0 = y0 = x1 = y1 = 0;
    }
    GraphicsControlBlock gcb = {.DisposalMode = DISPOSE_DO_NOT, .UserInputFlag = false, .DelayTime = delay_cs,
                                .TransparentColor = NO_TRANSPARENT_COLOR};
    GifByteType ext[4];
    size_t n = EGifGCBToExtension(&gcb, ext);
    if (EGifPutExtension(g, GRAPHICS_EXT_FUNC_CODE, (int)n, ext) != GIF_OK) return false;
    if (EGifPutImageDesc(g, x0, y0, x1 - x0 + 1, y1 - y0 + 1, false, NULL) != GIF_OK) return false;
    for (int y = y0; y <= y1; y++)
        if (EGifPutLine(g, (GifPixelType *)(idx + (size_t)y * (size_t)w + (size_t)x0), x1 - x0 + 1) != GIF_OK)
            return false;
    return true;
}

static bool render_gif(const ApiRender *r, const Layout *l, Board *b, RenderOutput *out)
{
    const Position *pos = &r->req.pos;
    int nframes = r->animate && pos->nmoves > 0 ? pos->nmoves : 1;
    Theme t = theme_of(r->wood, r->dark);
    Palette pal;
    Bytes bytes = {0};
    uint8_t *idx = NULL, *prev = NULL;
    GifFileType *g = NULL;
    ColorMapObject *cmap = NULL;
    bool ok = false;
    int w = 0, h = 0, err = 0;
    if (!palette_make(&pal, &t)) goto done;
    cmap = GifMakeMapObject(256, pal.colors);
    g = EGifOpen(&bytes, gif_write, &err);
    if (!cmap || !g) goto done;
    EGifSetGifVersion(g, true);
    for (int f = 0; f < nframes; f++) {
        int nshown = nframes == 1 ? pos->nmoves : f + 1;
        Scene s = {0};
        if (!build_scene(r, l, nshown, f == nframes - 1, b, &s)) {
            scene_free(&s);
            goto done;
        }
        if (f == 0) {
            w = s.width, h = s.height;
            idx = malloc((size_t)w * (size_t)h);
            prev = malloc((size_t)w * (size_t)h);
            if (!idx || !prev || EGifPutScreenDesc(g, w, h, 8, 0, cmap) != GIF_OK) {
                scene_free(&s);
                goto done;
            }
            if (nframes > 1) { /* loop for ever */
                static const GifByteType loop[3] = {1, 0, 0};
                if (EGifPutExtensionLeader(g, APPLICATION_EXT_FUNC_CODE) != GIF_OK ||
                    EGifPutExtensionBlock(g, 11, "NETSCAPE2.0") != GIF_OK ||
                    EGifPutExtensionBlock(g, 3, loop) != GIF_OK || EGifPutExtensionTrailer(g) != GIF_OK) {
                    scene_free(&s);
                    goto done;
                }
            }
        }
        cairo_surface_t *surf = draw_surface(&s);
        scene_free(&s);
        if (!surf) goto done;
        quantise(surf, &pal, idx, w, h);
        cairo_surface_destroy(surf);
        /* the last frame stays three times as long before the loop starts over */
        int delay = f == nframes - 1 && nframes > 1 ? 3 * r->delay_ms : r->delay_ms;
        if (!gif_frame(g, idx, f ? prev : NULL, w, h, delay / 10)) goto done;
        uint8_t *tmp = prev;
        prev = idx;
        idx = tmp;
    }
    int close_err = 0;
    ok = EGifCloseFile(g, &close_err) == GIF_OK && !bytes.oom;
    g = NULL;
done:
    if (g) EGifCloseFile(g, &err);
    GifFreeMapObject(cmap);
    free(pal.lut);
    free(idx);
    free(prev);
    if (!ok) {
        free(bytes.buf);
        return false;
    }
    out->data = bytes.buf;
    out->len = bytes.len;
    out->width = w;
    out->height = h;
    out->frames = nframes;
    return true;
}

/* ---- entry -------------------------------------------------------------- */

bool render_image(const ApiRender *r, RenderOutput *out)
{
    memset(out, 0, sizeof *out);
    Board *b = malloc(sizeof *b);
    if (!b) return false;
    Layout l = layout_of(r);
    bool ok;
    if (r->format == API_IMAGE_GIF) {
        ok = render_gif(r, &l, b, out);
    } else {
        Scene s = {0};
        ok = build_scene(r, &l, r->req.pos.nmoves, true, b, &s) &&
             (r->format == API_IMAGE_PNG ? render_png(&s, out) : render_svg(&s, out));
        scene_free(&s);
    }
    free(b);
    return ok;
}
