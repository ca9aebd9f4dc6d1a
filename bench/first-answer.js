#!/usr/bin/env node
// KeyPool benchmark: waits for a starting gateway's first answered request, in one process (Node, no dependencies).
//
//   node bench/first-answer.js --url http://127.0.0.1:18080/v1/chat/completions --since-ms EPOCH_MS --pid PID
//       [--poll-ms 20] [--timeout-s 300]
//
// Sends a chat completion every poll-ms (each on a new connection, one at a time) until one is answered 200, then
// prints one line "READY {json}":
//   readyMs      ms from since-ms (the launch, epoch ms) until that 200 was read to its end
//   firstSentMs  ms from since-ms until that successful request was sent (so the first answer's own time is the
//                difference)
//   listenMs     ms from since-ms until the first connection was accepted (whatever it was answered)
//   polls        requests sent; statuses: how often each status (or connection error) came back
//   cpuMs        the process PID's CPU time (utime + stime, all threads) when the 200 came
//   threads      CPU ms per thread name of PID then, largest first (threads with the same name added up)
// A loop of curl started from bash polls every 200-600 ms instead of every 20 ms while the JVM fills both cores
// (process starts wait for a core), which blurs a start's end by that much: one Node process keeps the interval.
// Exits 1 when PID ends or no 200 comes within timeout-s.
'use strict';

const http = require('http');
const fs = require('fs');
const { execFileSync } = require('child_process');

const { arg } = require('./args');

const url = new URL(arg('url', 'http://127.0.0.1:18080/v1/chat/completions'));
const since = Number(arg('since-ms', String(Date.now())));
const pid = arg('pid', '');
const pollMs = parseInt(arg('poll-ms', '20'), 10);
const timeoutS = parseInt(arg('timeout-s', '300'), 10);
const BODY = Buffer.from(JSON.stringify({
  model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'ping' }], max_tokens: 1,
}));
const HZ = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

// utime + stime of a /proc stat line, in ms (fields 14 and 15; the name in parentheses may hold spaces)
function cpuMs(statLine) {
  const fields = statLine.slice(statLine.lastIndexOf(')') + 2).split(' ');
  return Math.round((Number(fields[11]) + Number(fields[12])) * 1000 / HZ);
}

function threadCpu() {
  const byName = {};
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, '#');
      byName[name] = (byName[name] || 0) + cpuMs(stat);
    } catch (e) {
      // a thread that ended meanwhile
    }
  }
  return Object.fromEntries(Object.entries(byName).filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]));
}

function alive() {
  if (!pid) return true;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (e) {
    return false;
  }
}

function post() {
  return new Promise((resolve) => {
    let connected = false;
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent: false,
      headers: { 'Content-Type': 'application/json', 'Content-Length': BODY.length },
    }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve({ status: res.statusCode, connected: true }));
      res.on('error', (e) => resolve({ status: 'error:' + e.code, connected: true }));
    });
    req.on('socket', (socket) => socket.on('connect', () => { connected = true; }));
    req.setTimeout(60000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (e) => resolve({ status: 'error:' + (e.code || e.message), connected }));
    req.end(BODY);
  });
}

async function main() {
  const statuses = {};
  let polls = 0;
  let listenMs = null;
  for (;;) {
    if (!alive()) {
      console.log(`the process ${pid} ended before a 200`);
      process.exit(1);
    }
    if (Date.now() - since > timeoutS * 1000) {
      console.log(`no 200 within ${timeoutS} s`);
      process.exit(1);
    }
    const sent = Date.now();
    polls++;
    const r = await post();
    const now = Date.now();
    statuses[r.status] = (statuses[r.status] || 0) + 1;
    if (r.connected && listenMs === null) listenMs = sent - since;
    if (r.status === 200) {
      const result = { readyMs: now - since, firstSentMs: sent - since, listenMs, polls, statuses };
      if (pid) {
        result.cpuMs = cpuMs(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
        result.threads = threadCpu();
      }
      console.log('READY ' + JSON.stringify(result));
      return;
    }
    await new Promise((r2) => setTimeout(r2, Math.max(0, pollMs - (Date.now() - sent))));
  }
}

main();
