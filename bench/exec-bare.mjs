#!/usr/bin/env node
// The bare openai-SDK loop of the execution benchmark (bench/exec.mjs; issue #5 item 6): replays recorded request
// bodies (JSONL, one chat-completions body per line, as bench/exec-server.mjs dumps them) against an OpenAI-compatible
// endpoint with N async workers pulling from the list, and prints one JSON line
// `{calls, errors, loopSeconds, callsPerSecond}` (loopSeconds: first request sent to last response read).
//
//   node bench/exec-bare.mjs --url http://127.0.0.1:PORT/v1 --bodies requests.jsonl --concurrency 8
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
if (!baseURL || !file) {
  console.error('usage: node bench/exec-bare.mjs --url BASE_URL --bodies FILE.jsonl [--concurrency N]');
  process.exit(2);
}

const bodies = readFileSync(file, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l));
const client = new OpenAI({ baseURL, apiKey: 'x', maxRetries: 0 });

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
