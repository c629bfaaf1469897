/*
 * http.h - the HTTP/JSON front of gomokud: API v1 over libmicrohttpd.
 *
 * Request life cycle. libmicrohttpd's one polling thread calls the access
 * handler: it collects the body (up to max_body_bytes), and for the analysis
 * routes parses it with api/. Errors, and a full or closed queue, are answered
 * at once. Otherwise the handler reserves queue room, suspends the
 * connection, puts it on the hang-up watch list and queues one item per
 * position. Workers (server/pool.h), each owning an Engine, search the items
 * and fill the results; the worker that completes a request's last item
 * renders the JSON, takes the request off the watch list and resumes the
 * connection. The polling thread, called again, queues the response: no
 * response is ever queued from a worker. Per-request state is freed in the
 * request-completed callback, which also writes the access log line.
 *
 * Hang-ups. While a connection is suspended libmicrohttpd does not read it,
 * so a watcher thread polls the suspended sockets every few milliseconds for
 * the peer's shutdown (POLLRDHUP/POLLHUP/POLLERR). A hang-up sets the
 * request's stop flag, which the engine polls through Limits.stop; queued
 * items of a request whose client left are dropped unsearched. The
 * connection is still resumed so that libmicrohttpd can close it.
 *
 * API keys. With api_keys set, every route but /livez, /readyz and the
 * public API document /v1/openapi.json needs
 * "Authorization: Bearer <key>" (compared in constant time against every
 * key); otherwise 401 with WWW-Authenticate: Bearer, before any body is read.
 *
 * Slow clients. libmicrohttpd's connection timeout only measures silence, so
 * a reaper thread shuts down the socket of a connection that has been
 * receiving one request for longer than request_timeout_s (the clock starts
 * at accept, or for a kept-alive connection when its next request's headers
 * are in, with idle time capped at connection_timeout_s + request_timeout_s).
 *
 * Faults. An engine refusal of a position the API accepted, or a result that
 * cannot be rendered, is a 500 problem; the worker serves on. fault_injection
 * = 1 (tests only) lets the X-Gomokud-Fault: engine | render header force them.
 *
 * Shutdown (server_drain, then server_stop): /readyz turns 503 and analysis
 * requests get 503 + Retry-After; queued and running searches go on for up to
 * drain_timeout_ms, then are stopped early and answered with what they have;
 * once every suspended connection has been answered the daemon stops taking
 * connections, lets the answers still being sent go out, and stops.
 */
#ifndef GOMOKUD_HTTP_H
#define GOMOKUD_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/config.h"

typedef struct Server Server;

/* Starts the workers and the daemon on cfg (copied; validated with
 * config_finish beforehand). engine_init() must have run. Returns false with
 * a message in err (address in use, out of memory...) and *out NULL. */
bool server_start(const Config *cfg, Server **out, char *err, size_t errlen);

/* The TCP port the server listens on (the real one when cfg->port was 0). */
uint16_t server_port(const Server *s);

/* Begins shutting down: /readyz answers 503 and no new search is taken.
 * Returns at once; safe to call more than once and from any thread. */
void server_drain(Server *s);

/* Drains (if not yet), waits for queued and running searches (stopping them
 * after drain_timeout_ms), answers every waiting client, stops the daemon
 * and frees everything. NULL is a no-op. */
void server_stop(Server *s);

/* Writes one log line to stderr when level <= max:
 * "ts=<UTC time> level=<level> <message>". Safe from any thread. */
void server_log(LogLevel max, LogLevel level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
