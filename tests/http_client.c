/* http_client.c - see http_client.h. */
#include "tests/http_client.h"

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    HttpResp *r = ud;
    size_t k = size * n;
    char *b = realloc(r->body, r->len + k + 1);
    if (!b) return 0;
    memcpy(b + r->len, p, k);
    r->body = b;
    r->len += k;
    r->body[r->len] = 0;
    return k;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    HttpResp *r = ud;
    size_t k = size * n;
    if (r->hlen + k < sizeof r->hdr) {
        memcpy(r->hdr + r->hlen, p, k);
        r->hlen += k;
        r->hdr[r->hlen] = 0;
    }
    return k;
}

HttpResp http_request_on(CURL *h, uint16_t port, const char *method, const char *path, const char *body,
                         const char *headers)
{
    HttpResp r = {0};
    r.body = calloc(1, 1);
    bool own = !h;
    if (own) h = curl_easy_init();
    cr_assert_not_null(h);
    char url[1024];
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", (unsigned)port, path);
    struct curl_slist *hs = NULL;
    for (const char *hp = headers; hp && *hp;) {
        char one[512];
        size_t n = strcspn(hp, "\n");
        snprintf(one, sizeof one, "%.*s", (int)n, hp);
        hs = curl_slist_append(hs, one);
        hp += n + (hp[n] == '\n');
    }
    hs = curl_slist_append(hs, "Expect:");
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hs);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &r);
    /* a hang detector, not a speed limit: a balanced-openings request takes
     * about 8 s under the sanitizers alone and twice that beside the plain
     * test pass (at 20 s, one of two CI runs of the same code failed) */
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 60000L);
    if (body) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    } else {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    }
    bool head = !strcmp(method, "HEAD");
    curl_easy_setopt(h, CURLOPT_NOBODY, head ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, head ? NULL : method);
    CURLcode rc = curl_easy_perform(h);
    cr_assert_eq(rc, CURLE_OK, "%s %s: %s", method, path, curl_easy_strerror(rc));
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(hs);
    if (own) curl_easy_cleanup(h);
    return r;
}

const char *http_header(const HttpResp *r, const char *name)
{
    static char val[512];
    size_t n = strlen(name);
    val[0] = 0;
    for (const char *line = r->hdr; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len > n && !strncasecmp(line, name, n) && line[n] == ':') {
            const char *v = line + n + 1;
            while (*v == ' ') v++;
            size_t vl = (size_t)(line + len - v);
            while (vl && (v[vl - 1] == '\r' || v[vl - 1] == ' ')) vl--;
            if (vl >= sizeof val) vl = sizeof val - 1;
            memcpy(val, v, vl);
            val[vl] = 0;
            return val;
        }
        if (!eol) break;
        line = eol + 1;
    }
    return val;
}

void http_resp_free(HttpResp *r)
{
    free(r->body);
    r->body = NULL;
}
