/*
 * cache.h - a small per-process cache of analysis results.
 *
 * An analysis is identified by everything that decides its answer: rule,
 * board size, the stones and their order (or a diagram), the side to move,
 * the limits and multipv; the request's id is not part of it (the answer is
 * rendered again with the asker's id). At most `entries` results are kept;
 * the least recently used goes first. Safe from any thread.
 */
#ifndef GOMOKUD_CACHE_H
#define GOMOKUD_CACHE_H

#include <stdbool.h>

#include "api/api.h"

typedef struct ResultCache ResultCache;

/* A cache of `entries` (>= 1) results; NULL when memory is short. */
ResultCache *cache_new(int entries);
void cache_free(ResultCache *c);

/* Copies the result of an identical earlier analysis into *out; false when
 * there is none. */
bool cache_get(ResultCache *c, const ApiRequest *req, EngineResult *out);

/* Keeps res as the answer to req, replacing the least recently used entry
 * when full. */
void cache_put(ResultCache *c, const ApiRequest *req, const EngineResult *res);

#endif
