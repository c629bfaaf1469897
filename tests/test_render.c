/* Board pictures: the request parser, the SVG / PNG / GIF back ends against
 * golden images and decoders, `gomokud render`, and GET/POST /v1/render on
 * the real server. */
#include <cairo/cairo.h>
#include <criterion/criterion.h>
#include <curl/curl.h>
#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/render_request.h"
#include "engine/board.h"
#include "engine/engine.h"
#include "engine/rules.h"
#include "server/config.h"
#include "server/http.h"
#include "server/render.h"
#include "tests/http_client.h"

#define GOLDEN_TOLERANCE 0.005 /* share of pixels that may differ from a golden image */
#define PIXEL_SLACK 24         /* a channel closer than this to the golden one is the same */

static const ApiCaps caps = {.default_time_ms = 200, .max_time_ms = 2000, .max_depth = 8, .max_multipv = 4};

static void init(void) { cr_assert(engine_init()); }

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    if (len) *len = (size_t)n;
    return buf;
}

static const char *data_path(const char *name, char *buf, size_t n)
{
    const char *dir = getenv("GOMOKUD_DATA_DIR");
    snprintf(buf, n, "%s/%s", dir && *dir ? dir : "tests/data", name);
    return buf;
}

/* Parses a JSON body (must succeed) and draws it. */
static RenderOutput draw(const char *body, ApiRender *keep)
{
    ApiRender r;
    ApiProblem p;
    cr_assert(api_parse_render(body, strlen(body), &caps, API_IMAGE_SVG, &r, &p), "%s: %s (%s)", body, p.detail,
              p.field);
    RenderOutput out;
    cr_assert(render_image(&r, &out));
    cr_assert_gt(out.len, 0);
    if (keep) *keep = r;
    return out;
}

static char *svg_of(const char *body)
{
    RenderOutput o = draw(body, NULL);
    char *s = malloc(o.len + 1);
    memcpy(s, o.data, o.len);
    s[o.len] = 0;
    free(o.data);
    return s;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

static void assert_refused(const char *body, int status, const char *field)
{
    ApiRender r;
    ApiProblem p;
    cr_assert_not(api_parse_render(body, strlen(body), &caps, API_IMAGE_SVG, &r, &p), "accepted %s", body);
    cr_assert_eq(p.status, status, "%s: status %d (%s)", body, p.status, p.detail);
    cr_assert_str_eq(p.field, field, "%s: field %s (%s)", body, p.field, p.detail);
}

/* ---- PNG: golden images ------------------------------------------------ */

typedef struct {
    const unsigned char *data;
    size_t len, off;
} Reader;

static cairo_status_t read_png(void *ctx, unsigned char *buf, unsigned int n)
{
    Reader *r = ctx;
    if (r->off + n > r->len) return CAIRO_STATUS_READ_ERROR;
    memcpy(buf, r->data + r->off, n);
    r->off += n;
    return CAIRO_STATUS_SUCCESS;
}

static cairo_surface_t *decode_png(const unsigned char *data, size_t len)
{
    Reader rd = {data, len, 0};
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_png, &rd);
    cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS, "not a PNG cairo can read");
    return s;
}

/* Share of pixels of a that differ from b (sizes must match). */
static double pixel_difference(cairo_surface_t *a, cairo_surface_t *b)
{
    int w = cairo_image_surface_get_width(a), h = cairo_image_surface_get_height(a);
    cr_assert_eq(w, cairo_image_surface_get_width(b), "width %d, golden %d", w, cairo_image_surface_get_width(b));
    cr_assert_eq(h, cairo_image_surface_get_height(b), "height %d, golden %d", h, cairo_image_surface_get_height(b));
    const unsigned char *pa = cairo_image_surface_get_data(a), *pb = cairo_image_surface_get_data(b);
    int sa = cairo_image_surface_get_stride(a), sb = cairo_image_surface_get_stride(b);
    long differ = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *ca = pa + (size_t)y * (size_t)sa + 4 * (size_t)x, *cb = pb + (size_t)y * (size_t)sb + 4 * (size_t)x;
            for (int k = 0; k < 4; k++)
                if (abs(ca[k] - cb[k]) > PIXEL_SLACK) {
                    differ++;
                    break;
                }
        }
    return (double)differ / ((double)w * h);
}

/* Draws tests/data/<name>.json and compares it with <name>.png. */
static double golden_difference(const char *name)
{
    char path[4096], file[256];
    snprintf(file, sizeof file, "%s.json", name);
    char *body = slurp(data_path(file, path, sizeof path), NULL);
    RenderOutput o = draw(body, NULL);
    free(body);
    cr_assert(o.len > 8 && !memcmp(o.data, "\x89PNG\r\n\x1a\n", 8), "a PNG signature");
    snprintf(file, sizeof file, "%s.png", name);
    size_t glen;
    char *golden = slurp(data_path(file, path, sizeof path), &glen);
    cairo_surface_t *got = decode_png(o.data, o.len), *want = decode_png((unsigned char *)golden, glen);
    double d = pixel_difference(got, want);
    cairo_surface_destroy(got);
    cairo_surface_destroy(want);
    free(golden);
    free(o.data);
    return d;
}

