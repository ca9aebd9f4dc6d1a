#!/usr/bin/env node
// KeyPool benchmark: a fake OpenAI-compatible provider (Node, no dependencies).
//
//   node bench/fake-upstream.js --port 9101 [--latency-ms 0] [--host 127.0.0.1] [--rpm 0]
//
// --rpm N (or FAKE_RPM=N, or POST /control/rpm?limit=N at run time; 0 = off, the default) makes it enforce N
// requests per minute per key, as a provider does: the key is the Bearer token of the call, the window an exact
// sliding 60 s (a call counts while it arrived less than 60,000 ms ago, monotonic clock); a call past it is
// answered 429 (OpenAI-shaped rate_limit_exceeded, Retry-After = seconds until the oldest leaves) and counted,
// and does not count against the window itself.
//
// API (what the gateway calls):
//   POST /v1/chat/completions, POST /v1/embeddings, POST /v1/responses (also without the /v1 prefix)
//       -> after --latency-ms (a timer, never blocking), a small chat.completion JSON with `usage`,
//          or, while failing, the configured status with an OpenAI-shaped error body.
//   POST /v1/messages -> Anthropic's Messages API: a message with `usage`; streamed as its typed events (message_start,
//          content_block_start, the same number of text deltas at the same interval as a chat stream, content_block_stop,
//          message_delta, message_stop)
//   POST /v1/audio/transcriptions -> after the whole upload and --latency-ms, {"text": "<bytes> bytes, <sha256>"}
//       (the body is counted and hashed as it arrives, never kept)
// Control (what the benchmark calls; not counted as calls):
//   POST /control/fail?status=500     every later call fails with that status (default 500)
//   POST /control/heal                back to answering 200
//   POST /control/latency?ms=N        change the latency at run time
//   POST /control/stream?events=N&interval=MS[&stamp=1]   shape of "stream": true answers (SSE chunks, then [DONE]);
//                                     stamp=1 (stamp=0: off): each stream's first event carries "x_bench": {"arrived",
//                                     "sent"}, when the fake had the whole request and when it wrote that event, in ms on
//                                     the clock of performance.timeOrigin + performance.now() (bench/streams.js: the
//                                     fake's own time taken out of each stream's first event)
//   POST /control/rpm?limit=N         per-key requests per minute enforced from now on (0 = off; windows restart)
//   POST /control/reset               zero the counters and forget the timestamps (and the rpm windows)
//   GET  /control/stats               {"total", "connections", "failing", "whileFailing", "ok", "inFlight",
//                                      "maxInFlight", "latencyMs", "status", "arrivals": [ms since epoch, ...],
//                                      "arrivalIds": [the `user` field of each call's body, or null, ...],
//                                      "arrivalKeys": [the Bearer token of each call, or null, ...]}
//                                     ?arrivals=0 leaves the three arrays out; with --rpm also "rpm",
//                                     "rateLimited" (calls answered 429) and "perKey": {token: {ok, rateLimited,
//                                     maxInWindow}}
//   GET  /health                      "ok"
'use strict';

const http = require('http');

const { arg } = require('./args');

const port = parseInt(arg('port', '9101'), 10);
const host = arg('host', '127.0.0.1');
let latencyMs = parseInt(arg('latency-ms', '0'), 10);
// arrival timestamps are kept up to this many (a 30 s fault run at a few thousand RPS fits easily)
const maxArrivals = parseInt(arg('max-arrivals', '2000000'), 10);
// "stream": true answers Server-Sent Events: this many content chunks, one every interval (first one after --latency-ms)
let streamEvents = parseInt(arg('stream-events', '50'), 10);
let streamIntervalMs = parseInt(arg('stream-interval-ms', '100'), 10);
let stampEvents = false;

let failStatus = 0;            // 0 = healthy
// per-key rpm over an exact sliding 60 s window (0 = not enforced)
let rpmLimit = parseInt(arg('rpm', process.env.FAKE_RPM || '0'), 10);
let rateLimited = 0;
let rpmKeys = new Map();       // token -> { times: [arrival ms, monotonic], head, ok, rateLimited, maxInWindow }
const WINDOW_MS = 60000;
const { performance } = require('perf_hooks');
const clock = () => performance.timeOrigin + performance.now();
// the first event's stamp, when stamping is on: spread into its JSON
const stamp = (arrived, first) => (stampEvents && first ? { x_bench: { arrived, sent: clock() } } : {});

function bearerOf(req) {
  const auth = req.headers['authorization'];
  if (!auth) return null;
  return auth.startsWith('Bearer ') ? auth.slice(7) : auth;
}

