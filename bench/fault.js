#!/usr/bin/env node
// KeyPool benchmark: the fault scenario (Node, no dependencies).
//
// "primary channel failing 100 % for 20 s and then healthy, fallback channel healthy, 64 connections"
//
//   node bench/fault.js --gateway http://127.0.0.1:18080 --primary http://127.0.0.1:9101 \
//        [--clients 64] [--fail-s 20] [--total-s 30] [--status 500] [--poll-ms 50] [--admin-token bench-admin]
//        [--channel primary] [--out timeline.json]
//
// t=0: the primary fake starts answering --status to every call; t=fail-s: it is healed; t=total-s: clients stop.
// Meanwhile `clients` closed-loop clients POST /v1/chat/completions through the gateway, and GET /admin/status
// is polled every poll-ms for the channel's breaker state. Afterwards the fake's call arrival timestamps are
// put against the breaker timeline:
//   - calls that reached the primary while the breaker was OPEN (target 0; HALF_OPEN probes are counted apart),
//   - time from the heal to the breaker being CLOSED again,
//   - success rate seen by the clients (target 100 %).
// Arrivals within one poll interval of a state change cannot be placed with certainty; they are reported as
// "at a transition" and not counted as violations.
// The last line of output is a machine-readable "RESULT {json}" line for bench/run.sh.
'use strict';

const http = require('http');
const fs = require('fs');

function arg(name, def) {
  const i = process.argv.indexOf('--' + name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
}

const gateway = new URL(arg('gateway', 'http://127.0.0.1:18080'));
const primary = new URL(arg('primary', 'http://127.0.0.1:9101'));
const clients = parseInt(arg('clients', '64'), 10);
const failS = parseFloat(arg('fail-s', '20'));
const totalS = parseFloat(arg('total-s', '30'));
const failStatus = parseInt(arg('status', '500'), 10);
const pollMs = parseInt(arg('poll-ms', '50'), 10);
const adminToken = arg('admin-token', 'bench-admin');
const channelName = arg('channel', 'primary');
const out = arg('out', '');

const BODY = Buffer.from(JSON.stringify({
  model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'ping' }], max_tokens: 1,
}));

