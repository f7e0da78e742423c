/**
 * `hpt-bench export` bad input: an unknown run id, a run that is not completed, a non-empty --out without --force,
 * an --out that is a file, no run named, an unknown format — each exits non-zero with one error line (or one JSON error
 * object with --json) and writes nothing. Also --latest, --all, --force and the text output.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorLine, runCli } from '../helpers/cli.js';
import { makeFixture, type Fixture } from './fixture.js';

/** Every file below `dir` (relative paths), or [] when it does not exist. */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('export: errors and selection', () => {
  let fx: Fixture;

  beforeAll(async () => {
    fx = await makeFixture();
  });

  it('an unknown run id: exit 2, one line naming it, nothing written (also with --json)', async () => {
    const out = join(fx.dir, 'unknown');
    const r = await runCli(['export', fx.runs.random, 'nope-123', '--format', 'eee', '--out', out, '--store', fx.store]);
    expect(r.code).toBe(2);
    expect(errorLine(r)).toMatch(/^Error: no run nope-123 in /);
    expect(tree(out)).toEqual([]);
    const j = await runCli(['export', 'nope-123', '--format', 'inspect', '--out', out, '--store', fx.store, '--json']);
    expect(j.code).toBe(2);
    expect((JSON.parse(j.stdout) as { error: { code: string } }).error.code).toBe('E_UNKNOWN_ID');
    expect(errorLine(j)).toMatch(/nope-123/);
    expect(existsSync(out)).toBe(false);
  });

  it('a non-empty --out without --force: exit 2, one line, the directory left as it was; --force writes into it', async () => {
    const out = join(fx.dir, 'busy');
    mkdirSync(out);
    writeFileSync(join(out, 'keep.txt'), 'mine');
    const r = await runCli(['export', fx.runs.oracle, '--format', 'lm-eval', '--out', out, '--store', fx.store]);
    expect(r.code).toBe(2);
    expect(errorLine(r)).toMatch(/^Error: --out .*busy is not empty.*--force/);
    expect(tree(out)).toEqual(['keep.txt']);
    const f = await runCli(['export', fx.runs.oracle, '--format', 'lm-eval', '--out', out, '--store', fx.store, '--force', '--json']);
    expect(f.code).toBe(0);
    expect(tree(out).length).toBe(3);
    expect(readFileSync(join(out, 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('a run that is not completed: exit 2, one line naming its state, nothing written', async () => {
    const copy = join(fx.dir, 'failed.db');
    const src = new Database(fx.store, { readonly: true });
    await src.backup(copy);
    src.close();
    const db = new Database(copy);
    db.prepare("UPDATE runs SET status = 'failed', error = 'endpoint down' WHERE id = ?").run(fx.runs.random);
    db.close();
    const out = join(fx.dir, 'failed-out');
    const r = await runCli(['export', fx.runs.random, '--format', 'hf', '--out', out, '--store', copy]);
    expect(r.code).toBe(2);
    expect(errorLine(r)).toMatch(new RegExp(`^Error: run ${fx.runs.random} is failed, not completed`));
    expect(existsSync(out)).toBe(false);
  });

  it('no run named, --out a file, an unknown format (a usage error with its hint): exit 2, nothing written', async () => {
    const none = await runCli(['export', '--format', 'eee', '--out', join(fx.dir, 'x'), '--store', fx.store]);
    expect(none.code).toBe(2);
    expect(errorLine(none)).toMatch(/name the runs to export.*--latest or --all/);
    const file = join(fx.dir, 'a-file');
    writeFileSync(file, '');
    const f = await runCli(['export', fx.runs.random, '--format', 'eee', '--out', file, '--store', fx.store]);
    expect(f.code).toBe(2);
    expect(errorLine(f)).toMatch(/is a file, not a directory/);
    const bad = await runCli(['export', fx.runs.random, '--format', 'csv', '--out', join(fx.dir, 'y'), '--store', fx.store]);
    expect(bad.code).toBe(2);
    // a usage error: the error line and oclif's hint line
    expect(bad.stdout).toBe('');
    expect(bad.stderr.split('\n')[0]).toBe('Error: Expected --format=csv to be one of: eee, hf, inspect, lm-eval');
    expect(existsSync(join(fx.dir, 'x')) || existsSync(join(fx.dir, 'y'))).toBe(false);
  });

  it('--latest exports the newest run, --all every completed run; text output lists the files', async () => {
    const latest = await runCli(['export', '--latest', '--format', 'inspect', '--out', join(fx.dir, 'latest'), '--store', fx.store, '--json']);
    expect(latest.code).toBe(0);
    expect((JSON.parse(latest.stdout) as { runs: { runId: string }[] }).runs.map((r) => r.runId)).toEqual([fx.runs.replicated]);
    const all = await runCli(['export', '--all', '--format', 'hf', '--out', join(fx.dir, 'all'), '--store', fx.store]);
    expect(all.code).toBe(0);
    expect(all.stdout.trim().split('\n')).toHaveLength(3);
    expect(all.stderr).toMatch(/exported 3 run\(s\) as hf: 3 file\(s\)/);
    expect(tree(join(fx.dir, 'all'))).toHaveLength(3);
  });
});
