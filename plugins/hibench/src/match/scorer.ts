/**
 * The `hierarchy` scorer family (specs/hibench.md §4): core `Scorer`s that grade a completion with `matchAnswer` and
 * aggregate HiBench-style (§4.4–4.6).
 */
import {
  HptError,
  type GradedOutput,
  type Json,
  type MetricAggregator,
  type Sample,
  type ScoreContext,
  type Scorer,
  type Verdict,
} from '@hpt-bench/sdk';
import { randomPaperAnswer } from '../lib/answer-random.js';
import { rngOf } from '../rng.js';
import { SCENARIOS } from '../scenarios.js';
import { answerJson, pyStr } from '../prompt.js';
import type { MatcherSpec } from '../types.js';
import { aggregateScores, type ScoreRow } from './aggregate.js';
import { DEFAULT_NONE, fractionalScoreOfExtracted, matchAnswer } from './matchers.js';

type MatchType = MatcherSpec['type'];

const TYPES: readonly MatchType[] = ['number', 'string', 'list', 'structure', 'hit-rate'];

/** Toolkit match-type names accepted as aliases (§4.3). `hierarchical_structure_match` implies `representation: hierarchy`. */
const ALIASES: Record<string, Partial<MatcherSpec> & { type: MatchType }> = {
  number_match: { type: 'number' },
  string_match: { type: 'string' },
  list_match: { type: 'list' },
  hierarchical_structure_match: { type: 'structure', representation: 'hierarchy' },
  hit_rate: { type: 'hit-rate' },
  hitrate: { type: 'hit-rate' },
};

/** The MatcherSpec fields a scorer option or a `meta.matcher` object may set, with their JSON kinds. */
const FIELDS: Record<Exclude<keyof MatcherSpec, 'type'>, 'string' | 'boolean' | 'number'> = {
  sep: 'string',
  skip: 'string',
  ordered: 'boolean',
  none: 'string',
  path: 'boolean',
  notation: 'string',
  representation: 'string',
  binary: 'boolean',
  empty: 'string',
  emptyNode: 'number',
  tolerance: 'number',
  bigo: 'boolean',
  metric: 'string',
};
const ENUMS: Partial<Record<keyof MatcherSpec, readonly string[]>> = {
  notation: ['infix', 'prefix', 'postfix'],
  representation: ['edge', 'hierarchy'],
  metric: ['answer-f1', 'outline-f1', 'section-set'],
};

function parseType(value: Json, where: string): Partial<MatcherSpec> & { type: MatchType } {
  if (typeof value === 'string') {
    if ((TYPES as readonly string[]).includes(value)) return { type: value as MatchType };
    const alias = ALIASES[value.toLowerCase()];
    if (alias !== undefined) return { ...alias };
  }
  throw new HptError('E_CONFIG', `${where}: unknown matcher type ${JSON.stringify(value)} (valid: ${TYPES.join(', ')})`);
}

