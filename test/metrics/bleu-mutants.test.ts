/**
 * BLEU cases that the mutation run of plugins/metrics/src/bleu.ts showed untested: hypotheses and
 * references over 128 / 256 / 512 tokens (the n-gram table and the token-id buffers grow), three and more references,
 * the string-key fallback with hypothesis counts different from the reference counts, the HF flavour's `maxOrder` and
 * `smooth` through `bleuHf`, closest-reference ties, the aggregator's two token paths, the random baseline, and the
 * error codes and messages.
 *
 * Every expected value is computed by hand from the definitions of hpt.md §3 "BLEU" (TensorFlow-NMT compute_bleu: clipped
 * matches = Σ min(count in hypothesis, max count in any one reference), shortest reference length, BP) and sacreBLEU's
 * compute_bleu (closest reference length, ties to the shorter; smoothing), never read off the code under test.
 */
import { describe, expect, it } from 'vitest';
import { HptError, type GradedOutput, type Sample, type ScoreContext } from '@hpt-bench/core';
import {
  BleuScorer,
  THRESHOLD_REQUIRED_MESSAGE,
  addBleuHfStats,
  addBleuStats,
  bleuFromStats,
  bleuHf,
  bleuHfFromStats,
  bleuHfStats,
  bleuStats,
  closestRefLength,
  emptyBleuHfStats,
  emptyBleuStats,
  sacreBleuCorpus,
  strictIwslt,
} from '../../plugins/metrics/src/bleu.js';

/** `fn()` throws an HptError with this code and message. */
function throwsHpt(fn: () => unknown, code: string, message: string | RegExp): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err, 'expected an HptError').toBeInstanceOf(HptError);
  expect((err as HptError).code).toBe(code);
  if (typeof message === 'string') expect((err as HptError).message).toBe(message);
  else expect((err as HptError).message).toMatch(message);
}

/** `prefix0 prefix1 … prefix{n-1}` (n distinct tokens). */
const seq = (prefix: string, from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `${prefix}${from + i}`);

// These run first in the file: the n-gram table and id buffers are module scratch that grows on demand, so the first
// long inputs exercise the growth.
describe('long hypotheses and references (> 128, > 256, > 512 tokens)', () => {
  it('600 distinct tokens against two 600-token references that each share one half, in order', () => {
    const hyp = seq('w', 0, 600).join(' ');
    const ref1 = [...seq('w', 0, 300), ...seq('x', 0, 300)].join(' ');
    const ref2 = [...seq('y', 0, 300), ...seq('w', 300, 600)].join(' ');
    // each w once in one reference: 600 unigrams; n-grams inside a half: 300 - n + 1 per half; none across w299 w300.
    // The first reference read has its matches at positions 300-599, past the first two sizes of the id buffer.
    const expected = { matches: [600, 598, 596, 594], possible: [600, 599, 598, 597], translationLength: 600, referenceLength: 600 };
    expect(bleuHfStats(hyp, [ref2, ref1])).toEqual(expected);
    expect(bleuHfStats(hyp, [ref1, ref2])).toEqual(expected);
    // one reference alone: its half only
    expect(bleuHfStats(hyp, [ref2]).matches).toEqual([300, 299, 298, 297]);
    expect(bleuHfStats(hyp, [ref1]).matches).toEqual([300, 299, 298, 297]);
  });

  it('a 200-token hypothesis repeating a 4-token cycle, clipped by a 140-token reference', () => {
    // hyp: (a b c d) x 50; ref: (a b c d) x 35. Every n-gram of the hypothesis occurs in the reference, clipped to
    // the reference count: unigrams 4 x 35, bigrams (a b, b c, c d: 35 each; d a: 34), and so on.
    const hyp = Array.from({ length: 50 }, () => 'a b c d').join(' ');
    const ref = Array.from({ length: 35 }, () => 'a b c d').join(' ');
    const s = bleuStats(hyp, [ref]);
    expect(s).toEqual({ sysLen: 200, refLen: 140, counts: [140, 139, 138, 137], totals: [200, 199, 198, 197] });
  });
});

