/**
 * Issue 16 end to end with real runs made by the built CLI (BoolQ's shipped `mini` split, the `baseline:random` model,
 * no network): the default 5-level ladder twice (the older run is replaced by the newer in the report), a 2-level
 * ladder from a `--ladder FILE`, and other data of the same dataset (`--data`, the first 5 rows of the split). The
 * Markdown report gives one labelled row per group in HPT Table 1; `--run` picks the older duplicate.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

let dir: string;
let store: string;
const ids: Record<string, string> = {};

async function run(name: string, extra: string[]): Promise<void> {
  const r = await runCli(['run', '--dataset', 'boolq', '--model', 'baseline:random', '--seed', '3', '--store', store, '--json', ...extra]);
  if (r.code !== 0) throw new Error(`run ${name} failed: ${r.stderr}`);
  ids[name] = (JSON.parse(r.stdout) as { runId: string }).runId;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-report-groups-'));
  store = join(dir, 's.db');
  writeFileSync(join(dir, 'two.json'), JSON.stringify({ id: 'two', levels: ['role', 'zero-shot-cot'] }));
  const rows = readFileSync(join(ROOT, 'plugins/hpt-datasets/data/boolq-mini.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
  writeFileSync(join(dir, 'subset.jsonl'), `${rows.slice(0, 5).join('\n')}\n`);
  await run('old', ['--split', 'mini']);
  await run('five', ['--split', 'mini']);
  await run('two', ['--split', 'mini', '--ladder', join(dir, 'two.json')]);
  await run('subset', ['--data', join(dir, 'subset.jsonl')]);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** First cells of the body rows of HPT Table 1 in a Markdown report. */
function table1Rows(md: string): string[] {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => l.startsWith('## HPI (lower is better) and accuracy'));
  expect(start).toBeGreaterThanOrEqual(0);
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.startsWith('## ')) break;
    if (l.startsWith('| ') && !l.startsWith('| Model') && !l.startsWith('| ---')) out.push(l.slice(2, l.indexOf(' | ')));
  }
  return out;
}

describe('report groups over real runs', () => {
  it('one labelled row per (ladder, data) group in HPT Table 1; the older duplicate left out and named', async () => {
    const r = await runCli(['report', '--store', store, '--format', 'md', '--bootstrap', '50']);
    expect(r.code, r.stderr).toBe(0);
    const rows = table1Rows(r.stdout);
    expect(rows).toHaveLength(3);
    // the --data file is named by its base name (issue 29: no hash or path needed while the names differ)
    expect(rows[2]).toBe('baseline:random · 5-level ladder (hpf) · data subset.jsonl');
    // the shipped split and the --data subset are told apart; the shipped split is named by its split, not its source
    expect(rows[0]).toBe('baseline:random · 5-level ladder (hpf) · split mini');
    expect(rows[1]).toBe('baseline:random · 2-level ladder (two) · split mini');
    expect(new Set(rows).size).toBe(3);
    expect(r.stdout).toContain(`${ids.old}, replaced by ${ids.five}`);
    expect(r.stdout).not.toContain(`| ${ids.old} |`);
  });

  it('--run picks the older run; --all reports all four', async () => {
    const one = await runCli(['report', '--store', store, '--json', '--bootstrap', '50', '--run', ids.old!]);
    expect(one.code, one.stderr).toBe(0);
    expect((JSON.parse(one.stdout) as { runs: { runId: string }[] }).runs.map((x) => x.runId)).toEqual([ids.old]);
    const all = await runCli(['report', '--store', store, '--json', '--bootstrap', '50', '--all']);
    expect(all.code, all.stderr).toBe(0);
    const j = JSON.parse(all.stdout) as { runs: { runId: string; group: string }[] };
    expect(j.runs.map((x) => x.runId)).toEqual([ids.old, ids.five, ids.two, ids.subset]);
    expect(j.runs[0]!.group).toBe(j.runs[1]!.group);
  });
});
