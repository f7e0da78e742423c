/**
 * `hpt-bench runs` names each run's ladder (issue 29): a `ladder` column in the text table (`hpf (5)`, `two (2)`,
 * `hpf (5, full)` for a `--full-ladder` run) and `ladder`, `levels`, `fullLadder` in `--json` (and in `runs show`).
 * Real runs of the built CLI (BoolQ's shipped `mini` split, baseline models, no network).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ladderCell, ladderListing } from '../../packages/cli/src/commands/runs.js';
import { runCli } from '../helpers/cli.js';

let dir: string;
let store: string;
const ids: Record<string, string> = {};

async function run(name: string, extra: string[]): Promise<void> {
  const r = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--limit', '3', '--store', store, '--json', ...extra]);
  if (r.code !== 0) throw new Error(`run ${name} failed: ${r.stderr}`);
  ids[name] = (JSON.parse(r.stdout) as { runId: string }).runId;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-runs-ladder-'));
  store = join(dir, 's.db');
  writeFileSync(join(dir, 'two.json'), JSON.stringify({ id: 'two', levels: ['role', 'zero-shot-cot'] }));
  await run('hpf', []);
  await run('two', ['--ladder', join(dir, 'two.json')]);
  await run('full', ['--full-ladder']);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hpt-bench runs: the ladder column', () => {
  it('text: a ladder column with the ladder id and its number of levels (full: --full-ladder)', async () => {
    const r = await runCli(['runs', '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/│ ladder\s+│/);
    const row = (id: string) => r.stdout.split('\n').find((l) => l.includes(id))!;
    expect(row(ids.hpf!)).toMatch(/│ hpf \(5\)\s+│/);
    expect(row(ids.two!)).toMatch(/│ two \(2\)\s+│/);
    expect(row(ids.full!)).toMatch(/│ hpf \(5, full\)\s+│/);
  });

  it('--json: ladder, levels and fullLadder per run; runs show too', async () => {
    const r = await runCli(['runs', '--store', store, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const runs = (JSON.parse(r.stdout) as { runs: { runId: string; ladder: string; levels: number | null; fullLadder: boolean }[] }).runs;
    const of = (id: string) => runs.find((x) => x.runId === id)!;
    expect([of(ids.hpf!), of(ids.two!), of(ids.full!)].map((x) => [x.ladder, x.levels, x.fullLadder])).toEqual([
      ['hpf', 5, false],
      ['two', 2, false],
      ['hpf', 5, true],
    ]);
    const show = await runCli(['runs', 'show', ids.two!, '--store', store, '--json']);
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ ladder: 'two', levels: 2, fullLadder: false });
    const text = await runCli(['runs', 'show', ids.full!, '--store', store]);
    expect(text.stdout).toMatch(/│ ladder\s+│ hpf \(5, full\)/);
  });

  it('a run without a summary or fingerprint: the stored configuration names the ladder and its levels', () => {
    const l = ladderListing({ dataset: 'boolq', model: 'm', mode: 'manual', config: { ladder: '/x/six.json', ladderLevels: ['a', 'b', 'c', 'd', 'e', 'f'] }, summary: null, fingerprint: null });
    expect(l).toEqual({ ladder: 'six', levels: 6, fullLadder: false });
    expect(ladderCell(ladderListing({ dataset: 'boolq', model: 'm', mode: 'manual', config: {}, summary: null, fingerprint: null }))).toBe('hpf');
  });
});
