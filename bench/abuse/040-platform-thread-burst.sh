# A burst five times the worker pool on platform threads (Java 17-20, or virtual threads off): 200 Vert.x workers,
# 1,000 requests at once, a provider that takes 1 s. The workers' worth go to the provider, the rest get 503 overloaded
# at once; before, every worker waited for an answer that waited for a worker, and the gateway never answered again.
restart_gateway -Dcamel.threads.virtual.enabled=false -Dkeypool.worker-threads=200
curl -s -o /dev/null -X POST "$FAKE/control/latency?ms=1000"
burst_out=$(mktemp "${TMPDIR:-/tmp}/abuse-40-XXXXXX")
node - "$GW" "$TOKEN_B" "$CHAT_BODY" > "$burst_out" 2>&1 <<'JS' || true
const http = require('http');
const [gw, token, body] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const n = 1000, counts = {}, last = {};
let done = 0;
const t0 = Date.now();
for (let i = 0; i < n; i++) {
  const req = http.request(gw + '/v1/chat/completions', { method: 'POST', agent, timeout: 30000, headers: {
    'Content-Type': 'application/json', 'Authorization': 'Bearer ' + token, 'Content-Length': Buffer.byteLength(body) } },
    res => { res.resume(); res.on('end', () => end(String(res.statusCode))); });
  req.on('timeout', () => req.destroy(new Error('timeout')));
  req.on('error', e => end(e.message === 'timeout' ? 'timeout' : 'error'));
  req.end(body);
}
function end(status) {
  counts[status] = (counts[status] || 0) + 1;
  last[status] = Date.now() - t0;
  if (++done === n) {
    const parts = Object.keys(counts).sort().map(s => counts[s] + ' x ' + s + ' (last at ' + last[s] + ' ms)');
    console.log(parts.join(', '));
  }
}
JS
report "platform-thread burst" "1000 chats at once, 200 workers, virtual threads off, provider 1 s" \
  "$(tail -1 "$burst_out")"
rm -f "$burst_out"
curl -s -o /dev/null -X POST "$FAKE/control/latency?ms=0"
restart_gateway
