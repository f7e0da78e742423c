/**
 * Reports never mix incomparable runs (issue 16): runs are grouped by model, dataset (and threshold), ladder, mode,
 * compat, data and HPI_Dataset; `report` takes the newest run of each group (older ones left out with a note), `--run`
 * picks runs, `--all` takes every run; two ladders or two data files on one dataset give two labelled rows in the
 * paper tables and the runs table, and the JSON carries each run's group and label. The store is written through
 * `RunStore` (runs with a fingerprint as `hpt-bench run` records it, and one older run without a fingerprint).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupParts, latestPerGroup, modelLabel, RunStore, runGroup, type Json, type SampleResult } from '@hpt-bench/core';
import { runCli } from '../helpers/cli.js';

const HASH_A = `sha256:${'a1'.repeat(32)}`;
const HASH_B = `sha256:${'b2'.repeat(32)}`;
const FIVE = ['role-prompting', 'few-shot', 'cot', 'self-refine', 'generated-knowledge'];
const TWO = ['role-prompting', 'cot'];

interface Spec {
  id: string;
  ladder: string[];
  ladderRef: string;
  data: string;
  /** per sample: the solving level or null */
  levels: (number | null)[];
  createdAt: string;
}

/** A fingerprint with the fields grouping reads (the rest as `buildFingerprint` would write them for these runs). */
function fingerprint(s: Spec): Record<string, Json> {
  return {
    hptBench: '0.1.0', plugins: [], data: { dataset: 'boolq', source: 'hpt-datasets:data/boolq.jsonl', split: null, contentHash: s.data },
    ladder: s.ladderRef, ladderLevels: s.ladder, prompts: {}, model: 'openai:m', knowledgeModel: null, selector: null, mode: 'manual', endpoints: [],
    generation: { temperature: 0, topP: 1, maxTokens: 256, seed: null }, seed: 0, compat: 'strict', filters: null, limit: null, replicates: 1, hpiDataset: 1.71, threshold: null, scorerOptions: {},
  };
}

function write(store: RunStore, s: Spec): void {
  store.createRun({ id: s.id, dataset: 'boolq', model: 'openai:m', mode: 'manual', config: { ladder: s.ladderRef, compat: 'strict' }, fingerprint: fingerprint(s) });
  const m = s.ladder.length;
  let hpi = 0;
  let solved = 0;
  const levelCounts: Record<string, number> = { unsolved: 0 };
  s.levels.forEach((level, index) => {
    const h = level ?? m + 1.71;
    hpi += h;
    if (level !== null) {
      solved++;
      levelCounts[String(level)] = (levelCounts[String(level)] ?? 0) + 1;
    } else levelCounts.unsolved! += 1;
    const r: SampleResult = { sampleId: `q${index}`, index, level, hpi: h, solved: level !== null, prediction: null, target: true, attempts: [] };
    store.saveSample(s.id, r);
  });
  const n = s.levels.length;
  store.finishRun(s.id, { dataset: 'boolq', model: 'openai:m', mode: 'manual', compat: 'strict', ladder: s.ladder, n, hpi: hpi / n, accuracy: solved / n, hpiDataset: 1.71, levelCounts, calls: n, cachedCalls: 0, usage: { promptTokens: 0, completionTokens: 0 }, levels: {}, errored: 0, seed: 0 });
}

// oldest first: `old` is replaced by `five` (same group); `two` has a 2-level ladder; `other` other data (same ladder)
const RUNS: Spec[] = [
  { id: 'r1-old', ladder: FIVE, ladderRef: 'hpf', data: HASH_A, levels: [5, 5, null, 4], createdAt: '' },
  { id: 'r2-five', ladder: FIVE, ladderRef: 'hpf', data: HASH_A, levels: [1, 2, 1, null], createdAt: '' },
  { id: 'r3-two', ladder: TWO, ladderRef: '/tmp/ladders/two.json', data: HASH_A, levels: [1, 1, 2, 2], createdAt: '' },
  { id: 'r4-other', ladder: FIVE, ladderRef: 'hpf', data: HASH_B, levels: [3, 3, 3, 3], createdAt: '' },
];

// both data are a file named boolq.jsonl (`dataLabels`): the hash prefix tells them apart
const FIVE_A = 'openai:m · 5-level ladder (hpf) · data boolq.jsonl a1a1a1a1';
const TWO_A = 'openai:m · 2-level ladder (two) · data boolq.jsonl a1a1a1a1';
const FIVE_B = 'openai:m · 5-level ladder (hpf) · data boolq.jsonl b2b2b2b2';