/** Reads the MatcherSpec fields of a JSON object (unknown keys ignored). @throws HptError E_CONFIG on a bad field. */
function readFields(obj: Record<string, Json>, where: string): Partial<MatcherSpec> {
  const out: Record<string, Json> = {};
  for (const [field, kind] of Object.entries(FIELDS)) {
    const v = obj[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== kind) throw new HptError('E_CONFIG', `${where}: \`${field}\` must be a ${kind}, got ${JSON.stringify(v)}`);
    const allowed = ENUMS[field as keyof MatcherSpec];
    if (allowed !== undefined && !allowed.includes(v as string)) {
      throw new HptError('E_CONFIG', `${where}: \`${field}\` must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
    }
    out[field] = v;
  }
  return out as Partial<MatcherSpec>;
}

/** A MatcherSpec-like JSON object (or type name) → partial spec, type included when given. */
function readSpec(value: Json, where: string): Partial<MatcherSpec> {
  if (typeof value === 'string') return parseType(value, where);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HptError('E_CONFIG', `${where}: a matcher must be a type name or an object, got ${JSON.stringify(value)}`);
  }
  const fields = readFields(value, where);
  if (value['type'] === undefined || value['type'] === null) return fields;
  const typed = parseType(value['type'], where);
  return { ...typed, ...fields, type: typed.type };
}

/** The matcher the scorer options describe: `options.matcher` (type name or object) overlaid with top-level fields. */
function optionsSpec(options: Record<string, Json>, where: string): Partial<MatcherSpec> {
  const base = options['matcher'] === undefined || options['matcher'] === null ? {} : readSpec(options['matcher'], `${where} option \`matcher\``);
  return { ...base, ...readFields(options, `${where} options`) };
}

/**
 * The matcher of one sample (specs/hibench.md §4.3; record field `matcher`):
 * - `fixedType` undefined (scorer `hierarchy`): `sample.meta.matcher` (a MatcherSpec object) when present, else the
 *   scorer options — `options.matcher` as a type name (`number`, `string`, `list`, `structure`, `hit-rate`, or a
 *   toolkit name such as `list_match`) or a MatcherSpec object, overlaid with top-level options `sep`, `skip`,
 *   `ordered`, `none`, `path`, `notation`, `representation`, `binary`, `empty`, `emptyNode`, `tolerance`;
 * - `fixedType` set (the typed subclasses): the options' fields, overlaid with `meta.matcher`'s fields, type forced.
 * @throws HptError `E_CONFIG` naming the sample when no matcher type is found, or a field has the wrong kind.
 */
export function resolveMatcher(sample: Sample, options: Record<string, Json>, fixedType?: MatchType): MatcherSpec {
  const where = `hibench sample ${JSON.stringify(sample.id)}`;
  const metaValue = sample.meta?.['matcher'];
  const meta = metaValue === undefined || metaValue === null ? undefined : readSpec(metaValue, `${where} meta.matcher`);
  if (fixedType !== undefined) {
    const { type: _ignored, ...metaFields } = meta ?? {};
    const { type: _ignored2, ...optionFields } = optionsSpec(options, 'hierarchy scorer');
    return { ...optionFields, ...metaFields, type: fixedType };
  }
  const spec = meta ?? optionsSpec(options, 'hierarchy scorer');
  if (spec.type === undefined) {
    throw new HptError(
      'E_CONFIG',
      `${where}: no matcher — the sample has no meta.matcher and the scorer has no \`matcher\` option (one of ${TYPES.join(', ')})`,
    );
  }
  return spec as MatcherSpec;
}

/** Is this value a boolean label (true/false, "True"/"False")? */
function isBooleanLike(target: Json): boolean {
  return typeof target === 'boolean' || (typeof target === 'string' && /^(?:true|false)$/i.test(target.trim()));
}

function numericTarget(target: Json): number | null {
  if (typeof target === 'number') return target;
  if (typeof target === 'string' && /^[-+]?\d+(?:\.\d+)?$/.test(target.trim())) return Number(target);
  return null;
}

/**
 * `{"answer": <value>}` for a target (oracle completion): strings JSON-quoted (multi-line strings escaped; a one-line
 * string holding `"` but no `'` is single-quoted instead, which both extractors read whole), lists joined by ", " into
 * one quoted string, numbers/booleans bare, null → the spec's `none` literal quoted.
 */
export function renderAnswer(target: Json, spec?: Partial<MatcherSpec>): string {
  if (target === null) return answerJson(spec?.none ?? DEFAULT_NONE);
  if (typeof target === 'string' && target.includes('"') && !target.includes("'") && !/[\n\r]/.test(target)) {
    return `{"answer": '${target}'}`;
  }
  return answerJson(target);
}

/** The random baseline's big-O answers (Code scenario). */
const COMMON_BIGO = ['O(1)', 'O(logn)', 'O(n)', 'O(nlogn)', 'O(n^2)', 'O(2^n)'] as const;

/**
 * The error of a missing `--threshold` for a fractional strict score (like IWSLT and SamSum: never defaulted), naming
 * the datasets whose manifest entry (`Scenario.manifest.scorer`) is `scorer`, e.g. `--threshold is required for
 * hibench/<name> in strict mode (...)`; "this dataset" when no listed scenario uses it.
 */
export function thresholdRequiredMessage(scorer: string): string {
  const datasets = SCENARIOS.filter((s) => (typeof s.manifest.scorer === 'string' ? s.manifest.scorer : s.manifest.scorer.id) === scorer).map((s) => `hibench/${s.name}`);
  return `--threshold is required for ${datasets.length ? datasets.join(' and ') : 'this dataset'} in strict mode (a sample is solved when its score reaches it, e.g. 0.5)`;
}

/**
 * The error of a missing `--threshold` for the strict fractional scores (answer-F1, outline F1, section-set match):
 * `thresholdRequiredMessage` of the `hierarchy-paper` scorer, the one whose datasets have them.
 */
export const PAPER_THRESHOLD_REQUIRED = thresholdRequiredMessage('hierarchy-paper');

/**
 * The `threshold` scorer option (a number, or numeric string, in [0, 1]) or undefined when absent.
 * @throws HptError `E_CONFIG` when it is present but not a number in [0, 1].
 */
export function thresholdOf(options: Record<string, Json> | undefined): number | undefined {
  const v = options?.['threshold'];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new HptError('E_CONFIG', `--threshold must be a number from 0 to 1, got ${JSON.stringify(v)}`);
  return n;
}

function metaString(meta: Record<string, Json> | undefined, field: string): string | undefined {
  const v = meta?.[field];
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}

/**
 * The `hierarchy` scorer (specs/hibench.md §4): grades `output.completion` with `matchAnswer(completion, sample.target,
 * matcher, ctx.compat)`, the matcher from `resolveMatcher` (sample `meta.matcher`, else the options).
 * Verdict: `{ solved: correct, score: 1/0 or the hit-rate fraction, extracted: the answer text or null }`.
 * Errors: HptError `E_CONFIG` (no/invalid matcher, naming the sample), `E_DATA` (a target the strict matcher cannot
 * read, naming the sample).
 */
export class HierarchyScorer implements Scorer {
  readonly id: string = 'hierarchy';
  /** The forced match type of a typed subclass; undefined for `hierarchy`. */
  protected readonly fixedType: MatchType | undefined = undefined;

  /** The matcher for one sample under `ctx` (see `resolveMatcher`). */
  matcherFor(sample: Sample, ctx: ScoreContext | undefined): MatcherSpec {
    return resolveMatcher(sample, ctx?.options ?? {}, this.fixedType);
  }

  /** Validates the options (`matcher` and the field kinds) before any call. @throws HptError E_CONFIG. */
  prepare(ctx: ScoreContext): void {
    optionsSpec(ctx.options, `${this.id} scorer`);
  }

  /** Scores one graded output (compat from `ctx.compat`, default strict). */
  score(sample: Sample, output: GradedOutput, ctx: ScoreContext): Verdict {
    const spec = this.matcherFor(sample, ctx);
    try {
      const compat = ctx?.compat === 'reference' ? 'reference' : 'strict';
      const r = matchAnswer(output.completion, sample.target, spec, compat);
      if (spec.type !== 'hit-rate') return { solved: r.correct, score: r.score, extracted: r.extracted };
      // fractional scores (hit rate; strict Paper metrics): solved when the score reaches --threshold
      const threshold = thresholdOf(ctx?.options);
      if (threshold === undefined && compat === 'strict' && spec.metric !== undefined) throw new HptError('E_CONFIG', PAPER_THRESHOLD_REQUIRED);
      return { solved: threshold === undefined ? r.correct : r.extracted !== null && r.score >= threshold, score: r.score, extracted: r.extracted };
    } catch (e) {
      if (e instanceof HptError) throw new HptError(e.code, `hibench sample ${JSON.stringify(sample.id)}: ${e.message}`, { cause: e });
      throw e;
    }
  }

  /**
   * A completion accepted as the target: `{"answer": <target>}` (see `renderAnswer`); for a strict Paper sample (a
   * `metric`), the first reference alone (answer-F1 1 against it).
   */
  renderTarget(sample: Sample, ctx?: ScoreContext): string {
    let spec: Partial<MatcherSpec> | undefined;
    try {
      spec = this.matcherFor(sample, ctx);
    } catch {
      spec = undefined;
    }
    if (spec?.metric !== undefined && ctx?.compat !== 'reference' && Array.isArray(sample.target) && sample.target.length > 0) return renderAnswer(sample.target[0]!, spec);
    return renderAnswer(sample.target, spec);
  }

  /**
   * A valid `{"answer": …}` with a random value of the target's kind (random baseline): boolean targets → true/false;
   * list matchers → the target items shuffled, truncated with probability 1/3 (a `none` target: "None" or one random
   * id); number matchers or numeric targets → an integer in [0, max(10, 2|t|)]; Paper tasks (hit-rate with a
   * `metric`) → an answer drawn from the paper in the question, never from the reference (../lib/answer-random.ts); other
   * hit-rate → one random reference piece; structure → one node id of the target; big-O (`bigo`, the Code scenario) → one of O(1), O(logn), O(n),
   * O(nlogn), O(n^2), O(2^n); other strings → a random `sample.meta.choices` entry when present, else a random integer
   * in [0, 10].
   */
  randomAnswer(sample: Sample, random: () => number, ctx?: ScoreContext): string {
    let spec: Partial<MatcherSpec> = {};
    try {
      spec = this.matcherFor(sample, ctx);
    } catch {
      spec = {};
    }
    const target = sample.target;
    const rng = rngOf(random);
    const sep = spec.sep ?? ',';
    const numberUpTo = (t: number | null): number => rng.int(0, Math.max(10, 2 * Math.abs(Math.round(t ?? 0))));
    if (isBooleanLike(target)) return answerJson(random() < 0.5);
    if (spec.type === 'hit-rate' && spec.metric !== undefined && typeof sample.input?.question === 'string') {
      return answerJson(randomPaperAnswer(sample.input.question, spec.metric, random));
    }
    if (spec.type === 'hit-rate') {
      const refs = (Array.isArray(target) ? target : [target]).map((r) => (typeof r === 'string' ? r : pyStr(r)));
      const pieces = refs.flatMap((r) => r.split(sep === '\n' ? /\n|,/ : sep)).map((p) => p.trim()).filter((p) => p !== '');
      return answerJson(pieces.length > 0 ? rng.pick(pieces) : String(numberUpTo(null)));
    }
    if (spec.type === 'list') {
      const items = Array.isArray(target)
        ? target.map((v) => (typeof v === 'string' ? v : pyStr(v)))
        : target === null
          ? []
          : pyStr(target)
              .replace(/^\[|\]$/g, '')
              .split(sep)
              .map((s) => s.trim())
              .filter((s) => s !== '' && s.toLowerCase() !== (spec.none ?? DEFAULT_NONE).toLowerCase());
      if (items.length === 0) return answerJson(random() < 0.5 ? (spec.none ?? DEFAULT_NONE) : String(numberUpTo(null)));
      let shuffled = rng.shuffle(items);
      if (random() < 1 / 3) shuffled = shuffled.slice(0, rng.int(1, shuffled.length));
      return answerJson(shuffled);
    }
    if (spec.type === 'number' || numericTarget(target) !== null) return answerJson(numberUpTo(numericTarget(target)));
    if (spec.bigo) return answerJson(rng.pick(COMMON_BIGO));
    if (spec.type === 'structure') {
      const ids = typeof target === 'string' ? (target.match(/\d+/g) ?? []) : [];
      return answerJson(ids.length > 0 ? Number(rng.pick(ids)) : numberUpTo(null));
    }
    const choices = sample.meta?.['choices'];
    if (Array.isArray(choices) && choices.length > 0) return renderAnswer(rng.pick(choices), spec);
    return answerJson(numberUpTo(null));
  }

  /**
   * The HiBench metric (§4.4–4.6): collects one row per recorded prediction — scenario, task, config, icl, semantics
   * from `sample.meta` (missing scenario/task → "unknown"; missing config → the present fields of scenario, task,
   * preset, representation, icl, semantics joined by "/"); score = solved ? 1 : 0, except for hit-rate samples, whose
   * fractional score is recomputed from the recorded prediction (the extracted answer) with
   * `fractionalScoreOfExtracted` (the hit rate; in strict mode a Paper sample's `metric`) — a mean, whatever the threshold.
   * `result()` = `{ meanScore: mean score of all rows (the run's accuracy unless hit-rate fractions occur), hibench: aggregateScores(rows) (zero-shot, no nonsense),
   * hibenchAll: aggregateScores(rows, no filters) }`, fractions in [0, 1].
   */
  createAggregator(ctx: ScoreContext): MetricAggregator {
    const rows: ScoreRow[] = [];
    return {
      add: (sample: Sample, prediction: Json, solved: boolean): void => {
        const meta = sample.meta;
        let score = solved ? 1 : 0;
        try {
          const spec = this.matcherFor(sample, ctx);
          if (spec.type === 'hit-rate') score = typeof prediction === 'string' ? fractionalScoreOfExtracted(prediction, sample.target, spec, ctx?.compat === 'reference' ? 'reference' : 'strict') : 0;
        } catch {
          // no usable matcher here: keep solved ? 1 : 0
        }
        const scenario = metaString(meta, 'scenario') ?? 'unknown';
        const task = metaString(meta, 'task') ?? 'unknown';
        const icl = metaString(meta, 'icl');
        const semantics = metaString(meta, 'semantics');
        const config =
          metaString(meta, 'config') ??
          [scenario, task, metaString(meta, 'preset'), metaString(meta, 'representation'), icl, semantics].filter((s) => s !== undefined).join('/');
        const row: ScoreRow = { scenario, task, config, score };
        if (icl !== undefined) row.icl = icl;
        if (semantics !== undefined) row.semantics = semantics;
        rows.push(row);
      },
      result: (): Record<string, Json> => {
        const meanScore = rows.length === 0 ? 0 : rows.reduce((a, r) => a + r.score, 0) / rows.length;
        return {
          meanScore,
          hibench: aggregateScores(rows) as unknown as Json,
          hibenchAll: aggregateScores(rows, { zeroShotOnly: false, excludeNonsense: false }) as unknown as Json,
        };
      },
    };
  }
}

/** Scorer `hierarchy-number`: `HierarchyScorer` with the match type fixed to `number` (§4.3 number_match). */
export class HierarchyNumberScorer extends HierarchyScorer {
  override readonly id: string = 'hierarchy-number';
  protected override readonly fixedType: MatchType = 'number';
}

/** Scorer `hierarchy-string`: `HierarchyScorer` with the match type fixed to `string` (§4.3 string_match). */
export class HierarchyStringScorer extends HierarchyScorer {
  override readonly id: string = 'hierarchy-string';
  protected override readonly fixedType: MatchType = 'string';
}

/** Scorer `hierarchy-list`: `HierarchyScorer` with the match type fixed to `list` (§4.3 list_match). */
export class HierarchyListScorer extends HierarchyScorer {
  override readonly id: string = 'hierarchy-list';
  protected override readonly fixedType: MatchType = 'list';
}

/** Scorer `hierarchy-structure`: `HierarchyScorer` with the match type fixed to `structure` (§4.3 structure matches). */
export class HierarchyStructureScorer extends HierarchyScorer {
  override readonly id: string = 'hierarchy-structure';
  protected override readonly fixedType: MatchType = 'structure';
}

/**
 * Scorer `hierarchy-paper` (the datasets with fractional strict scores): `HierarchyScorer` whose `prepare` requires `--threshold` in strict mode
 * (the strict Paper scores are fractional — answer-F1, outline F1 — and a sample is solved when its score reaches the
 * threshold, as for IWSLT and SamSum); in compat mode the threshold is optional (absent: solved iff hit rate = 1).
 */
export class HierarchyPaperScorer extends HierarchyScorer {
  override readonly id: string = 'hierarchy-paper';

  /** @throws HptError `E_CONFIG` when strict and `threshold` is missing, or when it is not a number in [0, 1]. */
  override prepare(ctx: ScoreContext): void {
    super.prepare(ctx);
    const t = thresholdOf(ctx.options);
    if (t === undefined && ctx.compat !== 'reference') throw new HptError('E_CONFIG', PAPER_THRESHOLD_REQUIRED);
  }
}

/** Scorer `hierarchy-hit-rate`: `HierarchyScorer` with the match type fixed to `hit-rate` (§4.3 hit_rate, Paper). */
export class HierarchyHitRateScorer extends HierarchyScorer {
  override readonly id: string = 'hierarchy-hit-rate';
  protected override readonly fixedType: MatchType = 'hit-rate';
}
