/**
 * The five HiBench match types (specs/hibench.md §4.3) in compat (`reference`: the toolkit's `evaluator/base.py`,
 * quirks included) and strict (§7 recs 5–9, 15, 21) form. The semantics per type are summarised on `MatcherSpec`
 * (../types.ts) and detailed on `matchAnswer`.
 */
import { HptError, type CompatMode, type Json } from '@hpt-bench/sdk';
import { bigOEqual } from '../lib/program/bigo.js';
import { parseExpression, exprEqual } from '../lib/notation.js';
import { pyStr } from '../prompt.js';
import { paperScore } from '../lib/answer-metrics.js';
import { isNoEdges, parseStructure, structuresEqual } from '../lib/tree/parse.js';
import type { MatcherSpec, Representation, TreeStructure } from '../types.js';
import { extractAnswer, extractReference } from './extract.js';
import { digitsOnly, refineString, removeWhitespace, strictNorm } from './normalize.js';

/**
 * The outcome of matching one output: `correct` (hit-rate: score ≥ 1), `score` (1/0, or the hit-rate fraction in
 * [0, 1]) and `extracted` (the extracted answer text, null when there was none; compat: the lower-cased capture with
 * its quotes, as the toolkit's extractor returns it).
 */
export interface MatchResult {
  correct: boolean;
  score: number;
  extracted: string | null;
}

/** The literal meaning "no items" for list targets when the spec does not name one (§3.2 All Ancestor/Children). */
export const DEFAULT_NONE = 'None';
/** The literal of an edgeless structure when the spec does not name one (§3.0.1). */
export const DEFAULT_EMPTY = 'No edges';
/** Default strict numeric tolerance (§7 rec. 7: answers are rounded to 2 decimals). */
export const DEFAULT_TOLERANCE = 0.01;

const VALID_TYPES: readonly MatcherSpec['type'][] = ['number', 'string', 'list', 'structure', 'hit-rate'];

function result(correct: boolean, extracted: string | null): MatchResult {
  return { correct, score: correct ? 1 : 0, extracted };
}

/** The reference as the toolkit's scorer sees it: Python `str(reference)` (§4.1). */
function targetText(target: Json): string {
  return pyStr(target);
}

function sepOf(spec: MatcherSpec): string {
  const sep = spec.sep ?? ',';
  if (sep === '') throw new HptError('E_CONFIG', 'hibench matcher: `sep` must not be empty');
  return sep;
}

/** `skip` (a regex source, Python `re.sub` semantics) compiled as a global JS RegExp. @throws HptError E_CONFIG. */
function skipRegex(skip: string): RegExp {
  try {
    return new RegExp(skip, 'gu');
  } catch {
    try {
      return new RegExp(skip, 'g');
    } catch (e) {
      throw new HptError('E_CONFIG', `hibench matcher: \`skip\` is not a valid regular expression: ${JSON.stringify(skip)}`, { cause: e });
    }
  }
}

/** Is the target the `none` literal of a list (null, an empty list, or the literal string, case-insensitive)? */
function isNoneTarget(target: Json, spec: MatcherSpec): boolean {
  if (target === null) return true;
  if (Array.isArray(target)) return target.length === 0;
  return typeof target === 'string' && target.trim().toLowerCase() === (spec.none ?? DEFAULT_NONE).trim().toLowerCase();
}

/** Is the target the `empty` literal of a structure ("No edges", case-insensitive)? */
function isEmptyTarget(target: Json, spec: MatcherSpec): boolean {
  return typeof target === 'string' && target.trim().toLowerCase() === (spec.empty ?? DEFAULT_EMPTY).trim().toLowerCase();
}

/** The representation to read a structure in: the spec's, else `hierarchy` when the target spans lines, else `edge`. */
function representationOf(target: Json, spec: MatcherSpec): Representation {
  if (spec.representation !== undefined) return spec.representation;
  return typeof target === 'string' && target.includes('\n') ? 'hierarchy' : 'edge';
}

