#!/usr/bin/env node
// KeyPool benchmark: concurrent streaming chat completions (stream: true).
//
//   node bench/streams.js --url http://127.0.0.1:18080/v1/chat/completions --streams 64 [--rounds 5]
//        [--api chat|responses|messages] [--model bench-model]
//        [--rss-pid PID --rss-at-ms 2500]
//
// Runs --streams clients at once, each opening --rounds SSE requests one after the other (one socket each;
// with --stagger-ms each client first waits a random 0..stagger ms, so that stream starts spread out as in
// steady traffic instead of arriving in one burst), and measures for each stream the time to its first
// event and the number of events up to `data: [DONE]` (chat), `event: response.completed` (--api responses) or
// `event: message_stop` (--api messages).
// With --rss-pid, reads VmRSS of that process --rss-at-ms after the (last) round started, i.e. while the
// streams are open. Prints one JSON line: {streams, rounds, ok, broken, ttfbP50Ms, ttfbP99Ms, events{min,max}, rssMiB},
// and when the fake stamps its first events (POST /control/stream?stamp=1: when it had the whole request and when it
// wrote the event, on the clock of performance.timeOrigin + performance.now(), which this process reads too) the same
// time with the fake's own part taken out of each stream (its timer's and its event loop's delay, what a direct call
// would see too): ownP50Ms, ownP99Ms (the request's way to the fake and the first event's way back), upP50Ms,
// downP50Ms, downP99Ms (each way apart), fakeP50Ms, fakeP99Ms (the fake's own part), stamped (streams with a stamp).
'use strict';

const http = require('http');
const fs = require('fs');
const { performance } = require('perf_hooks');

const { arg } = require('./args');

const url = new URL(arg('url', 'http://127.0.0.1:18080/v1/chat/completions'));
const streams = parseInt(arg('streams', '64'), 10);
const rounds = parseInt(arg('rounds', '1'), 10);
const rssPid = arg('rss-pid', null);
const rssAtMs = parseInt(arg('rss-at-ms', '2500'), 10);
const timeoutMs = parseInt(arg('timeout-ms', '60000'), 10);
const staggerMs = parseInt(arg('stagger-ms', '0'), 10);
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
// --api responses: the Responses API (typed events, `event:` then `data:`, ending with response.completed);
// --api messages: Anthropic's Messages API (typed events, ending with message_stop); --model: the model asked for
const api = arg('api', 'chat');
const model = arg('model', 'bench-model');
const body = JSON.stringify(api === 'responses' ? { model, stream: true, input: 'hi' }
  : api === 'messages' ? { model, stream: true, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }
  : { model, stream: true, messages: [{ role: 'user', content: 'hi' }] });

function one() {
  return new Promise(resolve => {
    const start = process.hrtime.bigint();
    const startedAt = performance.timeOrigin + performance.now();
    let ttfb = null, events = 0, done = false, buffer = '', way = null;
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent,
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, res => {
      res.setEncoding('utf8');
      res.on('data', chunk => {
        buffer += chunk;
        let cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (!event.startsWith('data:') && !event.startsWith('event:')) continue;
          if (ttfb === null) {
            ttfb = Number(process.hrtime.bigint() - start) / 1e6;
            way = ways(event, startedAt, performance.timeOrigin + performance.now());
          }
          events++;
          if (event.trim() === 'data: [DONE]' || event.startsWith('event: response.completed\n')
            || event.startsWith('event: message_stop\n')) done = true;
        }
      });
      res.on('end', () => resolve({ status: res.statusCode, ttfb, events, done, way }));
      res.on('error', () => resolve({ status: res.statusCode, ttfb, events, done: false }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ttfb, events, done: false }));
    req.end(body);
  });
}

// the first event's way split by the fake's stamp: to the fake, the fake's own part, back; null without a stamp
function ways(event, startedAt, receivedAt) {
  const data = event.split('\n').find(l => l.startsWith('data:'));
  try {
    const stampOf = data && JSON.parse(data.slice(5)).x_bench;
    return stampOf ? { up: stampOf.arrived - startedAt, fake: stampOf.sent - stampOf.arrived, down: receivedAt - stampOf.sent } : null;
  } catch (e) {
    return null;
  }
}

function rss(pid) {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find(l => l.startsWith('VmRSS:'));
    return Math.round(parseInt(line.split(/\s+/)[1], 10) / 1024);
  } catch (e) {
    return null;
  }
}

function pct(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : null;
}

(async () => {
  const all = [];
  let rssMiB = null;
  const sampler = rssPid ? setTimeout(() => { rssMiB = rss(rssPid); }, rssAtMs) : null;
  const client = async () => {
    if (staggerMs > 0) await new Promise(r => setTimeout(r, Math.random() * staggerMs));
    for (let r = 0; r < rounds; r++) all.push(await one());
  };
  await Promise.all(Array.from({ length: streams }, client));
  if (sampler) clearTimeout(sampler);
  const ok = all.filter(x => x.status === 200 && x.done);
  const ttfb = ok.map(x => x.ttfb).sort((a, b) => a - b);
  const events = ok.map(x => x.events);
  const stamped = ok.filter(x => x.way);
  const sorted = f => stamped.map(f).sort((a, b) => a - b);
  const own = sorted(x => x.way.up + x.way.down), up = sorted(x => x.way.up), down = sorted(x => x.way.down),
    fake = sorted(x => x.way.fake);
  const ms = (v, p) => (v.length ? +pct(v, p).toFixed(3) : undefined);
  console.log(JSON.stringify({
    streams, rounds, ok: ok.length, broken: all.length - ok.length,
    ttfbP50Ms: pct(ttfb, 0.5) && +pct(ttfb, 0.5).toFixed(2), ttfbP99Ms: pct(ttfb, 0.99) && +pct(ttfb, 0.99).toFixed(2),
    events: { min: Math.min(...events), max: Math.max(...events) }, rssMiB,
    stamped: stamped.length, ownP50Ms: ms(own, 0.5), ownP99Ms: ms(own, 0.99), upP50Ms: ms(up, 0.5), downP50Ms: ms(down, 0.5),
    downP99Ms: ms(down, 0.99), fakeP50Ms: ms(fake, 0.5), fakeP99Ms: ms(fake, 0.99),
  }));
})();
