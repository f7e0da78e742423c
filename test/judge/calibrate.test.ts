/**
 * HPI_Dataset calibration (specs/hpt.md §2.4, §9 #21): the core math and validation, `hpt-bench
 * calibrate --annotations` on CSV and JSONL files (seeded random annotations against an independent computation, and
 * rows whose column means are HumanEval's published 4.625 / 4.75 / 4.625 / 4.75, which must give exactly 4.6875), one
 * clear error line for bad files, `--judge` against a scripted judge on 127.0.0.1, and `--save` read back by another
 * process through `savedHpiDataset`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  annotationRow,
  calibrateFromAnnotations,
  calibrationSampleSize,
  hpiFromRuleScores,
  parseAnnotationsJsonl,
  saveCalibration,
  savedHpiDataset,
  selectCalibrationSamples,
  type Sample,
} from '@hpt-bench/core';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';
import { ROOT, runCli, SHARED } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-calibrate-'));

/** A small seeded generator (LCG), independent of the code under test. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

type Row = { id: string; rules: number[] };

function writeCsv(name: string, rows: Row[], header = 'id,rule1,rule2,rule3,rule4'): string {
  const path = join(dir, name);
  writeFileSync(path, `${header}\n${rows.map((r) => [r.id, ...r.rules].join(',')).join('\n')}\n`);
  return path;
}

function writeJsonl(name: string, rows: Row[]): string {
  const path = join(dir, name);
  writeFileSync(path, rows.map((r) => JSON.stringify({ id: r.id, rule1: r.rules[0], rule2: r.rules[1], rule3: r.rules[2], rule4: r.rules[3] })).join('\n') + '\n');
  return path;
}

/** Per-sample mean of the four, then the mean over samples (hpt.md §2.4 steps 3-4), computed here independently. */
function independent(rows: Row[]) {
  const perSample = rows.map((r) => (r.rules[0]! + r.rules[1]! + r.rules[2]! + r.rules[3]!) / 4);
  return {
    hpiDataset: perSample.reduce((a, b) => a + b, 0) / rows.length,
    ruleMeans: [0, 1, 2, 3].map((i) => rows.reduce((a, r) => a + r.rules[i]!, 0) / rows.length),
  };
}

// HumanEval's human sheet: column means 4.625 / 4.75 / 4.625 / 4.75 over 8 samples (hpt.md §2.4), published as 4.68
const HUMANEVAL: Row[] = [
  [5, 5, 4, 5],
  [5, 5, 5, 5],
  [4, 4, 5, 4],
  [5, 5, 5, 5],
  [4, 5, 4, 5],
  [5, 4, 5, 4],
  [4, 5, 4, 5],
  [5, 5, 5, 5],
].map((rules, i) => ({ id: `HumanEval/${i}`, rules }));

interface CalibrateJson {
  hpiDataset: number;
  n: number;
  ruleMeans: number[];
  source?: string;
  dataset?: string;
  saved?: string;
  sampled?: number;
  invalid?: number;
}

