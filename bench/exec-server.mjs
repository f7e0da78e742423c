#!/usr/bin/env node
// A standalone OpenAI-compatible server for the execution benchmark (bench/exec.mjs; issue #5 item 6). Runs as its own
// process so that client and server share the CPU the way they do in practice.
//
//   node bench/exec-server.mjs [--port 0] [--latency MS] [--reply TEXT]
//
// `POST /v1/chat/completions` answers every request with the fixed completion TEXT (default `zzz`, which no scorer
// accepts, so every sample climbs the whole ladder) after MS milliseconds (default 0). Usage counts are characters / 4.
// Control routes (JSON):
//   GET  /stats               {requests, firstAt, lastAt, latencyMs, recording, recorded}: requests since the last reset;
//                             firstAt / lastAt are the arrival times (epoch ms, sub-ms resolution: performance.timeOrigin +
//                             performance.now(), comparable with other processes on the machine) of the first and last
//                             completion request, so lastAt - firstAt is the window the load was served in
//   POST /reset               zero the counters and drop the recorded bodies
//   POST /config              body {latencyMs?, reply?, record?}: change latency / reply; record=true keeps every request
//                             body from now on (raw bytes, in arrival order)
//   POST /dump                body {file}: write the recorded bodies to FILE as JSONL (one request body per line)
// On start it prints one line `{"url": "http://127.0.0.1:PORT/v1", "pid": PID}` on stdout. SIGTERM / SIGINT end it.
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
let latencyMs = Number(opt('--latency', '0'));
let reply = opt('--reply', 'zzz');
const port = Number(opt('--port', '0'));

let requests = 0;
let firstAt = null;
let lastAt = null;
let recording = false;
let recorded = [];
let seq = 0;

const json = (res, status, obj) => {
  const body = JSON.stringify(obj);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
};

function complete(raw, res) {
  const now = performance.timeOrigin + performance.now();
  requests++;
  firstAt ??= now;
  lastAt = now;
  if (recording) recorded.push(raw);
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    json(res, 400, { error: { message: 'body is not JSON' } });
    return;
  }
  let promptChars = 0;
  for (const m of body.messages ?? []) promptChars += typeof m.content === 'string' ? m.content.length : 0;
  const promptTokens = Math.ceil(promptChars / 4);
  const completionTokens = Math.max(1, Math.ceil(reply.length / 4));
  const payload = {
    id: `chatcmpl-${++seq}`,
    object: 'chat.completion',
    created: 0,
    model: body.model,
    choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
  const send = () => json(res, 200, payload);
  if (latencyMs > 0) setTimeout(send, latencyMs);
  else send();
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = req.url ?? '';
    if (req.method === 'POST' && url.endsWith('/chat/completions')) return complete(raw, res);
    if (req.method === 'GET' && url === '/stats') {
      return json(res, 200, { requests, firstAt, lastAt, latencyMs, recording, recorded: recorded.length });
    }
    if (req.method === 'POST' && url === '/reset') {
      requests = 0;
      firstAt = lastAt = null;
      recorded = [];
      return json(res, 200, { ok: true });
    }
    if (req.method === 'POST' && url === '/config') {
      const c = raw ? JSON.parse(raw) : {};
      if (c.latencyMs !== undefined) latencyMs = Number(c.latencyMs);
      if (c.reply !== undefined) reply = String(c.reply);
      if (c.record !== undefined) recording = Boolean(c.record);
      return json(res, 200, { latencyMs, reply, recording });
    }
    if (req.method === 'POST' && url === '/dump') {
      const { file } = JSON.parse(raw);
      writeFileSync(file, recorded.length ? `${recorded.join('\n')}\n` : '');
      return json(res, 200, { file, bodies: recorded.length });
    }
    json(res, 404, { error: { message: `not found: ${req.method} ${url}` } });
  });
});
// Clients keep connections alive between calls; do not drop idle sockets before they do.
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/v1`, pid: process.pid })}\n`);
});
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
