/**
 * BLEU for IWSLT 2017 en→fr (specs/hpt.md §3 IWSLT row and "BLEU", §4 "IWSLT", §9 #7, #9, #16).
 *
 * Two BLEU flavours, both on mteval-v13a tokens (`tokenizers.ts`):
 * - `bleuHf*`: HF `evaluate`'s `bleu` metric, i.e. TensorFlow-NMT `compute_bleu` — what the HPT reference code uses
 *   (a verbatim copy): case-sensitive, order 4, no smoothing, shortest reference length, BP = exp(1 − r/c) when
 *   c ≤ r, length ratio 0 ⇒ BP 0; scale 0–1. The solve test uses its sentence level (a corpus of one pair), the final
 *   report its corpus level (n-gram counts summed over all predictions, not a mean of sentence scores).
 * - `sacreBleu*`: sacreBLEU 2.x `BLEU` (`corpus_bleu` / `sentence_bleu`): closest reference length, smoothing
 *   `exp` (default) / `floor` / `add-k` / `none`, effective order, scale 0–100. Reported alongside for comparability
 *   with the MT literature.
 * Both expose their sufficient statistics (`bleuStats`/`bleuFromStats`, `bleuHfStats`/`bleuHfFromStats`) so a corpus
 * score can be accumulated one segment at a time without keeping the strings.
 *
 * The scorer `BleuScorer` (`bleu`) grades one IWSLT translation: sentence BLEU (HF flavour, 0–1) ≥ the required
 * `threshold` option.
 */
import { type Extraction, extractFirstLine, type GradedOutput, HptError, type Json, type MetricAggregator, pyStrip, type Sample, type ScoreContext, type Scorer, type Verdict } from '@hpt-bench/sdk';
import { badTarget, compatOf, thresholdOption } from './parse-util.js';
export { thresholdOption, THRESHOLD_REQUIRED_MESSAGE } from './parse-util.js';
import { BLEU_TOKENIZERS, pyRstrip, tokenizerTokens, tokens13a, type BleuTokenizerName } from './tokenizers.js';

export {
  BLEU_TOKENIZERS,
  pyRstrip,
  pySplit,
  tokenize13a,
  tokenizeChar,
  tokenizeIntl,
  tokenizeNone,
  tokens13a,
  tokensChar,
  tokensIntl,
  tokensNone,
} from './tokenizers.js';
export type { BleuTokenizerName } from './tokenizers.js';

// ---------------------------------------------------------------------------------------------------------------------
// n-gram counting (shared)
// ---------------------------------------------------------------------------------------------------------------------

/**
 * Counts of all n-grams of orders 1..maxOrder of `tokens`, keyed by the tokens joined with a space (tokens never
 * contain whitespace, so keys are unambiguous and orders cannot collide: an n-gram key has n − 1 spaces).
 */
