/**
 * End-to-end: `hpt-bench plan --detect D` / `--detect-accuracy D` (issue 28, sample-size planning). The samples a paired
 * comparison needs are checked against closed forms computed here with literal z values (the "plan --detect
 * matches a closed-form power calculation within 2%"), with the spread read independently from the store's samples
 * table by SQL: the stated default without comparable runs, one run's sd with correlation 0.5, and the newest pair of
 * runs on the same data (runs on other data, or, for HPI, on another HPI scale, are left out). Bad values exit 2.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PowerPlan, RunPlanEstimate } from '@hpt-bench/core';
import { runCli } from '../helpers/cli.js';

type PlanCell = RunPlanEstimate & { modelLabel: string; datasetLabel: string };

/** z_{1−α/2} and z_{power} at the defaults (α = 0.05, power 0.8) and at α = 0.01, power 0.9. */
const Z975 = 1.959963984540054;
const Z80 = 0.8416212335729143;
const Z995 = 2.5758293035489004;
const Z90 = 1.2815515655446004;
/** BoolQ's HPI_Dataset (plugins/hpt-datasets/package.json) and the test ladder's two levels. */
const BOOLQ_HPI_DATASET = 1.71;
const M = 2;
const N_RECORDS = 60;

/** n = ⌈((z_a + z_b)·σ_d/δ)²⌉ (paired z-test). */
const closedMean = (sdDiff: number, delta: number, za = Z975, zb = Z80) => Math.ceil((((za + zb) * sdDiff) / delta) ** 2);
/** Connor (1987): n = ⌈(z_a√ψ + z_b√(ψ − δ²))²/δ²⌉. */
const closedConnor = (psi: number, delta: number, za = Z975, zb = Z80) => Math.ceil((za * Math.sqrt(psi) + zb * Math.sqrt(psi - delta * delta)) ** 2 / (delta * delta));
const within2pc = (got: number, want: number) => expect(Math.abs(got - want)).toBeLessThanOrEqual(0.02 * want);

/** A BoolQ file (Hugging Face layout) of `n` questions. */
function boolqData(path: string, n: number, tag: string): void {
  writeFileSync(path, `${Array.from({ length: n }, (_, i) => JSON.stringify({ question: `is ${tag} question ${i} true`, passage: `passage ${tag} ${i}`, answer: i % 2 === 1 })).join('\n')}\n`);
}

/** Per-sample HPI and solved share of a run, by sample id, read from the store's samples table. */
function unitsOf(store: string, runId: string): Map<string, { hpi: number; solved: number }> {
  const db = new Database(store, { readonly: true });
  try {
    const rows = db.prepare("SELECT sample_id, hpi, solved, scores FROM samples WHERE run_id = ? AND status = 'done' AND scores > 0").all(runId) as { sample_id: string; hpi: number; solved: number; scores: number }[];
    return new Map(rows.map((r) => [r.sample_id, { hpi: r.hpi / r.scores, solved: r.solved / r.scores }]));
  } finally {
    db.close();
  }
}

