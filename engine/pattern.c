/* pattern.c - builds the line-pattern and threat tables (see pattern.h). */
#include "pattern.h"

#include <stdlib.h>
#include <string.h>

#define LINE_LEN (2 * PATTERN_HALF + 1)
#define CENTER PATTERN_HALF
#define MEMO_SIZE (1u << 20)
#define MEMO_UNKNOWN 0xFF

static uint8_t *tables_storage;
const uint8_t *pattern_table[RULE_COUNT];
const uint16_t *pattern_info_table[2];

/*
 * Lines are handled as two 11-bit masks for the side being classified: own
 * stones and empty points (anything else blocks). Bit CENTER is the point
 * being played and is always own.
 */
typedef struct {
    uint8_t *memo; /* MEMO_SIZE entries indexed by the 10 neighbour bits of own and empty, or NULL */
    bool exact;
} Classifier;

static int run_through_center(unsigned own)
{
    int n = 1;
    for (int i = CENTER - 1; i >= 0 && (own >> i & 1); i--) n++;
    for (int i = CENTER + 1; i < LINE_LEN && (own >> i & 1); i++) n++;
    return n;
}

/* Cells beyond the first blocked cell on either side cannot matter. */
static void normalize(unsigned *own, unsigned *empty)
{
    for (int i = CENTER - 1; i >= 0; i--)
        if (!((*own | *empty) >> i & 1)) {
            unsigned lowmask = (1u << i) - 1;
            *own &= ~lowmask;
            *empty &= ~lowmask;
            break;
        }
    for (int i = CENTER + 1; i < LINE_LEN; i++)
        if (!((*own | *empty) >> i & 1)) {
            unsigned highmask = ~((2u << i) - 1);
            *own &= ~highmask;
            *empty &= ~highmask;
            break;
        }
}

static unsigned squeeze(unsigned m) /* drop the centre bit: 11 -> 10 bits */
{
    return (m & ((1u << CENTER) - 1)) | (m >> (CENTER + 1) << CENTER);
}

static bool is_five(const Classifier *c, unsigned own)
{
    int n = run_through_center(own);
    return c->exact ? n == 5 : n >= 5;
}

static Pattern classify(Classifier *c, unsigned own, unsigned empty)
{
    own |= 1u << CENTER;
    empty &= ~(1u << CENTER);
    normalize(&own, &empty);
    unsigned idx = squeeze(own) | squeeze(empty) << 10;
    if (c->memo && c->memo[idx] != MEMO_UNKNOWN) return (Pattern)c->memo[idx];

    Pattern result;
    int run = run_through_center(own);
    if (run >= 5) {
        result = (!c->exact || run == 5) ? P_F5 : P_OL;
        goto done;
    }

    int fives = 0, first = -1, last = -1;
    for (int i = 0; i < LINE_LEN; i++)
        if ((empty >> i & 1) && is_five(c, own | 1u << i)) {
            if (first < 0) first = i;
            last = i;
            fives++;
        }
    if (fives >= 2) {
        result = (fives == 2 && last - first == 5) ? P_F4 : P_F44;
        goto done;
    }
    if (fives == 1) {
        result = P_B4;
        goto done;
    }

    int n_f4 = 0, n_b4 = 0, n_f3 = 0, n_b3 = 0, n_f2 = 0, n_b2 = 0;
    for (int i = 0; i < LINE_LEN; i++) {
        if (!(empty >> i & 1)) continue;
        Pattern sub = classify(c, own | 1u << i, empty & ~(1u << i));
        switch (sub) {
        case P_F4: case P_F44: n_f4++; break;
        case P_B4: n_b4++; break;
        case P_F3: case P_F3S: n_f3++; break;
        case P_B3: n_b3++; break;
        case P_F2: case P_F2A: n_f2++; break;
        case P_B2: n_b2++; break;
        default: break;
        }
    }
    if (n_f4 >= 2) result = P_F3S;
    else if (n_f4 == 1) result = P_F3;
    else if (n_b4) result = P_B3;
    else if (n_f3 >= 2) result = P_F2A;
    else if (n_f3 == 1) result = P_F2;
    else if (n_b3) result = P_B2;
    else if (n_f2) result = P_F1;
    else if (n_b2) result = P_B1;
    else result = P_DEAD;
done:
    if (c->memo) c->memo[idx] = (uint8_t)result;
    return result;
}

static void side_masks(uint32_t key, Color side, unsigned *own, unsigned *empty)
{
    *own = *empty = 0;
    for (int o = -PATTERN_HALF; o <= PATTERN_HALF; o++) {
        if (!o) continue;
        unsigned v = key >> pattern_key_shift(o) & 3;
        int bit = o + CENTER;
        if (v == EMPTY) *empty |= 1u << bit;
        else if (v == (unsigned)side) *own |= 1u << bit;
    }
}

Pattern pattern_classify_line(const Color cells[LINE_LEN], Color side, bool exact)
{
    Classifier c = {NULL, exact}; /* no memo: slow, but shares nothing with the tables */
    unsigned own = 0, empty = 0;
    for (int i = 0; i < LINE_LEN; i++) {
        if (i == CENTER) continue;
        if (cells[i] == EMPTY) empty |= 1u << i;
        else if (cells[i] == side) own |= 1u << i;
    }
    return classify(&c, own, empty);
}

