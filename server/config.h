/*
 * config.h - the server's settings: built-in defaults, then a `key = value`
 * file, then GOMOKUD_* environment variables, then --key flags, each layer
 * overriding the one before. Everything is validated once, at start-up; an
 * unknown key or a bad value is refused with a message naming the key.
 *
 * One name per setting in every layer: file key `queue_length`, environment
 * variable `GOMOKUD_QUEUE_LENGTH`, flag `--queue-length` (or `--queue_length`),
 * given as `--flag VALUE` or `--flag=VALUE`. The file is named by `--config
 * FILE`, else by GOMOKUD_CONFIG; without either only defaults, environment
 * and flags apply.
 */
#ifndef GOMOKUD_CONFIG_H
#define GOMOKUD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONFIG_BIND_MAX 64
#define CONFIG_PATH_MAX 1024
#define CONFIG_ERR_MAX 256
#define CONFIG_API_KEYS_MAX 2048 /* the whole comma-separated list */
#define CONFIG_API_KEY_MAX 256   /* one key */
#define CONFIG_ORIGINS_MAX 2048  /* the whole cors_origins list */

typedef enum { LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG } LogLevel;

typedef struct {
    char bind[CONFIG_BIND_MAX];  /* IPv4 or IPv6 literal to listen on */
    int port;                    /* 0..65535; 0 = an ephemeral port */
    int workers;                 /* search threads; 0 in a source = number of cores */
    int queue_length;            /* positions waiting for a worker, beyond the running ones */
    int tt_mib;                  /* transposition table per worker, MiB */
    int64_t default_time_ms;     /* limits of a request that gives none; 0 = none */
    int default_depth;
    int64_t default_nodes;
    int64_t max_time_ms;         /* caps on every search, whatever the request asks */
    int max_depth;
    int64_t max_nodes;
    int max_multipv;
    int64_t max_body_bytes;      /* request body cap (413 above it) */
    int max_batch;               /* positions per batch request (413 above it) */
    int max_review_moves;        /* moves per review request (413 above it) */
    int max_connections;         /* simultaneous connections, suspended ones included */
    int connection_timeout_s;    /* idle connection timeout; 0 = none */
    int drain_timeout_ms;        /* on SIGTERM: how long searches may go on before being stopped */
    int retry_after_s;           /* Retry-After of a 503 */
    int request_timeout_s;       /* a request must be received within this; 0 = no cap */
    char api_keys[CONFIG_API_KEYS_MAX]; /* comma-separated bearer keys; "" = no authentication */
    char cors_origins[CONFIG_ORIGINS_MAX]; /* "*", or comma-separated exact origins; "" = no CORS */
    int rate_limit;              /* requests per second per client on the /v1 routes; 0 = off */
    int rate_burst;              /* requests a client may make at once (the bucket's size) */
    int result_cache;            /* identical analyses answered again from memory; 0 = off */
    int keep_proofs;             /* 1: a worker answers positions on a win it proved before at once */
    char web_root[CONFIG_PATH_MAX]; /* directory served at / instead of the embedded page; "" = embedded */
    char book_file[CONFIG_PATH_MAX]; /* opening book: "builtin", a file, or "" for none (server/book.h) */
    int fault_injection;         /* tests only: 1 honours the X-Gomokud-Fault header; 0 (default) ignores it */
    LogLevel log_level;
    char config_path[CONFIG_PATH_MAX]; /* the file that was read, "" for none */
} Config;

/* Description of one setting, for --help and the README. */
typedef struct {
    const char *name;   /* file key */
    const char *def;    /* default value as text */
    const char *help;   /* one line */
} ConfigKeyInfo;

/* Fills *c with the built-in defaults (workers = 0, resolved by
 * config_finish). */
void config_defaults(Config *c);

/* Applies one setting by file key name. Returns false with a message naming
 * the key in err (unknown key, not a number, out of range) and leaves *c
 * unchanged. `origin` prefixes the message ("GOMOKUD_PORT", "file:3"). */
bool config_set(Config *c, const char *key, const char *value, const char *origin, char *err, size_t errlen);

/* Reads a `key = value` file ('#' starts a comment, blank lines skipped,
 * values may be double-quoted) and applies each line in order. Returns false
 * with "path:line: message" in err on the first bad line or when the file
 * cannot be read; *c may then hold the lines before the bad one. */
bool config_load_file(Config *c, const char *path, char *err, size_t errlen);

/* Applies every GOMOKUD_<KEY> variable of envp (NULL-terminated "NAME=value"
 * strings) that names a setting; other variables are left alone. */
bool config_apply_env(Config *c, char *const *envp, char *err, size_t errlen);

/* Applies --key VALUE / --key=VALUE flags. --config is skipped here (see
 * config_load). Returns false on an unknown flag, a missing value or a bad
 * value. */
bool config_apply_args(Config *c, int argc, char *const *argv, char *err, size_t errlen);

/* Resolves workers = 0 to the number of online cores and checks the
 * settings against each other (defaults within maxima, max_batch within
 * queue_length, the bind address is an IP literal). */
bool config_finish(Config *c, char *err, size_t errlen);

/* The whole chain: defaults < file (--config or GOMOKUD_CONFIG) < envp <
 * argv flags, then config_finish. envp NULL means the process environment.
 * Returns false with a message in err. */
bool config_load(Config *c, int argc, char *const *argv, char *const *envp, char *err, size_t errlen);

/* True when list is a valid api_keys value: empty (or blank), or keys of
 * 1..CONFIG_API_KEY_MAX visible ASCII characters separated by commas, with
 * optional spaces around each key. */
bool config_api_keys_valid(const char *list);

/* True when list is a valid cors_origins value: empty (or blank), "*", or
 * origins "http[s]://host[:port]" (no path, no trailing slash) separated by
 * commas with optional spaces. */
bool config_origins_valid(const char *list);

/* Iterates over the keys of an api_keys list: *p starts at the list; each
 * call sets *key (not NUL-terminated) and *len and advances *p. Returns false
 * when the list is exhausted. The same walk serves cors_origins. */
bool config_api_key_next(const char **p, const char **key, size_t *len);

/* The number of settings and the i-th one (0-based), in file order. */
int config_key_count(void);
const ConfigKeyInfo *config_key_info(int i);

/* Name of a log level ("error", "warn", "info", "debug"). */
const char *config_log_level_name(LogLevel l);

#endif
