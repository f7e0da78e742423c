/**
 * End-to-end (issue #25 item 9, "errors that cost time or tell two stories"), the built CLI as a process against the
 * scripted OpenAI-compatible server on 127.0.0.1 and the real SQLite store: what can be found before the first model
 * call is found there, before a run row exists — an endpoint nothing listens on (in about a second, not after every
 * retry), a price missing for one model of an evaluation file, a bad record anywhere in the data (named by its line or
 * item, counted from 1) — and a failed run's stored error and its counts in `runs` / `runs show` agree.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorLine, runCli, type CliResult } from '../helpers/cli.js';
import { startOpenAIServer, type Reply, type TestServer } from '../helpers/openai-server.js';
import { closedPort } from '../helpers/net.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-early-'));
let counter = 0;
const tmp = (name: string) => join(dir, `${++counter}-${name}`);
const KEY = { OPENAI_API_KEY: 'sk-test-early' };

/** What the server answers (set by each test): by default a one-word answer. */
let reply: () => Reply = () => ({ text: 'yes' });
let server: TestServer;
beforeAll(async () => {
  server = await startOpenAIServer(() => reply());
});
afterAll(async () => server?.close());

/** BoolQ records (Hugging Face layout). */
const boolq = (n: number) => Array.from({ length: n }, (_, i) => ({ question: `is question ${i} true`, passage: `passage ${i}`, answer: i % 2 === 1 }));

/** A JSONL file of `records`, one per line. */
function jsonl(name: string, records: unknown[]): string {
  const path = tmp(name);
  writeFileSync(path, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return path;
}

/** The runs of a store as `hpt-bench runs --json` lists them (none when the store was never created). */
async function runsOf(store: string): Promise<{ runId: string; status: string; done: number; errored: number; error: string | null }[]> {
  if (!existsSync(store)) return [];
  const r = await runCli(['runs', '--store', store, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { runs: { runId: string; status: string; done: number; errored: number; error: string | null }[] }).runs;
}

/** The error object of a `--json` command that failed. */
const errorOf = (r: CliResult) => (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;

describe('an endpoint nothing listens on', () => {
  it('fails in a few seconds (it took 9-23 s of retries), with one line, and leaves no run', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const store = tmp('s.db');
    const t0 = performance.now();
    const r = await runCli(['run', '--dataset', 'boolq', '--data', jsonl('q.jsonl', boolq(4)), '--model', 'openai:m', '--base-url', url, '--store', store, '--max-retries', '5', '--json'], { env: KEY });
    const ms = performance.now() - t0;
    console.info(`bench: a run against a closed port failed in ${Math.round(ms)} ms (process start included)`);
    expect(r.code, r.stderr).toBe(1);
    expect(errorLine(r)).toMatch(new RegExp(`^Error: cannot reach ${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+\\): nothing answers there; check --base-url / OPENAI_BASE_URL and that the server is running \\(no run was started\\)$`));
    expect(errorOf(r).code).toBe('E_ENDPOINT');
    expect(await runsOf(store)).toEqual([]);
    expect(ms).toBeLessThan(10_000);
  }, 60_000);
});

describe('an endpoint that went away after answering', () => {
  it('re-running a finished run replays the cache with a warning (README: a finished run makes no model call); a new question fails in seconds', async () => {
    const gone = await startOpenAIServer(() => ({ text: 'True' }));
    const url = gone.url;
    const store = tmp('s.db');
    const data = jsonl('q.jsonl', boolq(3));
    const args = ['run', '--dataset', 'boolq', '--data', data, '--model', 'openai:replayed', '--base-url', url, '--store', store, '--json'];
    const first = await runCli(args, { env: KEY });
    expect(first.code, first.stderr).toBe(0);
    await gone.close();
    const again = await runCli(args, { env: KEY });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ hpi: (JSON.parse(first.stdout) as { hpi: number }).hpi, complete: true });
    expect(again.stderr).toMatch(/cannot reach .*going on, as the cache holds answers of openai:replayed/);
    // another model name has nothing cached: the closed endpoint fails the run at once
    const other = await runCli(args.map((a) => (a === 'openai:replayed' ? 'openai:never-cached' : a)), { env: KEY });
    expect(other.code).toBe(1);
    expect(errorOf(other).message).toMatch(/^cannot reach /);
  }, 60_000);
});

