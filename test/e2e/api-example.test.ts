/**
 * docs/api.md works as written (issue 26, item 1): its example script — load the installed plugins, run a 2 × 2 matrix
 * with `evaluate()`, read the per-sample results — runs as a Node process that imports `@hpt-bench/core` like a user's
 * script, and its figures equal those of `hpt-bench run` with the same settings.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const DOC = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
const script = [...DOC.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!)[0]!;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-api-example-'));
  // a user's project: @hpt-bench/core in its node_modules (here a link to the built workspace package)
  mkdirSync(join(dir, 'node_modules/@hpt-bench'), { recursive: true });
  symlinkSync(join(ROOT, 'packages/core'), join(dir, 'node_modules/@hpt-bench/core'));
  writeFileSync(join(dir, 'example.mjs'), script);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Run `node example.mjs <store>` in the user's project, with a HOME of its own (no installed plugins). */
function runExample(store: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['example.mjs', store], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Line {
  run: string;
  runId: string;
  hpi: number;
  accuracy: number;
  n: number;
  levels: Record<string, number>;
  first: string;
}

describe('docs/api.md', () => {
  it('the example script runs a 2 × 2 matrix and reads its per-sample results; they equal `hpt-bench run`', async () => {
    expect(script).toContain('evaluate(');
    const r = await runExample('results.sqlite');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);
    expect(lines.map((l) => l.run)).toEqual(['baseline:oracle on boolq', 'baseline:oracle on csqa', 'baseline:random on boolq', 'baseline:random on csqa']);
    // the oracle solves every sample at level 1
    for (const l of lines.slice(0, 2)) expect(l).toMatchObject({ hpi: 1, accuracy: 1, levels: { 1: l.n } });
    // the progress hook wrote each run's count
    expect(r.stderr).toContain('baseline:random on csqa: ');

    // the same run through the command line: the same samples, HPI and per-sample levels
    for (const [i, dataset] of [[2, 'boolq'], [3, 'csqa']] as const) {
      const out = join(dir, `${dataset}.jsonl`);
      const cli = await runCli(['run', '--dataset', dataset, '--split', 'mini', '--model', 'baseline:random', '--seed', '7', '--store', join(dir, 'cli.sqlite'), '--out', out, '--json'], { env: { HOME: dir } });
      expect(cli.code, cli.stderr).toBe(0);
      const summary = JSON.parse(cli.stdout) as { hpi: number; n: number };
      expect(summary.n).toBe(lines[i]!.n);
      expect(summary.hpi).toBeCloseTo(lines[i]!.hpi, 12);
      const levels: Record<string, number> = {};
      for (const rec of readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { level: number | null })) levels[rec.level ?? 'unsolved'] = (levels[rec.level ?? 'unsolved'] ?? 0) + 1;
      expect(levels).toEqual(lines[i]!.levels);
    }

    // running the script again on the same store continues nothing and repeats the figures
    const again = await runExample('results.sqlite');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim().split('\n').map((l) => (JSON.parse(l) as Line).hpi)).toEqual(lines.map((l) => l.hpi));
  }, 120_000);
});
