/**
 * Run fingerprints end to end (issue 16), with the built CLI as a process: baseline runs of BoolQ on two data files
 * and with two models, then `runs show` (table and --json), `compare` (a warning per differing field, `differences` in
 * --json) and `report --format md` (the note under the runs table). Runs that differ only in the model give no warning.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorLine, runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-fp-e2e-'));
const store = join(dir, 's.db');
const records = (extra: string) => Array.from({ length: 6 }, (_, i) => ({ question: `is item ${i} even`, passage: `Item ${i} is ${i % 2 ? 'odd' : 'even'}.${extra}`, answer: i % 2 === 0 }));
const dataA = join(dir, 'a.json');
const dataB = join(dir, 'b.json');
const sha = (file: string) => `sha256:${createHash('sha256').update(readFileSync(file)).digest('hex')}`;
const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Run `hpt-bench run` on BoolQ and return the run id. */
async function run(data: string, model: string): Promise<string> {
  const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', model, '--store', store, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { runId: string }).runId;
}

let oracleA: string;
let oracleB: string;
let randomA: string;

beforeAll(async () => {
  writeFileSync(dataA, JSON.stringify(records('')));
  writeFileSync(dataB, JSON.stringify(records(' Changed.')));
  oracleA = await run(dataA, 'baseline:oracle');
  oracleB = await run(dataB, 'baseline:oracle');
  randomA = await run(dataA, 'baseline:random');
}, 120_000);

describe('runs show', () => {
  it('prints the state and the fingerprint: version, plugins with versions, data hash, prompt hashes', async () => {
    const r = await runCli(['runs', 'show', oracleA, '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(oracleA);
    expect(r.stdout).toMatch(/status\s*│ completed/);
    expect(r.stdout).toMatch(new RegExp(`hpt-bench\\s*│ ${version.replace(/\./g, '\\.')}`));
    for (const p of ['@hpt-bench/hpt-datasets', '@hpt-bench/hpf-strategies', '@hpt-bench/metrics', '@hpt-bench/baselines']) expect(r.stdout).toMatch(new RegExp(`${p}\\s*│ 0\\.1\\.0\\s*│ builtin`));
    expect(r.stdout).toContain(sha(dataA));
    expect(r.stdout).toContain(dataA);
    for (const s of ['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge']) expect(r.stdout).toMatch(new RegExp(`│ ${s}\\s*│ sha256:[0-9a-f]{64}`));
  });

  it('--json prints the run with its fingerprint', async () => {
    const r = await runCli(['runs', 'show', oracleB, '--store', store, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ runId: oracleB, status: 'completed', dataset: 'boolq', model: 'baseline:oracle', done: 6, errored: 0, hpi: 1, accuracy: 1 });
    expect(j.fingerprint).toMatchObject({ hptBench: version, data: { dataset: 'boolq', source: dataB, contentHash: sha(dataB) }, model: 'baseline:oracle', seed: 0, compat: 'strict', endpoints: [], replicates: 1 });
    expect(j.fingerprint.plugins.find((p: { name: string }) => p.name === '@hpt-bench/hpt-datasets')).toEqual({ name: '@hpt-bench/hpt-datasets', version: '0.1.0', origin: 'builtin', uses: ['datasets:boolq'] });
    expect(Object.keys(j.fingerprint.prompts)).toHaveLength(5);
  });

  it('an unknown run id is E_UNKNOWN_ID, exit 2; `runs` still lists the runs', async () => {
    const r = await runCli(['runs', 'show', 'no-such-run', '--store', store]);
    expect(r.code).toBe(2);
    expect(errorLine(r)).toBe(`Error: no run no-such-run in ${store}; see \`hpt-bench runs --store ${store}\``);
    const j = await runCli(['runs', 'show', 'no-such-run', '--store', store, '--json']);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stdout).error.code).toBe('E_UNKNOWN_ID');
    const list = await runCli(['runs', '--store', store, '--json']);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout).runs as { runId: string }[]).map((x) => x.runId).sort()).toEqual([oracleA, oracleB, randomA].sort());
  });
});

describe('compare and report name runs that differ in more than the model', () => {
  it('compare refuses runs on different data content (exit 2, naming data.contentHash); --force warns and lists the differences in --json', async () => {
    const refused = await runCli(['compare', oracleA, oracleB, '--store', store]);
    expect(refused.code).toBe(2);
    expect(errorLine(refused)).toContain(`are on different data: data.contentHash (A "${sha(dataA).slice(0, 56)}..., B "${sha(dataB).slice(0, 56)}...); `);
    const r = await runCli(['compare', oracleA, oracleB, '--store', store, '--force']);
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toEqual([`warning: the runs are on different data: data.contentHash (A "${sha(dataA).slice(0, 56)}..., B "${sha(dataB).slice(0, 56)}...); samples were paired by id anyway (--force)`]);
    const j = await runCli(['compare', oracleA, oracleB, '--store', store, '--json', '--force']);
    expect(JSON.parse(j.stdout).differences).toEqual([{ field: 'data.contentHash', a: sha(dataA), b: sha(dataB) }]);
    expect(JSON.parse(j.stdout).dataDifferences).toEqual([{ field: 'data.contentHash', a: sha(dataA), b: sha(dataB) }]);
  });

  it('runs that differ only in the model give no warning', async () => {
    const r = await runCli(['compare', oracleA, randomA, '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('differ');
    const j = await runCli(['compare', oracleA, randomA, '--store', store, '--json']);
    expect(JSON.parse(j.stdout).differences).toEqual([]);
  });

  it('report --format md notes the runs of one dataset that differ in more than the model; --json has the notes', async () => {
    const r = await runCli(['report', '--store', store, '--format', 'md']);
    expect(r.code, r.stderr).toBe(0);
    const notes = r.stdout.split('\n').filter((l) => l.includes('differ in more than the model'));
    expect(notes).toEqual([`_Runs ${oracleA} and ${oracleB} (boolq) differ in more than the model: data.contentHash; their results are not comparable as a model comparison._`]);
    const only = await runCli(['report', oracleA, randomA, '--store', store, '--format', 'md']);
    expect(only.stdout).not.toContain('differ in more than the model');
    const j = await runCli(['report', '--store', store, '--json']);
    expect(JSON.parse(j.stdout).fingerprintNotes).toEqual([notes[0]!.slice(1, -1)]);
  });

  it('a run without a fingerprint (an older store) says so in runs show and compare', async () => {
    const old = join(dir, 'old.db');
    writeFileSync(old, readFileSync(store));
    const db = new Database(old);
    db.prepare('UPDATE runs SET fingerprint = NULL WHERE id = ?').run(oracleA);
    db.close();
    const r = await runCli(['runs', 'show', oracleA, '--store', old]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`run ${oracleA} has no fingerprint: it was made before hpt-bench recorded fingerprints`);
    expect((await runCli(['runs', 'show', oracleA, '--store', old, '--json'])).stdout).toContain('"fingerprint":null');
    // same data (oracleA's stored config holds its data hash), another model: compared, with the warning
    const c = await runCli(['compare', oracleA, randomA, '--store', old]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stderr).toContain('warning: a run has no fingerprint');
    // other data: refused from the stored config alone (data.contentHash)
    expect(errorLine(await runCli(['compare', oracleA, oracleB, '--store', old]))).toContain('are on different data: data.contentHash');
  });
});