describe('a failed run tells one story', () => {
  it('`runs` and `runs show` count the errored samples its stored error names ("2 of 2 samples errored")', async () => {
    const store = tmp('s.db');
    reply = () => ({ status: 500, body: { error: { message: 'boom' } } });
    const r = await runCli(['run', '--dataset', 'boolq', '--data', jsonl('q.jsonl', boolq(2)), '--model', 'openai:m', '--base-url', server.url, '--store', store, '--max-retries', '0', '--json'], { env: KEY });
    reply = () => ({ text: 'yes' });
    expect(r.code, r.stderr).toBe(1);
    expect(errorOf(r)).toMatchObject({ code: 'E_NO_RESULTS', message: expect.stringMatching(/^no sample could be scored: 2 of 2 samples errored/) });
    const [listed, ...others] = await runsOf(store);
    expect(others).toEqual([]);
    expect(listed).toMatchObject({ status: 'failed', done: 0, errored: 2, error: expect.stringMatching(/2 of 2 samples errored/) });
    const show = await runCli(['runs', 'show', listed!.runId, '--store', store, '--json']);
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ status: 'failed', done: 0, errored: 2, error: listed!.error });
    const table = await runCli(['runs', 'show', listed!.runId, '--store', store]);
    expect(table.stdout).toMatch(/samples done \/ errored\s*│ 0 \/ 2 /);
  }, 60_000);
});

describe('an evaluation file', () => {
  it('whose prices miss one model that calls an endpoint fails before any model call; a baseline needs no price', async () => {
    const data = jsonl('q.jsonl', boolq(2));
    const prices = tmp('prices.json');
    writeFileSync(prices, JSON.stringify({ 'openai:priced': { input: 1, output: 2 } }));
    const store = tmp('s.db');
    const models = [`  - { id: openai:priced, baseUrl: ${server.url} }`, '  - { id: baseline:oracle }', `  - { id: openai:unpriced, baseUrl: ${server.url} }`];
    const file = (ms: string[]) => {
      const path = tmp('eval.yaml');
      writeFileSync(path, ['datasets:', `  - { id: boolq, data: ${data} }`, 'models:', ...ms, `prices: ${prices}`, `store: ${store}`, 'maxRetries: 0', ''].join('\n'));
      return path;
    };
    const before = server.requests.length;
    const r = await runCli(['run', '--config', file(models), '--json'], { env: KEY });
    expect(r.code, r.stderr).toBe(2);
    expect(errorLine(r)).toBe('Error: openai:unpriced × boolq: the prices file has no price for openai:unpriced (give "input" and "output" USD per 1M tokens for every model of the run that calls an endpoint)');
    expect(server.requests.length - before).toBe(0);
    expect(await runsOf(store)).toEqual([]);
    // without the unpriced model the file runs: the baseline has no price and needs none
    const ok = await runCli(['run', '--config', file(models.slice(0, 2)), '--json'], { env: KEY });
    expect(ok.code, ok.stderr).toBe(0);
    const [priced, oracle] = JSON.parse(ok.stdout) as { model: string; cost?: number; complete: boolean }[];
    expect(priced).toMatchObject({ model: 'openai:priced', complete: true, cost: expect.any(Number) });
    expect(oracle).toMatchObject({ model: 'baseline:oracle', complete: true });
    expect(server.requests.length - before).toBeGreaterThan(0);
  }, 60_000);
});

describe('a bad record anywhere in the data', () => {
  it('is found before a run row exists and before any model call, named by its line (JSONL) or item (JSON array) counted from 1', async () => {
    const records: Record<string, unknown>[] = boolq(5);
    delete records[3]!.passage;
    const before = server.requests.length;
    for (const [data, place] of [
      [jsonl('q.jsonl', records), 'line 4'],
      [(() => {
        const path = tmp('q.json');
        writeFileSync(path, JSON.stringify(records, null, 2));
        return path;
      })(), 'item 4'],
    ] as const) {
      const store = tmp('s.db');
      const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'openai:m', '--base-url', server.url, '--store', store, '--concurrency', '1', '--json'], { env: KEY });
      expect(r.code, r.stderr).toBe(2);
      expect(errorLine(r)).toBe(`Error: ${data}: ${place}: missing field 'passage' (use --on-invalid skip to skip such records)`);
      expect(await runsOf(store)).toEqual([]);
    }
    expect(server.requests.length - before).toBe(0);
  }, 60_000);
});