let dir: string;
let db: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-groups-'));
  db = join(dir, 's.db');
  const store = new RunStore(db);
  for (const s of RUNS) {
    write(store, s);
    await new Promise((r) => setTimeout(r, 5)); // distinct created_at, so "newest" is well defined
  }
  store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The body rows of the Markdown table under `## <title>` (first cells). */
function mdRows(md: string, title: string): string[][] {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`## ${title}`));
  expect(start, `no table ${title} in\n${md}`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.startsWith('## ')) break;
    if (l.startsWith('|') && !/^\|\s*(---|Model|Run)/.test(l) && !/^\|\s*-/.test(l)) rows.push(l.split(' | ').map((c) => c.replace(/^\| |\s*\|$/g, '').trim()));
  }
  return rows;
}

describe('runGroup / groupParts / latestPerGroup', () => {
  it('keys by ladder levels, data and HPI_Dataset; labels only the parts that differ on a dataset', () => {
    const rec = (s: Spec) => ({ dataset: 'boolq', model: 'openai:m', mode: 'manual', config: {}, summary: { ladder: s.ladder, hpiDataset: 1.71, compat: 'strict' }, fingerprint: fingerprint(s) });
    const [g1, g2, g3, g4] = RUNS.map((s) => runGroup(rec(s)));
    expect(g1!.key).toBe(g2!.key);
    expect(new Set([g2!.key, g3!.key, g4!.key]).size).toBe(3);
    expect(g3!.ladderId).toBe('two');
    const parts = groupParts([g2!, g3!]);
    // same data: only the ladder tells them apart
    expect(parts.get(g2!.key)).toEqual(['5-level ladder (hpf)']);
    expect(parts.get(g3!.key)).toEqual(['2-level ladder (two)']);
    expect(groupParts([g2!]).get(g2!.key)).toEqual([]);
    // a run without a fingerprint falls back to its stored config (`--data` path) and summary
    const legacy = runGroup({ dataset: 'boolq', model: 'openai:m', mode: 'manual', config: { data: 'x.jsonl', ladder: 'hpf' }, summary: { ladder: FIVE, hpiDataset: 1.71 }, fingerprint: null });
    expect(legacy.data).toBe('x.jsonl');
    expect(legacy.key).not.toBe(g2!.key);
    expect(groupParts([g2!, legacy]).get(legacy.key)).toEqual(['data x.jsonl']);
    expect(runGroup({ dataset: 'boolq', model: 'm', mode: 'manual', config: { split: 'mini' }, summary: { ladder: FIVE }, fingerprint: null }).data).toBe('split mini');
    expect(runGroup({ dataset: 'boolq', model: 'm', mode: 'manual', config: {}, summary: { ladder: FIVE }, fingerprint: null }).data).toBe('unrecorded');
    // ladders are labelled report-wide (a table row spans datasets), data only within a dataset
    const csqa = runGroup({ ...rec(RUNS[2]!), dataset: 'csqa', summary: { ladder: TWO, hpiDataset: 1.71, compat: 'strict', dataset: 'csqa' }, fingerprint: { ...fingerprint(RUNS[2]!), data: { dataset: 'csqa', source: 'x', split: null, contentHash: HASH_B } } });
    expect(groupParts([g2!, csqa]).get(csqa.key)).toEqual(['2-level ladder (two)']);
    expect(groupParts([g2!, csqa]).get(g2!.key)).toEqual(['5-level ladder (hpf)']);
    // generated data: the filters are part of the data's identity
    const gen = (filters: Record<string, string[]> | null) => runGroup({ dataset: 'hibench/x', model: 'm', mode: 'manual', config: {}, summary: { ladder: FIVE }, fingerprint: { ...fingerprint(RUNS[1]!), data: { dataset: 'hibench/x', source: 'generated', split: null, contentHash: null }, filters } });
    const [ga, gb, gn] = [gen({ task: ['b', 'a'] }), gen({ task: ['c'] }), gen(null)];
    expect(ga.filters).toBe('task=a,b');
    expect(new Set([ga.key, gb.key, gn.key]).size).toBe(3);
    expect(groupParts([ga, gn]).get(gn.key)).toEqual(['no filters']);
    const sel = latestPerGroup([{ id: 'a', k: 1 }, { id: 'b', k: 2 }, { id: 'c', k: 1 }], (r) => String(r.k));
    expect(sel.kept.map((r) => r.id)).toEqual(['b', 'c']);
    expect(sel.omitted.map((o) => [o.run.id, o.newer.id])).toEqual([['a', 'c']]);
    expect(modelLabel({ model: 'm', mode: 'manual', compat: 'reference', groupParts: ['2-level ladder (two)'] })).toBe('m [reference] · 2-level ladder (two)');
  });
});