function sd(xs: number[]): number {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

function pearson(xs: number[], ys: number[]): number {
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

/** The paired per-sample values of two runs (by sample id). */
function paired(store: string, a: string, b: string): { ha: number[]; hb: number[]; sa: number[]; sb: number[] } {
  const ua = unitsOf(store, a);
  const ub = unitsOf(store, b);
  const out = { ha: [] as number[], hb: [] as number[], sa: [] as number[], sb: [] as number[] };
  for (const [id, x] of ua) {
    const y = ub.get(id);
    if (!y) continue;
    out.ha.push(x.hpi);
    out.hb.push(y.hpi);
    out.sa.push(x.solved);
    out.sb.push(y.solved);
  }
  return out;
}

describe('hpt-bench plan --detect / --detect-accuracy', () => {
  let dir: string;
  let data: string;
  let other: string;
  let ladder: string;
  let store: string;
  const plan = (...extra: string[]) => ['plan', '--dataset', 'boolq', '--data', data, '--ladder', ladder, '--model', 'baseline:random', '--store', store, ...extra];
  const power = async (...extra: string[]): Promise<PowerPlan> => {
    const r = await runCli([...plan(...extra), '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [cell] = JSON.parse(r.stdout) as PlanCell[];
    expect(cell!.samples).toBe(N_RECORDS);
    return cell!.power!;
  };
  const run = async (...args: string[]): Promise<string> => {
    const r = await runCli(['run', '--model', 'baseline:random', '--store', store, '--json', ...args]);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { runId: string }).runId;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hpt-plan-power-'));
    data = join(dir, 'a.jsonl');
    other = join(dir, 'b.jsonl');
    boolqData(data, N_RECORDS, 'power');
    boolqData(other, 30, 'other');
    ladder = join(dir, 'two.json');
    writeFileSync(ladder, JSON.stringify({ id: 'two', levels: ['role', 'zero-shot-cot'] }));
    store = join(dir, 'store.db');
  });

  it('without runs in the store: the stated default spread, and the closed form within 2%; --power and --alpha are honoured', async () => {
    // default: sd (hi − lo)/2 of a per-sample HPI in [1, m + HPI_Dataset] for both runs, correlation 0.5 → σ_d = sd
    const sdDefault = (M + BOOLQ_HPI_DATASET - 1) / 2;
    const p = await power('--detect', '0.1');
    expect(p).toMatchObject({ detect: 0.1, alpha: 0.05, power: 0.8, source: { runs: [] }, rho: 0.5, available: N_RECORDS, enough: false });
    expect(p.source.note).toMatch(/^default: no comparable completed run/);
    expect(p.sdA).toBeCloseTo(sdDefault, 10);
    expect(p.sdDiff).toBeCloseTo(sdDefault, 10);
    within2pc(p.samplesNeeded, closedMean(sdDefault, 0.1));
    expect(p.samplesNeeded).toBeGreaterThan(N_RECORDS);

    const strict = await power('--detect', '0.25', '--power', '0.9', '--alpha', '0.01');
    expect(strict).toMatchObject({ alpha: 0.01, power: 0.9 });
    within2pc(strict.samplesNeeded, closedMean(sdDefault, 0.25, Z995, Z90));

    // a difference this large needs fewer samples than the plan has
    const big = await power('--detect', '3');
    expect(big.samplesNeeded).toBe(closedMean(sdDefault, 3));
    expect(big).toMatchObject({ available: N_RECORDS, enough: true });

    // accuracy: ψ = 0.5 + δ²/2 (the largest discordance of two independent runs), Connor's formula
    const acc = await power('--detect-accuracy', '0.02');
    expect(acc).toMatchObject({ detectAccuracy: 0.02, source: { runs: [] }, enough: false });
    expect(acc.discordance).toBeCloseTo(0.5 + 0.0002, 12);
    within2pc(acc.samplesNeeded, closedConnor(0.5002, 0.02));

    // the text states the default under the table
    const text = await runCli(plan('--detect', '0.1'));
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`To detect an HPI difference of 0.10 with 80% power at α = 0.05 (paired, two-sided): ${p.samplesNeeded.toLocaleString('en-US')} samples (sd of the per-sample difference ${sdDefault.toFixed(2)}; default: no comparable completed run`);
    expect(text.stdout).toContain(`this plan has ${N_RECORDS}: not enough.`);
  });

  it('with comparable runs: one run gives its sd and correlation 0.5; two give sd, sd, correlation and discordance from the store; other data and other HPI scales are left out', async () => {
    const first = await run('--dataset', 'boolq', '--data', data, '--ladder', ladder, '--seed', '1');
    // one run: its sd of per-sample HPI for both sides, correlation 0.5
    const one = await power('--detect', '0.2');
    const sd1 = sd([...unitsOf(store, first).values()].map((u) => u.hpi));
    expect(sd1).toBeGreaterThan(0);
    expect(one).toMatchObject({ source: { runs: [first] }, rho: 0.5, pairs: N_RECORDS });
    expect(one.sdA).toBeCloseTo(sd1, 10);
    expect(one.sdB).toBeCloseTo(sd1, 10);
    expect(one.sdDiff).toBeCloseTo(sd1, 10); // √(2s² − 2·0.5·s²) = s
    within2pc(one.samplesNeeded, closedMean(sd1, 0.2));
    // one run gives no discordance: the default
    const accOne = await power('--detect-accuracy', '0.05');
    expect(accOne.source.runs).toEqual([]);
    expect(accOne.discordance).toBeCloseTo(0.5 + 0.00125, 12);

    // runs the plan must not take for HPI: the same data on the five-level ladder (between the two), other data (same
    // dataset id, newest)
    const hpf = await run('--dataset', 'boolq', '--data', data, '--seed', '4');
    const second = await run('--dataset', 'boolq', '--data', data, '--ladder', ladder, '--seed', '2');
    await run('--dataset', 'boolq', '--data', other, '--ladder', ladder, '--seed', '3');

    const two = await power('--detect', '0.2');
    const { ha, hb } = paired(store, second, first);
    expect(ha).toHaveLength(N_RECORDS);
    const [sdA, sdB, rho] = [sd(ha), sd(hb), pearson(ha, hb)];
    expect(two).toMatchObject({ source: { runs: [second, first] }, pairs: N_RECORDS, available: N_RECORDS });
    expect(two.sdA).toBeCloseTo(sdA, 10);
    expect(two.sdB).toBeCloseTo(sdB, 10);
    expect(two.rho).toBeCloseTo(rho, 10);
    const diffs = ha.map((x, i) => x - hb[i]!);
    expect(two.sdDiff).toBeCloseTo(sd(diffs), 10);
    expect(two.sdDiff).toBeCloseTo(Math.sqrt(sdA ** 2 + sdB ** 2 - 2 * rho * sdA * sdB), 10);
    within2pc(two.samplesNeeded, closedMean(sd(diffs), 0.2));
    expect(two.enough).toBe(two.samplesNeeded <= N_RECORDS);

    // enough: a difference of 2 levels needs fewer than the plan's 60 samples, 0.05 levels more
    const large = await power('--detect', '2');
    expect(large.samplesNeeded).toBe(closedMean(sd(diffs), 2));
    expect(large.enough).toBe(true);
    const small = await power('--detect', '0.05');
    within2pc(small.samplesNeeded, closedMean(sd(diffs), 0.05));
    expect(small.enough).toBe(false);

    // accuracy: the newest pair on the same data (the HPI scale does not matter): seed 2 and the five-level run
    const acc = await power('--detect-accuracy', '0.05');
    const pa = paired(store, second, hpf);
    const psi = pa.sa.filter((x, i) => x !== pa.sb[i]).length / pa.sa.length;
    expect(psi).toBeGreaterThan(0.05);
    expect(acc).toMatchObject({ source: { runs: [second, hpf] }, pairs: N_RECORDS });
    expect(acc.discordance).toBeCloseTo(psi, 12);
    within2pc(acc.samplesNeeded, closedConnor(psi, 0.05));
    expect(acc.enough).toBe(acc.samplesNeeded <= N_RECORDS);

    const text = await runCli(plan('--detect', '0.2'));
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`(sd of the per-sample difference ${sd(diffs).toFixed(2)} from runs ${second} and ${first} (${N_RECORDS} paired samples): sd ${sdA.toFixed(2)} and ${sdB.toFixed(2)}, correlation ${rho.toFixed(2)})`);
    expect(text.stdout).toContain(`this plan has ${N_RECORDS}: ${two.enough ? 'enough' : 'not enough'}.`);

    // a second run of seed 2's configuration (the same answers) is no comparison: the newest pair of different
    // configurations is the repeat and the five-level run
    const repeat = await run('--dataset', 'boolq', '--data', data, '--ladder', ladder, '--seed', '2');
    const again = await power('--detect-accuracy', '0.05');
    expect(again.source.runs).toEqual([repeat, hpf]);
    expect(again.discordance).toBeCloseTo(psi, 12);
  });

  it('with replicates: the units of a sample are correlated, so the sample size is multiplied by the design effect (Miller 2024)', async () => {
    const rstore = join(dir, 'replicates.db');
    const runR = async (seed: string) => {
      const r = await runCli(['run', '--model', 'baseline:random', '--store', rstore, '--json', '--dataset', 'boolq', '--data', data, '--ladder', ladder, '--replicates', '3', '--seed', seed]);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { runId: string }).runId;
    };
    const a = await runR('11');
    const b = await runR('12');
    const r = await runCli(['plan', '--dataset', 'boolq', '--data', data, '--ladder', ladder, '--model', 'baseline:random', '--replicates', '3', '--store', rstore, '--detect', '0.3', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const p = (JSON.parse(r.stdout) as PlanCell[])[0]!.power!;
    expect(p.source.runs).toEqual([b, a]);
    // the paired units (sample, replicate) from SQL, and the design effect by Miller's formula (CR1), computed here
    const db = new Database(rstore, { readonly: true });
    const rows = (id: string) => db.prepare("SELECT sample_id AS s, json_extract(meta, '$.replicate') AS k, hpi * 1.0 / scores AS h FROM samples WHERE run_id = ? AND status = 'done' ORDER BY idx").all(id) as { s: string; k: number; h: number }[];
    const ra = rows(b);
    const rb = new Map(rows(a).map((x) => [`${x.s}#${x.k}`, x.h]));
    db.close();
    const d = ra.map((x) => x.h - rb.get(`${x.s}#${x.k}`)!);
    const ids = ra.map((x) => x.s);
    expect(d).toHaveLength(3 * N_RECORDS);
    const mean = d.reduce((x, y) => x + y, 0) / d.length;
    const naiveVar = d.reduce((x, y) => x + (y - mean) ** 2, 0) / (d.length - 1) / d.length;
    const sums = new Map<string, number>();
    d.forEach((v, i) => sums.set(ids[i]!, (sums.get(ids[i]!) ?? 0) + v - mean));
    const c = sums.size;
    const clusteredVar = ((c / (c - 1)) * [...sums.values()].reduce((x, y) => x + y * y, 0)) / d.length ** 2;
    const de = Math.max(1, clusteredVar / naiveVar);
    expect(p.sdDiff).toBeCloseTo(sd(d), 10);
    // (seeds 11 and 12 give a design effect of about 1.08: the multiplied path is the one taken)
    expect(de).toBeGreaterThan(1);
    expect(p.designEffect).toBeCloseTo(de, 10);
    expect(p.source.note).toContain(`× design effect ${de.toFixed(2)}`);
    expect(p.samplesNeeded).toBe(Math.ceil(closedMean(sd(d), 0.3) * de));
  });

  it.each([
    [['--detect', '0'], '--detect'],
    [['--detect', '-0.5'], '--detect'],
    [['--detect', 'abc'], '--detect'],
    [['--detect-accuracy', '1'], '--detect-accuracy'],
    [['--detect-accuracy', '1.5'], '--detect-accuracy'],
    [['--detect-accuracy', '0'], '--detect-accuracy'],
    [['--detect', '0.1', '--power', '1'], '--power'],
    [['--detect', '0.1', '--power', '0'], '--power'],
    [['--detect-accuracy', '0.02', '--alpha', '1.2'], '--alpha'],
    [['--power', '0.9'], '--power'],
    [['--detect', '0.1', '--detect-accuracy', '0.02'], '--detect'],
  ])('%j exits 2 naming %s', async (args, flag) => {
    const r = await runCli(plan(...args));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(flag);
  });
});
