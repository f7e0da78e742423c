/**
 * `compare` and the reports never pair runs of different data (issue 25 item 8), with the built CLI as a process and
 * the real SQLite store. BoolQ's embedded `mini` split (8 questions) against a 20-question `--data` file whose sample
 * ids overlap (the issue's boolq-mini vs 163-question BoolQ), a second `mini` run of another model (same data), and
 * two generated HiBench runs with different seeds (same ids, other trees):
 * - compare of runs on different data exits 2 with one error line naming the differing fields (both values);
 * - `--force` compares them, with one warning naming the fields, and `--json` lists them in `dataDifferences`;
 * - runs of the same data with another model compare as before (no warning, `dataDifferences: []`);
 * - `report --format md` / `--json` say which runs are on different data; the HTML report draws a level-transition
 *   heatmap only for the pair on the same data and names the pairs it leaves out.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorLine, runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-compare-data-'));
const store = join(dir, 's.db');
const big = join(dir, 'boolq-20.jsonl');
const MINI_SOURCE = '@hpt-bench/hpt-datasets:./data/boolq-mini.jsonl';

async function run(args: string[]): Promise<string> {
  const r = await runCli(['run', ...args, '--store', store, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { runId: string }).runId;
}

let mini: string; // boolq --split mini, oracle
let mini2: string; // boolq --split mini, random: same data, another model
let other: string; // boolq --data boolq-20.jsonl: other data, overlapping sample ids
let seed1: string; // hibench/multiple-tree, seed 1
let seed2: string; // hibench/multiple-tree, seed 2: same ids, other trees
let seed1b: string; // hibench/multiple-tree, seed 1, another model

beforeAll(async () => {
  const rows = Array.from({ length: 20 }, (_, i) => ({ question: `is ${i} an even number`, passage: `${i} is ${i % 2 ? 'odd' : 'even'}.`, answer: i % 2 === 0 }));
  writeFileSync(big, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  mini = await run(['--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:oracle']);
  other = await run(['--dataset', 'boolq', '--data', big, '--model', 'baseline:random']);
  mini2 = await run(['--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random']);
  const tree = ['--dataset', 'hibench/multiple-tree', '--task', 'root', '--preset', 'easy', '--representation', 'edge', '--icl', 'zero', '--limit', '6'];
  seed1 = await run([...tree, '--seed', '1', '--model', 'baseline:oracle']);
  seed2 = await run([...tree, '--seed', '2', '--model', 'baseline:random']);
  seed1b = await run([...tree, '--seed', '1', '--model', 'baseline:random']);
}, 180_000);

describe('compare refuses runs on different data unless --force', () => {
  it('boolq mini vs a 20-question file: exit 2, one line naming data.source and data.split with both values', async () => {
    const r = await runCli(['compare', mini, other, '--store', store]);
    expect(r.code).toBe(2);
    const line = errorLine(r);
    expect(line).toBe(
      `Error: runs ${mini} (A) and ${other} (B) are on different data: data.source (A "${MINI_SOURCE}", B ${JSON.stringify(big).length > 60 ? `${JSON.stringify(big).slice(0, 57)}...` : JSON.stringify(big)}); data.split (A "mini", B null); samples paired by id across different data are not the same samples, so the comparison is refused; give --force to compare them anyway`,
    );
    const j = await runCli(['compare', mini, other, '--store', store, '--json']);
    expect(j.code).toBe(2);
    expect(j.stderr).toBe('');
    const err = (JSON.parse(j.stdout) as { error: { code: string; message: string } }).error;
    expect(err.code).toBe('E_DATA');
    expect(err.message).toContain('data.source');
    expect(err.message).toContain('data.split');
    // the order of the runs does not matter
    expect(errorLine(await runCli(['compare', other, mini, '--store', store]))).toContain('are on different data: data.source');
  });

  it('--force compares them: exit 0, one warning naming the fields, dataDifferences in --json', async () => {
    const r = await runCli(['compare', mini, other, '--store', store, '--force']);
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: the runs are on different data: data\.source \(A "[^"]+", B "[^"]+"\); data\.split \(A "mini", B null\); samples were paired by id anyway \(--force\)$/);
    expect(r.stdout).toContain('paired samples: 8; only in A: 0; only in B: 12');
    const j = await runCli(['compare', mini, other, '--store', store, '--force', '--json']);
    expect(j.code).toBe(0);
    const res = JSON.parse(j.stdout) as { paired: number; dataDifferences: { field: string; a: unknown; b: unknown }[] };
    expect(res.paired).toBe(8);
    expect(res.dataDifferences).toEqual([
      { field: 'data.source', a: MINI_SOURCE, b: big },
      { field: 'data.split', a: 'mini', b: null },
    ]);
  });

  it('runs of the same data with another model compare as before: no data warning, dataDifferences []', async () => {
    const r = await runCli(['compare', mini, mini2, '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('different data');
    expect(r.stderr).not.toContain('differ in');
    const j = await runCli(['compare', mini, mini2, '--store', store, '--json']);
    expect((JSON.parse(j.stdout) as { dataDifferences: unknown[]; paired: number }).dataDifferences).toEqual([]);
  });

  it('generated data: another seed draws other trees under the same ids — refused naming the seed; the same seed compares', async () => {
    const r = await runCli(['compare', seed1, seed2, '--store', store]);
    expect(r.code).toBe(2);
    expect(errorLine(r)).toContain(`are on different data: seed (A 1, B 2);`);
    const forced = await runCli(['compare', seed1, seed2, '--store', store, '--force', '--json']);
    expect(forced.code).toBe(0);
    expect((JSON.parse(forced.stdout) as { dataDifferences: unknown[] }).dataDifferences).toEqual([{ field: 'seed', a: 1, b: 2 }]);
    const same = await runCli(['compare', seed1, seed1b, '--store', store]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toBe('');
  });
});

describe('reports leave runs of different data unpaired and say so', () => {
  it('md and json: one note per dataset naming the fields and the runs of each data', async () => {
    const r = await runCli(['report', mini, other, mini2, seed1, seed2, '--store', store, '--format', 'md']);
    expect(r.code, r.stderr).toBe(0);
    const notes = r.stdout.split('\n').filter((l) => l.includes('are on different data'));
    expect(notes).toEqual([
      `_Runs of boolq are on different data (data.source, data.split), grouped by data: ${mini}, ${mini2} \\| ${other}. Runs of different data are not paired: no level transitions are drawn between them, and \`hpt-bench compare\` refuses them without --force._`,
      `_Runs of multiple-tree are on different data (seed), grouped by data: ${seed1} \\| ${seed2}. Runs of different data are not paired: no level transitions are drawn between them, and \`hpt-bench compare\` refuses them without --force._`,
    ]);
    const j = await runCli(['report', mini, other, mini2, '--store', store, '--json']);
    expect((JSON.parse(j.stdout) as { dataNotes: string[] }).dataNotes).toEqual([notes[0]!.slice(1, -1).replace('\\|', '|')]);
    const same = await runCli(['report', mini, mini2, '--store', store, '--json']);
    expect((JSON.parse(same.stdout) as { dataNotes: string[] }).dataNotes).toEqual([]);
  });

  it('html: a transition heatmap only for the pair on the same data; the pairs left out are named with their fields', async () => {
    const out = join(dir, 'report.html');
    const r = await runCli(['report', mini, other, mini2, seed1, seed2, seed1b, '--store', store, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    const charts = [...html.matchAll(/id="chart-(transitions-[^"]+)"/g)].map((m) => m[1]);
    expect(charts.sort()).toEqual([`transitions-${mini}-${mini2}`, `transitions-${seed1}-${seed1b}`].sort());
    const note = /<p class="note" id="transitions-different-data">(.*?)<\/p>/.exec(html)?.[1] ?? '';
    expect(note).toMatch(/^4 pair\(s\) of runs on different data are left out/);
    for (const pair of [`${mini} and ${other} (data.source, data.split)`, `${other} and ${mini2} (data.source, data.split)`, `${seed1} and ${seed2} (seed)`, `${seed2} and ${seed1b} (seed)`]) expect(note).toContain(pair);
  });
});
