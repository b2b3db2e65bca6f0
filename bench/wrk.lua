-- wrk script of bench/run.sh. WRK_BODY, when set, turns the requests into POSTs of that JSON
-- body. done() prints one machine-readable line for run.sh:
--   RESULT <req/s> <p50 µs> <p99 µs> <requests> <non-2xx/3xx> <socket errors>
local body = os.getenv("WRK_BODY")
if body and body ~= "" then
  wrk.method = "POST"
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %.1f %d %d %d %d %d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99),
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout))
end
