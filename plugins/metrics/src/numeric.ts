/**
 * GSM8K answer scorer (specs/hpt.md §3 GSM8K row, §4 "GSM8K", §9 #1 and #15).
 */
import { type Extraction, extractNumber, type GradedOutput, PY_S, PY_WS_CLASS_BODY, type Sample, type ScoreContext, type Scorer, type Verdict } from '@hpt-bench/sdk';
import { asciiDigits, badTarget, compatOf, extractedVerdict, refuseThreshold, verdict } from './parse-util.js';

// Reference regexes, transcribed from the authors' `pp_gsm8k` with Python semantics: `.` ⇒ `[^\n]` (Python's `.`
// only excludes `\n`), `\s` ⇒ Python's whitespace set, `\d` ⇒ any Unicode decimal digit (`\p{Nd}`).
const D = '\\p{Nd}';
const TRAIL = `[#$*${PY_WS_CLASS_BODY}]*`;
/** `answer:\s?\*\*.*?\$?(\d+[,.]?\d*)` on the whole text. */
const REF_BOLD_RE = new RegExp(`answer:${PY_S}?\\*\\*[^\\n]*?\\$?(${D}+[,.]?${D}*)`, 'u');
/** `final answer.*?[\#\$\*\s]*(\d+(?:[,.]\d+)?)\s*[\#\$\*\s]*$` on one line. */
const REF_FINAL_RE = new RegExp(`final answer[^\\n]*?${TRAIL}(${D}+(?:[,.]${D}+)?)${PY_S}*${TRAIL}$`, 'u');
/** `##+.*?[\#\$\*\s]*\s*(\d+(?:[,.]\d+)?)\s*[\#\$\*\s]*` on one line (not anchored: first number after `##`). */
const REF_HASH_RE = new RegExp(`##+[^\\n]*?${TRAIL}${PY_S}*(${D}+(?:[,.]${D}+)?)${PY_S}*${TRAIL}`, 'u');
/** `answer.*?[\#\$\*\s]*\s*(\d+(?:[,.]\d+)?)\s*[\#\$\*\s]*$` on one line. */
const REF_ANSWER_END_RE = new RegExp(`answer[^\\n]*?${TRAIL}${PY_S}*(${D}+(?:[,.]${D}+)?)${PY_S}*${TRAIL}$`, 'u');

/**
 * The reference GSM8K parser `pp_gsm8k` (specs/hpt.md §4), ported exactly. Input: the full graded text.
 * Output: the matched numeric string (lower-cased text; may contain `,` or `.`), or null ("none").
 * Steps: lower-case; if the text contains `<|assistant|>` (Phi-3) keep only the part between its first and second
 * occurrence; (1) `answer:` + optional space + `**` + same-line text + optional `$` + `\d+[,.]?\d*` anywhere in the
 * text; (2) lines from last to first containing `final answer`, number at the end of the line; (3) lines from last to
 * first containing `####`, `answer:` or `the answer is` but not `after: ####`: the first number after a `##` run,
 * else a number after `answer` ending the line (trailing `#`, `$`, `*`, whitespace allowed).
 * Quirks kept: signs dropped, `1,234,567` ⇒ `1,234`, `… is 42.` at a line end missed, and the backwards scan over
 * the full text falls back to exemplar answers in the prompt (`348` at level 3).
 */
export function referenceGsm8k(text: string): string | null {
  let t = text.toLowerCase();
  if (t.includes('<|assistant|>')) t = t.split('<|assistant|>')[1] as string;
  const bold = REF_BOLD_RE.exec(t);
  if (bold !== null) return bold[1] as string;
  const lines = t.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    if (!line.includes('final answer')) continue;
    const m = REF_FINAL_RE.exec(line);
    if (m !== null) return m[1] as string;
  }
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    const qualifies =
      (line.includes('####') || line.includes('answer:####') || line.includes('answer:') || line.includes('the answer is')) &&
      !line.includes('after: ####');
    if (!qualifies) continue;
    const m = REF_HASH_RE.exec(line) ?? REF_ANSWER_END_RE.exec(line);
    if (m !== null) return m[1] as string;
  }
  return null;
}