// true if the call may go on (and counts it), false if this key is past its rpm
function admitRpm(req) {
  if (!rpmLimit) return true;
  const token = bearerOf(req) || '';
  let k = rpmKeys.get(token);
  if (!k) { k = { times: [], head: 0, ok: 0, rateLimited: 0, maxInWindow: 0 }; rpmKeys.set(token, k); }
  const now = performance.now();
  while (k.head < k.times.length && k.times[k.head] <= now - WINDOW_MS) k.head++;
  if (k.head > 4096 && k.head * 2 > k.times.length) { k.times = k.times.slice(k.head); k.head = 0; }
  const inWindow = k.times.length - k.head;
  if (inWindow >= rpmLimit) {
    k.rateLimited++;
    rateLimited++;
    return Math.max(1, Math.ceil((k.times[k.head] + WINDOW_MS - now) / 1000));
  }
  k.times.push(now);
  k.ok++;
  if (inWindow + 1 > k.maxInWindow) k.maxInWindow = inWindow + 1;
  return true;
}
let connections = 0;           // TCP connections accepted (keep-alive reuse shows as few connections)
let total = 0, whileFailing = 0, ok = 0, inFlight = 0, maxInFlight = 0;
let arrivals = [];
let arrivalIds = [];   // the request's OpenAI `user` field, if any (bench/fault.js puts a request id there)
let arrivalKeys = [];  // the call's Bearer token (bench/tenants.js: peak calls per key in any sliding 60 s)

const CHAT = (model) => JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: Math.floor(Date.now() / 1000),
  model: model || 'bench-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'pong' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
});
const EMBED = (model) => JSON.stringify({
  object: 'list',
  data: [{ object: 'embedding', index: 0, embedding: [0.0123, -0.0456, 0.0789, 0.0012] }],
  model: model || 'bench-embed',
  usage: { prompt_tokens: 4, total_tokens: 4 },
});

function send(res, status, body, extra) {
  const buf = Buffer.from(body);
  res.writeHead(status, Object.assign({
    'Content-Type': 'application/json',
    'Content-Length': buf.length,
  }, extra || {}));
  res.end(buf);
}

function modelOf(raw) {
  // cheap and tolerant: the body is only echoed back in `model`
  const m = /"model"\s*:\s*"([^"]{1,200})"/.exec(raw);
  return m ? m[1] : undefined;
}

function provider(req, res, kind) {
  total++;
  const admitted = admitRpm(req);
  if (admitted !== true) {
    req.resume();
    return send(res, 429, JSON.stringify({ error: { message: 'Rate limit reached for requests per minute (fake, limit ' +
      rpmLimit + ')', type: 'requests', code: 'rate_limit_exceeded' } }), { 'Retry-After': String(admitted) });
  }
  const arrivedAt = Date.now();
  const slot = arrivals.length < maxArrivals ? arrivals.length : -1;
  if (slot >= 0) { arrivals.push(arrivedAt); arrivalIds.push(null); arrivalKeys.push(bearerOf(req)); }
  const failing = failStatus;        // decided at arrival
  if (failing) whileFailing++;
  inFlight++;
  if (inFlight > maxInFlight) maxInFlight = inFlight;
  const chunks = [];
  req.on('data', c => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    const whole = clock();
    if (slot >= 0) { const u = /"user"\s*:\s*"([^"]{1,100})"/.exec(raw); if (u) arrivalIds[slot] = u[1]; }
    if (!failing && kind === 'chat' && /"stream"\s*:\s*true/.test(raw)) {
      return setTimeout(() => stream(res, modelOf(raw), /"include_usage"\s*:\s*true/.test(raw), whole), latencyMs);
    }
    if (!failing && kind === 'responses' && /"stream"\s*:\s*true/.test(raw)) {
      return setTimeout(() => responsesStream(res, modelOf(raw), whole), latencyMs);
    }
    if (!failing && kind === 'messages' && /"stream"\s*:\s*true/.test(raw)) {
      return setTimeout(() => messagesStream(res, modelOf(raw)), latencyMs);
    }
    const answer = () => {
      inFlight--;
      if (res.destroyed) return;
      if (failing) {
        send(res, failing, JSON.stringify({ error: { message: 'fake upstream failing (' + failing + ')',
          type: 'server_error', code: String(failing) } }));
      } else {
        ok++;
        send(res, 200, kind === 'embeddings' ? EMBED(modelOf(raw)) : kind === 'responses' ? RESPONSE(modelOf(raw), 'bench answer')
          : kind === 'messages' ? MESSAGE(modelOf(raw)) : CHAT(modelOf(raw)));
      }
    };
    if (latencyMs > 0) setTimeout(answer, latencyMs); else answer();
  });
}

