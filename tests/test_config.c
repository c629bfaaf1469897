/* Server configuration: defaults < file < environment < flags, and every
 * bad input refused with a message naming the key. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/config.h"

static char err[512];

/* Writes text to a fresh temporary file; returns its path (static buffer). */
static const char *temp_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/gomokud-conf-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    size_t n = strlen(text);
    cr_assert_eq(write(fd, text, n), (ssize_t)n);
    close(fd);
    return path;
}

static char *no_env[] = {NULL};

Test(config, the_defaults_are_valid)
{
    Config c;
    config_defaults(&c);
    cr_assert(config_finish(&c, err, sizeof err), "%s", err);
    cr_assert_str_eq(c.bind, "127.0.0.1");
    cr_assert_eq(c.port, 8080);
    cr_assert_gt(c.workers, 0, "workers = 0 resolves to the core count");
    cr_assert_eq(c.log_level, LOG_INFO);
}

Test(config, every_documented_default_is_accepted_by_its_own_key)
{
    Config c;
    config_defaults(&c);
    cr_assert_gt(config_key_count(), 15);
    for (int i = 0; i < config_key_count(); i++) {
        const ConfigKeyInfo *k = config_key_info(i);
        cr_assert(config_set(&c, k->name, k->def, "test", err, sizeof err), "%s", err);
    }
    cr_assert_null(config_key_info(config_key_count()));
}

Test(config, the_shipped_file_is_valid_and_states_the_defaults)
{
    Config d, f;
    config_defaults(&d);
    config_defaults(&f);
    /* Start f from values that differ, so that every key must be in the file. */
    f.port = 1;
    f.queue_length = 3;
    f.max_time_ms = 7;
    cr_assert(config_load_file(&f, "config/gomokud.conf", err, sizeof err), "%s", err);
    cr_assert_str_eq(f.config_path, "config/gomokud.conf");
    memset(f.config_path, 0, sizeof f.config_path);
    cr_assert_eq(memcmp(&d, &f, sizeof d), 0, "config/gomokud.conf must state the built-in defaults");
    cr_assert(config_finish(&f, err, sizeof err), "%s", err);
}

Test(config, a_file_sets_values_with_comments_blank_lines_and_quotes)
{
    Config c;
    config_defaults(&c);
    const char *path = temp_file("# a comment\n\nport = 9001   # trailing comment\n"
                                 "bind = \"0.0.0.0\"\n  workers=3\nlog_level = debug\n");
    cr_assert(config_load_file(&c, path, err, sizeof err), "%s", err);
    unlink(path);
    cr_assert_eq(c.port, 9001);
    cr_assert_str_eq(c.bind, "0.0.0.0");
    cr_assert_eq(c.workers, 3);
    cr_assert_eq(c.log_level, LOG_DEBUG);
}

Test(config, an_unknown_key_in_the_file_is_refused_with_its_name_and_line)
{
    Config c;
    config_defaults(&c);
    const char *path = temp_file("port = 9001\nwokers = 3\n");
    cr_assert_not(config_load_file(&c, path, err, sizeof err));
    unlink(path);
    cr_assert(strstr(err, ":2:"), "line number in '%s'", err);
    cr_assert(strstr(err, "wokers"), "key in '%s'", err);
}

Test(config, a_line_without_an_equals_sign_is_refused)
{
    Config c;
    config_defaults(&c);
    const char *path = temp_file("port 9001\n");
    cr_assert_not(config_load_file(&c, path, err, sizeof err));
    unlink(path);
    cr_assert(strstr(err, ":1:"), "%s", err);
}

Test(config, a_missing_file_is_an_error_naming_it)
{
    Config c;
    config_defaults(&c);
    cr_assert_not(config_load_file(&c, "/nonexistent/gomokud.conf", err, sizeof err));
    cr_assert(strstr(err, "/nonexistent/gomokud.conf"), "%s", err);
}

Test(config, bad_values_are_refused_naming_the_key_and_change_nothing)
{
    Config c;
    config_defaults(&c);
    cr_assert_not(config_set(&c, "port", "abc", "test", err, sizeof err));
    cr_assert(strstr(err, "port") && strstr(err, "integer"), "%s", err);
    cr_assert_not(config_set(&c, "port", "70000", "test", err, sizeof err));
    cr_assert(strstr(err, "port") && strstr(err, "65535"), "%s", err);
    cr_assert_not(config_set(&c, "port", "80x", "test", err, sizeof err));
    cr_assert_not(config_set(&c, "port", "", "test", err, sizeof err));
    cr_assert_not(config_set(&c, "queue_length", "0", "test", err, sizeof err));
    cr_assert(strstr(err, "queue_length"), "%s", err);
    cr_assert_not(config_set(&c, "max_depth", "65", "test", err, sizeof err));
    cr_assert_not(config_set(&c, "log_level", "loud", "test", err, sizeof err));
    cr_assert(strstr(err, "log_level"), "%s", err);
    cr_assert_eq(c.port, 8080);
    cr_assert_eq(c.log_level, LOG_INFO);
}

