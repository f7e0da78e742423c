#!/usr/bin/env node
// The bare openai-SDK loop of the execution benchmark (bench/exec.mjs; issue #5 item 6): replays recorded request
// bodies (JSONL, one chat-completions body per line, as bench/exec-server.mjs dumps them) against an OpenAI-compatible
// endpoint with N async workers pulling from the list, and prints one JSON line
// `{calls, errors, loopSeconds, callsPerSecond}` (loopSeconds: first request sent to last response read).
//
//   node bench/exec-bare.mjs --url http://127.0.0.1:PORT/v1 --bodies requests.jsonl --concurrency 8 [--transport fetch|undici]
//
// --transport fetch (default): the SDK as it comes, over Node's global fetch — the loop a user writes by hand, the
// reference of the >= 0.9 targets. --transport undici: the same loop over the transport hpt-bench's openai plugin gives
// the SDK (plugins/openai/dist/transport.js, 4 MiB cap, 600 s deadline): what is left of the harness's own overhead
// once both sides send calls the same way. Needs `npm run build` for the second.
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const baseURL = opt('--url');
const file = opt('--bodies');
const concurrency = Number(opt('--concurrency', '8'));
const transport = opt('--transport', 'fetch');
if (!baseURL || !file || !['fetch', 'undici'].includes(transport)) {
  console.error('usage: node bench/exec-bare.mjs --url BASE_URL --bodies FILE.jsonl [--concurrency N] [--transport fetch|undici]');
  process.exit(2);
}
const fetchOption =
  transport === 'undici' ? { fetch: (await import('../plugins/openai/dist/transport.js')).undiciFetch({ maxBytes: 4 * 1024 * 1024, timeoutMs: 600_000 }) } : {};

const bodies = readFileSync(file, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l));
const client = new OpenAI({ baseURL, apiKey: 'x', maxRetries: 0, ...fetchOption });

let next = 0;
let calls = 0;
let errors = 0;
const worker = async () => {
  while (next < bodies.length) {
    const body = bodies[next++];
    try {
      const r = await client.chat.completions.create(body);
      if (r.choices?.[0]?.message) calls++;
      else errors++;
    } catch {
      errors++;
    }
  }
};
const t0 = performance.now();
await Promise.all(Array.from({ length: concurrency }, worker));
const loopSeconds = (performance.now() - t0) / 1000;
process.stdout.write(`${JSON.stringify({ calls, errors, loopSeconds, callsPerSecond: calls / loopSeconds })}\n`);