function stream(res, model, includeUsage, arrived) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const chunk = (delta, finish) => 'data: ' + JSON.stringify(Object.assign({ id: 'chatcmpl-bench-stream', object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000), model: model || 'bench-model',
    choices: [{ index: 0, delta, finish_reason: finish }] }, stamp(arrived, delta.role !== undefined))) + '\n\n';
  let sent = 0;
  const tick = () => {
    if (res.destroyed) { inFlight--; return; }
    if (sent < streamEvents) {
      res.write(chunk(sent === 0 ? { role: 'assistant', content: 'tok0 ' } : { content: 'tok' + sent + ' ' },
        sent === streamEvents - 1 ? 'stop' : null));
      sent++;
      return setTimeout(tick, streamIntervalMs);
    }
    if (includeUsage) {
      res.write('data: ' + JSON.stringify({ id: 'chatcmpl-bench-stream', object: 'chat.completion.chunk', choices: [],
        usage: { prompt_tokens: 9, completion_tokens: streamEvents, total_tokens: 9 + streamEvents } }) + '\n\n');
    }
    inFlight--;
    ok++;
    res.end('data: [DONE]\n\n');
  };
  tick();
}

// the Responses API (POST /v1/responses): a response object; streamed as typed events (event: + data:), the same
// number of text deltas at the same interval as a chat stream, ending with response.completed (no [DONE])
function RESPONSE(model, text) {
  return JSON.stringify({ id: 'resp_bench', object: 'response', created_at: Math.floor(Date.now() / 1000),
    status: 'completed', model: model || 'bench-model', output: [{ type: 'message', id: 'msg_bench', status: 'completed',
      role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
    usage: { input_tokens: 9, output_tokens: streamEvents, total_tokens: 9 + streamEvents } });
}

function responsesStream(res, model, arrived) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const event = (type, data) => 'event: ' + type + '\ndata: ' + JSON.stringify(Object.assign({ type }, data)) + '\n\n';
  let sent = 0;
  const tick = () => {
    if (res.destroyed) { inFlight--; return; }
    if (sent < streamEvents) {
      res.write(event('response.output_text.delta', Object.assign({ sequence_number: sent + 1, item_id: 'msg_bench',
        output_index: 0, content_index: 0, delta: 'tok' + sent + ' ' }, stamp(arrived, sent === 0))));
      sent++;
      return setTimeout(tick, streamIntervalMs);
    }
    inFlight--;
    ok++;
    res.end(event('response.completed', { sequence_number: sent + 1, response: JSON.parse(RESPONSE(model, 'bench answer')) }));
  };
  tick();
}

// Anthropic's Messages API (POST /v1/messages): the answer a chat completion has, in Anthropic's shape
const MESSAGE = (model) => JSON.stringify({
  id: 'msg_bench', type: 'message', role: 'assistant', model: model || 'bench-model',
  content: [{ type: 'text', text: 'pong' }], stop_reason: 'end_turn', stop_sequence: null,
  usage: { input_tokens: 9, output_tokens: 1 },
});

function messagesStream(res, model) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const event = (type, data) => 'event: ' + type + '\ndata: ' + JSON.stringify(Object.assign({ type }, data)) + '\n\n';
  let sent = 0;
  const tick = () => {
    if (res.destroyed) { inFlight--; return; }
    if (sent < streamEvents) {
      const start = sent > 0 ? '' : event('message_start', { message: { id: 'msg_bench_stream', type: 'message',
        role: 'assistant', model: model || 'bench-model', content: [], stop_reason: null, stop_sequence: null,
        usage: { input_tokens: 9, output_tokens: 1 } } })
        + event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      res.write(start + event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'tok' + sent + ' ' } }));
      sent++;
      return setTimeout(tick, streamIntervalMs);
    }
    inFlight--;
    ok++;
    res.end(event('content_block_stop', { index: 0 })
      + event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: streamEvents } })
      + event('message_stop', {}));
  };
  tick();
}