describe('readable data labels and model names (issue 29)', () => {
  /** The group of a boolq run with data `source` (split, content hash, `--data` path as the fingerprint records them). */
  const group = (data: { source: string; split?: string; contentHash?: string }, config: Record<string, Json> = {}) =>
    runGroup({
      dataset: 'boolq', model: 'openai:m', mode: 'manual', config, summary: { ladder: FIVE, hpiDataset: 1.71 },
      fingerprint: { ...fingerprint({ id: 'x', ladder: FIVE, ladderRef: 'hpf', data: '', levels: [], createdAt: '' }), data: { dataset: 'boolq', source: data.source, split: data.split ?? null, contentHash: data.contentHash ?? null } },
    });
  const partsOf = (...gs: ReturnType<typeof runGroup>[]) => gs.map((g) => groupParts(gs).get(g.key));

  it('a split the plugin ships is `split <name>`, a --data file its base name, never the plugin:path source', () => {
    const split = group({ source: '@hpt-bench/hpt-datasets:./data/boolq-mini.jsonl', split: 'mini' });
    const file = group({ source: '/home/u/evals/subset.jsonl', contentHash: HASH_A }, { data: '/home/u/evals/subset.jsonl' });
    expect(partsOf(split, file)).toEqual([['split mini'], ['data subset.jsonl']]);
    // a plugin file without a split: its base name
    const own = group({ source: '@x/plugin:data/boolq.jsonl' });
    expect(partsOf(split, own)).toEqual([['split mini'], ['data boolq.jsonl']]);
    // the hub: the dataset and split, without the `hub:` prefix
    const hub = group({ source: 'hub:google/boolq@validation', split: 'validation' });
    expect(partsOf(split, hub)).toEqual([['split mini'], ['data hub google/boolq@validation']]);
    // Windows paths are cut at the backslash
    expect(group({ source: 'C:\\evals\\b.jsonl', contentHash: HASH_B }, { data: 'C:\\evals\\b.jsonl' }).dataName).toBe('b.jsonl');
  });

  it('keeps the labels distinct: two data of one base name add the content hash prefix (else the source)', () => {
    const a = group({ source: '/a/boolq.jsonl', contentHash: HASH_A }, { data: '/a/boolq.jsonl' });
    const b = group({ source: '/b/boolq.jsonl', contentHash: HASH_B }, { data: '/b/boolq.jsonl' });
    expect(partsOf(a, b)).toEqual([['data boolq.jsonl a1a1a1a1'], ['data boolq.jsonl b2b2b2b2']]);
    // the same content under two paths is the same data: one group, no data part
    const a2 = group({ source: '/c/copy.jsonl', contentHash: HASH_A }, { data: '/c/copy.jsonl' });
    expect(a2.key).toBe(a.key);
    // two plugin files of one base name (no hash): their sources
    const p1 = group({ source: '@x/one:data/q.jsonl' });
    const p2 = group({ source: '@x/two:data/q.jsonl' });
    expect(partsOf(p1, p2)).toEqual([['data q.jsonl @x/one:data/q.jsonl'], ['data q.jsonl @x/two:data/q.jsonl']]);
    const labels = partsOf(a, b, p1, p2, group({ source: '@hpt-bench/hpt-datasets:./data/boolq-mini.jsonl', split: 'mini' }));
    expect(new Set(labels.map((l) => JSON.stringify(l))).size).toBe(5);
  });

  it("labels a run by the evaluation file's model name (config.name): its own group, the name in the row label", () => {
    const plain = group({ source: 's', split: 'mini' });
    const named = group({ source: 's', split: 'mini' }, { name: 'llama3' });
    expect(named.name).toBe('llama3');
    expect(plain.name).toBeNull();
    expect(named.key).not.toBe(plain.key);
    // the key of a run without a name is the one recorded before names were
    expect(JSON.parse(plain.key)).toHaveLength(10);
    expect(modelLabel({ model: 'openai:llama3', name: 'llama3', mode: 'manual', compat: 'strict', groupParts: ['split mini'] })).toBe('llama3 · split mini');
    expect(modelLabel({ model: 'openai:llama3', mode: 'manual', compat: 'strict' })).toBe('openai:llama3');
  });
});