describe('n-gram matching with several references (fast path)', () => {
  it('three references: the clip is the maximum count in any one reference, not a sum over references', () => {
    // 'a' occurs once in reference 2 and once in reference 3: max 1
    expect(bleuHfStats('a a a a', ['b', 'a', 'a']).matches).toEqual([1, 0, 0, 0]);
    // reference 3 has 'a' three times and 'a a' twice
    expect(bleuHfStats('a a a a', ['b', 'a', 'a a a', 'a']).matches).toEqual([3, 2, 1, 0]);
  });

  it('a shorter later reference is read only up to its own end', () => {
    // hyp a b c vs refs [c c c c, a b]: unigrams a, b (ref 2) and c (ref 1, clipped to 1); bigram a b (ref 2)
    expect(bleuHfStats('a b c', ['c c c c', 'a b']).matches).toEqual([3, 1, 0, 0]);
  });

  it('a hypothesis is read only up to its own end after a longer one', () => {
    expect(bleuHfStats('a b a', ['z']).matches).toEqual([0, 0, 0, 0]);
    // a b vs a b a: unigrams a, b; bigram a b
    expect(bleuHfStats('a b', ['a b a']).matches).toEqual([2, 1, 0, 0]);
  });
});

describe('string-key fallback (order so high that base^order is not a safe integer)', () => {
  const zeros = (n: number) => new Array<number>(n).fill(0);

  it('clips hypothesis counts that exceed the reference counts (Math.min, not max)', () => {
    // hyp a a a b c (3 distinct tokens, order 30: 4^30 > 2^53) vs ref a b c:
    // unigrams a min(3,1) + b + c = 3; bigrams a b, b c = 2; trigram a b c = 1
    const s = bleuHfStats('a a a b c', ['a b c'], { maxOrder: 30 });
    expect(s.matches).toEqual([3, 2, 1, ...zeros(27)]);
    expect(s.possible).toEqual([5, 4, 3, 2, 1, ...zeros(25)]);
  });

  it('merges references by the maximum count per n-gram, over every reference', () => {
    // refs: a b | c d a | a a d. Max counts: a 2, b, c, d 1; a b, c d, d a, a a, a d 1; c d a, a a d 1.
    // hyp a b c d a: unigrams a min(2,2) + b + c + d = 5; bigrams a b, c d, d a = 3 (b c unmatched); trigram c d a = 1
    const s = bleuHfStats('a b c d a', ['a b', 'c d a', 'a a d'], { maxOrder: 30 });
    expect(s.matches).toEqual([5, 3, 1, ...zeros(27)]);
  });

  it('counts n-grams exactly when their integer keys would exceed 2^53 (no collisions)', () => {
    // hyp t1..t29 t1, ref t1..t29 t2 (29 distinct tokens, order 30): every n-gram inside t1..t29 matches once
    // (30 - n of order n; unigram t1 clipped to 1), the n-grams ending in the last token never do.
    const tokens = seq('t', 1, 30);
    const hyp = [...tokens, 't1'].join(' ');
    const ref = [...tokens, 't2'].join(' ');
    const s = bleuHfStats(hyp, [ref], { maxOrder: 30 });
    expect(s.matches).toEqual(Array.from({ length: 30 }, (_, i) => 30 - (i + 1)));
    expect(s.possible).toEqual(Array.from({ length: 30 }, (_, i) => 31 - (i + 1)));
  });

  it('the sacreBLEU statistics take the same fallback', () => {
    const s = bleuStats('a a a b c', ['a b c', 'x y'], { maxNgramOrder: 30, tokenize: 'none' });
    expect(s.counts).toEqual([3, 2, 1, ...zeros(27)]);
    // closest reference length to 5: 3 (|5-3| = 2) over 2 (|5-2| = 3)
    expect([s.sysLen, s.refLen]).toEqual([5, 3]);
  });
});

