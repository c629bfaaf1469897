/* config.c - defaults < file < environment < flags -> one validated Config. */
#include "server/config.h"
#include "server/errors.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"

extern char **environ;

typedef enum { K_INT, K_I64, K_BIND, K_LOG, K_KEYS, K_ORIGINS, K_PATH } KeyType;

typedef struct {
    ConfigKeyInfo info;
    KeyType type;
    size_t off;
    int64_t min, max;
} KeyDef;

#define ONE_DAY_MS 86400000LL
#define INT_KEY(name, field, def, lo, hi, help) \
    { {name, def, help}, K_INT, offsetof(Config, field), lo, hi }
#define I64_KEY(name, field, def, lo, hi, help) \
    { {name, def, help}, K_I64, offsetof(Config, field), lo, hi }

/* File order: the order of config/gomokud.conf and of --help. */
static const KeyDef KEYS[] = {
    {{"bind", "127.0.0.1", "IP address to listen on (0.0.0.0 or :: for every interface)"},
     K_BIND, offsetof(Config, bind), 0, 0},
    INT_KEY("port", port, "8080", 0, 65535, "TCP port; 0 picks a free one (logged at start-up)"),
    INT_KEY("workers", workers, "0", 0, 1024, "search threads, each with its own engine; 0 = number of cores"),
    INT_KEY("queue_length", queue_length, "256", 1, 1000000, "positions waiting for a worker; beyond it: 503"),
    INT_KEY("tt_mib", tt_mib, "16", 1, 65536, "transposition table per worker, MiB"),
    I64_KEY("default_time_ms", default_time_ms, "1000", 0, ONE_DAY_MS,
            "time limit of a request that sets none; 0 = none"),
    INT_KEY("default_depth", default_depth, "0", 0, ENGINE_MAX_DEPTH,
            "depth limit of a request that sets none; 0 = none"),
    I64_KEY("default_nodes", default_nodes, "0", 0, INT64_C(1000000000000),
            "node limit of a request that sets none; 0 = none"),
    I64_KEY("max_time_ms", max_time_ms, "10000", 1, ONE_DAY_MS, "cap on every search's time, whatever it asks"),
    INT_KEY("max_depth", max_depth, "64", 1, ENGINE_MAX_DEPTH, "cap on every search's depth"),
    I64_KEY("max_nodes", max_nodes, "100000000", 1, INT64_C(1000000000000), "cap on every search's nodes"),
    INT_KEY("max_multipv", max_multipv, "8", 1, ENGINE_MAX_MULTIPV, "largest multipv a request may ask"),
    I64_KEY("max_body_bytes", max_body_bytes, "1048576", 64, INT64_C(1) << 30,
            "request body cap in bytes; beyond it: 413"),
    INT_KEY("max_batch", max_batch, "64", 1, 100000, "positions per batch request; beyond it: 413"),
    INT_KEY("max_review_moves", max_review_moves, "120", 1, 625,
            "moves per game review; beyond it: 413. A review is queued whole, one position per move plus one, so "
            "at most queue_length - 1 apply"),
    INT_KEY("max_connections", max_connections, "1024", 1, 1000000, "simultaneous client connections"),
    INT_KEY("connection_timeout_s", connection_timeout_s, "30", 0, 86400,
            "idle connection timeout, seconds; 0 = none"),
    INT_KEY("drain_timeout_ms", drain_timeout_ms, "10000", 0, 3600000,
            "on SIGTERM, how long searches may run on before they are stopped early"),
    INT_KEY("retry_after_s", retry_after_s, "1", 1, 3600, "Retry-After of a 503"),
    INT_KEY("request_timeout_s", request_timeout_s, "10", 0, 86400,
            "a request's headers and body must arrive within this many seconds, else the connection is closed; "
            "0 = no cap"),
    {{"api_keys", "", "comma-separated bearer keys; when set every route but /livez, /readyz, /v1/openapi.json "
                      "and the board page's files needs 'Authorization: Bearer KEY'; empty = no authentication"},
     K_KEYS, offsetof(Config, api_keys), 0, 0},
    {{"cors_origins", "", "browser origins allowed to call the API: '*' or comma-separated exact origins "
                          "(https://app.example); empty = no CORS headers"},
     K_ORIGINS, offsetof(Config, cors_origins), 0, 0},
    INT_KEY("rate_limit", rate_limit, "0", 0, 1000000,
            "requests per second per client (API key, else address) on the /v1 routes; beyond it: 429; 0 = off"),
    INT_KEY("rate_burst", rate_burst, "20", 1, 1000000,
            "requests a client may make at once before rate_limit paces it (the token bucket's size)"),
    INT_KEY("result_cache", result_cache, "256", 0, 4096,
            "answers of identical analyses kept and served again (header 'Cache: hit'); 0 = off"),
    INT_KEY("keep_proofs", keep_proofs, "1", 0, 1,
            "1: the wins the threat solver proves are kept and passed from worker to worker, and any later "
            "position on such a win's line is answered at once (\"source\": \"proof\"); 0: every search starts "
            "from nothing"),
    {{"web_root", "", "directory whose files are served at / instead of the board page built into the binary "
                      "(for developing the page); empty = the built-in page"},
     K_PATH, offsetof(Config, web_root), 0, 0},
    {{"book_file", "builtin", "opening book read at start: 'builtin' = the book built into the binary "
                              "(config/book.txt), a path = that file (make book writes one), empty = no book; "
                              "a request turns it off with \"book\": false"},
     K_PATH, offsetof(Config, book_file), 0, 0},
    INT_KEY("fault_injection", fault_injection, "0", 0, 1,
            "for tests only: 1 makes the X-Gomokud-Fault request header fail searches on purpose; keep 0"),
    {{"log_level", "info", "error | warn | info (one access line per request) | debug"},
     K_LOG, offsetof(Config, log_level), 0, 0},
};
#define NKEYS ((int)(sizeof KEYS / sizeof KEYS[0]))

