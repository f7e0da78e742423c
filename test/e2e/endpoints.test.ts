/**
 * End-to-end: several endpoints for one model (`--base-url` given several times, or a list in an evaluation file) with
 * the built CLI as a process and real local OpenAI-compatible servers: a replica stopped mid-run is drained and the
 * run completes with every sample; the summary's per-endpoint requests add up; a re-run with another endpoint list
 * answers everything from the cache (the key names the model, not the URL) and continues the same run identity;
 * `--cache-key-endpoint` puts the URL back into the key.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { errorLine, runCli } from '../helpers/cli.js';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';

interface EndpointRow {
  endpoint: string;
  calls: number;
  errors: number;
  meanLatencyMs: number;
  state: string;
}

interface Summary {
  runId: string;
  n: number;
  accuracy: number;
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

const tmp = () => mkdtempSync(join(tmpdir(), 'hpt-endpoints-'));

/** A BoolQ file of `n` questions (Hugging Face layout): question i is true when i is odd. */
function boolqData(path: string, n: number): void {
  writeFileSync(path, `${Array.from({ length: n }, (_, i) => JSON.stringify({ question: `is question ${i} true`, passage: `passage ${i}`, answer: i % 2 === 1 })).join('\n')}\n`);
}

/** The right answer to a BoolQ request of `boolqData`, after `delayMs`. */
function answer(req: ReceivedRequest, delayMs = 2): Reply {
  const text = req.messages.map((m) => m.content).join('\n');
  const i = Number(/is question (\d+) true/.exec(text)?.[1] ?? 0);
  return { text: i % 2 === 1 ? 'True' : 'False', delayMs };
}

async function replica(rule: (req: ReceivedRequest) => Reply | Promise<Reply> = (r) => answer(r)): Promise<TestServer> {
  const s = await startOpenAIServer(rule);
  servers.push(s);
  return s;
}

function configHashes(store: string): string[] {
  const db = new Database(store, { readonly: true });
  try {
    return (db.prepare('SELECT config_hash AS h FROM runs ORDER BY created_at, id').all() as { h: string }[]).map((r) => r.h);
  } finally {
    db.close();
  }
}

const args = (dir: string, ...urls: string[]) => ['run', '--dataset', 'boolq', '--data', join(dir, 'q.jsonl'), '--model', 'openai:m', '--store', join(dir, 's.db'), '--concurrency', '4', ...urls.flatMap((u) => ['--base-url', u])];

