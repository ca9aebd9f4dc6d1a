#!/usr/bin/env node
// KeyPool benchmark: the tenants "overload" scenario. Node, no dependencies.
//
//   node bench/tenants.js run --url http://127.0.0.1:18080/v1/chat/completions --duration-s 90 --tag A
//        --tenant steady:bench-token-steady:15 [--tenant noisy:bench-token-noisy:10 ...] [--timeout-ms 60000]
//        [--out requests.json]
//   node bench/tenants.js report --a A.json --b B.json --stats fake-stats.json --steady steady --noisy noisy
//        --key-rpm 300 --noisy-rpm 120
//
// run: one open-loop request stream per --tenant NAME:TOKEN:RATE (requests per second), all at the same time for
// --duration-s: request i of a tenant is due at start + i / rate, whatever its earlier requests are doing, and carries
// `Authorization: Bearer TOKEN` and `"user": "NAME-TAG-i"` (the gateway passes `user` upstream unchanged, so the fake's
// arrivals say which tenant each upstream call served). Each tenant has its own keep-alive pool that never limits it.
// Per tenant it prints statuses (200 / 429 by error code / other), latency of the 200s from the moment the request
// was sent (p50, p90, p99, max) and the Retry-After of its 429s; the last line is "RESULT {json}" (also written, with
// every request, to --out). Times of the run are wall-clock epoch ms, the fake's arrival timestamps are too.
//
// report: reads the --out files of run A (steady alone) and run B (steady + noisy) and the fake's /control/stats
// (with arrivals) taken after B, and prints: steady's success rate and p50/p99 in A and B and p99(B)/p99(A) (targets
// 100 % and <= 1.2), noisy's split in B, and the upstream per run: calls per tenant, the peak number of calls in any
// sliding 60 s per key and in total (windows ending inside the run, earlier calls included) against --key-rpm, and
// the fake's own 429s (calls it refused past its rpm). The last line is "RESULT {json}".
'use strict';

const http = require('http');
const fs = require('fs');

const { arg, args } = require('./args');
function pct(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p / 100))];
}
const f = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x)) ? '-' : x.toFixed(d);

// ---------------------------------------------------------------- run
function post(url, agent, token, body, timeoutMs, r, now) {
  return new Promise((resolve) => {
    const done = (status) => {
      if (r.endMs !== null) return;
      r.endMs = now(); r.ms = r.endMs - r.sentMs; if (r.status === null) r.status = status;
      resolve(r);
    };
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent,
      headers: { 'Content-Type': 'application/json', 'Content-Length': body.length, Authorization: 'Bearer ' + token },
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
    req.end(body);
  });
}

