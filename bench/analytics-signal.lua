-- wrk script (bench/analytics.sh): the journey page's signal call,
-- POST /j/{id}/api/signals {"signal":"step_viewed","step":...}, with the session cookie and
-- the journey's own Origin, as the page sends it.
--   BENCH_SESSION  the hosted_session cookie's value (required)
--   BENCH_ORIGIN   the server's origin, e.g. http://127.0.0.1:8080 (required)
--   BENCH_STEP     the step id (default "about")
--   BENCH_UA       the User-Agent (default a phone's Chrome)
local session = os.getenv("BENCH_SESSION")
local origin = os.getenv("BENCH_ORIGIN")
if session == nil or session == "" or origin == nil or origin == "" then
    error("BENCH_SESSION and BENCH_ORIGIN must be set")
end
local step = os.getenv("BENCH_STEP") or "about"
wrk.method = "POST"
wrk.body = '{"signal":"step_viewed","step":"' .. step .. '"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Cookie"] = "hosted_session=" .. session
wrk.headers["Origin"] = origin
wrk.headers["User-Agent"] = os.getenv("BENCH_UA") or
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
