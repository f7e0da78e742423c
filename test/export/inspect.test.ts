/**
 * `hpt-bench export --format inspect`: Inspect AI eval logs (.json), validated against the current log schema
 * (`inspect-openapi.json` `#/components/schemas/EvalLog`, OpenAPI 3.1 = JSON Schema 2020-12, loaded from the shared
 * specs at test time with its `#/components/schemas/X` references rewritten to `#/$defs/X`), and read back by a small
 * reader written here to the store's per-sample levels and HPI.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportWith, makeFixture, SPECS, storeTruth, type Fixture } from './fixture.js';

/** A validator of `#/components/schemas/<name>` of Inspect's OpenAPI document. */
function inspectValidator(name: string): ValidateFunction {
  const doc = JSON.parse(readFileSync(join(SPECS, 'inspect_ai', 'inspect-openapi.json'), 'utf8')) as { components: { schemas: Record<string, unknown> } };
  const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/')) as Record<string, unknown>;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  return ajv.compile({ $id: 'inspect-openapi', $defs: defs, $ref: `#/$defs/${name}` });
}

interface Log {
  eval: { run_id: string; metadata: { hpt: { m: number; hpiDataset: number; promptHashes: Record<string, string>; fingerprintHash: string } }; config: { epochs: number } };
  plan: { steps: { solver: string; params: { level: number; prompt_hash?: string } }[] };
  results: { scores: { name: string; metrics: Record<string, { value: number }> }[] };
  samples: { id: string | number; epoch: number; scores: { hpt: { value: { hpi: number; solved: number; level: number | null } } }; metadata: { hpt: { level: number | null } }; events: { event: string }[] }[];
}

/** The independent reader: a log → HPI, accuracy and `<id>#<replicate>` → level / HPI / solved. */
function readInspect(path: string) {
  const log = JSON.parse(readFileSync(path, 'utf8')) as Log;
  const score = log.results.scores.find((s) => s.name === 'hpt')!;
  const samples = new Map<string, { level: number | null; hpi: number; solved: boolean }>();
  for (const s of log.samples) {
    const v = s.scores.hpt.value;
    samples.set(`${s.id}#${s.epoch - 1}`, { level: v.level, hpi: v.hpi, solved: v.solved === 1 });
  }
  return { log, hpi: score.metrics.hpi!.value, accuracy: score.metrics.accuracy!.value, samples };
}

describe('export --format inspect', () => {
  let fx: Fixture;
  let files: Map<string, string[]>;
  let validate: ValidateFunction;

  beforeAll(async () => {
    fx = await makeFixture();
    files = await exportWith(fx.store, [fx.runs.random, fx.runs.oracle, fx.runs.replicated], 'inspect', join(fx.dir, 'inspect'));
    validate = inspectValidator('EvalLog');
  });

  it('writes one <time>_<task>_<run>.json log per run, each valid against EvalLog', () => {
    for (const [runId, paths] of files) {
      expect(paths).toHaveLength(1);
      expect(basename(paths[0]!)).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{6}_hpt-boolq_${runId}\\.json$`));
      const log = JSON.parse(readFileSync(paths[0]!, 'utf8')) as Record<string, unknown>;
      const ok = validate(log);
      expect(validate.errors?.slice(0, 3) ?? [], runId).toEqual([]);
      expect(ok).toBe(true);
    }
  });

  it('the validator rejects a log without its eval spec or with a wrong sample field type', () => {
    const log = JSON.parse(readFileSync(files.get(fx.runs.random)![0]!, 'utf8')) as Record<string, unknown> & { samples: Record<string, unknown>[] };
    expect(validate({ ...log, eval: undefined })).toBe(false);
    log.samples[0]!.epoch = 'one';
    expect(validate(log)).toBe(false);
  });

  it('round trip: per-sample levels and HPI (replicates as epochs) and the run\'s HPI equal the store\'s', () => {
    for (const runId of [fx.runs.random, fx.runs.oracle, fx.runs.replicated]) {
      const truth = storeTruth(fx.store, runId);
      const got = readInspect(files.get(runId)![0]!);
      expect(got.samples).toEqual(truth.samples);
      expect(got.hpi).toBeCloseTo(truth.hpi, 12);
      expect(got.accuracy).toBeCloseTo(truth.accuracy, 12);
      expect(got.log.eval.run_id).toBe(runId);
      expect(got.log.eval.metadata.hpt).toMatchObject({ m: truth.m, hpiDataset: truth.hpiDataset });
      for (const s of got.log.samples) expect(s.metadata.hpt.level).toBe(s.scores.hpt.value.level);
    }
    expect(readInspect(files.get(fx.runs.replicated)![0]!).log.eval.config.epochs).toBe(2);
  });

  it('the plan lists the ladder with each level\'s prompt hash; every recorded call is a model event', () => {
    const { log } = readInspect(files.get(fx.runs.random)![0]!);
    expect(log.plan.steps.map((s) => s.solver)).toEqual(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge']);
    for (const s of log.plan.steps) expect(s.params.prompt_hash).toBe(log.eval.metadata.hpt.promptHashes[s.solver]);
    expect(log.eval.metadata.hpt.fingerprintHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const events = log.samples.reduce((a, s) => a + s.events.filter((e) => e.event === 'model').length, 0);
    const db = new Database(fx.store, { readonly: true });
    const calls = (db.prepare('SELECT COUNT(*) AS c FROM calls WHERE run_id = ?').get(fx.runs.random) as { c: number }).c;
    db.close();
    expect(calls).toBeGreaterThan(8);
    expect(events).toBe(calls);
  });
});
