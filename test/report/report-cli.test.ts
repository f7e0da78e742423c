/**
 * `hpt-bench report` end to end: a store with several real runs made by the built CLI — BoolQ against an OpenAI-compatible test
 * server under two model names, two generated HiBench runs (random and oracle baselines), an adaptive run under
 * `--compat reference` (samples with 0 or 2 score records) and IWSLT at two thresholds — then `hpt-bench report` in
 * every format and `hpt-bench compare`. Numbers are checked against the store read independently with SQL; the HTML
 * page is opened in headless Chromium (no console errors, a non-blank screenshot, inline SVG, no network references).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { parse as parseCsv } from 'csv-parse/sync';
import { chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';
import { runCli, SHARED } from '../helpers/cli.js';

const CHROMIUM = '/usr/bin/chromium';
const XSS = 'Notes <script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"> & more';

/** FNV-1a of a string (the server's coin for right/wrong answers). */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

interface Expected {
  n: number;
  hpi: number;
  accuracy: number;
  levelCounts: Record<string, number>;
  callsPerLevel: Record<string, number>;
  summary: Record<string, unknown>;
}

/** A run's numbers read straight from the store with SQL (independently of the report module). */
function expectedFromStore(db: Database.Database, runId: string): Expected {
  const s = db.prepare("SELECT SUM(scores) AS n, SUM(hpi) AS h, SUM(solved) AS solved FROM samples WHERE run_id = ? AND status = 'done'").get(runId) as { n: number; h: number; solved: number };
  const levelCounts: Record<string, number> = {};
  for (const r of db.prepare("SELECT level, COUNT(*) AS c FROM samples WHERE run_id = ? AND status = 'done' AND solved > 0 GROUP BY level").all(runId) as { level: number; c: number }[]) levelCounts[String(r.level)] = r.c;
  levelCounts.unsolved = s.n - s.solved;
  const callsPerLevel: Record<string, number> = {};
  for (const r of db.prepare('SELECT level, COUNT(*) AS c FROM calls WHERE run_id = ? GROUP BY level').all(runId) as { level: number; c: number }[]) callsPerLevel[String(r.level)] = r.c;
  const summary = JSON.parse((db.prepare('SELECT summary FROM runs WHERE id = ?').get(runId) as { summary: string }).summary) as Record<string, unknown>;
  return { n: s.n, hpi: s.h / s.n, accuracy: s.solved / s.n, levelCounts, callsPerLevel, summary };
}

/** Per-sample (hpi / scores, solved / scores) of a run by sample id, straight from SQL. */
/** The paired tests of `compare --json` (the fields read here). */
interface PairedTestsJson {
  hpi: { permutation: { p: number; pHolm: number; exact: boolean } };
  accuracy: { mcnemar: { b: number; c: number; p: number; pHolm: number } | null; mcnemarNote?: string };
}

function perSample(db: Database.Database, runId: string): Map<string, { hpi: number; solved: number; scores: number }> {
  const rows = db.prepare("SELECT sample_id, hpi, solved, scores FROM samples WHERE run_id = ? AND status = 'done'").all(runId) as { sample_id: string; hpi: number; solved: number; scores: number }[];
  return new Map(rows.map((r) => [r.sample_id, { hpi: r.scores ? r.hpi / r.scores : Number.NaN, solved: r.scores ? r.solved / r.scores : Number.NaN, scores: r.scores }]));
}

/**
 * The level-transition matrix of two runs straight from SQL: each run's samples (level, solved, scores) by sample id,
 * the ladder length from its summary; samples with no recorded score in a run are left out, `unsolved` is the last row
 * / column. Also the ids B fixes (A unsolved, B solved) and breaks, in A's order.
 */
function transitionsFromStore(db: Database.Database, runA: string, runB: string) {
  const read = (runId: string) => {
    const rows = db.prepare("SELECT sample_id, level, solved, scores FROM samples WHERE run_id = ? AND status = 'done' ORDER BY idx").all(runId) as { sample_id: string; level: number | null; solved: number; scores: number }[];
    const ladder = (JSON.parse((db.prepare('SELECT summary FROM runs WHERE id = ?').get(runId) as { summary: string }).summary) as { ladder: string[] }).ladder.length;
    return { rows, ladder };
  };
  const a = read(runA);
  const b = read(runB);
  const bById = new Map(b.rows.map((r) => [r.sample_id, r]));
  const lvl = (r: { level: number | null; solved: number }) => (r.solved > 0 && r.level !== null ? r.level : null);
  const counts = Array.from({ length: a.ladder + 1 }, () => Array.from({ length: b.ladder + 1 }, () => 0));
  const fixed: string[] = [];
  const broken: string[] = [];
  for (const ra of a.rows) {
    const rb = bById.get(ra.sample_id);
    if (!rb || ra.scores === 0 || rb.scores === 0) continue;
    const la = lvl(ra);
    const lb = lvl(rb);
    counts[(la ?? a.ladder + 1) - 1]![(lb ?? b.ladder + 1) - 1]! += 1;
    if (la === null && lb !== null) fixed.push(ra.sample_id);
    if (la !== null && lb === null) broken.push(ra.sample_id);
  }
  const labels = (m: number) => [...Array.from({ length: m }, (_, i) => `L${i + 1}`), 'unsolved'];
  return { rows: labels(a.ladder), columns: labels(b.ladder), counts, fixed, broken };
}

interface TransitionsJson {
  transitions: { rows: string[]; columns: string[]; counts: number[][]; paired: number; totals: Record<string, number> };
  fixed: { sampleId: string; levelA: number | null; levelB: number | null }[];
  broken: { sampleId: string; levelA: number | null; levelB: number | null }[];
}

