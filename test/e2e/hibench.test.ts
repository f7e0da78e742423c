/**
 * End-to-end: `hpt-bench generate` for the HiBench scenarios and `hpt-bench run --dataset hibench/<scenario>`
 * through the HPF ladder, with the built CLI as a process. The ladder test drives a local OpenAI-compatible server that
 * answers each sample right at a level the test chose; HPI, level counts, call counts and the per-configuration
 * HiBench aggregate are recomputed here independently.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '@hpt-bench/core';
import { assertRecord } from '@hpt-bench/hibench';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { expectedRun, levelOf, levelOfRequest, questionOf, recordFor, rightAnswer } from '../helpers/generic-ladder.js';
import { jsonLines, sha256File } from '../helpers/files.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-hibench-'));
const sha = sha256File;
const lines = jsonLines;

describe('hpt-bench generate hibench/<scenario>', () => {
  it('writes the full binary-tree suite (4,968 records, schema-valid), byte-identical for the same seed, different for another', async () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    const c = join(dir, 'c.jsonl');
    const ra = await runCli(['generate', 'hibench/binary-tree', '--out', a, '--json']);
    expect(ra.stderr).toBe('');
    expect(ra.code).toBe(0);
    const summary = JSON.parse(ra.stdout) as { records: number; tasks: Record<string, number>; seed: number };
    expect(summary.records).toBe(4968);
    expect(summary.seed).toBe(0);
    expect(Object.values(summary.tasks)).toEqual([828, 828, 828, 828, 828, 828]);
    const rb = await runCli(['generate', 'hibench/binary-tree', '--out', b]);
    expect(rb.code).toBe(0);
    expect(rb.stdout).toMatch(/wrote 4968 records of hibench\/binary-tree/);
    expect(sha(a)).toBe(sha(b));
    expect((await runCli(['generate', 'hibench/binary-tree', '--seed', '1', '--out', c])).code).toBe(0);
    expect(sha(c)).not.toBe(sha(a));
    const records = lines(readFileSync(a, 'utf8'));
    expect(records).toHaveLength(4968);
    expect(new Set(records.map((r) => r.id)).size).toBe(4968);
    for (const r of records) assertRecord(r, `record ${r.id as string}`);
  });

  it('applies filters and writes to stdout with --out -', async () => {
    const r = await runCli(['generate', 'hibench/formula', '--task', 'calculate', '--preset', 'easy', '--icl', 'zero', '--out', '-']);
    expect(r.code).toBe(0);
    const recs = lines(r.stdout);
    // 3 notations x 1 cell x 13 items
    expect(recs).toHaveLength(39);
    expect(new Set(recs.map((x) => x.task))).toEqual(new Set(['calculate']));
    expect(new Set(recs.map((x) => x.icl))).toEqual(new Set(['zero']));
  });

  it('rejects bad filters and non-generated datasets with one clear line and writes nothing', async () => {
    const out = join(dir, 'never.jsonl');
    const bad = await runCli(['generate', 'hibench/binary-tree', '--task', 'mirror', '--out', out]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown --task 'mirror' \(did you mean 'mirror_tree'\?\)/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const notGen = await runCli(['generate', 'boolq', '--out', out]);
    expect(notGen.code).not.toBe(0);
    expect(notGen.stderr).toMatch(/boolq is not generated/);
    const wrongFilter = await runCli(['generate', 'hibench/json', '--representation', 'edge', '--out', out]);
    expect(wrongFilter.code).not.toBe(0);
    expect(wrongFilter.stderr).toMatch(/has no filter --representation \(it accepts: --task, --preset, --icl, --semantics\)/);
    expect(existsSync(out)).toBe(false);
  });
});

describe('hpt-bench run --dataset hibench/<scenario> (HPF ladder on generated samples)', () => {
  let server: TestServer;
  let records: Record<string, Json>[];
  const args = ['--preset', 'easy', '--representation', 'hierarchy', '--seed', '5'];

  beforeAll(async () => {
    const g = await runCli(['generate', 'hibench/multiple-tree', ...args, '--out', '-', '--limit', '40']);
    expect(g.code).toBe(0);
    records = lines(g.stdout);
    expect(records).toHaveLength(40);
    server = await startOpenAIServer((req: ReceivedRequest): Reply => {
      const user = req.messages.at(-1)!.content;
      if (req.messages[0]!.role !== 'system') return { text: 'step output' };
      expect(req.messages[0]!.content).toBe(records[0]!.system);
      const rec = recordFor(records, user);
      if (!rec) return { text: '{"answer": "unknown sample"}' };
      return { text: levelOfRequest(user) === levelOf(questionOf(rec)) ? `Reasoning...\n${rightAnswer(rec.target)}` : '{"answer": "zzz"}' };
    });
  });
  afterAll(async () => server?.close());

  it('climbs the ladder per sample: HPI, level counts, calls and the HiBench aggregate match an independent count', async () => {
    const out = join(dir, 'run.jsonl');
    const r = await runCli(
      ['run', '--dataset', 'hibench/multiple-tree', ...args, '--limit', '40', '--model', 'openai:test', '--base-url', `${server.url}/v1`, '--store', join(dir, 'run.db'), '--out', out, '--json'],
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as { n: number; hpi: number; hpiDataset: number; levelCounts: Record<string, number>; calls: number; metrics: { meanScore: number; hibenchAll: { overall: number; configs: Record<string, number> } } };
    const { hpi, calls, levels } = expectedRun(records, 2.6);
    expect(s.n).toBe(40);
    expect(s.hpiDataset).toBe(2.6);
    expect(s.hpi).toBeCloseTo(hpi, 10);
    for (let l = 1; l <= 5; l++) expect(s.levelCounts[String(l)]).toBe(levels.filter((x) => x === l).length);
    expect(s.levelCounts.unsolved).toBe(levels.filter((x) => x === 6).length);
    expect(s.calls).toBe(calls);
    // per-configuration accuracy -> task -> scenario, from the --out lines' meta (spec §4.4-4.5)
    const outLines = lines(readFileSync(out, 'utf8'));
    expect(outLines.map((l) => l.sampleId)).toEqual(records.map((x) => x.id));
    const byConfig = new Map<string, { task: string; solved: number[] }>();
    for (const l of outLines) {
      const meta = l.meta as Record<string, string>;
      const e = byConfig.get(meta.config!) ?? { task: meta.task!, solved: [] };
      e.solved.push(l.solved ? 1 : 0);
      byConfig.set(meta.config!, e);
    }
    const byTask = new Map<string, number[]>();
    for (const e of byConfig.values()) byTask.set(e.task, [...(byTask.get(e.task) ?? []), e.solved.reduce((a, b) => a + b, 0) / e.solved.length]);
    const taskScores = [...byTask.values()].map((v) => v.reduce((a, b) => a + b, 0) / v.length);
    expect(s.metrics.meanScore).toBeCloseTo(levels.filter((l) => l <= 5).length / 40, 10);
    expect(s.metrics.hibenchAll.overall).toBeCloseTo(taskScores.reduce((a, b) => a + b, 0) / taskScores.length, 10);
    expect(Object.keys(s.metrics.hibenchAll.configs).sort()).toEqual([...byConfig.keys()].sort());
  });

  it('the oracle solves every generated sample at level 1, strict and reference, for every scenario', async () => {
    for (const [dataset, compat] of [['hibench/binary-tree', 'strict'], ['hibench/multiple-tree', 'reference'], ['hibench/json', 'strict'], ['hibench/formula', 'reference'], ['hibench/multiple-tree', 'strict']] as const) {
      const r = await runCli(['run', '--dataset', dataset, '--compat', compat, '--limit', '60', '--model', 'baseline:oracle', '--store', join(dir, 'oracle.db'), '--json']);
      expect(r.code, `${dataset} ${compat}: ${r.stderr}`).toBe(0);
      const s = JSON.parse(r.stdout) as { n: number; hpi: number; levelCounts: Record<string, number> };
      expect(s, `${dataset} ${compat}`).toMatchObject({ n: 60, hpi: 1, levelCounts: { '1': 60 } });
    }
  });

  it('runs a file written by generate exactly like the on-the-fly stream (random baseline, same seed)', async () => {
    const file = join(dir, 'formula.jsonl');
    expect((await runCli(['generate', 'hibench/formula', '--preset', 'medium', '--seed', '2', '--out', file])).code).toBe(0);
    const common = ['--model', 'baseline:random', '--seed', '2', '--preset', 'medium', '--limit', '50', '--store', join(dir, 'rand.db'), '--json'];
    const fly = await runCli(['run', '--dataset', 'hibench/formula', ...common]);
    const fromFile = await runCli(['run', '--dataset', 'hibench/formula', '--data', file, ...common]);
    expect(fly.code, fly.stderr).toBe(0);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const a = JSON.parse(fly.stdout) as { hpi: number; levelCounts: Record<string, number> };
    const b = JSON.parse(fromFile.stdout) as { hpi: number; levelCounts: Record<string, number> };
    expect(b.hpi).toBe(a.hpi);
    expect(b.levelCounts).toEqual(a.levelCounts);
  });

  it('bad input: unknown filters, filters on a non-generated dataset, a corrupt file line, a split — one clear line each', async () => {
    const store = join(dir, 'bad.db');
    const unknownTask = await runCli(['run', '--dataset', 'hibench/multiple-tree', '--task', 'depth', '--model', 'baseline:oracle', '--store', store]);
    expect(unknownTask.code).not.toBe(0);
    expect(unknownTask.stderr).toMatch(/unknown --task 'depth' \(did you mean 'node_depth'\?\)/);
    const boolq = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--task', 'x', '--model', 'baseline:oracle', '--store', store]);
    expect(boolq.code).not.toBe(0);
    expect(boolq.stderr).toMatch(/dataset boolq is not generated/);
    const split = await runCli(['run', '--dataset', 'hibench/json', '--split', 'mini', '--model', 'baseline:oracle', '--store', store]);
    expect(split.code).not.toBe(0);
    expect(split.stderr).toMatch(/generated and has no splits/);
    const file = join(dir, 'corrupt.jsonl');
    const good = lines((await runCli(['generate', 'hibench/formula', '--limit', '2', '--out', '-'])).stdout);
    writeFileSync(file, `${JSON.stringify(good[0])}\n${JSON.stringify({ ...good[1], matcher: { type: 'fuzzy' } })}\n`);
    const corrupt = await runCli(['run', '--dataset', 'hibench/formula', '--data', file, '--model', 'baseline:oracle', '--store', store]);
    expect(corrupt.code).not.toBe(0);
    expect(corrupt.stderr).toMatch(/corrupt\.jsonl line 2 /);
    expect(corrupt.stderr).toMatch(/matcher/);
    for (const x of [unknownTask, boolq, split, corrupt]) expect(x.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a code-free dataset with no prompt pack, scored by the hierarchy scorer family (plugin fixture)', () => {
  const plugin = join(ROOT, 'test/fixtures/hierarchy-data-plugin');
  let server: TestServer;
  const reversed: Record<string, string> = { o1: 'Dev2, Dev1', o2: 'Cy, Bo', o3: 'Eve, Cal, Dee', o4: 'Y, X' };
  beforeAll(async () => {
    // right (in another order: a multiset match) only at level 2, and only when the answer format was shown
    server = await startOpenAIServer((req) => {
      const user = req.messages.at(-1)!.content;
      const id = Object.keys(reversed).find((k) => user.includes(QUESTIONS[k]!));
      const level2 = req.messages[0]!.role === 'system' && user.includes("Let's think step by step.");
      return { text: id && level2 ? `So: {"answer": "${reversed[id]}"}` : '{"answer": "nobody"}' };
    });
  });
  afterAll(async () => server?.close());
  const QUESTIONS: Record<string, string> = Object.fromEntries(
    readFileSync(join(plugin, 'data/org-chart.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => {
      const r = JSON.parse(l) as { id: string; question: string };
      return [r.id, r.question];
    }),
  );

  it('the generic pack supplies the five levels and the list matcher from the scorer options grades them', async () => {
    const r = await runCli(['run', '--plugin', plugin, '--dataset', 'org-chart', '--model', 'openai:test', '--base-url', `${server.url}/v1`, '--store', join(dir, 'org.db'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as { n: number; hpi: number; levelCounts: Record<string, number> };
    expect(s).toMatchObject({ n: 4, hpi: 2, levelCounts: { '1': 0, '2': 4, unsolved: 0 } });
    const first = server.requests.find((q) => q.messages.at(-1)!.content.includes(QUESTIONS.o1!))!;
    expect(first.messages[0]).toEqual({ role: 'system', content: 'Provide the answer at the start of first sentence' });
    expect(first.messages[1]!.content).toBe(`You are an omniscient expert in this domain. ${QUESTIONS.o1}\nReply with {"answer": "name, name"}.`);
    const oracle = await runCli(['run', '--plugin', plugin, '--dataset', 'org-chart', '--model', 'baseline:oracle', '--compat', 'reference', '--store', join(dir, 'org.db'), '--json']);
    expect(oracle.code, oracle.stderr).toBe(0);
    expect(JSON.parse(oracle.stdout)).toMatchObject({ n: 4, hpi: 1 });
  });
});
