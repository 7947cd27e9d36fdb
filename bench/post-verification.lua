-- wrk script (bench/run.sh): POST /v1/verifications with a JSON body and a Bearer key.
--   BENCH_API_KEY            the API key (required)
--   BENCH_VERIFICATION_BODY  the JSON body (default: the bench user's verification)
-- bench/run.sh creates that verification first, so every request here is an idempotent
-- repeat answered 200 with the existing verification.
local key = os.getenv("BENCH_API_KEY")
if key == nil or key == "" then
    error("BENCH_API_KEY is not set")
end
local body = os.getenv("BENCH_VERIFICATION_BODY")
if body == nil or body == "" then
    body = '{"user_id":"bench-user","workflow":"bench","mobile":"+919876543210"}'
end

wrk.method = "POST"
wrk.body = body
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. key
