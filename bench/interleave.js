#!/usr/bin/env node
// KeyPool benchmark: two models' requests interleaved on the same connection(s), to compare their latency at the same
// moment on the same gateway (bench/run.sh translate: the same Anthropic request native and translated).
//
//   node bench/interleave.js --url http://127.0.0.1:18080/v1/messages --models bench-claude,bench-openai
//        [--api messages|chat] [--stream] [--conns 1] [--warmup 2000] [--n 10000] [--rounds 3]
//
// Each of --conns clients holds one keep-alive connection and sends, one after the other, the two models in pairs
// whose order turns every pair (A B, B A, A B ...), so that neither model always follows the other. Runs of this kind
// at separate times drift by more than the difference they look for (the machine's state, the JIT, the gateway's
// pools); interleaved, both see the same. --warmup pairs first (not counted), then --rounds rounds of --n pairs each.
// A request's time is from its body handed to the connection to its answer's last byte read (with --stream: to its first event,
// `data:` or `event:`; the stream is then read to its end before the next request).
// Prints one JSON line per round: {round, pairs, a:{p50Ms,p99Ms}, b:{p50Ms,p99Ms}, addedP50Ms, pairedMedianMs, errors},
// where addedP50Ms is b's p50 minus a's and pairedMedianMs the median of each pair's b minus a.
'use strict';

const http = require('http');

const { arg } = require('./args');

const url = new URL(arg('url', 'http://127.0.0.1:18080/v1/messages'));
const [modelA, modelB] = arg('models', 'bench-claude,bench-openai').split(',');
const api = arg('api', 'messages');
const stream = process.argv.includes('--stream');
const conns = parseInt(arg('conns', '1'), 10);
const warmup = parseInt(arg('warmup', '2000'), 10);
const n = parseInt(arg('n', '10000'), 10);
const rounds = parseInt(arg('rounds', '3'), 10);

// the body of bench/post.lua, valid for both APIs; a stream asks for a few tokens
const bodyOf = model => Buffer.from(JSON.stringify(Object.assign({ model, messages: [{ role: 'user', content: 'ping' }],
  max_tokens: 1 }, stream ? { stream: true } : {}), null, 0));
const bodies = { a: bodyOf(modelA), b: bodyOf(modelB) };
const headers = api === 'messages' ? { 'anthropic-version': '2023-06-01' } : {};

function one(agent, which) {
  return new Promise(resolve => {
    const body = bodies[which];
    let start = 0n, first = null, buffer = '';
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent,
      headers: Object.assign({ 'Content-Type': 'application/json', 'Content-Length': body.length }, headers) }, res => {
      const ok = res.statusCode === 200;
      res.setEncoding('utf8');
      res.on('data', chunk => {
        if (!stream || first !== null) return;
        buffer += chunk;
        const cut = buffer.indexOf('\n\n');
        if (cut >= 0 && /^(data|event):/.test(buffer)) first = process.hrtime.bigint();
      });
      res.on('end', () => {
        const end = first !== null ? first : process.hrtime.bigint();
        resolve({ ok: ok && (!stream || first !== null), ns: Number(end - start) });
      });
      res.on('error', () => resolve({ ok: false, ns: 0 }));
    });
    req.on('error', () => resolve({ ok: false, ns: 0 }));
    start = process.hrtime.bigint();
    req.end(body);
  });
}

async function client(pairs, out) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < pairs; i++) {
    const order = i % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
    const got = {};
    for (const which of order) got[which] = await one(agent, which);
    if (!got.a.ok || !got.b.ok) { out.errors++; continue; }
    out.a.push(got.a.ns); out.b.push(got.b.ns); out.diff.push(got.b.ns - got.a.ns);
  }
  agent.destroy();
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const ms = ns => +(ns / 1e6).toFixed(3);

async function run(pairs) {
  const out = { a: [], b: [], diff: [], errors: 0 };
  const perClient = Math.ceil(pairs / conns);
  await Promise.all(Array.from({ length: conns }, () => client(perClient, out)));
  [out.a, out.b, out.diff].forEach(v => v.sort((x, y) => x - y));
  return out;
}

(async () => {
  await run(warmup);
  for (let r = 1; r <= rounds; r++) {
    const o = await run(n);
    if (o.a.length === 0) { console.log(JSON.stringify({ round: r, pairs: 0, errors: o.errors })); continue; }
    console.log(JSON.stringify({ round: r, pairs: o.a.length, models: [modelA, modelB], stream,
      a: { p50Ms: ms(pct(o.a, 0.5)), p99Ms: ms(pct(o.a, 0.99)) },
      b: { p50Ms: ms(pct(o.b, 0.5)), p99Ms: ms(pct(o.b, 0.99)) },
      addedP50Ms: ms(pct(o.b, 0.5) - pct(o.a, 0.5)), pairedMedianMs: ms(pct(o.diff, 0.5)), errors: o.errors }));
  }
})();