async function run() {
  const url = new URL(arg('url', 'http://127.0.0.1:18080/v1/chat/completions'));
  const durationS = parseFloat(arg('duration-s', '90'));
  const tag = arg('tag', 'A');
  const timeoutMs = parseInt(arg('timeout-ms', '60000'), 10);
  const model = arg('model', 'gpt-4o-mini');
  const out = arg('out', null);
  const tenants = args('tenant').map((spec) => {
    const [name, token, rate] = spec.split(':');
    if (!name || !token || !(parseFloat(rate) > 0)) throw new Error('--tenant NAME:TOKEN:RATE, got ' + spec);
    return { name, token, rate: parseFloat(rate), n: Math.round(parseFloat(rate) * durationS), next: 0, maxLagMs: 0,
      pending: [], agent: new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 }) };
  });
  if (!tenants.length) throw new Error('no --tenant');

  const startEpochMs = Date.now();
  const t0 = process.hrtime.bigint();
  const now = () => Number(process.hrtime.bigint() - t0) / 1e6;   // ms since the start, monotonic
  // the schedule: a 2 ms beat sends every request that is due (setTimeout alone drifts)
  await new Promise((resolve) => {
    const beat = () => {
      const t = now();
      let left = false;
      for (const s of tenants) {
        while (s.next < s.n && s.next * 1000 / s.rate <= t) {
          const i = s.next++;
          const dueMs = i * 1000 / s.rate;
          s.maxLagMs = Math.max(s.maxLagMs, t - dueMs);
          const body = Buffer.from(JSON.stringify({ model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1,
            user: s.name + '-' + tag + '-' + i }));
          const r = { i, dueMs, sentMs: now(), status: null, code: null, retryAfter: null, ms: null, endMs: null };
          s.pending.push(post(url, s.agent, s.token, body, timeoutMs, r, now));
        }
        if (s.next < s.n) left = true;
      }
      if (left) setTimeout(beat, 2); else resolve();
    };
    beat();
  });
  const offerEndEpochMs = Date.now();
  const result = { tag, durationS, startEpochMs, offerEndEpochMs, tenants: {} };
  const requests = {};
  for (const s of tenants) {
    const rs = await Promise.all(s.pending);
    s.agent.destroy();
    requests[s.name] = rs;
    const statuses = {};
    for (const r of rs) {
      const key = r.status === 200 ? '200' : (typeof r.status === 'number' ? r.status + ' ' + (r.code || '?') : String(r.status));
      statuses[key] = (statuses[key] || 0) + 1;
    }
    const ok = rs.filter(r => r.status === 200);
    const limited = rs.filter(r => r.status === 429 && r.code === 'tenant_rate_limited');
    const lat = ok.map(r => r.ms).sort((a, b) => a - b);
    const refusedMs = limited.map(r => r.ms).sort((a, b) => a - b);
    const ra = limited.map(r => r.retryAfter).filter(v => v !== null).sort((a, b) => a - b);
    result.tenants[s.name] = {
      rate: s.rate, offered: rs.length, statuses, ok: ok.length, okRate: ok.length / rs.length,
      tenantRateLimited: limited.length, other: rs.length - ok.length - limited.length,
      p50Ms: pct(lat, 50), p90Ms: pct(lat, 90), p99Ms: pct(lat, 99), maxMs: lat[lat.length - 1] ?? null,
      refusedP50Ms: pct(refusedMs, 50), refusedP99Ms: pct(refusedMs, 99),
      retryAfterMin: ra[0] ?? null, retryAfterMax: ra[ra.length - 1] ?? null, maxSendLagMs: +s.maxLagMs.toFixed(1),
    };
  }
  result.endEpochMs = Date.now();
  if (out) fs.writeFileSync(out, JSON.stringify({ summary: result, requests }));
  for (const [name, t] of Object.entries(result.tenants)) {
    console.log(`run ${tag}, ${name}: offered ${t.offered} (${t.rate}/s open loop for ${durationS} s, send lag max ` +
      `${f(t.maxSendLagMs)} ms): ${JSON.stringify(t.statuses)}; 200s in p50 ${f(t.p50Ms, 2)} ms, p90 ${f(t.p90Ms, 2)} ms, ` +
      `p99 ${f(t.p99Ms, 2)} ms, max ${f(t.maxMs, 2)} ms` + (t.tenantRateLimited ? `; 429 tenant_rate_limited in p50 ` +
      `${f(t.refusedP50Ms, 2)} ms, p99 ${f(t.refusedP99Ms, 2)} ms, Retry-After ${t.retryAfterMin}..${t.retryAfterMax} s` : ''));
  }
  console.log('RESULT ' + JSON.stringify(result));
}

// ---------------------------------------------------------------- report
// the most arrivals in any sliding 60 s (a call counts while it arrived less than 60,000 ms ago, as the fake's own
// window), over the windows that end at an arrival inside [from, to); `times` sorted
function peakIn60s(times, from, to) {
  let peak = 0, lo = 0;
  for (let hi = 0; hi < times.length; hi++) {
    while (times[lo] <= times[hi] - 60000) lo++;
    if (times[hi] >= from && times[hi] < to) peak = Math.max(peak, hi - lo + 1);
  }
  return peak;
}

