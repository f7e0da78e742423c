/**
 * Multiple-choice answer scorer for CSQA and MMLU (specs/hpt.md §3 CSQA/MMLU rows, §4 "CSQA" and "MMLU", §9 #1, #14).
 */
import { type Extraction, extractChoice, type GradedOutput, pyStrip, type Sample, type ScoreContext, type Scorer, type Verdict } from '@hpt-bench/sdk';
import { badTarget, compatOf, enumOption, extractedVerdict, intOption, refuseThreshold, verdict } from './parse-util.js';

/** Which reference parser runs in reference mode: `pp_csqa` (letters a–e) or `pp_mmlu` (letters a–d). */
export type ChoiceReference = 'csqa' | 'mmlu';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * The reference parsers `pp_csqa` / `pp_mmlu` (specs/hpt.md §4), ported exactly.
 * Input: the full graded text. Output: the 0-based option index, or null when no line contains `answer:`.
 * Steps: lower-case; split on `\n`; take the FIRST line containing `answer:`; remove every `answer:` (MMLU also
 * removes, in order, every `answer is:`, `answer is` and `the correct`); Python-strip; then, for each letter L in
 * order (a–e for CSQA, a–d for MMLU), the line maps to L when it starts with `L`, `( L`, `** L`, `**( L` or `**L`
 * (the code's other forms `L.`, `L)`, `L:`, `**L.`, `** L)` are prefixes of these); nothing matched ⇒ 0 (A).
 * Quirks kept: any word starting with a–e maps to that letter (`based…` ⇒ B), `(b)` ⇒ A, the exemplar's
 * `Answer: A`/`Answer: C` line wins at level 3.
 */
export function referenceChoice(text: string, variant: ChoiceReference): number | null {
  const lines = text.toLowerCase().split('\n');
  for (const line of lines) {
    if (!line.includes('answer:')) continue;
    let s = line.replaceAll('answer:', '');
    if (variant === 'mmlu') s = s.replaceAll('answer is:', '').replaceAll('answer is', '').replaceAll('the correct', '');
    s = pyStrip(s);
    const letters = variant === 'mmlu' ? 'abcd' : 'abcde';
    for (let i = 0; i < letters.length; i++) {
      const l = letters[i] as string;
      if ([l, `( ${l}`, `** ${l}`, `**( ${l}`, `**${l}`].some((p) => s.startsWith(p))) return i;
    }
    return 0;
  }
  return null;
}

/**
 * The strict letter parser (issue #23, superseding hpt.md §9 #14's first token): the SDK's `extractChoice` cascade
 * (final-answer markers, the answer first, the last sentence) on the completion; `options` are the option texts
 * when known. Returns the upper-case letter, or null when no rule reads one within the first `letters` letters.
 */
export function strictLetter(completion: string, cue: string, letters: number, options?: readonly string[]): string | null {
  return extractChoice(completion, { cue, letters, ...(options ? { options } : {}) })?.value ?? null;
}

/** Number of consecutive `text1`, `text2`, ... inputs of a sample (0 when it has no `text1`). */
function countTextInputs(sample: Sample): number {
  let n = 0;
  while (Object.prototype.hasOwnProperty.call(sample.input ?? {}, `text${n + 1}`)) n++;
  return n;
}

/** The option texts of a sample: its `text1..textN` string inputs, in order (empty when it has none). */
function optionTexts(sample: Sample): string[] {
  const out: string[] = [];
  for (let i = 1; i <= countTextInputs(sample); i++) {
    const t = sample.input[`text${i}`];
    out.push(typeof t === 'string' ? t : '');
  }
  return out;
}

/**
 * Number of options: `ctx.options.letters` (integer 2–26) if given, else the count of `text1..textN` inputs when
 * there are at least 2, else 5.
 * @throws HptError `E_CONFIG` for an invalid `letters` option.
 */
function letterCount(sample: Sample, ctx: ScoreContext | undefined): number {
  const inferred = countTextInputs(sample);
  return intOption(ctx?.options, 'letters', inferred >= 2 ? Math.min(inferred, 26) : 5, 2, 26);
}

/**
 * Reads the gold letter: a one-letter string (case and surrounding whitespace tolerated), returned upper-case.
 * @throws HptError `E_DATA` for any other target.
 */
function goldLetter(sample: Sample): string {
  const t = sample.target;
  if (typeof t === 'string') {
    const s = t.trim().toUpperCase();
    if (s.length === 1 && LETTERS.includes(s)) return s;
  }
  throw badTarget('choice', sample, 'an option letter such as "A"');
}

/**
 * Scorer `choice` (CSQA, MMLU). Sample target: an upper-case letter string ("A".."E").
 * Verdict: `{ solved, score: 1|0, extracted: letter|null }`.
 * Options (`ctx.options`): `letters` = number of options (default: the number of `text1..textN` inputs, else 5);
 * `reference` = `"csqa"` (default) or `"mmlu"`, the reference parser variant used in reference mode.
 * - strict (default): the SDK's `extractChoice` (issue #23) with the sample's option texts; no answer is never solved;
 *   the verdict's `extraction` names the rule and span.
 * - reference: `referenceChoice(output.promptText + output.completion, reference)`; the index is reported as its letter
 *   (so `E` is possible for CSQA's parser even with 4 options); none ⇒ null (not solved).
 * Throws HptError `E_DATA` for a target that is not a letter, `E_CONFIG` for invalid options.
 */
export class ChoiceScorer implements Scorer {
  readonly id = 'choice';

  /** Before any model call: a `threshold` (`--threshold`) is refused, this scorer grades exactly (`refuseThreshold`). */
  prepare(ctx: ScoreContext): void {
    refuseThreshold(this.id, ctx.options);
  }

  /** Scores one graded output (see the class docs for the two modes). */
  score(sample: Sample, output: GradedOutput, ctx: ScoreContext): Verdict {
    const gold = goldLetter(sample);
    if (compatOf(ctx) === 'reference') {
      const variant = enumOption<ChoiceReference>(ctx?.options, 'reference', ['csqa', 'mmlu'], 'csqa');
      const idx = referenceChoice(output.promptText + output.completion, variant);
      const extracted = idx === null ? null : (LETTERS[idx] as string);
      return verdict(extracted !== null && extracted === gold, extracted);
    }
    return extractedVerdict(this.extract(sample, output, ctx), (letter) => letter === gold);
  }

  /** The strict extraction (`extractChoice`) with the sample's letter count and option texts (`text1..textN`). */
  extract(sample: Sample, output: GradedOutput, ctx: ScoreContext): Extraction<string> | null {
    return extractChoice(output.completion, { cue: output.cue, letters: letterCount(sample, ctx), options: optionTexts(sample) });
  }

  /** The gold letter itself, e.g. `"B"`: accepted by both parsers (oracle baseline). */
  renderTarget(sample: Sample, _ctx?: ScoreContext): string {
    return goldLetter(sample);
  }

  /** A uniformly random letter among the first `letters` options (one draw of `random()`; random baseline). */
  randomAnswer(sample: Sample, random: () => number, ctx?: ScoreContext): string {
    const n = letterCount(sample, ctx);
    const i = Math.min(n - 1, Math.max(0, Math.floor(random() * n)));
    return LETTERS[i] as string;
  }
}
