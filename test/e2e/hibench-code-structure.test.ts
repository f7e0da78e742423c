/**
 * End-to-end (issue 15, code-structure): `generate hibench/code-structure --data code.jsonl` through the built CLI
 * (the manifest entry preloads tree-sitter, so the synchronous generate can parse) is byte-identical for a seed and
 * schema-valid; `run` with the oracle baseline gives HPI 1.0 in strict and reference mode, from the source file and
 * from the generated file.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertRecord } from '@hpt-bench/hibench';
import { runCli, SHARED } from '../helpers/cli.js';
import { jsonLines, sha256File } from '../helpers/files.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-hibench-code-structure-'));
/** The shared data folder beside the clone (../shared/data). */
const DATA = join(SHARED, 'data');
const CODE = join(DATA, 'hibench-code/code.jsonl');
const sha = sha256File;
const lines = jsonLines;

describe('hpt-bench generate hibench/code-structure', () => {
  it('writes 1,881 schema-valid records (627 questions x 3 ICL modes), byte-identical for a seed; filters and bad values', async () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    const ra = await runCli(['generate', 'hibench/code-structure', '--data', CODE, '--seed', '5', '--out', a, '--json']);
    expect(ra.code, ra.stderr).toBe(0);
    expect(JSON.parse(ra.stdout)).toMatchObject({ records: 1881, tasks: { class_methods: 603, loop_depth: 567, enclosing_blocks: 567, callees: 144 } });
    expect((await runCli(['generate', 'hibench/code-structure', '--data', CODE, '--seed', '5', '--out', b])).code).toBe(0);
    expect(sha(a)).toBe(sha(b));
    const recs = lines(readFileSync(a, 'utf8'));
    for (const r of recs) assertRecord(r, `record ${r.id as string}`);
    expect(recs[0]).toMatchObject({ scenario: 'code-structure', task: 'class_methods', language: 'python', preset: 'python', seed: 5 });

    const part = await runCli(['generate', 'hibench/code-structure', '--data', CODE, '--task', 'loop_depth', '--language', 'cpp', '--icl', 'zero', '--out', '-']);
    expect(part.code, part.stderr).toBe(0);
    expect(lines(part.stdout)).toHaveLength(100);
    const bad = await runCli(['generate', 'hibench/code-structure', '--data', CODE, '--task', 'loop-depth', '--out', join(dir, 'never.jsonl')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/loop-depth/);
    const none = await runCli(['generate', 'hibench/code-structure', '--out', join(dir, 'never.jsonl')]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/give --data/);
  });
});

describe('hpt-bench run --dataset hibench/code-structure', () => {
  it('the oracle solves every sample at level 1 (HPI 1.0), strict and reference, from code.jsonl and from generated records', async () => {
    const gen = join(dir, 'gen.jsonl');
    expect((await runCli(['generate', 'hibench/code-structure', '--data', CODE, '--out', gen])).code).toBe(0);
    for (const [data, compat] of [
      [CODE, 'strict'],
      [CODE, 'reference'],
      [gen, 'strict'],
    ] as const) {
      const store = join(dir, `oracle-${compat}-${data === gen ? 'gen' : 'src'}.db`);
      const r = await runCli(['run', '--dataset', 'hibench/code-structure', '--data', data, '--model', 'baseline:oracle', '--compat', compat, '--store', store, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout) as { n: number; hpi: number; levelCounts: Record<string, number>; metrics: { hibenchAll: { scenarios: Record<string, number>; dimensions: Record<string, number> } } };
      expect(s).toMatchObject({ n: 1881, hpi: 1, levelCounts: { '1': 1881, unsolved: 0 } });
      expect(s.metrics.hibenchAll.scenarios).toEqual({ 'code-structure': 1 });
      expect(s.metrics.hibenchAll.dimensions).toEqual({ 'Local Relationship Awareness': 1, 'Global Structural Understanding': 1 });
    }
  });

  it('the random baseline does not solve everything (the scorer can fail)', async () => {
    const r = await runCli(['run', '--dataset', 'hibench/code-structure', '--data', CODE, '--model', 'baseline:random', '--seed', '3', '--limit', '60', '--store', join(dir, 'random.db'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as { n: number; hpi: number; levelCounts: Record<string, number> };
    expect(s.n).toBe(60);
    expect(s.hpi).toBeGreaterThan(1);
  });
});
