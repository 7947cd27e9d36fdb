-- wrk script (bench/lifecycle.sh): POST /v1/verifications/{id}/cancel on a different open
-- verification every request (200). The ids come from a file, one a line; thread k of T
-- cancels lines k+1, k+1+T, k+1+2T, ... so no id is canceled twice. When a thread runs out
-- it requests /v1/verifications/exhausted/cancel (404), which wrk counts as non-2xx.
--   BENCH_API_KEY   the API key (required)
--   BENCH_IDS_FILE      the file of verification ids (required)
--   BENCH_THREAD_COUNT  wrk's -t (default 1)
local key = os.getenv("BENCH_API_KEY")
local path = os.getenv("BENCH_IDS_FILE")
if key == nil or key == "" then error("BENCH_API_KEY is not set") end
if path == nil or path == "" then error("BENCH_IDS_FILE is not set") end

local threads = 0
function setup(thread)
    thread:set("tid", threads)
    threads = threads + 1
end

local ids = nil
local next_index = 1
local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key }

function init(args)
    -- Each thread reads the file itself (thread:set copies only simple values), keeping its share.
    ids = {}
    local n, count = 0, tonumber(os.getenv("BENCH_THREAD_COUNT") or "1")
    for line in io.lines(path) do
        if n % count == tid then ids[#ids + 1] = line end
        n = n + 1
    end
end

function request()
    local id = ids[next_index]
    next_index = next_index + 1
    if id == nil then id = "exhausted" end
    return wrk.format("POST", "/v1/verifications/" .. id .. "/cancel", headers, "{}")
end
