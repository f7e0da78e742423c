/**
 * BoolQ answer scorer (specs/hpt.md §3 BoolQ row, §4 "BoolQ", §9 #1 and #14).
 */
import { type Extraction, extractYesNo, type GradedOutput, pyStrip, type Sample, type ScoreContext, type Scorer, type Verdict } from '@hpt-bench/sdk';
import { badTarget, compatOf, extractedVerdict, refuseThreshold, verdict } from './parse-util.js';

/**
 * The reference BoolQ parser `pp_boolq` (specs/hpt.md §4), ported exactly.
 * Input: the full graded text (wrapper prefix + filled template + wrapper suffix + cue + completion).
 * Output: 1 (yes/true), 0 (no/false, or an `answer:` line with neither), or null when no line contains `answer:`.
 * Quirks kept on purpose: the FIRST `answer:` line wins (a 3-shot exemplar's `Answer: true.` at level 3), and the
 * tests are substring tests, so `untrue` and `not true` give 1, `know` gives 0 and an empty answer line gives 0.
 */
export function referenceBoolq(text: string): 1 | 0 | null {
  const lines = text.toLowerCase().split('\n');
  for (const line of lines) {
    if (!line.includes('answer:')) continue;
    const sentence = pyStrip(line.replaceAll('answer:', ''));
    for (const word of ['yes', 'true']) if (sentence.includes(word)) return 1;
    for (const word of ['no', 'false']) if (sentence.includes(word)) return 0;
    return 0;
  }
  return null;
}

/**
 * The strict BoolQ parser (issue #23, superseding hpt.md §9 #14's first token): the SDK's `extractYesNo` cascade
 * (final-answer markers, the answer first, the last sentence) on the completion. Returns true, false, or null
 * (no rule reads a yes/no: `untrue`, `Nope`, empty).
 */
export function strictBoolean(completion: string, cue: string): boolean | null {
  return extractYesNo(completion, { cue })?.value ?? null;
}

/**
 * Reads a BoolQ gold answer: a JS boolean, or (tolerated) the strings "true"/"false" in any case.
 * @throws HptError `E_DATA` for any other target.
 */
function goldBoolean(sample: Sample): boolean {
  const t = sample.target;
  if (typeof t === 'boolean') return t;
  if (typeof t === 'string') {
    const s = t.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
  }
  throw badTarget('boolean', sample, 'a boolean');
}

/**
 * Scorer `boolean` (BoolQ). Sample target: a JS boolean. Verdict: `{ solved, score: 1|0, extracted: boolean|null }`.
 * - strict (default): the SDK's `extractYesNo` (issue #23); no answer is never solved; `extraction` names the rule.
 * - reference: `referenceBoolq(output.promptText + output.completion)`; 1 ⇒ true, 0 ⇒ false, none ⇒ null (not solved).
 * Throws HptError `E_DATA` when the sample's target is not a boolean.
 */
export class BooleanScorer implements Scorer {
  readonly id = 'boolean';

  /** Before any model call: a `threshold` (`--threshold`) is refused, this scorer grades exactly (`refuseThreshold`). */
  prepare(ctx: ScoreContext): void {
    refuseThreshold(this.id, ctx.options);
  }

  /** Scores one graded output (see the class docs for the two modes). */
  score(sample: Sample, output: GradedOutput, ctx: ScoreContext): Verdict {
    const gold = goldBoolean(sample);
    if (compatOf(ctx) === 'reference') {
      const parsed = referenceBoolq(output.promptText + output.completion);
      const extracted = parsed === null ? null : parsed === 1;
      return verdict(parsed !== null && parsed === (gold ? 1 : 0), extracted);
    }
    return extractedVerdict(this.extract(sample, output), (value) => value === gold);
  }

  /** The strict extraction (`extractYesNo`) of a completion. */
  extract(_sample: Sample, output: GradedOutput, _ctx?: ScoreContext): Extraction<boolean> | null {
    return extractYesNo(output.completion, { cue: output.cue });
  }

  /** `"True"` or `"False"`: a completion both parsers read as the target (oracle baseline). */
  renderTarget(sample: Sample, _ctx?: ScoreContext): string {
    return goldBoolean(sample) ? 'True' : 'False';
  }

  /** `"True"` or `"False"` with probability 1/2 each, using one draw of `random()` (random baseline). */
  randomAnswer(_sample: Sample, random: () => number, _ctx?: ScoreContext): string {
    return random() < 0.5 ? 'True' : 'False';
  }
}