/**
 * The reference `main` conversion of a `pp_gsm8k` result (specs/hpt.md §4 end of GSM8K): none ⇒ 0.0, otherwise remove
 * commas and convert with Python `float()` (Unicode digits accepted).
 */
export function referenceGsm8kValue(parsed: string | null): number {
  if (parsed === null) return 0;
  return Number(asciiDigits(parsed.replaceAll(',', '')));
}

/**
 * The strict GSM8K parser (issue #23, superseding hpt.md §9 #15's last number): the SDK's `extractNumber` cascade
 * (final-answer markers such as `####`, `\boxed{}`, a JSON `answer` field or "the answer is", the last one winning;
 * then a bare first line; then the last sentence with a number) on the completion. Signs are kept, thousands
 * separators, currency and units dropped. Returns null when no rule reads a number.
 */
export function strictNumber(completion: string, cue: string): number | null {
  return extractNumber(completion, { cue })?.value ?? null;
}

/**
 * Reads the GSM8K gold: a finite JS number, or (tolerated) a numeric string with optional thousands commas.
 * @throws HptError `E_DATA` for any other target.
 */
function goldNumber(sample: Sample): number {
  const t = sample.target;
  if (typeof t === 'number' && Number.isFinite(t)) return t;
  if (typeof t === 'string' && t.trim() !== '') {
    const v = Number(t.trim().replaceAll(',', ''));
    if (Number.isFinite(v)) return v;
  }
  throw badTarget('numeric', sample, 'a finite number');
}

/** Decimal text of `n` without exponent notation, so that `Number(text) === n`. */
function plainNumber(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  if (Number.isInteger(n)) return BigInt(n).toString();
  return n.toFixed(100).replace(/0+$/, '').replace(/\.$/, '');
}

/**
 * Scorer `numeric` (GSM8K). Sample target: a JS number. Verdict: `{ solved, score: 1|0, extracted: number|null }`;
 * solved iff the parsed value exactly equals the target as a float (as the reference does).
 * - strict (default): the SDK's `extractNumber` (issue #23); no number is never solved; `extraction` names the rule.
 * - reference: `referenceGsm8kValue(referenceGsm8k(output.promptText + output.completion))`; none ⇒ 0, which solves a
 *   gold of 0 (reference behaviour).
 * Throws HptError `E_DATA` when the target is not a finite number.
 */
export class NumericScorer implements Scorer {
  readonly id = 'numeric';

  /** Before any model call: a `threshold` (`--threshold`) is refused, this scorer grades exactly (`refuseThreshold`). */
  prepare(ctx: ScoreContext): void {
    refuseThreshold(this.id, ctx.options);
  }

  /** Scores one graded output (see the class docs for the two modes). */
  score(sample: Sample, output: GradedOutput, ctx: ScoreContext): Verdict {
    const gold = goldNumber(sample);
    if (compatOf(ctx) === 'reference') {
      const value = referenceGsm8kValue(referenceGsm8k(output.promptText + output.completion));
      return verdict(value === gold, value);
    }
    return extractedVerdict(this.extract(sample, output), (value) => value === gold);
  }

  /** The strict extraction (`extractNumber`) of a completion. */
  extract(_sample: Sample, output: GradedOutput, _ctx?: ScoreContext): Extraction<number> | null {
    return extractNumber(output.completion, { cue: output.cue });
  }

  /** `"#### <target>"`, e.g. `"#### 109"` or `"#### -2.5"` (oracle baseline; the reference parser drops the sign). */
  renderTarget(sample: Sample, _ctx?: ScoreContext): string {
    return `#### ${plainNumber(goldNumber(sample))}`;
  }

  /**
   * `"#### <k>"` with k a uniformly random integer in [0, floor(2·|target| + 10)], from one draw of `random()`
   * (random baseline).
   */
  randomAnswer(sample: Sample, random: () => number, _ctx?: ScoreContext): string {
    const hi = Math.floor(2 * Math.abs(goldNumber(sample)) + 10);
    const k = Math.min(hi, Math.max(0, Math.floor(random() * (hi + 1))));
    return `#### ${plainNumber(k)}`;
  }
}
