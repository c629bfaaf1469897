/* internal.h - what the modules of api/ share with each other (request.c's
 * parsers, for the render request). Not for callers outside api/: cJSON
 * stays inside api/. */
#ifndef GOMOKUD_API_INTERNAL_H
#define GOMOKUD_API_INTERNAL_H

#include <cjson/cJSON.h>

#include "api/api.h"

/* Parses body[0..len) as one JSON value; the root (caller deletes), or NULL
 * with *err set (400, malformed) or, for an empty or all-blank body, NULL
 * with *empty true and *err untouched. */
cJSON *api_parse_json_body(const char *body, size_t len, bool *empty, ApiProblem *err);

/* The position members of an analyze request (id, rule, board_size, moves
 * or stones and to_move, limits, multipv) from an object, validated as
 * POST /v1/analyze does; unknown members are a 400. */
bool api_parse_position_json(const cJSON *root, const ApiCaps *caps, ApiRequest *out, ApiProblem *err);

/* JSON builders shared by the renderers (response.c, openings.c). Each
 * returns NULL when memory runs out; api_json_put and api_json_push take
 * item (NULL-safe: they fail and free it when obj, arr or item is NULL). */
bool api_json_put(cJSON *obj, const char *name, cJSON *item);
bool api_json_push(cJSON *arr, cJSON *item);
cJSON *api_json_move(Move m, int size);                    /* notation, or null for MOVE_NONE */
cJSON *api_json_moves(const Move *moves, int n, int size); /* an array of notations */
cJSON *api_json_mate(int mate);                            /* +N / -N, or null for 0 */
cJSON *api_json_rounded(double v, double per_unit);        /* v to 1/per_unit (1000: three decimals) */

#endif
