/**
 * `hpt-bench export --format eee`: Every Eval Ever 0.3.0 aggregate and instance records, validated against the EEE
 * schemas (draft-07, read from the shared specs at test time), and read back by a small reader written here to the
 * store's per-sample levels and HPI.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportWith, makeFixture, readJsonl, SPECS, storeTruth, type Fixture } from './fixture.js';

const EEE = join(SPECS, 'every_eval_ever');

function compile(file: string): ValidateFunction {
  const ajv = new Ajv({ strict: false, allErrors: true });
  return ajv.compile(JSON.parse(readFileSync(join(EEE, file), 'utf8')) as object);
}

/** The independent reader: an aggregate file and its samples file → HPI, accuracy and per-sample level/HPI. */
function readEee(aggregatePath: string, outDir: string) {
  const agg = JSON.parse(readFileSync(aggregatePath, 'utf8')) as {
    evaluation_results: { evaluation_result_id: string; metric_config: { metric_id: string; lower_is_better: boolean; metric_parameters?: Record<string, unknown>; additional_details?: Record<string, string> }; score_details: { score: number } }[];
    detailed_evaluation_results: { file_path: string; checksum: string; total_rows: number };
  };
  const hpiResult = agg.evaluation_results.find((r) => r.metric_config.metric_id === 'hpt.hpi')!;
  const accResult = agg.evaluation_results.find((r) => r.metric_config.metric_id === 'accuracy')!;
  const samplesPath = join(outDir, agg.detailed_evaluation_results.file_path);
  const samples = new Map<string, { level: number | null; hpi: number; solved: boolean }>();
  for (const line of readJsonl(samplesPath) as { sample_id: string; evaluation_result_id: string; evaluation: { score: number; is_correct: boolean }; metadata: Record<string, string> }[]) {
    expect(line.evaluation_result_id).toBe(hpiResult.evaluation_result_id);
    const level = line.metadata.hpt_level === 'none' ? null : Number(line.metadata.hpt_level);
    samples.set(`${line.sample_id}#${line.metadata.hpt_replicate}`, { level, hpi: line.evaluation.score, solved: line.evaluation.is_correct });
  }
  return { agg, hpiResult, accResult, samplesPath, samples };
}

describe('export --format eee', () => {
  let fx: Fixture;
  let out: string;
  let files: Map<string, string[]>;
  let validateAggregate: ValidateFunction;
  let validateInstance: ValidateFunction;

  beforeAll(async () => {
    fx = await makeFixture();
    out = join(fx.dir, 'eee');
    files = await exportWith(fx.store, [fx.runs.random, fx.runs.oracle, fx.runs.replicated], 'eee', out);
    validateAggregate = compile('eval.schema.json');
    validateInstance = compile('instance_level_eval.schema.json');
  });

  it('the validators accept the EEE examples and reject the old 0.2.0 instance lines (the schemas are enforced)', () => {
    expect(validateAggregate(JSON.parse(readFileSync(join(EEE, 'example_aggregate_demo.json'), 'utf8')))).toBe(true);
    for (const l of readJsonl(join(EEE, 'example_instance_demo_samples.jsonl'))) expect(validateInstance(l)).toBe(true);
    const old = readJsonl(join(EEE, 'example_instance_arc_claude-sonnet-4-0.Format.jsonl'));
    expect(old.some((l) => !validateInstance(l))).toBe(true);
  });

  it('writes an aggregate JSON and a samples JSONL per run in the datastore layout, each valid against schema 0.3.0', () => {
    expect([...files.keys()]).toEqual([fx.runs.random, fx.runs.oracle, fx.runs.replicated]);
    for (const [runId, [agg, samples]] of files) {
      expect(relative(out, agg!)).toMatch(/^data\/boolq\/baseline\/(random|oracle)\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.json$/);
      expect(samples).toBe(agg!.replace(/\.json$/, '_samples.jsonl'));
      const record = JSON.parse(readFileSync(agg!, 'utf8')) as Record<string, unknown>;
      const ok = validateAggregate(record);
      expect(validateAggregate.errors ?? [], runId).toEqual([]);
      expect(ok).toBe(true);
      // baseline runs send no reasoning effort and report no reasoning tokens: `reasoning` is not claimed (the core
      // does not guess it from strategy names)
      for (const res of record.evaluation_results as { generation_config: { generation_args: Record<string, unknown> } }[]) expect(res.generation_config.generation_args).not.toHaveProperty('reasoning');
      for (const line of readJsonl(samples!)) {
        const valid = validateInstance(line);
        expect(validateInstance.errors ?? []).toEqual([]);
        expect(valid).toBe(true);
      }
    }
  });

  it('a record missing a required field or with a stray key fails the schema', () => {
    const [agg, samples] = files.get(fx.runs.random)!;
    const record = JSON.parse(readFileSync(agg!, 'utf8')) as Record<string, unknown>;
    delete record.model_info;
    expect(validateAggregate(record)).toBe(false);
    const line = readJsonl(samples!)[0]!;
    expect(validateInstance({ ...line, hpt_level: 1 })).toBe(false);
  });

  it('round trip: the per-sample levels, HPI and accuracy read back equal the store\'s', () => {
    for (const runId of [fx.runs.random, fx.runs.oracle, fx.runs.replicated]) {
      const truth = storeTruth(fx.store, runId);
      const got = readEee(files.get(runId)![0]!, out);
      expect(got.samples).toEqual(truth.samples);
      expect(got.hpiResult.score_details.score).toBeCloseTo(truth.hpi, 12);
      expect(got.accResult.score_details.score).toBeCloseTo(truth.accuracy, 12);
      const mean = [...got.samples.values()].reduce((a, s) => a + s.hpi, 0) / got.samples.size;
      expect(mean).toBeCloseTo(truth.hpi, 12);
      expect(got.hpiResult.metric_config.lower_is_better).toBe(true);
      expect(got.hpiResult.metric_config.metric_parameters).toMatchObject({ m: truth.m, hpi_dataset: truth.hpiDataset });
    }
    // the replicated run has unsolved samples (HPI m + HPI_Dataset) and two replicates of each sample
    const rep = storeTruth(fx.store, fx.runs.replicated);
    expect([...rep.samples.values()].some((s) => s.level === null && s.hpi === rep.m + rep.hpiDataset)).toBe(true);
    expect([...rep.samples.keys()].filter((k) => k.endsWith('#1')).length).toBe(8);
  });

  it('carries the prompt hash of each level and the fingerprint; the checksum and row count match the samples file', () => {
    const db = new Database(fx.store, { readonly: true });
    const fp = JSON.parse((db.prepare('SELECT fingerprint FROM runs WHERE id = ?').get(fx.runs.random) as { fingerprint: string }).fingerprint) as { prompts: Record<string, string> };
    db.close();
    const { hpiResult, agg, samplesPath } = readEee(files.get(fx.runs.random)![0]!, out);
    const details = hpiResult.metric_config.additional_details!;
    expect(Object.keys(fp.prompts)).toHaveLength(5);
    for (const [strategy, hash] of Object.entries(fp.prompts)) expect(details[`prompt_hash.${strategy}`]).toBe(hash);
    expect(JSON.parse(details.fingerprint!)).toEqual(fp);
    expect(details.fingerprint_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    const bytes = readFileSync(samplesPath);
    expect(agg.detailed_evaluation_results.checksum).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(agg.detailed_evaluation_results.total_rows).toBe(bytes.toString('utf8').trim().split('\n').length);
  });
});