describe('HF BLEU (bleuHf) options and edge cases', () => {
  it('maxOrder 2: precisions of orders 1 and 2 only, geometric mean of two', () => {
    // hyp a b c vs ref a b d: unigrams 2/3, bigrams 1/2; c = r = 3, BP 1; BLEU = sqrt(2/3 * 1/2) = sqrt(1/3)
    const r = bleuHf(['a b c'], [['a b d']], { maxOrder: 2 });
    expect(r.precisions).toEqual([2 / 3, 1 / 2]);
    expect(r.bleu).toBeCloseTo(Math.sqrt(1 / 3), 14);
    expect(r.brevityPenalty).toBe(1);
  });

  it('smooth through bleuHf: add-one on every order (Lin & Och 2004)', () => {
    // precisions (2+1)/(3+1), (1+1)/(2+1), (0+1)/(1+1), (0+1)/(0+1) = 3/4, 2/3, 1/2, 1 -> (1/4)^(1/4)
    const r = bleuHf(['a b c'], [['a b d']], { smooth: true });
    expect(r.precisions).toEqual([3 / 4, 2 / 3, 1 / 2, 1]);
    expect(r.bleu).toBeCloseTo(Math.pow(1 / 4, 1 / 4), 14);
  });

  it('a reference length of 0 gives ratio 0 and BP 0, whatever the matches (hpt.md §3: length ratio 0 ⇒ BP 0)', () => {
    const r = bleuHfFromStats({ matches: [1, 1, 1, 1], possible: [1, 1, 1, 1], translationLength: 4, referenceLength: 0 });
    expect(r).toEqual({ bleu: 0, precisions: [1, 1, 1, 1], brevityPenalty: 0, lengthRatio: 0, translationLength: 4, referenceLength: 0 });
  });

  it('statistics of different orders are not added, and orders must agree', () => {
    throwsHpt(() => addBleuHfStats(emptyBleuHfStats(4), emptyBleuHfStats(2)), 'E_CONFIG', 'cannot add BLEU statistics of order 2 to order 4');
    throwsHpt(() => bleuHfFromStats(emptyBleuHfStats(4), { maxOrder: 3 }), 'E_CONFIG', /^BLEU statistics have order 4, expected 3$/);
    // matches of order 4 with possible of order 3: rejected even without an explicit order
    throwsHpt(() => bleuHfFromStats({ matches: [0, 0, 0, 0], possible: [0, 0, 0], translationLength: 0, referenceLength: 0 }), 'E_CONFIG', /^BLEU statistics have order/);
    throwsHpt(() => bleuHfFromStats({ matches: [0, 0, 0], possible: [0, 0, 0, 0], translationLength: 0, referenceLength: 0 }, { maxOrder: 4 }), 'E_CONFIG', /^BLEU statistics have order 3/);
  });

  it('bad orders and missing references are named errors', () => {
    throwsHpt(() => emptyBleuHfStats(0), 'E_CONFIG', 'BLEU option "maxOrder" must be a positive integer, got 0');
    throwsHpt(() => bleuHfStats('a', ['a'], { maxOrder: 1.5 }), 'E_CONFIG', 'BLEU option "maxOrder" must be a positive integer, got 1.5');
    throwsHpt(() => bleuHfFromStats(emptyBleuHfStats(), { maxOrder: -2 }), 'E_CONFIG', 'BLEU option "maxOrder" must be a positive integer, got -2');
    throwsHpt(() => bleuHf(['a'], [['a']], { maxOrder: 0 }), 'E_CONFIG', 'BLEU option "maxOrder" must be a positive integer, got 0');
    throwsHpt(() => bleuHfStats('a', []), 'E_DATA', 'BLEU: a prediction has no reference');
    throwsHpt(() => bleuHf(['a'], []), 'E_DATA', 'BLEU: 1 predictions but 0 reference lists');
  });
});