describe('hpt-bench report over runs of one model and dataset with different ladders and data', () => {
  it('md: the newest run per group, one labelled row per group in the runs table and HPT Table 1, the older run noted', async () => {
    const r = await runCli(['report', '--store', db, '--format', 'md', '--bootstrap', '50']);
    expect(r.code, r.stderr).toBe(0);
    const runs = mdRows(r.stdout, 'Runs');
    expect(runs.map((row) => row[0])).toEqual(['r2-five', 'r3-two', 'r4-other']);
    expect(runs.map((row) => row[2])).toEqual([FIVE_A, TWO_A, FIVE_B]);
    expect(r.stdout).toMatch(/1 older run\(s\) left out: .*r1-old, replaced by r2-five/);
    const t1 = mdRows(r.stdout, 'HPI (lower is better) and accuracy');
    expect(t1.map((row) => row[0])).toEqual([FIVE_A, TWO_A, FIVE_B]);
    // each row holds its own run's HPI (no cell overwritten by another ladder's run): r2: (1 + 2 + 1 + 6.71) / 4; r3: (1 + 1 + 2 + 2) / 4; r4: 3
    expect(t1[0]![1]).toMatch(/^2\.68 /);
    expect(t1[1]![1]).toMatch(/^1\.50 /);
    expect(t1[2]![1]).toMatch(/^3\.00 /);
  });

  it('json: each run carries its group key, parts and label; the selection note is in selectionNotes', async () => {
    const r = await runCli(['report', '--store', db, '--json', '--bootstrap', '50']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { runs: { runId: string; group: string; groupParts: string[]; groupLabel: string }[]; selectionNotes: string[] };
    expect(j.runs.map((x) => [x.runId, x.groupLabel])).toEqual([['r2-five', FIVE_A], ['r3-two', TWO_A], ['r4-other', FIVE_B]]);
    expect(j.runs[1]!.groupParts).toEqual(['2-level ladder (two)', 'data boolq.jsonl a1a1a1a1']);
    expect(new Set(j.runs.map((x) => x.group)).size).toBe(3);
    expect(j.selectionNotes).toHaveLength(1);
    expect(j.selectionNotes[0]).toContain('r1-old');
  });

  it('--run picks the older run (and joins positional ids); --all reports every run with no selection note', async () => {
    const r = await runCli(['report', '--store', db, '--json', '--bootstrap', '50', '--run', 'r1-old']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { runs: { runId: string; groupLabel: string }[]; selectionNotes: string[] };
    expect(j.runs.map((x) => x.runId)).toEqual(['r1-old']);
    expect(j.runs[0]!.groupLabel).toBe('openai:m');
    expect(j.selectionNotes).toEqual([]);
    const both = await runCli(['report', 'r3-two', '--store', db, '--json', '--bootstrap', '50', '--run', 'r1-old']);
    expect(both.code, both.stderr).toBe(0);
    expect((JSON.parse(both.stdout) as { runs: { runId: string; groupLabel: string }[] }).runs.map((x) => [x.runId, x.groupLabel])).toEqual([
      ['r3-two', 'openai:m · 2-level ladder (two)'],
      ['r1-old', 'openai:m · 5-level ladder (hpf)'],
    ]);
    const all = await runCli(['report', '--store', db, '--json', '--bootstrap', '50', '--all']);
    expect(all.code, all.stderr).toBe(0);
    const ja = JSON.parse(all.stdout) as { runs: { runId: string }[]; selectionNotes: string[] };
    expect(ja.runs.map((x) => x.runId)).toEqual(['r1-old', 'r2-five', 'r3-two', 'r4-other']);
    expect(ja.selectionNotes).toEqual([]);
    const bad = await runCli(['report', '--store', db, '--json', '--all', '--latest']);
    expect(bad.code).not.toBe(0);
  });

  it('html: the heatmap caption says the ladders differ in length', async () => {
    const out = join(dir, 'r.html');
    const r = await runCli(['report', '--store', db, '--out', out, '--bootstrap', '50', '--trace-limit', '0']);
    expect(r.code, r.stderr).toBe(0);
    const html = (await import('node:fs')).readFileSync(out, 'utf8');
    expect(html).toContain('ladders of 2, 5 levels');
    expect(html).toContain('2-level ladder (two)');
  });
});
