/**
 * End-to-end (issue 25, item 5): a replica that serves another model is not believed. The built CLI runs against real
 * local OpenAI-compatible servers given as replicas of one model (`--base-url A --base-url B`); one of them answers fast,
 * wrongly, and names another model in its replies' `model` field. Its answers are neither scored, cached nor stored, the
 * endpoint is drained, the run's HPI is exactly the honest replica's alone, and the summary (`--json` and text) says
 * which endpoint was drained and why. A single endpoint that serves another model fails the run with one line; a reply
 * without a `model` field, or naming a dated snapshot of the model, is accepted.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { assertValid, type Json } from '@hpt-bench/core';
import { errorLine, runCli } from '../helpers/cli.js';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';

interface EndpointRow {
  endpoint: string;
  calls: number;
  errors: number;
  meanLatencyMs: number;
  state: string;
  servedModel?: string;
  reason?: string;
}

interface Summary {
  runId: string;
  n: number;
  hpi: number;
  accuracy: number;
  levelCounts: Record<string, number>;
  calls: number;
  cachedCalls: number;
  complete: boolean;
  errored: number;
  endpoints?: EndpointRow[];
}

const servers: TestServer[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.close().catch(() => undefined);
});

const tmp = () => mkdtempSync(join(tmpdir(), 'hpt-served-model-'));

/** Text only the lying replica writes: it must appear nowhere in a store. */
const MARK = 'LIAR-7f3a';

/** A BoolQ file of `n` questions (Hugging Face layout): question i is true when i is odd. */
function boolqData(path: string, n: number): void {
  writeFileSync(path, `${Array.from({ length: n }, (_, i) => JSON.stringify({ question: `is question ${i} true`, passage: `passage ${i}`, answer: i % 2 === 1 })).join('\n')}\n`);
}

/** The question number of a request of `boolqData`. */
const question = (req: ReceivedRequest): number => Number(/is question (\d+) true/.exec(req.messages.map((m) => m.content).join('\n'))?.[1] ?? 0);

/** The honest replica: right for questions not divisible by 3, wrong (at every level) for the others, after `delayMs`. */
function honest(req: ReceivedRequest, delayMs = 5): Reply {
  const i = question(req);
  const truth = i % 2 === 1;
  const said = i % 3 === 0 ? !truth : truth;
  return { text: said ? 'True' : 'False', delayMs };
}

/** The lying replica: at once, the wrong answer, marked, naming another model. */
function liar(req: ReceivedRequest): Reply {
  const truth = question(req) % 2 === 1;
  return { text: `${truth ? 'False' : 'True'} (${MARK})`, model: 'other-model' };
}

async function server(rule: (req: ReceivedRequest) => Reply): Promise<TestServer> {
  const s = await startOpenAIServer(rule);
  servers.push(s);
  return s;
}

const args = (dir: string, ...urls: string[]) => ['run', '--dataset', 'boolq', '--data', join(dir, 'q.jsonl'), '--model', 'openai:m', '--store', join(dir, 's.db'), '--concurrency', '4', ...urls.flatMap((u) => ['--base-url', u])];

/** The store's cache entries (key and response) and every stored call output. */
function storeContent(store: string): { cache: [string, string][]; outputs: string[]; runs: { status: string }[] } {
  const db = new Database(store, { readonly: true });
  try {
    return {
      cache: (db.prepare('SELECT key, response FROM call_cache ORDER BY key').all() as { key: string; response: string }[]).map((r) => [r.key, r.response]),
      outputs: (db.prepare('SELECT output FROM calls').all() as { output: string }[]).map((r) => r.output),
      runs: db.prepare('SELECT status FROM runs').all() as { status: string }[],
    };
  } finally {
    db.close();
  }
}

/** Whether `MARK` is anywhere in the store's files (the database and its WAL, when one is left). */
function storeBytesHold(store: string, text: string): boolean {
  return [store, `${store}-wal`].some((f) => existsSync(f) && readFileSync(f).includes(Buffer.from(text)));
}