describe('sacreBLEU statistics and score', () => {
  it('closest reference length: the smallest |hyp - ref|, ties to the shorter reference, in any order', () => {
    expect(closestRefLength(5, [3, 7])).toBe(3);
    expect(closestRefLength(5, [7, 3])).toBe(3);
    expect(closestRefLength(5, [6, 2])).toBe(6);
    expect(closestRefLength(5, [2, 6, 4])).toBe(4);
    expect(closestRefLength(5, [9, 5, 1])).toBe(5);
  });

  it('lowercase: the segments are lower-cased (Python str.lower(): "ß" stays, "SS" becomes "ss")', () => {
    expect(bleuStats('The Cat', ['the cat'], { lowercase: true }).counts).toEqual([2, 1, 0, 0]);
    expect(bleuStats('Die Straße', ['DIE STRASSE'], { lowercase: true }).counts).toEqual([1, 0, 0, 0]);
    expect(bleuStats('Die Straße', ['DIE STRASSE']).counts).toEqual([0, 0, 0, 0]);
  });

  it('smooth none ignores a smoothing value: a zero count gives 0', () => {
    expect(bleuFromStats({ counts: [3, 2, 0, 0], totals: [4, 3, 2, 1], sysLen: 4, refLen: 4 }, { smooth: 'none', smoothValue: 0.5 }).score).toBe(0);
    // floor with that value: precisions 75, 66.67, 100*0.5/2 = 25, 100*0.5/1 = 50
    const floor = bleuFromStats({ counts: [3, 2, 0, 0], totals: [4, 3, 2, 1], sysLen: 4, refLen: 4 }, { smooth: 'floor', smoothValue: 0.5 });
    expect(floor.score).toBeCloseTo(Math.pow(75 * (200 / 3) * 25 * 50, 1 / 4), 10);
  });

  it('add-k smoothing does not change the caller’s statistics', () => {
    const stats = { counts: [3, 1, 0, 0], totals: [4, 3, 2, 1], sysLen: 4, refLen: 4 };
    const r = bleuFromStats(stats, { smooth: 'add-k' });
    // k = 1 added to orders 2..4 of the result only
    expect(r.counts).toEqual([3, 2, 1, 1]);
    expect(r.totals).toEqual([4, 4, 3, 2]);
    expect(stats).toEqual({ counts: [3, 1, 0, 0], totals: [4, 3, 2, 1], sysLen: 4, refLen: 4 });
  });

  it('statistics of different orders are not added, and orders must agree', () => {
    const four = emptyBleuStats(4);
    throwsHpt(() => addBleuStats(four, { sysLen: 0, refLen: 0, counts: [0, 0, 0], totals: [0, 0, 0, 0] }), 'E_CONFIG', 'cannot add BLEU statistics of order 3 to order 4');
    throwsHpt(() => addBleuStats(four, { sysLen: 0, refLen: 0, counts: [0, 0, 0, 0], totals: [0, 0, 0] }), 'E_CONFIG', /^cannot add BLEU statistics of order/);
    throwsHpt(() => bleuFromStats(emptyBleuStats(4), { maxNgramOrder: 3 }), 'E_CONFIG', /^BLEU statistics have order 4, expected 3$/);
    throwsHpt(() => bleuFromStats({ sysLen: 1, refLen: 1, counts: [1, 0, 0, 0], totals: [1, 0, 0] }), 'E_CONFIG', /^BLEU statistics have order/);
    throwsHpt(() => bleuFromStats({ sysLen: 1, refLen: 1, counts: [1, 0, 0], totals: [1, 0, 0, 0] }, { maxNgramOrder: 4 }), 'E_CONFIG', /^BLEU statistics have order 3/);
  });

  it('bad options, missing references and mismatched streams are named errors', () => {
    throwsHpt(() => emptyBleuStats(0), 'E_CONFIG', 'BLEU option "maxNgramOrder" must be a positive integer, got 0');
    throwsHpt(() => bleuStats('a', ['a'], { maxNgramOrder: 2.5 }), 'E_CONFIG', 'BLEU option "maxNgramOrder" must be a positive integer, got 2.5');
    throwsHpt(() => bleuFromStats(emptyBleuStats(), { maxNgramOrder: -1 }), 'E_CONFIG', 'BLEU option "maxNgramOrder" must be a positive integer, got -1');
    throwsHpt(() => sacreBleuCorpus(['a'], [['a']], { maxNgramOrder: 0 }), 'E_CONFIG', 'BLEU option "maxNgramOrder" must be a positive integer, got 0');
    throwsHpt(() => bleuStats('a', ['a'], { tokenize: 'bogus' as never }), 'E_CONFIG', 'BLEU option "tokenize" must be one of 13a, none, intl, char, got "bogus"');
    throwsHpt(() => sacreBleuCorpus(['a'], [['a']], { smooth: 'bogus' as never }), 'E_CONFIG', 'BLEU option "smooth" must be one of exp, floor, add-k, none, got "bogus"');
    throwsHpt(() => bleuStats('a', ['', null]), 'E_DATA', 'BLEU: empty or missing reference sentence found');
    throwsHpt(() => sacreBleuCorpus(['a'], []), 'E_DATA', 'BLEU: no reference stream given');
    throwsHpt(() => sacreBleuCorpus(['a', 'b'], [['a']]), 'E_DATA', 'BLEU: reference stream 0 has 1 segments, the hypotheses have 2');
  });
});

describe('IWSLT extraction with other cues', () => {
  it('a cue with regex metacharacters is matched literally', () => {
    expect(strictIwslt('Traduction (FR): Le chat.', 'Traduction (FR):')).toBe('Le chat.');
    expect(strictIwslt('FR.*: Le chat.', 'FR.*:')).toBe('Le chat.');
  });

  it('the cue is trimmed before matching', () => {
    expect(strictIwslt('Réponse: Le chat.', ' Réponse: ')).toBe('Le chat.');
  });
});

