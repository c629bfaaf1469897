/*
 * web.h - the board page's static files (web/), served at GET /.
 *
 * The files are compiled into the binary (the Makefile runs
 * tools/embed_files.c over the files of web/ into web_assets[]); with the `web_root`
 * setting a directory is served instead, read on every request, so a page
 * can be edited and reloaded without a rebuild. Only paths of the shape
 * web_path_ok accepts are static routes; the rest of the URL space stays
 * the API's.
 */
#ifndef GOMOKUD_WEB_H
#define GOMOKUD_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One embedded file. */
typedef struct {
    const char *name;          /* URL path: "/index.html" */
    const unsigned char *data; /* len bytes, then a NUL */
    size_t len;
    const char *etag;          /* strong ETag, quoted: "\"0123456789abcdef\"" */
} WebAsset;

/* Generated from web/ at build time. */
extern const WebAsset web_assets[];
extern const size_t web_asset_count;

#define WEB_INDEX "/index.html"
#define WEB_FILE_MAX (16 << 20) /* largest file served from web_root */
#define WEB_ETAG_MAX 24

/* The Content-Security-Policy of every static answer: own origin only, no
 * inline script or style, no framing. */
#define WEB_CSP                                                                                                  \
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "    \
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/* True for "/" and for paths of one or more segments of letters, digits,
 * '.', '-' and '_' (none starting with '.') whose last segment ends in an
 * extension web_content_type knows, outside /v1/. Such paths are the static
 * routes (a missing one is a 404); no other path ever reaches the file
 * system. */
bool web_path_ok(const char *url);

/* The Content-Type for a file name by its extension; NULL for an unknown one. */
const char *web_content_type(const char *name);

/* The embedded file at a URL path ("/" is the index), or NULL. */
const WebAsset *web_find(const char *url);

/* Reads root + url ("/" is the index) into a malloc'd buffer with a NUL
 * after its len bytes, and its ETag (FNV-1a of the bytes) into etag.
 * Returns 200 with *out set, 404 when there is no such regular file, 500 on
 * a read error or a file over WEB_FILE_MAX. url must satisfy web_path_ok. */
int web_read_file(const char *root, const char *url, char **out, size_t *len, char etag[WEB_ETAG_MAX]);

/* True when an If-None-Match header value lists etag (or is "*"). */
bool web_etag_matches(const char *if_none_match, const char *etag);

#endif
