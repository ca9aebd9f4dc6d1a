-- wrk script: POST an OpenAI chat completion; counts non-2xx answers so run.sh can report them.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
-- BENCH_MODEL picks the model (and so the channel); bench/run.sh quota warms its gateway up on `warm-bench`
wrk.body = '{"model":"' .. (os.getenv("BENCH_MODEL") or "gpt-4o-mini") .. '","messages":[{"role":"user","content":"ping"}],"max_tokens":1}'
-- BENCH_TOKEN: a tenant's token, for a gateway with tenants (bench/run.sh tenants warms up as tenant `warm`)
if os.getenv("BENCH_TOKEN") then
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
end

-- BENCH_HEADERS: more headers, "Name: value" pairs separated by ";" (bench/peer.sh: Portkey's provider headers)
for pair in string.gmatch(os.getenv("BENCH_HEADERS") or "", "[^;]+") do
  local name, value = pair:match("^%s*(.-)%s*:%s*(.-)%s*$")
  if name and name ~= "" then
    wrk.headers[name] = value
  end
end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

non2xx = 0
function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
end

function done(summary, latency, requests)
  -- machine-readable tail line for run.sh (latencies in microseconds)
  local bad = 0
  for _, t in ipairs(threads) do
    bad = bad + (t:get("non2xx") or 0)
  end
  local e = summary.errors
  io.write(string.format("BENCH requests=%d duration_us=%d rps=%.1f p50_us=%d p90_us=%d p99_us=%d max_us=%d non2xx=%d connect=%d read=%d write=%d timeout=%d\n",
    summary.requests, summary.duration, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    bad, e.connect, e.read, e.write, e.timeout))
end
