#!/usr/bin/env node
// KeyPool benchmark: an open-loop client for the quota part (Node, no dependencies).
//
//   node bench/quota.js --url http://127.0.0.1:18080/v1/chat/completions --rate 16 --duration-s 120
//        [--fake-latency-ms 50] [--capacity-per-min 480] [--timeout-ms 60000] [--out timeline.json]
//
// Sends `rate` POSTs per second for `duration-s`, open loop: request i is due at start + i / rate, whatever the
// earlier ones are doing (each request is independent, with its own socket from a keep-alive pool that never
// limits it). Records per request: when it was sent, status (200, 429 quota_exhausted, other), Retry-After,
// latency, when it ended. Then waits for every answer (bounded by --timeout-ms per request) and prints:
//   - statuses;
//   - accepted per minute / capacity: the 200s answered within the offering time, per minute of it, divided by
//     --capacity-per-min; and the same over every 60 s window [s, s + 60) inside it (1 s steps): min and mean;
//   - the wait of accepted requests: latency of a 200 minus the fake's fixed answer delay (--fake-latency-ms),
//     so it includes the gateway's own cost per request (well under a millisecond warm) besides the time in line;
//   - latency of the 429 quota_exhausted answers, Retry-After values.
// The last line is a machine-readable "RESULT {json}" line for bench/run.sh.
'use strict';

const http = require('http');

const { arg } = require('./args');

const url = new URL(arg('url', 'http://127.0.0.1:18080/v1/chat/completions'));
const rate = parseFloat(arg('rate', '16'));
const durationS = parseFloat(arg('duration-s', '120'));
const fakeLatencyMs = parseFloat(arg('fake-latency-ms', '50'));
const capacityPerMin = parseFloat(arg('capacity-per-min', '480'));
const timeoutMs = parseInt(arg('timeout-ms', '60000'), 10);
const out = arg('out', null);
const model = arg('model', 'gpt-4o-mini');
const BODY = Buffer.from(JSON.stringify({ model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 }));

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 });
const t0 = process.hrtime.bigint();
const now = () => Number(process.hrtime.bigint() - t0) / 1e6;   // ms since the start, monotonic

function post(i) {
  return new Promise((resolve) => {
    const sentMs = now();
    const r = { i, dueMs: i * 1000 / rate, sentMs, status: null, code: null, retryAfter: null, ms: null, endMs: null };
    const done = (status) => {
      if (r.endMs !== null) return;
      r.endMs = now(); r.ms = r.endMs - sentMs; if (r.status === null) r.status = status;
      resolve(r);
    };
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent,
      headers: { 'Content-Type': 'application/json', 'Content-Length': BODY.length },
    }, (res) => {
      r.status = res.statusCode;
      if (res.headers['retry-after'] !== undefined) r.retryAfter = Number(res.headers['retry-after']);
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) {
          try { r.code = JSON.parse(Buffer.concat(chunks).toString('utf8')).error.code || null; } catch (e) { r.code = 'unparsed'; }
        }
        done(res.statusCode);
      });
      res.on('error', (e) => done('error:' + e.code));
    });
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (e) => { r.status = null; done('error:' + (e.code || e.message)); });
    req.end(BODY);
  });
}

function pct(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p / 100))];
}