describe('several endpoints for one model (run --base-url A --base-url B ...)', () => {
  it('a replica stopped mid-run is drained and the run completes; per-endpoint requests add up; another endpoint list re-runs from the cache; --cache-key-endpoint calls again', async () => {
    const dir = tmp();
    boolqData(join(dir, 'q.jsonl'), 40);
    // replica a answers 5 requests, then is stopped (its port refuses connections from then on)
    let stopped: Promise<void> | undefined;
    const a: TestServer = await replica((r) => {
      if (a.requests.length <= 5) return answer(r);
      stopped ??= a.close();
      return { drop: true };
    });
    const b = await replica();
    const c = await replica((r) => answer(r, 15));
    const first = await runCli([...args(dir, a.url, b.url, c.url), '--json'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const s1 = JSON.parse(first.stdout) as Summary;
    expect(s1).toMatchObject({ n: 40, complete: true, errored: 0, accuracy: 1 });
    expect(s1.endpoints!.map((e) => e.endpoint)).toEqual([a.url, b.url, c.url]);
    const [ea, eb, ec] = s1.endpoints!;
    // b and c answered everything they were sent; a answered its 5 and failed the rest, then was drained
    expect([eb!.calls, eb!.errors, ec!.calls, ec!.errors]).toEqual([b.requests.length, 0, c.requests.length, 0]);
    expect(ea!.calls - ea!.errors).toBe(5);
    expect(ea!.errors).toBeGreaterThanOrEqual(3);
    expect(ea!.state).not.toBe('closed');
    // every answered request is a call of the summary that did not come from the cache
    expect(s1.endpoints!.reduce((n, e) => n + e.calls - e.errors, 0)).toBe(s1.calls - s1.cachedCalls);
    expect(b.requests.length + c.requests.length + 5).toBe(s1.calls - s1.cachedCalls);
    expect(eb!.calls).toBeGreaterThan(0);
    expect(ec!.calls).toBeGreaterThan(0);
    expect(ec!.meanLatencyMs).toBeGreaterThan(eb!.meanLatencyMs);
    await stopped;

    // another endpoint list (b alone, then a new replica d with c): the same model, so every answer is cached
    const d = await replica();
    const seen = b.requests.length + c.requests.length;
    const second = await runCli([...args(dir, b.url), '--json'], { cwd: dir });
    expect(second.code, second.stderr).toBe(0);
    const s2 = JSON.parse(second.stdout) as Summary;
    expect(s2).toMatchObject({ n: 40, complete: true });
    expect(s2.calls).toBe(s2.cachedCalls);
    expect(s2.endpoints).toBeUndefined(); // one endpoint: no per-endpoint rows
    const third = await runCli(args(dir, d.url, c.url), { cwd: dir });
    expect(third.code, third.stderr).toBe(0);
    expect(b.requests.length + c.requests.length + d.requests.length).toBe(seen);
    // the text summary names each endpoint with its requests (errors) and mean latency
    expect(third.stdout).toContain(`endpoint ${d.url}: requests (errors), mean latency`);
    expect(third.stdout).toMatch(new RegExp(`endpoint ${c.url.replace(/[./]/g, '\\$&')}: requests \\(errors\\), mean latency\\s*│?\\s*0 \\(0\\)`));
    // the runs of the three endpoint lists have one identity
    expect(new Set(configHashes(join(dir, 's.db'))).size).toBe(1);

    // --cache-key-endpoint: the URL is in the key, so a new endpoint makes requests again, and it is another run identity
    const fourth = await runCli([...args(dir, d.url), '--cache-key-endpoint', '--json'], { cwd: dir });
    expect(fourth.code, fourth.stderr).toBe(0);
    const s4 = JSON.parse(fourth.stdout) as Summary;
    expect(s4.cachedCalls).toBeLessThan(s4.calls);
    expect(d.requests.length).toBe(s4.calls - s4.cachedCalls);
    expect(d.requests.length).toBeGreaterThanOrEqual(40);
    expect(new Set(configHashes(join(dir, 's.db'))).size).toBe(2);
  });

  it('an unfinished run is continued with another set of replicas (same run, only the errored sample redone)', async () => {
    const dir = tmp();
    boolqData(join(dir, 'q.jsonl'), 10);
    let failing = true;
    // question 3 cannot be answered by any replica during the first pass
    const rule = (r: ReceivedRequest): Reply => (failing && r.messages.some((m) => m.content.includes('is question 3 true')) ? { status: 500, body: { error: { message: 'boom' } } } : answer(r));
    const a = await replica(rule);
    const b = await replica(rule);
    const first = await runCli([...args(dir, a.url, b.url), '--max-retries', '0', '--json'], { cwd: dir });
    expect(first.code, first.stderr).toBe(1);
    const s1 = JSON.parse(first.stdout) as Summary;
    expect(s1).toMatchObject({ complete: false, errored: 1, n: 9 });
    failing = false;
    const c = await replica();
    const second = await runCli([...args(dir, c.url, b.url), '--json'], { cwd: dir });
    expect(second.code, second.stderr).toBe(0);
    const s2 = JSON.parse(second.stdout) as Summary & { resumed?: boolean };
    expect(s2).toMatchObject({ runId: s1.runId, resumed: true, complete: true, n: 10, errored: 0 });
  });

  it('every endpoint down: the run stops as an outage does with one endpoint (exit 1, nothing reported as a result)', async () => {
    const dir = tmp();
    boolqData(join(dir, 'q.jsonl'), 12);
    const fail = (): Reply => ({ status: 503, body: { error: { message: 'overloaded' } } });
    const a = await replica(fail);
    const b = await replica(fail);
    const r = await runCli([...args(dir, a.url, b.url), '--max-retries', '1', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    expect(errorLine(r)).toMatch(/all 2 endpoints of openai:m are down|HTTP 503/);
    expect(a.requests.length).toBeGreaterThan(0);
    expect(b.requests.length).toBeGreaterThan(0);
  });

  it('an endpoint given twice or a URL that is not http(s) is a usage error before any call', async () => {
    const dir = tmp();
    boolqData(join(dir, 'q.jsonl'), 2);
    const a = await replica();
    const twice = await runCli([...args(dir, a.url, a.url), '--json'], { cwd: dir });
    expect(twice.code).toBe(2);
    expect(errorLine(twice)).toMatch(/given twice/);
    const bad = await runCli([...args(dir, a.url, 'file:///etc/passwd'), '--json'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(errorLine(bad)).toMatch(/--base-url must be an http/);
    expect(a.requests).toHaveLength(0);
  });
});

describe('an evaluation file with a list of base URLs', () => {
  it('spreads the model over the listed endpoints; a string stays valid; a bad list names the path', async () => {
    const dir = tmp();
    boolqData(join(dir, 'q.jsonl'), 16);
    const a = await replica();
    const b = await replica();
    const single = await replica();
    const yaml = ['datasets:', '  - { id: boolq, data: q.jsonl }', 'models:', `  - { id: openai:m, baseUrl: [${a.url}, ${b.url}] }`, `  - { id: openai:n, baseUrl: ${single.url} }`, 'concurrency: 4', 'store: s.db'].join('\n');
    writeFileSync(join(dir, 'eval.yaml'), `${yaml}\n`);
    const r = await runCli(['run', '--config', 'eval.yaml', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const [m, n] = JSON.parse(r.stdout) as Summary[];
    expect(m).toMatchObject({ n: 16, complete: true, accuracy: 1 });
    expect(m!.endpoints!.map((e) => [e.endpoint, e.calls])).toEqual([
      [a.url, a.requests.length],
      [b.url, b.requests.length],
    ]);
    expect(a.requests.length).toBeGreaterThan(0);
    expect(b.requests.length).toBeGreaterThan(0);
    expect(a.requests.length + b.requests.length).toBe(m!.calls - m!.cachedCalls);
    expect(n!.endpoints).toBeUndefined();
    expect(single.requests.length).toBe(n!.calls - n!.cachedCalls);

    writeFileSync(join(dir, 'bad.yaml'), `${['datasets:', '  - { id: boolq, data: q.jsonl }', 'models:', '  - { id: openai:m, baseUrl: [] }'].join('\n')}\n`);
    const bad = await runCli(['run', '--config', 'bad.yaml', '--json'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(errorLine(bad)).toMatch(/bad\.yaml: \/models\/0\/baseUrl/);
  });
});
