/**
 * Shared helpers of the answer scorers (boolean, choice, numeric).
 *
 * Two families live here:
 * - Python-compatibility primitives used by the reference-mode parsers (specs/hpt.md §4), so that the TypeScript
 *   ports behave like the authors' `utils/postprocess.py` on any input, not only on ASCII text: Python's `str.strip()`
 *   and regex `\s` whitespace set, Python's `\d` (any Unicode decimal digit) and `float()` on such digits.
 * - Strict-mode verdicts from the SDK's answer extraction (`extractedVerdict`; issue #23), options and target checks.
 */
import { type Extraction, HptError, type CompatMode, type Json, type Sample, type ScoreContext, type Verdict } from '@hpt-bench/sdk';

const ND_RE = /\p{Nd}/u;

/**
 * Maps every Unicode decimal digit (category Nd, what Python's `\d` matches) to its ASCII digit, leaving every other
 * character alone. Relies on the Unicode stability guarantee that decimal digits are encoded in contiguous runs of
 * ten, in ascending value order starting at 0 (so the value is the offset from the run's start, modulo 10).
 */
export function asciiDigits(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (cp >= 0x30 && cp <= 0x39) {
      out += ch;
      continue;
    }
    if (!ND_RE.test(ch)) {
      out += ch;
      continue;
    }
    let start = cp;
    while (start > 0 && ND_RE.test(String.fromCodePoint(start - 1))) start--;
    out += String((cp - start) % 10);
  }
  return out;
}

/** The effective compat mode of a score call: `reference` only when asked for explicitly, else `strict` (§9 #1). */
export function compatOf(ctx: ScoreContext | undefined): CompatMode {
  return ctx?.compat === 'reference' ? 'reference' : 'strict';
}

/**
 * Reads an integer option. Returns `fallback` when the option is absent or null.
 * @throws HptError `E_CONFIG` when the value is not an integer (number or numeric string) in [min, max].
 */
export function intOption(options: Record<string, Json> | undefined, name: string, fallback: number, min: number, max: number): number {
  const v = options?.[name];
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new HptError('E_CONFIG', `scorer option "${name}" must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  return n;
}

/**
 * Reads a string option restricted to `allowed` (case-insensitive). Returns `fallback` when absent or null.
 * @throws HptError `E_CONFIG` when the value is not one of `allowed`.
 */
export function enumOption<T extends string>(options: Record<string, Json> | undefined, name: string, allowed: readonly T[], fallback: T): T {
  const v = options?.[name];
  if (v === undefined || v === null) return fallback;
  const s = typeof v === 'string' ? v.trim().toLowerCase() : '';
  const hit = allowed.find((a) => a === s);
  if (hit === undefined) {
    throw new HptError('E_CONFIG', `scorer option "${name}" must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  }
  return hit;
}

/** The error thrown when a sample's target has the wrong shape for a scorer. */
export function badTarget(scorer: string, sample: Sample, expected: string): HptError {
  return new HptError(
    'E_DATA',
    `scorer "${scorer}": sample ${sample.id} has target ${JSON.stringify(sample.target)}, expected ${expected}`,
  );
}

/** A verdict from a parse result: solved ⇒ score 1, else 0. */
export function verdict(solved: boolean, extracted: Json): { solved: boolean; score: number; extracted: Json } {
  return { solved, score: solved ? 1 : 0, extracted };
}

/**
 * A strict verdict from an SDK extraction (issue #23): solved iff an answer was read and `matches` it; `extracted` is
 * the answer (null when none) and `extraction` the rule and span (`{ rule: 'none', span: null }` when no rule fired).
 */
export function extractedVerdict<T extends Json>(e: Extraction<T> | null, matches: (value: T) => boolean): Verdict {
  if (e === null) return { ...verdict(false, null), extraction: { rule: 'none', span: null } };
  return { ...verdict(matches(e.value), e.value), extraction: { rule: e.rule, span: e.span } };
}

/**
 * Refuse a `threshold` option (`--threshold`) for a scorer that grades exactly — a sample is solved when its answer is
 * right (boolean, choice, numeric) or its program passes the tests (code-exec) —, which would otherwise ignore it
 * silently (issue #25: a flag a dataset cannot honour is an error). Called from the scorer's `prepare`.
 * @param id the scorer id, for the message.
 * @throws HptError `E_CONFIG` (exit 2) when `options.threshold` is given.
 */
export function refuseThreshold(id: string, options: Record<string, Json> | undefined): void {
  const v = options?.['threshold'];
  if (v === undefined || v === null) return;
  throw new HptError('E_CONFIG', `--threshold ${JSON.stringify(v)} has no use here: scorer ${id} grades exactly (a threshold applies to scorers that grade by a metric score, such as bleu and rouge); drop it`);
}

/** The error of a missing `threshold` option (specs/hpt.md §9 #7: required for IWSLT and SamSum, never defaulted to 0). */
export const THRESHOLD_REQUIRED_MESSAGE = '--threshold is required for this dataset (the paper uses 0.15 and 0.20)';

/**
 * Reads the required `threshold` scorer option of metric-solved datasets (specs/hpt.md §3 "Threshold", §9 #7): a number
 * (or numeric string) in [0, 1], compared with sentence BLEU (0-1 scale) or ROUGE-1 F1.
 * @throws HptError `E_CONFIG` when it is missing/null (`THRESHOLD_REQUIRED_MESSAGE`) or not a number in [0, 1].
 */
export function thresholdOption(options: Record<string, Json> | undefined): number {
  const v = options?.['threshold'];
  if (v === undefined || v === null) throw new HptError('E_CONFIG', THRESHOLD_REQUIRED_MESSAGE);
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 1) {
    throw new HptError('E_CONFIG', `--threshold must be a number from 0 to 1, got ${JSON.stringify(v)}`);
  }
  return n;
}
