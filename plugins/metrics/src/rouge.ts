/**
 * ROUGE (rouge1..rouge9, rougeL, rougeLsum) as Google's `rouge_score` computes it, and the SamSum scorer built on it
 * (specs/hpt.md §3 SamSum row and "ROUGE", §4 "SamSum", §9 #7 and #8).
 *
 * The reference wraps HF `evaluate`'s `rouge`, i.e. `rouge_score.rouge_scorer.RougeScorer(types, use_stemmer=False)`
 * with its default tokenizer, called as `score(target, prediction)`. This module reproduces that scorer exactly: same
 * tokens, same clipped n-gram counts, same LCS read-out (tie-breaking) in the summary-level union LCS, and the same
 * float divisions and F expression, so per-pair values are meant to be bit-identical to the Python package (checked
 * against the published rouge_scorer_test.py values). The run-level report uses plain means of the F-measures instead
 * of the bootstrap "mid" (§9 #8).
 */
import { escapeRegExp, type GradedOutput, HptError, type Json, type MetricAggregator, pyStrip, type Sample, type ScoreContext, type Scorer, type Verdict } from '@hpt-bench/sdk';
import { badTarget, compatOf, thresholdOption } from './parse-util.js';
import { porterStem } from './porter.js';

/** Precision, recall and F-measure of one ROUGE type, each in [0, 1] (rouge_score's `Score` tuple). */
export interface RougeValue {
  precision: number;
  recall: number;
  fmeasure: number;
}

/** The four types the reference reports for SamSum (HF `evaluate` default), in report order. */
export const ROUGE_TYPES = ['rouge1', 'rouge2', 'rougeL', 'rougeLsum'] as const;

/** Options of `rougeScore`: `stemmer` = Porter-stem tokens longer than 3 characters (rouge_score `use_stemmer`). */
export interface RougeOptions {
  stemmer?: boolean;
}

/**
 * rouge_score's `scoring.fmeasure`: 2PR / (P + R), and 0 when P + R is 0. Evaluated in the same order as the Python
 * expression `2 * precision * recall / (precision + recall)` so results are bit-identical.
 */