async function main() {
  const n = Math.round(rate * durationS);
  const pending = [];
  let i = 0, maxLagMs = 0;
  // the schedule: a 2 ms beat sends every request that is due (setTimeout alone drifts)
  await new Promise((resolve) => {
    const beat = () => {
      const t = now();
      while (i < n && i * 1000 / rate <= t) {
        maxLagMs = Math.max(maxLagMs, t - i * 1000 / rate);
        pending.push(post(i++));
      }
      if (i < n) setTimeout(beat, 2); else resolve();
    };
    beat();
  });
  const results = await Promise.all(pending);
  agent.destroy();
  const endOffer = durationS * 1000;

  const statuses = {};
  for (const r of results) {
    const key = r.status === 429 ? '429 ' + (r.code || '?') : String(r.status);
    statuses[key] = (statuses[key] || 0) + 1;
  }
  const ok = results.filter(r => r.status === 200);
  const quota = results.filter(r => r.status === 429 && r.code === 'quota_exhausted');
  const other = results.length - ok.length - quota.length;
  const okInOffer = ok.filter(r => r.endMs < endOffer).length;
  // every 60 s window [s, s + 60 s) inside the offering time, by when the 200 was answered
  const windows = [];
  for (let s = 0; s + 60000 <= endOffer; s += 1000) {
    windows.push(ok.filter(r => r.endMs >= s && r.endMs < s + 60000).length);
  }
  const perMinute = okInOffer / (durationS / 60);
  const waits = ok.map(r => r.ms - fakeLatencyMs).sort((a, b) => a - b);
  const quotaMs = quota.map(r => r.ms).sort((a, b) => a - b);
  const retryAfter = quota.map(r => r.retryAfter).filter(v => v !== null).sort((a, b) => a - b);
  const perSecond = [];
  for (const r of ok) { const s = Math.floor(r.endMs / 1000); perSecond[s] = (perSecond[s] || 0) + 1; }
  const res = {
    offered: n, rate, durationS, capacityPerMin, fakeLatencyMs, maxSendLagMs: +maxLagMs.toFixed(1),
    statuses, ok: ok.length, quotaExhausted: quota.length, other,
    okAnsweredWithinOffer: okInOffer, okAfterOffer: ok.length - okInOffer,
    acceptedPerMin: perMinute, acceptedFraction: perMinute / capacityPerMin,
    windowMin: windows.length ? Math.min(...windows) / capacityPerMin : null,
    windowMean: windows.length ? windows.reduce((a, b) => a + b, 0) / windows.length / capacityPerMin : null,
    windowMax: windows.length ? Math.max(...windows) / capacityPerMin : null,
    waitP50Ms: pct(waits, 50), waitP90Ms: pct(waits, 90), waitP99Ms: pct(waits, 99), waitMaxMs: waits[waits.length - 1],
    waitedOver100Ms: waits.filter(w => w > 100).length,
    quotaP50Ms: pct(quotaMs, 50), quotaP99Ms: pct(quotaMs, 99), quotaMaxMs: quotaMs[quotaMs.length - 1],
    retryAfterMin: retryAfter[0] ?? null, retryAfterMax: retryAfter[retryAfter.length - 1] ?? null,
    okPerSecond: Array.from(perSecond, v => v || 0),
  };
  if (out) require('fs').writeFileSync(out, JSON.stringify({ summary: res, requests: results }));
  const f = (x, d = 1) => (x === null || x === undefined) ? '-' : x.toFixed(d);
  console.log(`offered ${n} (${rate}/s open loop for ${durationS} s, send lag max ${f(maxLagMs)} ms): ` +
    `statuses ${JSON.stringify(statuses)}`);
  console.log(`accepted: ${okInOffer} answered 200 within the ${durationS} s = ${f(perMinute)}/min = ` +
    `${f(res.acceptedFraction, 3)} of ${capacityPerMin}; 60 s windows inside it: min ${f(res.windowMin, 3)}, ` +
    `mean ${f(res.windowMean, 3)}, max ${f(res.windowMax, 3)}; ${res.okAfterOffer} more 200s after the end (they waited)`);
  console.log(`wait of accepted requests (latency - ${fakeLatencyMs} ms fake delay): p50 ${f(res.waitP50Ms, 2)} ms, ` +
    `p90 ${f(res.waitP90Ms)} ms, p99 ${f(res.waitP99Ms)} ms, max ${f(res.waitMaxMs)} ms; ${res.waitedOver100Ms} waited > 100 ms`);
  console.log(`429 quota_exhausted: ${quota.length}, answered in p50 ${f(res.quotaP50Ms, 2)} ms, p99 ${f(res.quotaP99Ms)} ms, ` +
    `max ${f(res.quotaMaxMs)} ms; Retry-After ${res.retryAfterMin ?? '-'}..${res.retryAfterMax ?? '-'} s`);
  console.log('RESULT ' + JSON.stringify(res));
}

main().catch((e) => { console.error(e); process.exit(1); });
