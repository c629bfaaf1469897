/* book.c - the opening book: parsing, lookup, symmetry (see book.h and engine.h). */
#include "book.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

typedef struct {
    uint64_t key;
    Move move; /* in the orientation of the least key */
    int16_t depth;
    Score score;
} BookEntry;

struct EngineBook {
    size_t n;
    BookEntry *e; /* sorted by key, keys unique */
};

uint64_t book_key(const Board *b, int *sym)
{
    uint64_t best = board_sym_key(b, 0);
    int bt = 0;
    for (int t = 1; t < 8; t++) {
        uint64_t k = board_sym_key(b, t);
        if (k < best) {
            best = k;
            bt = t;
        }
    }
    if (sym) *sym = bt;
    return best;
}

static const BookEntry *find(const EngineBook *book, uint64_t key)
{
    size_t lo = 0, hi = book ? book->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (book->e[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    return book && lo < book->n && book->e[lo].key == key ? &book->e[lo] : NULL;
}

bool book_probe(const EngineBook *book, const Board *b, BookHit *hit)
{
    if (!book || !book->n) return false;
    int t;
    const BookEntry *e = find(book, book_key(b, &t));
    if (!e) return false;
    Move m = board_sym_unmove(e->move, b->size, t);
    if (!board_empty(b, m)) return false;
    hit->move = m;
    hit->score = e->score;
    hit->depth = e->depth;
    return true;
}

static bool fail(char *err, size_t errlen, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bool fail(char *err, size_t errlen, int line, const char *fmt, ...)
{
    if (!err || !errlen) return false;
    int n = line > 0 ? snprintf(err, errlen, "line %d: ", line) : 0;
    if (n < 0 || (size_t)n >= errlen) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static int cmp_entry(const void *a, const void *b)
{
    uint64_t x = ((const BookEntry *)a)->key, y = ((const BookEntry *)b)->key;
    return x < y ? -1 : x > y;
}

/* Parses one entry line "rule size key move score depth". */
static bool parse_line(const char *s, BookEntry *out, char *err, size_t errlen, int line)
{
    char rule[16], key[32], move[16];
    int size, score, depth, used = 0;
    if (sscanf(s, "%15s %d %31s %15s %d %d %n", rule, &size, key, move, &score, &depth, &used) != 6 ||
        s[used] != '\0')
        return fail(err, errlen, line, "expected \"rule size key move score depth\"");
    Rule r;
    if (!rule_parse(rule, &r)) return fail(err, errlen, line, "unknown rule \"%s\"", rule);
    if (size < BOARD_MIN_SIZE || size > BOARD_MAX_SIZE)
        return fail(err, errlen, line, "board size %d is not from %d to %d", size, BOARD_MIN_SIZE, BOARD_MAX_SIZE);
    char *end;
    if (strlen(key) != 16 || strspn(key, "0123456789abcdef") != 16)
        return fail(err, errlen, line, "key \"%s\" is not 16 lower-case hex digits", key);
    out->key = strtoull(key, &end, 16);
    out->move = move_parse_notation(move, size);
    if (out->move == MOVE_NONE) return fail(err, errlen, line, "\"%s\" is not a point of a %dx%d board", move, size, size);
    if (score <= -SCORE_INF || score >= SCORE_INF) return fail(err, errlen, line, "score %d is out of range", score);
    if (depth < 0 || depth > ENGINE_MAX_DEPTH)
        return fail(err, errlen, line, "depth %d is not from 0 to %d", depth, ENGINE_MAX_DEPTH);
    out->score = score;
    out->depth = (int16_t)depth;
    return true;
}

EngineBook *engine_book_parse(const char *text, size_t len, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    EngineBook *book = calloc(1, sizeof *book);
    if (!book) return fail(err, errlen, 0, "out of memory"), NULL;
    size_t cap = 0;
    int line = 0;
    char buf[256];
    for (size_t pos = 0; pos < len;) {
        size_t end = pos;
        while (end < len && text[end] != '\n') end++;
        line++;
        size_t n = end - pos;
        if (n && text[pos + n - 1] == '\r') n--;
        if (n >= sizeof buf) {
            fail(err, errlen, line, "line longer than %zu bytes", sizeof buf - 1);
            goto bad;
        }
        memcpy(buf, text + pos, n);
        buf[n] = '\0';
        pos = end + 1;
        if (memchr(buf, '\0', n)) {
            fail(err, errlen, line, "NUL byte: not a text book");
            goto bad;
        }
        const char *s = buf + strspn(buf, " \t");
        if (*s == '\0' || *s == '#') continue;
        if (book->n == cap) {
            size_t nc = cap ? 2 * cap : 256;
            BookEntry *ne = realloc(book->e, nc * sizeof *ne);
            if (!ne) {
                fail(err, errlen, 0, "out of memory");
                goto bad;
            }
            book->e = ne;
            cap = nc;
        }
        if (!parse_line(s, &book->e[book->n], err, errlen, line)) goto bad;
        book->n++;
    }
    if (book->n == 0) {
        fail(err, errlen, 0, "no positions in the book");
        goto bad;
    }
    qsort(book->e, book->n, sizeof *book->e, cmp_entry);
    for (size_t i = 1; i < book->n; i++)
        if (book->e[i].key == book->e[i - 1].key) {
            fail(err, errlen, 0, "key %016llx is listed twice", (unsigned long long)book->e[i].key);
            goto bad;
        }
    return book;
bad:
    engine_book_free(book);
    return NULL;
}

void engine_book_free(EngineBook *book)
{
    if (!book) return;
    free(book->e);
    free(book);
}

size_t engine_book_size(const EngineBook *book) { return book ? book->n : 0; }

size_t engine_book_format_entry(const Position *p, Move move, Score score, int depth, char *buf, size_t len)
{
    Board *b = malloc(sizeof *b);
    if (!b) return 0;
    size_t n = 0;
    if (board_reset(b, p->size, p->rule)) {
        for (int i = 0; i < p->nmoves; i++) board_play(b, p->moves[i]);
        int t;
        uint64_t k = book_key(b, &t);
        char mv[8];
        int w = snprintf(buf, len, "%s %d %016llx %s %d %d\n", rule_name(p->rule), p->size, (unsigned long long)k,
                         move_to_notation(board_sym_move(move, p->size, t), p->size, mv), (int)score, depth);
        n = w > 0 && (size_t)w < len ? (size_t)w : 0;
    }
    free(b);
    return n;
}