describe('calibration core', () => {
  it('hpiFromRuleScores: mean of per-sample means, column means, no rounding', () => {
    expect(hpiFromRuleScores(HUMANEVAL.map((r) => r.rules))).toEqual({ hpiDataset: 4.6875, n: 8, ruleMeans: [4.625, 4.75, 4.625, 4.75] });
    const r = hpiFromRuleScores([
      [1, 2, 2, 2],
      [3, 3, 3, 4],
      [5, 1, 1, 1],
    ]);
    expect(r.hpiDataset).toBeCloseTo((7 / 4 + 13 / 4 + 8 / 4) / 3, 14);
    expect(r.ruleMeans).toEqual([3, 2, 2, 7 / 3]);
    expect(() => hpiFromRuleScores([])).toThrow(/no scored samples/);
  });

  it('annotationRow validates each field and names file, line and field', () => {
    expect(annotationRow({ id: 'a', rule1: '1', rule2: 2, rule3: '4.5', rule4: ' 5 ' }, 'f.csv', 2)).toEqual({ id: 'a', line: 2, scores: [1, 2, 4.5, 5] });
    expect(annotationRow({ id: 7, rule1: 1, rule2: 1, rule3: 1, rule4: 1 }, 'f', 3).id).toBe('7');
    expect(() => annotationRow({ id: 'a', rule1: 1, rule2: 1, rule3: 1 }, 'f.csv', 4)).toThrow("f.csv: line 4: missing field 'rule4'");
    expect(() => annotationRow({ id: 'a', rule1: 1, rule2: '0.5', rule3: 1, rule4: 1 }, 'f.csv', 5)).toThrow(`f.csv: line 5: field 'rule2': "0.5" is not a number in [1, 5]`);
    expect(() => annotationRow({ id: 'a', rule1: 'x', rule2: 1, rule3: 1, rule4: 1 }, 'f.csv', 6)).toThrow(/line 6: field 'rule1'/);
    expect(() => annotationRow({ id: '', rule1: 1, rule2: 1, rule3: 1, rule4: 1 }, 'f.csv', 7)).toThrow("f.csv: line 7: missing field 'id'");
  });

  it('duplicate ids and empty input are errors', () => {
    const rows = parseAnnotationsJsonl('{"id":"a","rule1":1,"rule2":1,"rule3":1,"rule4":1}\n\n{"id":"a","rule1":2,"rule2":2,"rule3":2,"rule4":2}\n', 'x.jsonl');
    expect(() => calibrateFromAnnotations(rows, 'x.jsonl')).toThrow("x.jsonl: line 3: duplicate id 'a' (first on line 1)");
    expect(() => calibrateFromAnnotations([], 'x.jsonl')).toThrow(/x.jsonl: no annotation rows/);
  });

  it('representative sample size: ~5%, at least 1, capped by --limit', () => {
    expect(calibrationSampleSize(163, 0.05)).toBe(8);
    expect(calibrationSampleSize(3270, 0.05)).toBe(164);
    expect(calibrationSampleSize(8, 0.05)).toBe(1);
    expect(calibrationSampleSize(1000, 0.05, 10)).toBe(10);
    expect(calibrationSampleSize(0, 0.05)).toBe(0);
    expect(() => calibrationSampleSize(10, 0)).toThrow(/fraction/);
  });

  it('selectCalibrationSamples is seeded, in input order, without repeats', async () => {
    const samples: Sample[] = Array.from({ length: 200 }, (_, i) => ({ id: `s${i}`, index: i, input: {}, target: null }));
    const load = async function* () {
      yield* samples;
    };
    const a = await selectCalibrationSamples(load, { fraction: 0.05, seed: 3 });
    const b = await selectCalibrationSamples(load, { fraction: 0.05, seed: 3 });
    const c = await selectCalibrationSamples(load, { fraction: 0.05, seed: 4 });
    expect(a.total).toBe(200);
    expect(a.samples.length).toBe(10);
    expect(a.samples.map((s) => s.id)).toEqual(b.samples.map((s) => s.id));
    expect(a.samples.map((s) => s.id)).not.toEqual(c.samples.map((s) => s.id));
    const idx = a.samples.map((s) => s.index);
    expect([...idx].sort((x, y) => x - y)).toEqual(idx);
    expect(new Set(idx).size).toBe(idx.length);
  });

  it('saveCalibration / savedHpiDataset round-trip and replace', () => {
    const db = new Database(':memory:');
    expect(savedHpiDataset(db, 'x')).toBeUndefined();
    saveCalibration(db, { dataset: 'x', hpiDataset: 2.5, n: 3, source: 'annotations', createdAt: '2025-01-01T00:00:00.000Z' });
    expect(savedHpiDataset(db, 'x')).toEqual({ hpiDataset: 2.5, n: 3, source: 'annotations', createdAt: '2025-01-01T00:00:00.000Z' });
    saveCalibration(db, { dataset: 'x', hpiDataset: 3.25, n: 4, source: 'judge' });
    expect(savedHpiDataset(db, 'x')).toMatchObject({ hpiDataset: 3.25, n: 4, source: 'judge' });
    expect(savedHpiDataset(db, 'y')).toBeUndefined();
    expect(() => saveCalibration(db, { dataset: 'x', hpiDataset: Number.NaN, n: 1, source: 'judge' })).toThrow();
    db.close();
  });
});

