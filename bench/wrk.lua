-- wrk script of bench/run.sh. WRK_BODY, when set, turns the requests into POSTs of that JSON
-- body (WRK_METHOD another method, WRK_CONTENT_TYPE another media type); with WRK_BODY2 too, the
-- requests alternate between the two bodies. done() prints one machine-readable line for run.sh:
--   RESULT <req/s> <p50 µs> <p99 µs> <requests> <non-2xx/3xx> <socket errors> <bytes read per request>
local body = os.getenv("WRK_BODY")
local body2 = os.getenv("WRK_BODY2")
if body and body ~= "" then
  wrk.method = os.getenv("WRK_METHOD") or "POST"
  if wrk.method == "" then wrk.method = "POST" end
  wrk.body = body
  local ct = os.getenv("WRK_CONTENT_TYPE")
  if not ct or ct == "" then ct = "application/json" end
  wrk.headers["Content-Type"] = ct
end

if body2 and body2 ~= "" then
  local n = 0
  request = function()
    n = n + 1
    if n % 2 == 0 then
      return wrk.format(nil, nil, nil, body2)
    end
    return wrk.format(nil, nil, nil, body)
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %.1f %d %d %d %d %d %.0f\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99),
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout,
    summary.bytes / math.max(summary.requests, 1)))
end
