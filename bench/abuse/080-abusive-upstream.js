#!/usr/bin/env node
// A provider that breaks the rules, for bench/abuse/080-provider-answers.sh (Node, no dependencies).
//
//   node bench/abuse/080-abusive-upstream.js --port N
//
// Every call (POST .../chat/completions, any key) is answered as the current mode says:
//   huge-answer       200 application/json, chunked, ~200 MiB of filler (until the caller closes the connection)
//   huge-event        200 text/event-stream, one event that never ends (~200 MiB without a blank line)
//   late-huge-event   200 text/event-stream, three normal chunks, then the event that never ends
//   endless           200 text/event-stream, a normal chunk every 50 ms, forever
// Control: POST /control/mode?m=MODE; GET /control/stats -> {"calls", "closedEarly"} (connections the caller
// closed before the answer ended: the gateway gave up reading, as it should).
'use strict';

const http = require('http');

const i = process.argv.indexOf('--port');
const port = parseInt(i >= 0 ? process.argv[i + 1] : '9112', 10);
const LIMIT = 200 * 1024 * 1024;
const FILLER = Buffer.alloc(64 * 1024, 'x');
let mode = 'huge-answer';
let calls = 0;
let closedEarly = 0;

function chunk(n) {
  return 'data: {"id":"chatcmpl-abuse","object":"chat.completion.chunk","created":1700000000,"model":"abuse",' +
    '"choices":[{"index":0,"delta":{"content":"tok' + n + ' "},"finish_reason":null}]}\n\n';
}

// writes filler until LIMIT or the caller is gone, waiting for 'drain' so that this process stays small
function pour(res, sent) {
  while (sent < LIMIT && !res.destroyed) {
    sent += FILLER.length;
    if (!res.write(FILLER)) { res.once('drain', () => pour(res, sent)); return; }
  }
  if (!res.destroyed) res.end(mode === 'huge-answer' ? '"}' : '\n\n');
}

http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/control/mode') { mode = url.searchParams.get('m') || mode; res.end(mode + '\n'); return; }
  if (url.pathname === '/control/stats') {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ calls, closedEarly, mode }) + '\n');
    return;
  }
  req.resume();
  req.on('end', () => {
    calls++;
    let finished = false;
    res.on('finish', () => { finished = true; });
    res.on('close', () => { if (!finished) closedEarly++; });
    if (mode === 'huge-answer') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"filler":"');
      pour(res, 0);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    if (mode === 'endless') {
      let n = 0;
      const timer = setInterval(() => { if (res.destroyed) clearInterval(timer); else res.write(chunk(n++)); }, 50);
      return;
    }
    if (mode === 'late-huge-event') { res.write(chunk(0) + chunk(1) + chunk(2)); }
    res.write('data: ');
    pour(res, 0);
  });
}).listen(port, '127.0.0.1');
