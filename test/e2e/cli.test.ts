/** The CLI as a process: the README's main command, determinism of the random baseline, --help, list, hub loading. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

describe('hpt-bench CLI', () => {
  it("README's main command runs the ladder on the embedded mini split with the random baseline", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const line = readme.split('\n').find((l) => l.includes('./bin/run.js run '))!;
    const args = line.slice(line.indexOf('./bin/run.js run ') + './bin/run.js '.length).trim().split(/\s+/);
    const cwd = mkdtempSync(join(tmpdir(), 'hpt-readme-'));
    const r = await runCli([...args], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/HPI \(lower is better\)\s*│\s*\d\.\d{3}/);
    expect(r.stdout).toMatch(/samples \(n\)\s*│\s*8\b/);
    // default store location, relative to the working directory
    expect(existsSync(join(cwd, '.hpt-bench', 'hpt-bench.db'))).toBe(true);
  });

  it('baseline:random is reproducible per seed and changes with it; oracle solves everything at level 1', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'hpt-seed-')), 's.db');
    const run = async (model: string, seed: string) => {
      const r = await runCli(['run', '--dataset', 'mmlu', '--split', 'mini', '--model', model, '--seed', seed, '--store', store, '--json', '--concurrency', '3']);
      expect(r.code).toBe(0);
      const s = JSON.parse(r.stdout) as Record<string, unknown>;
      delete s.runId;
      return s;
    };
    const a = await run('baseline:random', '1');
    const b = await run('baseline:random', '1');
    expect(b).toEqual(a);
    const seeds = await Promise.all(['2', '3', '4', '5'].map((s) => run('baseline:random', s)));
    expect(seeds.some((s) => s.hpi !== a.hpi)).toBe(true);
    const oracle = await run('baseline:oracle', '1');
    expect(oracle).toMatchObject({ n: 6, hpi: 1, accuracy: 1, calls: 6, levelCounts: { '1': 6, '2': 0, unsolved: 0 } });
  });

  it('--samples N is the deprecated alias of --replicates N: one warning line on stderr, the same run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-replicates-'));
    const args = ['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--seed', '3', '--limit', '2', '--json'];
    const a = await runCli([...args, '--replicates', '2', '--store', join(dir, 'a.db')]);
    const b = await runCli([...args, '--samples', '2', '--store', join(dir, 'b.db')]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(a.stderr).toBe('');
    expect(b.stderr.trim().split('\n')).toEqual(['warning: --samples is deprecated and will be removed: use --replicates (replicates per sample)']);
    const strip = (out: string) => {
      const s = JSON.parse(out) as Record<string, unknown>;
      delete s.runId;
      return s;
    };
    expect(strip(b.stdout)).toEqual(strip(a.stdout));
    expect(strip(a.stdout)).toMatchObject({ n: 4, samples: 2 });
  });

  it('run --help documents every flag of the issue', async () => {
    const r = await runCli(['run', '--help']);
    expect(r.code).toBe(0);
    for (const f of ['--dataset', '--data', '--limit', '--model', '--base-url', '--concurrency', '--compat', '--seed', '--store', '--json', '--out', '--knowledge-model', '--api-key-env', '--temperature', '--top-p', '--max-tokens', '--on-invalid', '--plugin']) {
      expect(r.stdout).toContain(f);
    }
  });

  it('list --json gives every contribution kind with the built-ins', async () => {
    const r = await runCli(['list', '--json']);
    expect(r.code).toBe(0);
    const l = JSON.parse(r.stdout) as Record<string, { id: string; origin: string; levels?: string[] }[]>;
    expect(l.datasets!.map((d) => d.id)).toEqual(expect.arrayContaining(['boolq', 'csqa', 'mmlu', 'gsm8k']));
    expect(l.ladders!.find((x) => x.id === 'hpf')!.levels).toEqual(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge']);
    expect(l.models!.map((m) => m.id).sort()).toEqual(['baseline', 'openai']);
    expect(l.scorers!.map((m) => m.id).sort()).toEqual([
      'bleu', 'boolean', 'choice', 'code-exec',
      'hierarchy', 'hierarchy-hit-rate', 'hierarchy-list', 'hierarchy-number', 'hierarchy-paper', 'hierarchy-string', 'hierarchy-structure',
      'numeric', 'rouge',
    ]);
    expect(l.datasets!.map((d) => d.id)).toEqual(expect.arrayContaining(['binary-tree', 'multiple-tree', 'json', 'formula', 'paper']));
    expect(l.strategies!.every((s) => s.origin === 'builtin')).toBe(true);
    const one = await runCli(['list', 'ladders', '--json']);
    expect(Object.keys(JSON.parse(one.stdout) as object)).toEqual(['ladders']);
  });

  it('without --data a dataset is read from the Hugging Face hub (local fixture server) and cached', async () => {
    const rows = Array.from({ length: 7 }, (_, i) => ({ question: `is ${i} even`, passage: `${i} is a number.`, answer: i % 2 === 0 }));
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/rows' && u.searchParams.get('dataset') === 'google/boolq' && u.searchParams.get('split') === 'validation') {
        const offset = Number(u.searchParams.get('offset'));
        const length = Number(u.searchParams.get('length'));
        const page = rows.slice(offset, offset + length).map((row, j) => ({ row_idx: offset + j, row, truncated_cells: [] }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ features: [], rows: page, num_rows_total: rows.length }));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = mkdtempSync(join(tmpdir(), 'hpt-hub-'));
    const args = ['run', '--dataset', 'boolq', '--model', 'baseline:oracle', '--cache-dir', join(dir, 'cache'), '--store', join(dir, 's.db'), '--json'];
    const env = { HPT_BENCH_HF_DATASETS_SERVER: base, HF_ENDPOINT: base };
    try {
      const r = await runCli(args, { env });
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toMatchObject({ dataset: 'boolq', n: 7, hpi: 1 });
      const requests = seen.length;
      expect(seen.some((u) => u.startsWith('/rows?'))).toBe(true);
      const again = await runCli(args, { env });
      expect(JSON.parse(again.stdout)).toMatchObject({ n: 7 });
      expect(seen.length).toBe(requests); // served from the cache
      expect(readdirSync(join(dir, 'cache')).length).toBeGreaterThan(0);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
