/**
 * End-to-end (issue 16, "Honest progress"): on a non-TTY stderr a run prints a progress line every
 * --progress-interval seconds and a last one, with the total known before the end even without --limit (the data is
 * read through before the run starts); --json silences it unless --progress; and Ctrl-C stops a run of an instant
 * local model promptly.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { BIN, ROOT, runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-progress-'));
const TOTAL = 2862; // the default hibench/json suite
const progressLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('json: '));

/** The runs in a store file (0 while it does not exist or is busy). */
function runRows(store: string): number {
  try {
    const db = new Database(store, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

describe('progress on a non-TTY stderr', () => {
  it('periodic lines with the right total, and a last line at 100%', async () => {
    const r = await runCli(['run', '--dataset', 'hibench/json', '--model', 'baseline:random', '--store', join(dir, 'a.db'), '--progress-interval', '0.1']);
    expect(r.code, r.stderr).toBe(0);
    const lines = progressLines(r.stderr);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(l).toMatch(new RegExp(`^json: \\d+/(${TOTAL}|\\?) samples.*samples/s, .* calls/s, elapsed \\d+:\\d\\d, ETA (\\d+:\\d\\d|-), HPI (\\d\\.\\d{3}|-), acc .*, errored 0$`));
    // the total is known before the run ends
    expect(lines.slice(0, -1).some((l) => l.includes(`/${TOTAL} samples`))).toBe(true);
    expect(lines.at(-1)).toMatch(new RegExp(`^json: ${TOTAL}/${TOTAL} samples \\(100\\.0%\\)`));
  }, 60_000);

  it('--json is silent unless --progress', async () => {
    const quiet = await runCli(['run', '--dataset', 'hibench/json', '--limit', '50', '--model', 'baseline:random', '--store', join(dir, 'b.db'), '--json', '--progress-interval', '0.05']);
    expect(quiet.code).toBe(0);
    expect(progressLines(quiet.stderr)).toEqual([]);
    const loud = await runCli(['run', '--dataset', 'hibench/json', '--limit', '50', '--model', 'baseline:random', '--store', join(dir, 'c.db'), '--json', '--progress', '--progress-interval', '0.05']);
    expect(loud.code).toBe(0);
    expect(progressLines(loud.stderr).at(-1)).toMatch(/^json: 50\/50 samples \(100\.0%\)/);
    expect(JSON.parse(loud.stdout)).toMatchObject({ n: 50 });
  }, 60_000);

  it('a matrix names the active run in each line', async () => {
    const file = join(dir, 'm.yaml');
    writeFileSync(file, 'datasets:\n  - { id: hibench/json, limit: 30 }\nmodels:\n  - id: baseline:oracle\n  - id: baseline:random\nstore: m.db\n');
    const r = await runCli(['run', '--config', file, '--json', '--progress', '--progress-interval', '0.05']);
    expect(r.code, r.stderr).toBe(0);
    const last = (prefix: string) => r.stderr.split('\n').filter((l) => l.startsWith(prefix)).at(-1);
    expect(last('[1/2] baseline:oracle × hibench/json: ')).toMatch(/: 30\/30 samples \(100\.0%\)/);
    expect(last('[2/2] baseline:random × hibench/json: ')).toMatch(/: 30\/30 samples \(100\.0%\)/);
  }, 60_000);

  it('Ctrl-C stops a run of an instant local model within a second', async () => {
    const child = spawn(process.execPath, [BIN, 'run', '--dataset', 'hibench/formula', '--model', 'baseline:random', '--store', join(dir, 'int.db'), '--json'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const closed = new Promise<number | null>((res) => child.on('close', res));
    // well into the 18,954 samples: the run row exists once the data has been read through (it is read before the run)
    // and the first samples are evaluated
    const store = join(dir, 'int.db');
    const started = performance.now();
    while (runRows(store) === 0 && performance.now() - started < 50_000) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500));
    const t0 = performance.now();
    child.kill('SIGINT');
    const code = await closed;
    expect(code).toBe(130);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(JSON.parse(stdout)).toMatchObject({ error: { code: 'E_INTERRUPTED' } });
  }, 60_000);
});
