/**
 * End-to-end: the execution engine under failures, kills and re-runs, with the built CLI as a process and
 * the real openai SDK against a scripted OpenAI-compatible server on 127.0.0.1. Samples are generated HiBench formula
 * items; the server answers each one right at a level the test chose (test/helpers/generic-ladder.ts), so every
 * expected number is computed here independently.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '@hpt-bench/core';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';
import { BIN, ROOT, runCli } from '../helpers/cli.js';
import { expectedRun, levelOf, levelOfRequest, questionOf, recordFor, rightAnswer } from '../helpers/generic-ladder.js';
import type { RunSummary } from '@hpt-bench/sdk';

const dir = mkdtempSync(join(tmpdir(), 'hpt-exec-'));
const GEN = ['--preset', 'easy', '--task', 'calculate,equivalent', '--seed', '9'];
const N = 80;

/** What `run --json` prints (the SDK's run summary). */
type Summary = RunSummary;

let records: Record<string, Json>[];
/** What the ladder server answers for a request (right at the sample's level, else a wrong answer). */
let answer: (req: ReceivedRequest) => Reply;
/** Per request: inject a failure? (set by each test) */
let inject: (req: ReceivedRequest, n: number) => Reply | undefined = () => undefined;
let server: TestServer;

beforeAll(async () => {
  const g = await runCli(['generate', 'hibench/formula', ...GEN, '--limit', String(N), '--out', '-']);
  expect(g.code, g.stderr).toBe(0);
  records = g.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, Json>);
  expect(records).toHaveLength(N);
  answer = (req) => {
    const user = req.messages.at(-1)!.content;
    if (req.messages[0]!.role !== 'system') return { text: 'step output' };
    const rec = recordFor(records, user);
    return { text: rec && levelOfRequest(user) === levelOf(questionOf(rec)) ? `Working.\n${rightAnswer(rec.target)}` : '{"answer": "zzz"}' };
  };
  let count = 0;
  server = await startOpenAIServer((req) => inject(req, count++) ?? answer(req));
});
afterAll(async () => server?.close());

const args = (store: string, ...more: string[]) => ['run', '--dataset', 'hibench/formula', ...GEN, '--limit', String(N), '--model', 'openai:test', '--base-url', server.url, '--store', store, '--json', ...more];
const summaryOf = (r: { code: number | null; stdout: string; stderr: string }): Summary => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Summary;
};
const levelsOut = (path: string) =>
  readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => {
    const x = JSON.parse(l) as { sampleId: string; level: number | null };
    return [x.sampleId, x.level] as const;
  });