describe('a replica that serves another model (run --base-url A --base-url B)', () => {
  it('is drained: its answers are neither scored, cached nor stored; the HPI is the honest replica alone; the summary says which and why', async () => {
    const n = 30;
    const lying = await server(liar);
    const good = await server((r) => honest(r));

    // both replicas, the lying one first (it answers at once, so it is picked and answers first)
    const dir = tmp();
    boolqData(join(dir, 'q.jsonl'), n);
    const both = await runCli([...args(dir, lying.url, good.url), '--json'], { cwd: dir });
    expect(both.code, both.stderr).toBe(0);
    const s = JSON.parse(both.stdout) as Summary;
    expect(s).toMatchObject({ n, complete: true, errored: 0 });
    expect(lying.requests.length).toBeGreaterThan(0);
    const [el, eg] = s.endpoints!;
    // the lying replica: every request it answered was refused (an error), it ended drained, and the summary says why
    expect(el).toMatchObject({ endpoint: lying.url, calls: lying.requests.length, errors: lying.requests.length, state: 'open', servedModel: 'other-model' });
    expect(el!.reason).toMatch(/other-model/);
    expect(el!.reason).toMatch(/\bm\b/);
    expect(eg).toMatchObject({ endpoint: good.url, calls: good.requests.length, errors: 0, state: 'closed' });
    expect(eg!.reason).toBeUndefined();
    expect(eg!.servedModel).toBeUndefined();
    assertValid('run-summary', s as unknown as Json, 'run summary with a drained replica');
    // every answer the run used came from the honest replica
    expect(good.requests.length).toBe(s.calls - s.cachedCalls);

    // the honest replica alone, in a store of its own
    const alone = tmp();
    boolqData(join(alone, 'q.jsonl'), n);
    const only = await runCli([...args(alone, good.url), '--json'], { cwd: alone });
    expect(only.code, only.stderr).toBe(0);
    const a = JSON.parse(only.stdout) as Summary;
    expect(a.hpi).toBeGreaterThan(1); // a third of the questions are never solved
    expect(s.hpi).toBe(a.hpi);
    expect(s.accuracy).toBe(a.accuracy);
    expect(s.levelCounts).toEqual(a.levelCounts);
    expect(s.calls).toBe(a.calls);

    // nothing of the lying replica is in the cache or the store: the same cache as the honest run, no marked output
    const withLiar = storeContent(join(dir, 's.db'));
    const honestOnly = storeContent(join(alone, 's.db'));
    expect(withLiar.cache.length).toBeGreaterThan(0);
    expect(withLiar.cache).toEqual(honestOnly.cache);
    expect(withLiar.outputs.filter((o) => o.includes(MARK))).toEqual([]);
    expect(withLiar.runs).toEqual([{ status: 'completed' }]);
    expect(storeBytesHold(join(dir, 's.db'), MARK)).toBe(false);

    // the text summary names the drained endpoint and the model it served
    const text = tmp();
    boolqData(join(text, 'q.jsonl'), 6);
    const t = await runCli(args(text, lying.url, good.url), { cwd: text });
    expect(t.code, t.stderr).toBe(0);
    const row = t.stdout.split('\n').find((l) => l.includes(`endpoint ${lying.url}`));
    expect(row).toBeDefined();
    expect(row).toMatch(/drained/);
    expect(row).toMatch(/other-model/);
    expect(t.stdout.split('\n').find((l) => l.includes(`endpoint ${good.url}`))).not.toMatch(/drained/);
  });

  it('a single endpoint that serves another model fails the run with one line (exit 1); nothing is cached or scored; the run is not completed', async () => {
    const lying = await server(liar);
    const dir = tmp();
    boolqData(join(dir, 'q.jsonl'), 8);
    const r = await runCli([...args(dir, lying.url), '--json'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const line = errorLine(r);
    expect(line).toContain(lying.url);
    expect(line).toMatch(/other-model/);
    expect(line).toMatch(/openai:m\b/);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'E_ENDPOINT' } });
    const stored = storeContent(join(dir, 's.db'));
    expect(stored.cache).toEqual([]);
    expect(stored.outputs).toEqual([]);
    expect(stored.runs.map((x) => x.status)).not.toContain('completed');
    expect(storeBytesHold(join(dir, 's.db'), MARK)).toBe(false);

    // the same without --json (in a store of its own: the failed run would be resumed with a note): one `Error:` line
    const fresh = tmp();
    boolqData(join(fresh, 'q.jsonl'), 8);
    const plain = await runCli(args(fresh, lying.url), { cwd: fresh });
    expect(plain.code).toBe(1);
    expect(errorLine(plain)).toMatch(/other-model/);
  });

  it('--served-model NAME: an endpoint that serves the model under another name (an Azure deployment) is believed for that name only', async () => {
    const right = (r: ReceivedRequest): Reply => ({ text: question(r) % 2 === 1 ? 'True' : 'False', delayMs: 2, model: 'gpt-4o-2024-08-06' });
    const azure = await server(right);
    const dir = tmp();
    boolqData(join(dir, 'q.jsonl'), 8);
    const refused = await runCli([...args(dir, azure.url), '--json'], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(errorLine(refused)).toMatch(/serves model gpt-4o-2024-08-06, not m\b.*give --served-model <name>/);
    const ok = await runCli([...args(dir, azure.url), '--json', '--served-model', 'gpt-4o-2024-08-06'], { cwd: dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ n: 8, complete: true, accuracy: 1 });
    // the declared name only: a replica naming yet another model is still refused
    const lying = await server(liar);
    const other = tmp();
    boolqData(join(other, 'q.jsonl'), 8);
    const r = await runCli([...args(other, lying.url), '--json', '--served-model', 'gpt-4o-2024-08-06'], { cwd: other });
    expect(r.code).toBe(1);
    expect(errorLine(r)).toMatch(/other-model/);
  });

  it('a reply without a model field, or naming a dated snapshot of the model, is accepted (one endpoint or several)', async () => {
    const right = (r: ReceivedRequest): Reply => ({ text: question(r) % 2 === 1 ? 'True' : 'False', delayMs: 2 });
    const bare = await server((r) => ({ ...right(r), model: null }));
    const dated = await server((r) => ({ ...right(r), model: 'm-2024-07-18' }));
    const dir = tmp();
    boolqData(join(dir, 'q.jsonl'), 12);
    const spread = await runCli([...args(dir, bare.url, dated.url), '--json', '--no-cache'], { cwd: dir });
    expect(spread.code, spread.stderr).toBe(0);
    const s = JSON.parse(spread.stdout) as Summary;
    expect(s).toMatchObject({ n: 12, complete: true, accuracy: 1 });
    expect(s.endpoints!.map((e) => [e.state, e.errors, e.reason])).toEqual([
      ['closed', 0, undefined],
      ['closed', 0, undefined],
    ]);
    expect(bare.requests.length).toBeGreaterThan(0);
    expect(dated.requests.length).toBeGreaterThan(0);
    for (const url of [bare.url, dated.url]) {
      const one = await runCli([...args(dir, url), '--json', '--no-cache', '--new'], { cwd: dir });
      expect(one.code, one.stderr).toBe(0);
      expect(JSON.parse(one.stdout)).toMatchObject({ n: 12, complete: true, accuracy: 1 });
    }
  });
});
