/**
 * The export converters of `@hpt-bench/core` called directly: a run stored before fingerprints were recorded (its
 * fingerprint set to NULL) still gives valid Every Eval Ever and Inspect records; the pure helpers (uuid, hub source,
 * file stamp, model path, safe names) and `exportRuns`' refusal of two runs writing one file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import Database from 'better-sqlite3';
import { eeeUuid, exportRuns, fileStamp, hubDataset, modelPath, readExportRun, RunStore, safeName, toEeeAggregate, toEeeInstance, toInspectLog, toLmEvalResults, type RunFingerprint } from '@hpt-bench/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeFixture, SPECS, storeTruth, type Fixture } from './fixture.js';

describe('export converters', () => {
  let fx: Fixture;
  let bare: string;

  beforeAll(async () => {
    fx = await makeFixture();
    bare = join(fx.dir, 'bare.db');
    const src = new Database(fx.store, { readonly: true });
    await src.backup(bare);
    src.close();
    const db = new Database(bare);
    db.prepare('UPDATE runs SET fingerprint = NULL').run();
    db.close();
  });

  it('a run without fingerprint exports valid EEE records and an Inspect log with the store\'s HPI', () => {
    const store = new RunStore(bare, { readonly: true });
    try {
      const r = readExportRun(store, fx.runs.replicated);
      expect(r.fingerprint).toBeNull();
      const eee = new Ajv({ strict: false });
      const agg = eee.compile(JSON.parse(readFileSync(join(SPECS, 'every_eval_ever', 'eval.schema.json'), 'utf8')) as object);
      const inst = eee.compile(JSON.parse(readFileSync(join(SPECS, 'every_eval_ever', 'instance_level_eval.schema.json'), 'utf8')) as object);
      const record = toEeeAggregate(r, { now: 0 });
      expect(agg(record), JSON.stringify(agg.errors)).toBe(true);
      for (const s of r.samples()) expect(inst(toEeeInstance(r, s)), JSON.stringify(inst.errors)).toBe(true);
      const doc = JSON.parse(readFileSync(join(SPECS, 'inspect_ai', 'inspect-openapi.json'), 'utf8')) as { components: { schemas: object } };
      const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/')) as object;
      const log = new Ajv2020({ strict: false, validateFormats: false }).compile({ $defs: defs, $ref: '#/$defs/EvalLog' });
      const l = toInspectLog(r);
      expect(log(l), JSON.stringify(log.errors?.slice(0, 3))).toBe(true);
      const truth = storeTruth(bare, fx.runs.replicated);
      expect((l.results as { scores: { metrics: { hpi: { value: number } } }[] }).scores[0]!.metrics.hpi.value).toBeCloseTo(truth.hpi, 12);
      expect(toLmEvalResults(r).task_hashes).toEqual({});
    } finally {
      store.close();
    }
  });

  it('two runs that would write the same file are refused before anything is written', async () => {
    const store = new RunStore(fx.store, { readonly: true });
    try {
      const a = readExportRun(store, fx.runs.random);
      const b = { ...a, run: { ...a.run, id: 'other' } };
      const out = join(fx.dir, 'clash');
      await expect(exportRuns([a, b], 'lm-eval', out)).rejects.toThrow(/would both be written to/);
      await expect(exportRuns([a], 'csv' as never, out)).rejects.toThrow(/unknown export format 'csv'/);
      expect(() => readExportRun(store, 'nope')).toThrow(/no run nope/);
    } finally {
      store.close();
    }
  });

  it('pure helpers: uuid v4 shape and stable, hub sources, file stamps, model paths, safe names', () => {
    expect(eeeUuid('run-1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(eeeUuid('run-1')).toBe(eeeUuid('run-1'));
    expect(eeeUuid('run-1')).not.toBe(eeeUuid('run-2'));
    const fp = (source: string) => ({ data: { source } }) as unknown as RunFingerprint;
    expect(hubDataset(fp('hub:google/boolq@validation'))).toEqual({ repo: 'google/boolq', config: null, split: 'validation' });
    expect(hubDataset(fp('hub:cais/mmlu/all@test'))).toEqual({ repo: 'cais/mmlu', config: 'all', split: 'test' });
    expect(hubDataset(fp('@hpt-bench/hpt-datasets:./data/boolq-mini.jsonl'))).toBeUndefined();
    expect(hubDataset(null)).toBeUndefined();
    expect(fileStamp('2026-01-21T03:44:18.458Z')).toBe('2026-01-21T03-44-18.458000');
    expect(modelPath('openai:gpt-4o-mini')).toBe('openai/gpt-4o-mini');
    expect(modelPath('plain')).toBe('plain');
    expect(modelPath('ollama:llama3:8b')).toBe('ollama/llama3:8b');
    expect(safeName('a/b:c d')).toBe('a_b_c_d');
    expect(safeName('..')).toBe('_..');
  });
});
