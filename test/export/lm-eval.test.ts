/**
 * `hpt-bench export --format lm-eval`: lm-evaluation-harness `results_<time>.json` + `samples_<task>_<time>.jsonl`.
 * There is no JSON Schema: the keys are checked against the TypedDicts of `result_schema.py` (read from the shared
 * specs at test time: the key names of `EvalResults`, `_TaskMetrics`, `_SampleCount`, `SampleResult`) and the real
 * example files; a small reader written here reads the files back to the store's per-sample levels and HPI.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportWith, makeFixture, readJsonl, SPECS, storeTruth, type Fixture } from './fixture.js';

const LM = join(SPECS, 'lm_eval');

/** The keys a TypedDict of result_schema.py declares (class form `name: type` lines, or the functional form's `"key":`). */
function typedDictKeys(name: string): { keys: string[]; notRequired: string[] } {
  const py = readFileSync(join(LM, 'result_schema.py'), 'utf8');
  const functional = new RegExp(`${name} = TypedDict\\(\\s*"${name}",\\s*\\{([\\s\\S]*?)\\n\\s*\\},`).exec(py);
  if (functional) return { keys: [...functional[1]!.matchAll(/^\s*"([^"]+)":/gm)].map((m) => m[1]!), notRequired: [] };
  const cls = new RegExp(`class ${name}\\(TypedDict[^\\n]*\\n([\\s\\S]*?)(?=\\nclass |$)`).exec(py);
  if (!cls) throw new Error(`no TypedDict ${name} in result_schema.py`);
  const fields = [...cls[1]!.matchAll(/^ {4}([a-z_]+): ([^\n]+)$/gm)];
  return { keys: fields.map((m) => m[1]!), notRequired: fields.filter((m) => m[2]!.startsWith('NotRequired')).map((m) => m[1]!) };
}

/** The independent reader: results + samples files → HPI, accuracy and `<sample id>#<replicate>` → level/HPI/solved. */
function readLmEval(resultsPath: string, samplesPath: string) {
  const results = JSON.parse(readFileSync(resultsPath, 'utf8')) as Record<string, Record<string, Record<string, unknown>>>;
  const task = Object.keys(results.results!)[0]!;
  const samples = new Map<string, { level: number | null; hpi: number; solved: boolean }>();
  const lines = readJsonl(samplesPath) as { doc: { sample_id: string; replicate: number }; hpi: number; acc: number; hpt_level?: number }[];
  for (const l of lines) samples.set(`${l.doc.sample_id}#${l.doc.replicate}`, { level: l.hpt_level ?? null, hpi: l.hpi, solved: l.acc === 1 });
  return { results, task, hpi: results.results![task]!['hpi,none'] as number, accuracy: results.results![task]!['acc,none'] as number, samples, lines };
}

describe('export --format lm-eval', () => {
  let fx: Fixture;
  let out: string;
  let files: Map<string, string[]>;

  beforeAll(async () => {
    fx = await makeFixture();
    out = join(fx.dir, 'lm');
    files = await exportWith(fx.store, [fx.runs.random, fx.runs.oracle, fx.runs.replicated], 'lm-eval', out);
  });

  it('writes <model>/results_<time>.json and samples_<task>_<time>.jsonl side by side, per run', () => {
    for (const [, [results, samples]] of files) {
      expect(basename(results!)).toMatch(/^results_\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{6}\.json$/);
      const stamp = /^results_(.*)\.json$/.exec(basename(results!))![1]!;
      expect(basename(samples!)).toBe(`samples_hpt_boolq_${stamp}.jsonl`);
      expect(dirname(samples!)).toBe(dirname(results!));
      expect(basename(dirname(results!))).toMatch(/^baseline__(random|oracle)$/);
    }
    expect(readdirSync(join(out, 'baseline__random')).length).toBe(4);
  });

  it('results JSON: only keys of EvalResults, the core ones present, per-task dicts shaped as the TypedDicts and the example', () => {
    const declared = typedDictKeys('EvalResults').keys;
    expect(declared).toEqual(expect.arrayContaining(['results', 'versions', 'n-shot', 'configs', 'config', 'higher_is_better', 'n-samples']));
    const example = JSON.parse(readFileSync(join(LM, 'example_results_2026-01-21T03-44-18.458309.json'), 'utf8')) as Record<string, unknown>;
    const metricsKeys = typedDictKeys('_TaskMetrics');
    const countKeys = typedDictKeys('_SampleCount').keys;
    const configKeys = typedDictKeys('_EvalConfig').keys;
    for (const [, [resultsPath]] of files) {
      const r = JSON.parse(readFileSync(resultsPath!, 'utf8')) as Record<string, Record<string, Record<string, unknown>>>;
      expect(Object.keys(r).filter((k) => !declared.includes(k))).toEqual([]);
      for (const k of ['results', 'versions', 'n-shot', 'configs', 'config', 'higher_is_better', 'n-samples', 'group_subtasks']) expect(r, k).toHaveProperty([k]);
      // the example's top-level keys that hpt-bench can fill are all there too
      for (const k of ['results', 'group_subtasks', 'configs', 'versions', 'n-shot', 'higher_is_better', 'n-samples', 'config', 'date', 'model_name', 'model_name_sanitized', 'task_hashes', 'total_evaluation_time_seconds']) {
        expect(example).toHaveProperty([k]);
        expect(r).toHaveProperty([k]);
      }
      const [task, metrics] = Object.entries(r.results!)[0]!;
      for (const k of metricsKeys.keys.filter((x) => !metricsKeys.notRequired.includes(x))) expect(metrics).toHaveProperty([k]);
      for (const [k, v] of Object.entries(metrics)) if (!metricsKeys.keys.includes(k)) expect(k).toMatch(/^[a-z_]+,none$/), expect(typeof v).toBe('number');
      expect(Object.keys(r['n-samples']![task]!).sort()).toEqual([...countKeys].sort());
      expect(Object.keys(r.config!).filter((k) => !configKeys.includes(k))).toEqual([]);
      expect(r.higher_is_better![task]).toEqual({ hpi: false, acc: true });
      expect(typeof r.versions![task]).toBe('number');
      expect(r['n-shot']![task]).toBe(0);
      expect(typeof (r as unknown as { date: number }).date).toBe('number');
      expect(typeof (r as unknown as { total_evaluation_time_seconds: string }).total_evaluation_time_seconds).toBe('string');
    }
  });

  it('samples lines: the SampleResult keys of the example, per-sample metric keys all floats', () => {
    const fixed = typedDictKeys('SampleResult').keys;
    const exampleLine = readJsonl(join(LM, 'example_samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl'))[0]!;
    const exampleFixed = Object.keys(exampleLine).filter((k) => fixed.includes(k));
    expect(exampleFixed.sort()).toEqual([...fixed].sort());
    for (const [, [, samplesPath]] of files) {
      for (const line of readJsonl(samplesPath!)) {
        for (const k of fixed) expect(line, k).toHaveProperty([k]);
        const extra = Object.keys(line).filter((k) => !fixed.includes(k));
        for (const k of extra) expect(typeof line[k], k).toBe('number');
        expect(extra.sort()).toEqual([...(line.metrics as string[])].sort());
        expect(Number.isInteger(line.doc_id)).toBe(true);
        expect(typeof line.target).toBe('string');
        const args = line.arguments as Record<string, { arg_0: string; arg_1: object }>;
        expect(Object.keys(args).every((k) => /^gen_args_\d+$/.test(k))).toBe(true);
        expect((line.resps as unknown[]).length).toBe(Object.keys(args).length);
        expect((line.filtered_resps as unknown[]).length).toBe(Object.keys(args).length);
        for (const h of ['doc_hash', 'prompt_hash', 'target_hash']) expect(line[h]).toMatch(/^[0-9a-f]{64}$/);
      }
    }
  });

  it('round trip: per-sample levels and HPI, and the run\'s HPI and accuracy, equal the store\'s; HPT facts in the task config', () => {
    for (const runId of [fx.runs.random, fx.runs.oracle, fx.runs.replicated]) {
      const truth = storeTruth(fx.store, runId);
      const [resultsPath, samplesPath] = files.get(runId)!;
      const got = readLmEval(resultsPath!, samplesPath!);
      expect(got.samples).toEqual(truth.samples);
      expect(got.hpi).toBeCloseTo(truth.hpi, 12);
      expect(got.accuracy).toBeCloseTo(truth.accuracy, 12);
      const hpt = (got.results.configs![got.task]!.metadata as { hpt: { runId: string; m: number; hpiDataset: number; levelCounts: Record<string, number>; promptHashes: Record<string, string> } }).hpt;
      expect(hpt).toMatchObject({ runId, m: truth.m, hpiDataset: truth.hpiDataset });
      expect(Object.keys(hpt.promptHashes)).toHaveLength(truth.m);
      // each level tried is one request of the line
      for (const l of got.lines as unknown as { arguments: object; hpt_level?: number; acc: number }[]) if (l.acc === 1) expect(Object.keys(l.arguments).length).toBe(l.hpt_level);
    }
    // replicates share the doc_id of their sample
    const rep = readLmEval(...(files.get(fx.runs.replicated)! as [string, string]));
    const ids = new Map<string, Set<number>>();
    for (const l of rep.lines as unknown as { doc_id: number; doc: { sample_id: string } }[]) ids.set(l.doc.sample_id, (ids.get(l.doc.sample_id) ?? new Set()).add(l.doc_id));
    expect(ids.size).toBe(8);
    for (const s of ids.values()) expect(s.size).toBe(1);
  });
});