static Threat combine(uint16_t pat4, bool renju_black)
{
    int n[P_COUNT] = {0}, fours = 0;
    for (int d = 0; d < 4; d++) {
        Pattern p = (Pattern)(pat4 >> (4 * d) & 15);
        if (p >= P_COUNT) return T_NONE;
        n[p]++;
        fours += pattern_fours(p);
    }
    if (n[P_F5]) return T_FIVE;
    if (renju_black && (n[P_OL] || fours >= 2)) return T_FORBID;
    int f4 = n[P_F4] + n[P_F44], b4 = n[P_B4], f3 = n[P_F3] + n[P_F3S], b3 = n[P_B3];
    int f2 = n[P_F2] + n[P_F2A], low = n[P_B2] + n[P_F1] + n[P_B1];
    if (f4 || b4 >= 2) return T_F4;
    if (b4 && f3) return T_B4F3;
    if (f3 >= 2) return T_F3X2;
    if (b4 && (b3 || f2)) return T_B4P;
    if (b4) return T_B4;
    if (f3 && (b3 || f2)) return T_F3P;
    if (f3) return T_F3;
    if (f2 >= 2) return T_F2X2;
    if (b3) return T_B3;
    if (f2) return T_F2;
    if (low) return T_LOW;
    return T_NONE;
}

static uint16_t code_patterns[PATTERN_CODES]; /* ascending patterns packed as a pat4 */

void pattern_code_patterns(unsigned code, Pattern out[4])
{
    uint16_t v = code < PATTERN_CODES ? code_patterns[code] : 0;
    for (int d = 0; d < 4; d++) out[d] = (Pattern)(v >> (4 * d) & 15);
}

/* A packed pat4 with its four patterns in ascending order. */
static uint16_t sorted_pat4(unsigned k)
{
    unsigned p[4];
    for (int i = 0; i < 4; i++) {
        unsigned v = k >> (4 * i) & 15;
        int j = i;
        for (; j > 0 && p[j - 1] > v; j--) p[j] = p[j - 1];
        p[j] = v;
    }
    return (uint16_t)(p[0] | p[1] << 4 | p[2] << 8 | p[3] << 12);
}

/* Numbers the multisets in lexicographic order of their ascending patterns
 * and maps every packed pat4 (in any order) to its multiset's number; pat4
 * values with a nibble past P_COUNT never occur and map to 0. */
static void build_codes(uint16_t *table)
{
    unsigned n = 0;
    memset(table, 0, 65536 * sizeof *table);
    for (unsigned a = 0; a < P_COUNT; a++)
        for (unsigned b = a; b < P_COUNT; b++)
            for (unsigned c = b; c < P_COUNT; c++)
                for (unsigned d = c; d < P_COUNT; d++) {
                    code_patterns[n] = (uint16_t)(a | b << 4 | c << 8 | d << 12);
                    table[code_patterns[n]] = (uint16_t)n;
                    n++;
                }
    for (unsigned k = 0; k < 65536; k++) {
        uint16_t s = sorted_pat4(k);
        if ((s >> 12) < P_COUNT) table[k] = table[s]; /* the largest is the last: all four are patterns */
    }
}

bool pattern_init(void)
{
    if (tables_storage) return true;
    uint8_t *memo = malloc(2 * (size_t)MEMO_SIZE);
    uint16_t *codes = malloc(65536 * sizeof *codes);
    uint8_t *store = malloc((1u << 16) + 2 * (size_t)PATTERN_KEYS + 2 * 65536 * sizeof(uint16_t));
    if (!memo || !store || !codes) {
        free(memo);
        free(store);
        free(codes);
        return false;
    }
    memset(memo, MEMO_UNKNOWN, 2 * (size_t)MEMO_SIZE);
    Classifier free_c = {memo, false}, exact_c = {memo + MEMO_SIZE, true};

    /* Which sides need exactly five, per rule: freestyle neither, standard
     * both, renju black only. */
    static const bool exact_black[RULE_COUNT] = {false, true, true};
    static const bool exact_white[RULE_COUNT] = {false, true, false};
    uint8_t *t = store;
    for (int r = 0; r < RULE_COUNT; r++) {
        uint32_t n = r == RULE_FREESTYLE ? 1u << 16 : PATTERN_KEYS;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t key = r == RULE_FREESTYLE ? i << 2 : i; /* the cells five away left empty */
            unsigned own, empty;
            side_masks(key, BLACK, &own, &empty);
            Pattern b = classify(exact_black[r] ? &exact_c : &free_c, own, empty);
            side_masks(key, WHITE, &own, &empty);
            Pattern w = classify(exact_white[r] ? &exact_c : &free_c, own, empty);
            t[i] = (uint8_t)(b | w << 4);
        }
        pattern_table[r] = t;
        t += n;
    }
    build_codes(codes);
    for (int m = 0; m < 2; m++) {
        uint16_t *info = (uint16_t *)(void *)t;
        for (uint32_t k = 0; k < 65536; k++)
            info[k] = (uint16_t)((unsigned)combine((uint16_t)k, m == 1) << PATTERN_INFO_SHIFT | codes[k]);
        pattern_info_table[m] = info;
        t += 65536 * sizeof(uint16_t);
    }
    free(codes);
    free(memo);
    tables_storage = store;
    return true;
}

const char *pattern_name(Pattern p)
{
    static const char *names[P_COUNT] = {"DEAD", "OL", "B1", "F1", "B2", "F2", "F2A",
                                         "B3", "F3", "F3S", "B4", "F4", "F44", "F5"};
    return (unsigned)p < P_COUNT ? names[p] : "?";
}

const char *threat_name(Threat t)
{
    static const char *names[T_COUNT] = {"NONE", "LOW", "F2", "B3", "F2X2", "F3", "F3P",
                                         "B4", "B4P", "F3X2", "B4F3", "F4", "FIVE", "FORBID"};
    return (unsigned)t < T_COUNT ? names[t] : "?";
}
