/* The result cache: identity of an analysis, replacement, copies. */
#include <criterion/criterion.h>
#include <string.h>

#include "server/cache.h"

static const ApiCaps caps = {.max_time_ms = 10000, .max_depth = 64, .max_nodes = 1000000, .max_multipv = 8};

static ApiRequest req_of(const char *json)
{
    ApiRequest q;
    ApiProblem p;
    cr_assert(api_parse_analyze(json, strlen(json), &caps, &q, &p), "%s: %s", json, p.detail);
    return q;
}

static EngineResult result_with(Score score)
{
    EngineResult r;
    memset(&r, 0, sizeof r);
    r.score = score;
    r.depth = 3;
    return r;
}

Test(cache, an_identical_analysis_is_found_and_its_id_does_not_matter)
{
    ResultCache *c = cache_new(4);
    cr_assert_not_null(c);
    ApiRequest a = req_of("{\"id\":\"x\",\"moves\":[\"h8\",\"i9\"],\"limits\":{\"depth\":3}}");
    EngineResult r = result_with(42), got;
    cr_assert_not(cache_get(c, &a, &got));
    cache_put(c, &a, &r);
    ApiRequest b = req_of("{\"id\":\"y\",\"moves\":[\"h8\",\"i9\"],\"limits\":{\"depth\":3}}");
    cr_assert(cache_get(c, &b, &got));
    cr_assert_eq(got.score, 42);
    const char *others[] = {
        "{\"moves\":[\"h8\",\"i9\"],\"limits\":{\"depth\":4}}",
        "{\"moves\":[\"h8\",\"i9\"],\"limits\":{\"depth\":3},\"multipv\":2}",
        "{\"moves\":[\"h8\",\"i9\"],\"limits\":{\"depth\":3},\"rule\":\"renju\"}",
        "{\"moves\":[\"h8\",\"i9\"],\"limits\":{\"depth\":3},\"board_size\":19}",
        "{\"moves\":[\"h8\",\"i8\"],\"limits\":{\"depth\":3}}",
        "{\"moves\":[\"h8\",\"i9\",\"a1\"],\"limits\":{\"depth\":3}}",
        "{\"stones\":{\"black\":[\"h8\"],\"white\":[\"i9\"]},\"limits\":{\"depth\":3}}",
    };
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        ApiRequest o = req_of(others[i]);
        cr_assert_not(cache_get(c, &o, &got), "%s is another analysis", others[i]);
    }
    cache_free(c);
}

Test(cache, the_least_recently_used_entry_goes_first)
{
    ResultCache *c = cache_new(2);
    ApiRequest q[3] = {req_of("{\"moves\":[\"a1\"],\"limits\":{\"depth\":1}}"),
                       req_of("{\"moves\":[\"b2\"],\"limits\":{\"depth\":1}}"),
                       req_of("{\"moves\":[\"c3\"],\"limits\":{\"depth\":1}}")};
    EngineResult got;
    for (int i = 0; i < 2; i++) {
        EngineResult r = result_with((Score)i);
        cache_put(c, &q[i], &r);
    }
    cr_assert(cache_get(c, &q[0], &got)); /* q[0] is now the more recent */
    EngineResult r = result_with(2);
    cache_put(c, &q[2], &r);
    cr_assert(cache_get(c, &q[0], &got));
    cr_assert_eq(got.score, 0);
    cr_assert_not(cache_get(c, &q[1], &got), "q[1] was the least recently used");
    cr_assert(cache_get(c, &q[2], &got));
    cr_assert_eq(got.score, 2);
    /* a second put of the same analysis replaces its result */
    r = result_with(7);
    cache_put(c, &q[2], &r);
    cr_assert(cache_get(c, &q[2], &got));
    cr_assert_eq(got.score, 7);
    cr_assert(cache_get(c, &q[0], &got), "and takes no second slot");
    cache_free(c);
}