Test(render, a_renju_position_with_an_analysis_matches_its_golden_png, .init = init)
{
    double d = golden_difference("render_golden");
    cr_assert_lt(d, GOLDEN_TOLERANCE, "%.3f%% of the pixels differ from tests/data/render_golden.png", d * 100);
}

Test(render, a_cropped_dark_plain_board_matches_its_golden_png, .init = init)
{
    double d = golden_difference("render_golden_dark");
    cr_assert_lt(d, GOLDEN_TOLERANCE, "%.3f%% of the pixels differ from tests/data/render_golden_dark.png", d * 100);
}

Test(render, the_golden_check_notices_a_different_picture, .init = init)
{
    /* the light golden drawn dark: far more than the tolerance differs */
    char path[4096];
    size_t glen;
    char *golden = slurp(data_path("render_golden.png", path, sizeof path), &glen);
    char *body = slurp(data_path("render_golden.json", path, sizeof path), NULL);
    char *dark = malloc(strlen(body) + 32);
    sprintf(dark, "%.*s, \"theme\": \"dark\"}", (int)(strrchr(body, '}') - body), body);
    RenderOutput o = draw(dark, NULL);
    cairo_surface_t *got = decode_png(o.data, o.len), *want = decode_png((unsigned char *)golden, glen);
    cr_assert_gt(pixel_difference(got, want), 0.5);
    cairo_surface_destroy(got);
    cairo_surface_destroy(want);
    free(o.data);
    free(dark);
    free(body);
    free(golden);
}

Test(render, the_same_request_draws_the_same_bytes_in_every_format, .init = init)
{
    const char *bodies[] = {
        "{\"moves\":[\"h8\",\"i9\",\"h9\"],\"format\":\"svg\"}",
        "{\"moves\":[\"h8\",\"i9\",\"h9\"],\"format\":\"png\",\"style\":\"wood\"}",
        "{\"moves\":[\"h8\",\"i9\",\"h9\"],\"format\":\"gif\",\"pixels\":200}",
    };
    for (int i = 0; i < 3; i++) {
        RenderOutput a = draw(bodies[i], NULL), b = draw(bodies[i], NULL);
        cr_assert_eq(a.len, b.len, "%s", bodies[i]);
        cr_assert_eq(memcmp(a.data, b.data, a.len), 0, "%s", bodies[i]);
        free(a.data);
        free(b.data);
    }
}

Test(render, svg_and_png_of_a_request_have_the_same_size, .init = init)
{
    const char *opts[] = {"", ",\"crop\":true", ",\"coordinates\":false,\"pixels\":333", ",\"board_size\":19"};
    for (int i = 0; i < 4; i++) {
        char body[256];
        snprintf(body, sizeof body, "{\"moves\":[\"h8\",\"i9\",\"h9\"],\"format\":\"svg\"%s}", opts[i]);
        RenderOutput svg = draw(body, NULL);
        snprintf(body, sizeof body, "{\"moves\":[\"h8\",\"i9\",\"h9\"],\"format\":\"png\"%s}", opts[i]);
        RenderOutput png = draw(body, NULL);
        cairo_surface_t *s = decode_png(png.data, png.len);
        cr_assert_eq(cairo_image_surface_get_width(s), svg.width, "%s", opts[i]);
        cr_assert_eq(cairo_image_surface_get_height(s), svg.height, "%s", opts[i]);
        char attr[64], head[400];
        snprintf(attr, sizeof attr, "viewBox=\"0 0 %d %d\"", svg.width, svg.height);
        snprintf(head, sizeof head, "%.*s", (int)(svg.len < 399 ? svg.len : 399), (const char *)svg.data);
        cr_assert(strstr(head, attr), "%s in the SVG", attr);
        cairo_surface_destroy(s);
        free(svg.data);
        free(png.data);
    }
}

/* ---- SVG ---------------------------------------------------------------- */

