/**
 * The real-output conformance suite (issue #23): real completions of real models, with the verdicts of the graders
 * that published them (../shared/data/real-outputs/, README there), scored by hpt-bench's strict scorers. It asserts
 * the agreement figures and that every disagreement falls in a documented class in which hpt-bench reads the reply as
 * a careful person would (plugins/metrics/README.md "Scoring real answers: where hpt-bench and the source disagree").
 * The source graders are not ground truth: ZeroEval reads only the JSON `answer` field and its first number;
 * MMLU-Pro's reads "answer is (X)", then "Answer: X", then the last standalone letter, and guesses when none is found.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sample, ScoreContext, Verdict } from '@hpt-bench/sdk';
import { ChoiceScorer, NumericScorer } from '../../plugins/metrics/src/index.js';
import { SHARED } from '../helpers/cli.js';

const DIR = join(SHARED, 'data', 'real-outputs');
const HAVE = existsSync(join(DIR, 'gsm8k-zeroeval.jsonl'));

/** One real completion with its source's reading. */
interface Row {
  model: string;
  id: string | number;
  question: string;
  options?: string[];
  gold: string;
  completion: string;
  sourceExtracted: string | null;
  sourceVerdict: boolean;
}

function rows(file: string): Row[] {
  return readFileSync(join(DIR, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
}

const STRICT: ScoreContext = { compat: 'strict', options: {} };

/** The numbers of a string as a careful reader lists them (signs, thousands separators and decimals kept). */
function numbersOf(s: string): number[] {
  return [...s.matchAll(/-?\d[\d,]*(?:\.\d+)?/g)].map((m) => Number(m[0].replaceAll(',', '')));
}

/** A disagreement between hpt-bench and the source on one reply, with the class it falls in (or undefined). */
interface Disagreement {
  row: Row;
  ours: Verdict;
  cls: string | undefined;
}

/** Agreement per model and overall, and the disagreements. */
function agreement(data: Row[], score: (r: Row) => Verdict, classify: (r: Row, v: Verdict) => string | undefined) {
  const perModel = new Map<string, { n: number; agree: number }>();
  const disagreements: Disagreement[] = [];
  for (const row of data) {
    const v = score(row);
    const p = perModel.get(row.model) ?? { n: 0, agree: 0 };
    p.n++;
    if (v.solved === row.sourceVerdict) p.agree++;
    else disagreements.push({ row, ours: v, cls: classify(row, v) });
    perModel.set(row.model, p);
  }
  const overall = 1 - disagreements.length / data.length;
  return { perModel, overall, disagreements };
}

/**
 * The classes of GSM8K disagreement (ZeroEval's grader vs hpt-bench), each one where hpt-bench is right:
 * - `expression`: the answer field holds an expression or a sentence ("80*8 + 90*6 = 640 + 540 = 1180", "$40 (visit) +
 *   $105 = $145"); the source read its first number, hpt-bench the result after the last `=` / the stated number;
 * - `outside-json`: the reply states its answer outside (or instead of) the JSON field ("Answer: 83", "The final answer
 *   is 55"); the source read nothing there or a different number;
 * - `corrected`: the reply holds two JSON answers, the second a correction ("The correct final answer is 48, not 44 as
 *   previously stated" and a new JSON object); the source read the first, hpt-bench the last;
 * - `no-number`: the reply's answer states no number ("We cannot determine ..."): hpt-bench reads none, and the
 *   source's reading of a number elsewhere is the error.
 */
function gsm8kClass(r: Row, v: Verdict): string | undefined {
  const rule = v.extraction?.rule;
  const src = r.sourceExtracted ?? '';
  if (numbersOf(src).length > 1 && rule === 'json-answer') return 'expression';
  if (rule !== undefined && rule !== 'json-answer' && rule !== 'none') return 'outside-json';
  if (rule === 'json-answer' && numbersOf(src).length === 1 && new RegExp(`"answer"\\s*:\\s*"\\s*${src.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).test(r.completion)) return 'corrected';
  if (rule === 'none' && numbersOf(src).length === 0) return 'no-number';
  return undefined;
}

/**
 * The classes of MMLU-Pro disagreement (its grader vs hpt-bench), each one where hpt-bench is right:
 * - `guess`: the reply states no answer (a refusal, or cut off in a loop); the source's fallback took a stray capital
 *   ("I cannot answer" read as option I) or guessed; hpt-bench reads none;
 * - `stacked`: the reply lists several different answers one under another ("The answer is (A)\nThe answer is
 *   (H)\n..."): no single answer; the source took the first;
 * - `corrected`: the reply states an answer and later a different one; the source took the first, hpt-bench the last;
 * - `prose`: the reply names its answer only in prose or markdown the source's patterns miss.
 */
function mmluClass(r: Row, v: Verdict): string | undefined {
  const rule = v.extraction?.rule;
  const statements = [...r.completion.matchAll(/answer is \(?([A-J])\)?/g)].map((m) => m[1]);
  if (rule === 'none' && statements.length === 0) return 'guess';
  if (rule === 'none' && new Set(statements).size > 1) return 'stacked';
  if (rule === 'answer-is' && statements.length > 1 && statements[0] === r.sourceExtracted && statements[statements.length - 1] === v.extracted) return 'corrected';
  if (rule !== undefined && rule !== 'none' && statements.length === 0 && r.sourceExtracted === null) return 'prose';
  return undefined;
}

describe.skipIf(!HAVE)('real outputs: GSM8K (ZeroEval, 12 models, 5,280 replies) through the strict numeric scorer', () => {
  const scorer = new NumericScorer();
  const data = HAVE ? rows('gsm8k-zeroeval.jsonl') : [];
  const score = (r: Row) => scorer.score({ id: String(r.id), index: 0, input: {}, target: r.gold } as Sample, { promptText: '', completion: r.completion, cue: '' }, STRICT) as Verdict;
  const result = HAVE ? agreement(data, score, gsm8kClass) : undefined;

  it('agrees with the source verdicts on at least 99.0% overall and 95% for every model', () => {
    const { overall, perModel } = result!;
    expect(data.length).toBe(5280);
    expect(overall).toBeGreaterThanOrEqual(0.99);
    for (const [model, p] of perModel) expect(p.agree / p.n, model).toBeGreaterThanOrEqual(0.95);
  });

  it('every disagreement falls in a documented class where hpt-bench reads the reply right', () => {
    const unclassified = result!.disagreements.filter((d) => d.cls === undefined);
    expect(unclassified.map((d) => `${d.row.model} ${d.row.id}: source ${d.row.sourceExtracted} ours ${JSON.stringify(d.ours.extracted)} (${d.ours.extraction?.rule})`)).toEqual([]);
    // counting the classes where the source is wrong as hpt-bench's, agreement with a careful reader is 100%; each
    // class stays small: a class that grows means a rule changed what it reads
    const counts: Record<string, number> = {};
    for (const d of result!.disagreements) counts[d.cls!] = (counts[d.cls!] ?? 0) + 1;
    expect(counts.expression ?? 0).toBeLessThanOrEqual(25);
    expect(counts['outside-json'] ?? 0).toBeLessThanOrEqual(15);
    expect(result!.disagreements.length).toBeLessThanOrEqual(40);
  });

  it('reads every reply the source solved (no reply the source scores right is lost) but for its own errors', () => {
    const lost = result!.disagreements.filter((d) => d.row.sourceVerdict && d.cls !== 'expression' && d.cls !== 'corrected');
    expect(lost.map((d) => `${d.row.model} ${d.row.id}`)).toEqual([]);
  });
});

describe.skipIf(!HAVE)('real outputs: MMLU-Pro (3 models, 1,446 replies, 10 options) through the strict choice scorer', () => {
  const scorer = new ChoiceScorer();
  const data = HAVE ? rows('mmlu-pro.jsonl') : [];
  const sample = (r: Row, withOptions: boolean): Sample => ({
    id: String(r.id),
    index: 0,
    input: withOptions ? Object.fromEntries((r.options ?? []).map((o, i) => [`text${i + 1}`, o])) : {},
    target: r.gold,
  });
  const ctx: ScoreContext = { compat: 'strict', options: { letters: 10 } };

  for (const withOptions of [false, true]) {
    const label = withOptions ? 'with the option texts' : 'letters only (-o letters=10)';
    const score = (r: Row) => scorer.score(sample(r, withOptions), { promptText: '', completion: r.completion, cue: '' }, withOptions ? STRICT : ctx) as Verdict;
    const result = HAVE ? agreement(data, score, mmluClass) : undefined;

    it(`${label}: agrees with the source verdicts on at least 99% overall and 98.5% for every model`, () => {
      expect(data.length).toBe(1446);
      expect(result!.overall).toBeGreaterThanOrEqual(0.99);
      for (const [model, p] of result!.perModel) expect(p.agree / p.n, model).toBeGreaterThanOrEqual(0.985);
    });

    it(`${label}: every disagreement falls in a documented class`, () => {
      const unclassified = result!.disagreements.filter((d) => d.cls === undefined);
      expect(unclassified.map((d) => `${d.row.model} ${d.row.id}: source ${d.row.sourceExtracted} ours ${JSON.stringify(d.ours.extracted)} (${d.ours.extraction?.rule})`)).toEqual([]);
    });
  }
});
