-- wrk script of bench/run.sh. WRK_BODY, when set, turns the requests into POSTs of that JSON
-- body (WRK_METHOD another method, WRK_CONTENT_TYPE another media type); with WRK_BODY2 too, the
-- requests alternate between the two bodies, and with WRK_PATHS (paths separated by spaces) they
-- go to each path in turn. done() prints one machine-readable line for run.sh:
--   RESULT <req/s> <p50 µs> <p99 µs> <requests> <non-2xx/3xx> <socket errors> <bytes read per request>
local body = os.getenv("WRK_BODY")
if body and body ~= "" then
  wrk.method = os.getenv("WRK_METHOD") or "POST"
  if wrk.method == "" then wrk.method = "POST" end
  wrk.body = body
  local ct = os.getenv("WRK_CONTENT_TYPE")
  if not ct or ct == "" then ct = "application/json" end
  wrk.headers["Content-Type"] = ct
end

local bodies = { body }
local body2 = os.getenv("WRK_BODY2")
if body2 and body2 ~= "" then table.insert(bodies, body2) end
local paths = {}
for p in string.gmatch(os.getenv("WRK_PATHS") or "", "%S+") do table.insert(paths, p) end

if #bodies > 1 or #paths > 0 then
  local n = math.random(1000)
  request = function()
    n = n + 1
    local path = nil
    if #paths > 0 then path = paths[n % #paths + 1] end
    -- A path's body changes each time it comes round, so that each request is a real change.
    return wrk.format(nil, path, nil, bodies[math.floor(n / math.max(#paths, 1)) % #bodies + 1])
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
