/* http_client.h - libcurl requests to the in-process server, shared by the
 * HTTP and picture tests. */
#ifndef GOMOKUD_TESTS_HTTP_CLIENT_H
#define GOMOKUD_TESTS_HTTP_CLIENT_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    long status;
    char *body; /* always 0-terminated; may hold binary data (len) */
    size_t len;
    char hdr[8192]; /* the raw header block, as far as it fits */
    size_t hlen;
} HttpResp;

/* One request to 127.0.0.1:port on handle h (NULL: a fresh one, cleaned up
 * after). headers may be NULL, or several separated by newlines. Fails the
 * test when the transfer fails (any HTTP status is a success here). */
HttpResp http_request_on(CURL *h, uint16_t port, const char *method, const char *path, const char *body,
                         const char *headers);

/* The value of a response header ("" when absent), case-insensitive name;
 * a static buffer, valid until the next call. */
const char *http_header(const HttpResp *r, const char *name);

void http_resp_free(HttpResp *r);

#endif