export function rougeFmeasure(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

const TOKEN_RE = /[a-z0-9]+/g;
const VALID_TOKEN_RE = /^[a-z0-9]+$/;

/** Memo of stemmed tokens (the stemmer is pure; '' marks an invalid result); cleared past `STEM_CACHE_MAX` entries. */
const stemCache = new Map<string, string>();
const STEM_CACHE_MAX = 100_000;

/** The Porter stem of a token, or null when the stem is not a valid token (`^[a-z0-9]+$`), memoized. */
function stemToken(token: string): string | null {
  let s = stemCache.get(token);
  if (s === undefined) {
    if (stemCache.size >= STEM_CACHE_MAX) stemCache.clear();
    s = porterStem(token);
    if (!VALID_TOKEN_RE.test(s)) s = '';
    stemCache.set(token, s);
  }
  return s === '' ? null : s;
}

/**
 * rouge_score's default tokenizer (`tokenize.tokenize(text, stemmer)`, as `tokenizers.DefaultTokenizer` calls it).
 * Input: any text. Output: the tokens, in order.
 * Steps: lower-case (Unicode full lower-casing, as Python's `str.lower()`); every run of characters outside `[a-z0-9]`
 * becomes a separator, so only maximal ASCII letter/digit runs survive (`can't` ⇒ `can`, `t`; `naïve` ⇒ `na`, `ve`;
 * `İ` lower-cases to `i` + U+0307 and yields `i`; CJK text yields nothing); with `stemmer`, tokens longer than 3
 * characters are replaced by their Porter stem (NLTK `PorterStemmer`, mode NLTK_EXTENSIONS; see `porterStem`); finally
 * tokens that are not `^[a-z0-9]+$` (i.e. empty) are dropped.
 * Examples (rouge `tokenize_test.py`): `'one Two three'` ⇒ `['one','two','three']`; `'one\n Two \nthree'` ⇒ the same.
 * Never throws.
 */
export function rougeTokenize(text: string, stemmer = false): string[] {
  const tokens = text.toLowerCase().match(TOKEN_RE);
  if (tokens === null) return [];
  if (!stemmer) return [...tokens];
  const out: string[] = [];
  for (const t of tokens) {
    const s = t.length > 3 ? stemToken(t) : t;
    if (s !== null) out.push(s);
  }
  return out;
}

/** A parsed ROUGE type: n-gram order, sentence-level LCS, or summary-level LCS. */
type ParsedType = { kind: 'n'; n: number } | { kind: 'L' } | { kind: 'Lsum' };

/**
 * Parses a ROUGE type name the way `RougeScorer.score` accepts it: `rougeL`, `rougeLsum`, or `rouge` + one digit 1..9.
 * @throws HptError `E_CONFIG` for anything else (`rouge0`, `rouge10`, `rougen`, ...), like rouge_score's ValueError.
 */
function parseType(type: string): ParsedType {
  if (type === 'rougeL') return { kind: 'L' };
  if (type === 'rougeLsum') return { kind: 'Lsum' };
  const m = /^rouge([0-9])$/.exec(type);
  if (m === null) throw new HptError('E_CONFIG', `invalid ROUGE type "${type}" (expected rouge1..rouge9, rougeL or rougeLsum)`);
  const n = Number(m[1]);
  if (n <= 0) throw new HptError('E_CONFIG', `invalid ROUGE type "${type}": rougeN requires a positive n`);
  return { kind: 'n', n };
}

// --- Token interning and scratch buffers -------------------------------------------------------------------------
// All scoring works on integer token ids: one process-wide intern table (strings are compared once, on lookup), and
// scratch buffers indexed by id, zeroed again after each use. Everything is synchronous, so sharing them is safe.

/** Process-wide token ⇒ id table; cleared (between pairs, never during one) when it grows past `VOCAB_MAX`. */
const vocab = new Map<string, number>();
const VOCAB_MAX = 1 << 20;

function intern(token: string): number {
  let id = vocab.get(token);
  if (id === undefined) {
    id = vocab.size;
    vocab.set(token, id);
  }
  return id;
}

/** Per-id counters (n-gram clipping, summary-level token budgets), all zero between uses. */
let countA = new Int32Array(1024);
let countB = new Int32Array(1024);
/** LCS length table, (rows + 1) x (cols + 1), row-major. */
let table = new Int32Array(1024);
/** Per-position marks (union LCS, n-gram matching). */
let marks = new Uint8Array(256);

function ensureCounters(size: number): void {
  if (countA.length < size) {
    const n = Math.max(size, countA.length * 2);
    countA = new Int32Array(n);
    countB = new Int32Array(n);
  }
}

function ensureMarks(size: number): Uint8Array {
  if (marks.length < size) marks = new Uint8Array(Math.max(size, marks.length * 2));
  return marks;
}

// --- LCS ------------------------------------------------------------------------------------------------------------

/** Fills `table` with the LCS length table of `ref` x `can` (elements compared with `===`); returns the row width. */
function fillLcsTable<T>(ref: readonly T[], can: readonly T[]): number {
  const rows = ref.length;
  const cols = can.length;
  const w = cols + 1;
  const size = (rows + 1) * w;
  if (table.length < size) table = new Int32Array(Math.max(size, table.length * 2));
  table.fill(0, 0, w);
  for (let i = 1; i <= rows; i++) {
    const r = ref[i - 1];
    const row = i * w;
    const up = row - w;
    table[row] = 0;
    for (let j = 1; j <= cols; j++) {
      if (r === can[j - 1]) {
        table[row + j] = (table[up + j - 1] as number) + 1;
      } else {
        const a = table[up + j] as number;
        const b = table[row + j - 1] as number;
        table[row + j] = a > b ? a : b;
      }
    }
  }
  return w;
}

/**
 * Sets `mark[i] = 1` for the indices `i` into `ref` of the one LCS rouge_score reads out (`_backtrack_norec`).
 * Walking back from the table's corner: equal elements are taken diagonally; otherwise the walk moves left (drops a
 * `can` element) only when the left cell is strictly greater than the upper cell, else up.
 */
function markLcs<T>(ref: readonly T[], can: readonly T[], mark: Uint8Array): void {
  if (ref.length === 0 || can.length === 0) return;
  const w = fillLcsTable(ref, can);
  let i = ref.length;
  let j = can.length;
  while (i > 0 && j > 0) {
    if (ref[i - 1] === can[j - 1]) {
      mark[i - 1] = 1;
      i--;
      j--;
    } else if ((table[i * w + j - 1] as number) > (table[(i - 1) * w + j] as number)) {
      j--;
    } else {
      i--;
    }
  }
}

/** Length of a longest common subsequence of `a` and `b` (elements compared with `===`), in O(|a|·|b|). */
export function lcsLength<T>(a: readonly T[], b: readonly T[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const w = fillLcsTable(a, b);
  return table[a.length * w + b.length] as number;
}

/**
 * The indices into `ref` of the one longest common subsequence rouge_score reads out (`lcs_ind`: `_lcs_table` then
 * `_backtrack_norec`), ascending. Tie-breaking matters for the summary-level union LCS and is reproduced (see
 * `markLcs`). Example (rouge_scorer_test.py testLcsTable): ref `[1,2,3,4,5]`, can `[2,5,3,4]` ⇒ `[1,2,3]`.
 */
export function lcsIndices<T>(ref: readonly T[], can: readonly T[]): number[] {
  const mark = new Uint8Array(ref.length);
  markLcs(ref, can, mark);
  const out: number[] = [];
  for (let i = 0; i < ref.length; i++) if (mark[i] === 1) out.push(i);
  return out;
}

/**
 * The union LCS of one reference sentence against candidate sentences (rouge_score `_union_lcs`): the elements of
 * `ref` at the sorted union of each candidate's `lcsIndices(ref, candidate)`.
 * Example (rouge_scorer_test.py testUnionLcs, ROUGE paper §3.2): ref `[1,2,3,4,5]`, candidates `[1,2,6,7,8]` and
 * `[1,3,8,9,5]` ⇒ `[1,2,3,5]`.
 */
export function unionLcs<T>(ref: readonly T[], candidates: readonly (readonly T[])[]): T[] {
  const mark = new Uint8Array(ref.length);
  for (const c of candidates) markLcs(ref, c, mark);
  const out: T[] = [];
  for (let i = 0; i < ref.length; i++) if (mark[i] === 1) out.push(ref[i] as T);
  return out;
}

function prf(hits: number, predictionTotal: number, targetTotal: number): RougeValue {
  const precision = hits / predictionTotal;
  const recall = hits / targetTotal;
  return { precision, recall, fmeasure: rougeFmeasure(precision, recall) };
}

function zero(): RougeValue {
  return { precision: 0, recall: 0, fmeasure: 0 };
}

/** Summary-level LCS on integer ids below `idLimit` (see `summaryLevelLcs`). */
function summaryLevelIds(refs: readonly (readonly number[])[], cans: readonly (readonly number[])[], idLimit: number): RougeValue {
  if (refs.length === 0 || cans.length === 0) return zero();
  let m = 0;
  let n = 0;
  for (const r of refs) m += r.length;
  for (const c of cans) n += c.length;
  if (m === 0 || n === 0) return zero();
  ensureCounters(idLimit);
  const budgetR = countA;
  const budgetC = countB;
  for (const r of refs) for (const t of r) budgetR[t]!++;
  for (const c of cans) for (const t of c) budgetC[t]!++;
  let hits = 0;
  for (const r of refs) {
    const mark = ensureMarks(r.length);
    mark.fill(0, 0, r.length);
    for (const c of cans) markLcs(r, c, mark);
    for (let i = 0; i < r.length; i++) {
      if (mark[i] !== 1) continue;
      const t = r[i] as number;
      if ((budgetC[t] as number) > 0 && (budgetR[t] as number) > 0) {
        hits++;
        budgetC[t]!--;
        budgetR[t]!--;
      }
    }
  }
  for (const r of refs) for (const t of r) budgetR[t] = 0;
  for (const c of cans) for (const t of c) budgetC[t] = 0;
  return prf(hits, n, m);
}

/**
 * Summary-level LCS score (rouge_score `_summary_level_lcs`, ROUGE paper §3.2, ROUGE-1.5.5 counting).
 * Input: tokenized reference sentences and candidate sentences (any element type, compared by identity/value like
 * Python `==` on strings and ints). Output: P = hits / candidate tokens, R = hits / reference tokens,
 * F = `rougeFmeasure(P, R)`; all 0 when either side has no sentences or no tokens.
 * hits: for each reference sentence, walk its union LCS against all candidate sentences; a token counts when it still
 * has unused occurrences on both sides (per-token budgets over the whole summaries, decremented on use), which
 * prevents double counting.
 * Example (rouge_scorer_test.py testSummaryLevelLcs): refs `[[1,2,3,4,5]]`, cans `[[1,2,6,7,8],[1,3,8,9,5]]` ⇒
 * R 0.8, P 0.4, F ≈ 0.5333.
 */
export function summaryLevelLcs<T>(refs: readonly (readonly T[])[], cans: readonly (readonly T[])[]): RougeValue {
  const ids = new Map<T, number>();
  const toIds = (s: readonly T[]): number[] =>
    s.map((t) => {
      let id = ids.get(t);
      if (id === undefined) {
        id = ids.size;
        ids.set(t, id);
      }
      return id;
    });
  const r = refs.map(toIds);
  const c = cans.map(toIds);
  return summaryLevelIds(r, c, ids.size);
}

// --- n-grams -------------------------------------------------------------------------------------------------------

/** Above this many n-gram pairs the overlap is counted with a hash map instead of pairwise matching. */
const PAIRWISE_MAX = 1 << 14;

/**
 * Clipped n-gram overlap Σ_g min(count_target(g), count_prediction(g)) of two id sequences.
 * n = 1: per-id counters. n > 1: greedy pairwise matching of equal n-grams (each prediction n-gram used once), which
 * yields exactly the clipped count; for long texts a Map of n-gram keys.
 */
function ngramOverlap(target: readonly number[], prediction: readonly number[], n: number): number {
  const tn = target.length - n + 1;
  const pn = prediction.length - n + 1;
  if (tn <= 0 || pn <= 0) return 0;
  let overlap = 0;
  if (n === 1) {
    ensureCounters(vocab.size);
    const c = countA;
    for (const t of target) c[t]!++;
    for (const p of prediction) {
      if ((c[p] as number) > 0) {
        c[p]!--;
        overlap++;
      }
    }
    for (const t of target) c[t] = 0;
    return overlap;
  }
  if (tn * pn <= PAIRWISE_MAX) {
    const used = ensureMarks(pn);
    used.fill(0, 0, pn);
    for (let i = 0; i < tn; i++) {
      for (let j = 0; j < pn; j++) {
        if (used[j] === 1) continue;
        let k = 0;
        while (k < n && target[i + k] === prediction[j + k]) k++;
        if (k === n) {
          used[j] = 1;
          overlap++;
          break;
        }
      }
    }
    return overlap;
  }
  const counts = new Map<string, number>();
  for (let i = 0; i < tn; i++) {
    const key = target.slice(i, i + n).join(' ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (let j = 0; j < pn; j++) {
    const key = prediction.slice(j, j + n).join(' ');
    const c = counts.get(key);
    if (c !== undefined && c > 0) {
      counts.set(key, c - 1);
      overlap++;
    }
  }
  return overlap;
}

/**
 * rougeN (rouge_score `_score_ngrams`): overlap = Σ over target n-grams of min(target count, prediction count)
 * (clipped counts); P = overlap / max(#prediction n-grams, 1), R = overlap / max(#target n-grams, 1).
 */
function scoreNgrams(target: readonly number[], prediction: readonly number[], n: number): RougeValue {
  const overlap = ngramOverlap(target, prediction, n);
  return prf(overlap, Math.max(prediction.length - n + 1, 1), Math.max(target.length - n + 1, 1));
}

/** Sentence-level LCS score (rouge_score `_score_lcs`): P = LCS / |prediction|, R = LCS / |target|; 0s if either is empty. */
function scoreLcs(target: readonly number[], prediction: readonly number[]): RougeValue {
  if (target.length === 0 || prediction.length === 0) return zero();
  return prf(lcsLength(target, prediction), prediction.length, target.length);
}

// --- rougeScore ----------------------------------------------------------------------------------------------------

/** A text's tokens as interned ids: the whole text, and its `\n`-separated lines that have at least one token. */
interface Tokenized {
  all: number[];
  sentences: number[][];
}

/**
 * Tokenizes `text` exactly as `rougeTokenize` (one pass over the lower-cased text: maximal `[a-z0-9]` runs, optionally
 * stemmed) and interns the tokens. `\n` also closes a sentence for rougeLsum. rouge_score keeps every non-empty line
 * as a sentence, but a line without tokens never contributes to the summary-level LCS (it has no LCS with anything,
 * and the totals are token counts), so only lines with tokens are kept. `\n` never occurs inside a token, so the
 * whole-text tokens are the concatenation of the lines' tokens.
 */
function tokenizeInterned(text: string, stemmer: boolean): Tokenized {
  const lower = text.toLowerCase();
  const all: number[] = [];
  const sentences: number[][] = [];
  let sentence: number[] = [];
  let start = -1;
  const n = lower.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? lower.charCodeAt(i) : 10;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0) {
      let tok: string | null = lower.slice(start, i);
      start = -1;
      if (stemmer && tok.length > 3) tok = stemToken(tok);
      if (tok !== null) {
        const id = intern(tok);
        all.push(id);
        sentence.push(id);
      }
    }
    if (c === 10 && sentence.length > 0) {
      sentences.push(sentence);
      sentence = [];
    }
  }
  return { all, sentences };
}

const parsedTypes = new Map<string, ParsedType>();

function parseTypeCached(type: string): ParsedType {
  let p = parsedTypes.get(type);
  if (p === undefined) {
    p = parseType(type);
    parsedTypes.set(type, p);
  }
  return p;
}

/**
 * ROUGE scores of one prediction against one target, exactly as `RougeScorer(types, use_stemmer).score(target,
 * prediction)` (note the order: target first).
 * - Input: two texts (any Unicode; see `rougeTokenize`), the types (default rouge1, rouge2, rougeL, rougeLsum;
 *   `rouge1`..`rouge9` are n-gram orders), and `{ stemmer }` (default false, as the reference).
 * - Output: `{ [type]: { precision, recall, fmeasure } }` in the order of `types`, values in [0, 1].
 * - rougeN: clipped n-gram overlap; rougeL: LCS of the whole token sequences (newlines are ordinary separators);
 *   rougeLsum: summary-level union LCS over the `\n`-separated lines (`summaryLevelLcs`; empty lines dropped; no
 *   sentence splitting beyond `\n`, as with `split_summaries=False`).
 * - Any side without tokens gives 0 / 0 / 0 (e.g. empty prediction, prediction `"/"`).
 * Example (rouge_scorer_test.py testRouge1): `rougeScore('testing one two', 'testing', ['rouge1'])` ⇒ P 1, R 1/3, F 1/2.
 * @throws HptError `E_CONFIG` for an unknown type (`rouge0`, `rouge10`, `rougen`, ...).
 */
export function rougeScore(
  target: string,
  prediction: string,
  types: readonly string[] = ROUGE_TYPES,
  options: RougeOptions = {},
): Record<string, RougeValue> {
  const parsed: ParsedType[] = [];
  for (const type of types) parsed.push(parseTypeCached(type));
  const stemmer = options.stemmer ?? false;
  if (vocab.size > VOCAB_MAX) vocab.clear();
  const t = tokenizeInterned(target, stemmer);
  const p = tokenizeInterned(prediction, stemmer);
  const result: Record<string, RougeValue> = {};
  let lcs: RougeValue | undefined;
  for (let k = 0; k < types.length; k++) {
    const type = types[k] as string;
    const pt = parsed[k] as ParsedType;
    if (pt.kind === 'n') {
      result[type] = scoreNgrams(t.all, p.all, pt.n);
    } else if (pt.kind === 'L' || (t.sentences.length === 1 && p.sentences.length === 1)) {
      // rougeLsum with one tokenized line on each side: the union LCS is the plain LCS, every LCS token is still
      // available on both sides, so hits = LCS length and the summary-level score equals the sentence-level one
      // (same divisions, same F expression).
      lcs ??= scoreLcs(t.all, p.all);
      result[type] = { ...lcs };
    } else {
      result[type] = summaryLevelIds(t.sentences, p.sentences, vocab.size);
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
// SamSum scorer
// ---------------------------------------------------------------------------------------------------------------

/**
 * The reference SamSum post-processing `pp_samsum` (specs/hpt.md §4 "SamSum"), ported exactly.
 * Input: the full graded text (prompt text + completion). Output: the text after the LAST `Summary:` (case-sensitive;
 * the whole text when there is none), with Python `str.strip()` whitespace removed. At level 3 the last `Summary:` is
 * the cue the framework appended, so the exemplars' summaries are not picked up; a completion that itself writes
 * `Summary:` again yields what follows its last occurrence.
 */
export function referenceSamsum(text: string): string {
  const at = text.lastIndexOf('Summary:');
  return pyStrip(at < 0 ? text : text.slice(at + 'Summary:'.length));
}

/**
 * The strict SamSum extraction (specs/hpt.md §9 #1): the completion only, without one leading repetition of the cue
 * (case-insensitive, optionally wrapped in markdown emphasis/heading marks, e.g. `**Summary:**`), Python-stripped.
 * Examples: `' Summary: Ann buys milk.'` ⇒ `'Ann buys milk.'`; `'**Summary:** Ann buys milk.'` ⇒ `'Ann buys milk.'`;
 * `'Ann buys milk. Summary: x'` is returned whole (only a leading cue is dropped). An empty cue drops nothing.
 */
export function strictSummary(completion: string, cue: string): string {
  const c = cue.trim();
  let t = completion;
  if (c !== '') {
    const re = new RegExp(`^[\\s*_#>]*${escapeRegExp(c)}[*_]*`, 'iu');
    t = t.replace(re, '');
  }
  return pyStrip(t);
}

/**
 * Reads a SamSum gold summary (the sample's target string).
 * @throws HptError `E_DATA` when the target is not a string.
 */
function goldSummary(sample: Sample): string {
  if (typeof sample.target === 'string') return sample.target;
  throw badTarget('rouge', sample, 'a reference summary string');
}

/** A recorded prediction as text: strings as they are, null as `''`, anything else as its JSON. */
function predictionText(prediction: Json): string {
  if (typeof prediction === 'string') return prediction;
  return prediction === null ? '' : JSON.stringify(prediction);
}

/**
 * Streaming mean-F1 aggregator (specs/hpt.md §9 #8): per added prediction it scores all four types against the
 * sample's target and keeps only running sums. `result()` = `{ rouge1, rouge2, rougeL, rougeLsum }`, each the plain
 * mean F-measure in [0, 1] over all added predictions (null for each when none was added).
 */
class RougeMeanAggregator implements MetricAggregator {
  private readonly sums = [0, 0, 0, 0];
  private n = 0;

  add(sample: Sample, prediction: Json): void {
    const scores = rougeScore(goldSummary(sample), predictionText(prediction), ROUGE_TYPES);
    ROUGE_TYPES.forEach((type, k) => {
      this.sums[k] = (this.sums[k] as number) + (scores[type] as RougeValue).fmeasure;
    });
    this.n++;
  }

  result(): Record<string, Json> {
    const out: Record<string, Json> = {};
    ROUGE_TYPES.forEach((type, k) => {
      out[type] = this.n === 0 ? null : (this.sums[k] as number) / this.n;
    });
    return out;
  }
}

/**
 * Scorer `rouge` (SamSum). Sample: `input.dialogue`, target = the reference summary (string).
 * Options: `threshold` (required, number in [0, 1]; the paper runs 0.15 and 0.20).
 * - strict (default): prediction = `strictSummary(output.completion, output.cue)`.
 * - reference: prediction = `referenceSamsum(output.promptText + output.completion)` (last `Summary:` piece).
 * Verdict: `score` = ROUGE-1 F-measure of (target, prediction), default tokenizer, no stemmer; `solved` = score >=
 * threshold; `extracted` = the prediction string.
 * Dataset metric (`createAggregator`): plain means of the rouge1/rouge2/rougeL/rougeLsum F-measures (§9 #8).
 * Throws HptError `E_CONFIG` when the threshold is missing or invalid, `E_DATA` when a target is not a string.
 */
export class RougeScorer implements Scorer {
  readonly id = 'rouge';

  /** Checks the run's options before any model call: the threshold must be present and in [0, 1]. */
  prepare(ctx: ScoreContext): void {
    thresholdOption(ctx?.options);
  }

  /** Scores one graded output (see the class docs). */
  score(sample: Sample, output: GradedOutput, ctx: ScoreContext): Verdict {
    const threshold = thresholdOption(ctx?.options);
    const gold = goldSummary(sample);
    const prediction =
      compatOf(ctx) === 'reference'
        ? referenceSamsum(output.promptText + output.completion)
        : strictSummary(output.completion, output.cue);
    const score = (rougeScore(gold, prediction, ['rouge1']).rouge1 as RougeValue).fmeasure;
    return { solved: score >= threshold, score, extracted: prediction };
  }

  /** The reference summary itself (ROUGE-1 F1 = 1 under both extractions; oracle baseline). */
  renderTarget(sample: Sample, _ctx?: ScoreContext): string {
    return goldSummary(sample);
  }

  /**
   * A seeded scramble of the reference's whitespace-separated words (random baseline): a Fisher–Yates shuffle
   * (one `random()` draw per position), then the first k words with k uniform in 1..#words (one more draw), joined by
   * single spaces. An empty target gives `''`.
   */
  randomAnswer(sample: Sample, random: () => number, _ctx?: ScoreContext): string {
    const words = goldSummary(sample).split(/\s+/u).filter((w) => w !== '');
    if (words.length === 0) return '';
    for (let i = words.length - 1; i > 0; i--) {
      const j = Math.min(i, Math.floor(random() * (i + 1)));
      const tmp = words[i] as string;
      words[i] = words[j] as string;
      words[j] = tmp;
    }
    const k = Math.min(words.length, 1 + Math.floor(random() * words.length));
    return words.slice(0, k).join(' ');
  }

  /** The SamSum dataset metric: streaming plain means of the four ROUGE F-measures (see `RougeMeanAggregator`). */
  createAggregator(_ctx?: ScoreContext): MetricAggregator {
    return new RougeMeanAggregator();
  }
}
