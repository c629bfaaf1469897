/*
 * cmd_render.c - `gomokud render`: the pictures of POST/GET /v1/render on
 * the command line, written to a file (or stdout).
 *
 *   gomokud render --moves h8,h9,i9 --format png --out board.png
 *   gomokud render --json request.json --out board.svg    (a POST body; - for stdin)
 *
 * Every other --NAME VALUE is the GET query parameter of that name (rule,
 * size, moves, black, white, to_move, format, pixels, style, theme,
 * coordinates, numbers, last_move, forbidden, crop, margin, animate,
 * delay_ms, analyze, depth, time_ms, nodes, multipv), with the same checks
 * and the same problem when one is wrong. Without --format, the format is
 * the --out file's extension (.svg, .png, .gif), else svg. With --analyze
 * true the position is searched here, in this process, with one engine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/render_request.h"
#include "engine/engine.h"
#include "server/commands.h"
#include "server/render.h"

#define RENDER_DEFAULT_TIME_MS 1000 /* a search without limits */
#define RENDER_MAX_ARGS 64
#define RENDER_JSON_MAX (1 << 20)

static void render_usage(FILE *f)
{
    fprintf(f,
            "usage: gomokud render [--NAME VALUE ...] [--json FILE] [--out FILE]\n"
            "Draws a position as SVG, PNG or an animated GIF (as GET/POST /v1/render).\n"
            "  --out FILE      where to write the picture (default: stdout)\n"
            "  --json FILE     a POST /v1/render body (- for stdin) instead of the options below\n"
            "  --moves h8,h9   the game; or --black h8,i9 --white h9 [--to_move black]\n"
            "  --rule R        freestyle | standard | renju        --size N   board size 5..25\n"
            "  --format F      svg | png | gif (default: from --out's extension, else svg)\n"
            "  --pixels N      64..2048 (gif: ..1024), default %d   --theme light|dark   --style wood|plain\n"
            "  --numbers all|none|N   --coordinates, --last_move, --forbidden, --crop true|false\n"
            "  --margin N      points around the stones when cropping (default %d)\n"
            "  --animate true|false   --delay_ms N   (gif: one frame per move, N ms each)\n"
            "  --analyze true  search first and draw the best move, its line and the candidates\n"
            "                  (--depth N, --time_ms N, --nodes N, --multipv N; default %d ms)\n",
            API_RENDER_PIXELS_DEFAULT, API_RENDER_MARGIN_DEFAULT, RENDER_DEFAULT_TIME_MS);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) return NULL;
    char *buf = malloc(RENDER_JSON_MAX + 1);
    size_t n = buf ? fread(buf, 1, RENDER_JSON_MAX + 1, f) : 0;
    bool bad = !buf || ferror(f) || n > RENDER_JSON_MAX;
    if (f != stdin) fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static ApiImageFormat format_of_path(const char *out)
{
    const char *dot = out ? strrchr(out, '.') : NULL;
    ApiImageFormat f = API_IMAGE_SVG;
    if (dot) api_image_format_parse(dot + 1, &f);
    return f;
}

int cmd_render(int argc, char **argv)
{
    const char *names[RENDER_MAX_ARGS], *values[RENDER_MAX_ARGS], *out_path = NULL, *json_path = NULL;
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            render_usage(stdout);
            return 0;
        }
        if (strncmp(argv[i], "--", 2) || i + 1 >= argc) {
            fprintf(stderr, "gomokud render: expected --NAME VALUE, got '%s'\n", argv[i]);
            render_usage(stderr);
            return 2;
        }
        const char *name = argv[i] + 2, *value = argv[++i];
        if (!strcmp(name, "out")) out_path = value;
        else if (!strcmp(name, "json")) json_path = value;
        else if (n < RENDER_MAX_ARGS) names[n] = name, values[n++] = value;
        else {
            fprintf(stderr, "gomokud render: too many options\n");
            return 2;
        }
    }
    ApiCaps caps = {.default_time_ms = RENDER_DEFAULT_TIME_MS, .max_multipv = ENGINE_MAX_MULTIPV};
    ApiRender *r = malloc(sizeof *r);
    ApiProblem p;
    if (!r) return 1;
    bool ok;
    if (json_path) {
        size_t len = 0;
        char *body = read_all(json_path, &len);
        if (!body) {
            fprintf(stderr, "gomokud render: cannot read %s (or it is over %d bytes)\n", json_path, RENDER_JSON_MAX);
            free(r);
            return 1;
        }
        if (n) {
            fprintf(stderr, "gomokud render: --json takes the whole request; --%s is not used with it\n", names[0]);
            free(body);
            free(r);
            return 2;
        }
        ok = api_parse_render(body, len, &caps, format_of_path(out_path), r, &p);
        free(body);
    } else {
        ok = api_parse_render_query(names, values, n, &caps, format_of_path(out_path), r, &p);
    }
    if (!ok) {
        fprintf(stderr, "gomokud render: %s%s%s\n", p.field[0] ? p.field : "", p.field[0] ? ": " : "", p.detail);
        free(r);
        return 2;
    }
    if (r->analyze) {
        EngineOptions eo = {.tt_mib = 0};
        Engine *e = engine_new(&eo);
        EngineResult *res = malloc(sizeof *res);
        Limits lim = api_limits(&r->req);
        if (!e || !res || engine_analyze(e, &r->req.pos, &lim, res, NULL) != POSITION_OK) {
            fprintf(stderr, "gomokud render: the search failed (out of memory?)\n");
            engine_free(e);
            free(res);
            free(r);
            return 1;
        }
        api_render_take_result(r, res);
        engine_free(e);
        free(res);
    }
    RenderOutput img;
    if (!render_image(r, &img)) {
        fprintf(stderr, "gomokud render: out of memory drawing the picture\n");
        free(r);
        return 1;
    }
    free(r);
    FILE *f = out_path ? fopen(out_path, "wb") : stdout;
    bool written = f && fwrite(img.data, 1, img.len, f) == img.len;
    if (f && f != stdout) written = (fclose(f) == 0) && written;
    else if (f) written = fflush(f) == 0 && written;
    free(img.data);
    if (!written) {
        fprintf(stderr, "gomokud render: cannot write %s\n", out_path ? out_path : "stdout");
        return 1;
    }
    return 0;
}
