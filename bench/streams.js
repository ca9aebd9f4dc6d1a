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
// streams are open. Prints one JSON line: {streams, rounds, ok, broken, ttfbP50Ms, ttfbP99Ms, events{min,max}, rssMiB}.
'use strict';

const http = require('http');
const fs = require('fs');

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
    let ttfb = null, events = 0, done = false, buffer = '';
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
          if (ttfb === null) ttfb = Number(process.hrtime.bigint() - start) / 1e6;
          events++;
          if (event.trim() === 'data: [DONE]' || event.startsWith('event: response.completed\n')
            || event.startsWith('event: message_stop\n')) done = true;
        }
      });
      res.on('end', () => resolve({ status: res.statusCode, ttfb, events, done }));
      res.on('error', () => resolve({ status: res.statusCode, ttfb, events, done: false }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ttfb, events, done: false }));
    req.end(body);
  });
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
  console.log(JSON.stringify({
    streams, rounds, ok: ok.length, broken: all.length - ok.length,
    ttfbP50Ms: pct(ttfb, 0.5) && +pct(ttfb, 0.5).toFixed(2), ttfbP99Ms: pct(ttfb, 0.99) && +pct(ttfb, 0.99).toFixed(2),
    events: { min: Math.min(...events), max: Math.max(...events) }, rssMiB,
  }));
})();
