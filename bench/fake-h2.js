#!/usr/bin/env node
// The fake provider of `inflight10k` over TLS with HTTP/2 (ALPN h2, and http/1.1 for curl's control calls): every
// POST is answered with a one-token chat completion after --latency-ms (or POST /control/latency?ms=N). An h2
// session allows --streams requests at once (SETTINGS_MAX_CONCURRENT_STREAMS, 100 by default as many providers do).
// Node's http2 rather than a Java server: one thread, OpenSSL's TLS, and the bench's other fakes are Node already.
//
//   node bench/fake-h2.js --port 9101 --cert cert.pem --key key.pem [--latency-ms 2000] [--streams 100]
//
//   POST /control/latency?ms=N   the answer delay from now on
//   POST /control/reset          zero the counters (the peaks start again from what is open now)
//   GET  /control/stats          {"total", "inFlight", "maxInFlight", "connections", "maxConnections",
//                                 "connectionsOpened", "h2", "http1"}
'use strict';
const http2 = require('http2');
const fs = require('fs');

const { arg } = require('./args');
const port = Number(arg('port', 9101));
let latencyMs = Number(arg('latency-ms', 0));
const streams = Number(arg('streams', 100));

let total = 0, inFlight = 0, maxInFlight = 0, connections = 0, maxConnections = 0, connectionsOpened = 0, h2 = 0, http1 = 0;

const server = http2.createSecureServer({
  cert: fs.readFileSync(arg('cert')),
  key: fs.readFileSync(arg('key')),
  allowHTTP1: true,
  settings: { maxConcurrentStreams: streams },
});
server.on('secureConnection', (socket) => {
  connections++; connectionsOpened++;
  if (connections > maxConnections) maxConnections = connections;
  socket.on('close', () => { connections--; });
});

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function control(req, res, url) {
  if (req.method === 'POST' && url.pathname === '/control/latency') {
    latencyMs = Number(url.searchParams.get('ms') || 0);
    return answer(res, 200, JSON.stringify({ latencyMs }));
  }
  if (req.method === 'POST' && url.pathname === '/control/reset') {
    total = h2 = http1 = connectionsOpened = 0; maxInFlight = inFlight; maxConnections = connections;
    return answer(res, 200, '{"reset":true}');
  }
  if (req.method === 'GET' && url.pathname === '/control/stats') {
    return answer(res, 200, JSON.stringify({ total, inFlight, maxInFlight, connections, maxConnections, connectionsOpened, h2, http1 }));
  }
  return answer(res, 404, '{"error":{"message":"no such control endpoint","type":"not_found"}}');
}

server.on('request', (req, res) => {
  const url = new URL(req.url, 'https://127.0.0.1');
  if (url.pathname.startsWith('/control/')) {
    req.resume();
    return control(req, res, url);
  }
  req.resume();
  req.on('end', () => {
    total++;
    if (req.httpVersionMajor === 2) h2++; else http1++;
    inFlight++;
    if (inFlight > maxInFlight) maxInFlight = inFlight;
    setTimeout(() => {
      inFlight--;
      if (res.destroyed || res.closed) return;
      answer(res, 200, JSON.stringify({
        id: 'chatcmpl-h2-' + total, object: 'chat.completion', created: 1700000000, model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: 'pong' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
      }));
    }, latencyMs);
  });
});

server.listen(port, '127.0.0.1', () => console.log(`fake h2 provider on https://127.0.0.1:${port} (streams per connection ${streams})`));