interface ReportRunJson {
  runId: string;
  dataset: string;
  model: string;
  mode: string;
  n: number;
  hpi: number;
  hpiCi95: [number, number] | null;
  accuracy: number;
  accuracyCi95: [number, number] | null;
  levelCounts: Record<string, number>;
  levels: Record<string, { calls: number; cachedCalls: number; promptTokens: number; completionTokens: number }>;
  calls: number;
  usage: { promptTokens: number; completionTokens: number };
  hpiDataset: number;
  threshold?: number;
  metrics?: Record<string, unknown>;
  selector?: string;
  invalidSelections?: number;
  compat: string;
  seed: number;
  createdAt: string;
}

const ok = (r: { code: number | null; stderr: string }) => {
  if (r.code !== 0) throw new Error(`CLI failed (${r.code}): ${r.stderr}`);
};
const oneErrorLine = (r: { code: number | null; stderr: string; stdout: string }, pattern: RegExp) => {
  expect(r.code).not.toBe(0);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^Error: /);
  expect(lines[0]).toMatch(pattern);
};

describe('hpt-bench report and compare over a store of real runs', () => {
  let server: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'hpt-report-'));
  const store = join(dir, 'store.db');
  const ids: Record<string, string> = {};
  let db: Database.Database;
  let failedId: string;

  beforeAll(async () => {
    // Graded calls (with a system message) answer True/False by a coin on (model, prompt), so samples spread over the
    // levels; chain and knowledge calls return text with HTML in it, which the HTML report must escape.
    server = await startOpenAIServer((req: ReceivedRequest): Reply => {
      const user = req.messages.map((m) => m.content).join('\n');
      if (req.messages.some((m) => m.role === 'system')) return { text: fnv(`${req.model}|${user}`) % 2 ? 'True' : 'False' };
      if (req.logprobs) return { text: XSS, logprobs: [-0.5, -0.25] };
      return { text: XSS };
    });
    const boolq = join(SHARED, 'data/hpt-representative/boolq.json');
    const iwslt = join(SHARED, 'data/hpt-representative/iwslt.json');
    const runs: [string, string[]][] = [
      ['modelA', ['--dataset', 'boolq', '--data', boolq, '--limit', '30', '--model', 'openai:model-a', '--base-url', server.url]],
      ['modelB', ['--dataset', 'boolq', '--data', boolq, '--limit', '30', '--model', 'openai:model-b', '--base-url', server.url]],
      ['random', ['--dataset', 'hibench/binary-tree', '--limit', '40', '--model', 'baseline:random']],
      ['oracle', ['--dataset', 'hibench/binary-tree', '--limit', '40', '--model', 'baseline:oracle']],
      ['adaptive', ['--mode', 'adaptive', '--selector', 'fixed:2', '--compat', 'reference', '--dataset', 'boolq', '--data', boolq, '--limit', '30', '--model', 'baseline:random']],
      ['iwslt15', ['--dataset', 'iwslt', '--data', iwslt, '--limit', '10', '--model', 'baseline:random', '--threshold', '0.15']],
      ['iwslt20', ['--dataset', 'iwslt', '--data', iwslt, '--limit', '10', '--model', 'baseline:random', '--threshold', '0.20']],
    ];
    for (const [name, args] of runs) {
      const r = await runCli(['run', ...args, '--store', store, '--json'], { env: { OPENAI_API_KEY: 'sk-test' } });
      ok(r);
      ids[name] = (JSON.parse(r.stdout) as { runId: string }).runId;
    }
    db = new Database(store);
    // a failed run (older than the others), which reports must leave out or refuse when named
    failedId = '20000101T000000-failed';
    db.prepare("INSERT INTO runs (id, created_at, updated_at, status, dataset, model, mode, config, error) VALUES (?, '2000-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z', 'failed', 'boolq', 'openai:x', 'manual', '{}', 'interrupted (SIGINT)')").run(failedId);
  }, 240_000);

  afterAll(async () => {
    db?.close();
    await server?.close();
  });

  async function jsonReport(args: string[] = []): Promise<{ runs: ReportRunJson[]; bootstrap: { resamples: number; seed: number } }> {
    const r = await runCli(['report', '--store', store, '--format', 'json', ...args]);
    ok(r);
    return JSON.parse(r.stdout) as { runs: ReportRunJson[]; bootstrap: { resamples: number; seed: number } };
  }

  it('json: every completed run, with n, HPI, accuracy, level counts and per-level calls equal to the store', async () => {
    const rep = await jsonReport();
    expect(rep.bootstrap).toMatchObject({ resamples: 2000, seed: 0 });
    expect(rep.runs.map((r) => r.runId).sort()).toEqual(Object.values(ids).sort());
    expect(rep.runs.some((r) => r.runId === failedId)).toBe(false);
    for (const run of rep.runs) {
      const exp = expectedFromStore(db, run.runId);
      expect(run.n).toBe(exp.n);
      expect(run.hpi).toBeCloseTo(exp.hpi, 12);
      expect(run.accuracy).toBeCloseTo(exp.accuracy, 12);
      for (const [k, v] of Object.entries(exp.levelCounts)) expect(run.levelCounts[k] ?? 0).toBe(v);
      expect(Object.fromEntries(Object.entries(run.levels).map(([k, v]) => [k, v.calls]))).toEqual(exp.callsPerLevel);
      expect(run.calls).toBe(Object.values(exp.callsPerLevel).reduce((a, b) => a + b, 0));
      // intervals: ordered and containing the point estimate
      expect(run.hpiCi95![0]).toBeLessThanOrEqual(run.hpi + 1e-12);
      expect(run.hpiCi95![1]).toBeGreaterThanOrEqual(run.hpi - 1e-12);
      expect(run.accuracyCi95![0]).toBeLessThanOrEqual(run.accuracy + 1e-12);
      expect(run.accuracyCi95![1]).toBeGreaterThanOrEqual(run.accuracy - 1e-12);
      expect(run).toMatchObject({ dataset: exp.summary.dataset, model: exp.summary.model, hpiDataset: exp.summary.hpiDataset, compat: exp.summary.compat, seed: exp.summary.seed });
      expect(typeof run.createdAt).toBe('string');
    }
    const byId = new Map(rep.runs.map((r) => [r.runId, r]));
    expect(byId.get(ids.modelA!)).toMatchObject({ model: 'openai:model-a', mode: 'manual', n: 30 });
    expect(byId.get(ids.modelB!)).toMatchObject({ model: 'openai:model-b', n: 30 });
    expect(byId.get(ids.oracle!)).toMatchObject({ hpi: 1, accuracy: 1, hpiCi95: [1, 1], accuracyCi95: [1, 1], n: 40 });
    const adaptive = byId.get(ids.adaptive!)!;
    expect(adaptive).toMatchObject({ mode: 'adaptive', selector: 'fixed:2', compat: 'reference' });
    expect(typeof adaptive.invalidSelections).toBe('number');
    expect(byId.get(ids.iwslt15!)!.threshold).toBe(0.15);
    expect(byId.get(ids.iwslt20!)!.threshold).toBe(0.2);
    expect(byId.get(ids.random!)!.metrics).toHaveProperty('hibench');
    // the runs spread over levels, so the level counts are exercised
    expect(Object.keys(byId.get(ids.modelA!)!.levelCounts).filter((k) => byId.get(ids.modelA!)!.levelCounts[k]! > 0).length).toBeGreaterThan(2);
  });

  it('--json equals --format json; the bootstrap is deterministic for a seed; --seed and --bootstrap change it', async () => {
    const a = await runCli(['report', '--store', store, '--json']);
    const b = await runCli(['report', '--store', store, '--format', 'json']);
    ok(a);
    expect(a.stdout).toBe(b.stdout);
    const seeded = await jsonReport(['--seed', '7']);
    const seededAgain = await jsonReport(['--seed', '7']);
    expect(seededAgain).toEqual(seeded);
    const base = JSON.parse(a.stdout) as { runs: ReportRunJson[] };
    expect(seeded.runs.map((r) => r.hpi)).toEqual(base.runs.map((r) => r.hpi));
    expect(seeded.runs.map((r) => r.hpiCi95)).not.toEqual(base.runs.map((r) => r.hpiCi95));
    const few = await jsonReport(['--bootstrap', '50']);
    expect(few.bootstrap.resamples).toBe(50);
  });

  it('named runs, --latest, and one-line errors for unknown ids, a missing store and a run that is not completed', async () => {
    const named = await jsonReport([ids.modelB!, ids.modelA!]);
    expect(named.runs.map((r) => r.runId)).toEqual([ids.modelB, ids.modelA]);
    const latest = await jsonReport(['--latest']);
    expect(latest.runs.map((r) => r.runId)).toEqual([ids.iwslt20]);

    oneErrorLine(await runCli(['report', 'no-such-run', '--store', store]), /no run no-such-run in/);
    const missing = join(dir, 'nowhere', 'missing.db');
    oneErrorLine(await runCli(['report', '--store', missing]), /no store at/);
    expect(existsSync(missing)).toBe(false);
    oneErrorLine(await runCli(['report', failedId, '--store', store, '--format', 'md']), /is failed, not completed/);
    oneErrorLine(await runCli(['compare', ids.modelA!, failedId, '--store', store]), /is failed, not completed/);
    // a run named twice: one comparison of a run with itself is no comparison
    oneErrorLine(await runCli(['compare', ids.modelA!, ids.modelB!, ids.modelA!, '--store', store]), new RegExp(`compare got run ${ids.modelA} twice`));
    oneErrorLine(await runCli(['compare', ids.modelA!, ids.modelA!, '--store', store]), new RegExp(`compare got run ${ids.modelA} twice`));
    oneErrorLine(await runCli(['report', '--store', store, '--format', 'csv', '--table', 'nope']), /no table 'nope'/);

    // --latest when the newest run is still running
    const copy = join(dir, 'copy.db');
    db.prepare('VACUUM INTO ?').run(copy);
    const c = new Database(copy);
    c.prepare("INSERT INTO runs (id, created_at, updated_at, status, dataset, model, mode, config) VALUES ('29990101T000000-running', '2999-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z', 'running', 'boolq', 'openai:x', 'manual', '{}')").run();
    c.close();
    oneErrorLine(await runCli(['report', '--latest', '--store', copy]), /29990101T000000-running is running, not completed/);
  });

  it('md: the HPT Table 1 / Table 3 layouts and the HiBench leaderboard, with the expected headers and rows', async () => {
    const r = await runCli(['report', '--store', store, '--format', 'md']);
    ok(r);
    const lines = r.stdout.split('\n');
    const expA = expectedFromStore(db, ids.modelA!);
    const expB = expectedFromStore(db, ids.modelB!);
    const expAd = expectedFromStore(db, ids.adaptive!);
    // Table 1 layout: rows = models, columns = datasets (HPI, Acc %); here only BoolQ (IWSLT and HiBench have their own tables)
    expect(lines).toContain('## HPI (lower is better) and accuracy (%)');
    expect(lines).toContain('| Model | BoolQ HPI | BoolQ Acc |');
    const row = (label: string) => lines.find((l) => l.startsWith(`| ${label} |`) && l.split('|').length === 5);
    expect(row('openai:model-a')).toMatch(new RegExp(`^\\| openai:model-a \\| ${expA.hpi.toFixed(2)} \\[[\\d.]+, [\\d.]+\\] \\| ${(100 * expA.accuracy).toFixed(2)} \\[`));
    expect(row('openai:model-b')).toMatch(new RegExp(`^\\| openai:model-b \\| ${expB.hpi.toFixed(2)} \\[`));
    expect(row('baseline:random \\(adaptive, fixed:2\\) \\[reference\\]'.replace(/\\/g, ''))).toMatch(new RegExp(`\\| ${expAd.hpi.toFixed(2)} \\[`));
    // Table 3 layout: one column per threshold
    expect(lines).toContain('| Model | IWSLT HPI 0.15 | IWSLT HPI 0.20 | BLEU 0.15 | BLEU 0.20 |');
    const e15 = expectedFromStore(db, ids.iwslt15!);
    const e20 = expectedFromStore(db, ids.iwslt20!);
    const bleu = (e: Expected) => ((e.summary.metrics as Record<string, number>).bleu as number).toFixed(2);
    expect(lines.find((l) => l.startsWith('| baseline:random |') && l.split('|').length === 7)).toMatch(
      new RegExp(`^\\| baseline:random \\| ${e15.hpi.toFixed(2)} \\[[^\\]]+\\] \\| ${e20.hpi.toFixed(2)} \\[[^\\]]+\\] \\| ${bleu(e15)} \\| ${bleu(e20)} \\|$`),
    );
    // HiBench: HPI per scenario, the leaderboard (scenario columns + Avg), the Binary task table, capability dimensions
    expect(lines).toContain('| Model | Binary HPI | Binary Acc |');
    // every scenario is a column; only Binary was run, so the others are marked and there is no Avg (never of fewer)
    expect(lines).toContain('| Model | Binary | Multiple | JSON | Code | Formula | Paper | Avg |');
    const hib = (id: string) => (expectedFromStore(db, id).summary.metrics as { hibench: { scenarios: Record<string, number> } }).hibench.scenarios['binary-tree']!;
    const notRun = ' not run |'.repeat(5);
    expect(lines).toContain(`| baseline:random | ${(100 * hib(ids.random!)).toFixed(2)} |${notRun} - |`);
    expect(lines).toContain(`| baseline:oracle | 100.00 |${notRun} - |`);
    const taskHeader = lines.find((l) => l.startsWith('| Model | ') && l.includes('mirror_tree'));
    expect(taskHeader).toBeDefined();
    expect(taskHeader!.trim().endsWith('| Avg |')).toBe(true);
    expect(lines.some((l) => l.startsWith('| Model | ') && l.includes('Global Structural Understanding'))).toBe(true);
    // the runs table names every run
    for (const id of Object.values(ids)) expect(r.stdout).toContain(`| ${id} |`);
  });

  it('csv: plain CSV per table (--table), numbers at full precision equal to the store, interval columns', async () => {
    const r = await runCli(['report', '--store', store, '--format', 'csv', '--table', 'hpt']);
    ok(r);
    const rows = parseCsv(r.stdout) as string[][];
    expect(rows[0]).toEqual(['Model', 'BoolQ HPI', 'BoolQ HPI lo', 'BoolQ HPI hi', 'BoolQ Acc', 'BoolQ Acc lo', 'BoolQ Acc hi']);
    expect(rows.map((x) => x[0])).toEqual(['Model', 'openai:model-a', 'openai:model-b', 'baseline:random (adaptive, fixed:2) [reference]']);
    for (const [label, id] of [['openai:model-a', ids.modelA!], ['openai:model-b', ids.modelB!], ['baseline:random (adaptive, fixed:2) [reference]', ids.adaptive!]] as const) {
      const exp = expectedFromStore(db, id);
      const row = rows.find((x) => x[0] === label)!.map(Number);
      expect(row[1]).toBeCloseTo(exp.hpi, 12);
      expect(row[4]).toBeCloseTo(100 * exp.accuracy, 10);
      expect(row[2]).toBeLessThanOrEqual(row[1]!);
      expect(row[3]).toBeGreaterThanOrEqual(row[1]!);
      expect(row[5]).toBeLessThanOrEqual(row[4]!);
      expect(row[6]).toBeGreaterThanOrEqual(row[4]!);
    }
    const t3 = parseCsv((await runCli(['report', '--store', store, '--format', 'csv', '--table', 'threshold'])).stdout) as string[][];
    expect(t3[0]).toEqual(['Model', 'IWSLT HPI 0.15', 'IWSLT HPI 0.15 lo', 'IWSLT HPI 0.15 hi', 'IWSLT HPI 0.20', 'IWSLT HPI 0.20 lo', 'IWSLT HPI 0.20 hi', 'BLEU 0.15', 'BLEU 0.20']);
    const e15 = expectedFromStore(db, ids.iwslt15!);
    expect(Number(t3[1]![1])).toBeCloseTo(e15.hpi, 12);
    expect(Number(t3[1]![7])).toBeCloseTo((e15.summary.metrics as Record<string, number>).bleu!, 12);
    // every table in one file: blocks introduced by "# <id>: <title>"
    const all = await runCli(['report', '--store', store, '--format', 'csv']);
    ok(all);
    const blocks = all.stdout.split(/\r?\n/).filter((l) => l.startsWith('# ')).map((l) => l.slice(2, l.indexOf(':')));
    // one HPI_Dataset sensitivity table per dataset reported with two or more models, after the paired tests
    const sens = blocks.filter((b) => b.startsWith('hpi-dataset-sensitivity-'));
    expect(sens.length).toBeGreaterThan(0);
    expect(new Set(sens).size).toBe(sens.length);
    expect(blocks.indexOf(sens[0]!)).toBe(2);
    expect(blocks.filter((b) => !b.startsWith('hpi-dataset-sensitivity-'))).toEqual(['runs', 'paired-tests', 'usage', 'hpt', 'threshold', 'hibench', 'hibench-leaderboard', 'hibench-binary-tree', 'hibench-dimensions']);
  });

  it('table: aligned text tables (no colour when not on a colour TTY)', async () => {
    const r = await runCli(['report', ids.modelA!, '--store', store, '--format', 'table']);
    ok(r);
    expect(r.stdout).toContain('┌');
    expect(r.stdout).toContain(ids.modelA);
    expect(r.stdout).toMatch(/│ Model\s+│ BoolQ HPI\s+│ BoolQ Acc\s+│/);
    expect(r.stdout).not.toMatch(/\u001b\[/);
  });

  it('html: one self-contained page with inline SVG charts, escaped trace, rendered without errors in headless Chromium', async () => {
    const started = performance.now();
    const out = join(dir, 'html', 'report.html');
    const r = await runCli(['report', '--store', store, '--format', 'html', '--out', out]);
    ok(r);
    expect(r.stdout).toBe('');
    expect(readdirSync(join(dir, 'html'))).toEqual(['report.html']); // written atomically: no temp file left
    const html = readFileSync(out, 'utf8');
    const generated = performance.now();

    // self-contained: inline charts, no network references, no external scripts/styles/fonts
    expect((html.match(/<svg\b/g) ?? []).length).toBeGreaterThanOrEqual(8);
    expect(html).not.toMatch(/\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?\/\//i);
    expect(html).not.toMatch(/url\(\s*["']?\s*(?:https?:)?\/\//i);
    expect(html).not.toMatch(/@import/i);
    expect(html).not.toMatch(/<script\b[^>]*\bsrc=/i);
    expect(html).not.toMatch(/<link\b[^>]*rel=["']?stylesheet/i);
    // the chart ids and the trace are there
    for (const id of ['heatmap-hpi', 'heatmap-accuracy', 'levels', 'tokens', 'scatter', 'hibench-preset', 'hibench-dimension-hpi', 'hibench-dimension-accuracy']) expect(html).toContain(`id="chart-${id}"`);
    // level-transition heatmaps: one per pair of runs on the same dataset and threshold (A before B in report order)
    const transitionIds = [...html.matchAll(/id="chart-transitions-([^"]+)"/g)].map((m) => m[1]);
    expect(transitionIds.sort()).toEqual([`${ids.modelA}-${ids.modelB}`, `${ids.modelA}-${ids.adaptive}`, `${ids.modelB}-${ids.adaptive}`, `${ids.random}-${ids.oracle}`].sort());
    expect(html).toContain('<a href="#transitions">Level transitions</a>');
    {
      const start = html.indexOf(`id="chart-transitions-${ids.modelA}-${ids.modelB}"`);
      const fig = html.slice(start, html.indexOf('</figure>', start));
      const exp = transitionsFromStore(db, ids.modelA!, ids.modelB!);
      // one rect per cell, labelled with its row, column and count; each count also drawn as text
      const rectGroup = fig.slice(fig.indexOf('layer_0_marks'), fig.indexOf('layer_1_marks'));
      const rects = [...rectGroup.matchAll(/aria-label="B solved at: ([^;]+); A solved at: ([^;]+); samples: (\d+)"/g)];
      expect(rects).toHaveLength(exp.rows.length * exp.columns.length);
      for (const [, col, row, count] of rects) expect(Number(count)).toBe(exp.counts[exp.rows.indexOf(row!)]![exp.columns.indexOf(col!)]);
      const texts = [...fig.matchAll(/aria-roledescription="text mark"[^>]*>(\d+)<\/text>/g)].map((m) => Number(m[1]));
      expect(texts.sort((x, y) => x - y)).toEqual(exp.counts.flat().sort((x, y) => x - y));
      expect(fig).toContain(`B fixes ${exp.fixed.length} (A unsolved, B solved)`);
    }
    expect(html).toContain('<details class="sample" data-t="0" data-i="0">');
    // model text is escaped, never injected
    expect(html).not.toContain('<script>window.__xss');
    expect(html).not.toContain('<img src=x');
    // one executable script; the trace bodies are per-run gzip + base64 data blocks (issue 16) holding the model's text
    // as plain JSON strings (the page turns them into text nodes)
    expect((html.match(/<script>/g) ?? []).length).toBe(1);
    const blocks = [...html.matchAll(/<script\b([^>]*)>([^<]*)<\/script>/g)].filter((m) => m[1] !== '');
    expect(blocks.length).toBe(7);
    for (const [, attrs, text] of blocks) {
      expect(attrs).toMatch(/^ type="application\/octet-stream" id="trace-\d+"$/);
      expect(text).toMatch(/^[A-Za-z0-9+/=]+$/);
    }
    const bodies = blocks.map((m) => gunzipSync(Buffer.from(m[2]!, 'base64')).toString('utf8'));
    expect(bodies.some((b) => b.includes(JSON.stringify(XSS).slice(1, -1)))).toBe(true);
    expect(bodies.some((b) => b.includes('["h5","","Selector"]'))).toBe(true); // the adaptive run's selections

    // headless Chromium: renders, no console errors, no request leaves the file, screenshots are not blank
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    let opened = 0;
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('request', (q) => requests.push(q.url()));
      await page.goto(pathToFileURL(out).href, { waitUntil: 'load' });
      opened = performance.now();
      expect(await page.title()).toBe('hpt-bench report');
      expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
      // the SVG charts have a size on the page
      const sizes = await page.$$eval('figure.chart svg', (svgs) => svgs.map((s) => s.getBoundingClientRect()).map((b) => b.width * b.height));
      expect(sizes.length).toBeGreaterThanOrEqual(8);
      expect(sizes.every((a) => a > 10_000)).toBe(true);

      const pixels = (buf: Buffer) => {
        const png = PNG.sync.read(buf);
        const colours = new Set<number>();
        let nonWhite = 0;
        for (let i = 0; i < png.data.length; i += 4) {
          const [r, g, b] = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
          colours.add((r << 16) | (g << 8) | b);
          if (r < 240 || g < 240 || b < 240) nonWhite++;
        }
        return { colours: colours.size, nonWhite: nonWhite / (png.width * png.height) };
      };
      const top = pixels(await page.screenshot());
      expect(top.colours).toBeGreaterThan(100);
      expect(top.nonWhite).toBeGreaterThan(0.05);
      const heat = pixels(await page.locator('#chart-heatmap-hpi').screenshot());
      expect(heat.colours).toBeGreaterThan(50);
      expect(heat.nonWhite).toBeGreaterThan(0.05);

      // the runs table fits a 1,400 px window (ids wrap instead of pushing the Cost column out of view)
      await page.setViewportSize({ width: 1400, height: 900 });
      const runsTable = await page.$eval('#table-runs table', (t) => t.getBoundingClientRect().right);
      expect(runsTable).toBeLessThanOrEqual(1400);
      // every trace row names its question by its first words (these samples' ids are indices or opaque)
      const rowsWithQuestion = await page.locator('details.sample > summary .q').count();
      expect(rowsWithQuestion).toBeGreaterThan(0);

      // the trace is collapsed and filterable
      const total = await page.locator('details.sample').count();
      expect(total).toBe(30 + 30 + 40 + 40 + 30 + 10 + 10);
      expect(await page.locator('details.sample[open]').count()).toBe(0);
      await page.fill('#trace-filter', 'mirror_tree');
      const shown = await page.locator('details.sample:not(.hidden)').count();
      expect(shown).toBeGreaterThan(0);
      expect(shown).toBeLessThan(total);
      expect(await page.textContent('#trace-count')).toBe(`${shown} of ${total} samples`);
      await page.fill('#trace-filter', '');
      expect(await page.locator('details.sample:not(.hidden)').count()).toBe(total);

      // trace bodies are rendered when a sample is opened; the summary filter does not see prompts and responses, the
      // "search prompts and responses too" box does (after decompressing every run)
      expect(await page.locator('details.sample .call').count()).toBe(0);
      await page.fill('#trace-filter', 'window.__xss');
      expect(await page.locator('details.sample:not(.hidden)').count()).toBe(0);
      await page.check('#trace-deep');
      await page.waitForSelector('body[data-trace-search="ready"]');
      const withXss = page.locator('details.sample:not(.hidden)');
      const xssShown = await withXss.count();
      expect(xssShown).toBeGreaterThan(0);
      expect(await page.textContent('#trace-count')).toBe(`${xssShown} of ${total} samples`);
      const first = withXss.first();
      await first.locator('summary').click();
      await page.waitForSelector('details.sample[data-rendered]');
      const pres = await first.locator('pre').allTextContents();
      expect(pres.some((t) => t.includes(XSS))).toBe(true); // the model's markup shown literally
      expect(await first.locator('img, script').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
      await page.uncheck('#trace-deep');
      await page.fill('#trace-filter', '');
      // the adaptive run's selector choices
      const adaptiveSample = page.locator(`section[data-run="${ids.adaptive}"] details.sample`).first();
      await adaptiveSample.locator('summary').click();
      await adaptiveSample.locator('h5', { hasText: 'Selector' }).waitFor();
      expect(await adaptiveSample.locator('table.sel tbody tr').count()).toBeGreaterThan(0);

      expect(errors).toEqual([]);
      expect(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'))).toEqual([]);
    } finally {
      await browser.close();
    }
    const done = performance.now();
    process.stderr.write(`[report html timing] generate ${(generated - started).toFixed(0)} ms, chromium open ${(opened - generated).toFixed(0)} ms, checks ${(done - opened).toFixed(0)} ms\n`);

    // the trace cap: at most N samples per run, and the page says so
    const capped = join(dir, 'capped.html');
    ok(await runCli(['report', ids.random!, ids.modelA!, '--store', store, '--out', capped, '--trace-limit', '5']));
    const c = readFileSync(capped, 'utf8');
    expect((c.match(/<details class="sample"/g) ?? []).length).toBe(10);
    expect(c).toContain('the first 5 of 40');
    expect(c).toContain('the first 5 of 30');
  }, 120_000);

  it('compare: the paired HPI difference equals the mean of per-sample differences computed from the store', async () => {
    const r = await runCli(['compare', ids.modelA!, ids.modelB!, '--store', store, '--json']);
    ok(r);
    const res = JSON.parse(r.stdout) as { paired: number; hpiDiff: number; hpiDiffCi95: [number, number]; accuracyDiff: number; accuracyDiffCi95: [number, number]; a: { hpi: number }; b: { hpi: number } };
    const a = perSample(db, ids.modelA!);
    const b = perSample(db, ids.modelB!);
    const d = [...a].filter(([id]) => b.has(id)).map(([id, x]) => [x.hpi - b.get(id)!.hpi, x.solved - b.get(id)!.solved] as const);
    expect(res.paired).toBe(30);
    expect(d.length).toBe(30);
    expect(res.hpiDiff).toBeCloseTo(d.reduce((s, x) => s + x[0], 0) / d.length, 12);
    expect(res.accuracyDiff).toBeCloseTo(d.reduce((s, x) => s + x[1], 0) / d.length, 12);
    expect(res.a.hpi).toBeCloseTo(expectedFromStore(db, ids.modelA!).hpi, 12);
    expect(res.hpiDiffCi95[0]).toBeLessThanOrEqual(res.hpiDiff);
    expect(res.hpiDiffCi95[1]).toBeGreaterThanOrEqual(res.hpiDiff);
    expect(res.accuracyDiffCi95[0]).toBeLessThanOrEqual(res.accuracyDiff);
    expect(res.accuracyDiffCi95[1]).toBeGreaterThanOrEqual(res.accuracyDiff);
    // deterministic for a seed
    expect((await runCli(['compare', ids.modelA!, ids.modelB!, '--store', store, '--json'])).stdout).toBe(r.stdout);

    // against the adaptive --compat reference run: per-sample HPI = stored sum / recorded scores; unscored left out
    const ad = perSample(db, ids.adaptive!);
    expect([...ad.values()].some((x) => x.scores !== 1)).toBe(true); // the run really has samples with 0 or 2 records
    const r2 = await runCli(['compare', ids.adaptive!, ids.modelA!, '--store', store, '--json']);
    ok(r2);
    const res2 = JSON.parse(r2.stdout) as { paired: number; unscored: number; hpiDiff: number; accuracyDiff: number };
    const d2 = [...ad].filter(([id, x]) => a.has(id) && x.scores > 0).map(([id, x]) => [x.hpi - a.get(id)!.hpi, x.solved - a.get(id)!.solved] as const);
    expect(res2.paired).toBe(d2.length);
    expect(res2.unscored).toBe([...ad.values()].filter((x) => x.scores === 0).length);
    expect(res2.hpiDiff).toBeCloseTo(d2.reduce((s, x) => s + x[0], 0) / d2.length, 12);
    expect(res2.accuracyDiff).toBeCloseTo(d2.reduce((s, x) => s + x[1], 0) / d2.length, 12);

    // the text output
    const t = await runCli(['compare', ids.modelA!, ids.modelB!, '--store', store]);
    ok(t);
    expect(t.stdout).toContain('A - B [95% CI]');
    expect(t.stdout).toContain('paired samples: 30');
  });

  it('compare: McNemar and the permutation test from the store; three runs give Holm-adjusted p-values', async () => {
    const r = await runCli(['compare', ids.modelA!, ids.modelB!, '--store', store, '--json', '--permutations', '200000']);
    ok(r);
    const res = JSON.parse(r.stdout) as { tests: PairedTestsJson };
    const a = perSample(db, ids.modelA!);
    const b = perSample(db, ids.modelB!);
    const shared = [...a.keys()].filter((id) => b.has(id));
    const onlyA = shared.filter((id) => a.get(id)!.solved === 1 && b.get(id)!.solved === 0).length;
    const onlyB = shared.filter((id) => a.get(id)!.solved === 0 && b.get(id)!.solved === 1).length;
    const m = res.tests.accuracy.mcnemar!;
    expect([m.b, m.c]).toEqual([onlyA, onlyB]);
    // exact two-sided binomial p on the discordant pairs, summed here
    const n = onlyA + onlyB;
    let tail = 0;
    for (let k = 0, c = 1; k <= Math.min(onlyA, onlyB); k++, c = (c * (n - k + 1)) / k) tail += c / 2 ** n;
    expect(m.p).toBeCloseTo(Math.min(1, 2 * tail), 12);
    // the permutation p (200,000 sign vectors) against an independent Monte Carlo estimate (Math.random, 200,000):
    // their standard errors are at most 0.0012 each, so 0.01 apart would be a real difference
    const d = shared.map((id) => a.get(id)!.hpi - b.get(id)!.hpi);
    const obs = Math.abs(d.reduce((x, y) => x + y, 0));
    let extreme = 0;
    for (let i = 0; i < 200_000; i++) if (Math.abs(d.reduce((x, y) => x + (Math.random() < 0.5 ? -y : y), 0)) >= obs - 1e-9) extreme++;
    expect(Math.abs(res.tests.hpi.permutation.p - extreme / 200_000)).toBeLessThan(0.01);
    expect(res.tests.hpi.permutation.pHolm).toBe(res.tests.hpi.permutation.p);

    // A against B and against the adaptive run: p-values Holm-adjusted over the two comparisons
    const many = await runCli(['compare', ids.modelA!, ids.modelB!, ids.adaptive!, '--store', store, '--json']);
    ok(many);
    const fam = JSON.parse(many.stdout) as { runs: string[]; adjustment: string; comparisons: { a: { runId: string }; b: { runId: string }; tests: PairedTestsJson }[] };
    expect(fam.runs).toEqual([ids.modelA, ids.modelB, ids.adaptive]);
    expect(fam.comparisons.map((c) => [c.a.runId, c.b.runId])).toEqual([
      [ids.modelA, ids.modelB],
      [ids.modelA, ids.adaptive],
    ]);
    const ps = fam.comparisons.map((c) => c.tests.hpi.permutation.p);
    const lo = Math.min(...ps);
    const hi = Math.max(...ps);
    const holmLo = Math.min(1, 2 * lo);
    const holmHi = Math.max(holmLo, hi);
    expect(fam.comparisons.map((c) => c.tests.hpi.permutation.pHolm)).toEqual(ps.map((p) => expect.closeTo(p === lo ? holmLo : holmHi, 12)));
    // the adaptive --compat reference run records 0 or 2 scores for some samples: no McNemar for that pair, said why
    expect(fam.comparisons[1]!.tests.accuracy.mcnemar).toBeNull();
    expect(fam.comparisons[1]!.tests.accuracy.mcnemarNote).toMatch(/solved share other than 0 or 1/);
    const text = await runCli(['compare', ids.modelA!, ids.modelB!, ids.adaptive!, '--store', store]);
    ok(text);
    expect(text.stdout).toContain('Paired tests (A - B, two-sided, on 30 paired samples):');
    expect(text.stdout).toMatch(/sign-flip permutation test p = \S+ \(Holm-adjusted over 2 comparisons: \S+\)/);
    expect(text.stdout).toContain(`McNemar exact test p = `);

    // the report's paired-tests table: the same pair, the same difference and McNemar p (Holm over the report's pairs)
    const csv = await runCli(['report', ids.modelA!, ids.modelB!, ids.adaptive!, '--store', store, '--format', 'csv', '--table', 'paired-tests']);
    ok(csv);
    const rows = parseCsv(csv.stdout) as string[][];
    expect(rows[0]).toEqual(['Dataset', 'A', 'B', 'Paired', 'ΔHPI (A−B)', 'ΔHPI (A−B) lo', 'ΔHPI (A−B) hi', 'd_z', 'p perm.', 'p perm. Holm', 'ΔAcc pp', 'ΔAcc pp lo', 'ΔAcc pp hi', 'p McNemar', 'p McNemar Holm']);
    // three runs of one dataset: three pairs, in report order
    expect(rows.slice(1).filter((r) => r.length > 1)).toHaveLength(3);
    const ab = rows.find((r) => r[1]!.includes('model-a') && r[2]!.includes('model-b'))!;
    expect(Number(ab[3])).toBe(30);
    expect(Number(ab[4])).toBeCloseTo((JSON.parse(r.stdout) as { hpiDiff: number }).hpiDiff, 12);
    expect(Number(ab[13])).toBeCloseTo(m.p, 12);
    expect(Number(ab[14])).toBeGreaterThanOrEqual(Number(ab[13]));
  });

  it('compare: the level-transition table and the fixed / broken samples equal the levels read from the store', async () => {
    for (const [a, b] of [[ids.modelA!, ids.modelB!], [ids.adaptive!, ids.modelA!]] as const) {
      const r = await runCli(['compare', a, b, '--store', store, '--json']);
      ok(r);
      const res = JSON.parse(r.stdout) as TransitionsJson & { paired: number; hpiDiff: number };
      const exp = transitionsFromStore(db, a, b);
      expect(res.transitions.rows).toEqual(exp.rows);
      expect(res.transitions.columns).toEqual(exp.columns);
      expect(res.transitions.counts).toEqual(exp.counts);
      expect(res.transitions.paired).toBe(res.paired);
      expect(res.fixed.map((x) => x.sampleId)).toEqual(exp.fixed);
      expect(res.broken.map((x) => x.sampleId)).toEqual(exp.broken);
      expect(res.transitions.totals.fixed).toBe(exp.fixed.length);
      expect(res.transitions.totals.broken).toBe(exp.broken.length);
      // the runs really differ, so the matrix is not trivially diagonal
      expect(exp.counts.some((row, i) => row.some((c, j) => i !== j && c > 0))).toBe(true);
    }
    const exp = transitionsFromStore(db, ids.modelA!, ids.modelB!);
    expect(exp.rows).toEqual(['L1', 'L2', 'L3', 'L4', 'L5', 'unsolved']);

    // text: a row per level of A with B's counts and the row total, a total row, then the lists (at most --list each)
    const t = await runCli(['compare', ids.modelA!, ids.modelB!, '--store', store, '--list', '1']);
    ok(t);
    const lines = t.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('Level transitions on the 30 paired samples: rows = A openai:model-a'));
    expect(at).toBeGreaterThan(0);
    const cells = (l: string) => l.split('│').slice(1, -1).map((c) => c.trim());
    expect(cells(lines.find((l, i) => i > at && l.includes('A \\ B'))!)).toEqual(['A \\ B', ...exp.columns, 'total']);
    for (const [i, label] of exp.rows.entries()) {
      const row = lines.find((l, k) => k > at && cells(l)[0] === label);
      expect(cells(row!)).toEqual([label, ...exp.counts[i]!.map(String), String(exp.counts[i]!.reduce((x, y) => x + y, 0))]);
    }
    expect(cells(lines.find((l, k) => k > at && cells(l)[0] === 'total')!)).toEqual(['total', ...exp.columns.map((_, j) => String(exp.counts.reduce((x, row) => x + row[j]!, 0))), '30']);
    expect(t.stdout).toContain(`B fixes ${exp.fixed.length} (A unsolved, B solved), breaks ${exp.broken.length} (A solved, B unsolved)`);
    expect(exp.fixed.length + exp.broken.length).toBeGreaterThan(0);
    for (const [title, list] of [['fixed by B', exp.fixed], ['broken by B', exp.broken]] as const) {
      if (list.length === 0) continue;
      const k = lines.findIndex((l) => l.startsWith(`${title} (${list.length}`));
      expect(k).toBeGreaterThan(at);
      if (list.length > 1) expect(lines[k]).toContain('the first 1; --json lists all');
      expect(lines[k + 1]).toMatch(new RegExp(`^  ${list[0]}: A (L\\d|unsolved) -> B (L\\d|unsolved)$`));
      expect(lines[k + 2] ?? '').not.toMatch(/^  /);
    }

    // runs without shared samples, unknown ids
    oneErrorLine(await runCli(['compare', ids.modelA!, ids.random!, '--store', store]), /share no scored sample/);
    oneErrorLine(await runCli(['compare', ids.modelA!, 'nope', '--store', store]), /no run nope in/);
  });
});