function ngramCounts(tokens: readonly string[], maxOrder: number): Map<string, number> {
  const counts = new Map<string, number>();
  const len = tokens.length;
  for (let i = 0; i < len; i++) {
    let key = tokens[i] as string;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const last = Math.min(len, i + maxOrder);
    for (let j = i + 1; j < last; j++) {
      key = key + ' ' + (tokens[j] as string);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

/** Per-n-gram maximum count over the references (sacreBLEU's merge, HF's `Counter |=`). String-key fallback. */
function mergedRefCounts(refs: readonly (readonly string[])[], maxOrder: number): Map<string, number> {
  const first = refs[0];
  if (first === undefined) return new Map();
  const merged = ngramCounts(first, maxOrder);
  for (let r = 1; r < refs.length; r++) {
    for (const [k, c] of ngramCounts(refs[r] as readonly string[], maxOrder)) {
      const prev = merged.get(k);
      if (prev === undefined || c > prev) merged.set(k, c);
    }
  }
  return merged;
}

/** Clipped matches per order with string n-gram keys (fallback for huge vocabularies or orders). */
function clippedMatchesByString(hyp: readonly string[], refs: readonly (readonly string[])[], maxOrder: number): number[] {
  const matches = new Array<number>(maxOrder).fill(0);
  const ref = mergedRefCounts(refs, maxOrder);
  if (ref.size === 0) return matches;
  for (const [k, c] of ngramCounts(hyp, maxOrder)) {
    const rc = ref.get(k);
    if (rc === undefined) continue;
    let order = 1;
    for (let i = 0; i < k.length; i++) if (k.charCodeAt(i) === 32) order++;
    matches[order - 1] = (matches[order - 1] as number) + Math.min(c, rc);
  }
  return matches;
}

// Scratch of `clippedMatches` (module-level, grown on demand; JS runs one call at a time): an open-addressing hash
// table (slot keys, 0 = empty since n-gram keys are ≥ 1; hypothesis counts; max reference counts; current reference
// counts), the list of used slots, token ids of the hypothesis and of a reference, and the token → id map.
let tableKeys = new Float64Array(1024);
let tableHyp = new Int32Array(1024);
let tableMax = new Int32Array(1024);
let tableRef = new Int32Array(1024);
let usedSlots = new Int32Array(1024);
let hypIds = new Int32Array(256);
let refIds = new Int32Array(256);
const tokenIds = new Map<string, number>();

/**
 * Clipped n-gram matches per order (index n − 1) of a hypothesis against its references: Σ over hypothesis n-grams
 * of min(count in hypothesis, max count in any one reference) — sacreBLEU's `_compute_segment_statistics` and
 * `compute_bleu`'s `Counter &`. Fast path: the hypothesis' distinct tokens get ids 1..V, a reference token absent from
 * the hypothesis gets 0 (no n-gram through it can match), and an n-gram is the integer Σ id_k·B^(n−k) with B = V + 1
 * (unique, and B^(n−1) ≤ key < B^n gives its order), counted in an open-addressing hash table. A reference n-gram
 * that is not a hypothesis n-gram ends the extension from that start (no longer n-gram through it can match).
 * Falls back to string keys when B^maxOrder is not a safe integer.
 */
function clippedMatches(hyp: readonly string[], refs: readonly (readonly string[])[], maxOrder: number): number[] {
  const matches = new Array<number>(maxOrder).fill(0);
  const hlen = hyp.length;
  if (hlen === 0 || refs.length === 0) return matches;
  if (hypIds.length < hlen) hypIds = new Int32Array(Math.max(hlen, 2 * hypIds.length));
  const ids = tokenIds;
  ids.clear();
  for (let i = 0; i < hlen; i++) {
    const t = hyp[i] as string;
    let id = ids.get(t);
    if (id === undefined) {
      id = ids.size + 1;
      ids.set(t, id);
    }
    hypIds[i] = id;
  }
  const base = ids.size + 1;
  if (base ** maxOrder > Number.MAX_SAFE_INTEGER) return clippedMatchesByString(hyp, refs, maxOrder);

  let size = 64;
  while (size < 2 * hlen * maxOrder) size *= 2;
  if (tableKeys.length < size) {
    tableKeys = new Float64Array(size);
    tableHyp = new Int32Array(size);
    tableMax = new Int32Array(size);
    tableRef = new Int32Array(size);
    usedSlots = new Int32Array(size);
  }
  const keys = tableKeys;
  const hypCounts = tableHyp;
  const maxCounts = tableMax;
  const refCounts = tableRef;
  const used = usedSlots;
  const mask = size - 1;
  keys.fill(0, 0, size);
  let nUsed = 0;
  for (let i = 0; i < hlen; i++) {
    let key = 0;
    const last = Math.min(hlen, i + maxOrder);
    for (let j = i; j < last; j++) {
      key = key * base + (hypIds[j] as number);
      let h = (Math.imul(key, -1640531535) >>> 16) & mask;
      let k = keys[h] as number;
      while (k !== 0 && k !== key) {
        h = (h + 1) & mask;
        k = keys[h] as number;
      }
      if (k === 0) {
        keys[h] = key;
        hypCounts[h] = 1;
        maxCounts[h] = 0;
        refCounts[h] = 0;
        used[nUsed++] = h;
      } else {
        hypCounts[h] = (hypCounts[h] as number) + 1;
      }
    }
  }

  for (let r = 0; r < refs.length; r++) {
    const ref = refs[r] as readonly string[];
    const rlen = ref.length;
    const counts = r === 0 ? maxCounts : refCounts;
    if (r > 0) for (let u = 0; u < nUsed; u++) refCounts[used[u] as number] = 0;
    if (refIds.length < rlen) refIds = new Int32Array(Math.max(rlen, 2 * refIds.length));
    for (let i = 0; i < rlen; i++) refIds[i] = ids.get(ref[i] as string) ?? 0;
    for (let i = 0; i < rlen; i++) {
      let key = 0;
      const last = Math.min(rlen, i + maxOrder);
      for (let j = i; j < last; j++) {
        const id = refIds[j] as number;
        if (id === 0) break;
        key = key * base + id;
        let h = (Math.imul(key, -1640531535) >>> 16) & mask;
        let k = keys[h] as number;
        while (k !== 0 && k !== key) {
          h = (h + 1) & mask;
          k = keys[h] as number;
        }
        if (k === 0) break;
        counts[h] = (counts[h] as number) + 1;
      }
    }
    if (r > 0) {
      for (let u = 0; u < nUsed; u++) {
        const h = used[u] as number;
        if ((refCounts[h] as number) > (maxCounts[h] as number)) maxCounts[h] = refCounts[h] as number;
      }
    }
  }

  for (let u = 0; u < nUsed; u++) {
    const h = used[u] as number;
    const m = Math.min(hypCounts[h] as number, maxCounts[h] as number);
    if (m === 0) continue;
    const key = keys[h] as number;
    let order = 1;
    for (let bound = base; key >= bound && order < maxOrder; bound *= base) order++;
    matches[order - 1] = (matches[order - 1] as number) + m;
  }
  return matches;
}

/** Number of n-grams of each order (index n − 1) in a sequence of `len` tokens. */
function ngramTotals(len: number, maxOrder: number): number[] {
  const totals = new Array<number>(maxOrder);
  for (let n = 1; n <= maxOrder; n++) totals[n - 1] = Math.max(0, len - n + 1);
  return totals;
}

function checkOrder(order: number, name: string): number {
  if (!Number.isInteger(order) || order < 1) {
    throw new HptError('E_CONFIG', `BLEU option "${name}" must be a positive integer, got ${JSON.stringify(order)}`);
  }
  return order;
}

// ---------------------------------------------------------------------------------------------------------------------
// sacreBLEU 2.x
// ---------------------------------------------------------------------------------------------------------------------

/** sacreBLEU smoothing methods (Chen & Cherry 2014): `exp` = NIST/mteval-v13a, `floor` = method 1, `add-k` = method 2. */
export type BleuSmoothMethod = 'exp' | 'floor' | 'add-k' | 'none';

/** sacreBLEU's default smoothing values: `floor` 0.1, `add-k` 1 (`BLEU.SMOOTH_DEFAULTS`). */
export const SMOOTH_DEFAULTS: Readonly<Record<BleuSmoothMethod, number | null>> = { exp: null, floor: 0.1, 'add-k': 1, none: null };

/**
 * Options of the sacreBLEU-compatible functions (names follow sacreBLEU's `BLEU(...)` arguments).
 * - `tokenize`: `13a` (default), `none`, `intl`, `char`;
 * - `lowercase`: lower-case hypothesis and references first (default false, i.e. `case:mixed`);
 * - `smooth`: `exp` (default), `floor`, `add-k`, `none`; `smoothValue`: for `floor` (default 0.1) and `add-k`
 *   (default 1); `0` is a value, not "default";
 * - `maxNgramOrder`: default 4;
 * - `effectiveOrder`: only average over the orders the hypothesis has n-grams of (default false for corpus, true for
 *   `sacreBleuSentence`, as `sentence_bleu` does).
 */
export interface SacreBleuOptions {
  tokenize?: BleuTokenizerName;
  lowercase?: boolean;
  smooth?: BleuSmoothMethod;
  smoothValue?: number | null;
  maxNgramOrder?: number;
  effectiveOrder?: boolean;
}

/**
 * sacreBLEU sufficient statistics of one segment or a corpus (`[sys_len, ref_len, correct…, total…]` in sacreBLEU):
 * hypothesis tokens, chosen reference tokens (closest length), clipped matches per order and hypothesis n-grams per
 * order (arrays of `maxNgramOrder` integers, index n − 1). Sum them with `addBleuStats`.
 */
export interface BleuStats {
  sysLen: number;
  refLen: number;
  counts: number[];
  totals: number[];
}

/**
 * A sacreBLEU score (`BLEUScore`): `score` 0–100; `counts`/`totals` per order (with `add-k` smoothing they include the
 * added k for orders ≥ 2, as sacreBLEU reports them); `precisions` 0–100 (smoothed; 0 for orders after the first order
 * without n-grams); `bp` brevity penalty; `sysLen`, `refLen` token totals; `ratio` = sysLen / refLen (0 when refLen
 * is 0).
 */
export interface SacreBleuResult {
  score: number;
  counts: number[];
  totals: number[];
  precisions: number[];
  bp: number;
  sysLen: number;
  refLen: number;
  ratio: number;
}

const SMOOTH_METHODS: readonly BleuSmoothMethod[] = ['exp', 'floor', 'add-k', 'none'];

function tokenizeOption(opts: SacreBleuOptions | undefined): BleuTokenizerName {
  const t = opts?.tokenize ?? '13a';
  if (!BLEU_TOKENIZERS.includes(t)) {
    throw new HptError('E_CONFIG', `BLEU option "tokenize" must be one of ${BLEU_TOKENIZERS.join(', ')}, got ${JSON.stringify(t)}`);
  }
  return t;
}

function smoothOption(opts: SacreBleuOptions | undefined): BleuSmoothMethod {
  const s = opts?.smooth ?? 'exp';
  if (!SMOOTH_METHODS.includes(s)) {
    throw new HptError('E_CONFIG', `BLEU option "smooth" must be one of ${SMOOTH_METHODS.join(', ')}, got ${JSON.stringify(s)}`);
  }
  return s;
}

/** sacreBLEU's `my_log`: natural log, with log(0) floored to −9999999999. */
function myLog(x: number): number {
  return x === 0 ? -9999999999 : Math.log(x);
}

/**
 * A segment preprocessor for the given options: lower-case (optional), Python `rstrip()`, then tokenize — sacreBLEU's
 * `_preprocess_segment` followed by the whitespace split of `extract_all_word_ngrams`.
 */
function segmentTokenizer(opts: SacreBleuOptions | undefined): (s: string) => string[] {
  const tok = tokenizerTokens(tokenizeOption(opts));
  const lower = opts?.lowercase === true;
  return (s) => tok(pyRstrip(lower ? s.toLowerCase() : s));
}

/**
 * sacreBLEU's closest reference length: the reference length with the smallest |hypLen − refLen|, ties going to the
 * shorter reference. `refLens` must be non-empty.
 */
export function closestRefLength(hypLen: number, refLens: readonly number[]): number {
  let bestDiff = -1;
  let best = -1;
  for (const r of refLens) {
    const d = Math.abs(hypLen - r);
    if (bestDiff === -1 || d < bestDiff) {
      bestDiff = d;
      best = r;
    } else if (d === bestDiff && r < best) {
      best = r;
    }
  }
  return best;
}

/** An all-zero `BleuStats` of the given order (the identity of `addBleuStats`). */
export function emptyBleuStats(maxNgramOrder = 4): BleuStats {
  checkOrder(maxNgramOrder, 'maxNgramOrder');
  return { sysLen: 0, refLen: 0, counts: new Array<number>(maxNgramOrder).fill(0), totals: new Array<number>(maxNgramOrder).fill(0) };
}

/**
 * Adds `s` into `into` (in place) and returns `into`.
 * @throws HptError `E_CONFIG` when the two have different n-gram orders.
 */
export function addBleuStats(into: BleuStats, s: BleuStats): BleuStats {
  if (into.counts.length !== s.counts.length || into.totals.length !== s.totals.length) {
    throw new HptError('E_CONFIG', `cannot add BLEU statistics of order ${s.counts.length} to order ${into.counts.length}`);
  }
  into.sysLen += s.sysLen;
  into.refLen += s.refLen;
  for (let i = 0; i < into.counts.length; i++) {
    into.counts[i] = (into.counts[i] as number) + (s.counts[i] as number);
    into.totals[i] = (into.totals[i] as number) + (s.totals[i] as number);
  }
  return into;
}

/**
 * sacreBLEU sufficient statistics of one segment (`_compute_segment_statistics`). `references` are this segment's
 * references; empty strings (and null/undefined) are dropped, as sacreBLEU does for a variable number of references.
 * Uses `tokenize`, `lowercase` and `maxNgramOrder` of `opts`.
 * @throws HptError `E_DATA` when no non-empty reference remains (sacreBLEU: "Empty or `None` reference sentence
 *   found."); `E_CONFIG` for a bad option.
 */
export function bleuStats(hypothesis: string, references: readonly (string | null | undefined)[], opts?: SacreBleuOptions): BleuStats {
  const maxOrder = checkOrder(opts?.maxNgramOrder ?? 4, 'maxNgramOrder');
  return statsWith(segmentTokenizer(opts), hypothesis, references, maxOrder);
}

function statsWith(
  tok: (s: string) => string[],
  hypothesis: string,
  references: readonly (string | null | undefined)[],
  maxOrder: number,
): BleuStats {
  const refs: string[][] = [];
  for (const r of references) if (r !== null && r !== undefined && r !== '') refs.push(tok(r));
  if (refs.length === 0) throw new HptError('E_DATA', 'BLEU: empty or missing reference sentence found');
  const hyp = tok(hypothesis);
  return {
    sysLen: hyp.length,
    refLen: closestRefLength(hyp.length, refs.map((r) => r.length)),
    counts: clippedMatches(hyp, refs, maxOrder),
    totals: ngramTotals(hyp.length, maxOrder),
  };
}

/**
 * sacreBLEU's `BLEU.compute_bleu` on (summed) statistics. Uses `smooth`, `smoothValue`, `effectiveOrder` and
 * `maxNgramOrder` (must equal the statistics' order) of `opts`.
 * BP = exp(1 − refLen/sysLen) when sysLen < refLen (0 when sysLen is 0), else 1. No match at any order ⇒ score 0.
 * Per order n (stopping at the first order without hypothesis n-grams): `add-k` adds k to matches and totals for
 * n ≥ 2; zero matches give 100/(2^j·total) for the j-th such order with `exp`, 100·value/total with `floor`, 0 with
 * `none`/`add-k`. Score = BP · exp(mean of log precisions over the first maxNgramOrder orders, or over the orders with
 * n-grams when `effectiveOrder`), log 0 floored to −9999999999.
 * @throws HptError `E_CONFIG` for a bad option or an order mismatch.
 */
export function bleuFromStats(stats: BleuStats, opts?: SacreBleuOptions): SacreBleuResult {
  const maxOrder = checkOrder(opts?.maxNgramOrder ?? stats.counts.length, 'maxNgramOrder');
  if (stats.counts.length !== maxOrder || stats.totals.length !== maxOrder) {
    throw new HptError('E_CONFIG', `BLEU statistics have order ${stats.counts.length}, expected ${maxOrder}`);
  }
  const method = smoothOption(opts);
  const smoothValue = opts?.smoothValue ?? SMOOTH_DEFAULTS[method] ?? 0;
  const correct = stats.counts.slice();
  const total = stats.totals.slice();
  const { sysLen, refLen } = stats;
  const bp = sysLen < refLen ? (sysLen > 0 ? Math.exp(1 - refLen / sysLen) : 0) : 1;
  const precisions = new Array<number>(maxOrder).fill(0);
  const result = (score: number): SacreBleuResult => ({
    score,
    counts: correct,
    totals: total,
    precisions,
    bp,
    sysLen,
    refLen,
    ratio: refLen ? sysLen / refLen : 0,
  });
  if (!correct.some((c) => c !== 0)) return result(0);

  let smoothMteval = 1;
  let effOrder = maxOrder;
  for (let n = 1; n <= maxOrder; n++) {
    if (method === 'add-k' && n > 1) {
      correct[n - 1] = (correct[n - 1] as number) + smoothValue;
      total[n - 1] = (total[n - 1] as number) + smoothValue;
    }
    const t = total[n - 1] as number;
    if (t === 0) break;
    if (opts?.effectiveOrder === true) effOrder = n;
    const c = correct[n - 1] as number;
    if (c === 0) {
      if (method === 'exp') {
        smoothMteval *= 2;
        precisions[n - 1] = 100 / (smoothMteval * t);
      } else if (method === 'floor') {
        precisions[n - 1] = (100 * smoothValue) / t;
      }
    } else {
      precisions[n - 1] = (100 * c) / t;
    }
  }
  let logSum = 0;
  for (let i = 0; i < effOrder; i++) logSum += myLog(precisions[i] as number);
  return result(bp * Math.exp(logSum / effOrder));
}

/**
 * sacreBLEU 2.x corpus BLEU, like `sacrebleu.corpus_bleu(hypotheses, referenceStreams, ...)` /
 * `BLEU(...).corpus_score`: `referenceStreams[k][i]` is the k-th reference of segment i (a segment's empty references
 * are dropped). Defaults: 13a, mixed case, `exp` smoothing, order 4, no effective order.
 * Example (sacreBLEU README): 3 hypotheses, 2 reference streams ⇒ score 48.53, precisions 82.4/50.0/45.5/37.5,
 * BP 0.943, 17/18 tokens.
 * @throws HptError `E_DATA` when a reference stream's length differs from the hypotheses' or a segment has no
 *   non-empty reference; `E_CONFIG` for a bad option.
 */
export function sacreBleuCorpus(hypotheses: readonly string[], referenceStreams: readonly (readonly (string | null | undefined)[])[], opts?: SacreBleuOptions): SacreBleuResult {
  const maxOrder = checkOrder(opts?.maxNgramOrder ?? 4, 'maxNgramOrder');
  smoothOption(opts);
  if (referenceStreams.length === 0) throw new HptError('E_DATA', 'BLEU: no reference stream given');
  referenceStreams.forEach((stream, k) => {
    if (stream.length !== hypotheses.length) {
      throw new HptError('E_DATA', `BLEU: reference stream ${k} has ${stream.length} segments, the hypotheses have ${hypotheses.length}`);
    }
  });
  const tok = segmentTokenizer(opts);
  const acc = emptyBleuStats(maxOrder);
  for (let i = 0; i < hypotheses.length; i++) {
    addBleuStats(acc, statsWith(tok, hypotheses[i] as string, referenceStreams.map((s) => s[i]), maxOrder));
  }
  return bleuFromStats(acc, { ...opts, maxNgramOrder: maxOrder });
}

/**
 * sacreBLEU 2.x sentence BLEU, like `sacrebleu.sentence_bleu(hypothesis, references)` / `BLEU(...).sentence_score`:
 * one segment against one or more references, effective order on by default (the `sentence_bleu` default), otherwise
 * the same defaults as `sacreBleuCorpus`.
 * @throws HptError `E_DATA` when no non-empty reference is given; `E_CONFIG` for a bad option.
 */
export function sacreBleuSentence(hypothesis: string, references: readonly string[], opts?: SacreBleuOptions): SacreBleuResult {
  const o: SacreBleuOptions = { ...opts, effectiveOrder: opts?.effectiveOrder ?? true };
  return bleuFromStats(bleuStats(hypothesis, references, o), o);
}

// ---------------------------------------------------------------------------------------------------------------------
// HF evaluate `bleu` (TensorFlow-NMT compute_bleu)
// ---------------------------------------------------------------------------------------------------------------------

/** Options of the HF-`evaluate` BLEU: `maxOrder` (default 4), `smooth` (Lin & Och 2004 add-one, default false). */
export interface HfBleuOptions {
  maxOrder?: number;
  smooth?: boolean;
}

/**
 * Sufficient statistics of `compute_bleu`: clipped matches and possible matches per order (index n − 1), prediction
 * tokens, and reference tokens (the SHORTEST reference of each segment). Sum them with `addBleuHfStats`.
 */
export interface HfBleuStats {
  matches: number[];
  possible: number[];
  translationLength: number;
  referenceLength: number;
}

/**
 * HF `evaluate` `bleu` result: `bleu` 0–1; `precisions` per order 0–1 (plain, or add-one smoothed); `brevityPenalty`;
 * `lengthRatio` = translationLength / referenceLength (0 when either is 0); token totals.
 */
export interface HfBleuResult {
  bleu: number;
  precisions: number[];
  brevityPenalty: number;
  lengthRatio: number;
  translationLength: number;
  referenceLength: number;
}

/** An all-zero `HfBleuStats` of the given order (the identity of `addBleuHfStats`). */
export function emptyBleuHfStats(maxOrder = 4): HfBleuStats {
  checkOrder(maxOrder, 'maxOrder');
  return { matches: new Array<number>(maxOrder).fill(0), possible: new Array<number>(maxOrder).fill(0), translationLength: 0, referenceLength: 0 };
}

/**
 * Adds `s` into `into` (in place) and returns `into`.
 * @throws HptError `E_CONFIG` when the two have different orders.
 */
export function addBleuHfStats(into: HfBleuStats, s: HfBleuStats): HfBleuStats {
  if (into.matches.length !== s.matches.length) {
    throw new HptError('E_CONFIG', `cannot add BLEU statistics of order ${s.matches.length} to order ${into.matches.length}`);
  }
  into.translationLength += s.translationLength;
  into.referenceLength += s.referenceLength;
  for (let i = 0; i < into.matches.length; i++) {
    into.matches[i] = (into.matches[i] as number) + (s.matches[i] as number);
    into.possible[i] = (into.possible[i] as number) + (s.possible[i] as number);
  }
  return into;
}

/**
 * `compute_bleu` statistics of one prediction against its references, all tokenized with `tokens13a` (HF's default
 * `Tokenizer13a`; no lower-casing, no strip). Empty references are kept (length 0).
 * @throws HptError `E_DATA` when `references` is empty; `E_CONFIG` for a bad order.
 */
export function bleuHfStats(prediction: string, references: readonly string[], opts?: HfBleuOptions): HfBleuStats {
  const maxOrder = checkOrder(opts?.maxOrder ?? 4, 'maxOrder');
  if (references.length === 0) throw new HptError('E_DATA', 'BLEU: a prediction has no reference');
  const refs = references.map((r) => tokens13a(r));
  const hyp = tokens13a(prediction);
  let minLen = Infinity;
  for (const r of refs) if (r.length < minLen) minLen = r.length;
  return {
    matches: clippedMatches(hyp, refs, maxOrder),
    possible: ngramTotals(hyp.length, maxOrder),
    translationLength: hyp.length,
    referenceLength: minLen,
  };
}

/**
 * `compute_bleu`'s final formula on (summed) statistics. Precision p_n = matches/possible (0 when possible is 0), or
 * (matches+1)/(possible+1) with `smooth`; geometric mean = exp(Σ (1/N)·log p_n) when every p_n > 0, else 0;
 * ratio = c/r; BP = 1 when ratio > 1, else exp(1 − 1/ratio); c = 0 or r = 0 ⇒ ratio 0 and BP 0 (the HPT reference's
 * "length ratio 0 ⇒ BP 0"). BLEU = geometric mean · BP.
 * @throws HptError `E_CONFIG` when `opts.maxOrder` differs from the statistics' order.
 */
export function bleuHfFromStats(stats: HfBleuStats, opts?: HfBleuOptions): HfBleuResult {
  const maxOrder = checkOrder(opts?.maxOrder ?? stats.matches.length, 'maxOrder');
  if (stats.matches.length !== maxOrder || stats.possible.length !== maxOrder) {
    throw new HptError('E_CONFIG', `BLEU statistics have order ${stats.matches.length}, expected ${maxOrder}`);
  }
  const smooth = opts?.smooth === true;
  const precisions = new Array<number>(maxOrder);
  for (let i = 0; i < maxOrder; i++) {
    const m = stats.matches[i] as number;
    const p = stats.possible[i] as number;
    precisions[i] = smooth ? (m + 1) / (p + 1) : p > 0 ? m / p : 0;
  }
  let geoMean = 0;
  if (Math.min(...precisions) > 0) {
    let logSum = 0;
    for (const p of precisions) logSum += (1 / maxOrder) * Math.log(p);
    geoMean = Math.exp(logSum);
  }
  const c = stats.translationLength;
  const r = stats.referenceLength;
  let ratio = 0;
  let bp = 0;
  if (r !== 0 && c !== 0) {
    ratio = c / r;
    bp = ratio > 1 ? 1 : Math.exp(1 - 1 / ratio);
  }
  return { bleu: geoMean * bp, precisions, brevityPenalty: bp, lengthRatio: ratio, translationLength: c, referenceLength: r };
}

/**
 * HF `evaluate` `bleu` (`evaluate.load("bleu").compute(predictions, references, max_order, smooth)`), corpus level:
 * `references[i]` are the references of `predictions[i]`. Example (metric card): predictions
 * ["hello there general kenobi", "foo bar foobar"], references [["hello there general kenobi", "hello there !"],
 * ["foo bar foobar"]] ⇒ bleu 1.0, lengthRatio 7/6.
 * @throws HptError `E_DATA` when the lists differ in length or a prediction has no reference; `E_CONFIG` for a bad
 *   order.
 */
export function bleuHf(predictions: readonly string[], references: readonly (readonly string[])[], opts?: HfBleuOptions): HfBleuResult {
  const maxOrder = checkOrder(opts?.maxOrder ?? 4, 'maxOrder');
  if (predictions.length !== references.length) {
    throw new HptError('E_DATA', `BLEU: ${predictions.length} predictions but ${references.length} reference lists`);
  }
  const acc = emptyBleuHfStats(maxOrder);
  for (let i = 0; i < predictions.length; i++) {
    addBleuHfStats(acc, bleuHfStats(predictions[i] as string, references[i] as readonly string[], { maxOrder }));
  }
  return bleuHfFromStats(acc, { ...opts, maxOrder });
}

/**
 * Sentence-level HF BLEU: `bleuHf([prediction], [references])` (the HPT solve test). Without smoothing, a prediction
 * shorter than `maxOrder` tokens, or with any order unmatched, scores 0.
 */
export function bleuHfSentence(prediction: string, references: readonly string[], opts?: HfBleuOptions): HfBleuResult {
  return bleuHfFromStats(bleuHfStats(prediction, references, opts), opts);
}

// ---------------------------------------------------------------------------------------------------------------------
// IWSLT answer extraction
// ---------------------------------------------------------------------------------------------------------------------

/**
 * The reference IWSLT parser `pp_iwslt` (specs/hpt.md §4), ported exactly. Input: the full graded text (prompt +
 * completion). Replaces every `french:\n\n` (lower-case f) with `French:`, splits on `\n`, takes the FIRST line
 * containing `French:`, removes every `French:` from it and strips it (Python whitespace). Returns null ("none") when
 * no line contains `French:`. Case-sensitive. Quirks kept: a completion starting with a newline gives `""` (the cue
 * line is empty); at level 3 the first `French:` line is exemplar 1's translation.
 */
export function referenceIwslt(text: string): string | null {
  const lines = text.replaceAll('french:\n\n', 'French:').split('\n');
  for (const line of lines) {
    if (line.includes('French:')) return pyStrip(line.replaceAll('French:', ''));
  }
  return null;
}

/**
 * The strict IWSLT extraction (specs/hpt.md §9 #1, #16; the SDK's `extractFirstLine`): reads the completion only. Drops leading whitespace and one
 * leading repetition of the cue (case-insensitive; `cue`, else `French:`; markdown emphasis around it such as
 * `**French:**` is dropped too), then returns the first line with non-whitespace content, stripped (Python
 * whitespace). Returns `""` when there is none.
 * Example: `"\nBonjour.\n(Explanation...)"` ⇒ `"Bonjour."`; `" French: Bonjour."` ⇒ `"Bonjour."`.
 */
export function strictIwslt(completion: string, cue: string): string {
  return extractFirstLine(completion, { cue, cues: ['French:'] })?.value ?? '';
}

// ---------------------------------------------------------------------------------------------------------------------
// Scorer
// ---------------------------------------------------------------------------------------------------------------------

/** The signature of the `sacrebleu` entry of the aggregator's result (sacreBLEU format; one reference per segment). */
export const SACREBLEU_SIGNATURE = 'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.x-compatible';

/**
 * The French reference of an IWSLT sample: a string with non-whitespace content.
 * @throws HptError `E_DATA` otherwise.
 */
function goldTranslation(sample: Sample): string {
  const t = sample.target;
  if (typeof t === 'string' && t.trim() !== '') return t;
  throw badTarget('bleu', sample, 'a non-empty reference translation string');
}

/**
 * Scorer `bleu` (IWSLT 2017 en→fr). Sample: `input.eng_text` (English source), `target` the French reference string.
 * Option `threshold` (required, 0–1). Verdict: `score` = sentence BLEU (HF `evaluate` flavour, 0–1) of the extracted
 * translation against [target]; `solved` = score ≥ threshold; `extracted` = the translation string that was scored.
 * - strict (default): `strictIwslt(output.completion, output.cue)`;
 * - reference: `referenceIwslt(output.promptText + output.completion)`, none ⇒ `""` (scores 0).
 * The aggregator reports corpus BLEU over all recorded predictions: `bleu` (HF flavour, 0–1; the paper's metric),
 * `sacrebleu` (sacreBLEU 13a/exp, 0–100) and its signature.
 * Throws HptError `E_CONFIG` when `threshold` is missing or invalid, `E_DATA` when the target is not a non-empty string.
 */
export class BleuScorer implements Scorer {
  readonly id = 'bleu';

  /** Checks the run's options before any model call: the threshold must be present and in [0, 1]. */
  prepare(ctx: ScoreContext): void {
    thresholdOption(ctx.options);
  }

  /** Scores one graded output (see the class docs). */
  score(sample: Sample, output: GradedOutput, ctx: ScoreContext): Verdict {
    const threshold = thresholdOption(ctx?.options);
    const gold = goldTranslation(sample);
    if (compatOf(ctx) === 'reference') {
      const prediction = referenceIwslt(output.promptText + output.completion) ?? '';
      const score = bleuHfSentence(prediction, [gold]).bleu;
      return { solved: score >= threshold, score, extracted: prediction };
    }
    const e = this.extract(sample, output);
    const prediction = e?.value ?? '';
    const score = bleuHfSentence(prediction, [gold]).bleu;
    return { solved: score >= threshold, score, extracted: prediction, extraction: e === null ? { rule: 'none', span: null } : { rule: e.rule, span: e.span } };
  }

  /** The strict extraction (the SDK's `extractFirstLine`, the cue or `French:` dropped), or null for an empty reply. */
  extract(_sample: Sample, output: GradedOutput, _ctx?: ScoreContext): Extraction<string> | null {
    return extractFirstLine(output.completion, { cue: output.cue, cues: ['French:'] });
  }

  /** The reference translation itself (oracle baseline): both extractions return it, so it scores 1. */
  renderTarget(sample: Sample, _ctx?: ScoreContext): string {
    return goldTranslation(sample);
  }

  /**
   * A seeded random answer (random baseline): the target's whitespace-separated words, shuffled (Fisher–Yates) and
   * cut to a random non-empty prefix, joined by single spaces. Always non-empty, single-line text.
   */
  randomAnswer(sample: Sample, random: () => number, _ctx?: ScoreContext): string {
    const words = goldTranslation(sample).split(/\s+/u).filter((w) => w !== '');
    for (let i = words.length - 1; i > 0; i--) {
      const j = Math.min(i, Math.floor(random() * (i + 1)));
      [words[i], words[j]] = [words[j] as string, words[i] as string];
    }
    const k = 1 + Math.min(words.length - 1, Math.floor(random() * words.length));
    return words.slice(0, k).join(' ');
  }

  /**
   * Corpus BLEU over the recorded predictions, accumulated as sufficient statistics (no strings kept). A non-string
   * prediction (null: nothing parsed) counts as `""`. `result()`: `{ bleu: 0–1 (HF), sacrebleu: 0–100 (13a, exp),
   * sacrebleuSignature }`.
   */
  createAggregator(_ctx?: ScoreContext): MetricAggregator {
    const hf = emptyBleuHfStats(4);
    const sacre = emptyBleuStats(4);
    const sacreTok = segmentTokenizer({ tokenize: '13a' });
    return {
      add(sample: Sample, prediction: Json): void {
        const gold = goldTranslation(sample);
        const pred = typeof prediction === 'string' ? prediction : '';
        const hfStats = bleuHfStats(pred, [gold]);
        addBleuHfStats(hf, hfStats);
        if (pyRstrip(pred) === pred && pyRstrip(gold) === gold) {
          // Same tokens for both flavours (sacreBLEU only differs by its rstrip), and with one reference the closest
          // and the shortest reference length coincide: reuse the HF statistics.
          addBleuStats(sacre, {
            sysLen: hfStats.translationLength,
            refLen: hfStats.referenceLength,
            counts: hfStats.matches,
            totals: hfStats.possible,
          });
        } else {
          addBleuStats(sacre, statsWith(sacreTok, pred, [gold], 4));
        }
      },
      result(): Record<string, Json> {
        return {
          bleu: bleuHfFromStats(hf).bleu,
          sacrebleu: bleuFromStats(sacre, { smooth: 'exp' }).score,
          sacrebleuSignature: SACREBLEU_SIGNATURE,
        };
      },
    };
  }
}
