/* tactics.c - reader of the tactics suite (see tactics.h). The lines are
 * flat JSON objects of a known shape, so a small scanner does; it needs no
 * JSON library and refuses anything it does not understand. */
#include "tactics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/rules.h"

/* Points p just past `"key":` and any blanks, or returns NULL. */
static const char *value_of(const char *line, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ') p++;
    return p;
}

static bool string_value(const char *line, const char *key, char *out, size_t n)
{
    const char *p = value_of(line, key);
    if (!p || *p != '"') return false;
    const char *q = strchr(p + 1, '"');
    if (!q || (size_t)(q - p - 1) >= n) return false;
    memcpy(out, p + 1, (size_t)(q - p - 1));
    out[q - p - 1] = 0;
    return true;
}

/* Reads an array of notation strings. Returns the count or -1. */
static int point_list(const char *line, const char *key, int size, Move *out, int max)
{
    const char *p = value_of(line, key);
    if (!p || *p != '[') return -1;
    int n = 0;
    for (p++;;) {
        while (*p == ' ' || *p == ',') p++;
        if (*p == ']') return n;
        if (*p != '"' || n >= max) return -1;
        char buf[8];
        const char *q = strchr(p + 1, '"');
        if (!q || q - p - 1 >= (long)sizeof buf) return -1;
        memcpy(buf, p + 1, (size_t)(q - p - 1));
        buf[q - p - 1] = 0;
        Move m = move_parse_notation(buf, size);
        if (m == MOVE_NONE) return -1;
        out[n++] = m;
        p = q + 1;
    }
}

static bool parse_line(const char *line, Tactic *t)
{
    char rule[16];
    memset(t, 0, sizeof *t);
    const char *sz = value_of(line, "size");
    if (!string_value(line, "rule", rule, sizeof rule) || !rule_parse(rule, &t->pos.rule) || !sz) return false;
    t->pos.size = atoi(sz);
    t->pos.ordered = true;
    if (t->pos.size < BOARD_MIN_SIZE || t->pos.size > BOARD_MAX_SIZE) return false;
    t->pos.nmoves = point_list(line, "moves", t->pos.size, t->pos.moves, BOARD_MAX_MOVES);
    t->nwins = point_list(line, "winning_moves", t->pos.size, t->wins, TACTIC_MAX_WINS);
    if (t->pos.nmoves < 0 || t->nwins < 0) return false;
    return string_value(line, "kind", t->kind, sizeof t->kind);
}

int tactics_load(const char *path, Tactic **out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open %s", path);
        return -1;
    }
    Tactic *v = NULL;
    int n = 0, cap = 0, lineno = 0;
    char *line = NULL;
    size_t linecap = 0;
    while (getline(&line, &linecap, f) > 0) {
        lineno++;
        if (line[0] == '\n') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            Tactic *nv = realloc(v, sizeof *v * (size_t)cap);
            if (!nv) {
                snprintf(err, errlen, "out of memory");
                goto fail;
            }
            v = nv;
        }
        if (!parse_line(line, &v[n])) {
            snprintf(err, errlen, "%s:%d: not a tactics line", path, lineno);
            goto fail;
        }
        n++;
    }
    free(line);
    fclose(f);
    *out = v;
    return n;
fail:
    free(line);
    free(v);
    fclose(f);
    return -1;
}

bool tactics_is_win(const Tactic *t, Move m)
{
    if (t->nwins == 0) return true;
    for (int i = 0; i < t->nwins; i++)
        if (t->wins[i] == m) return true;
    return false;
}

bool tactics_proof_replays(const Tactic *t, const EngineResult *r)
{
    const PvLine *line = &r->pvs[0];
    if (r->mate <= 0 || r->npv < 1 || line->pv_len != 2 * r->mate - 1) return false;
    Board *b = malloc(sizeof *b);
    if (!b || !board_reset(b, t->pos.size, t->pos.rule)) {
        free(b);
        return false;
    }
    for (int k = 0; k < t->pos.nmoves; k++) board_play(b, t->pos.moves[k]);
    Color attacker = b->to_move;
    bool ok = true;
    for (int i = 0; ok && i < line->pv_len; i++) {
        Move m = line->pv[i];
        bool last = i + 1 == line->pv_len;
        ok = board_empty(b, m) && rules_is_legal(b, m) && board_makes_five(b, m, b->to_move) == last &&
             (!last || b->to_move == attacker);
        board_play(b, m);
    }
    free(b);
    return ok;
}
