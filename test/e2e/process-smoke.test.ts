/**
 * Every command as a real process (bin/run.js): the rest of the suite runs most commands inside the test process
 * (`runCli`), which proves what a command does but not that the installed entry point starts it, prints to the real
 * stdout/stderr and exits with its code. One small job per command, each through `spawnCli`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { startOpenAIServer, type TestServer } from '../helpers/openai-server.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-smoke-'));
const store = join(dir, 'store.sqlite');
const env = { HOME: dir };
const json = (s: string) => JSON.parse(s) as Record<string, unknown>;

let server: TestServer;
beforeAll(async () => {
  // the judge's rating of any prompt: four scores
  server = await startOpenAIServer(() => ({ text: '{"score1": 3, "score2": 2, "score3": 2, "score4": 1}' }));
});
afterAll(async () => server.close());

describe('each command as a process', () => {
  it('init, run --config, plan, runs, runs show, report, compare', async () => {
    const eval_ = join(dir, 'eval.yaml');
    const init = await spawnCli(['init', eval_], { env });
    expect(init.code, init.stderr).toBe(0);
    const run = await spawnCli(['run', '--config', eval_, '--store', store, '--json'], { env });
    expect(run.code, run.stderr).toBe(0);
    const summaries = JSON.parse(run.stdout) as { runId: string; hpi: number }[];
    expect(summaries).toHaveLength(4);
    const plan = await spawnCli(['plan', '--config', eval_, '--store', store, '--json'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect((JSON.parse(plan.stdout) as { stored: number; samples: number }[]).every((p) => p.stored === p.samples)).toBe(true);
    const runs = await spawnCli(['runs', '--store', store, '--json'], { env });
    expect(runs.code, runs.stderr).toBe(0);
    expect(runs.stdout).toContain(summaries[0]!.runId);
    const show = await spawnCli(['runs', 'show', summaries[0]!.runId, '--store', store, '--json'], { env });
    expect(show.code, show.stderr).toBe(0);
    const report = await spawnCli(['report', '--store', store, '--format', 'md'], { env });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('|');
    const compare = await spawnCli(['compare', summaries[0]!.runId, summaries[2]!.runId, '--store', store, '--json'], { env });
    expect(compare.code, compare.stderr).toBe(0);
  }, 120_000);

  it('a failing run prints one error line and exits 2', async () => {
    const r = await spawnCli(['run', '--dataset', 'no-such-dataset', '--model', 'baseline:oracle', '--store', store], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Error: .*no-such-dataset/);
  });

  it('generate, score, list', async () => {
    const out = join(dir, 'formula.jsonl');
    const g = await spawnCli(['generate', 'hibench/formula', '--limit', '5', '--seed', '1', '--out', out, '--json'], { env });
    expect(g.code, g.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(5);
    const preds = join(dir, 'p.txt');
    const refs = join(dir, 'r.txt');
    writeFileSync(preds, 'the cat sat on the mat\n');
    writeFileSync(refs, 'the cat sat on the mat\n');
    const s = await spawnCli(['score', 'sacrebleu', '--predictions', preds, '--references', refs, '--json'], { env });
    expect(s.code, s.stderr).toBe(0);
    expect(json(s.stdout).score).toBeCloseTo(100, 9);
    const l = await spawnCli(['list', 'datasets', '--json'], { env });
    expect(l.code, l.stderr).toBe(0);
  }, 60_000);

  it('judge, calibrate, cache stats, cache clear, store migrate', async () => {
    const j = await spawnCli(['judge', '--dataset', 'boolq', '--split', 'mini', '--model', 'openai:judge', '--base-url', server.url, '--limit', '1', '--store', store, '--json'], { env });
    expect(j.code, j.stderr).toBe(0);
    expect(json(j.stdout).items).toBe(1);
    const ann = join(dir, 'a.csv');
    writeFileSync(ann, 'id,rule1,rule2,rule3,rule4\na,3,2,2,1\nb,1,1,1,1\n');
    const c = await spawnCli(['calibrate', '--annotations', ann, '--json'], { env });
    expect(c.code, c.stderr).toBe(0);
    expect(json(c.stdout).n).toBe(2);
    const stats = await spawnCli(['cache', 'stats', '--store', store, '--json'], { env });
    expect(stats.code, stats.stderr).toBe(0);
    const copy = join(dir, 'copy.sqlite');
    const m = await spawnCli(['store', 'migrate', '--from', store, '--to', copy, '--json'], { env });
    expect(m.code, m.stderr).toBe(0);
    const clear = await spawnCli(['cache', 'clear', '--store', copy, '--json'], { env });
    expect(clear.code, clear.stderr).toBe(0);
  }, 60_000);

  it('plugins new, plugins install --help, sandbox check --help', async () => {
    const n = await spawnCli(['plugins', 'new', join(dir, 'my-plugin'), '--kind', 'scorer', '--json'], { env });
    expect(n.code, n.stderr).toBe(0);
    expect(readFileSync(join(dir, 'my-plugin/package.json'), 'utf8')).toContain('"hpt-bench"');
    for (const cmd of [['plugins', 'install'], ['sandbox', 'check']]) {
      const h = await spawnCli([...cmd, '--help'], { env });
      expect(h.code, h.stderr).toBe(0);
      expect(h.stdout).toContain('USAGE');
    }
  }, 60_000);
});
