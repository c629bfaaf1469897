-- loadtest.lua - wrk script for tools/loadtest.sh.
--
-- LOADTEST_MIX=load (default): every request is POST /v1/analyze with
-- LOADTEST_BODY. LOADTEST_MIX=soak: requests cycle through valid analyses,
-- malformed JSON, impossible positions (422), batches and wrong methods.
-- Each thread tallies response statuses and whether every 503 carried
-- Retry-After; done() prints one "status <code> <count>" line per status
-- and "503_without_retry_after <n>". LOADTEST_REQUESTS (soak) stops each
-- thread after its share of that many responses.

local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

local mix = os.getenv("LOADTEST_MIX") or "load"
local body = os.getenv("LOADTEST_BODY") or '{"moves":["h8","h9"],"limits":{"time_ms":50}}'
local nthreads = tonumber(os.getenv("LOADTEST_THREADS") or "2")
local limit = tonumber(os.getenv("LOADTEST_REQUESTS") or "0")

local soak = {
    {"POST", "/v1/analyze", '{"moves":["h8"],"limits":{"depth":1}}'},
    {"POST", "/v1/analyze", '{"moves":["h8","i9"'},                               -- 400
    {"POST", "/v1/analyze", '{"moves":["h8","h8"],"limits":{"depth":1}}'},        -- 422
    {"POST", "/v1/analyze", '{"moves":["z99"]}'},                                 -- 422
    {"POST", "/v1/analyze/batch",
     '{"positions":[{"moves":["h8"],"limits":{"depth":1}},{"moves":["a1","a1"]},{"moves":["h8","i8"],"limits":{"nodes":2000}}]}'},
    {"POST", "/v1/analyze", '{"stones":{"black":["h8","i9"],"white":["h9"]},"to_move":"white","limits":{"depth":2}}'},
    {"POST", "/v1/analyze", 'not json at all'},                                   -- 400
    {"GET", "/v1/analyze", nil},                                                  -- 405
    {"GET", "/v1/info", nil},
    {"POST", "/v1/analyze", '{"rule":"renju","moves":["h8","h9","i9"],"limits":{"depth":2},"multipv":2}'},
}
local reqs = {}

function init(args)
    counts = {}
    no_retry = 0
    seen = 0
    n = 0
    if mix == "soak" then
        for i, r in ipairs(soak) do
            local h = {["Content-Type"] = "application/json"}
            reqs[i] = wrk.format(r[1], r[2], h, r[3])
        end
    else
        reqs[1] = wrk.format("POST", "/v1/analyze", {["Content-Type"] = "application/json"}, body)
    end
end

function request()
    n = n + 1
    return reqs[(n - 1) % #reqs + 1]
end

function response(status, headers, body)
    local k = tostring(status)
    counts[k] = (counts[k] or 0) + 1
    if status == 503 and headers["Retry-After"] == nil and headers["retry-after"] == nil then
        no_retry = no_retry + 1
    end
    seen = seen + 1
    if limit > 0 and seen >= limit / nthreads then
        wrk.thread:stop()
    end
end

function done(summary, latency, requests)
    local total, nr = {}, 0
    for _, t in ipairs(threads) do
        local c = t:get("counts")
        for k, v in pairs(c) do total[k] = (total[k] or 0) + v end
        nr = nr + t:get("no_retry")
    end
    for k, v in pairs(total) do io.write(string.format("status %s %d\n", k, v)) end
    io.write(string.format("503_without_retry_after %d\n", nr))
    io.write(string.format("errors connect %d read %d write %d timeout %d status %d\n",
        summary.errors.connect, summary.errors.read, summary.errors.write,
        summary.errors.timeout, summary.errors.status))
    io.write(string.format("latency_all_ms p50 %.2f p99 %.2f max %.2f\n",
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