Test(config, the_environment_overrides_the_file_and_flags_override_both)
{
    Config c;
    const char *path = temp_file("port = 1000\nqueue_length = 10\nmax_batch = 5\n");
    char cfg_arg[128];
    snprintf(cfg_arg, sizeof cfg_arg, "--config=%s", path);
    char *env[] = {"GOMOKUD_PORT=2000", "GOMOKUD_WORKERS=2", "PATH=/bin", NULL};

    char *a1[] = {cfg_arg};
    cr_assert(config_load(&c, 1, a1, env, err, sizeof err), "%s", err);
    cr_assert_eq(c.port, 2000, "environment over file");
    cr_assert_eq(c.queue_length, 10, "file over defaults");
    cr_assert_eq(c.workers, 2);

    char *a2[] = {cfg_arg, "--port", "3000", "--queue-length=20"};
    cr_assert(config_load(&c, 4, a2, env, err, sizeof err), "%s", err);
    cr_assert_eq(c.port, 3000, "flag over environment");
    cr_assert_eq(c.queue_length, 20);
    unlink(path);
}

Test(config, gomokud_config_in_the_environment_names_the_file)
{
    Config c;
    const char *path = temp_file("tt_mib = 3\n");
    char var[128];
    snprintf(var, sizeof var, "GOMOKUD_CONFIG=%s", path);
    char *env[] = {var, NULL};
    cr_assert(config_load(&c, 0, NULL, env, err, sizeof err), "%s", err);
    cr_assert_eq(c.tt_mib, 3);
    cr_assert_str_eq(c.config_path, path);
    unlink(path);
}

Test(config, flags_take_dashes_or_underscores_and_an_equals_sign)
{
    Config c;
    char *args[] = {"--max-time-ms", "500", "--default_time_ms=100", "--max_nodes=1000", "--log-level=warn",
                    "--bind", "::1"};
    cr_assert(config_load(&c, 7, args, no_env, err, sizeof err), "%s", err);
    cr_assert_eq(c.max_time_ms, 500);
    cr_assert_eq(c.max_nodes, 1000);
    cr_assert_eq(c.log_level, LOG_WARN);
    cr_assert_str_eq(c.bind, "::1");
}

Test(config, an_unknown_flag_or_a_missing_value_is_refused)
{
    Config c;
    char *a1[] = {"--prot", "80"};
    cr_assert_not(config_load(&c, 2, a1, no_env, err, sizeof err));
    cr_assert(strstr(err, "--prot"), "%s", err);
    char *a2[] = {"--port"};
    cr_assert_not(config_load(&c, 1, a2, no_env, err, sizeof err));
    cr_assert(strstr(err, "--port") && strstr(err, "missing"), "%s", err);
    char *a3[] = {"stray"};
    cr_assert_not(config_load(&c, 1, a3, no_env, err, sizeof err));
    cr_assert(strstr(err, "stray"), "%s", err);
}

Test(config, a_bad_environment_value_names_the_variable)
{
    Config c;
    char *env[] = {"GOMOKUD_MAX_BATCH=lots", NULL};
    cr_assert_not(config_load(&c, 0, NULL, env, err, sizeof err));
    cr_assert(strstr(err, "GOMOKUD_MAX_BATCH"), "%s", err);
}

Test(config, defaults_above_their_caps_are_refused)
{
    Config c;
    char *a1[] = {"--default-time-ms", "5000", "--max-time-ms", "1000"};
    cr_assert_not(config_load(&c, 4, a1, no_env, err, sizeof err));
    cr_assert(strstr(err, "default_time_ms"), "%s", err);
    char *a2[] = {"--default-depth", "10", "--max-depth", "5"};
    cr_assert_not(config_load(&c, 4, a2, no_env, err, sizeof err));
    cr_assert(strstr(err, "default_depth"), "%s", err);
    char *a3[] = {"--default-nodes", "10", "--max-nodes", "5"};
    cr_assert_not(config_load(&c, 4, a3, no_env, err, sizeof err));
    cr_assert(strstr(err, "default_nodes"), "%s", err);
}

Test(config, a_batch_larger_than_the_queue_is_refused)
{
    Config c;
    char *args[] = {"--queue-length", "4", "--max-batch", "5"};
    cr_assert_not(config_load(&c, 4, args, no_env, err, sizeof err));
    cr_assert(strstr(err, "max_batch"), "%s", err);
}