static const char *const LOG_NAMES[] = {"error", "warn", "info", "debug"};


int config_key_count(void) { return NKEYS; }

const ConfigKeyInfo *config_key_info(int i) { return (i >= 0 && i < NKEYS) ? &KEYS[i].info : NULL; }

const char *config_log_level_name(LogLevel l)
{
    return ((unsigned)l < sizeof LOG_NAMES / sizeof LOG_NAMES[0]) ? LOG_NAMES[l] : "?";
}

void config_defaults(Config *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < NKEYS; i++) {
        char err[CONFIG_ERR_MAX];
        bool ok = config_set(c, KEYS[i].info.name, KEYS[i].info.def, "default", err, sizeof err);
        (void)ok; /* the table's defaults are valid (tests/test_config.c checks) */
    }
}

static const KeyDef *find_key(const char *name, size_t len)
{
    for (int i = 0; i < NKEYS; i++)
        if (strlen(KEYS[i].info.name) == len && !strncmp(KEYS[i].info.name, name, len)) return &KEYS[i];
    return NULL;
}

static bool parse_i64(const char *s, int64_t *out)
{
    if (!*s || isspace((unsigned char)*s)) return false;
    errno = 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end) return false;
    *out = v;
    return true;
}

bool config_set(Config *c, const char *key, const char *value, const char *origin, char *err, size_t errlen)
{
    const KeyDef *k = find_key(key, strlen(key));
    if (!k) return server_fail(err, errlen, "%s: unknown setting '%s'", origin, key);
    char *field = (char *)c + k->off;
    switch (k->type) {
    case K_BIND:
        if (!*value || strlen(value) >= CONFIG_BIND_MAX)
            return server_fail(err, errlen, "%s: %s must be an IP address, not '%s'", origin, key, value);
        memcpy(field, value, strlen(value) + 1);
        return true;
    case K_LOG:
        for (int i = 0; i < (int)(sizeof LOG_NAMES / sizeof LOG_NAMES[0]); i++)
            if (!strcmp(value, LOG_NAMES[i])) {
                *(LogLevel *)(void *)field = (LogLevel)i;
                return true;
            }
        return server_fail(err, errlen, "%s: %s must be error, warn, info or debug, not '%s'", origin, key, value);
    case K_KEYS:
        if (!config_api_keys_valid(value))
            return server_fail(err, errlen,
                        "%s: %s must be a comma-separated list of keys of 1 to %d visible ASCII characters "
                        "(no spaces or commas inside a key), at most %d characters in all",
                        origin, key, CONFIG_API_KEY_MAX, CONFIG_API_KEYS_MAX - 1);
        memcpy(field, value, strlen(value) + 1);
        return true;
    case K_ORIGINS:
        if (!config_origins_valid(value))
            return server_fail(err, errlen,
                        "%s: %s must be '*' or a comma-separated list of origins such as https://app.example or "
                        "http://localhost:3000 (scheme, host, optional port; no path), at most %d characters",
                        origin, key, CONFIG_ORIGINS_MAX - 1);
        memcpy(field, value, strlen(value) + 1);
        return true;
    case K_PATH:
        if (strlen(value) >= CONFIG_PATH_MAX)
            return server_fail(err, errlen, "%s: %s must be a path of at most %d characters", origin, key,
                               CONFIG_PATH_MAX - 1);
        memcpy(field, value, strlen(value) + 1);
        return true;
    case K_INT:
    case K_I64: {
        int64_t v;
        if (!parse_i64(value, &v)) return server_fail(err, errlen, "%s: %s must be an integer, not '%s'", origin, key, value);
        if (v < k->min || v > k->max)
            return server_fail(err, errlen, "%s: %s must be between %lld and %lld, not %lld", origin, key,
                        (long long)k->min, (long long)k->max, (long long)v);
        if (k->type == K_INT)
            *(int *)(void *)field = (int)v;
        else
            *(int64_t *)(void *)field = v;
        return true;
    }
    }
    return server_fail(err, errlen, "%s: %s: internal error", origin, key);
}

