/**
 * `hpt-bench view` (issue 29), the JSON API: the server factory (`createViewServer`) over a temp SQLite store made by
 * the built CLI — two BoolQ mini runs (baseline:random, baseline:oracle) and a run against a scripted OpenAI-compatible
 * server whose replies carry markup and reasoning — checked against the store read independently with SQL; plus the
 * command itself (prints its URL, serves, stops on SIGINT) and the server's guards (loopback Host, GET only, CSP).
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentOwner, RunStore } from '@hpt-bench/core';
import { createViewServer, type ListeningView } from '../../packages/cli/src/view/server.js';
import { BIN, ROOT, runCli } from '../helpers/cli.js';
import { startOpenAIServer, type TestServer } from '../helpers/openai-server.js';

const HOSTILE = 'True <img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';

let dir: string;
let storePath: string;
let store: RunStore;
let view: ListeningView;
let server: TestServer;
let random: string;
let oracle: string;
let hostile: string;
let flaky: string;

const get = async (path: string, init?: RequestInit) => {
  const r = await fetch(new URL(path, view.url), init);
  return { status: r.status, headers: r.headers, body: (await r.json()) as any };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-view-api-'));
  storePath = join(dir, 's.db');
  const ok = (r: { code: number | null; stdout: string; stderr: string }) => {
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { runId: string };
  };
  random = ok(await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--store', storePath, '--json'])).runId;
  oracle = ok(await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:oracle', '--store', storePath, '--json'])).runId;
  // model "flaky" fails question 1 (an errored sample: its run fails, incomplete); "hostile" answers with markup
  server = await startOpenAIServer((r) =>
    r.model === 'flaky' && r.messages.some((m) => m.content.includes('question 1 ')) ? { status: 500, body: { error: { message: 'boom <b>x</b>' } } } : { text: HOSTILE, reasoning: { field: 'reasoning_content', text: 'thinking <b>bold</b>' }, reasoningTokens: 7 },
  );
  const data = join(dir, 'q.jsonl');
  writeFileSync(data, `${Array.from({ length: 5 }, (_, i) => JSON.stringify({ question: `is question ${i} true`, passage: `passage ${i}`, answer: i % 2 === 0 })).join('\n')}\n`);
  hostile = ok(await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'openai:hostile', '--base-url', server.url, '--store', storePath, '--json'], { env: { OPENAI_API_KEY: 'sk-test' } })).runId;
  const f = await runCli(['run', '--dataset', 'boolq', '--data', data, '--limit', '3', '--model', 'openai:flaky', '--base-url', server.url, '--max-retries', '0', '--store', storePath, '--json'], { env: { OPENAI_API_KEY: 'sk-test' } });
  expect(f.code, f.stderr).toBe(1);
  flaky = (JSON.parse(f.stdout) as { runId: string }).runId;
  store = new RunStore(storePath, { readonly: true });
  view = await createViewServer({ store, label: storePath, resamples: 200, pollMs: 100 }).listen(0);
});

afterAll(async () => {
  await view?.close();
  store?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('hpt-bench view API', () => {
  it('lists the runs with their counts and HPI, filters them, and lists the filter values', async () => {
    const { status, body } = await get('/api/runs');
    expect(status).toBe(200);
    expect(body.total).toBe(4);
    expect(body.runs.map((r: { id: string }) => r.id).sort()).toEqual([random, oracle, hostile, flaky].sort());
    const db = new Database(storePath, { readonly: true });
    try {
      for (const r of body.runs) {
        const sql = db.prepare("SELECT COUNT(*) AS n, SUM(hpi) AS s, SUM(solved) AS solved FROM samples WHERE run_id = ? AND status = 'done'").get(r.id) as { n: number; s: number; solved: number };
        expect(r.done).toBe(sql.n);
        if (r.id === flaky) {
          expect(r).toMatchObject({ status: 'failed', errored: 1, hpi: null, accuracy: null });
          continue;
        }
        expect(r.hpi).toBeCloseTo(sql.s / sql.n, 12);
        expect(r.accuracy).toBeCloseTo(sql.solved / sql.n, 12);
        expect(r.ladder).toBe('hpf');
        expect(r.levels).toHaveLength(5);
      }
    } finally {
      db.close();
    }
    expect(body.facets.model).toEqual(['baseline:oracle', 'baseline:random', 'openai:flaky', 'openai:hostile']);
    expect(body.facets.status).toEqual(['completed', 'failed']);
    const only = await get('/api/runs?model=baseline:oracle');
    expect(only.body.runs.map((r: { id: string }) => r.id)).toEqual([oracle]);
    expect(only.body.total).toBe(4);
    expect((await get('/api/runs?status=running')).body.runs).toEqual([]);
    expect((await get('/api/runs?status=failed')).body.runs.map((r: { id: string }) => r.id)).toEqual([flaky]);
    expect((await get('/api/runs?dataset=boolq&ladder=hpf')).body.runs).toHaveLength(4);
  });

  it('gives a run page with the report tables, usage per level with reasoning tokens, and its progress', async () => {
    const { status, body } = await get(`/api/runs/${hostile}`);
    expect(status).toBe(200);
    expect(body.run.id).toBe(hostile);
    expect(body.tablesError).toBeUndefined();
    const ids = body.tables.map((t: { id: string }) => t.id);
    expect(ids).toContain('runs');
    expect(ids).toContain('usage');
    const usage = body.tables.find((t: { id: string }) => t.id === 'usage');
    expect(usage.columns.map((c: { label: string }) => c.label).join(' ')).toMatch(/reasoning/i);
    expect(body.usage.length).toBeGreaterThan(0);
    expect(body.usage.every((u: { reasoningTokens?: number; calls: number }) => u.reasoningTokens === 7 * u.calls)).toBe(true);
    expect(body.progress).toMatchObject({ status: 'completed', done: 5, errored: 0, etaSeconds: 0 });
    const runs = body.tables.find((t: { id: string }) => t.id === 'runs');
    expect(runs.rows).toHaveLength(1);
    expect(runs.rows[0].some((c: { ci?: string }) => typeof c.ci === 'string')).toBe(true);
    // the Run cell: the short id (the suffix after the timestamp), the full id on hover
    expect(runs.rows[0][0]).toEqual({ text: hostile.slice(hostile.lastIndexOf('-') + 1), title: hostile });
  });

  it('lists a completed run\'s charts and serves each as SVG; a running or unknown run has none', async () => {
    const { status, body } = await get(`/api/runs/${random}/charts`);
    expect(status).toBe(200);
    const ids = body.charts.map((c: { id: string }) => c.id);
    expect(ids).toContain('levels');
    const levels = body.charts.find((c: { id: string }) => c.id === 'levels');
    const svg = await fetch(new URL(levels.src, view.url));
    expect(svg.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    const text = await svg.text();
    expect(text.startsWith('<svg')).toBe(true);
    expect(text).not.toMatch(/<script/i);
    expect((await fetch(new URL(`/api/runs/${random}/charts/nope.svg`, view.url))).status).toBe(404);
    expect((await get('/api/runs/no-such-run/charts')).status).toBe(404);
  });

  it('pages a run\'s samples and filters them by outcome and id', async () => {
    const all = (await get(`/api/runs/${random}/samples?limit=500`)).body;
    expect(all.total).toBe(8);
    const page = (await get(`/api/runs/${random}/samples?offset=2&limit=3`)).body;
    expect(page.total).toBe(8);
    expect(page.offset).toBe(2);
    expect(page.samples.map((s: { index: number }) => s.index)).toEqual(all.samples.slice(2, 5).map((s: { index: number }) => s.index));
    const db = new Database(storePath, { readonly: true });
    try {
      const attempts = db.prepare('SELECT idx, COUNT(*) AS c FROM attempts WHERE run_id = ? GROUP BY idx').all(random) as { idx: number; c: number }[];
      for (const a of attempts) expect(all.samples.find((s: { index: number }) => s.index === a.idx).attempts).toBe(a.c);
    } finally {
      db.close();
    }
    const solved = (await get(`/api/runs/${hostile}/samples?outcome=solved`)).body;
    const unsolved = (await get(`/api/runs/${hostile}/samples?outcome=unsolved`)).body;
    expect(solved.total + unsolved.total).toBe(5);
    expect(solved.samples.every((s: { solved: number }) => s.solved > 0)).toBe(true);
    expect(unsolved.samples.every((s: { solved: number; level: number | null }) => s.solved === 0)).toBe(true);
    const id = all.samples[3].sampleId as string;
    const byId = (await get(`/api/runs/${random}/samples?sampleId=${encodeURIComponent(id)}`)).body;
    expect(byId.samples.map((s: { index: number }) => s.index)).toEqual([all.samples[3].index]);
    // LIKE pattern characters are matched literally
    expect((await get(`/api/runs/${random}/samples?q=%25`)).body.total).toBe(0);
    expect((await get(`/api/runs/${random}/samples?limit=100000`)).body.limit).toBe(8);
  });

  it('gives one sample\'s trace: prompts, reply, reasoning, extraction rule and verdict, text as stored', async () => {
    const { status, body } = await get(`/api/runs/${hostile}/samples/0`);
    expect(status).toBe(200);
    expect(body.ladder).toHaveLength(5);
    const s = body.sample;
    expect(s.index).toBe(0);
    expect(s.attempts.length).toBeGreaterThan(0);
    const a = s.attempts[0];
    expect(a.level).toBe(1);
    expect(a.extraction.rule).toBeTruthy();
    const call = a.calls.at(-1);
    expect(call.output).toBe(HOSTILE);
    expect(call.reasoning).toBe('thinking <b>bold</b>');
    expect(call.messages.some((m: { role: string; content: string }) => m.role === 'user' && m.content.includes('question 0'))).toBe(true);
    expect((await get(`/api/runs/${hostile}/samples/99`)).status).toBe(404);
    expect((await get(`/api/runs/nope/samples/0`)).status).toBe(404);
    expect((await get(`/api/runs/${hostile}/samples/x`)).status).toBe(400);
  });

  it('shows an errored sample and a failed run: the reason instead of a trace, no tables', async () => {
    const errored = (await get(`/api/runs/${flaky}/samples?outcome=errored`)).body;
    expect(errored.total).toBe(1);
    expect(errored.samples[0]).toMatchObject({ index: 1, status: 'errored', level: null });
    expect(errored.samples[0].error).toContain('boom');
    const detail = await get(`/api/runs/${flaky}/samples/1`);
    expect(detail.status).toBe(200);
    expect(detail.body.sample).toBeNull();
    expect(detail.body.error).toContain('boom');
    const page = (await get(`/api/runs/${flaky}`)).body;
    expect(page.tables).toEqual([]);
    expect(page.tablesError).toMatch(/^the run failed: 1 of 3 samples errored/);
    const done = (await get(`/api/runs/${flaky}/samples`)).body.samples.filter((x: { status: string }) => x.status === 'done');
    expect(page.progress).toMatchObject({ status: 'failed', done: 2, errored: 1 });
    expect(page.progress.hpi).toBeCloseTo(done.reduce((a: number, x: { hpi: number }) => a + x.hpi, 0) / 2, 12);
    expect(page.progress.accuracy).toBe(done.filter((x: { solved: number }) => x.solved > 0).length / 2);
  });

  it('compares two runs: paired statistics, tests, transitions, fixed and broken samples', async () => {
    const { status, body } = await get(`/api/compare/${oracle}/${random}`);
    expect(status).toBe(200);
    expect(body.paired).toBe(8);
    expect(body.a.runId).toBe(oracle);
    expect(body.a.hpi).toBe(1);
    expect(body.hpiDiff).toBeCloseTo(body.a.hpi - body.b.hpi, 12);
    expect(body.tests.samples).toBe(8);
    expect(typeof body.tests.hpi.permutation.p).toBe('number');
    expect(body.transitions.counts.flat().reduce((x: number, y: number) => x + y, 0)).toBe(8);
    expect(Array.isArray(body.fixed) && Array.isArray(body.broken)).toBe(true);
    expect((await get(`/api/compare/${oracle}/${oracle}`)).status).toBe(400);
    expect((await get(`/api/compare/${oracle}/nope`)).status).toBe(404);
  });

  it('knows a run\'s total from the run itself (samplesTotal, counted before it started), with no other run to go by', async () => {
    const d = mkdtempSync(join(tmpdir(), 'hpt-view-total-'));
    try {
      const path = join(d, 'one.db');
      const r = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--replicates', '2', '--store', path, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const id = (JSON.parse(r.stdout) as { runId: string }).runId;
      const one = new RunStore(path, { readonly: true });
      try {
        expect(one.getRun(id)!.config.samplesTotal).toBe(16);
        const server = createViewServer({ store: one, label: path });
        const progress = (await (await server.app.request(`http://127.0.0.1/api/runs/${id}/progress`, { headers: { host: '127.0.0.1' } })).json()) as { total: number; done: number };
        expect(progress).toMatchObject({ total: 16, done: 16 });
      } finally {
        one.close();
      }
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('tells a running run whose process is gone (interrupted) from one a live process executes', async () => {
    const d = mkdtempSync(join(tmpdir(), 'hpt-view-alive-'));
    try {
      const path = join(d, 'alive.db');
      const w = new RunStore(path);
      const base = { dataset: 'boolq', model: 'baseline:random', mode: 'manual', config: {} };
      // a pid that does not exist on this host, and this very process
      w.createRun({ id: '20261127T000000-dead00', ...base, owner: `${hostname()}:2147483646` });
      w.createRun({ id: '20261127T000000-live00', ...base, owner: currentOwner() });
      w.close();
      const ro = new RunStore(path, { readonly: true });
      try {
        const server = createViewServer({ store: ro, label: path });
        const progress = async (id: string) => (await (await server.app.request(`http://127.0.0.1/api/runs/${id}/progress`, { headers: { host: '127.0.0.1' } })).json()) as { status: string; alive: boolean | null };
        expect(await progress('20261127T000000-dead00')).toMatchObject({ status: 'running', alive: false });
        expect(await progress('20261127T000000-live00')).toMatchObject({ status: 'running', alive: true });
      } finally {
        ro.close();
      }
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
    // a completed run: not a question
    expect((await get(`/api/runs/${random}/progress`)).body.alive).toBeNull();
  });

  it('streams a finished run\'s progress and ends the stream', async () => {
    const r = await fetch(new URL(`/api/runs/${oracle}/events`, view.url));
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await r.text();
    expect(text).toMatch(/event: progress\ndata: \{[^\n]*"done":8/);
    expect(text).toMatch(/event: end\n/);
    expect((await get('/api/runs/nope/events')).status).toBe(404);
  });

  it('serves the page, its module and the vendored preact and htm; refuses other hosts and writes', async () => {
    const page = await fetch(view.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(await page.text()).toContain('<script type="module" src="/app.js">');
    for (const p of ['/app.js', '/vendor/preact.mjs', '/vendor/hooks.mjs', '/vendor/htm.mjs']) {
      const r = await fetch(new URL(p, view.url));
      expect(r.status, p).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/javascript/);
      expect(await r.text()).not.toMatch(/from\s*["']preact["']/);
    }
    const css = await (await fetch(new URL('/style.css', view.url))).text();
    expect(css).toContain('--good:#1a7f37'); // the static report's design
    expect((await get('/vendor/../package.json')).status).toBe(404);
    // fetch cannot set Host: a raw request, as a page of another site reaching 127.0.0.1 through its DNS name would send
    const foreign = await new Promise<number>((resolve, reject) => {
      const req = request(new URL('/api/runs', view.url), { headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(foreign).toBe(403);
    expect((await get('/api/runs', { method: 'POST' })).status).toBe(405);
  });

  it('runs as a command: prints its URL on 127.0.0.1, serves, and stops cleanly on SIGINT', async () => {
    const child = spawn(process.execPath, [BIN, 'view', '--store', storePath, '--port', '0', '--json'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${stderr}`)), 20_000);
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /"url":"(http:\/\/127\.0\.0\.1:\d+\/)"/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
    try {
      const r = await fetch(new URL('/api/runs', url));
      expect(((await r.json()) as { total: number }).total).toBe(4);
      // an open event stream does not keep the server from stopping
      const stream = await fetch(new URL(`/api/runs/${oracle}/events`, url));
      expect(stream.status).toBe(200);
    } finally {
      child.kill('SIGINT');
    }
    const t0 = Date.now();
    const end = await done;
    expect(end.code, stderr).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(stderr).toMatch(/stopped \(SIGINT\)/);
  });
});