function control(req, res, url) {
  const p = url.pathname;
  if (req.method === 'POST' && p === '/control/fail') {
    failStatus = parseInt(url.searchParams.get('status') || '500', 10);
    return send(res, 200, JSON.stringify({ failing: failStatus }));
  }
  if (req.method === 'POST' && p === '/control/heal') {
    failStatus = 0;
    return send(res, 200, JSON.stringify({ failing: 0 }));
  }
  if (req.method === 'POST' && p === '/control/latency') {
    latencyMs = parseInt(url.searchParams.get('ms') || '0', 10);
    return send(res, 200, JSON.stringify({ latencyMs }));
  }
  if (req.method === 'POST' && p === '/control/stream') {
    streamEvents = parseInt(url.searchParams.get('events') || String(streamEvents), 10);
    streamIntervalMs = parseInt(url.searchParams.get('interval') || String(streamIntervalMs), 10);
    if (url.searchParams.has('stamp')) stampEvents = url.searchParams.get('stamp') === '1';
    return send(res, 200, JSON.stringify({ streamEvents, streamIntervalMs, stampEvents }));
  }
  if (req.method === 'POST' && p === '/control/rpm') {
    rpmLimit = parseInt(url.searchParams.get('limit') || '0', 10);
    rpmKeys = new Map(); rateLimited = 0;
    return send(res, 200, JSON.stringify({ rpm: rpmLimit }));
  }
  if (req.method === 'POST' && p === '/control/reset') {
    total = whileFailing = ok = connections = 0; maxInFlight = inFlight; arrivals = []; arrivalIds = []; arrivalKeys = [];
    rpmKeys = new Map(); rateLimited = 0;
    return send(res, 200, JSON.stringify({ reset: true }));
  }
  if (req.method === 'GET' && p === '/control/stats') {
    const withArrivals = url.searchParams.get('arrivals') !== '0';
    const stats = { total, connections, whileFailing, ok, inFlight, maxInFlight, latencyMs, status: failStatus || 200,
      failing: failStatus !== 0 };
    if (rpmLimit) {
      stats.rpm = rpmLimit; stats.rateLimited = rateLimited; stats.perKey = {};
      for (const [token, k] of rpmKeys) stats.perKey[token] = { ok: k.ok, rateLimited: k.rateLimited, maxInWindow: k.maxInWindow };
    }
    // built by hand: JSON.stringify of a very large array is fine too, this just avoids a copy
    let body = JSON.stringify(stats);
    if (withArrivals) {
      body = body.slice(0, -1) + ',"arrivals":[' + arrivals.join(',') + '],"arrivalIds":' + JSON.stringify(arrivalIds) +
        ',"arrivalKeys":' + JSON.stringify(arrivalKeys) + '}';
    }
    return send(res, 200, body);
  }
  return send(res, 404, JSON.stringify({ error: { message: 'no such control endpoint', type: 'not_found' } }));
}

const server = http.createServer({ keepAliveTimeout: 120000, requestTimeout: 0, headersTimeout: 60000 },
  (req, res) => {
    const url = new URL(req.url, 'http://x');
    const p = url.pathname;
    if (p.startsWith('/control/')) { req.resume(); return control(req, res, url); }
    if (p === '/health') { req.resume(); return send(res, 200, '"ok"'); }
    if (req.method === 'POST' && (p === '/v1/chat/completions' || p === '/chat/completions')) {
      return provider(req, res, 'chat');
    }
    if (req.method === 'POST' && (p === '/v1/responses' || p === '/responses')) {
      return provider(req, res, 'responses');
    }
    if (req.method === 'POST' && (p === '/v1/messages' || p === '/messages')) {
      return provider(req, res, 'messages');
    }
    if (req.method === 'POST' && (p === '/v1/embeddings' || p === '/embeddings')) {
      return provider(req, res, 'embeddings');
    }
    if (req.method === 'POST' && (p === '/v1/audio/transcriptions' || p === '/audio/transcriptions')) {
      let bytes = 0;
      const hash = require('crypto').createHash('sha256');
      req.on('data', chunk => { bytes += chunk.length; hash.update(chunk); });
      req.on('end', () => setTimeout(() => send(res, 200,
        JSON.stringify({ text: bytes + ' bytes, ' + hash.digest('hex') })), latencyMs));
      return;
    }
    req.resume();
    send(res, 404, JSON.stringify({ error: { message: 'not found: ' + req.method + ' ' + p, type: 'not_found' } }));
  });
server.keepAliveTimeout = 120000;
server.on('connection', () => { connections++; });
server.maxRequestsPerSocket = 0;   // unlimited
server.maxConnections = 100000;
server.timeout = 0;
server.on('clientError', (err, socket) => { if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'); });

server.listen({ port, host, backlog: 65535 }, () => {
  console.log(`fake-upstream listening on http://${host}:${port} latency=${latencyMs}ms` + (rpmLimit ? ` rpm=${rpmLimit}/key` : ''));
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { server.close(); process.exit(0); });