/* One key of a list: from *p to the next comma, surrounding spaces
 * skipped. Sets *key and *len and moves *p past the comma; false at the end. */
bool config_api_key_next(const char **p, const char **key, size_t *len)
{
    const char *s = *p;
    if (!s || !*s) return false;
    const char *comma = strchr(s, ',');
    const char *e = comma ? comma : s + strlen(s);
    *p = comma ? comma + 1 : e;
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
    *key = s;
    *len = (size_t)(e - s);
    return true;
}

bool config_api_keys_valid(const char *list)
{
    if (strlen(list) >= CONFIG_API_KEYS_MAX) return false;
    bool blank = true;
    for (const char *c = list; *c; c++)
        if (*c != ' ' && *c != '\t') blank = false;
    if (blank) return true; /* authentication off */
    const char *p = list, *k;
    size_t n;
    while (config_api_key_next(&p, &k, &n)) {
        if (n < 1 || n > CONFIG_API_KEY_MAX) return false;
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)k[i] <= ' ' || (unsigned char)k[i] >= 0x7f) return false;
    }
    return true;
}

/* "http[s]://" then a host of letters, digits, '-', '.', or a bracketed
 * IPv6 literal, then an optional ":port"; nothing after. */
static bool origin_valid(const char *o, size_t n)
{
    size_t i;
    if (n > 7 && !strncmp(o, "http://", 7)) i = 7;
    else if (n > 8 && !strncmp(o, "https://", 8)) i = 8;
    else return false;
    size_t host = i;
    if (o[i] == '[') {
        while (i < n && o[i] != ']') i++;
        if (i == n) return false;
        i++;
    } else {
        while (i < n && (isalnum((unsigned char)o[i]) || o[i] == '-' || o[i] == '.')) i++;
    }
    if (i == host) return false;
    if (i < n && o[i] == ':') {
        size_t port = ++i;
        while (i < n && isdigit((unsigned char)o[i])) i++;
        if (i == port || i - port > 5) return false;
    }
    return i == n;
}

bool config_origins_valid(const char *list)
{
    if (strlen(list) >= CONFIG_ORIGINS_MAX) return false;
    const char *p = list, *o;
    size_t n;
    bool blank = true;
    for (const char *c = list; *c; c++)
        if (*c != ' ' && *c != '\t') blank = false;
    if (blank) return true;
    while (config_api_key_next(&p, &o, &n))
        if (!(n == 1 && *o == '*') && !origin_valid(o, n)) return false;
    return true;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
    return s;
}

bool config_load_file(Config *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) return server_fail(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    bool ok = true;
    char line[1024], origin[CONFIG_PATH_MAX + 32];
    for (int lineno = 1; fgets(line, sizeof line, f); lineno++) {
        snprintf(origin, sizeof origin, "%s:%d", path, lineno);
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n' && !feof(f)) {
            ok = server_fail(err, errlen, "%s: line too long", origin);
            goto done;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *s = trim(line);
        if (!*s) continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            ok = server_fail(err, errlen, "%s: expected 'key = value', got '%s'", origin, s);
            goto done;
        }
        *eq = 0;
        char *key = trim(s), *value = trim(eq + 1);
        size_t vlen = strlen(value);
        if (vlen >= 2 && value[0] == '"' && value[vlen - 1] == '"') {
            value[vlen - 1] = 0;
            value++;
        }
        if (!*key) {
            ok = server_fail(err, errlen, "%s: missing key before '='", origin);
            goto done;
        }
        if (!config_set(c, key, value, origin, err, errlen)) {
            ok = false;
            goto done;
        }
    }
    if (ferror(f)) ok = server_fail(err, errlen, "%s: read error", path);
    else snprintf(c->config_path, sizeof c->config_path, "%s", path);
