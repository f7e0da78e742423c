/**
 * End-to-end (issue 15): `hpt-bench generate hibench/paper` and `hpt-bench run --dataset hibench/paper` through the HPF
 * ladder with the oracle baseline, the built CLI as a process: generated records (demo papers, our QASPER fixture) and
 * the toolkit's released records (the shared first three of each dev file, read in place).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertRecord } from '@hpt-bench/hibench';
import { ROOT, SHARED, runCli } from '../helpers/cli.js';
import { jsonLines, sha256File } from '../helpers/files.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-paper-'));
const sha = sha256File;
const lines = jsonLines;
const shared = (task: string) => join(SHARED, 'data/hibench-paper', `paper-${task}-dev-first3.json`);
const FIXTURE = join(ROOT, 'test/fixtures/hibench-paper/qasper-mini.json');

interface Summary {
  n: number;
  hpi: number;
  accuracy: number;
  levelCounts: Record<string, number>;
  threshold?: number;
  metrics: { meanScore: number; hibench: { tasks: Record<string, number>; dimensions: Record<string, number>; scenarios: Record<string, number> } };
}

describe('hpt-bench generate hibench/paper', () => {
  it('writes the demo-paper suite with a document field, byte-identical for a seed, schema-valid', async () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    const c = join(dir, 'c.jsonl');
    const ra = await runCli(['generate', 'hibench/paper', '--seed', '1', '--out', a, '--json']);
    expect(ra.code).toBe(0);
    expect((JSON.parse(ra.stdout) as { records: number }).records).toBe(42);
    expect((await runCli(['generate', 'hibench/paper', '--seed', '1', '--out', b])).code).toBe(0);
    expect(sha(a)).toBe(sha(b));
    expect((await runCli(['generate', 'hibench/paper', '--seed', '2', '--out', c])).code).toBe(0);
    expect(sha(c)).not.toBe(sha(a));
    const records = lines(readFileSync(a, 'utf8'));
    for (const r of records) {
      assertRecord(r, `record ${r.id as string}`);
      expect(r.scenario).toBe('paper');
      expect(typeof r.document).toBe('object');
    }
    expect(records.filter((r) => r.task === 'disordered_section')).toHaveLength(9);
  });

  it('takes QASPER papers from --filter source', async () => {
    const out = join(dir, 'fx.jsonl');
    const r = await runCli(['generate', 'hibench/paper', '--filter', `source=${FIXTURE}`, '--icl', 'zero', '--representation', 'plain', '--out', out, '--json']);
    expect(r.code).toBe(0);
    const records = lines(readFileSync(out, 'utf8'));
    expect(records).toHaveLength(8);
    expect(records.every((x) => x.representation === 'plain' && !(x.question as string).includes('<<<'))).toBe(true);
  });
});

describe('hpt-bench run --dataset hibench/paper --model baseline:oracle', () => {
  it('solves every generated sample at level 1 (strict, --threshold 0.5)', async () => {
    const data = join(dir, 'run.jsonl');
    expect((await runCli(['generate', 'hibench/paper', '--seed', '1', '--out', data])).code).toBe(0);
    const r = await runCli(['run', '--dataset', 'hibench/paper', '--data', data, '--model', 'baseline:oracle', '--threshold', '0.5', '--store', join(dir, 's.db'), '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as Summary;
    expect(s.n).toBe(42);
    expect(s.levelCounts['1']).toBe(42);
    expect(s.hpi).toBe(1);
    expect(s.threshold).toBe(0.5);
    expect(s.metrics.hibench.scenarios['paper']).toBe(1);
    expect(s.metrics.hibench.dimensions['Textual Reasoning']).toBe(1);
    // the HiBench report view covers Paper: leaderboard column, task table, capability dimension
    const rep = await runCli(['report', '--store', join(dir, 's.db'), '-f', 'md', '--bootstrap', '50']);
    expect(rep.code).toBe(0);
    expect(rep.stdout).toContain('## HiBench Paper: accuracy (%) per task');
    expect(rep.stdout).toContain('| baseline:oracle | 100.00 | 100.00 | 100.00 | 100.00 |');
    expect(rep.stdout).toContain('| Model | Textual Reasoning |');
  });

  it("reads the toolkit's released records; strict mode reports the unswapped disordered contexts", async () => {
    const r = await runCli(['run', '--dataset', 'hibench/paper', '--data', shared('disordered_section'), '--model', 'baseline:oracle', '--threshold', '0.5', '--store', join(dir, 't.db'), '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('3 of 3 disordered_section contexts');
    const s = JSON.parse(r.stdout) as Summary;
    expect(s.n).toBe(9);
    expect(s.levelCounts['1']).toBe(9);
    for (const task of ['contextual_qa', 'outline_extraction']) {
      const c = await runCli(['run', '--dataset', 'hibench/paper', '--data', shared(task), '--compat', 'reference', '--icl', 'zero', '--model', 'baseline:oracle', '--store', join(dir, 't.db'), '--json']);
      expect(c.code).toBe(0);
      expect(c.stderr).not.toContain('disordered_section contexts');
      const cs = JSON.parse(c.stdout) as Summary;
      expect(cs.n).toBe(3);
      expect(cs.metrics.meanScore).toBe(1);
    }
  });

  it('loads QASPER with --split through the hub loader (here from its cache: <cache-dir>/allenai/qasper/qasper/validation.jsonl)', async () => {
    const cache = join(dir, 'cache');
    mkdirSync(join(cache, 'allenai/qasper/qasper'), { recursive: true });
    copyFileSync(join(ROOT, 'test/fixtures/hibench-paper/qasper-rows.jsonl'), join(cache, 'allenai/qasper/qasper/validation.jsonl'));
    const r = await runCli(['run', '--dataset', 'hibench/paper', '--split', 'validation', '--cache-dir', cache, '--model', 'baseline:oracle', '--threshold', '0.5', '--store', join(dir, 'h.db'), '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as Summary;
    expect(s.n).toBe(24);
    expect(s.levelCounts['1']).toBe(24);
  });

  it('converts QASPER --data and refuses a strict run without --threshold', async () => {
    const r = await runCli(['run', '--dataset', 'hibench/paper', '--data', FIXTURE, '--model', 'baseline:oracle', '--threshold', '0.5', '--store', join(dir, 'q.db'), '--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Summary).n).toBe(24);
    const bad = await runCli(['run', '--dataset', 'hibench/paper', '--data', FIXTURE, '--model', 'baseline:oracle', '--store', join(dir, 'q.db')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--threshold is required for hibench/paper in strict mode');
  });
});