/** Binary tree? The spec's `binary`, else whether the target carries L/R side tags. */
function binaryOf(target: Json, spec: MatcherSpec): boolean {
  if (spec.binary !== undefined) return spec.binary;
  return typeof target === 'string' && /\((?:L|R)\)/.test(target);
}

// ---------------------------------------------------------------------------------------------------------------------
// Compat (toolkit) matchers. `source` is the raw model output, `target` the reference string (str(reference)).

/** `number_match`: exact equality of the refined strings ("12" ≠ "12.0"; "-3.5" = "3.5" = "35"). */
function numberMatch(source: string, target: string): MatchResult {
  const extracted = extractReference(source);
  if (extracted === null) return result(false, null);
  return result(refineString(target) === refineString(extracted), extracted);
}

/** `string_match`: `skip` deleted from both refined strings; correct iff target == source or target ⊂ source. */
function stringMatch(source: string, target: string, skip: string | undefined): MatchResult {
  const extracted = extractReference(source);
  if (extracted === null) return result(false, null);
  let s = refineString(extracted);
  let t = refineString(target);
  if (skip) {
    const re = skipRegex(skip);
    s = s.replace(re, '');
    t = t.replace(re, '');
  }
  return result(t === s || s.includes(t), extracted);
}

/** `list_match`: whitespace removed, split on `sep`, both sorted, aligned pairs equal up to the SHORTER length (zip). */
function listMatch(source: string, target: string, sep: string): MatchResult {
  const extracted = extractReference(source);
  if (extracted === null) return result(false, null);
  const s = removeWhitespace(refineString(extracted)).split(sep).sort();
  const t = removeWhitespace(refineString(target)).split(sep).sort();
  const n = Math.min(s.length, t.length);
  for (let i = 0; i < n; i++) if (s[i] !== t[i]) return result(false, extracted);
  return result(true, extracted);
}

/** `hierarchical_structure_match`: only the digits of the refined strings are compared. */
function hierarchicalStructureMatch(source: string, target: string): MatchResult {
  const extracted = extractReference(source);
  if (extracted === null) return result(false, null);
  return result(digitsOnly(refineString(extracted)) === digitsOnly(refineString(target)), extracted);
}

function compatMatch(output: string, target: Json, spec: MatcherSpec): MatchResult {
  const t = targetText(target);
  switch (spec.type) {
    case 'number':
      return numberMatch(output, t);
    case 'string':
      // Code (§3.5): all whitespace removed from the raw output and the raw reference, then string_match
      if (spec.bigo) return stringMatch(removeWhitespace(output), removeWhitespace(t), spec.skip);
      return stringMatch(output, t, spec.skip);
    case 'list':
      return isNoneTarget(target, spec) ? stringMatch(output, t, undefined) : listMatch(output, t, sepOf(spec));
    case 'structure':
      if (isEmptyTarget(target, spec)) return stringMatch(output, t, undefined);
      return representationOf(target, spec) === 'hierarchy' ? hierarchicalStructureMatch(output, t) : listMatch(output, t, ',');
    case 'hit-rate':
      return hitRate(output, target, spec, 'reference');
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Hit rate (both modes).

/** Python `repr()` of a str (quote choice and escapes as CPython; non-printables as \x / \u / \U escapes). */
export function pyReprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch !== ' ' && /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u.test(ch)) {
      if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, '0')}`;
      else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
      else out += `\\U${cp.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}

/** Hit-rate mode: `sep` "\n" means Outline Extraction (literal "\n" and newlines become "," first, then split on ","). */
function hitRateSep(spec: MatcherSpec): { sep: string; outline: boolean } {
  const sep = sepOf(spec);
  return sep === '\n' ? { sep: ',', outline: true } : { sep, outline: false };
}

function outlineCommas(s: string): string {
  return s.replaceAll('\\n', '\n').replaceAll('\n', ',');
}

