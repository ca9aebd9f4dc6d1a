#!/usr/bin/env node
// KeyPool benchmark: many requests in flight at once (Node, no dependencies).
//
//   node bench/inflight.js burst  --url http://127.0.0.1:18080/v1/chat/completions --n 2000 [--timeout-ms 60000]
//       fires n POSTs at the same moment (one socket each) and waits for all of them;
//       prints statuses and the wall time from the first send to the last answer.
//   node bench/inflight.js closed --url ... --c 1000 --duration-s 10 [--latency-ms 1000]
//       c clients in a closed loop (each sends, waits for the answer, sends again) for duration-s;
//       prints completed requests, throughput, and throughput / (c / latency) when --latency-ms is given.
//
// The last line of output is a machine-readable "RESULT {json}" line for bench/run.sh.
'use strict';

const http = require('http');

const { arg } = require('./args');

const mode = process.argv[2];
const url = new URL(arg('url', 'http://127.0.0.1:18080/v1/chat/completions'));
const timeoutMs = parseInt(arg('timeout-ms', '60000'), 10);
const BODY = Buffer.from(JSON.stringify({
  model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'ping' }], max_tokens: 1,
}));

function post(agent) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent,
      headers: { 'Content-Type': 'application/json', 'Content-Length': BODY.length },
    }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - t0) / 1e6,
        headers: res.headers }));
      res.on('error', (e) => resolve({ status: 'error:' + e.code, ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (e) => resolve({ status: 'error:' + (e.code || e.message), ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    req.end(BODY);
  });
}

function pct(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p / 100))];
}

function summarize(results) {
  const statuses = {};
  for (const r of results) statuses[r.status] = (statuses[r.status] || 0) + 1;
  const ms = results.map(r => r.ms).sort((a, b) => a - b);
  const ok = results.filter(r => r.status >= 200 && r.status < 300).length;
  return { total: results.length, ok, statuses, p50Ms: pct(ms, 50), p99Ms: pct(ms, 99), maxMs: ms[ms.length - 1] };
}

async function burst() {
  const n = parseInt(arg('n', '2000'), 10);
  // one socket per request: no queueing inside the client
  const agent = new http.Agent({ keepAlive: false, maxSockets: n + 100, maxTotalSockets: n + 100 });
  const t0 = Date.now();
  const results = await Promise.all(Array.from({ length: n }, () => post(agent)));
  const wallMs = Date.now() - t0;
  const s = summarize(results);
  s.n = n; s.wallMs = wallMs;
  console.log(`burst: ${s.ok}/${n} succeeded, wall ${wallMs} ms, p50 ${s.p50Ms?.toFixed(0)} ms, ` +
    `p99 ${s.p99Ms?.toFixed(0)} ms, max ${s.maxMs?.toFixed(0)} ms, statuses ${JSON.stringify(s.statuses)}`);
  console.log('RESULT ' + JSON.stringify(s));
}

async function closed() {
  const c = parseInt(arg('c', '1000'), 10);
  const durationS = parseFloat(arg('duration-s', '10'));
  const latencyMs = parseFloat(arg('latency-ms', '0'));
  const agent = new http.Agent({ keepAlive: true, maxSockets: c + 100, maxTotalSockets: c + 100 });
  // Throughput of a closed loop, two ways:
  //  - overall: each client's successful answers / (its last answer - the common start), summed over clients.
  //    Includes the first round, where all c clients open their connections at the same moment.
  //  - steady: each client's successful answers after its first one / (its last answer - its first answer),
  //    summed over clients: the rate once every client is connected (no edge effects from the deadline).
  // Nothing is sent after the deadline; the answers still in flight then are awaited and counted.
  const start = Date.now();
  const deadline = start + durationS * 1000;
  const results = [];
  let overallRps = 0, steadyRps = 0;
  async function client() {
    let n = 0, first = null, last = start;
    while (Date.now() < deadline) {
      const r = await post(agent);
      results.push(r);
      if (r.status >= 200 && r.status < 300) n++;
      last = Date.now();
      if (first === null) first = last;
    }
    if (last > start) overallRps += n / ((last - start) / 1000);
    if (first !== null && last > first) steadyRps += (n - 1) / ((last - first) / 1000);
  }
  await Promise.all(Array.from({ length: c }, client));
  const endAll = Date.now();
  agent.destroy();
  const s = summarize(results);
  s.c = c; s.durationS = durationS; s.latencyMs = latencyMs; s.wallMs = endAll - start;
  s.rps = overallRps;
  s.steadyRps = steadyRps;
  if (latencyMs > 0) {
    s.idealRps = c / (latencyMs / 1000);
    s.efficiency = s.rps / s.idealRps;
    s.steadyEfficiency = s.steadyRps / s.idealRps;
  }
  console.log(`closed loop: c=${c}, ${durationS}s, ${s.ok}/${s.total} ok, ${s.rps.toFixed(1)} req/s` +
    (latencyMs > 0 ? ` = ${(100 * s.efficiency).toFixed(1)}% of c/latency (${s.idealRps.toFixed(0)} req/s)` : '') +
    `; steady state ${s.steadyRps.toFixed(1)} req/s` +
    (latencyMs > 0 ? ` = ${(100 * s.steadyEfficiency).toFixed(1)}%` : '') +
    `, p50 ${s.p50Ms?.toFixed(0)} ms, p99 ${s.p99Ms?.toFixed(0)} ms, statuses ${JSON.stringify(s.statuses)}`);
  console.log('RESULT ' + JSON.stringify(s));
}

const run = { burst, closed }[mode];
if (!run) {
  console.error('usage: inflight.js burst|closed --url URL [--n N] [--c C --duration-s S --latency-ms L]');
  process.exit(2);
}
run().catch((e) => { console.error(e); process.exit(1); });