const clientAgent = new http.Agent({ keepAlive: true, maxSockets: clients + 10 });
const controlAgent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function request(base, method, path, { agent, body, headers, timeoutMs = 30000 } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const req = http.request({
      host: base.hostname, port: base.port, path, method, agent,
      headers: Object.assign(body ? { 'Content-Type': 'application/json', 'Content-Length': body.length } : {}, headers || {}),
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'),
        started, ended: Date.now() }));
      res.on('error', (e) => resolve({ status: 'error:' + e.code, started, ended: Date.now() }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (e) => resolve({ status: 'error:' + (e.code || e.message), started, ended: Date.now() }));
    req.end(body);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function breakerStateOf(statusJson) {
  const channels = Array.isArray(statusJson) ? statusJson : statusJson.channels;
  if (!Array.isArray(channels)) return null;
  const ch = channels.find((c) => c && c.name === channelName);
  if (!ch) return null;
  const b = ch.breaker;
  const s = (b && typeof b === 'object' ? b.state : b) || ch.breakerState || ch.state;
  return s ? String(s).toUpperCase() : null;
}

async function main() {
  // the admin endpoint must exist and show the channel, or the timeline is meaningless
  const probe = await request(gateway, 'GET', '/admin/status', { agent: controlAgent,
    headers: { Authorization: 'Bearer ' + adminToken } });
  let initialState = null;
  try { initialState = breakerStateOf(JSON.parse(probe.body)); } catch (e) { /* reported below */ }
  const haveAdmin = probe.status === 200 && !!initialState;
  if (!haveAdmin) {
    console.log(`fault: GET /admin/status answered ${probe.status}` +
      (initialState ? '' : `; no breaker state for channel "${channelName}" in it`) +
      ` (body: ${(probe.body || '').slice(0, 200).replace(/\s+/g, ' ')}); running without the breaker timeline`);
  }

  await request(primary, 'POST', '/control/heal', { agent: controlAgent });
  await request(primary, 'POST', '/control/reset', { agent: controlAgent });

  const t0 = Date.now();
  const failAt = t0, healAt = t0 + failS * 1000, stopAt = t0 + totalS * 1000;
  await request(primary, 'POST', `/control/fail?status=${failStatus}`, { agent: controlAgent });
  const failedAt = Date.now();

  // breaker timeline: [{t, state}] sampled every pollMs (t = when the answer arrived; the state was read
  // somewhere between request start and answer, so both are kept)
  const samples = [];
  let polling = true;
  const poller = (async () => {
    while (polling && haveAdmin) {
      const next = Date.now() + pollMs;
      const r = await request(gateway, 'GET', '/admin/status', { agent: controlAgent,
        headers: { Authorization: 'Bearer ' + adminToken }, timeoutMs: 5000 });
      let state = null;
      if (r.status === 200) { try { state = breakerStateOf(JSON.parse(r.body)); } catch (e) { /* keep null */ } }
      samples.push({ from: r.started, to: r.ended, state: state || 'UNKNOWN', http: r.status });
      const wait = next - Date.now();
      if (wait > 0) await sleep(wait);
    }
  })();

  let healedAt = null;
  const healer = (async () => {
    await sleep(Math.max(0, healAt - Date.now()));
    await request(primary, 'POST', '/control/heal', { agent: controlAgent });
    healedAt = Date.now();
  })();

  const results = [];
  async function client() {
    while (Date.now() < stopAt) {
      const r = await request(gateway, 'POST', '/v1/chat/completions', { agent: clientAgent, body: BODY, timeoutMs: 30000 });
      results.push({ started: r.started, ended: r.ended, status: r.status,
        level: r.headers ? r.headers['x-fallback-level'] : undefined,
        channel: r.headers ? r.headers['x-keypool-channel'] : undefined,
        attempts: r.headers ? r.headers['x-keypool-attempts'] : undefined });
      // a refused or reset connection answers at once: do not spin on a gateway that is gone
      if (typeof r.status === 'string') await sleep(100);
    }
  }
  await Promise.all(Array.from({ length: clients }, client));
  await healer;
  // keep polling a little so a late CLOSED is still seen
  const extraUntil = Date.now() + 3000;
  while (haveAdmin && Date.now() < extraUntil && (samples.length === 0 || samples[samples.length - 1].state !== 'CLOSED')) await sleep(pollMs);
  polling = false;
  await poller;

  const statsRes = await request(primary, 'GET', '/control/stats', { agent: controlAgent, timeoutMs: 60000 });
  const stats = JSON.parse(statsRes.body);
  const arrivals = stats.arrivals || [];
  clientAgent.destroy(); controlAgent.destroy();

  // ---- client view
  const statuses = {}, levels = {}, channels = {};
  let ok = 0;
  for (const r of results) {
    statuses[r.status] = (statuses[r.status] || 0) + 1;
    if (r.status >= 200 && r.status < 300) ok++;
    levels[r.level ?? '-'] = (levels[r.level ?? '-'] || 0) + 1;
    channels[r.channel ?? '-'] = (channels[r.channel ?? '-'] || 0) + 1;
  }
  const latencies = results.map((r) => r.ended - r.started).sort((a, b) => a - b);
  const p = (q) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q / 100))];

  // primary calls per second since t0 (shows the breaker holding traffic off even without the timeline)
  const perSecond = new Array(Math.ceil(totalS) + 1).fill(0);
  for (const a of arrivals) { const i = Math.floor((a - t0) / 1000); if (i >= 0 && i < perSecond.length) perSecond[i]++; }
  const okPerSecond = new Array(Math.ceil(totalS) + 1).fill(0);
  for (const r of results) { const i = Math.floor((r.ended - t0) / 1000); if (i >= 0 && i < okPerSecond.length && r.status >= 200 && r.status < 300) okPerSecond[i]++; }

  // ---- breaker timeline: intervals of constant state between consecutive samples
  // a sample's state held at some instant in [from, to]; take the midpoint as its time
  const pts = samples.map((s) => ({ t: (s.from + s.to) / 2, state: s.state, uncertainty: (s.to - s.from) / 2 }));
  const transitions = [];
  for (let i = 0; i < pts.length; i++) {
    if (i === 0 || pts[i].state !== pts[i - 1].state) {
      transitions.push({ tMs: Math.round(pts[i].t - t0), state: pts[i].state,
        betweenMs: i === 0 ? null : [Math.round(pts[i - 1].t - t0), Math.round(pts[i].t - t0)] });
    }
  }
  // state at time t: certain only if the samples just before and just after agree
  function stateAt(t) {
    let lo = 0, hi = pts.length - 1;
    if (!pts.length || t < pts[0].t) return { state: 'BEFORE', certain: false };
    if (t > pts[hi].t) return { state: pts[hi].state, certain: false };
    while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (pts[mid].t <= t) lo = mid; else hi = mid; }
    const a = pts[lo], b = pts[hi];
    return a.state === b.state ? { state: a.state, certain: true } : { state: a.state + '->' + b.state, certain: false };
  }
  const byState = {};
  let whileOpen = 0, atTransition = 0, whileHalfOpen = 0, whileClosedFailing = 0;
  const openArrivals = [];
  for (const a of arrivals) {
    if (a < failedAt - 5) continue;
    const s = stateAt(a);
    const key = s.certain ? s.state : 'transition ' + s.state;
    byState[key] = (byState[key] || 0) + 1;
    if (!s.certain) atTransition++;
    else if (s.state === 'OPEN') { whileOpen++; if (openArrivals.length < 50) openArrivals.push(a - t0); }
    else if (s.state === 'HALF_OPEN') whileHalfOpen++;
    else if (s.state === 'CLOSED' && a < (healedAt || healAt)) whileClosedFailing++;
  }
  // trip time: first non-CLOSED sample after the failure started
  const firstOpen = pts.find((x) => x.t >= failedAt && x.state === 'OPEN');
  // heal -> CLOSED: first CLOSED sample after the heal (and the breaker was not CLOSED at the heal)
  const h = healedAt || healAt;
  const stateAtHeal = stateAt(h);
  const closedAfterHeal = pts.find((x) => x.t >= h && x.state === 'CLOSED');
  const healToClosedMs = closedAfterHeal ? Math.round(closedAfterHeal.t - h) : null;
  const halfOpenCycles = transitions.filter((x) => x.state === 'HALF_OPEN').length;

  const res = {
    haveAdmin,
    clients, failS, totalS, failStatus, pollMs,
    requests: results.length, ok, successRate: results.length ? ok / results.length : 0,
    statuses, fallbackLevels: levels, servedBy: channels,
    latencyMs: { p50: p(50), p99: p(99), max: latencies[latencies.length - 1] },
    primaryCallsPerSecond: perSecond, clientOkPerSecond: okPerSecond,
    primaryCalls: { total: stats.total, whileFailing: stats.whileFailing, ok: stats.ok },
    primaryArrivalsByBreakerState: byState,
    primaryCallsWhileOpen: whileOpen, primaryCallsWhileHalfOpen: whileHalfOpen,
    primaryCallsAtTransition: atTransition, primaryCallsClosedWhileFailing: whileClosedFailing,
    openArrivalsMsSample: openArrivals,
    tripMs: firstOpen ? Math.round(firstOpen.t - failedAt) : null,
    stateAtHeal: stateAtHeal.state, healToClosedMs, halfOpenCycles,
    samples: samples.length, unknownSamples: samples.filter((s) => s.state === 'UNKNOWN').length,
    transitions,
  };
  if (out) {
    fs.writeFileSync(out, JSON.stringify({ result: res, t0, failedAt, healedAt, samples, arrivals,
      requests: results }, null, 0));
  }
  console.log(`fault: ${results.length} requests by ${clients} clients in ${totalS}s, success ${ok}/${results.length} ` +
    `(${(100 * res.successRate).toFixed(2)}%), statuses ${JSON.stringify(statuses)}, fallback levels ${JSON.stringify(levels)}`);
  console.log(`fault: client latency p50 ${res.latencyMs.p50} ms, p99 ${res.latencyMs.p99} ms, max ${res.latencyMs.max} ms`);
  console.log(`fault: primary fake got ${stats.total} calls (${stats.whileFailing} while failing); by breaker state at arrival: ` +
    JSON.stringify(byState));
  console.log('fault: primary calls per second since t0: ' + perSecond.join(' '));
  console.log('fault: client successes per second:      ' + okPerSecond.join(' '));
  if (!haveAdmin) {
    console.log('fault: no breaker timeline (GET /admin/status unavailable): OPEN/HALF_OPEN figures not measured');
    console.log('RESULT ' + JSON.stringify(res));
    return;
  }
  console.log(`fault: calls to primary while OPEN: ${whileOpen} (HALF_OPEN: ${whileHalfOpen}, within a poll interval of a ` +
    `change: ${atTransition}, CLOSED before trip: ${whileClosedFailing})`);
  console.log(`fault: tripped ${res.tripMs} ms after the failure started; ${halfOpenCycles} HALF_OPEN phases; state at heal ` +
    `${res.stateAtHeal}; heal -> CLOSED ${healToClosedMs} ms`);
  console.log('fault: breaker transitions (ms from t0): ' + transitions.map((x) => `${x.tMs}:${x.state}`).join(' '));
  console.log('RESULT ' + JSON.stringify(res));
}

main().catch((e) => { console.error(e); process.exit(1); });