describe('hpt-bench calibrate --annotations', () => {
  it('random annotations (seeded) match an independent computation, CSV and JSONL', async () => {
    const random = lcg(20250101);
    const rows: Row[] = Array.from({ length: 57 }, (_, i) => ({ id: `sample-${i}`, rules: [0, 1, 2, 3].map(() => 1 + Math.floor(random() * 5)) }));
    const want = independent(rows);
    for (const path of [writeJsonl('random.jsonl', rows), writeCsv('random.csv', rows)]) {
      const r = await runCli(['calibrate', '--annotations', path, '--json']);
      expect(r.stderr, path).toBe('');
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout) as CalibrateJson;
      expect(Object.keys(out).sort()).toEqual(['hpiDataset', 'n', 'ruleMeans']);
      expect(out.n).toBe(57);
      expect(out.hpiDataset).toBeCloseTo(want.hpiDataset, 12);
      out.ruleMeans.forEach((m, i) => expect(m).toBeCloseTo(want.ruleMeans[i]!, 12));
    }
  });

  it("HumanEval's column means 4.625 / 4.75 / 4.625 / 4.75 give exactly 4.6875 (CSV and JSONL)", async () => {
    for (const path of [writeCsv('humaneval.csv', HUMANEVAL), writeJsonl('humaneval.jsonl', HUMANEVAL)]) {
      const r = await runCli(['calibrate', '--annotations', path, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ hpiDataset: 4.6875, n: 8, ruleMeans: [4.625, 4.75, 4.625, 4.75] });
    }
  });

  it('CSV: column order, extra columns, quoting, CRLF and a BOM do not matter', async () => {
    const path = join(dir, 'layout.csv');
    const lines = ['\uFEFFRule4,note,id,rule1,rule2,rule3', ...HUMANEVAL.map((r) => `${r.rules[3]},"a note, with a comma",${r.id},${r.rules[0]},${r.rules[1]},${r.rules[2]}`)];
    writeFileSync(path, lines.join('\r\n') + '\r\n');
    const r = await runCli(['calibrate', '--annotations', path, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as CalibrateJson).hpiDataset).toBe(4.6875);
  });

  it('prints a table without --json', async () => {
    const r = await runCli(['calibrate', '--annotations', writeJsonl('table.jsonl', HUMANEVAL)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('HPI_Dataset');
    expect(r.stdout).toContain('4.6875');
  });

  const bad: [string, () => string, RegExp][] = [
    ['a missing column', () => writeCsv('nocol.csv', HUMANEVAL.map((r) => ({ id: r.id, rules: r.rules.slice(0, 3) })), 'id,rule1,rule2,rule4'), /nocol\.csv: line 1: missing column 'rule3'/],
    ['a score out of range', () => writeCsv('range.csv', HUMANEVAL.map((r, i) => (i === 2 ? { id: r.id, rules: [4, 6, 4, 4] } : r))), /range\.csv: line 4: field 'rule2': "6" is not a number in \[1, 5\]/],
    ['a score that is not a number', () => writeCsv('nan.csv', HUMANEVAL.map((r, i) => (i === 0 ? { id: r.id, rules: ['good', 4, 4, 4] as never } : r))), /nan\.csv: line 2: field 'rule1': "good" is not a number in \[1, 5\]/],
    ['a missing cell', () => writeCsv('short.csv', HUMANEVAL.map((r, i) => (i === 5 ? { id: r.id, rules: r.rules.slice(0, 3) } : r))), /short\.csv: line 7: missing field 'rule4'/],
    ['an empty CSV file', () => (writeFileSync(join(dir, 'empty.csv'), ''), join(dir, 'empty.csv')), /empty\.csv: the file is empty/],
    ['a header without rows', () => writeCsv('header.csv', []), /header\.csv: no annotation rows/],
    ['a duplicate id', () => writeCsv('dup.csv', [...HUMANEVAL.slice(0, 3), HUMANEVAL[1]!]), /dup\.csv: line 5: duplicate id 'HumanEval\/1' \(first on line 3\)/],
    ['a JSONL line that is not JSON', () => (writeFileSync(join(dir, 'bad.jsonl'), '{"id":"a","rule1":1,"rule2":1,"rule3":1,"rule4":1}\n{"id":"b",\n'), join(dir, 'bad.jsonl')), /bad\.jsonl: line 2: not valid JSON/],
    ['a JSONL row missing a field', () => (writeFileSync(join(dir, 'miss.jsonl'), '{"id":"a","rule1":1,"rule2":1,"rule3":1,"rule4":1}\n{"id":"b","rule1":1,"rule2":1,"rule3":1}\n'), join(dir, 'miss.jsonl')), /miss\.jsonl: line 2: missing field 'rule4'/],
    ['an empty JSONL file', () => (writeFileSync(join(dir, 'empty.jsonl'), '\n'), join(dir, 'empty.jsonl')), /empty\.jsonl: no annotation rows/],
    ['a missing file', () => join(dir, 'nope.csv'), /nope\.csv does not exist/],
  ];
  for (const [what, make, message] of bad) {
    it(`${what} gives one clear error line and a non-zero exit`, async () => {
      const path = make();
      // with --json: the one error object on stdout, nothing on stderr
      const r = await runCli(['calibrate', '--annotations', path, '--json']);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('');
      const error = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;
      expect(error.code).toMatch(/^E_(DATA|CONFIG)$/);
      expect(error.message).toMatch(message);
      // without: one Error line on stderr
      const human = await runCli(['calibrate', '--annotations', path]);
      expect(human.code).toBe(2);
      expect(human.stdout).toBe('');
      const lines = human.stderr.trim().split('\n');
      expect(lines, human.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^Error: /);
      expect(lines[0]).toMatch(message);
    });
  }

  it('needs exactly one of --annotations and --judge, and --save needs --dataset', async () => {
    const none = await runCli(['calibrate', '--json']);
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stdout)).toMatchObject({ error: { code: 'E_CONFIG', message: expect.stringMatching(/^calibrate needs --annotations FILE .* or --judge MODEL/) } });
    const both = await runCli(['calibrate', '--annotations', writeJsonl('b.jsonl', HUMANEVAL), '--judge', 'openai:judge', '--dataset', 'boolq']);
    expect(both.code).not.toBe(0);
    expect(both.stderr.trim()).toBe('Error: give either --annotations FILE or --judge MODEL, not both');
    const save = await runCli(['calibrate', '--annotations', writeJsonl('s.jsonl', HUMANEVAL), '--save', '--store', join(dir, 'x.db')]);
    expect(save.code).not.toBe(0);
    expect(save.stderr.trim()).toBe('Error: --save needs --dataset: the dataset whose HPI_Dataset is saved');
  });
});

