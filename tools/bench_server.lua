-- bench_server.lua - wrk script for tools/bench_server.sh: POSTs one
-- analysis body (BENCH_BODY, default a depth-1 search) on every request.
wrk.method = "POST"
wrk.path = os.getenv("BENCH_PATH") or "/v1/analyze"
wrk.body = os.getenv("BENCH_BODY") or '{"moves":["h8"],"limits":{"depth":1}}'
wrk.headers["Content-Type"] = "application/json"
