-- wrk script (bench/run.sh): every connection waits BENCH_DELAY_MS between its requests, so
-- the run offers about half the rate the same row reached flat out, for #16's "p99 at half the
-- peak rate" goal. The Authorization header comes from wrk's -H.
local pause = tonumber(os.getenv("BENCH_DELAY_MS") or "0")

function delay()
  return pause
end
