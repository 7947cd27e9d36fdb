-- wrk script (bench/lifecycle.sh): POST /v1/verifications creating a NEW verification on
-- every request (201): the user_id is unique per request, PREFIX-THREAD-COUNTER.
--   BENCH_API_KEY      the API key (required)
--   BENCH_USER_PREFIX  unique per wrk run (required: each run restarts the counters)
--   BENCH_WORKFLOW     the workflow key (default kyc)
local key = os.getenv("BENCH_API_KEY")
local prefix = os.getenv("BENCH_USER_PREFIX")
if key == nil or key == "" then error("BENCH_API_KEY is not set") end
if prefix == nil or prefix == "" then error("BENCH_USER_PREFIX is not set") end
local workflow = os.getenv("BENCH_WORKFLOW") or "kyc"

local threads = 0
function setup(thread)
    thread:set("tid", threads)
    threads = threads + 1
end

local counter = 0
local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key }

function request()
    counter = counter + 1
    local body = string.format('{"user_id":"%s-%d-%d","workflow":"%s","mobile":"+919876543210"}',
        prefix, tid, counter, workflow)
    return wrk.format("POST", "/v1/verifications", headers, body)
end