/* Runs Debian's python3 xml.etree on the SVG: well-formed, root <svg>. */
static int xml_check(const char *svg)
{
    char path[] = "/tmp/gomokud-render-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, svg, strlen(svg)), (ssize_t)strlen(svg));
    close(fd);
    const char *py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "%s -c \"import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
             "sys.exit(0 if r.tag == '{http://www.w3.org/2000/svg}svg' else 3)\" %s 2>/dev/null",
             py, path);
    int st = system(cmd);
    unlink(path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(render, the_svg_is_well_formed_xml_with_an_svg_root, .init = init)
{
    char *svg = svg_of("{\"rule\":\"renju\",\"moves\":[\"h8\",\"a1\",\"j8\",\"a2\",\"i9\",\"a3\",\"i10\",\"o15\"],"
                       "\"analysis\":{\"best_move\":\"g7\",\"pv\":[\"g7\",\"k9\"],"
                       "\"pvs\":[{\"move\":\"g7\",\"winrate\":0.6},{\"move\":\"k7\",\"winrate\":0.5}]}}");
    cr_assert_eq(xml_check(svg), 0, "python3 xml.etree refused the SVG");
    cr_assert(!strncmp(svg, "<?xml", 5));
    free(svg);
    char *dark = svg_of("{\"board_size\":25,\"moves\":[\"a1\",\"y25\"],\"theme\":\"dark\",\"style\":\"plain\"}");
    cr_assert_eq(xml_check(dark), 0);
    free(dark);
}

Test(render, the_well_formedness_check_refuses_broken_xml, .init = init)
{
    cr_assert_neq(xml_check("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect></svg>"), 0);
    cr_assert_neq(xml_check("<html xmlns=\"http://www.w3.org/2000/svg\"/>"), 0);
}

Test(render, coordinates_are_the_api_notation_with_row_one_at_the_bottom, .init = init)
{
    char *svg = svg_of("{\"board_size\":9,\"numbers\":\"none\"}");
    const char *want[] = {"<title>a</title>", "<title>i</title>", "<title>1</title>", "<title>9</title>"};
    for (int i = 0; i < 4; i++) cr_assert(strstr(svg, want[i]), "%s", want[i]);
    cr_assert_null(strstr(svg, "<title>j</title>"));
    cr_assert_null(strstr(svg, "<title>10</title>"));
    /* row 9 is drawn above row 1: its label has the smaller y */
    const char *r9 = strstr(svg, "<title>9</title>"), *r1 = strstr(svg, "<title>1</title>");
    double y9, y1;
    const char *p9 = r9, *p1 = r1;
    while (p9 > svg && strncmp(p9, "<path d=\"M", 10)) p9--;
    while (p1 > svg && strncmp(p1, "<path d=\"M", 10)) p1--;
    cr_assert_eq(sscanf(p9, "<path d=\"M%*s %lf", &y9), 1);
    cr_assert_eq(sscanf(p1, "<path d=\"M%*s %lf", &y1), 1);
    cr_assert_lt(y9, y1);
    free(svg);
    char *bare = svg_of("{\"board_size\":9,\"coordinates\":false}");
    cr_assert_null(strstr(bare, "<title>a</title>"));
    free(bare);
}

Test(render, move_numbers_from_a_given_move_on_or_none, .init = init)
{
    const char *game = "\"moves\":[\"h8\",\"i9\",\"h9\",\"h10\",\"h7\"]";
    char body[256];
    snprintf(body, sizeof body, "{%s,\"coordinates\":false}", game);
    char *all = svg_of(body);
    for (int i = 1; i <= 5; i++) {
        char t[32];
        snprintf(t, sizeof t, "<title>%d</title>", i);
        cr_assert_eq(count(all, t), 1, "%s", t);
    }
    snprintf(body, sizeof body, "{%s,\"coordinates\":false,\"numbers\":4}", game);
    char *late = svg_of(body);
    cr_assert_null(strstr(late, "<title>3</title>"));
    cr_assert(strstr(late, "<title>4</title>") && strstr(late, "<title>5</title>"));
    snprintf(body, sizeof body, "{%s,\"coordinates\":false,\"numbers\":\"none\"}", game);
    char *none = svg_of(body);
    cr_assert_null(strstr(none, "<title>"));
    /* the last move: numbered in red, or a red dot */
    cr_assert(strstr(all, "stroke=\"#e0301e\" stroke-width"));
    cr_assert(strstr(none, "<circle") && strstr(none, "fill=\"#e0301e\""));
    free(all);
    free(late);
    free(none);
}

/* The forbidden points of the position after the moves, from the rules module. */
static int forbidden_count(const char *const *moves, int n)
{
    Board *b = malloc(sizeof *b);
    Move f[BOARD_MAX_MOVES];
    board_reset(b, 15, RULE_RENJU);
    for (int i = 0; i < n; i++) board_play(b, move_parse(moves[i], 15));
    int k = rules_forbidden_points(b, f);
    free(b);
    return k;
}

Test(render, renju_forbidden_points_are_crossed_when_black_is_to_move, .init = init)
{
    const char *moves[] = {"h8", "a1", "j8", "a2", "i9", "a3", "i10", "o15"};
    int nf = forbidden_count(moves, 8);
    cr_assert_gt(nf, 0, "the test position has a double three at i8");
    char *svg = svg_of("{\"rule\":\"renju\",\"moves\":[\"h8\",\"a1\",\"j8\",\"a2\",\"i9\",\"a3\",\"i10\",\"o15\"]}");
    cr_assert_eq(count(svg, "stroke=\"#d2231a\""), 2 * nf, "two strokes a cross");
    free(svg);
    char *off = svg_of("{\"rule\":\"renju\",\"forbidden\":false,"
                       "\"moves\":[\"h8\",\"a1\",\"j8\",\"a2\",\"i9\",\"a3\",\"i10\",\"o15\"]}");
    cr_assert_eq(count(off, "stroke=\"#d2231a\""), 0);
    free(off);
    /* white to move: none; freestyle: none */
    char *white = svg_of("{\"rule\":\"renju\",\"moves\":[\"h8\",\"a1\",\"j8\",\"a2\",\"i9\",\"a3\",\"i10\"]}");
    cr_assert_eq(count(white, "stroke=\"#d2231a\""), 0);
    free(white);
    char *free_ = svg_of("{\"moves\":[\"h8\",\"a1\",\"j8\",\"a2\",\"i9\",\"a3\",\"i10\",\"o15\"]}");
    cr_assert_eq(count(free_, "stroke=\"#d2231a\""), 0);
    free(free_);
}

Test(render, an_analysis_draws_the_best_move_its_line_and_the_candidates_win_rates, .init = init)
{
    char *svg = svg_of("{\"moves\":[\"h8\",\"i9\"],\"coordinates\":false,\"numbers\":\"none\","
                       "\"analysis\":{\"best_move\":\"g7\",\"pv\":[\"g7\",\"k9\",\"f6\"],"
                       "\"pvs\":[{\"move\":\"g7\",\"winrate\":0.62},{\"move\":\"k7\",\"winrate\":0.55}]}}");
    /* the line numbered 1..3 with accent rings; the best ringed once more */
    for (int i = 1; i <= 3; i++) {
        char t[32];
        snprintf(t, sizeof t, "<title>%d</title>", i);
        cr_assert_eq(count(svg, t), 1, "%s", t);
    }
    cr_assert_eq(count(svg, "stroke=\"#1760c8\""), 4);
    cr_assert(strstr(svg, "<title>62%</title>") && strstr(svg, "<title>55%</title>"));
    free(svg);
}

Test(render, crop_keeps_the_stones_bounding_box_and_the_margin, .init = init)
{
    ApiRender r;
    RenderOutput full = draw("{\"moves\":[\"h8\",\"i9\"],\"format\":\"svg\"}", NULL);
    RenderOutput crop = draw("{\"moves\":[\"h8\",\"i9\"],\"format\":\"svg\",\"crop\":true,\"margin\":1}", &r);
    cr_assert_eq(crop.width, full.width, "the longer side keeps the pixels asked for");
    char *svg = malloc(crop.len + 1);
    memcpy(svg, crop.data, crop.len);
    svg[crop.len] = 0;
    /* 2x2 stones + 1 around = 4 lines, grown to the minimum of 5: f..j or g..k */
    cr_assert(strstr(svg, "<title>h</title>") && strstr(svg, "<title>i</title>"));
    cr_assert_null(strstr(svg, "<title>a</title>"));
    cr_assert_null(strstr(svg, "<title>o</title>"));
    cr_assert_eq(count(svg, "<title>") - 2 /* numbers */, 10, "five letters and five numbers");
    free(svg);
    free(full.data);
    free(crop.data);
}

/* ---- GIF ---------------------------------------------------------------- */

typedef struct {
    const unsigned char *data;
    size_t len, off;
} GifReader;

static int read_gif(GifFileType *g, GifByteType *buf, int n)
{
    GifReader *r = g->UserData;
    size_t k = r->len - r->off < (size_t)n ? r->len - r->off : (size_t)n;
    memcpy(buf, r->data + r->off, k);
    r->off += k;
    return (int)k;
}

/* Decodes a GIF with giflib: its frame count; the delay of frame 0 in *delay_cs. */
static int gif_frames(const RenderOutput *o, int *delay_cs, int *w, int *h)
{
    GifReader rd = {o->data, o->len, 0};
    int err = 0;
    GifFileType *g = DGifOpen(&rd, read_gif, &err);
    cr_assert_not_null(g, "giflib cannot open it (%d)", err);
    cr_assert_eq(DGifSlurp(g), GIF_OK, "giflib cannot decode it (%d)", g->Error);
    GraphicsControlBlock gcb;
    if (delay_cs) *delay_cs = DGifSavedExtensionToGCB(g, 0, &gcb) == GIF_OK ? gcb.DelayTime : -1;
    *w = g->SWidth;
    *h = g->SHeight;
    int n = g->ImageCount;
    DGifCloseFile(g, &err);
    return n;
}

Test(render, a_game_animates_one_frame_per_move, .init = init)
{
    RenderOutput o = draw("{\"moves\":[\"h8\",\"i9\",\"h9\",\"h10\",\"h7\",\"h6\",\"i8\"],\"format\":\"gif\","
                          "\"pixels\":240,\"delay_ms\":400}",
                          NULL);
    cr_assert(o.len > 6 && !memcmp(o.data, "GIF89a", 6));
    int delay, w, h;
    cr_assert_eq(gif_frames(&o, &delay, &w, &h), 7);
    cr_assert_eq(o.frames, 7);
    cr_assert_eq(delay, 40, "400 ms is 40 hundredths");
    cr_assert_eq(w, o.width);
    cr_assert_eq(h, o.height);
    free(o.data);
    RenderOutput still = draw("{\"moves\":[\"h8\",\"i9\"],\"format\":\"gif\",\"animate\":false,\"pixels\":120}", NULL);
    cr_assert_eq(gif_frames(&still, NULL, &w, &h), 1);
    free(still.data);
    RenderOutput empty = draw("{\"format\":\"gif\",\"pixels\":120}", NULL);
    cr_assert_eq(gif_frames(&empty, NULL, &w, &h), 1);
    free(empty.data);
    /* a diagram has no order: a still picture unless an animation is asked for */
    RenderOutput diagram = draw("{\"format\":\"gif\",\"pixels\":120,\"stones\":{\"black\":[\"h8\"],\"white\":[\"i9\"]}}", NULL);
    cr_assert_eq(gif_frames(&diagram, NULL, &w, &h), 1);
    free(diagram.data);
}

Test(render, a_gif_frame_looks_like_the_png_of_the_same_position, .init = init)
{
    /* the one-frame GIF, quantised, against the PNG: the palette keeps the picture */
    RenderOutput gif = draw("{\"moves\":[\"h8\",\"i9\",\"h9\"],\"format\":\"gif\",\"animate\":false,\"pixels\":200}", NULL);
    RenderOutput png = draw("{\"moves\":[\"h8\",\"i9\",\"h9\"],\"format\":\"png\",\"pixels\":200}", NULL);
    GifReader rd = {gif.data, gif.len, 0};
    int err;
    GifFileType *g = DGifOpen(&rd, read_gif, &err);
    cr_assert_eq(DGifSlurp(g), GIF_OK);
    cairo_surface_t *s = decode_png(png.data, png.len);
    const unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s), w = g->SWidth, h = g->SHeight;
    const ColorMapObject *cm = g->SColorMap;
    long far = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            GifColorType c = cm->Colors[g->SavedImages[0].RasterBits[y * w + x]];
            const unsigned char *p = px + (size_t)y * (size_t)stride + 4 * (size_t)x; /* B G R A */
            if (abs(c.Red - p[2]) > 40 || abs(c.Green - p[1]) > 40 || abs(c.Blue - p[0]) > 40) far++;
        }
    cr_assert_lt((double)far / (w * h), 0.01, "%ld pixels far from the PNG's", far);
    DGifCloseFile(g, &err);
    cairo_surface_destroy(s);
    free(gif.data);
    free(png.data);
}