function report() {
  const a = JSON.parse(fs.readFileSync(arg('a'), 'utf8')).summary;
  const b = JSON.parse(fs.readFileSync(arg('b'), 'utf8')).summary;
  const stats = JSON.parse(fs.readFileSync(arg('stats'), 'utf8'));
  const steady = arg('steady', 'steady'), noisy = arg('noisy', 'noisy');
  const keyRpm = parseInt(arg('key-rpm', '300'), 10);
  const sa = a.tenants[steady], sb = b.tenants[steady], nb = b.tenants[noisy];
  const ratio = sb.p99Ms / sa.p99Ms;
  const pctS = (x) => (100 * x).toFixed(x === 1 ? 0 : 2) + ' %';
  const met = (ok) => ok ? 'met' : 'MISSED';

  console.log(`steady (${sa.rate}/s, within its rpm) alone (A): ${sa.ok}/${sa.offered} = ${pctS(sa.okRate)} answered 200 ` +
    `(target 100 %: ${met(sa.okRate === 1)}), p50 ${f(sa.p50Ms, 2)} ms, p99 ${f(sa.p99Ms, 2)} ms`);
  console.log(`steady next to noisy (B):    ${sb.ok}/${sb.offered} = ${pctS(sb.okRate)} answered 200 ` +
    `(target 100 %: ${met(sb.okRate === 1)}), p50 ${f(sb.p50Ms, 2)} ms, p99 ${f(sb.p99Ms, 2)} ms; other answers ` +
    JSON.stringify(Object.fromEntries(Object.entries(sb.statuses).filter(([k]) => k !== '200'))));
  console.log(`steady p99(B)/p99(A) = ${f(ratio, 3)} (target <= 1.2: ${met(ratio <= 1.2)}); p50(B)/p50(A) = ${f(sb.p50Ms / sa.p50Ms, 3)}`);
  const noisyRpm = parseFloat(arg('noisy-rpm', 'NaN'));
  console.log(`noisy (${nb.rate}/s = ${f(nb.rate * 60 / noisyRpm)}x its rpm of ${noisyRpm}) in B: ${nb.offered} offered: ${nb.ok} x 200, ${nb.tenantRateLimited} x 429 ` +
    `tenant_rate_limited (Retry-After ${nb.retryAfterMin ?? '-'}..${nb.retryAfterMax ?? '-'} s, answered in p50 ` +
    `${f(nb.refusedP50Ms, 2)} ms), ${nb.other} other ${JSON.stringify(Object.fromEntries(Object.entries(nb.statuses)
      .filter(([k]) => k !== '200' && k !== '429 tenant_rate_limited')))}`);

  // the fake's arrivals: calls it counted (admitted within its rpm), with the key and the `user` of each
  const calls = stats.arrivals.map((t, i) => ({ t, key: stats.arrivalKeys[i], user: stats.arrivalIds[i] || '' }))
    .sort((x, y) => x.t - y.t);
  const keys = [...new Set(calls.map(c => c.key))].sort();
  const res = { steadyOkRateA: sa.okRate, steadyOkRateB: sb.okRate, steadyP50A: sa.p50Ms, steadyP99A: sa.p99Ms,
    steadyP50B: sb.p50Ms, steadyP99B: sb.p99Ms, p99Ratio: ratio, noisy: { offered: nb.offered, ok: nb.ok,
      tenantRateLimited: nb.tenantRateLimited, other: nb.other }, upstream: {}, keyRpm,
    fakeRateLimited: stats.rateLimited, fakeTotal: stats.total };
  for (const r of [a, b]) {
    const from = r.startEpochMs, to = r.endEpochMs + 1;
    const inRun = calls.filter(c => c.t >= from && c.t < to);
    const perTenant = {};
    for (const c of inRun) { const who = c.user.split('-')[0] || '?'; perTenant[who] = (perTenant[who] || 0) + 1; }
    const perKey = keys.map(k => peakIn60s(calls.filter(c => c.key === k).map(c => c.t), from, to));
    const total = peakIn60s(calls.map(c => c.t), from, to);
    const secs = (r.offerEndEpochMs - r.startEpochMs) / 1000;
    res.upstream[r.tag] = { calls: inRun.length, perTenant, perKeyPeak60s: perKey, totalPeak60s: total };
    console.log(`upstream during ${r.tag} (${f(secs, 0)} s): ${inRun.length} calls (${Object.entries(perTenant)
      .map(([k, v]) => v + ' ' + k).join(', ')}) = ${f(inRun.length / secs * 60, 0)}/min; peak in any sliding 60 s: per key ` +
      `${perKey.join(', ')} (limit ${keyRpm}: ${met(Math.max(...perKey) <= keyRpm)}), all ${keys.length} keys ${total} ` +
      `(limit ${keys.length * keyRpm}: ${met(total <= keys.length * keyRpm)})`);
  }
  const fakePeaks = keys.map(k => (stats.perKey && stats.perKey[k]) ? stats.perKey[k].maxInWindow : null);
  console.log(`the fake's own count over A and B: ${stats.rateLimited ?? 0} calls refused 429 past its rpm of ` +
    `${stats.rpm ?? '-'} (target 0: ${met(!stats.rateLimited)}) of ${stats.total}; its per-key high-water mark in 60 s: ` +
    fakePeaks.join(', '));
  console.log('RESULT ' + JSON.stringify(res));
}

const mode = process.argv[2];
(mode === 'run' ? run() : mode === 'report' ? Promise.resolve().then(report)
  : Promise.reject(new Error('usage: tenants.js run|report ...'))).catch((e) => { console.error(e); process.exit(1); });
