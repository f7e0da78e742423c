/**
 * End-to-end (issue 16, "Honest progress and summaries"): the human summary of a run shows the plugin's own layout of
 * its results — for a HiBench run, the scenario's task table and the capability dimensions — instead of dotted
 * metric keys, which stay in --json; a run without a report view keeps its one table.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-summary-'));

describe('the run summary', () => {
  it('a HiBench run: the task table and dimensions of its scenario, no dotted keys; --json keeps every metric', async () => {
    const args = ['run', '--dataset', 'hibench/json', '--model', 'baseline:oracle', '--limit', '60', '--store', join(dir, 'h.db')];
    const r = await runCli(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('HiBench JSON: accuracy (%) per task');
    expect(r.stdout).toMatch(/│ baseline:oracle │ 100\.00 +│/);
    expect(r.stdout).toContain('HiBench capability dimensions: accuracy (%)');
    expect(r.stdout).not.toContain('HiBench leaderboard'); // a comparison of models: for `report`, not one run
    expect(r.stdout).not.toMatch(/hibench(All)?\.(tasks|scenarios|dimensions)\./);
    expect(r.stdout).toMatch(/more metrics \(tables below, all in --json\) +│ hibench, hibenchAll/);
    const j = await runCli([...args, '--json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ metrics: { hibench: { scenarios: { json: 1 } }, hibenchAll: { overall: 1 } } });
  });

  it('a run no report view covers keeps its flat metric rows', async () => {
    const r = await runCli(['run', '--dataset', 'gsm8k', '--split', 'mini', '--model', 'baseline:oracle', '--store', join(dir, 'g.db')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('more metrics');
    expect(r.stdout).toMatch(/HPI \(lower is better\) +│ 1\.000/);
  });
});