/* ---- the parser ---------------------------------------------------------- */

Test(render, bad_options_are_problems_naming_the_member, .init = init)
{
    assert_refused("{\"format\":\"jpeg\"}", 400, "format");
    assert_refused("{\"pixels\":10}", 400, "pixels");
    assert_refused("{\"pixels\":2000,\"format\":\"gif\"}", 400, "pixels");
    assert_refused("{\"theme\":\"blue\"}", 400, "theme");
    assert_refused("{\"style\":3}", 400, "style");
    assert_refused("{\"numbers\":0}", 400, "numbers");
    assert_refused("{\"crop\":\"yes\"}", 400, "crop");
    assert_refused("{\"margin\":11}", 400, "margin");
    assert_refused("{\"delay_ms\":5,\"format\":\"gif\"}", 400, "delay_ms");
    assert_refused("{\"animate\":true}", 400, "animate");
    assert_refused("{\"format\":\"gif\",\"animate\":true,\"stones\":{\"black\":[\"h8\"],\"white\":[]}}", 422,
                   "animate");
    assert_refused("{\"limits\":{\"depth\":2}}", 400, "limits");
    assert_refused("{\"multipv\":2}", 400, "multipv");
    assert_refused("{\"analyze\":true,\"multipv\":99}", 400, "multipv");
    assert_refused("{\"analyze\":true,\"analysis\":{}}", 400, "analysis");
    assert_refused("{\"board_size\":26}", 400, "board_size");
    assert_refused("{\"moves\":[\"h8\",\"h8\"]}", 422, "moves[1]");
    assert_refused("{\"colour\":\"red\"}", 400, "colour");
    assert_refused("{\"pixels\":300,\"pixels\":400}", 400, "pixels");
    assert_refused("", 400, "");
    assert_refused("{\"moves\":[\"h8\"]", 400, "");
}