/**
 * The reference pieces of a hit-rate target (§3.6, §4.3): the toolkit target string `"{answer:" + repr(list) + "}"`
 * (a non-list target counts as a one-element list), lower-cased and run through the toolkit extractor, whitespace
 * removed, split on `sep`, each piece refined. All references are pooled.
 * @throws HptError E_DATA when nothing can be extracted from the target.
 */
export function hitRateTargetPieces(target: Json, spec: MatcherSpec): string[] {
  const { sep, outline } = hitRateSep(spec);
  const refs = Array.isArray(target) ? target : [target];
  let text = `{answer:[${refs.map((r) => (typeof r === 'string' ? pyReprString(r) : pyStr(r))).join(', ')}]}`;
  if (outline) text = outlineCommas(text);
  const extracted = extractReference(text);
  if (extracted === null) throw new HptError('E_DATA', `hibench hit-rate: no reference items in target ${JSON.stringify(target)}`);
  return removeWhitespace(extracted).split(sep).map(refineString);
}

/**
 * The hit rate of an already-extracted answer (§4.3 `hit_rate` after extraction): the answer lower-cased (outline
 * mode: literal "\n" and newlines → ","), whitespace removed, split on `sep`, pieces refined; score = (number of
 * reference pieces, see `hitRateTargetPieces`, that occur among the answer pieces) / (number of reference pieces).
 * Works on compat captures (quotes included) and strict values alike. Used by the aggregator to recover the
 * fractional score from a recorded prediction.
 */
export function hitRateOfExtracted(extracted: string, target: Json, spec: MatcherSpec): number {
  const { sep, outline } = hitRateSep(spec);
  let s = extracted.toLowerCase();
  if (outline) s = outlineCommas(s);
  const source = removeWhitespace(s).split(sep).map(refineString);
  const pieces = hitRateTargetPieces(target, spec);
  let hit = 0;
  for (const p of pieces) if (source.includes(p)) hit++;
  return hit / pieces.length;
}

/**
 * `hit_rate` (§4.3): compat extracts with the toolkit extractor, strict with the strict (last-answer) extractor; the
 * rest is identical (outline mode converts newlines of the raw output to "," before extraction, as the toolkit does).
 */
function hitRate(output: string, target: Json, spec: MatcherSpec, compat: CompatMode): MatchResult {
  const { outline } = hitRateSep(spec);
  const source = outline ? outlineCommas(output) : output;
  const extracted = extractAnswer(source, compat);
  if (extracted === null) return { correct: false, score: 0, extracted: null };
  const score = hitRateOfExtracted(extracted, target, spec);
  return { correct: score >= 1, score, extracted };
}

// ---------------------------------------------------------------------------------------------------------------------
// Strict matchers (§7 recs 5–9, 15, 21).