Test(config, the_bind_address_must_be_an_ip_literal)
{
    Config c;
    char *args[] = {"--bind", "localhost"};
    cr_assert_not(config_load(&c, 2, args, no_env, err, sizeof err));
    cr_assert(strstr(err, "bind"), "%s", err);
}

Test(config, zero_workers_means_one_per_core)
{
    Config c;
    char *args[] = {"--workers", "0"};
    cr_assert(config_load(&c, 2, args, no_env, err, sizeof err), "%s", err);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cr_assert_eq(c.workers, cores < 1 ? 1 : (int)cores);
}

Test(config, api_keys_come_from_file_environment_and_flags)
{
    Config c;
    char *env[] = {"GOMOKUD_API_KEYS=from-env", NULL};
    cr_assert(config_load(&c, 0, NULL, env, err, sizeof err), "%s", err);
    cr_assert_str_eq(c.api_keys, "from-env");
    char *args[] = {"--api-keys", "k1, k2"};
    cr_assert(config_load(&c, 2, args, env, err, sizeof err), "%s", err);
    cr_assert_str_eq(c.api_keys, "k1, k2");
    const char *path = temp_file("api_keys = \"file-key\"\n");
    char *a2[] = {"--config", (char *)path};
    cr_assert(config_load(&c, 2, a2, no_env, err, sizeof err), "%s", err);
    cr_assert_str_eq(c.api_keys, "file-key");
    config_defaults(&c);
    cr_assert_str_eq(c.api_keys, "", "authentication is off by default");
    cr_assert_eq(c.fault_injection, 0, "fault injection is off by default");
    cr_assert_eq(c.request_timeout_s, 10);
}

Test(config, bad_api_keys_are_refused_by_name)
{
    Config c;
    config_defaults(&c);
    const char *bad[] = {"a,,b", "has space", "tab\there", ",", "x,\x01"};
    for (int i = 0; i < 5; i++) {
        cr_assert_not(config_set(&c, "api_keys", bad[i], "test", err, sizeof err), "%s", bad[i]);
        cr_assert(strstr(err, "api_keys"), "%s", err);
    }
    char longkey[CONFIG_API_KEY_MAX + 2];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = 0;
    cr_assert_not(config_set(&c, "api_keys", longkey, "test", err, sizeof err));
    cr_assert(config_set(&c, "api_keys", "  ", "test", err, sizeof err), "blank = off");
    cr_assert(config_set(&c, "api_keys", "a-b.c_d~e+f/g=,  second ", "test", err, sizeof err), "%s", err);
    const char *p = c.api_keys, *k;
    size_t n;
    cr_assert(config_api_key_next(&p, &k, &n));
    cr_assert_eq(n, 14);
    cr_assert(!strncmp(k, "a-b.c_d~e+f/g=", n));
    cr_assert(config_api_key_next(&p, &k, &n));
    cr_assert_eq(n, 6);
    cr_assert(!strncmp(k, "second", n));
    cr_assert_not(config_api_key_next(&p, &k, &n));
}

Test(config, fault_injection_and_request_timeout_are_range_checked)
{
    Config c;
    config_defaults(&c);
    cr_assert_not(config_set(&c, "fault_injection", "2", "test", err, sizeof err));
    cr_assert(strstr(err, "fault_injection"), "%s", err);
    cr_assert_not(config_set(&c, "request_timeout_s", "-1", "test", err, sizeof err));
    cr_assert(strstr(err, "request_timeout_s"), "%s", err);
}

Test(config, cors_origins_take_a_star_or_exact_origins_and_refuse_paths)
{
    Config c;
    config_defaults(&c);
    cr_assert(config_set(&c, "cors_origins", "*", "t", err, sizeof err), "%s", err);
    cr_assert(config_set(&c, "cors_origins", "https://app.example, http://localhost:3000,http://[::1]:8080", "t", err,
                         sizeof err),
              "%s", err);
    cr_assert_str_eq(c.cors_origins, "https://app.example, http://localhost:3000,http://[::1]:8080");
    const char *bad[] = {"app.example", "https://app.example/", "https://app.example/x", "ftp://a.b",
                         "https://", "https://a.b:", "https://a.b:123456", "https://a b"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_assert_not(config_set(&c, "cors_origins", bad[i], "t", err, sizeof err), "'%s' accepted", bad[i]);
        cr_assert(strstr(err, "cors_origins"), "%s", err);
    }
    cr_assert_str_eq(c.cors_origins, "https://app.example, http://localhost:3000,http://[::1]:8080",
                     "a refused value changes nothing");
    cr_assert_not(config_set(&c, "rate_burst", "0", "t", err, sizeof err));
    cr_assert(config_set(&c, "rate_limit", "5", "t", err, sizeof err), "%s", err);
    cr_assert_eq(c.rate_limit, 5);
}
