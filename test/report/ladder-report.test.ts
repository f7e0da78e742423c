/**
 * The ladder diagnostics of reports (issue 28, item 4): a full-ladder run against a scripted OpenAI-compatible server
 * (replies depend only on the question and the level's wording), then `hpt-bench report`:
 * - per-level accuracy, order violations, τ-b and the hazard equal an independent computation from the stored
 *   attempts (SQL on the store);
 * - the early-exit HPI derived from the full-ladder verdicts equals a real early-exit run's HPI;
 * - `report --ladder L1,L3,L5` equals a real run of the 3-level ladder role, three-shot-cot, generated-knowledge.
 * Also the HTML report draws the hazard chart, and `--ladder` without full-ladder runs is a clear error.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { boolqGradedLevel } from '../helpers/boolq-levels.js';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';

const HPI_DATASET = 1.71; // BoolQ's
const M = 5;
const N = 40;
/** Which levels solve question i: a fixed pseudo-random pattern (levels get better on the whole, with violations). */
const SOLVES: number[][] = Array.from({ length: N }, (_, i) => [1, 2, 3, 4, 5].filter((l) => ((i * 7919 + l * 104729) % 97) / 97 < 0.15 + 0.12 * l));
const ANSWERS = SOLVES.map((_, i) => i % 3 !== 0);


/**
 * The reply: model `m` answers right at the levels SOLVES gives; model `a` right at level 1 on questions i % 10 >= 3
 * and never on the others (30% unsolved); model `b` right at level 3 only (nothing unsolved).
 */
function reply(r: ReceivedRequest): Reply {
  const user = r.messages.filter((m) => m.role === 'user').at(-1)!.content;
  const q = Number(/\blr (?:question )?(\d+)/.exec(user)?.[1]);
  const level = boolqGradedLevel(user);
  if (level === undefined || !Number.isInteger(q)) return { text: 'Some notes.' };
  const right = r.model === 'a' ? level === 1 && q % 10 >= 3 : r.model === 'b' ? level === 3 : SOLVES[q]!.includes(level);
  return { text: (right ? ANSWERS[q] : !ANSWERS[q]) ? 'True' : 'False' };
}

let dir: string;
let store: string;
let data: string;
let server: TestServer;
const ok = (r: { code: number | null; stderr: string }) => expect(r.code, r.stderr).toBe(0);
const run = async (...more: string[]) => {
  const model = more[0]?.startsWith('openai:') ? more.shift()! : 'openai:m';
  const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', model, '--base-url', server.url, '--store', store, '--concurrency', '4', '--json', ...more], { env: { OPENAI_API_KEY: 'sk-test' } });
  ok(r);
  return JSON.parse(r.stdout) as { runId: string; hpi: number; accuracy: number };
};
let full: { runId: string; hpi: number };
let early: { runId: string; hpi: number };
let three: { runId: string; hpi: number; accuracy: number };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-ladder-report-'));
  store = join(dir, 'runs.db');
  data = join(dir, 'boolq.jsonl');
  writeFileSync(data, `${SOLVES.map((_, i) => JSON.stringify({ question: `is lr question ${i} true`, passage: `passage lr ${i}`, answer: ANSWERS[i] })).join('\n')}\n`);
  server = await startOpenAIServer(reply);
  full = await run('--full-ladder', '--no-cache');
  early = await run('--no-cache');
  const ladder = join(dir, 'l135.json');
  writeFileSync(ladder, JSON.stringify({ id: 'l135', levels: ['role', 'three-shot-cot', 'generated-knowledge'] }));
  three = await run('--ladder', ladder, '--no-cache');
}, 120_000);
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The stored verdicts of a run, by sample: solved[level - 1], from SQL. */
function verdicts(runId: string): boolean[][] {
  const db = new Database(store, { readonly: true });
  try {
    const rows = db.prepare("SELECT a.idx, a.level, a.solved FROM attempts a JOIN samples s ON s.run_id = a.run_id AND s.idx = a.idx WHERE a.run_id = ? AND s.status = 'done' ORDER BY a.idx, a.attempt").all(runId) as { idx: number; level: number; solved: number }[];
    const by = new Map<number, boolean[]>();
    for (const r of rows) {
      const v = by.get(r.idx) ?? [];
      v[r.level - 1] = r.solved === 1;
      by.set(r.idx, v);
    }
    return [...by.values()];
  } finally {
    db.close();
  }
}

/** Kendall's τ-b of x and y (textbook O(n²) form). */
function tauB(x: number[], y: number[]): number {
  let c = 0;
  let d = 0;
  let tx = 0;
  let ty = 0;
  for (let i = 0; i < x.length; i++)
    for (let j = i + 1; j < x.length; j++) {
      const a = Math.sign(x[i]! - x[j]!);
      const b = Math.sign(y[i]! - y[j]!);
      if (a === 0 && b === 0) continue;
      if (a === 0) tx++;
      else if (b === 0) ty++;
      else if (a === b) c++;
      else d++;
    }
  return (c - d) / Math.sqrt((c + d + tx) * (c + d + ty));
}

