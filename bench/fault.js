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

const { arg } = require('./args');

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
// the gateway's log (optional): its breaker lines give the exact transition times, the polling only ~pollMs
const gatewayLog = arg('gateway-log', '');

// every request carries its own id in the OpenAI `user` field; the gateway passes the body on unchanged and the
// fake records it, so each call that reaches the primary can be traced back to the client request it serves
let seq = 0;
const bodyFor = (id) => Buffer.from(JSON.stringify({
  model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'ping' }], max_tokens: 1, user: id,
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
      const id = 'fault-' + (++seq);
      const r = await request(gateway, 'POST', '/v1/chat/completions', { agent: clientAgent, body: bodyFor(id), timeoutMs: 30000 });
      results.push({ id, started: r.started, ended: r.ended, status: r.status,
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
  const arrivalIds = stats.arrivalIds || [];
  clientAgent.destroy(); controlAgent.destroy();
  const endT = Date.now();

  // ---- client view
  const statuses = {}, levels = {}, channels = {};
  const byId = new Map();
  let ok = 0;
  for (const r of results) {
    byId.set(r.id, r);
    statuses[r.status] = (statuses[r.status] || 0) + 1;
    if (r.status >= 200 && r.status < 300) ok++;
    levels[r.level ?? '-'] = (levels[r.level ?? '-'] || 0) + 1;
    channels[r.channel ?? '-'] = (channels[r.channel ?? '-'] || 0) + 1;
  }
  const latencies = results.map((r) => r.ended - r.started).sort((a, b) => a - b);
  const q = (arr, pc) => arr.length ? arr[Math.min(arr.length - 1, Math.floor(arr.length * pc / 100))] : null;

  // calls per second since t0 (shows the breaker holding traffic off even without a timeline)
  const perSecond = new Array(Math.ceil(totalS) + 1).fill(0);
  for (const a of arrivals) { const i = Math.floor((a - t0) / 1000); if (i >= 0 && i < perSecond.length) perSecond[i]++; }
  const okPerSecond = new Array(Math.ceil(totalS) + 1).fill(0);
  for (const r of results) { const i = Math.floor((r.ended - t0) / 1000); if (i >= 0 && i < okPerSecond.length && r.status >= 200 && r.status < 300) okPerSecond[i]++; }

  // ---- breaker timelines: [{t, state}] = the state from t on
  // (a) polled: a sample's state held somewhere in [from, to]; its midpoint stands for it
  // prevT = the last sample still showing the old state: the change happened somewhere in (prevT, t]
  const polled = [];
  let lastPollT = null;
  for (const x of samples) {
    const t = (x.from + x.to) / 2;
    if (!polled.length || polled[polled.length - 1].state !== x.state) polled.push({ t, state: x.state, prevT: lastPollT });
    lastPollT = t;
  }
  // (b) logged: the gateway's own breaker lines (SPEC section 5), exact to the millisecond
  const logged = [];
  if (gatewayLog && fs.existsSync(gatewayLog)) {
    const day = new Date(t0);
    const re = new RegExp('^(\\d\\d):(\\d\\d):(\\d\\d)\\.(\\d{3}) .*Channel \\[' + channelName.replace(/[-]/g, '\\-') +
      '\\] (tripped|recovery timeout elapsed|half-open passed|half-open failed|.*\\b(OPEN|HALF_OPEN|CLOSED)\\b)');
    for (const line of fs.readFileSync(gatewayLog, 'utf8').split('\n')) {
      const m = re.exec(line);
      if (!m) continue;
      let t = new Date(day.getFullYear(), day.getMonth(), day.getDate(), +m[1], +m[2], +m[3], +m[4]).getTime();
      if (t < t0 - 12 * 3600e3) t += 24 * 3600e3;
      if (t < t0 - 60e3 || t > endT + 60e3) continue;
      const what = m[5];
      let state = null;
      if (what.startsWith('tripped')) state = 'OPEN';
      else if (what.startsWith('recovery timeout elapsed')) state = 'HALF_OPEN';
      else if (what.startsWith('half-open passed')) state = 'CLOSED';
      else if (what.startsWith('half-open failed')) state = 'OPEN';
      else if (/probe/.test(what)) state = null;               // probe results do not change the state
      else if (m[6]) state = m[6];
      if (state && (!logged.length || logged[logged.length - 1].state !== state)) logged.push({ t, state });
    }
  }
  const useLog = logged.length > 0;
  const timeline = useLog ? logged : polled;
  const source = useLog ? 'gateway log' : (haveAdmin ? 'GET /admin/status polling' : 'none');
  // state at time t and since when; atChange = t is too close to a change to be placed on either side of it:
  // within `margin` ms of a logged change, or between the two polls that straddle a polled change
  function stateAt(tl, t, margin) {
    let lo = -1;
    for (let i = 0; i < tl.length; i++) { if (tl[i].t <= t) lo = i; else break; }
    const cur = lo >= 0 ? tl[lo] : { t: -Infinity, state: 'CLOSED', prevT: null };
    const next = lo + 1 < tl.length ? tl[lo + 1] : null;
    let atChange;
    if (tl === polled) atChange = !!(next && next.prevT !== null && t > next.prevT);
    else atChange = (t - cur.t) < margin || !!(next && next.t - t < margin);
    return { state: cur.state, since: cur.t, atChange };
  }
  function classify(tl, margin) {
    const c = { CLOSED: 0, OPEN: 0, HALF_OPEN: 0, other: 0, atChange: 0, openNewRequests: 0, openRetriesOfEarlier: 0,
      openUnknown: 0, openNewSampleMs: [], openRetryMaxAfterMs: 0, halfOpenRequests: new Set(), closedBeforeTrip: 0 };
    for (let i = 0; i < arrivals.length; i++) {
      const a = arrivals[i];
      if (a < failedAt) continue;
      const st = stateAt(tl, a, margin);
      if (st.atChange) { c.atChange++; continue; }
      if (st.state === 'OPEN') {
        c.OPEN++;
        const r = byId.get(arrivalIds[i]);
        if (!r) c.openUnknown++;
        else if (r.started < st.since) { c.openRetriesOfEarlier++; c.openRetryMaxAfterMs = Math.max(c.openRetryMaxAfterMs, Math.round(a - st.since)); }
        else { c.openNewRequests++; if (c.openNewSampleMs.length < 20) c.openNewSampleMs.push(Math.round(a - t0)); }
      } else if (st.state === 'HALF_OPEN') {
        c.HALF_OPEN++;
        if (arrivalIds[i]) c.halfOpenRequests.add(arrivalIds[i]);
      } else if (st.state === 'CLOSED') {
        c.CLOSED++;
        if (a < (healedAt || healAt)) c.closedBeforeTrip++;
      } else c.other++;
    }
    c.halfOpenRequests = c.halfOpenRequests.size;
    return c;
  }
  const byLog = useLog ? classify(logged, 5) : null;
  const byPoll = haveAdmin ? classify(polled, pollMs) : null;
  const main = byLog || byPoll;

  const h = healedAt || healAt;
  function recovery(tl) {
    const trip = tl.find((x) => x.t >= failedAt - 5 && x.state === 'OPEN');
    const closed = tl.find((x) => x.t >= h && x.state === 'CLOSED');
    return {
      tripMs: trip ? Math.round(trip.t - failedAt) : null,
      stateAtHeal: stateAt(tl, h, 0).state,
      healToClosedMs: closed ? Math.round(closed.t - h) : null,
      halfOpenPhases: tl.filter((x) => x.state === 'HALF_OPEN' && x.t >= failedAt).length,
      transitions: tl.filter((x) => x.t >= failedAt - 5).map((x) => `${Math.round(x.t - t0)}:${x.state}`).join(' '),
    };
  }
  const recLog = useLog ? recovery(logged) : null;
  const recPoll = haveAdmin ? recovery(polled) : null;
  const gaps = []; for (let i = 1; i < samples.length; i++) gaps.push(samples[i].from - samples[i - 1].from);
  gaps.sort((a, b) => a - b);
  const pollDur = samples.map((x) => x.to - x.from).sort((a, b) => a - b);

  const res = {
    haveAdmin, timelineSource: source,
    clients, failS, totalS, failStatus, pollMs,
    requests: results.length, ok, successRate: results.length ? ok / results.length : 0,
    statuses, fallbackLevels: levels, servedBy: channels,
    latencyMs: { p50: q(latencies, 50), p99: q(latencies, 99), max: latencies[latencies.length - 1] },
    primaryCallsPerSecond: perSecond, clientOkPerSecond: okPerSecond,
    primaryCalls: { total: stats.total, whileFailing: stats.whileFailing, ok: stats.ok },
    primaryCallsWhileOpen: main ? main.OPEN : null,
    primaryCallsWhileOpenNewRequests: main ? main.openNewRequests : null,
    primaryCallsWhileOpenRetriesOfEarlier: main ? main.openRetriesOfEarlier : null,
    primaryCallsWhileOpenRetryMaxAfterMs: main ? main.openRetryMaxAfterMs : null,
    primaryCallsWhileHalfOpen: main ? main.HALF_OPEN : null,
    halfOpenProbeRequests: main ? main.halfOpenRequests : null,
    primaryCallsAtChange: main ? main.atChange : null,
    primaryCallsBeforeTrip: main ? main.closedBeforeTrip : null,
    openNewRequestSampleMs: main ? main.openNewSampleMs : [],
    byLog, byPoll,
    tripMs: (recLog || recPoll || {}).tripMs ?? null,
    stateAtHeal: (recLog || recPoll || {}).stateAtHeal ?? null,
    healToClosedMs: (recLog || recPoll || {}).healToClosedMs ?? null,
    halfOpenPhases: (recLog || recPoll || {}).halfOpenPhases ?? null,
    recoveryByLog: recLog, recoveryByPoll: recPoll,
    polling: { samples: samples.length, unknown: samples.filter((x) => x.state === 'UNKNOWN').length,
      gapP50Ms: q(gaps, 50), gapP99Ms: q(gaps, 99), gapMaxMs: gaps[gaps.length - 1] ?? null,
      answerP50Ms: q(pollDur, 50), answerMaxMs: pollDur[pollDur.length - 1] ?? null },
  };
  if (out) {
    fs.writeFileSync(out, JSON.stringify({ result: res, t0, failedAt, healedAt, samples, logged, arrivals, arrivalIds,
      requests: results }));
  }
  const L = (x) => console.log('fault: ' + x);
  L(`${results.length} requests by ${clients} clients in ${totalS}s, success ${ok}/${results.length} ` +
    `(${(100 * res.successRate).toFixed(2)}%), statuses ${JSON.stringify(statuses)}, fallback levels ${JSON.stringify(levels)}`);
  L(`client latency p50 ${res.latencyMs.p50} ms, p99 ${res.latencyMs.p99} ms, max ${res.latencyMs.max} ms`);
  L(`primary fake got ${stats.total} calls (${stats.whileFailing} while failing)`);
  L('primary calls per second since t0: ' + perSecond.join(' '));
  L('client successes per second:      ' + okPerSecond.join(' '));
  if (!main) {
    L('no breaker timeline (GET /admin/status unavailable, no gateway log): OPEN/HALF_OPEN figures not measured');
  } else {
    for (const [name, c, rec] of [['gateway log', byLog, recLog], ['/admin/status polling', byPoll, recPoll]]) {
      if (!c) continue;
      L(`[${name}] calls to primary while OPEN: ${c.OPEN} = ${c.openNewRequests} from requests that started while it was OPEN` +
        ` + ${c.openRetriesOfEarlier} in-channel retries of requests admitted before it opened (the last ${c.openRetryMaxAfterMs} ms after the change)` + (c.openUnknown ? ` + ${c.openUnknown} untraced` : '') +
        `; while HALF_OPEN: ${c.HALF_OPEN} (from ${c.halfOpenRequests} probe requests); at a state change: ${c.atChange}; CLOSED before the trip: ${c.closedBeforeTrip}`);
      L(`[${name}] tripped ${rec.tripMs} ms after the failure started; ${rec.halfOpenPhases} HALF_OPEN phases; state at heal ${rec.stateAtHeal}; heal -> CLOSED ${rec.healToClosedMs} ms`);
      L(`[${name}] transitions (ms from t0): ${rec.transitions}`);
    }
    if (haveAdmin) L(`polling: ${samples.length} samples, gap p50 ${res.polling.gapP50Ms} ms, p99 ${res.polling.gapP99Ms} ms, max ${res.polling.gapMaxMs} ms; /admin/status answer p50 ${res.polling.answerP50Ms} ms, max ${res.polling.answerMaxMs} ms`);
  }
  console.log('RESULT ' + JSON.stringify(res));
}

main().catch((e) => { console.error(e); process.exit(1); });