Test(render, an_analysis_that_does_not_fit_the_position_is_422_naming_the_point, .init = init)
{
    assert_refused("{\"moves\":[\"h8\"],\"analysis\":{\"best_move\":\"h8\"}}", 422, "analysis.best_move");
    assert_refused("{\"moves\":[\"h8\"],\"analysis\":{\"pv\":[\"i9\",\"h8\"]}}", 422, "analysis.pv[1]");
    assert_refused("{\"moves\":[\"h8\"],\"analysis\":{\"pv\":[\"i9\",\"i9\"]}}", 422, "analysis.pv[1]");
    assert_refused("{\"moves\":[\"h8\"],\"analysis\":{\"pv\":[\"z1\"]}}", 422, "analysis.pv[0]");
    assert_refused("{\"moves\":[\"h8\"],\"analysis\":{\"best_move\":\"i9\",\"pv\":[\"j9\"]}}", 422, "analysis.pv[0]");
    assert_refused("{\"moves\":[\"h8\"],\"analysis\":{\"pvs\":[{\"move\":\"i9\",\"winrate\":1.5}]}}", 400,
                   "analysis.pvs[0].winrate");
    assert_refused("{\"moves\":[\"h8\"],\"analysis\":{\"pvs\":[{\"move\":\"h8\",\"winrate\":0.5}]}}", 422,
                   "analysis.pvs[0].move");
    assert_refused("{\"moves\":[\"h8\"],\"analysis\":{\"board_size\":19,\"best_move\":\"i9\"}}", 422,
                   "analysis.board_size");
    assert_refused("{\"moves\":[\"h8\"],\"analysis\":[1]}", 400, "analysis");
}