async function csvTable(id: string, ...more: string[]): Promise<string[][]> {
  const r = await runCli(['report', full.runId, '--store', store, '--format', 'csv', '--table', id, ...more]);
  ok(r);
  return parseCsv(r.stdout) as string[][];
}

describe('report: ladder diagnostics of a full-ladder run', () => {
  it('stores every level of every sample, as the scripted server answered', () => {
    const v = verdicts(full.runId);
    expect(v).toHaveLength(N);
    v.forEach((row, i) => expect(row).toEqual([1, 2, 3, 4, 5].map((l) => SOLVES[i]!.includes(l))));
  });

  it('per-level accuracy, order violations, τ and the early-exit HPI equal an independent computation; the early-exit HPI is a real early-exit run’s', async () => {
    const v = verdicts(full.runId);
    const acc = [0, 1, 2, 3, 4].map((k) => v.filter((r) => r[k]).length / N);
    const violating = v.filter((r) => r.some((s, i) => s && r.slice(i + 1).some((t) => !t))).length;
    const tau = tauB([1, 2, 3, 4, 5], acc);
    const hp = v.map((r) => (r.indexOf(true) >= 0 ? r.indexOf(true) + 1 : M + HPI_DATASET));
    const derived = hp.reduce((s, x) => s + x, 0) / N;
    const t = await csvTable('ladder-diagnostics');
    expect(t[0]).toEqual(['Run', ...[1, 2, 3, 4, 5].flatMap((l) => [`L${l} acc %`, `L${l} acc % lo`, `L${l} acc % hi`]), 'Order violations %', 'τ (level, acc)', 'HPI early exit', 'HPI (run)']);
    const row = t[1]!;
    [0, 1, 2, 3, 4].forEach((k) => expect(Number(row[1 + 3 * k])).toBeCloseTo(100 * acc[k]!, 9));
    expect(Number(row[16])).toBeCloseTo((100 * violating) / N, 9);
    expect(violating).toBeGreaterThan(0);
    expect(Number(row[17])).toBeCloseTo(tau, 9);
    expect(Number(row[18])).toBeCloseTo(derived, 12);
    expect(derived).toBeCloseTo(early.hpi, 12);
    expect(Number(row[19])).toBeCloseTo(full.hpi, 12);
    expect(full.hpi).toBeCloseTo(early.hpi, 12);
  });

  it('the hazard: among samples unsolved before level k, the share level k solves', async () => {
    const v = verdicts(full.runId);
    const t = await csvTable('ladder-hazard');
    let atRisk = v;
    for (let k = 0; k < M; k++) {
      const h = atRisk.length ? atRisk.filter((r) => r[k]).length / atRisk.length : null;
      if (h === null) expect(t[1]![1 + 3 * k]).toBe('');
      else expect(Number(t[1]![1 + 3 * k])).toBeCloseTo(100 * h, 9);
      atRisk = atRisk.filter((r) => !r[k]);
    }
    expect(Number(t[1]![1 + 3 * M])).toBe(atRisk.length);
  });

  it('report --ladder L1,L3,L5 equals a real run of that 3-level ladder, without new calls', async () => {
    const before = server.requests.length;
    const t = await csvTable('ladder-subset', '--ladder', 'L1,L3,L5');
    expect(server.requests.length).toBe(before);
    expect(t[0]).toEqual(['Run', 'Ladder', 'HPI', 'HPI lo', 'HPI hi', 'Acc %', 'Acc % lo', 'Acc % hi', 'Unsolved', 'HPI (run)', 'Missing']);
    expect(t[1]![1]).toBe('L1 role, L3 three-shot-cot, L5 generated-knowledge');
    expect(Number(t[1]![2])).toBeCloseTo(three.hpi, 12);
    expect(Number(t[1]![5])).toBeCloseTo(100 * three.accuracy, 9);
    expect(Number(t[1]![10])).toBe(0);
    // the same levels in another order give another HPI, computed here from the verdicts
    const v = verdicts(full.runId);
    const order = [5, 3, 1];
    const hp = v.map((r) => {
      const p = order.findIndex((l) => r[l - 1]);
      return p >= 0 ? p + 1 : 3 + HPI_DATASET;
    });
    const t2 = await csvTable('ladder-subset', '--ladder', '5,3,1');
    expect(Number(t2[1]![2])).toBeCloseTo(hp.reduce((s, x) => s + x, 0) / N, 12);
  });

  it('report --format json carries the diagnostics, the subset ladder and the paired tests at full precision', async () => {
    const r = await runCli(['report', full.runId, early.runId, '--store', store, '--format', 'json', '--ladder', 'L1,L3,L5']);
    ok(r);
    const j = JSON.parse(r.stdout) as {
      ladderDiagnostics: { runId: string; perLevelAccuracy: { accuracy: number }[]; earlyExitHpi: number; subLadder: { hpi: number; accuracy: number } }[];
      pairedTests: { a: string; b: string; hpiDiff: number; tests: { hpi: { permutation: { p: number } } } }[];
    };
    expect(j.ladderDiagnostics.map((d) => d.runId)).toEqual([full.runId]);
    const v = verdicts(full.runId);
    expect(j.ladderDiagnostics[0]!.perLevelAccuracy.map((a) => a.accuracy)).toEqual([0, 1, 2, 3, 4].map((k) => expect.closeTo(v.filter((x) => x[k]).length / N, 12)));
    expect(j.ladderDiagnostics[0]!.earlyExitHpi).toBeCloseTo(early.hpi, 12);
    expect(j.ladderDiagnostics[0]!.subLadder.hpi).toBeCloseTo(three.hpi, 12);
    expect(j.ladderDiagnostics[0]!.subLadder.accuracy).toBeCloseTo(three.accuracy, 12);
    // the two runs answer alike: a paired difference of 0 and p = 1
    expect(j.pairedTests).toHaveLength(1);
    expect(j.pairedTests[0]!.hpiDiff).toBe(0);
    expect(j.pairedTests[0]!.tests.hpi.permutation.p).toBe(1);
    const bad = await runCli(['report', early.runId, '--store', store, '--format', 'json', '--ladder', 'L1,L3']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('needs runs made with --full-ladder');
  });

  it('--ladder without a full-ladder run, or with a level beyond the ladder, is a clear error', async () => {
    const r = await runCli(['report', early.runId, '--store', store, '--format', 'md', '--ladder', 'L1,L3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--ladder L1,L3 needs runs made with --full-ladder');
    const r2 = await runCli(['report', full.runId, '--store', store, '--format', 'md', '--ladder', 'L1,L7']);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain(`--ladder names L7, but run ${full.runId} has a 5-level ladder`);
    const r3 = await runCli(['report', full.runId, '--store', store, '--format', 'md', '--ladder', 'L1,x']);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain("--ladder takes levels as L1,L3,L5 (or 1,3,5), got 'x'");
  });

  it('the HTML report draws the hazard chart of the full-ladder run', async () => {
    const out = join(dir, 'report.html');
    ok(await runCli(['report', full.runId, early.runId, '--store', store, '--out', out]));
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('Per-level hazard (full-ladder runs)');
    expect(html).toContain('Ladder diagnostics (full-ladder runs)');
  });

  it('HPI_Dataset sensitivity: two models whose HPI lines cross swap ranks at the computed crossover', async () => {
    const a = await run('openai:a');
    const b = await run('openai:b');
    // A: 70% solved at level 1, 30% unsolved: HPI(h) = 0.7 + 0.3 (5 + h); B: all at level 3: HPI(h) = 3
    expect(a.hpi).toBeCloseTo(0.7 + 0.3 * (M + HPI_DATASET), 12);
    expect(b.hpi).toBe(3);
    const cross = (3 - 0.7 - 0.3 * M) / 0.3; // 2.666…
    const r = await runCli(['report', a.runId, b.runId, '--store', store, '--format', 'csv', '--table', 'hpi-dataset-sensitivity-boolq']);
    ok(r);
    const t = parseCsv(r.stdout) as string[][];
    const head = t[0]!;
    expect(head.slice(0, 3)).toEqual(['Model', 'Unsolved %', 'HPI @ 0']);
    const col = (label: string) => head.indexOf(label);
    expect(Number(t[1]![col('Unsolved %')])).toBeCloseTo(30, 9);
    expect(Number(t[1]![col('HPI @ 1.71 (dataset)')])).toBeCloseTo(a.hpi, 12);
    expect(Number(t[2]![col('HPI @ 1.71 (dataset)')])).toBeCloseTo(b.hpi, 12);
    // below the crossover A ranks first, above it B
    expect([t[1]![col('rank @ 0')], t[2]![col('rank @ 0')]]).toEqual(['1', '2']);
    expect([t[1]![col('rank @ 5')], t[2]![col('rank @ 5')]]).toEqual(['2', '1']);
    const md = await runCli(['report', a.runId, b.runId, '--store', store, '--format', 'md', '--table', 'hpi-dataset-sensitivity-boolq']);
    ok(md);
    expect(md.stdout).toContain(`cross at HPI_Dataset = ${Number(cross.toFixed(3))} (HPI 3.000)`);
  });
});
