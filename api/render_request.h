/*
 * render_request.h - the request of a board picture (POST and GET
 * /v1/render, `gomokud render`) parsed into plain structs; server/render.c
 * draws it.
 *
 * POST body: the position members of an analyze request (id, rule,
 * board_size, moves or stones and to_move) and these options, all optional:
 *   "format":      "svg" | "png" | "gif"     default: from Accept, else svg
 *   "pixels":      64..2048, the longer side of the image (gif: up to 1024)  600
 *   "style":       "wood" | "plain"                                    wood
 *   "theme":       "light" | "dark"                                    light
 *   "coordinates": true | false, letters below and numbers left       true
 *   "numbers":     "all" | "none" | N: move numbers from move N on     "all"
 *   "last_move":   true | false, mark the last move                   true
 *   "forbidden":   true | false, renju: black's forbidden points when black is to move   true
 *   "crop":        true | false, only the stones' bounding box plus margin   false
 *   "margin":      0..10, points around the box when cropping           2
 *   "animate":     true | false, one frame per move (gif only)         true for a gif of moves
 *   "delay_ms":    20..10000, time per frame of an animation          700
 *   "analyze":     true | false, search the position first (with "limits" and
 *                  "multipv", which need it) and draw the answer       false
 *   "analysis":    an answer of POST /v1/analyze for this position, drawn as is
 *                  (best_move, pv, pvs[].move, pvs[].winrate are read; the
 *                  rest is ignored)
 * Wrong types and out-of-range values are 400s naming the member; points of
 * an analysis that lie off the board or on a stone are 422s naming them
 * ("analysis.pv[3]").
 *
 * GET query: the same names with scalar values, plus moves=h8,h9,...
 * (comma separated), black=... and white=... (a diagram), size (the board
 * size), and depth, time_ms, nodes (the limits). No analysis object.
 * Problems name the query parameter ("size", "depth", "moves[2]").
 */
#ifndef GOMOKUD_RENDER_REQUEST_H
#define GOMOKUD_RENDER_REQUEST_H

#include "api/api.h"

typedef enum { API_IMAGE_SVG = 0, API_IMAGE_PNG, API_IMAGE_GIF } ApiImageFormat;

#define API_RENDER_PIXELS_MIN 64
#define API_RENDER_PIXELS_MAX 2048
#define API_RENDER_GIF_PIXELS_MAX 1024
#define API_RENDER_PIXELS_DEFAULT 600
#define API_RENDER_MARGIN_MAX 10
#define API_RENDER_MARGIN_DEFAULT 2
#define API_RENDER_DELAY_MIN 20
#define API_RENDER_DELAY_MAX 10000
#define API_RENDER_DELAY_DEFAULT 700
#define API_RENDER_PV_MAX 8 /* PV moves drawn at most */

/* What is drawn from an analysis: the best move, its line, and the
 * candidates (best first) with the side to move's win rate. */
typedef struct {
    bool present;
    Move best;
    int pv_len;
    Move pv[API_RENDER_PV_MAX];
    int ncand;
    Move cand[ENGINE_MAX_MULTIPV];
    double winrate[ENGINE_MAX_MULTIPV]; /* 0..1 */
} ApiOverlay;

typedef struct {
    ApiRequest req; /* the position; limits and multipv when analyze */
    ApiImageFormat format;
    int pixels;
    bool wood, dark, coordinates, last_move, forbidden, crop, animate, analyze;
    int numbers_from; /* 1: every move numbered; 0: none; N: from move N on */
    int margin;
    int delay_ms;
    ApiOverlay overlay; /* from "analysis", or from the search (api_render_take_result) */
} ApiRender;

/* Sets out to the defaults for the empty board (format svg). */
void api_render_defaults(ApiRender *out);

/* Parses a POST body. fallback is the format when the body names none (the
 * server's choice from Accept). False with *err set (400/422) on bad
 * input. */
bool api_parse_render(const char *body, size_t len, const ApiCaps *caps, ApiImageFormat fallback, ApiRender *out,
                      ApiProblem *err);

/* Parses GET query parameters: n pairs of names and values (values may be
 * NULL for a bare name). A name given twice is a 400. */
bool api_parse_render_query(const char *const *names, const char *const *values, int n, const ApiCaps *caps,
                            ApiImageFormat fallback, ApiRender *out, ApiProblem *err);

/* Fills the overlay from a search of the request's position. */
void api_render_take_result(ApiRender *r, const EngineResult *res);

/* "svg" -> API_IMAGE_SVG ...; false for anything else. */
bool api_image_format_parse(const char *s, ApiImageFormat *out);

/* The media type of a format: "image/svg+xml", "image/png", "image/gif". */
const char *api_image_type(ApiImageFormat f);

#endif