describe('BleuScorer', () => {
  const scorer = new BleuScorer();
  const sample: Sample = { id: 's1', index: 0, input: { eng_text: 'The cat.' }, target: 'Le chat.' };
  const ctx = (compat: 'strict' | 'reference', threshold: number): ScoreContext => ({ compat, options: { threshold } });

  it('is the bleu scorer, and prepare checks the threshold before any call', () => {
    expect(scorer.id).toBe('bleu');
    throwsHpt(() => scorer.prepare({ compat: 'strict', options: {} }), 'E_CONFIG', THRESHOLD_REQUIRED_MESSAGE);
    throwsHpt(() => scorer.prepare({ compat: 'strict', options: { threshold: 2 } }), 'E_CONFIG', '--threshold must be a number from 0 to 1, got 2');
    expect(scorer.prepare({ compat: 'strict', options: { threshold: 0.2 } })).toBeUndefined();
  });

  it('without a score context the missing threshold is the configuration error', () => {
    const out: GradedOutput = { promptText: 'p', completion: ' Le chat.', cue: 'French:' };
    throwsHpt(() => scorer.score(sample, out, undefined as never), 'E_CONFIG', THRESHOLD_REQUIRED_MESSAGE);
  });

  it('reference mode without any French: line scores the empty string', () => {
    const out: GradedOutput = { promptText: "Translate 'The cat.'\n", completion: 'Le chat.', cue: '' };
    expect(scorer.score(sample, out, ctx('reference', 0.2))).toEqual({ solved: false, score: 0, extracted: '' });
  });

  it('a target that is empty or only whitespace is a data error naming the sample', () => {
    for (const target of ['', '   ', '\n\t']) {
      throwsHpt(
        () => scorer.score({ ...sample, target }, { promptText: 'p', completion: 'x', cue: '' }, ctx('strict', 0.2)),
        'E_DATA',
        `scorer "bleu": sample s1 has target ${JSON.stringify(target)}, expected a non-empty reference translation string`,
      );
    }
    throwsHpt(() => scorer.renderTarget({ ...sample, target: 7 }), 'E_DATA', 'scorer "bleu": sample s1 has target 7, expected a non-empty reference translation string');
  });

  it('randomAnswer: Fisher-Yates over the whitespace-separated words (no empty word), then a random non-empty prefix', () => {
    const s: Sample = { ...sample, target: '  un deux trois  ' };
    // random 0.99: i = 2 -> j = min(2, floor(2.97)) = 2, i = 1 -> j = 1 (no swap); k = 1 + min(2, floor(2.97)) = 3
    expect(scorer.randomAnswer(s, () => 0.99)).toBe('un deux trois');
    // draws 0, 0, 0.9: i = 2 -> j = 0: [trois, deux, un]; i = 1 -> j = 0: [deux, trois, un]; k = 1 + min(2, floor(2.7)) = 3
    const draws = [0, 0, 0.9, 0];
    let n = 0;
    expect(scorer.randomAnswer(s, () => draws[n++ % draws.length]!)).toBe('deux trois un');
    expect(n).toBe(3);
    // draws 0.5, 0.6, 0.4: i = 2 -> j = floor(1.5) = 1: [un, trois, deux]; i = 1 -> j = floor(1.2) = 1; k = 1 + floor(1.2) = 2
    const d2 = [0.5, 0.6, 0.4];
    let m = 0;
    expect(scorer.randomAnswer({ ...sample, target: 'un deux trois' }, () => d2[m++]!)).toBe('un trois');
  });

  it('corpus aggregator: sacreBLEU reads the right-stripped segment, HF the raw one (a trailing "-\\n" is joined away)', () => {
    // prediction "a b c d-\n": HF 13a drops "-\n" -> a b c d vs a b c d- (3/4, 2/3, 1/2, 0/1: BLEU 0);
    // sacreBLEU right-strips first -> a b c d- = the reference: 100
    const agg = scorer.createAggregator(ctx('strict', 0.2));
    agg.add({ ...sample, target: 'a b c d-' }, 'a b c d-\n', false);
    const r = agg.result();
    expect(r['bleu']).toBe(0);
    expect(r['sacrebleu'] as number).toBeCloseTo(100, 9);
    // the same with the trailing "-\n" on the reference
    const agg2 = scorer.createAggregator(ctx('strict', 0.2));
    agg2.add({ ...sample, target: 'a b c d-\n' }, 'a b c d-', false);
    const r2 = agg2.result();
    expect(r2['bleu']).toBe(0);
    expect(r2['sacrebleu'] as number).toBeCloseTo(100, 9);
  });
});
