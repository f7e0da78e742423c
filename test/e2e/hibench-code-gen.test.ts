/**
 * End-to-end (issue 15): hibench/code-gen through the built CLI as a process — `generate` (1,800 schema-valid records
 * with language and code, byte-identical for a seed, filters, a clear error for a bad filter value), `run` with the
 * oracle baseline without --data (generated on the fly) giving HPI 1.0 in both compat modes, and `run --data` of a
 * generate file scoring exactly like the on-the-fly records.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertRecord } from '@hpt-bench/hibench';
import { runCli } from '../helpers/cli.js';
import { jsonLines, sha256File } from '../helpers/files.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-hibench-code-gen-'));
const sha = sha256File;
const lines = jsonLines;

describe('hpt-bench generate hibench/code-gen', () => {
  it('writes 1,800 schema-valid records with language and code, byte-identical for a seed, different for another', async () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    const c = join(dir, 'c.jsonl');
    const ra = await runCli(['generate', 'hibench/code-gen', '--seed', '3', '--out', a, '--json']);
    expect(ra.code, ra.stderr).toBe(0);
    expect(JSON.parse(ra.stdout)).toMatchObject({ records: 1800, tasks: { SpaceComplexity: 900, TimeComplexity: 900 } });
    expect((await runCli(['generate', 'hibench/code-gen', '--seed', '3', '--out', b])).code).toBe(0);
    expect((await runCli(['generate', 'hibench/code-gen', '--seed', '4', '--out', c])).code).toBe(0);
    expect(sha(a)).toBe(sha(b));
    expect(sha(a)).not.toBe(sha(c));
    const recs = lines(readFileSync(a, 'utf8'));
    for (const r of recs) assertRecord(r, `record ${r.id as string}`);
    expect(recs[0]).toMatchObject({ scenario: 'code-gen', preset: 'easy', language: 'python', seed: 3, matcher: { type: 'string', bigo: true } });
    expect(recs[0]!.code).toMatch(/^def solve\(n, m\):/m);
    expect(recs[0]!.target).toMatch(/^O\(.+\)$/);
    const part = await runCli(['generate', 'hibench/code-gen', '--seed', '3', '--preset', 'hard', '--language', 'cpp', '--task', 'TimeComplexity', '--icl', 'few', '--out', '-']);
    expect(part.code, part.stderr).toBe(0);
    const hard = lines(part.stdout);
    expect(hard).toHaveLength(50);
    expect(hard.every((r) => r.language === 'cpp' && r.preset === 'hard')).toBe(true);
    expect(hard).toEqual(recs.filter((r) => r.preset === 'hard' && r.language === 'cpp' && r.task === 'TimeComplexity' && r.icl === 'few'));
  });

  it('an unknown preset or language: one clear line, nothing written', async () => {
    const bad = await runCli(['generate', 'hibench/code-gen', '--preset', 'python', '--out', join(dir, 'never.jsonl')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/python/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const lang = await runCli(['generate', 'hibench/code-gen', '--language', 'java', '--out', join(dir, 'never.jsonl')]);
    expect(lang.code).not.toBe(0);
    expect(lang.stderr).toMatch(/java/);
  });
});

describe('hpt-bench run --dataset hibench/code-gen', () => {
  it('without --data: the oracle solves everything at level 1 (HPI 1.0), strict and reference', async () => {
    for (const compat of ['strict', 'reference']) {
      const r = await runCli(['run', '--dataset', 'hibench/code-gen', '--model', 'baseline:oracle', '--preset', 'hard', '--icl', 'zero', '--compat', compat, '--store', join(dir, `oracle-${compat}.db`), '--json']);
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout) as { n: number; hpi: number; levelCounts: Record<string, number>; metrics: { hibenchAll: { scenarios: Record<string, number>; dimensions: Record<string, number> } } };
      expect(s).toMatchObject({ n: 200, hpi: 1, levelCounts: { '1': 200, unsolved: 0 } });
      expect(s.metrics.hibenchAll.scenarios).toEqual({ 'code-gen': 1 });
      expect(s.metrics.hibenchAll.dimensions).toEqual({ 'Analytical Reasoning': 1 });
    }
  });

  it('with --data of a generate file: the same samples and scores as generated on the fly', async () => {
    const file = join(dir, 'gen.jsonl');
    expect((await runCli(['generate', 'hibench/code-gen', '--seed', '5', '--out', file])).code).toBe(0);
    const common = ['--model', 'baseline:random', '--seed', '5', '--limit', '60', '--language', 'cpp', '--json'];
    const onTheFly = await runCli(['run', '--dataset', 'hibench/code-gen', ...common, '--store', join(dir, 'a.db')]);
    const fromFile = await runCli(['run', '--dataset', 'hibench/code-gen', '--data', file, ...common, '--store', join(dir, 'b.db')]);
    expect(onTheFly.code, onTheFly.stderr).toBe(0);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const a = JSON.parse(onTheFly.stdout) as { n: number; hpi: number; levelCounts: Record<string, number> };
    const b = JSON.parse(fromFile.stdout) as typeof a;
    expect(a.n).toBe(60);
    expect(b.hpi).toBe(a.hpi);
    expect(b.levelCounts).toEqual(a.levelCounts);
  });
});
