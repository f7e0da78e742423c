/**
 * Runs with replicates (`--replicates N`; issue 28, item 2): a sample's replicates are correlated, so the report shows
 * intervals clustered by sample (Miller 2024 §2.2) and says so; `compare` of two such runs tests per-sample means,
 * gives clustered intervals and no McNemar. Expected values are computed here from the store with SQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let dir: string;
let store: string;
const ids: string[] = [];

const ok = (r: { code: number | null; stdout: string; stderr: string }) => expect(r.code, r.stderr).toBe(0);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-replicates-'));
  store = join(dir, 'runs.db');
  for (const seed of ['1', '2']) {
    const r = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--replicates', '4', '--seed', seed, '--store', store, '--json']);
    ok(r);
    ids.push((JSON.parse(r.stdout) as { runId: string }).runId);
  }
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Per-unit (sample id, HPI, solved) of a run, from SQL. */
function units(runId: string): { id: string; hpi: number; solved: number }[] {
  const db = new Database(store, { readonly: true });
  try {
    return (db.prepare("SELECT sample_id AS id, hpi / scores AS hpi, solved * 1.0 / scores AS solved FROM samples WHERE run_id = ? AND status = 'done' ORDER BY idx").all(runId) as { id: string; hpi: number; solved: number }[]);
  } finally {
    db.close();
  }
}

/** Miller (2024) eq. 4 with the CR1 factor C/(C-1): the clustered SE of the mean of `x` by cluster `c`. */
function clusteredSe(x: number[], c: string[]): number {
  const mean = x.reduce((s, v) => s + v, 0) / x.length;
  const sums = new Map<string, number>();
  x.forEach((v, i) => sums.set(c[i]!, (sums.get(c[i]!) ?? 0) + v - mean));
  const k = sums.size;
  return Math.sqrt((k / (k - 1)) * [...sums.values()].reduce((s, v) => s + v * v, 0)) / x.length;
}

describe('replicates: clustered intervals', () => {
  it('report: the run’s HPI and accuracy intervals are mean ± 1.96 SE clustered by sample, and the runs table says so', async () => {
    const r = await runCli(['report', ids[0]!, '--store', store, '--format', 'json']);
    ok(r);
    const run = (JSON.parse(r.stdout) as { runs: { hpi: number; hpiCi95: [number, number]; accuracyCi95: [number, number]; interval: string; samples: number }[] }).runs[0]!;
    expect(run.interval).toBe('clustered');
    const u = units(ids[0]!);
    expect(run.samples).toBe(32);
    expect(new Set(u.map((x) => x.id)).size).toBe(8);
    const se = clusteredSe(u.map((x) => x.hpi), u.map((x) => x.id));
    const mean = u.reduce((s, x) => s + x.hpi, 0) / u.length;
    expect(run.hpi).toBeCloseTo(mean, 12);
    expect(run.hpiCi95[0]).toBeCloseTo(mean - 1.959963984540054 * se, 9);
    expect(run.hpiCi95[1]).toBeCloseTo(mean + 1.959963984540054 * se, 9);
    // the naive interval (units as if independent) would differ: the replicates of a sample are not independent
    const sd = Math.sqrt(u.reduce((s, x) => s + (x.hpi - mean) ** 2, 0) / (u.length - 1));
    expect(Math.abs(se - sd / Math.sqrt(u.length))).toBeGreaterThan(1e-6);
    const md = await runCli(['report', ids[0]!, '--store', store, '--format', 'md']);
    ok(md);
    expect(md.stdout).toContain(`for the runs with replicates (${ids[0]}) a normal interval with standard errors clustered by sample (Miller 2024`);
  });

  it('compare: per-sample means, clustered intervals of both differences, no McNemar (said why)', async () => {
    const r = await runCli(['compare', ids[0]!, ids[1]!, '--store', store, '--json']);
    ok(r);
    const t = (JSON.parse(r.stdout) as { tests: { samples: number; units: number; replicates: boolean; hpi: { effect: { meanDiff: number }; clustered: { se: number; clusters: number } }; accuracy: { mcnemar: null; mcnemarNote: string } } }).tests;
    expect([t.samples, t.units, t.replicates]).toEqual([8, 32, true]);
    expect(t.accuracy.mcnemar).toBeNull();
    expect(t.accuracy.mcnemarNote).toMatch(/replicates/);
    const a = units(ids[0]!);
    const b = units(ids[1]!);
    // units pair by sample id and replicate: both runs store them in the same order
    const d = a.map((x, i) => x.hpi - b[i]!.hpi);
    expect(t.hpi.clustered.clusters).toBe(8);
    expect(t.hpi.clustered.se).toBeCloseTo(clusteredSe(d, a.map((x) => x.id)), 12);
    const text = await runCli(['compare', ids[0]!, ids[1]!, '--store', store]);
    ok(text);
    expect(text.stdout).toContain('Paired tests (A - B, two-sided, on 8 samples (per-sample means of 32 paired units)):');
    expect(text.stdout).toMatch(/clustered 95% intervals \(by sample, Miller 2024 §2\.2; 8 clusters; design effect \d/);
  });
});