Test(render, an_answer_of_analyze_is_accepted_as_the_analysis, .init = init)
{
    /* what POST /v1/analyze answers, extra members and all */
    ApiRender r;
    ApiProblem p;
    const char *body =
        "{\"moves\":[\"h8\",\"h9\"],\"analysis\":{\"id\":\"g1\",\"rule\":\"freestyle\",\"board_size\":15,"
        "\"side_to_move\":\"black\",\"best_move\":\"e9\",\"score\":271,\"winrate\":0.535,\"mate\":null,"
        "\"pv\":[\"e9\",\"g7\"],\"pvs\":[{\"move\":\"e9\",\"score\":271,\"winrate\":0.535,\"mate\":null,"
        "\"pv\":[\"e9\",\"g7\"]}],\"depth\":6,\"seldepth\":8,\"nodes\":91325,\"nps\":510195,\"time_ms\":179,"
        "\"complete\":true,\"forbidden\":[]}}";
    cr_assert(api_parse_render(body, strlen(body), &caps, API_IMAGE_SVG, &r, &p), "%s (%s)", p.detail, p.field);
    cr_assert(r.overlay.present);
    cr_assert_eq(r.overlay.best, move_parse("e9", 15));
    cr_assert_eq(r.overlay.pv_len, 2);
    cr_assert_eq(r.overlay.ncand, 1);
    cr_assert_float_eq(r.overlay.winrate[0], 0.535, 1e-9);
}

Test(render, the_format_falls_back_to_the_callers_choice_and_gif_animates, .init = init)
{
    ApiRender r;
    ApiProblem p;
    cr_assert(api_parse_render("{}", 2, &caps, API_IMAGE_PNG, &r, &p));
    cr_assert_eq(r.format, API_IMAGE_PNG);
    cr_assert_not(r.animate);
    cr_assert(api_parse_render("{\"format\":\"svg\"}", 16, &caps, API_IMAGE_PNG, &r, &p));
    cr_assert_eq(r.format, API_IMAGE_SVG);
    cr_assert(api_parse_render("{}", 2, &caps, API_IMAGE_GIF, &r, &p));
    cr_assert(r.animate);
    cr_assert_str_eq(api_image_type(API_IMAGE_GIF), "image/gif");
}