/** Read a saved calibration from another process, through the built core's `savedHpiDataset`. */
function readSaved(store: string, dataset: string): unknown {
  const script = `import 'reflect-metadata';
import { RunStore, savedHpiDataset } from './packages/core/dist/index.js';
const store = new RunStore(${JSON.stringify(store)});
process.stdout.write(JSON.stringify(savedHpiDataset(store.db, ${JSON.stringify(dataset)}) ?? null));
store.close();`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

describe('hpt-bench calibrate --save', () => {
  it('writes the hpi_calibrations table and a second process reads it back', async () => {
    const store = join(dir, 'save.db');
    const r = await runCli(['calibrate', '--annotations', writeJsonl('save.jsonl', HUMANEVAL), '--dataset', 'humaneval', '--save', '--store', store, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ hpiDataset: 4.6875, n: 8, dataset: 'humaneval', saved: store });
    const db = new Database(store, { readonly: true });
    const cols = (db.prepare('PRAGMA table_info(hpi_calibrations)').all() as { name: string }[]).map((c) => c.name);
    expect(cols).toEqual(['dataset', 'hpi_dataset', 'n', 'source', 'created_at']);
    expect(db.prepare('SELECT dataset, hpi_dataset, n, source FROM hpi_calibrations').all()).toEqual([{ dataset: 'humaneval', hpi_dataset: 4.6875, n: 8, source: 'annotations' }]);
    db.close();
    const saved = readSaved(store, 'humaneval') as { hpiDataset: number; n: number; source: string; createdAt: string };
    expect(saved).toMatchObject({ hpiDataset: 4.6875, n: 8, source: 'annotations' });
    expect(Number.isNaN(Date.parse(saved.createdAt))).toBe(false);
    expect(readSaved(store, 'boolq')).toBeNull();
  });

  it('saves under the canonical dataset id (aliases resolve as `run` resolves them); unknown ids are errors', async () => {
    const store = join(dir, 'alias.db');
    const r = await runCli(['calibrate', '--annotations', writeJsonl('alias.jsonl', HUMANEVAL), '--dataset', 'commonsense_qa', '--save', '--store', store, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(readSaved(store, 'csqa')).toMatchObject({ hpiDataset: 4.6875, n: 8 });
    const u = await runCli(['calibrate', '--annotations', join(dir, 'alias.jsonl'), '--dataset', 'humaneva', '--save', '--store', store]);
    expect(u.code).not.toBe(0);
    expect(u.stderr).toMatch(/^Error: unknown dataset 'humaneva'. Did you mean 'humaneval'/);
  });

  it('a later `run` on the same store uses the saved HPI_Dataset as the unsolved penalty; --hpi-dataset still wins', async () => {
    const store = join(dir, 'run-after-save.db');
    const saved = await runCli(['calibrate', '--annotations', writeJsonl('run.jsonl', HUMANEVAL), '--dataset', 'boolq', '--save', '--store', store, '--json']);
    expect(saved.code, saved.stderr).toBe(0);
    // a selector that only picks a level outside 1..5 leaves every sample unsolved: each scores 5 + the saved 4.6875
    const run = await runCli(['run', '--mode', 'adaptive', '--selector', 'fixed:9', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--store', store, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/using the calibrated HPI_Dataset 4\.6875 of boolq/);
    const s = JSON.parse(run.stdout) as { hpiDataset: number; hpi: number; n: number; levelCounts: Record<string, number> };
    expect(s.hpiDataset).toBe(4.6875);
    expect(s.levelCounts.unsolved).toBe(s.n);
    expect(s.hpi).toBeCloseTo(5 + 4.6875, 12);
    const db = new Database(store, { readonly: true });
    const rows = db.prepare("SELECT level, hpi FROM samples WHERE status = 'done'").all() as { level: number | null; hpi: number }[];
    db.close();
    const penalties = rows.filter((r) => r.level === null).map((r) => r.hpi);
    expect(penalties.length).toBe(s.levelCounts.unsolved);
    expect(penalties.every((h) => h === 5 + 4.6875)).toBe(true);
    const flag = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--store', store, '--hpi-dataset', '1.71', '--json']);
    expect(flag.code, flag.stderr).toBe(0);
    expect((JSON.parse(flag.stdout) as { hpiDataset: number }).hpiDataset).toBe(1.71);
  });
});

const JUDGE_PROMPT = (JSON.parse(readFileSync(join(SHARED, 'specs/hpt-templates.json'), 'utf8')) as { judge: string }).judge;

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
const scoresFor = (user: string) => [0, 1, 2, 3].map((i) => ((fnv(user) >>> (i * 6)) % 5) + 1);
/** The scripted judge leaves some messages unscored (a deterministic subset). */
const unscored = (user: string) => fnv(user) % 5 === 0;

describe('hpt-bench calibrate --judge (e2e, scripted judge)', () => {
  let server: TestServer;
  const boolqData = join(SHARED, 'data/hpt-representative/boolq.json');
  const records = JSON.parse(readFileSync(boolqData, 'utf8')) as { passage: string; question: string; answer: string }[];
  const task = (JSON.parse(readFileSync(join(ROOT, 'plugins/hpt-datasets/packs/boolq.json'), 'utf8')) as { task: string }).task;
  // the message the judge must get for each record: the pack's plain task text, the gold, no multi-step prompts
  const messages = records.map((r) => `${task.replace('{passage}', () => r.passage).replace('{question}', () => r.question)}\nAnswer: ${r.answer}\nMulti-step prompts: 0`);
  const store = join(dir, 'judge.db');

  beforeAll(async () => {
    server = await startOpenAIServer((req: ReceivedRequest): Reply => {
      if (req.messages[0]?.content !== JUDGE_PROMPT) return { status: 400, body: { error: { message: 'only judge calls expected' } } };
      const user = req.messages[1]!.content;
      if (unscored(user)) return { text: 'These are hard to score.' };
      const [a, b, c, d] = scoresFor(user);
      return { text: JSON.stringify({ score1: a, score2: b, score3: c, score4: d }) };
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const args = (seed: number, ...more: string[]) => ['calibrate', '--judge', 'openai:judge', '--base-url', server.url, '--dataset', 'boolq', '--data', boolqData, '--seed', String(seed), '--json', '--store', store, ...more];

  /** The records the judge was asked about since request number `from`, in input order, and the expected result. */
  function judged(from: number) {
    const users = server.requests.slice(from).map((q) => q.messages[1]!.content);
    const idx = users.map((u) => messages.indexOf(u));
    expect(idx.every((i) => i >= 0), 'every judge message is a record’s task text + gold').toBe(true);
    const ordered = [...new Set(idx)].sort((a, b) => a - b);
    const valid = ordered.filter((i) => !unscored(messages[i]!)).map((i) => scoresFor(messages[i]!));
    const perSample = valid.map((s) => (s[0]! + s[1]! + s[2]! + s[3]!) / 4);
    return { ordered, valid, hpi: perSample.reduce((a, b) => a + b, 0) / valid.length };
  }

  let first: CalibrateJson;
  it('rates a seeded ~5% sample and averages the per-sample means', async () => {
    const r = await runCli(args(7));
    expect(r.code, r.stderr).toBe(0);
    first = JSON.parse(r.stdout) as CalibrateJson;
    const j = judged(0);
    expect(j.ordered.length).toBe(8); // round(0.05 * 163)
    expect(server.requests.length).toBe(8);
    expect(first).toMatchObject({ source: 'judge', dataset: 'boolq', sampled: 8, n: j.valid.length, invalid: 8 - j.valid.length });
    expect(first.hpiDataset).toBeCloseTo(j.hpi, 12);
    [0, 1, 2, 3].forEach((i) => expect(first.ruleMeans[i]).toBeCloseTo(j.valid.reduce((a, s) => a + s[i]!, 0) / j.valid.length, 12));
    for (const q of server.requests) {
      expect(q.temperature).toBe(0);
      expect(q.responseFormat).toMatchObject({ type: 'json_schema', json_schema: { name: 'hpt_judge_scores' } });
    }
  });

  it('the same seed draws the same sample (a rerun makes no request); another seed draws another', async () => {
    const before = server.requests.length;
    const again = await runCli(args(7));
    expect(again.code).toBe(0);
    expect(server.requests.length).toBe(before);
    expect(JSON.parse(again.stdout)).toEqual(first);
    const other = await runCli(args(8, '--no-cache'));
    expect(other.code, other.stderr).toBe(0);
    const j = judged(before);
    expect(j.ordered.length).toBe(8);
    expect((JSON.parse(other.stdout) as CalibrateJson).hpiDataset).toBeCloseTo(j.hpi, 12);
    const firstSet = new Set(server.requests.slice(0, 8).map((q) => q.messages[1]!.content));
    expect(server.requests.slice(before).every((q) => firstSet.has(q.messages[1]!.content))).toBe(false);
  });

  it('--limit caps the sample and --fraction sizes it', async () => {
    const before = server.requests.length;
    const r = await runCli(args(7, '--limit', '3', '--no-cache'));
    expect(r.code, r.stderr).toBe(0);
    expect(judged(before).ordered.length).toBe(3);
    const before2 = server.requests.length;
    const f = await runCli(args(7, '--fraction', '0.1', '--no-cache'));
    expect(f.code, f.stderr).toBe(0);
    expect(judged(before2).ordered.length).toBe(16); // round(0.1 * 163)
  });

  it('--save stores the judge estimate with source "judge"', async () => {
    const r = await runCli(args(7, '--save'));
    expect(r.code, r.stderr).toBe(0);
    expect(readSaved(store, 'boolq')).toMatchObject({ hpiDataset: first.hpiDataset, n: first.n, source: 'judge' });
  });

  it('an endpoint that is down from the start stops the calibration after the breaker\'s first ratings, not every sample', async () => {
    const down = await startOpenAIServer(() => ({ status: 503 }));
    try {
      const r = await runCli(['calibrate', '--judge', 'openai:judge', '--base-url', down.url, '--dataset', 'boolq', '--data', boolqData, '--limit', '20', '--concurrency', '1', '--max-retries', '0', '--json', '--store', join(dir, 'down.db')]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).not.toMatch(/^Error/m); // warnings about the failed ratings only
      expect(JSON.parse(r.stdout)).toMatchObject({ error: { message: expect.stringMatching(/503/) } });
      // BREAKER_BEFORE_SUCCESS ratings, one request each (no retries), instead of all 20
      expect(down.requests.length).toBe(3);
    } finally {
      await down.close();
    }
  });

  it('--judge needs --dataset', async () => {
    const r = await runCli(['calibrate', '--judge', 'openai:judge', '--base-url', server.url, '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'E_CONFIG', message: '--judge needs --dataset: the dataset to sample' } });
  });
});
