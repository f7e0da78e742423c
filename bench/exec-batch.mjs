#!/usr/bin/env node
// `run --batch` file handling (issue #17 item 4): calls/s of building and of parsing the Batch API files of N calls
// (default 100,000), in-process, with the code `run --batch` uses: the openai plugin's request lines
// (`OpenAIChatModel.batch.encode`, the chat-completions body of an online call), the core's split within the per-file
// limits (`splitBatchLines`: 50,000 requests / 200 MB) and the JSONL text; then the parse of an output file of N
// completions (`parseBatchFile`: each line checked like an online answer). Prompts are BoolQ-like (passage + question,
// ~500 characters, 2 messages). Run after `npm run build`: `node bench/exec-batch.mjs [--calls N] [--rounds R] [--json]`.
// Prints one line per round and the medians; with --json one object {calls, buildPerSec, parsePerSec, files, mb}.
import { splitBatchLines } from '../packages/core/dist/index.js';
import { OpenAIChatModel, parseBatchFile } from '../plugins/openai/dist/index.js';
import { mulberry32 } from './prng.mjs';

const argv = process.argv.slice(2);
const opt = (f, d) => (argv.indexOf(f) >= 0 ? argv[argv.indexOf(f) + 1] : d);
const N = Number(opt('--calls', '100000'));
const ROUNDS = Math.max(1, Number(opt('--rounds', '3')));
const JSON_OUT = argv.includes('--json');
const log = (s) => {
  if (!JSON_OUT) process.stdout.write(`${s}\n`);
};

const rand = mulberry32(17);
const WORDS = 'the river of a city was built in during and its many people to north south old new first year state school'.split(' ');
const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
const model = new OpenAIChatModel('bench-model', { baseUrl: 'http://127.0.0.1:9/v1' });
const requests = Array.from({ length: N }, (_, i) => ({
  customId: `${i.toString(16).padStart(64, '0')}`,
  request: {
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: `Passage: ${words(70)}\nQuestion: is ${words(8)}?\nAnswer:` },
    ],
    temperature: 0.6,
    topP: 0.9,
    maxTokens: 1024,
  },
}));
// an output file as the Batch API writes it: one completion per line
const output = requests
  .map(({ customId }, i) =>
    JSON.stringify({
      id: `batch_req_${i}`,
      custom_id: customId,
      response: { status_code: 200, request_id: `req_${i}`, body: { id: `chatcmpl-${i}`, object: 'chat.completion', created: 0, model: 'bench-model', choices: [{ index: 0, message: { role: 'assistant', content: `Let's think. ${words(12)}. Answer: ${i % 2 ? 'True' : 'False'}` }, finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 120, completion_tokens: 20, total_tokens: 140 } } },
      error: null,
    }),
  )
  .join('\n');

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const build = [];
const parse = [];
let files = 0;
let mb = 0;
for (let r = 1; r <= ROUNDS; r++) {
  let t = performance.now();
  const lines = requests.map((x) => model.batch.encode(x));
  const { chunks } = splitBatchLines(lines, model.batch.limits);
  const texts = chunks.map((c) => `${c.map((i) => lines[i]).join('\n')}\n`);
  const buildS = (performance.now() - t) / 1000;
  files = texts.length;
  mb = texts.reduce((a, s) => a + Buffer.byteLength(s), 0) / 2 ** 20;
  t = performance.now();
  const results = parseBatchFile(output, { endpoint: model.endpoint, model: 'bench-model', maxResponseBytes: 4 * 2 ** 20 });
  const parseS = (performance.now() - t) / 1000;
  if (results.length !== N) throw new Error(`parsed ${results.length} of ${N} lines`);
  build.push(N / buildS);
  parse.push(N / parseS);
  log(`round ${r}: build ${N} request lines into ${files} files (${mb.toFixed(1)} MB) ${buildS.toFixed(2)} s = ${(N / buildS).toFixed(0)} calls/s; parse ${N} output lines (${(Buffer.byteLength(output) / 2 ** 20).toFixed(1)} MB) ${parseS.toFixed(2)} s = ${(N / parseS).toFixed(0)} calls/s`);
}
const result = { calls: N, rounds: ROUNDS, buildPerSec: median(build), parsePerSec: median(parse), files, mb };
if (JSON_OUT) process.stdout.write(`${JSON.stringify(result)}\n`);
else log(`median: build ${result.buildPerSec.toFixed(0)} calls/s, parse ${result.parsePerSec.toFixed(0)} calls/s`);
