/* web.c - the board page's static files: which paths, which types, where from. */
#include "server/web.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *ext;
    const char *type;
} TYPES[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".ico", "image/x-icon"},
    {".json", "application/json"},
    {".webmanifest", "application/manifest+json"},
    {".txt", "text/plain; charset=utf-8"},
};

const char *web_content_type(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot || strchr(dot, '/')) return NULL;
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++)
        if (!strcmp(dot, TYPES[i].ext)) return TYPES[i].type;
    return NULL;
}

bool web_path_ok(const char *url)
{
    if (!url || url[0] != '/') return false;
    if (!url[1]) return true;
    if (!strncmp(url, "/v1/", 4)) return false;
    bool seg_start = true;
    for (const char *c = url + 1; *c; c++) {
        if (*c == '/') {
            if (seg_start) return false; /* empty segment */
            seg_start = true;
            continue;
        }
        if (seg_start && *c == '.') return false; /* dotfiles, "." and ".." */
        seg_start = false;
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
              *c == '-' || *c == '_'))
            return false;
    }
    if (seg_start) return false; /* trailing slash */
    return web_content_type(url) != NULL;
}

const WebAsset *web_find(const char *url)
{
    if (!strcmp(url, "/")) url = WEB_INDEX;
    for (size_t i = 0; i < web_asset_count; i++)
        if (!strcmp(web_assets[i].name, url)) return &web_assets[i];
    return NULL;
}

static void etag_of(const char *data, size_t len, char etag[WEB_ETAG_MAX])
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < len; i++) h = (h ^ (uint64_t)(unsigned char)data[i]) * UINT64_C(1099511628211);
    snprintf(etag, WEB_ETAG_MAX, "\"%016llx\"", (unsigned long long)h);
}

int web_read_file(const char *root, const char *url, char **out, size_t *len, char etag[WEB_ETAG_MAX])
{
    *out = NULL;
    *len = 0;
    if (!strcmp(url, "/")) url = WEB_INDEX;
    size_t plen = strlen(root) + strlen(url) + 1;
    char *path = malloc(plen);
    if (!path) return 500;
    snprintf(path, plen, "%s%s", root, url);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    free(path);
    if (fd < 0) return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 404 : 500;
    int status = 500;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st)) goto done;
    if (!S_ISREG(st.st_mode)) {
        status = 404;
        goto done;
    }
    if (st.st_size > WEB_FILE_MAX) goto done;
    size_t n = (size_t)st.st_size, got = 0;
    if (!(buf = malloc(n + 1))) goto done;
    while (got < n) {
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) goto done;
        if (k == 0) break; /* shrank while read: serve what was there */
        got += (size_t)k;
    }
    buf[got] = 0;
    etag_of(buf, got, etag);
    *out = buf;
    *len = got;
    buf = NULL;
    status = 200;
done:
    free(buf);
    close(fd);
    return status;
}

bool web_etag_matches(const char *inm, const char *etag)
{
    if (!inm) return false;
    size_t n = strlen(etag);
    for (const char *p = inm; *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',') p++;
        if (!*p) break;
        if (*p == '*') return true;
        if (!strncmp(p, "W/", 2)) p += 2; /* If-None-Match compares weakly */
        size_t k = strcspn(p, ",");
        size_t t = k;
        while (t && (p[t - 1] == ' ' || p[t - 1] == '\t')) t--;
        if (t == n && !memcmp(p, etag, n)) return true;
        p += k;
    }
    return false;
}