const NUMBER_TOKEN = /[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/;
/** One number literal: sign, digits (optionally in comma-separated thousands groups: `4,360`), decimals, exponent. */
const WHOLE_NUMBER = /^[-+]?(?:\d{1,3}(?:,\d{3})+(?:\.\d*)?|\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
const CANONICAL_INT = /^-?(?:0|[1-9]\d*)$/;

function unicodeMinus(s: string): string {
  return s.replace(/[\u2212\u2012\u2013\uFE63\uFF0D]/g, '-');
}

/** The first number token of a text ("3.0", "-54.31", "1e3"), or null. */
export function firstNumber(text: string): number | null {
  const m = NUMBER_TOKEN.exec(unicodeMinus(text));
  if (m === null) return null;
  const v = Number(m[0]);
  return Number.isFinite(v) ? v : null;
}

/**
 * The strict reading of a number answer (issue 25): the whole text must be ONE number literal — an optional sign (also
 * a Unicode minus), digits with optional decimals and exponent (`3`, `3.0`, `-54.31`, `.5`, `1e3`), the integer part
 * optionally in comma-separated groups of three (`4,360`, `1,234.5`); surrounding whitespace allowed. Anything else is
 * null: a second number (`2, 3`, `2,3`), words (`node 2`, `2 nodes`, `about 11`), units or symbols (`45%`, `$18`).
 * Used by the strict `number` matcher and by the strict `string` matcher for numeric targets, so both read numbers
 * alike. Never throws.
 */
export function wholeNumber(text: string): number | null {
  const t = unicodeMinus(text.trim());
  if (!WHOLE_NUMBER.test(t)) return null;
  const v = Number(t.replaceAll(',', ''));
  return Number.isFinite(v) ? v : null;
}

function badTarget(kind: string, target: Json): HptError {
  return new HptError('E_DATA', `hibench matcher: target ${JSON.stringify(target)} is not a valid ${kind}`);
}

/**
 * Strict `number`: the whole answer must be one number (`wholeNumber`; "2, 3", "node 2", "about 11" are wrong), then
 * |a − b| ≤ tolerance ("3.0" = "3"); the target is read as its first number token.
 */
function strictNumber(extracted: string, target: Json, spec: MatcherSpec): boolean {
  const b = typeof target === 'number' ? target : typeof target === 'string' ? firstNumber(target) : null;
  if (b === null) throw badTarget('number', target);
  const a = wholeNumber(extracted);
  if (a === null) return false;
  const tol = spec.tolerance ?? DEFAULT_TOLERANCE;
  return Math.abs(a - b) <= tol + 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

const ARROW = /\s*(?:-+>|=+>|→|⟶|➔|➜|>)\s*/u;

/** The names of an arrow-separated path, normalised (`strictNorm`); a list target gives its items. */
function pathNames(value: Json): string[] {
  const parts = Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : pyStr(v))) : pyStr(value).split(ARROW);
  return parts.map(strictNorm);
}

function sameSequence(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Strict `string` (§7 recs 6, 7, 15): see `matchAnswer`. */
function strictString(extracted: string, target: Json, spec: MatcherSpec): boolean {
  if (spec.bigo) {
    try {
      return bigOEqual(extracted, pyStr(target));
    } catch {
      throw badTarget('big-O label', target);
    }
  }
  if (spec.notation !== undefined) {
    const t = parseExpression(pyStr(target), spec.notation);
    if (t === null) throw badTarget(`${spec.notation} expression`, target);
    const a = parseExpression(extracted, spec.notation);
    return a !== null && exprEqual(a, t);
  }
  if (spec.path) return sameSequence(pathNames(extracted), pathNames(target));
  if (typeof target === 'boolean' || (typeof target === 'string' && /^(?:true|false)$/i.test(target.trim()))) {
    const label = strictNorm(extracted);
    return (label === 'true' || label === 'false') && label === strictNorm(pyStr(target));
  }
  if (typeof target === 'number' || (typeof target === 'string' && CANONICAL_INT.test(target.trim()))) {
    const a = wholeNumber(extracted);
    return a !== null && a === Number(target);
  }
  let a = strictNorm(extracted);
  let t = strictNorm(Array.isArray(target) ? target.map((v) => (typeof v === 'string' ? v : pyStr(v))).join(', ') : pyStr(target));
  if (spec.skip) {
    const re = skipRegex(spec.skip);
    a = a.replace(re, '');
    t = t.replace(re, '');
  }
  return a === t;
}

/** The items of a list answer/target: one pair of surrounding brackets dropped, split on `sep`, normalised, empties dropped. */
function listItems(value: Json, sep: string): string[] {
  if (Array.isArray(value)) return value.map((v) => strictNorm(typeof v === 'string' ? v : pyStr(v))).filter((s) => s !== '');
  let s = pyStr(value).trim();
  if ((s.startsWith('[') && s.endsWith(']')) || (s.startsWith('(') && s.endsWith(')'))) s = s.slice(1, -1);
  return s
    .split(sep)
    .map(strictNorm)
    .filter((x) => x !== '');
}

/** Strict `list` (§7 rec. 5): `ordered` → exact sequence, else multiset equality; `none` ↔ "none" / "[]". */
function strictList(extracted: string, target: Json, spec: MatcherSpec): boolean {
  const sep = sepOf(spec);
  const answerItems = listItems(extracted, sep);
  if (isNoneTarget(target, spec)) {
    const n = strictNorm(extracted);
    return answerItems.length === 0 || n === 'none' || n === strictNorm(spec.none ?? DEFAULT_NONE);
  }
  const targetItems = listItems(target, sep);
  if (spec.ordered) return sameSequence(answerItems, targetItems);
  return sameSequence([...answerItems].sort(), [...targetItems].sort());
}

function isTreeStructure(v: Json): v is Json & TreeStructure {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof v['root'] === 'number' && typeof v['children'] === 'object';
}

function edgeCount(s: TreeStructure): number {
  return Object.values(s.children).reduce((n, c) => n + c.length, 0);
}

/**
 * Strict `structure` (§7 recs 8, 21): parsed structural equality. An `empty` target ("No edges") accepts the literal,
 * or — when the spec names the one node left (`emptyNode`, Remove Node on a two-node tree) — that node alone, as a
 * bare id or a one-line text tree in either representation; any other node (the removed one, one not in the tree) is
 * wrong, and without `emptyNode` no bare node is accepted.
 */
function strictStructure(extracted: string, target: Json, spec: MatcherSpec): boolean {
  const representation = representationOf(target, spec);
  const binary = binaryOf(target, spec);
  if (isEmptyTarget(target, spec)) {
    if (isNoEdges(extracted) || strictNorm(extracted) === strictNorm(spec.empty ?? DEFAULT_EMPTY)) return true;
    if (spec.emptyNode === undefined) return false;
    // a bare node id reads as a one-node text tree, whatever the input representation
    const a = parseStructure(extracted, 'hierarchy', binary);
    return a !== null && edgeCount(a) === 0 && a.root === spec.emptyNode;
  }
  const t = isTreeStructure(target) ? (target as TreeStructure) : parseStructure(pyStr(target), representation, binary);
  if (t === null) throw badTarget(`${representation} structure`, target);
  const a = parseStructure(extracted, representation, binary);
  return a !== null && structuresEqual(a, t, { binary });
}

/** Strict Paper scoring (§7 rec. 18): the strict (last) answer scored with `spec.metric` (../lib/answer-metrics.ts). */
function strictPaper(output: string, target: Json, spec: MatcherSpec & { metric: NonNullable<MatcherSpec['metric']> }): MatchResult {
  const extracted = extractAnswer(output, 'strict');
  if (extracted === null) return { correct: false, score: 0, extracted: null };
  const score = paperScore(extracted, target, spec.metric);
  return { correct: score >= 1, score, extracted };
}

/** The fractional score of a recorded (extracted) hit-rate answer in a mode: strict with a `metric` → that metric. */
export function fractionalScoreOfExtracted(extracted: string, target: Json, spec: MatcherSpec, compat: CompatMode): number {
  if (compat !== 'reference' && spec.metric !== undefined) return paperScore(extracted, target, spec.metric);
  return hitRateOfExtracted(extracted, target, spec);
}

function strictMatch(output: string, target: Json, spec: MatcherSpec): MatchResult {
  if (spec.type === 'hit-rate' && spec.metric !== undefined) return strictPaper(output, target, { ...spec, metric: spec.metric });
  if (spec.type === 'hit-rate') return hitRate(output, target, spec, 'strict');
  const extracted = extractAnswer(output, 'strict');
  if (extracted === null) return result(false, null);
  switch (spec.type) {
    case 'number':
      return result(strictNumber(extracted, target, spec), extracted);
    case 'string':
      return result(strictString(extracted, target, spec), extracted);
    case 'list':
      return result(strictList(extracted, target, spec), extracted);
    case 'structure':
      return result(strictStructure(extracted, target, spec), extracted);
  }
}

/**
 * Scores one raw model output against a HiBench reference (specs/hibench.md §4.1–4.3, §7 recs 5–9, 15, 21).
 *
 * Compat (`reference`, the toolkit): the answer is the first `{answer: …}` of the lower-cased output (`extractReference`),
 * the target is Python `str(target)` (`pyStr`: booleans "True", lists "[3, 2, 0, 1]"), both refined (§4.2), then
 * - `number`: exact string equality (so "-3.5" = "3.5" = "35", "3" ≠ "3.0");
 * - `string`: `skip` (regex) deleted from both; target == answer or target ⊂ answer ("1" ⊂ "10");
 *   with `bigo` (Code) all whitespace is first removed from the raw output and the target ("O(n log n)" ⊃ "O(n)");
 * - `list`: `none` target → string match; else whitespace removed, split on `sep` (","), both sorted, compared only up
 *   to the shorter length (zip truncation);
 * - `structure`: `empty` target ("No edges") → string match; `hierarchy` → digit sequences equal; `edge` → list match
 *   on ",";
 * - `hit-rate`: see `hitRateOfExtracted` (fractional score, correct iff 1).
 *
 * Strict (default): the answer is the LAST answer (`extractAnswer(…, 'strict')`, case kept), then
 * - `number`: the whole answer must be one number (`wholeNumber`: an answer with a second number or words is wrong),
 *   compared with the target's first number token, |a − b| ≤ `tolerance` (default 0.01);
 * - `string`: `bigo` → canonical big-O equality (`bigOEqual`: every O(...) group of the answer is one of the label's);
 *   `notation` → both parsed with `parseExpression` and compared with `exprEqual`; `path` → both split on
 *   arrows ("->", "→", "=>", ">"), name lists equal after `strictNorm`; boolean or "True"/"False" target → the
 *   normalised answer must be exactly "true"/"false" and equal; number (or canonical integer string) target → the whole
 *   answer must be one number (`wholeNumber`, the `number` rule) of equal value; otherwise `strictNorm` equality (after
 *   deleting `skip`), no containment;
 * - `list`: items split on `sep`, normalised; `ordered` → exact sequence, else multiset (lengths must match); `none`
 *   target (the literal, null, or []) ↔ the answer normalises to "none" or is an empty list ("[]");
 * - `structure`: both parsed with `parseStructure(text, representation, binary)` and compared with `structuresEqual`
 *   (a TreeStructure object target is used as-is); `empty` target ↔ the answer normalises to "no edges", or is the
 *   single node `emptyNode` (the node left; a bare node is wrong without it). `representation` defaults to `hierarchy`
 *   for multi-line targets, else `edge`; `binary` defaults to whether the target carries "(L)"/"(R)" tags;
 * - `hit-rate`: as compat but with the strict extractor; with `metric` set (Paper), the strict answer scored by
 *   `paperScore` (answer-F1, outline LCS-F1 or section-set match), correct iff the score is 1.
 *
 * Returns `{correct, score, extracted}` (score 1/0, hit-rate: the fraction). An unknown `spec.type` or an invalid `sep`
 * / `skip` throws HptError `E_CONFIG`; a target the strict matcher cannot read (not a number, unparsable structure or
 * expression) throws HptError `E_DATA`.
 */
export function matchAnswer(output: string, target: Json, spec: MatcherSpec, compat: CompatMode): MatchResult {
  if (!VALID_TYPES.includes(spec.type)) {
    throw new HptError('E_CONFIG', `hibench matcher: unknown type ${JSON.stringify(spec.type)} (valid: ${VALID_TYPES.join(', ')})`);
  }
  return compat === 'reference' ? compatMatch(output, target, spec) : strictMatch(output, target, spec);
}