done:
    fclose(f);
    return ok;
}

bool config_apply_env(Config *c, char *const *envp, char *err, size_t errlen)
{
    static const char PREFIX[] = "GOMOKUD_";
    if (!envp) envp = environ;
    for (int i = 0; i < NKEYS; i++) {
        char name[64];
        size_t n = snprintf(name, sizeof name, "%s", PREFIX);
        for (const char *p = KEYS[i].info.name; *p && n < sizeof name - 1; p++)
            name[n++] = (char)toupper((unsigned char)*p);
        name[n] = 0;
        for (char *const *e = envp; *e; e++) {
            if (strncmp(*e, name, n) || (*e)[n] != '=') continue;
            if (!config_set(c, KEYS[i].info.name, *e + n + 1, name, err, errlen)) return false;
        }
    }
    return true;
}

/* "--queue-length" or "--queue_length" -> "queue_length" in key. */
static bool flag_key(const char *arg, size_t len, char *key, size_t keylen)
{
    if (len < 3 || arg[0] != '-' || arg[1] != '-' || len - 2 >= keylen) return false;
    for (size_t i = 2; i < len; i++) key[i - 2] = arg[i] == '-' ? '_' : arg[i];
    key[len - 2] = 0;
    return true;
}

bool config_apply_args(Config *c, int argc, char *const *argv, char *err, size_t errlen)
{
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        char key[64], origin[80];
        if (!flag_key(arg, len, key, sizeof key)) return server_fail(err, errlen, "unexpected argument '%s'", arg);
        snprintf(origin, sizeof origin, "--%.*s", (int)(len > 2 ? len - 2 : 0), arg + 2);
        const char *value = eq ? eq + 1 : NULL;
        if (!value) {
            if (i + 1 >= argc) return server_fail(err, errlen, "%s: missing value", origin);
            value = argv[++i];
        }
        if (!strcmp(key, "config")) continue;
        if (!find_key(key, strlen(key))) return server_fail(err, errlen, "%s: unknown option", origin);
        if (!config_set(c, key, value, origin, err, errlen)) return false;
    }
    return true;
}

bool config_finish(Config *c, char *err, size_t errlen)
{
    unsigned char addr[16];
    if (inet_pton(AF_INET, c->bind, addr) != 1 && inet_pton(AF_INET6, c->bind, addr) != 1)
        return server_fail(err, errlen, "bind must be an IPv4 or IPv6 address, not '%s'", c->bind);
    if (c->workers == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        c->workers = n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
    }
    if (c->default_time_ms > c->max_time_ms)
        return server_fail(err, errlen, "default_time_ms (%lld) must not exceed max_time_ms (%lld)",
                    (long long)c->default_time_ms, (long long)c->max_time_ms);
    if (c->default_depth > c->max_depth)
        return server_fail(err, errlen, "default_depth (%d) must not exceed max_depth (%d)", c->default_depth, c->max_depth);
    if (c->default_nodes > c->max_nodes)
        return server_fail(err, errlen, "default_nodes (%lld) must not exceed max_nodes (%lld)",
                    (long long)c->default_nodes, (long long)c->max_nodes);
    if (c->web_root[0]) {
        struct stat st;
        if (stat(c->web_root, &st) || !S_ISDIR(st.st_mode))
            return server_fail(err, errlen, "web_root must be a directory, not '%s'", c->web_root);
    }
    if (c->max_batch > c->queue_length)
        return server_fail(err, errlen, "max_batch (%d) must not exceed queue_length (%d): a batch is queued whole",
                    c->max_batch, c->queue_length);
    return true;
}

bool config_load(Config *c, int argc, char *const *argv, char *const *envp, char *err, size_t errlen)
{
    config_defaults(c);
    if (!envp) envp = environ;
    const char *path = NULL;
    for (char *const *e = envp; *e; e++)
        if (!strncmp(*e, "GOMOKUD_CONFIG=", 15)) path = *e + 15;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--config")) {
            if (i + 1 >= argc) return server_fail(err, errlen, "--config: missing value");
            path = argv[++i];
        } else if (!strncmp(argv[i], "--config=", 9)) {
            path = argv[i] + 9;
        }
    }
    if (path && *path && !config_load_file(c, path, err, errlen)) return false;
    if (!config_apply_env(c, envp, err, errlen)) return false;
    if (!config_apply_args(c, argc, argv, err, errlen)) return false;
    return config_finish(c, err, errlen);
}
