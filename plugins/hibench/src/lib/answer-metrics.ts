/**
 * Strict scoring of the Paper tasks (specs/hibench.md §7 rec. 18): contextual QA = QASPER's answer token-F1, maximised
 * over the references; outline extraction = order-aware F1 of the section titles (longest common subsequence);
 * disordered section = exact set match of the two section names. All scores are in [0, 1]; the compat score is the
 * toolkit's hit rate (match/matchers.ts). Shared machinery: a record selects one by its matcher's `metric`, and the
 * matchers compute it, so it lives outside the scenario folders.
 */
import type { Json } from '@hpt-bench/sdk';
import { strictNorm } from '../match/normalize.js';

/** The strict Paper metrics, named in a record's `matcher.metric`. */
export type PaperMetric = 'answer-f1' | 'outline-f1' | 'section-set';

/** The metrics in canonical order. */
export const PAPER_METRICS: readonly PaperMetric[] = ['answer-f1', 'outline-f1', 'section-set'];

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/**
 * QASPER's (SQuAD's) `normalize_answer`: lower-case, delete ASCII punctuation (Python's `string.punctuation`), replace
 * the articles a/an/the by a space, collapse whitespace. One addition: commas are first turned into spaces, so the
 * released references' comma-joined spans ("BIBREF19,BIBREF20") count as separate tokens, as QASPER's own ", "-joined
 * spans do.
 * Example: `"The BIBREF19,BIBREF20."` → "bibref19 bibref20".
 */
export function normalizeAnswer(s: string): string {
  return s
    .replace(/,/g, ' ')
    .toLowerCase()
    .replace(PUNCTUATION, '')
    .replace(/\b(a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter((t) => t !== '')
    .join(' ');
}

/** QASPER's `token_f1_score`: token F1 of the normalised prediction against one reference (0 when nothing is shared). */
export function tokenF1(prediction: string, reference: string): number {
  const p = normalizeAnswer(prediction).split(' ').filter((t) => t !== '');
  const r = normalizeAnswer(reference).split(' ').filter((t) => t !== '');
  const counts = new Map<string, number>();
  for (const t of r) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of p) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / r.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Answer-F1 (QASPER): the best `tokenF1` over the references (0 without references). */
export function answerF1(prediction: string, references: readonly string[]): number {
  let best = 0;
  for (const r of references) best = Math.max(best, tokenF1(prediction, r));
  return best;
}

/** A leading list marker of an outline line ("1.", "2.3", "-", "*", "•") with its spaces. */
const LIST_MARKER = /^\s*(?:[-*•]|\d+(?:\.\d+)*\.?)\s+/u;

/**
 * The section titles of an outline text, normalised: split on newlines (real or the two characters "\n"), or on commas
 * when there is a single line; a leading list marker dropped; `strictNorm` (lower-case, only letters, digits, spaces);
 * empty items and the root `Title` item dropped (the instruction's example starts at "Abstract").
 * Example: `"Title\n1. Abstract\n2. Related Work"` → ["abstract", "related work"].
 */
export function outlineItems(text: string): string[] {
  const t = text.replace(/\\n/g, '\n');
  const lines = t.split(/\r?\n/);
  const parts = lines.filter((l) => l.trim() !== '').length > 1 ? lines : t.split(',');
  const items = parts.map((p) => strictNorm(p.replace(LIST_MARKER, ''))).filter((p) => p !== '');
  return items[0] === 'title' ? items.slice(1) : items;
}

/** Length of the longest common subsequence of two string lists. */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * Outline F1 (order-aware): with L = LCS of the predicted and reference title lists (`outlineItems`), precision =
 * L / |predicted|, recall = L / |reference|, F1 = 2PR / (P + R); 0 when L = 0.
 * Example: reference "Title\nAbstract\nIntro\nMethod\nConclusion", prediction "Abstract\nMethod\nIntro\nConclusion" →
 * L = 3, P = R = 3/4, F1 = 0.75.
 */
export function outlineF1(prediction: string, reference: string): number {
  const p = outlineItems(prediction);
  const r = outlineItems(reference);
  const l = lcsLength(p, r);
  if (l === 0) return 0;
  const precision = l / p.length;
  const recall = l / r.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * The section names of a disordered-section answer: an optional leading "Swapped sections:" dropped, split on ","
 * (else on " and " / "&" when there is no comma), `strictNorm`, empties dropped.
 */
export function sectionNames(text: string): string[] {
  const t = text.replace(/^\s*swapped\s+sections?\s*:/i, '');
  const parts = t.includes(',') ? t.split(',') : t.split(/\s+and\s+|&/i);
  return parts.map(strictNorm).filter((p) => p !== '');
}

/** Section-set match: 1 when the answer names exactly the reference's two sections (any order), else 0. */
export function sectionSetMatch(prediction: string, reference: string): number {
  const p = sectionNames(prediction);
  const r = sectionNames(reference);
  if (p.length !== r.length) return 0;
  const a = [...p].sort();
  const b = [...r].sort();
  return a.every((x, i) => x === b[i]) && new Set(a).size === a.length ? 1 : 0;
}

/** The references of a Paper target (a list of strings, or one string). */
export function referencesOf(target: Json): string[] {
  if (Array.isArray(target)) return target.map((t) => (typeof t === 'string' ? t : JSON.stringify(t)));
  return typeof target === 'string' ? [target] : [JSON.stringify(target)];
}

/**
 * The strict score of an extracted answer (§7 rec. 18): `answer-f1` → `answerF1` over the references; `outline-f1` →
 * the best `outlineF1` over the references; `section-set` → the best `sectionSetMatch`.
 */
export function paperScore(extracted: string, target: Json, metric: PaperMetric): number {
  const refs = referencesOf(target);
  switch (metric) {
    case 'answer-f1':
      return answerF1(extracted, refs);
    case 'outline-f1':
      return Math.max(0, ...refs.map((r) => outlineF1(extracted, r)));
    case 'section-set':
      return Math.max(0, ...refs.map((r) => sectionSetMatch(extracted, r)));
  }
}
