/**
 * HPI_Dataset calibration (specs/hpt.md §2.4, §9 #21): the human penalty constant computed from
 * per-sample scores on the four HPT rules — from a human annotation file, or estimated with an LLM judge on a seeded
 * representative sample (the automation the paper names as future work).
 */
import { fillTemplate, HptError, isModelCallError, type PromptPack, type Sample, stripBom } from '@hpt-bench/sdk';
import { forEachConcurrent } from '../exec/pool.js';
import { createRngFactory } from '../run/rng.js';
import { OutageBreaker } from '../exec/breaker.js';
import { judgeCallContext, judgeGold, judgeUserMessage, type JudgeClient, type JudgeLevel, type RuleScores } from './judge.js';

/**
 * A computed HPI_Dataset (hpt.md §2.4 steps 3-4): `hpiDataset` = the mean over samples of each sample's mean of its four
 * rule scores (not rounded); `n` samples; `ruleMeans` = the mean of each rule's score over the samples (rule 1..4).
 */
export interface CalibrationResult {
  hpiDataset: number;
  n: number;
  ruleMeans: [number, number, number, number];
}

/**
 * HPI_Dataset from per-sample rule scores (hpt.md §2.4: hp_j = mean of the four scores, HPI_Dataset = mean of hp_j;
 * §9 #21: no rounding). Sums run in the given order.
 * @param rows per sample the four rule scores (any numbers; callers check the 1..5 range).
 * @throws HptError `E_DATA` when `rows` is empty.
 */
export function hpiFromRuleScores(rows: readonly (readonly number[])[]): CalibrationResult {
  if (rows.length === 0) throw new HptError('E_DATA', 'no scored samples: HPI_Dataset needs at least one sample with four rule scores');
  let hpSum = 0;
  const sums = [0, 0, 0, 0];
  for (const r of rows) {
    hpSum += (r[0]! + r[1]! + r[2]! + r[3]!) / 4;
    for (let i = 0; i < 4; i++) sums[i]! += r[i]!;
  }
  const n = rows.length;
  return { hpiDataset: hpSum / n, n, ruleMeans: sums.map((s) => s / n) as CalibrationResult['ruleMeans'] };
}

/** The fields of an annotation row: the sample id and its four rule scores (hpt.md §2.4 step 2). */
export const ANNOTATION_FIELDS = ['id', 'rule1', 'rule2', 'rule3', 'rule4'] as const;

/** One human annotation: sample id, the 1-based line of the file it came from, and the four rule scores in [1, 5]. */
export interface AnnotationRow {
  id: string;
  line: number;
  scores: RuleScores;
}

/**
 * Check a CSV header (or any list of column names) holds every annotation field (`ANNOTATION_FIELDS`; extra columns are
 * allowed).
 * @throws HptError `E_DATA` naming the file, the line and the first missing column.
 */
export function checkAnnotationColumns(columns: readonly string[], file: string, line: number): void {
  for (const field of ANNOTATION_FIELDS) {
    if (!columns.includes(field)) {
      throw new HptError('E_DATA', `${file}: line ${line}: missing column '${field}' (the header must name ${ANNOTATION_FIELDS.join(', ')})`);
    }
  }
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Read one annotation from a row's fields (CSV cells as strings, or JSONL values): `id` a non-empty string or a number;
 * `rule1..rule4` numbers (or numeric strings) in [1, 5]. Other fields are ignored.
 * @throws HptError `E_DATA` naming the file, the line and the field: a missing or empty field, or a score that is not a
 *   number in [1, 5].
 */
export function annotationRow(values: Record<string, unknown>, file: string, line: number): AnnotationRow {
  const where = `${file}: line ${line}`;
  const rawId = values.id;
  const id = typeof rawId === 'number' && Number.isFinite(rawId) ? String(rawId) : typeof rawId === 'string' ? rawId.trim() : undefined;
  if (rawId === undefined || rawId === null || id === '') throw new HptError('E_DATA', `${where}: missing field 'id'`);
  if (id === undefined) throw new HptError('E_DATA', `${where}: field 'id' must be a string or a number, got ${JSON.stringify(rawId)}`);
  const scores = ANNOTATION_FIELDS.slice(1).map((field) => {
    const v = values[field];
    if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) throw new HptError('E_DATA', `${where}: missing field '${field}'`);
    const n = typeof v === 'number' ? v : typeof v === 'string' && NUMBER.test(v.trim()) ? Number(v.trim()) : NaN;
    if (!Number.isFinite(n) || n < 1 || n > 5) {
      throw new HptError('E_DATA', `${where}: field '${field}': ${JSON.stringify(v)} is not a number in [1, 5]`);
    }
    return n;
  });
  return { id, line, scores: scores as RuleScores };
}