describe('execution engine', () => {
  let clean: Summary;
  const cleanOut = join(dir, 'clean.jsonl');

  it('a clean run matches the independent count; per-level usage and --prices cost add up', async () => {
    const prices = join(dir, 'prices.json');
    writeFileSync(prices, JSON.stringify({ 'openai:test': { input: 2, output: 10 } }));
    inject = () => undefined;
    const before = server.requests.length;
    clean = summaryOf(await runCli(args(join(dir, 'clean.db'), '--out', cleanOut, '--prices', prices)));
    const exp = expectedRun(records, 2.6);
    expect(clean.n).toBe(N);
    expect(clean.hpi).toBeCloseTo(exp.hpi, 10);
    expect(clean.calls).toBe(exp.calls);
    expect(server.requests.length - before).toBe(exp.calls);
    expect(clean.cachedCalls).toBe(0);
    expect(clean.errored).toBe(0);
    // usage per level sums to the totals; cost = tokens x prices
    const lv = Object.values(clean.levels);
    expect(lv.reduce((a, l) => a + l.calls, 0)).toBe(clean.calls);
    expect(lv.reduce((a, l) => a + l.promptTokens, 0)).toBe(clean.usage.promptTokens);
    expect(lv.reduce((a, l) => a + l.completionTokens, 0)).toBe(clean.usage.completionTokens);
    expect(clean.cost).toBeCloseTo((clean.usage.promptTokens * 2 + clean.usage.completionTokens * 10) / 1e6, 12);
    expect(lv.reduce((a, l) => a + l.cost!, 0)).toBeCloseTo(clean.cost!, 12);
    // levels 4 and 5 make 3 and 4 calls per attempt
    const attempted = (l: number) => exp.levels.filter((x) => x >= l).length;
    for (const l of [1, 2, 3, 4, 5]) expect(clean.levels[String(l)]?.calls ?? 0).toBe(attempted(l) * [1, 1, 1, 3, 4][l - 1]!);
  });

  it('re-running a finished run makes zero model calls (everything from the cache) and gives the same result', async () => {
    const before = server.requests.length;
    const again = summaryOf(await runCli(args(join(dir, 'clean.db'))));
    expect(server.requests.length).toBe(before);
    expect(again.runId).not.toBe(clean.runId);
    expect(again.cachedCalls).toBe(again.calls);
    expect(again.hpi).toBe(clean.hpi);
    expect(again.levelCounts).toEqual(clean.levelCounts);
    const stats = JSON.parse((await runCli(['cache', 'stats', '--store', join(dir, 'clean.db'), '--json'])).stdout) as { entries: number; hits: number };
    expect(stats.entries).toBe(clean.calls);
    expect(stats.hits).toBe(clean.calls);
    // --no-cache calls the model again
    const fresh = summaryOf(await runCli(args(join(dir, 'clean.db'), '--no-cache')));
    expect(server.requests.length - before).toBe(clean.calls);
    expect(fresh.cachedCalls).toBe(0);
    const cleared = JSON.parse((await runCli(['cache', 'clear', '--store', join(dir, 'clean.db'), '--json'])).stdout) as { deleted: number };
    expect(cleared.deleted).toBe(clean.calls);
  });

  it('20% injected failures (429 with retry-after-ms, 500, dropped connections): exactly the clean HPI and per-sample levels', async () => {
    let failures = 0;
    inject = (_req, n) => {
      // a deterministic ~20% of requests fail, cycling through the three kinds
      if ((n * 2654435761) % 1000 >= 200) return undefined;
      failures++;
      const kinds: Reply[] = [{ status: 429, headers: { 'retry-after-ms': '5' }, body: { error: { message: 'rate limited' } } }, { status: 500 }, { drop: true }];
      return kinds[failures % 3]!;
    };
    const out = join(dir, 'flaky.jsonl');
    const flaky = summaryOf(await runCli(args(join(dir, 'flaky.db'), '--out', out, '--max-retries', '12', '--concurrency', '8')));
    inject = () => undefined;
    expect(failures).toBeGreaterThan(0.15 * clean.calls);
    expect(flaky.errored).toBe(0);
    expect(flaky.hpi).toBe(clean.hpi);
    expect(flaky.levelCounts).toEqual(clean.levelCounts);
    expect(flaky.calls).toBe(clean.calls);
    expect(levelsOut(out)).toEqual(levelsOut(cleanOut));
  });

  it('samples that still fail are recorded as errored, the run goes on but is not completed (exit 1), and the same command redoes only those', async () => {
    const broken = new Set(records.filter((_, i) => i % 9 === 5).map((r) => questionOf(r)));
    let failing = true;
    inject = (req) => {
      const rec = recordFor(records, req.messages.at(-1)!.content);
      return failing && rec && broken.has(questionOf(rec)) ? { status: 500, body: { error: { message: 'upstream exploded' } } } : undefined;
    };
    const store = join(dir, 'errors.db');
    const firstRun = await runCli(args(store, '--max-retries', '1'));
    // a run that did not score every sample is not `completed`: the summary says so, stderr says why, exit code 1
    expect(firstRun.code, firstRun.stderr).toBe(1);
    expect(firstRun.stderr).toMatch(new RegExp(`Error: ${broken.size} samples errored, so run \\S+ is not complete .*re-run the same command`));
    const first = JSON.parse(firstRun.stdout) as Summary & { complete: boolean };
    expect(first.complete).toBe(false);
    expect(first.errored).toBe(broken.size);
    expect(first.n).toBe(N - broken.size);
    const ok = records.filter((r) => !broken.has(questionOf(r)));
    expect(first.hpi).toBeCloseTo(expectedRun(ok, 2.6).hpi, 10);
    const stored = new Database(store, { readonly: true });
    expect(stored.prepare('SELECT status, error FROM runs WHERE id = ?').get(first.runId)).toMatchObject({ status: 'failed', error: expect.stringMatching(/samples errored/) });
    stored.close();
    failing = false;
    const before = server.requests.length;
    // the same command (no --retry-errors needed) continues the incomplete run and redoes only its errored samples
    const second = summaryOf(await runCli(args(store)));
    inject = () => undefined;
    // only the errored samples were redone
    const redone = server.requests.slice(before).map((q) => recordFor(records, q.messages.at(-1)!.content)).filter(Boolean);
    expect(new Set(redone.map((r) => questionOf(r!)))).toEqual(broken);
    expect(second).toMatchObject({ runId: first.runId, resumed: true, errored: 0, n: N, complete: true });
    expect(second.hpi).toBe(clean.hpi);
    expect(second.levelCounts).toEqual(clean.levelCounts);
    // --resume <id> needs no other flag: the stored configuration is used; a finished run has nothing left to do
    const before2 = server.requests.length;
    const third = summaryOf(await runCli(['run', '--resume', first.runId, '--store', store, '--json']));
    expect(server.requests.length).toBe(before2);
    expect(third).toMatchObject({ runId: first.runId, resumed: true, n: N, errored: 0, hpi: clean.hpi });
    const missing = await runCli(['run', '--resume', 'no-such-run', '--store', store]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/^Error: no run no-such-run in .*errors\.db; see `hpt-bench runs/);
  });

  it('SIGKILL at several points, then the same command: identical results, one record per sample, one run', async () => {
    const store = join(dir, 'kill.db');
    const out = join(dir, 'kill.jsonl');
    // slow the server a little so the kills land mid-run
    inject = (req) => ({ ...(answer(req) as { text: string }), delayMs: 4 });
    const cmd = args(store, '--out', out);
    for (const at of [5, 25, 50]) {
      const killed = await killWhenStored(cmd, store, at);
      expect(killed).toBe('killed');
      const db = new Database(store, { readonly: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        // every stored sample has all its attempts: a transaction is all or nothing
        const broken = db
          .prepare("SELECT s.idx FROM samples s WHERE s.status = 'done' AND (SELECT COUNT(*) FROM attempts a WHERE a.run_id = s.run_id AND a.idx = s.idx) <> COALESCE(s.level, 5)")
          .all();
        expect(broken).toEqual([]);
      } finally {
        db.close();
      }
    }
    inject = () => undefined;
    const final = summaryOf(await runCli(cmd));
    expect(final.resumed).toBe(true);
    expect(final.n).toBe(N);
    expect(final.hpi).toBe(clean.hpi);
    expect(final.levelCounts).toEqual(clean.levelCounts);
    expect(levelsOut(out)).toEqual(levelsOut(cleanOut));
    const runs = JSON.parse((await runCli(['runs', '--store', store, '--json'])).stdout) as { runs: { runId: string; status: string; done: number }[] };
    expect(runs.runs).toEqual([expect.objectContaining({ runId: final.runId, status: 'completed', done: N })]);
  });
});

/** Start the CLI, SIGKILL it once the store holds at least `atLeast` samples; resolves 'killed' or 'finished'. */
function killWhenStored(cliArgs: string[], store: string, atLeast: number): Promise<'killed' | 'finished'> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...cliArgs], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' }, stdio: 'ignore' });
    let done = false;
    const poll = setInterval(() => {
      try {
        const db = new Database(store, { readonly: true, fileMustExist: true });
        const n = (db.prepare('SELECT COUNT(*) AS c FROM samples').get() as { c: number }).c;
        db.close();
        if (n >= atLeast && !done) {
          done = true;
          child.kill('SIGKILL');
        }
      } catch {
        // the store or its tables do not exist yet
      }
    }, 5);
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      clearInterval(poll);
      resolve(signal === 'SIGKILL' ? 'killed' : 'finished');
    });
  });
}
