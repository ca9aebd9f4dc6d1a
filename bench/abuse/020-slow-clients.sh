# Slow clients: 1,000 connections that send their headers (10 kB announced) and then one byte of their body a second (half JSON chat,
# half audio uploads), while a normal request is timed; then the same with keypool.request-read-timeout-ms=3000, to
# see the server cut them (408 and closed) rather than hold them; then 1,000 connections that never complete their
# headers (one header byte a second), with keypool.request-header-timeout-ms=3000: closed, no answer.
slow_clients() {   # slow_clients SECONDS MEASURE_AT_SECONDS [headers] -> "open N, answered-by-server M (codes), normal CODE in MS ms"
  node - "$1" "$2" "${3:-body}" <<'JS'
const net = require('net');
const http = require('http');
const [duration, measureAt] = process.argv.slice(2, 4).map(Number);
const headersOnly = process.argv[4] === 'headers';
const url = new URL(process.env.GW);
const sockets = [];
let answered = 0, closedByServer = 0;
const codes = {};
for (let i = 0; i < 1000; i++) {
  const s = net.connect(Number(url.port), url.hostname);
  const audio = i % 2 === 1;
  s.on('connect', () => s.write(headersOnly ? 'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Slow: '
    : `POST ${audio ? '/v1/audio/transcriptions' : '/v1/chat/completions'} HTTP/1.1\r\n`
    + `Host: x\r\nAuthorization: Bearer ${process.env.TOKEN_A}\r\n`
    + `Content-Type: ${audio ? 'multipart/form-data; boundary=b' : 'application/json'}\r\nContent-Length: 10000\r\n\r\n`));
  s.on('data', d => { if (!s.answered) { s.answered = true; answered++; const c = d.toString().split(' ')[1]; codes[c] = (codes[c] || 0) + 1; } });
  s.on('close', () => { s.closed = true; closedByServer++; });
  s.on('error', () => {});
  sockets.push(s);
}
const drip = setInterval(() => sockets.forEach(s => { if (!s.closed) s.write('x'); }), 1000);
let normal = 'not measured';
setTimeout(() => {
  const started = Date.now();
  const req = http.request({ host: url.hostname, port: url.port, path: '/v1/chat/completions', method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${process.env.TOKEN_B}` }, timeout: 20000 }, res => {
    res.resume();
    res.on('end', () => { normal = `${res.statusCode} in ${Date.now() - started} ms`; });
  });
  req.on('error', e => { normal = `error ${e.code} after ${Date.now() - started} ms`; });
  req.on('timeout', () => req.destroy());
  req.end(process.env.CHAT_BODY);
}, measureAt * 1000);
setTimeout(() => {
  clearInterval(drip);
  const open = sockets.filter(s => !s.closed).length;
  console.log(`still open ${open}, answered by the server ${answered} (${JSON.stringify(codes)}), normal request ${normal}`);
  sockets.forEach(s => s.destroy());
  process.exit(0);
}, duration * 1000);
JS
}
report "20 slow clients" "1,000 connections x 1 byte/s for 12 s, default read timeout" "$(slow_clients 12 5)"
restart_gateway -Dkeypool.request-read-timeout-ms=3000
report "20 slow clients, 3 s timeout" "1,000 connections x 1 byte/s for 8 s, read timeout 3 s" "$(slow_clients 8 5)"
restart_gateway -Dkeypool.request-header-timeout-ms=3000
report "20 header dribblers, 3 s head timeout" "1,000 connections x 1 header byte/s for 8 s, head timeout 3 s" "$(slow_clients 8 5 headers)"
restart_gateway