/**
 * Parse JSONL annotations: one JSON object per line with `id, rule1..rule4` (blank lines skipped).
 * @throws HptError `E_DATA` naming the file and line for a line that is not a JSON object or a bad field.
 */
export function parseAnnotationsJsonl(text: string, file: string): AnnotationRow[] {
  const rows: AnnotationRow[] = [];
  const lines = stripBom(text).split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    if (!raw.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw new HptError('E_DATA', `${file}: line ${i + 1}: not valid JSON (${(e as Error).message})`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new HptError('E_DATA', `${file}: line ${i + 1}: expected a JSON object with ${ANNOTATION_FIELDS.join(', ')}`);
    rows.push(annotationRow(value as Record<string, unknown>, file, i + 1));
  }
  return rows;
}

/**
 * HPI_Dataset from human annotations (hpt.md §2.4; `hpiFromRuleScores` over the rows in file order).
 * @throws HptError `E_DATA` naming the file when there are no rows, or naming both lines of a duplicate id.
 */
export function calibrateFromAnnotations(rows: readonly AnnotationRow[], file: string): CalibrationResult {
  if (rows.length === 0) throw new HptError('E_DATA', `${file}: no annotation rows (expected ${ANNOTATION_FIELDS.join(', ')} for each sample)`);
  const seen = new Map<string, number>();
  for (const r of rows) {
    const first = seen.get(r.id);
    if (first !== undefined) throw new HptError('E_DATA', `${file}: line ${r.line}: duplicate id '${r.id}' (first on line ${first})`);
    seen.set(r.id, r.line);
  }
  return hpiFromRuleScores(rows.map((r) => r.scores));
}

/**
 * Size of the representative sample (hpt.md §2.4 step 1: about 5% of the evaluation set): `round(fraction · total)`, at
 * least 1, at most `limit` and `total` (0 when the dataset is empty).
 * @throws HptError `E_CONFIG` when `fraction` is not in (0, 1].
 */
export function calibrationSampleSize(total: number, fraction: number, limit?: number): number {
  if (!(fraction > 0 && fraction <= 1)) throw new HptError('E_CONFIG', `the calibration fraction must be in (0, 1], got ${fraction}`);
  if (total <= 0) return 0;
  let k = Math.max(1, Math.round(fraction * total));
  if (limit !== undefined) k = Math.min(k, limit);
  return Math.min(k, total);
}

/**
 * Draw the representative sample for a judge calibration (hpt.md §2.4 step 1, "randomly sampled"): two passes over the
 * dataset — count the samples, then keep `calibrationSampleSize(total, fraction, limit)` stream positions chosen by a
 * seeded partial Fisher-Yates shuffle (`createRngFactory(seed).create('calibration')`) — returned in input order. Same
 * data + fraction + limit + seed => same sample.
 * @param load returns a fresh stream of the dataset's samples (called twice).
 * @returns the chosen samples and the dataset's size.
 */
export async function selectCalibrationSamples(load: () => AsyncIterable<Sample>, options: { fraction: number; limit?: number; seed: number }): Promise<{ samples: Sample[]; total: number }> {
  let total = 0;
  for await (const _ of load()) total++;
  const k = calibrationSampleSize(total, options.fraction, options.limit);
  const random = createRngFactory(options.seed).create('calibration');
  const order = Array.from({ length: total }, (_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (total - i));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const chosen = new Set(order.slice(0, k));
  const samples: Sample[] = [];
  let pos = 0;
  for await (const s of load()) if (chosen.has(pos++)) samples.push(s);
  return { samples, total };
}

/**
 * The template of a sample's plain task text, which `calibrate --judge` rates: the pack's `task`, else the first ladder
 * level's template — its pack entry when that entry is a lone `template` (no `steps`, no `knowledge`), or, without an
 * entry, the level's own single-call template (hpt.md §5.2 task texts; contracts `PromptPack.task`).
 * @throws HptError `E_PACK` when the pack has no `task` and the first level has no such template.
 */
export function judgeTaskTemplate(pack: PromptPack, firstLevel: JudgeLevel | undefined, datasetId: string): string {
  if (pack.task !== undefined) return pack.task;
  const entry = firstLevel ? (pack.strategies[firstLevel.packEntry ?? firstLevel.strategy] ?? (firstLevel.fallbackTemplate !== undefined ? { template: firstLevel.fallbackTemplate } : undefined)) : undefined;
  if (entry?.template !== undefined && !entry.steps?.length && entry.knowledge === undefined) return entry.template;
  throw new HptError('E_PACK', `prompt pack '${pack.id}' (dataset ${datasetId}) has no 'task' text and its first level is not a single template; add a "task" template to the pack`);
}

/** One judge rating of a calibration sample (for `--out`-style reporting). */
export interface CalibrationRating {
  sampleId: string;
  prompt: string;
  gold: string;
  scores: RuleScores | null;
  raw: string | null;
  structured: boolean | null;
  error?: string;
}

/**
 * Options of `runJudgeCalibration`: the dataset id, the task template (`judgeTaskTemplate`), the chosen samples
 * (`selectCalibrationSamples`), the judge client, how many samples are rated at once, the run seed for call contexts,
 * and callbacks for each rating and each rating whose model call failed after its retries.
 */
export interface JudgeCalibrationOptions {
  datasetId: string;
  taskTemplate: string;
  samples: readonly Sample[];
  judge: JudgeClient;
  concurrency: number;
  seed?: number;
  onRating?(rating: CalibrationRating): void | Promise<void>;
  onError?(message: string): void;
}

/**
 * A judge-estimated HPI_Dataset: `CalibrationResult` over the validly rated samples, `source: 'judge'`, `items` samples
 * rated, `invalid` replies whose scores could not be read, `errored` ratings whose model call failed.
 */
export interface JudgeCalibrationResult extends CalibrationResult {
  source: 'judge';
  items: number;
  invalid: number;
  errored: number;
}

/**
 * Estimate HPI_Dataset with an LLM judge: for each sample, the judge rates its plain task text (the
 * task template filled from the sample) with `judgeUserMessage(task, judgeGold(target), '0')`; the four scores give the
 * sample's mean, and HPI_Dataset is the mean over samples (`hpiFromRuleScores`, in input order). Invalid replies and
 * failed calls are left out, unless the first `BREAKER_BEFORE_SUCCESS` ratings all fail (`OutageBreaker`, as `runJudge`).
 * @throws ModelCallError of the last rating when the first `BREAKER_BEFORE_SUCCESS` ratings all failed (the endpoint
 *   is down); HptError `E_DATA` when no sample got valid scores (naming how many were invalid or errored); `E_TEMPLATE`
 *   when a sample lacks a placeholder; non-`ModelCallError` errors of the judge.
 */
export async function runJudgeCalibration(options: JudgeCalibrationOptions): Promise<JudgeCalibrationResult> {
  const results: (RuleScores | null | undefined)[] = new Array(options.samples.length);
  let errored = 0;
  let ratings = 0;
  const breaker = new OutageBreaker(options.concurrency);
  async function* items(): AsyncGenerator<{ pos: number; sample: Sample }> {
    for (const [pos, sample] of options.samples.entries()) yield { pos, sample };
  }
  await forEachConcurrent(items(), options.concurrency, async ({ pos, sample }) => {
    const prompt = fillTemplate(options.taskTemplate, sample.input);
    const gold = judgeGold(sample.target);
    try {
      const reply = await options.judge.rate(judgeUserMessage(prompt, gold, '0'), judgeCallContext(sample, 0, 'task', 'judge', 0, options.seed ?? 0));
      breaker.success();
      results[pos] = reply.scores;
      await options.onRating?.({ sampleId: sample.id, prompt, gold, scores: reply.scores, raw: reply.text, structured: reply.structured });
    } catch (e) {
      if (!isModelCallError(e)) throw e;
      // the endpoint is down from the start: stop instead of trying every sample (the judge run's breaker)
      if (breaker.failure(ratings++) && !breaker.anySuccess) throw e;
      errored++;
      options.onError?.(`${options.datasetId} sample ${sample.id}: ${e.message}`);
      await options.onRating?.({ sampleId: sample.id, prompt, gold, scores: null, raw: null, structured: null, error: e.message });
    }
  });
  const valid = results.filter((r): r is RuleScores => Array.isArray(r));
  const invalid = results.filter((r) => r === null).length;
  if (valid.length === 0) {
    throw new HptError('E_DATA', `the judge gave no readable scores for any of the ${options.samples.length} samples of ${options.datasetId} (${invalid} invalid replies, ${errored} failed calls)`);
  }
  return { ...hpiFromRuleScores(valid), source: 'judge', items: options.samples.length, invalid, errored };
}