Test(render, a_query_is_parsed_like_a_body_and_problems_name_its_parameters, .init = init)
{
    ApiRender r;
    ApiProblem p;
    const char *n1[] = {"moves", "rule", "size", "format", "crop", "numbers", "pixels"};
    const char *v1[] = {"h8,i9,j10", "standard", "19", "png", "true", "2", "300"};
    cr_assert(api_parse_render_query(n1, v1, 7, &caps, API_IMAGE_SVG, &r, &p), "%s (%s)", p.detail, p.field);
    cr_assert_eq(r.req.pos.nmoves, 3);
    cr_assert_eq(r.req.pos.size, 19);
    cr_assert_eq(r.req.pos.rule, RULE_STANDARD);
    cr_assert_eq(r.req.pos.moves[2], move_parse("j10", 19));
    cr_assert_eq(r.format, API_IMAGE_PNG);
    cr_assert(r.crop);
    cr_assert_eq(r.numbers_from, 2);
    cr_assert_eq(r.pixels, 300);

    const char *n2[] = {"black", "white", "to_move", "analyze", "depth", "multipv"};
    const char *v2[] = {"h8,i9", "h9", "white", "true", "3", "2"};
    cr_assert(api_parse_render_query(n2, v2, 6, &caps, API_IMAGE_SVG, &r, &p), "%s (%s)", p.detail, p.field);
    cr_assert_not(r.req.pos.ordered);
    cr_assert_eq(r.req.depth, 3);
    cr_assert_eq(r.req.multipv, 2);
    cr_assert(r.analyze);

    struct { const char *name, *value, *field; int status; } bad[] = {
        {"size", "4", "size", 400},          {"size", "x", "size", 400},     {"moves", "h8,h8", "moves[1]", 422},
        {"depth", "3", "depth", 400},        {"pixels", "big", "pixels", 400}, {"crop", "maybe", "crop", 400},
        {"black", "h8,i9,j9", "black", 422}, {"zoom", "2", "zoom", 400},      {"moves", "h8,,i9", "moves[1]", 422},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_not(api_parse_render_query(&bad[i].name, &bad[i].value, 1, &caps, API_IMAGE_SVG, &r, &p), "%s=%s",
                      bad[i].name, bad[i].value);
        cr_assert_eq(p.status, bad[i].status, "%s=%s: %d %s", bad[i].name, bad[i].value, p.status, p.detail);
        cr_assert_str_eq(p.field, bad[i].field, "%s=%s: %s", bad[i].name, bad[i].value, p.detail);
    }
    cr_assert_null(strstr(p.detail, "board_size"));
    const char *twice[] = {"size", "size"}, *vals[] = {"15", "19"};
    cr_assert_not(api_parse_render_query(twice, vals, 2, &caps, API_IMAGE_SVG, &r, &p));
    cr_assert_str_eq(p.field, "size");
}

/* ---- gomokud render ------------------------------------------------------- */

Test(render, the_command_writes_the_same_picture_as_the_api, .init = init, .timeout = 60)
{
    const char *dir = getenv("GOMOKUD_BIN_DIR");
    cr_assert_not_null(dir, "GOMOKUD_BIN_DIR is not set");
    char out[] = "/tmp/gomokud-render-cli-XXXXXX";
    int fd = mkstemp(out);
    cr_assert_geq(fd, 0);
    close(fd);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s/gomokud render --moves h8,i9,h9 --format png --pixels 200 --out %s", dir, out);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    size_t len;
    char *file = slurp(out, &len);
    RenderOutput o = draw("{\"moves\":[\"h8\",\"i9\",\"h9\"],\"format\":\"png\",\"pixels\":200}", NULL);
    cr_assert_eq(len, o.len);
    cr_assert_eq(memcmp(file, o.data, len), 0);
    free(file);
    free(o.data);
    /* a bad option: exit 2 and the field on stderr, nothing written */
    snprintf(cmd, sizeof cmd, "%s/gomokud render --moves h8,h8 --out %s.bad 2>&1", dir, out);
    FILE *p = popen(cmd, "r");
    char msg[512] = "";
    size_t n = fread(msg, 1, sizeof msg - 1, p);
    msg[n] = 0;
    int st = pclose(p);
    cr_assert_eq(WEXITSTATUS(st), 2, "%s", msg);
    cr_assert(strstr(msg, "moves[1]"), "%s", msg);
    char bad[64];
    snprintf(bad, sizeof bad, "%s.bad", out);
    cr_assert_neq(access(bad, F_OK), 0);
    /* the format from the extension; a search on the command line */
    snprintf(cmd, sizeof cmd, "%s/gomokud render --moves h8,i9 --analyze true --depth 2 --out %s.gif", dir, out);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(bad, sizeof bad, "%s.gif", out);
    char *gif = slurp(bad, &len);
    cr_assert(len > 6 && !memcmp(gif, "GIF89a", 6));
    free(gif);
    unlink(bad);
    unlink(out);
}

/* ---- HTTP --------------------------------------------------------------- */

static Server *srv;
static uint16_t port;

typedef HttpResp Resp;

static Resp call(const char *method, const char *path, const char *body, const char *header)
{
    return http_request_on(NULL, port, method, path, body, header);
}

static void serve(void)
{
    Config c;
    char err[256];
    cr_assert(engine_init());
    config_defaults(&c);
    c.port = 0;
    c.workers = 2;
    c.queue_length = 8;
    c.max_batch = 8;
    c.tt_mib = 1;
    c.default_time_ms = 200;
    c.max_multipv = 4;
    c.log_level = LOG_ERROR;
    c.result_cache = 0;
    cr_assert(config_finish(&c, err, sizeof err), "%s", err);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    cr_assert(server_start(&c, &srv, err, sizeof err), "%s", err);
    port = server_port(srv);
}

static void unserve(void)
{
    server_stop(srv);
    srv = NULL;
}

static void assert_problem(Resp *r, int status, const char *field)
{
    char want[96];
    cr_assert_eq(r->status, status, "status %ld: %s", r->status, r->body);
    cr_assert_str_eq(http_header(r, "Content-Type"), "application/problem+json");
    snprintf(want, sizeof want, "\"field\":\"%s\"", field);
    cr_assert(strstr(r->body, want), "%s in %s", want, r->body);
    free(r->body);
}

