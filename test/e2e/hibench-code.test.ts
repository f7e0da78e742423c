/**
 * End-to-end (issue 15): the HiBench Code scenario through the built CLI as a process — `generate hibench/code --data`
 * (byte-identical, schema-valid, 1,134 records from the shared code.jsonl), `run` with the oracle baseline solving at
 * level 1 in both compat modes, the toolkit folder layout with its load-time warnings, a generated file read back,
 * and the HiBench report view's Code tables.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertRecord } from '@hpt-bench/hibench';
import { ROOT, runCli, SHARED } from '../helpers/cli.js';
import { jsonLines, sha256File } from '../helpers/files.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-hibench-code-'));
const CODE = join(SHARED, 'data/hibench-code/code.jsonl');
const FIXTURE = join(ROOT, 'test/fixtures/hibench-code');
const sha = sha256File;
const lines = jsonLines;

describe('hpt-bench generate hibench/code', () => {
  it('writes 189 x 2 x 3 = 1,134 schema-valid records with language and code, byte-identical for a seed', async () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    const ra = await runCli(['generate', 'hibench/code', '--data', CODE, '--out', a, '--json']);
    expect(ra.code, ra.stderr).toBe(0);
    expect(JSON.parse(ra.stdout)).toMatchObject({ records: 1134, tasks: { SpaceComplexity: 567, TimeComplexity: 567 } });
    expect((await runCli(['generate', 'hibench/code', '--data', CODE, '--out', b])).code).toBe(0);
    expect(sha(a)).toBe(sha(b));
    const recs = lines(readFileSync(a, 'utf8'));
    for (const r of recs) assertRecord(r, `record ${r.id as string}`);
    expect(recs[0]).toMatchObject({ scenario: 'code', language: 'python', preset: 'python', target: 'O(1)' });
    expect(typeof recs[0]!.code).toBe('string');
    const cpp = await runCli(['generate', 'hibench/code', '--data', CODE, '--language', 'cpp', '--task', 'TimeComplexity', '--icl', 'few', '--out', '-']);
    expect(cpp.code, cpp.stderr).toBe(0);
    expect(lines(cpp.stdout)).toHaveLength(100);
  });

  it('without --data, or with an unknown filter value: one clear line, nothing written', async () => {
    const none = await runCli(['generate', 'hibench/code', '--out', join(dir, 'never.jsonl')]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/give --data/);
    expect(none.stderr).not.toMatch(/\n\s+at /);
    const bad = await runCli(['generate', 'hibench/code', '--data', CODE, '--language', 'java', '--out', join(dir, 'never.jsonl')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/java/);
  });
});

describe('hpt-bench run --dataset hibench/code', () => {
  it('the oracle solves at level 1 (strict and reference), and the HiBench report shows the Code tables', async () => {
    const store = join(dir, 'oracle.db');
    for (const compat of ['strict', 'reference']) {
      const r = await runCli(['run', '--dataset', 'hibench/code', '--data', CODE, '--model', 'baseline:oracle', '--limit', '20', '--compat', compat, '--store', store, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout) as { n: number; hpi: number; levelCounts: Record<string, number>; metrics: { hibenchAll: { scenarios: Record<string, number>; dimensions: Record<string, number> } } };
      expect(s).toMatchObject({ n: 20, hpi: 1, levelCounts: { '1': 20 } });
      expect(s.metrics.hibenchAll.scenarios).toEqual({ code: 1 });
      expect(s.metrics.hibenchAll.dimensions).toEqual({ 'Analytical Reasoning': 1 });
    }
    const report = await runCli(['report', '--store', store, '--format', 'md']);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/\| Model \| SpaceComplexity \| TimeComplexity \| Avg \|/);
    expect(report.stdout).toMatch(/\| Model \| Analytical Reasoning \|/);
  });

  it('runs the toolkit folder layout with load-time warnings, and a generated file like the source', async () => {
    const store = join(dir, 'folder.db');
    const r = await runCli(['run', '--dataset', 'hibench/code', '--data', FIXTURE, '--model', 'baseline:oracle', '--store', store, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ n: 30, hpi: 1 });
    expect(r.stderr).toMatch(/python\/3 does not parse as python/);
    expect(r.stderr).toMatch(/labels question 4 but pythonSelected\/4\.py does not exist/);

    const file = join(dir, 'gen.jsonl');
    expect((await runCli(['generate', 'hibench/code', '--data', CODE, '--out', file])).code).toBe(0);
    const common = ['--model', 'baseline:random', '--seed', '3', '--limit', '30', '--store', join(dir, 'rand.db'), '--json'];
    const fromSource = await runCli(['run', '--dataset', 'hibench/code', '--data', CODE, ...common]);
    const fromFile = await runCli(['run', '--dataset', 'hibench/code', '--data', file, ...common]);
    expect(fromSource.code, fromSource.stderr).toBe(0);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const a = JSON.parse(fromSource.stdout) as { hpi: number; levelCounts: Record<string, number> };
    const b = JSON.parse(fromFile.stdout) as { hpi: number; levelCounts: Record<string, number> };
    expect(b.hpi).toBe(a.hpi);
    expect(b.levelCounts).toEqual(a.levelCounts);
  });
});
