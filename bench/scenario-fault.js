#!/usr/bin/env node
// KeyPool benchmark: the fault-injection scenario of bench/scenarios.sh (Node, no dependencies).
//
//   node bench/scenario-fault.js --gateway http://127.0.0.1:18080 --key <fingerprint> [--channel main]
//        [--clients 16] [--before-s 3] [--fault-s 10] [--after-s 3] [--status 500] [--poll-ms 20]
//        [--admin-token bench-admin] [--model gpt-4o-mini]
//
// `clients` closed-loop clients POST /v1/chat/completions through the gateway. After before-s, a fault is injected
// over the admin API (POST /admin/faults: every call of that key answers `status`, for fault-s); GET /admin/status
// is polled every poll-ms for the key's state. It prints:
//   - time from the injection to the key's removal (its state DISABLED: disableAfter failures in a row),
//   - requests that failed (not 200) between the injection and the re-admission (target 0: retries on other keys
//     absorb the failures),
//   - time from the fault's end (injection + fault-s, as the gateway's clock ends it) to the re-admission (its
//     state ACTIVE again: a health probe at its next disabledInterval slot succeeded).
// Times are measured by polling: each is exact to within poll-ms. The last line is "RESULT {json}".
'use strict';

const http = require('http');

const { arg } = require('./args');

const gateway = new URL(arg('gateway', 'http://127.0.0.1:18080'));
const key = arg('key', '');
const channel = arg('channel', 'main');
const clients = parseInt(arg('clients', '16'), 10);
const beforeS = parseFloat(arg('before-s', '3'));
const faultS = parseFloat(arg('fault-s', '10'));
const afterS = parseFloat(arg('after-s', '3'));
const status = parseInt(arg('status', '500'), 10);
const pollMs = parseInt(arg('poll-ms', '20'), 10);
const token = arg('admin-token', 'bench-admin');
const model = arg('model', 'gpt-4o-mini');
const maxWaitS = parseFloat(arg('max-wait-s', '60'));
if (!key) { console.error('--key <fingerprint> is required'); process.exit(2); }

const agent = new http.Agent({ keepAlive: true, maxSockets: clients + 4 });
const BODY = Buffer.from(JSON.stringify({ model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 }));
const t0 = Date.now();
const now = () => Date.now() - t0;

function request(method, path, body, headers) {
  return new Promise((resolve) => {
    const req = http.request({ host: gateway.hostname, port: gateway.port, path, method, agent,
      headers: Object.assign({ 'Content-Type': 'application/json' }, headers || {}, body ? { 'Content-Length': body.length } : {}) },
    (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', (e) => resolve({ status: 0, body: String(e) }));
    req.setTimeout(30000, () => req.destroy(new Error('timeout')));
    if (body) req.write(body);
    req.end();
  });
}

const results = [];   // {at, status}
let running = true;
async function client() {
  while (running) {
    const at = now();
    const r = await request('POST', '/v1/chat/completions', BODY);
    results.push({ at, end: now(), status: r.status });
  }
}

async function keyState() {
  const r = await request('GET', '/admin/status', null, { Authorization: 'Bearer ' + token });
  if (r.status !== 200) return null;
  for (const c of JSON.parse(r.body).channels) {
    if (c.name !== channel) continue;
    for (const k of c.keys) if (k.fingerprint === key) return k.state;
  }
  return null;
}

async function main() {
  const loops = Array.from({ length: clients }, client);
  await new Promise((r) => setTimeout(r, beforeS * 1000));
  const fault = JSON.stringify({ channel, key, kind: 'status', status, rate: 1, duration: faultS + 's' });
  const injectedAt = now();
  const added = await request('POST', '/admin/faults', Buffer.from(fault), { Authorization: 'Bearer ' + token });
  if (added.status !== 201) { console.error('fault not added: ' + added.status + ' ' + added.body); process.exit(1); }
  const endsAt = injectedAt + faultS * 1000;
  let removedAt = null, readmittedAt = null;
  while (now() - injectedAt < maxWaitS * 1000) {
    const state = await keyState();
    const t = now();
    if (removedAt === null && state === 'DISABLED') removedAt = t;
    if (removedAt !== null && t >= endsAt && state === 'ACTIVE') { readmittedAt = t; break; }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  await new Promise((r) => setTimeout(r, afterS * 1000));
  running = false;
  await Promise.all(loops);

  const until = readmittedAt ?? now();
  const during = results.filter((r) => r.end >= injectedAt && r.at <= until);
  const failed = during.filter((r) => r.status !== 200);
  const statuses = {};
  for (const r of results) statuses[r.status] = (statuses[r.status] || 0) + 1;
  const res = {
    clients, faultS, status, pollMs, requests: results.length, statuses,
    removalMs: removedAt === null ? null : removedAt - injectedAt,
    requestsDuringFault: during.length, failedDuringFault: failed.length,
    readmissionMs: readmittedAt === null ? null : readmittedAt - endsAt,
  };
  console.log(`fault: key ${key} of channel [${channel}] answers ${status} for ${faultS} s; ${clients} closed-loop clients; ` +
    `status polled every ${pollMs} ms`);
  console.log(`removal (DISABLED) ${res.removalMs ?? 'never'} ms after the injection; ` +
    `${res.failedDuringFault} of ${res.requestsDuringFault} requests failed from the injection to the re-admission ` +
    `(target 0: ${res.failedDuringFault === 0 ? 'met' : 'MISSED'}); ` +
    `re-admission (ACTIVE) ${res.readmissionMs ?? 'never'} ms after the fault's end; all statuses ${JSON.stringify(statuses)}`);
  console.log('RESULT ' + JSON.stringify(res));
}

main().catch((e) => { console.error(e); process.exit(1); });
