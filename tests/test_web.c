/* The board page's files: which paths are static routes, their types, the
 * files built into the binary, and ETag matching. */
#include <criterion/criterion.h>
#include <string.h>

#include "server/web.h"

Test(web, only_plain_file_paths_outside_the_api_are_static_routes)
{
    const char *yes[] = {"/", "/index.html", "/app.js", "/app.css", "/img/board.png", "/favicon.svg", "/a-b_c.1.js"};
    const char *no[] = {"",          "index.html",   "/v1/app.js",   "/.env.js",     "/../app.js", "/a/../app.js",
                        "/app",      "/app.exe",     "/app.js/",     "//app.js",     "/a b.js",    "/app.js%00",
                        "/livez",    "/metrics",     "/img/.x.png",  "/%2e%2e/x.js", "/app.js\\",  "/v1/analyze"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) cr_assert(web_path_ok(yes[i]), "%s", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) cr_assert_not(web_path_ok(no[i]), "%s", no[i]);
}

Test(web, content_types_follow_the_extension)
{
    cr_assert_str_eq(web_content_type("/index.html"), "text/html; charset=utf-8");
    cr_assert_str_eq(web_content_type("/app.js"), "text/javascript; charset=utf-8");
    cr_assert_str_eq(web_content_type("/app.css"), "text/css; charset=utf-8");
    cr_assert_str_eq(web_content_type("/board.png"), "image/png");
    cr_assert_str_eq(web_content_type("/favicon.svg"), "image/svg+xml");
    cr_assert_null(web_content_type("/README"));
    cr_assert_null(web_content_type("/x.sh"));
}

Test(web, the_page_is_built_into_the_binary_with_its_script_and_style)
{
    const char *need[] = {"/index.html", "/app.js", "/app.css"};
    for (int i = 0; i < 3; i++) {
        const WebAsset *a = web_find(need[i]);
        cr_assert_not_null(a, "%s", need[i]);
        cr_assert_gt(a->len, 100, "%s", need[i]);
        cr_assert_eq(a->data[a->len], 0, "NUL after the bytes");
        cr_assert_eq(strlen(a->etag), 18, "%s", a->etag);
    }
    cr_assert_eq(web_find("/"), web_find("/index.html"));
    cr_assert_null(web_find("/nope.js"));
}

Test(web, if_none_match_lists_are_compared_weakly)
{
    const char *e = "\"0123456789abcdef\"";
    cr_assert(web_etag_matches("\"0123456789abcdef\"", e));
    cr_assert(web_etag_matches("\"x\", W/\"0123456789abcdef\"", e));
    cr_assert(web_etag_matches("*", e));
    cr_assert_not(web_etag_matches(NULL, e));
    cr_assert_not(web_etag_matches("", e));
    cr_assert_not(web_etag_matches("\"0123456789abcde\"", e));
    cr_assert_not(web_etag_matches("0123456789abcdef", e));
}
