#!/usr/bin/env node
// KeyPool benchmark (bench/cluster.sh): how long a 429 on one instance takes to cool the key on another.
//
//   node bench/cluster-cooling.js --a http://127.0.0.1:9201 --b http://127.0.0.1:9202 --token ADMIN \
//        --model cool-model --channel cool --key FINGERPRINT [--samples 50]
//
// Per sample: waits until instance B shows the key ACTIVE again, notes the time, sends one chat completion of the
// model to instance A (whose provider answers 429: A cools the key), then asks B's GET /admin/status over one
// kept-alive connection, as fast as it answers, until the key is COOLING there. The sample is that time: A's call and
// its 429, the cooling shared through Redis, and at most one status read of B (~1 ms). Prints p50, p99 and max in ms.
'use strict';

const http = require('http');

const { arg } = require('./args');
const A = arg('a'), B = arg('b'), TOKEN = arg('token'), MODEL = arg('model'), CHANNEL = arg('channel'), KEY = arg('key');
const SAMPLES = parseInt(arg('samples', '50'), 10);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function request(base, method, path, body) {
  return new Promise((resolve, reject) => {
    const url = new URL(base + path);
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, agent,
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + TOKEN } }, res => {
      const chunks = [];
      res.on('data', c => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

async function stateOnB() {
  const status = JSON.parse((await request(B, 'GET', '/admin/status')).body);
  const channel = status.channels.find(c => c.name === CHANNEL);
  return channel.keys.find(k => k.fingerprint === KEY).state;
}

(async () => {
  const samples = [];
  const chat = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 });
  let lost = 0;
  for (let i = 0; i < SAMPLES; i++) {
    while (await stateOnB() !== 'ACTIVE') { /* the last cooling runs out */ }
    const started = process.hrtime.bigint();
    await request(A, 'POST', '/v1/chat/completions', chat);
    let state;
    // a cooling not seen on B within 10 s is counted as lost, not waited for
    while ((state = await stateOnB()) !== 'COOLING' && process.hrtime.bigint() - started < 10_000_000_000n) { /* again */ }
    if (state === 'COOLING') {
      samples.push(Number(process.hrtime.bigint() - started) / 1e6);
    } else {
      lost++;
    }
  }
  if (samples.length === 0) {
    console.log(`COOLING 0 of ${SAMPLES} seen on B within 10 s`);
    return agent.destroy();
  }
  samples.sort((x, y) => x - y);
  const at = q => samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)];
  console.log(`COOLING ${samples.length} (lost ${lost}) p50_ms=${at(0.5).toFixed(2)} p99_ms=${at(0.99).toFixed(2)} max_ms=${samples[samples.length - 1].toFixed(2)}`);
  agent.destroy();
})().catch(e => { console.error(e); process.exit(1); });
