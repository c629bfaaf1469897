/* serve.c - `gomokud [serve]`: read the configuration, run the HTTP server
 * until SIGTERM or SIGINT, drain, exit 0. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "server/commands.h"
#include "server/config.h"
#include "server/http.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gomokud [serve] [--config FILE] [--KEY VALUE | --KEY=VALUE ...]\n"
            "Runs the HTTP/JSON analysis server until SIGTERM or SIGINT, then drains and exits 0.\n"
            "Settings (file key; environment GOMOKUD_KEY; flag --key or --key-with-dashes),\n"
            "later sources override earlier ones: defaults < file < environment < flags.\n"
            "The file is --config FILE, else $GOMOKUD_CONFIG, else none.\n\n");
    for (int i = 0; i < config_key_count(); i++) {
        const ConfigKeyInfo *k = config_key_info(i);
        fprintf(f, "  %-22s default %-10s %s\n", k->name, k->def, k->help);
    }
}

int cmd_serve(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
    Config cfg;
    char err[CONFIG_ERR_MAX + CONFIG_PATH_MAX];
    if (!config_load(&cfg, argc, argv, NULL, err, sizeof err)) {
        fprintf(stderr, "gomokud: configuration: %s\n", err);
        return 2;
    }

    /* Block the stop signals before any thread starts, so that every thread
     * inherits the mask and only sigwait below receives them. */
    sigset_t stop_set;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGTERM);
    sigaddset(&stop_set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_set, NULL);
    signal(SIGPIPE, SIG_IGN);

    Server *srv = NULL;
    if (!server_start(&cfg, &srv, err, sizeof err)) {
        server_log(cfg.log_level, LOG_ERROR, "msg=\"cannot start\" detail=\"%s\"", err);
        return 1;
    }
    server_log(cfg.log_level, LOG_INFO,
               "msg=listening version=%s addr=%s port=%u workers=%d queue_length=%d tt_mib=%d config=%s",
               GOMOKUD_VERSION, cfg.bind, (unsigned)server_port(srv), cfg.workers, cfg.queue_length, cfg.tt_mib,
               cfg.config_path[0] ? cfg.config_path : "none");

    int sig = 0;
    while (sigwait(&stop_set, &sig) != 0) {
    }
    server_log(cfg.log_level, LOG_INFO, "msg=draining signal=%s drain_timeout_ms=%d",
               sig == SIGTERM ? "SIGTERM" : "SIGINT", cfg.drain_timeout_ms);
    server_stop(srv);
    server_log(cfg.log_level, LOG_INFO, "msg=stopped");
    return 0;
}
