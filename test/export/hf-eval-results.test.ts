/**
 * `hpt-bench export --format hf`: Hugging Face `.eval_results/*.yaml` (no JSON Schema: the annotated spec
 * `eval_results.yaml` in the shared specs lists the keys). Parsed with the `yaml` package; the required keys
 * (`dataset.id`, `dataset.task_id`, `value`) and only the spec's keys are present; HPI, accuracy and the level counts
 * read back from `value` and `notes` equal the store's.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportWith, makeFixture, SPECS, storeTruth, type Fixture } from './fixture.js';

/** The keys the annotated spec uses (its first list item, the one with every attribute). */
function specKeys(): { top: string[]; dataset: string[]; source: string[] } {
  const text = readFileSync(join(SPECS, 'hf_eval_results', 'eval_results.yaml'), 'utf8').replace(/\{(\w+)\}/g, 'x');
  const first = (parse(text) as Record<string, Record<string, unknown>>[])[0]!;
  return { top: Object.keys(first), dataset: Object.keys(first.dataset!), source: Object.keys(first.source!) };
}

describe('export --format hf', () => {
  let fx: Fixture;
  let files: Map<string, string[]>;

  beforeAll(async () => {
    fx = await makeFixture();
    files = await exportWith(fx.store, [fx.runs.random, fx.runs.oracle, fx.runs.replicated], 'hf', join(fx.dir, 'hf'));
  });

  it('writes <model>/.eval_results/<dataset>_<run>.yaml: a list of results with the required keys and only the spec\'s keys', () => {
    const spec = specKeys();
    expect(spec.top.sort()).toEqual(['dataset', 'date', 'notes', 'source', 'value', 'verifyToken']);
    for (const [runId, paths] of files) {
      expect(paths).toHaveLength(1);
      expect(basename(dirname(paths[0]!))).toBe('.eval_results');
      expect(basename(paths[0]!)).toBe(`boolq_${runId}.yaml`);
      const items = parse(readFileSync(paths[0]!, 'utf8')) as Record<string, unknown>[];
      expect(Array.isArray(items)).toBe(true);
      expect(items).toHaveLength(2);
      for (const it of items) {
        const d = it.dataset as Record<string, unknown>;
        expect(typeof d.id).toBe('string');
        expect(d.id).toMatch(/^[^/\s]+\/[^/\s]+$/);
        expect(typeof d.task_id).toBe('string');
        expect(typeof it.value).toBe('number');
        expect(Object.keys(it).filter((k) => !spec.top.includes(k))).toEqual([]);
        expect(Object.keys(d).filter((k) => !spec.dataset.includes(k))).toEqual([]);
        expect(typeof it.date).toBe('string');
        expect(Number.isNaN(Date.parse(it.date as string))).toBe(false);
        expect(typeof it.notes).toBe('string');
      }
    }
  });

  it('round trip: HPI and accuracy as values, level counts, m and HPI_Dataset in the notes equal the store\'s', () => {
    for (const runId of [fx.runs.random, fx.runs.oracle, fx.runs.replicated]) {
      const truth = storeTruth(fx.store, runId);
      const items = parse(readFileSync(files.get(runId)![0]!, 'utf8')) as { dataset: { task_id: string }; value: number; notes: string }[];
      const hpi = items.find((i) => i.dataset.task_id === 'hpt-hpi')!;
      const acc = items.find((i) => i.dataset.task_id === 'hpt-accuracy')!;
      expect(hpi.value).toBeCloseTo(truth.hpi, 12);
      expect(acc.value).toBeCloseTo(truth.accuracy, 12);
      const notes = Object.fromEntries(hpi.notes.split('; ').slice(1).map((f) => [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)]));
      expect(notes.run).toBe(runId);
      expect(notes.lower_is_better).toBe('true');
      expect(Number(notes.m)).toBe(truth.m);
      expect(Number(notes.hpi_dataset)).toBe(truth.hpiDataset);
      const counts = Object.fromEntries(notes.levels!.split(',').map((p) => p.split(':')).filter(([, c]) => c !== '0').map(([l, c]) => [l, Number(c)]));
      expect(counts).toEqual(Object.fromEntries(Object.entries(truth.levelCounts).filter(([, c]) => c !== 0)));
      expect(notes.prompts!.split(',')).toHaveLength(truth.m);
      expect(notes.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });
});