TestSuite(render_http, .init = serve, .fini = unserve, .timeout = 60);

Test(render_http, get_draws_svg_by_default_and_png_or_gif_when_asked)
{
    Resp r = call("GET", "/v1/render?moves=h8,i9,h9", NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(http_header(&r, "Content-Type"), "image/svg+xml");
    cr_assert(strstr(r.body, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    cr_assert_str_eq(http_header(&r, "Cache-Control"), "max-age=86400", "a picture without a search may be kept");
    free(r.body);
    r = call("GET", "/v1/render?moves=h8,i9,h9&format=png&pixels=200", NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(http_header(&r, "Content-Type"), "image/png");
    cr_assert(r.len > 8 && !memcmp(r.body, "\x89PNG\r\n\x1a\n", 8));
    free(r.body);
    r = call("GET", "/v1/render?moves=h8,i9,h9", NULL, "Accept: text/html, image/png;q=0.9, */*");
    cr_assert_str_eq(http_header(&r, "Content-Type"), "image/png");
    free(r.body);
    r = call("GET", "/v1/render?moves=h8,i9,h9&format=gif&pixels=160", NULL, NULL);
    cr_assert_str_eq(http_header(&r, "Content-Type"), "image/gif");
    RenderOutput o = {.data = (unsigned char *)r.body, .len = r.len};
    int w, h;
    cr_assert_eq(gif_frames(&o, NULL, &w, &h), 3);
    free(r.body);
    r = call("GET", "/v1/render?moves=h8%2Ci9", NULL, "Accept: image/gif");
    cr_assert_str_eq(http_header(&r, "Content-Type"), "image/gif", "an encoded comma splits too");
    free(r.body);
}

Test(render_http, post_draws_a_position_and_searches_it_when_asked)
{
    Resp r = call("POST", "/v1/render",
                  "{\"moves\":[\"h8\",\"i9\"],\"format\":\"png\",\"pixels\":200,\"analyze\":true,"
                  "\"limits\":{\"depth\":3},\"multipv\":2}",
                  NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(http_header(&r, "Content-Type"), "image/png");
    cr_assert_str_eq(http_header(&r, "Cache-Control"), "no-store", "a search's picture is not kept");
    cairo_surface_t *s = decode_png((unsigned char *)r.body, r.len);
    cr_assert_eq(cairo_image_surface_get_width(s), 200);
    cairo_surface_destroy(s);
    free(r.body);
    r = call("POST", "/v1/render", "{\"moves\":[\"h8\",\"i9\"],\"analyze\":true,\"limits\":{\"depth\":2}}", NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(http_header(&r, "Content-Type"), "image/svg+xml");
    cr_assert(strstr(r.body, "stroke=\"#1760c8\""), "the best move and its line in the accent colour");
    free(r.body);
}

Test(render_http, head_answers_the_headers_of_get)
{
    Resp r = call("HEAD", "/v1/render?moves=h8&format=png", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(http_header(&r, "Content-Type"), "image/png");
    cr_assert_eq(r.len, 0);
    free(r.body);
}

Test(render_http, other_methods_are_405_with_allow)
{
    Resp r = call("PUT", "/v1/render", "{}", NULL);
    cr_assert_eq(r.status, 405);
    cr_assert_str_eq(http_header(&r, "Allow"), "GET, HEAD, POST, OPTIONS");
    free(r.body);
    r = call("DELETE", "/v1/render", NULL, NULL);
    cr_assert_eq(r.status, 405);
    free(r.body);
}

Test(render_http, bad_input_is_a_problem_naming_the_field)
{
    Resp r = call("GET", "/v1/render?size=30", NULL, NULL);
    assert_problem(&r, 400, "size");
    r = call("GET", "/v1/render?moves=h8,z99", NULL, NULL);
    assert_problem(&r, 422, "moves[1]");
    r = call("GET", "/v1/render?format=bmp", NULL, NULL);
    assert_problem(&r, 400, "format");
    r = call("GET", "/v1/render?depth=4", NULL, NULL);
    assert_problem(&r, 400, "depth");
    r = call("GET", "/v1/render?theme=light&theme=dark", NULL, NULL);
    assert_problem(&r, 400, "theme");
    r = call("POST", "/v1/render", "{\"moves\":[\"h8\"],\"pixels\":5000}", NULL);
    assert_problem(&r, 400, "pixels");
    r = call("POST", "/v1/render", "{\"moves\":[\"h8\"],\"analysis\":{\"pv\":[\"h8\"]}}", NULL);
    assert_problem(&r, 422, "analysis.pv[0]");
    r = call("POST", "/v1/render", "", NULL);
    assert_problem(&r, 400, "");
    r = call("POST", "/v1/render", "{\"moves\":", NULL);
    assert_problem(&r, 400, "");
}
