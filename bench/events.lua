-- wrk script of bench/events.sh: POSTs a new order each time, for pet FIRST_PET, FIRST_PET + 1,
-- ... (each of the THREADS threads takes every THREADS-th one), so that every request orders an
-- available pet. done() prints the RESULT line of bench/wrk.lua.
local first, count = tonumber(os.getenv("FIRST_PET") or "1"), tonumber(os.getenv("THREADS") or "1")
local made, n = 0, 0

function setup(thread)
  thread:set("index", made)
  made = made + 1
end

function init()
  n = index
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  local pet = first + n
  n = n + count
  return wrk.format(nil, nil, nil, string.format('{"petId":%d}', pet))
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %.1f %d %d %d %d %d %.0f\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99),
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout,
    summary.bytes / math.max(summary.requests, 1)))
end
