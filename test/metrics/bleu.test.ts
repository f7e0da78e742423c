/**
 * BLEU conformance tests (plugins/metrics/src/bleu.ts, tokenizers.ts; specs/hpt.md §3 "BLEU", §4 "IWSLT", §9 #7, #9, #16).
 * Every published value cites its source; values derived by hand from a cited rule say so.
 */
import { describe, expect, it } from 'vitest';
import type { GradedOutput, Sample, ScoreContext } from '@hpt-bench/core';
import {
  BleuScorer,
  SACREBLEU_SIGNATURE,
  THRESHOLD_REQUIRED_MESSAGE,
  addBleuStats,
  bleuFromStats,
  bleuHf,
  bleuHfSentence,
  bleuStats,
  emptyBleuStats,
  referenceIwslt,
  sacreBleuCorpus,
  sacreBleuSentence,
  strictIwslt,
  tokenize13a,
  tokenizeChar,
  tokenizeIntl,
  tokenizeNone,
  tokens13a,
  type SacreBleuResult,
} from '../../plugins/metrics/src/bleu.js';

/** |actual − expected| < eps (sacreBLEU's tests use `abs(bleu - expected) < EPSILON`). */
function near(actual: number, expected: number, eps: number): void {
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThan(eps);
}

/** sacreBLEU's verbose line: `82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)`. */
function verbose(r: SacreBleuResult): string {
  const prec = r.precisions.map((p) => p.toFixed(1)).join('/');
  return `${prec} (BP = ${r.bp.toFixed(3)} ratio = ${r.ratio.toFixed(3)} hyp_len = ${r.sysLen} ref_len = ${r.refLen})`;
}

// The sacreBLEU README "Using SacreBLEU from Python" example, also `_hyps`/`_refs` of test/test_bleu.py.
const README_REFS = [
  ['The dog bit the man.', 'It was not unexpected.', 'The man bit him first.'],
  ['The dog had bit the man.', 'No one was surprised.', 'The man had bitten the dog.'],
];
const README_SYS = ['The dog bit the man.', "It wasn't surprising.", 'The man had just bitten him.'];

describe('tokenize13a (sacreBLEU tokenizer_13a.py + tokenizer_re.py)', () => {
  it('splits the final period but keeps apostrophes (flexeval tests/core/metric/tokenizer/test_sacrebleu_tokenizer.py)', () => {
    // sbintuitions/flexeval test_sacrebleu_13a_tokenizer: SacreBleuTokenizer("13a").tokenize("I'm a student.")
    // == ["I'm", "a", "student", "."]
    expect(tokens13a("I'm a student.")).toEqual(["I'm", 'a', 'student', '.']);
    expect(tokenize13a("I'm a student.")).toBe("I'm a student .");
  });

  it('tokenizes the README hypotheses to 17 tokens (README: hyp_len = 17)', () => {
    // Token lists derived from the tokenizer_re.py rules; their lengths are the README's published hyp_len/ref_len.
    expect(README_SYS.map(tokenize13a)).toEqual(['The dog bit the man .', "It wasn't surprising .", 'The man had just bitten him .']);
    expect(README_SYS.map((s) => tokens13a(s).length).reduce((a, b) => a + b)).toBe(17);
  });

  it('applies the mteval-v13a normalisation and the digit rules (rules of tokenizer_13a.py / tokenizer_re.py)', () => {
    // <skipped> removed, "-\n" joined, "\n" -> space, &quot; &amp; &lt; &gt; unescaped in that order.
    expect(tokenize13a('a<skipped>b')).toBe('ab');
    expect(tokenize13a('hyphen-\nated line\nbreak')).toBe('hyphenated line break');
    expect(tokenize13a('&quot;Tom &amp; Jerry&quot; &lt;3 &amp;lt;')).toBe('" Tom & Jerry " < 3 <');
    // Period/comma split unless between digits; dash split only after a digit.
    expect(tokenize13a('It costs 3.5 euros, or 1,000 cents.')).toBe('It costs 3.5 euros , or 1,000 cents .');
    expect(tokenize13a('In 1990-2000 the U.S. grew.')).toBe('In 1990 - 2000 the U . S . grew .');
    expect(tokenize13a("Ce week-end, aujourd'hui: (oui) 5$!")).toBe("Ce week-end , aujourd'hui : ( oui ) 5 $ !");
    expect(tokenize13a('a...b ,, x.')).toBe('a . . . b , , x .');
    // Python str.split(): any Unicode whitespace separates; case is kept.
    expect(tokens13a('Le\u00a0Chat\tNoir\u3000.')).toEqual(['Le', 'Chat', 'Noir', '.']);
    expect(tokens13a('')).toEqual([]);
    expect(tokens13a(' \n ')).toEqual([]);
  });

  it('equals a literal transcription of the four tokenizer_re.py substitutions on random text', () => {
    // The literal regexes of tokenizer_re.py (with `u`: Python matches code points), padded as Tokenizer13a does.
    const literal = (line: string): string => {
      let s = ` ${line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ')} `;
      if (s.includes('&')) s = s.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
      s = s
        .replace(/([\u007B-\u007E\u005B-\u0060\u0020-\u0026\u0028-\u002B\u003A-\u0040\u002F])/gu, ' $1 ')
        .replace(/([^0-9])([.,])/gu, '$1 $2 ')
        .replace(/([.,])([^0-9])/gu, ' $1 $2')
        .replace(/([0-9])(-)/gu, '$1 $2 ');
      return s.split(/[\t\n\u000b\f\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u).filter((t) => t !== '').join(' ');
    };
    const alphabet = ['a', 'b', 'Z', 'é', '0', '1', '9', '.', ',', '-', "'", '"', '!', '?', '(', ')', '$', '&', ';', '/', '@', '[', '{', '~', '`', '_', ' ', ' ', '\t', '\n', '\u00a0', '😀', '&amp;', '&lt;', '<skipped>', '-\n'];
    let seed = 12345;
    const rand = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 4294967296;
    };
    for (let n = 0; n < 3000; n++) {
      let line = '';
      const len = Math.floor(rand() * 24);
      for (let i = 0; i < len; i++) line += alphabet[Math.floor(rand() * alphabet.length)];
      expect(tokenize13a(line), JSON.stringify(line)).toBe(literal(line));
    }
  });

  it('none / intl / char tokenizers (tokenizer_none.py, tokenizer_intl.py, tokenizer_char.py)', () => {
    expect(tokenizeNone("It wasn't surprising.")).toBe("It wasn't surprising.");
    // neulab/explainaboard tokenizer tests, test_sacrebleu_intl_tokenizer (sacreBLEU "intl"): '"this," she   said, is an
    // example.' -> ['"', 'this', ',', '"', 'she', 'said', ',', 'is', 'an', 'example', '.']
    expect(tokenizeIntl('"this," she   said, is an example.')).toBe('" this , " she said , is an example .');
    // mteval-v14 keeps the period of a number at the end of the line (tokenizer_intl.py docstring).
    expect(tokenizeIntl('Happy 2017.')).toBe('Happy 2017.');
    expect(tokenizeIntl('1,000 €')).toBe('1,000 €');
    expect(tokenizeChar('ab c')).toBe('a b   c');
  });
});

describe('sacreBleuCorpus (sacreBLEU 2.x corpus_bleu)', () => {
  it('reproduces the README example: BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)', () => {
    // mjpost/sacrebleu README.md "Using SacreBLEU from Python"; test/test_bleu.py test_corpus_bleu_cases: 48.530827,
    // EPSILON = 1e-8.
    const r = sacreBleuCorpus(README_SYS, README_REFS);
    near(r.score, 48.530827, 1e-6);
    expect(r.score.toFixed(2)).toBe('48.53');
    expect(verbose(r)).toBe('82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)');
    // The counts/totals the published precisions imply (14/17, 7/14, 5/11, 3/8).
    expect(r.counts).toEqual([14, 7, 5, 3]);
    expect(r.totals).toEqual([17, 14, 11, 8]);
  });

  it('matches test_bleu.py test_corpus_bleu_cases (EPSILON = 1e-8)', () => {
    // mjpost/sacrebleu test/test_bleu.py: (_hyps, _refs, kwargs, expected), scores compared with abs(...) < 1e-8.
    near(sacreBleuCorpus(['', '', ''], README_REFS).score, 0.0, 1e-8); // "ensure that empty hypotheses are not removed"
    near(sacreBleuCorpus(README_SYS, README_REFS, { tokenize: 'none' }).score, 49.1919566, 1e-6);
    near(sacreBleuCorpus(README_SYS, README_REFS, { tokenize: '13a' }).score, 48.530827, 1e-6);
    near(sacreBleuCorpus(README_SYS, README_REFS, { tokenize: 'intl' }).score, 43.91623493, 1e-8);
    near(sacreBleuCorpus(README_SYS, README_REFS, { smooth: 'none' }).score, 48.530827, 1e-6);
  });

  it('matches test_bleu.py test_max_ngram_order (f"{score:.2f}")', () => {
    // mjpost/sacrebleu test/test_bleu.py test_bleu_max_order: orders 1..6 -> 77.65 60.50 53.93 48.53 46.14 43.28.
    const expected = ['77.65', '60.50', '53.93', '48.53', '46.14', '43.28'];
    expected.forEach((e, i) => expect(sacreBleuCorpus(README_SYS, README_REFS, { maxNgramOrder: i + 1 }).score.toFixed(2)).toBe(e));
  });

  it('drops empty references (README "Variable Number of References": BLEU = 29.44 82.4/42.9/27.3/12.5 (BP = 0.889 ratio = 0.895 hyp_len = 17 ref_len = 19))', () => {
    // mjpost/sacrebleu README.md: the first stream's first reference replaced by ''. (An older README listing blanked
    // both streams, which sacreBLEU rejects; the corrected listing keeps 'The dog had bit the man.' in stream 2, and
    // ref_len = 19 is only consistent with that.)
    const refs = [['', ...README_REFS[0]!.slice(1)], README_REFS[1]!];
    const r = sacreBleuCorpus(README_SYS, refs);
    expect(r.score.toFixed(2)).toBe('29.44');
    expect(verbose(r)).toBe('82.4/42.9/27.3/12.5 (BP = 0.889 ratio = 0.895 hyp_len = 17 ref_len = 19)');
  });

  it('reproduces the HF course example (evaluate "sacrebleu" = sacreBLEU defaults)', () => {
    // huggingface/course chapters/en/chapter7/4.mdx ("Translation", metric = evaluate.load("sacrebleu")):
    // {'score': 46.750469682990165, 'counts': [11, 6, 4, 3], 'totals': [12, 11, 10, 9],
    //  'precisions': [91.67, 54.54, 40.0, 33.33], 'bp': 0.9200444146293233, 'sys_len': 12, 'ref_len': 13}
    const ref = ['This plugin allows you to automatically translate web pages between several languages.'];
    const a = sacreBleuCorpus(['This plugin lets you translate web pages between several languages automatically.'], [ref]);
    near(a.score, 46.750469682990165, 1e-12); // last-ulp libm differences between V8 and CPython are possible
    expect(a.counts).toEqual([11, 6, 4, 3]);
    expect(a.totals).toEqual([12, 11, 10, 9]);
    [91.67, 54.54, 40.0, 33.33].forEach((p, i) => near(a.precisions[i]!, p, 0.01)); // the course prints 2 decimals
    near(a.bp, 0.9200444146293233, 1e-15);
    expect([a.sysLen, a.refLen]).toEqual([12, 13]);
    // Same page: "This This This This" -> {'score': 1.683602693167689, 'counts': [1, 0, 0, 0], 'totals': [4, 3, 2, 1],
    // 'precisions': [25.0, 16.67, 12.5, 12.5], 'bp': 0.10539922456186433, 'sys_len': 4, 'ref_len': 13}
    const b = sacreBleuCorpus(['This This This This'], [ref]);
    near(b.score, 1.683602693167689, 1e-13);
    expect(b.counts).toEqual([1, 0, 0, 0]);
    expect(b.totals).toEqual([4, 3, 2, 1]);
    [25.0, 16.67, 12.5, 12.5].forEach((p, i) => near(b.precisions[i]!, p, 0.01));
    near(b.bp, 0.10539922456186433, 1e-16);
    expect([b.sysLen, b.refLen]).toEqual([4, 13]);
    // Same page: "This plugin" -> {'score': 0.0, 'counts': [2, 1, 0, 0], 'totals': [2, 1, 0, 0],
    // 'precisions': [100.0, 100.0, 0.0, 0.0], 'bp': 0.004086771438464067, 'sys_len': 2, 'ref_len': 13}
    const c = sacreBleuCorpus(['This plugin'], [ref]);
    expect(c.score).toBe(0);
    expect(c.counts).toEqual([2, 1, 0, 0]);
    expect(c.totals).toEqual([2, 1, 0, 0]);
    expect(c.precisions).toEqual([100, 100, 0, 0]);
    near(c.bp, 0.004086771438464067, 1e-17);
    expect([c.sysLen, c.refLen]).toEqual([2, 13]);
  });

  it('matches the torchmetrics BLEUScore docstring example (no zero counts, so no smoothing applies): 0.7598', () => {
    // Lightning-AI/torchmetrics src/torchmetrics/text/bleu.py BLEUScore docstring: preds ['the cat is on the mat'],
    // target [['there is a cat on the mat', 'a cat is on the mat']] -> tensor(0.7598) (closest ref length, as here).
    const r = sacreBleuCorpus(['the cat is on the mat'], [['there is a cat on the mat'], ['a cat is on the mat']]);
    near(r.score / 100, 0.7598, 5e-5);
  });

  it('raw_corpus_bleu cases of test_bleu.py (floor smoothing, tokenize none, effective order; EPSILON = 1e-8)', () => {
    // mjpost/sacrebleu test/test_bleu.py; raw_corpus_bleu = corpus_bleu(smooth_method='floor', tokenize='none',
    // use_effective_order=True) (sacrebleu/compat.py), called with smooth_value .01 and the score divided by 100.
    const raw = (h: string[], r: string[][], v?: number | null): SacreBleuResult =>
      sacreBleuCorpus(h, r, { smooth: 'floor', smoothValue: v, tokenize: 'none', effectiveOrder: true });
    // test_raw_bleu_cases ("This now returns 0.0 score (#141)")
    near(raw(['this is a test', 'another test'], [['ref1', 'ref2']], 0.01).score / 100, 0.0, 1e-8);
    near(raw(['this is a test'], [['this is a test']], 0.01).score / 100, 1.0, 1e-8);
    near(raw(['this is a fest'], [['this is a test']], 0.01).score / 100, 0.223606797749979, 1e-8);
    // test_case_effective_order
    near(raw(['test'], [['a test']], 0.01).score / 100, 0.3678794411714425, 1e-8);
    near(raw(['a test'], [['a test']], 0.01).score / 100, 1.0, 1e-8);
    near(raw(['a little test'], [['a test']], 0.01).score / 100, 0.03218297948685433, 1e-8);
    // test_case_statistics: counts [4, 2, 1, 0], totals [6, 5, 4, 3]
    const stat = raw(['am I am a character sequence'], [['I am a symbol string sequence a a']], 0.01);
    expect([stat.counts, stat.totals]).toEqual([
      [4, 2, 1, 0],
      [6, 5, 4, 3],
    ]);
    // test_case_offset: 0 with smooth_value 0.0, 0.1555722182 with the default (None -> 0.1)
    near(raw(['am I am a character sequence'], [['I am a symbol string sequence a a']], 0.0).score / 100, 0, 1e-8);
    near(raw(['am I am a character sequence'], [['I am a symbol string sequence a a']], null).score / 100, 0.1555722182, 1e-8);
    near(raw(['am I am a character sequence'], [['I am a symbol string sequence a a']]).score / 100, 0.1555722182, 1e-8);
  });

  it('rejects a segment without any non-empty reference and mismatched streams', () => {
    // sacrebleu/metrics/base.py _cache_references: RuntimeError("Empty or `None` reference sentence found.")
    expect(() => sacreBleuCorpus(['a'], [['']])).toThrowError(expect.objectContaining({ code: 'E_DATA' }));
    expect(() => sacreBleuCorpus(['a', 'b'], [['a']])).toThrowError(expect.objectContaining({ code: 'E_DATA' }));
    expect(() => sacreBleuCorpus(['a'], [['a']], { smooth: 'bogus' as never })).toThrowError(expect.objectContaining({ code: 'E_CONFIG' }));
  });
});

describe('bleuFromStats (sacreBLEU BLEU.compute_bleu)', () => {
  it('test_bleu.py test_scoring: compute_bleu([9,7,5,3], [10,8,6,4], 11, 11) = 0.8375922397 (default smooth none)', () => {
    const r = bleuFromStats({ counts: [9, 7, 5, 3], totals: [10, 8, 6, 4], sysLen: 11, refLen: 11 }, { smooth: 'none' });
    near(r.score / 100, 0.8375922397, 1e-8);
  });

  it('test_bleu.py test_degenerate_statistics: floor smoothing on degenerate statistics gives exactly 0.0', () => {
    const cases: [number[], number[], number, number, number][] = [
      [[0, 0, 0, 0], [4, 4, 2, 1], 0, 1, 0.0],
      [[0, 0, 0, 0], [10, 11, 12, 0], 14, 10, 0.0],
      [[0, 0, 0, 0], [0, 0, 0, 0], 0, 0, 0.0],
      [[6, 5, 4, 0], [6, 5, 4, 3], 6, 6, 0.0],
      [[0, 0, 0, 0], [0, 0, 0, 0], 0, 0, 0.1],
      [[0, 0, 0, 0], [0, 0, 0, 0], 1, 5, 0.01],
    ];
    for (const [counts, totals, sysLen, refLen, offset] of cases) {
      expect(bleuFromStats({ counts, totals, sysLen, refLen }, { smooth: 'floor', smoothValue: offset }).score / 100).toBe(0);
    }
  });

  it('gives the same statistics on the string-key fallback (huge order) as on the integer-key path', () => {
    // 7 distinct tokens and order 21: 8^21 > 2^53, so n-grams are counted with string keys; orders 1-4 must agree.
    const h = 'a b c a b d e f g a b c';
    const r = 'a b c d e f g a b c a b';
    const big = bleuStats(h, [r, 'g f e d c b a'], { maxNgramOrder: 21, tokenize: 'none' });
    const small = bleuStats(h, [r, 'g f e d c b a'], { maxNgramOrder: 4, tokenize: 'none' });
    expect(big.counts.slice(0, 4)).toEqual(small.counts);
    expect(small.counts).toEqual([12, 10, 8, 6]); // by hand: all unigrams; bigrams ab×3 bc×2 ca de ef fg ga; …
    expect(big.totals.slice(0, 4)).toEqual(small.totals);
  });

  it('accumulates streaming statistics to the corpus score', () => {
    const acc = emptyBleuStats();
    README_SYS.forEach((h, i) => addBleuStats(acc, bleuStats(h, [README_REFS[0]![i]!, README_REFS[1]![i]!])));
    expect(bleuFromStats(acc)).toEqual(sacreBleuCorpus(README_SYS, README_REFS));
  });
});

describe('sacreBleuSentence (sacreBLEU 2.x sentence_bleu: effective order)', () => {
  // mjpost/sacrebleu test/test_sentence_bleu.py, "Example taken from #98", EPSILON = 1e-3,
  // BLEU(lowercase, tokenize, smooth_method, smooth_value, effective_order=True).sentence_score(SYS, [REF]).
  const REF = 'producţia de zahăr brut se exprimă în zahăr alb;';
  const SYS = 'Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;';
  const cases: [string, number | null, boolean, string, number][] = [
    ['exp', null, false, '13a', 8.493],
    ['none', null, false, '13a', 0.0],
    ['floor', null, false, '13a', 4.51688],
    ['floor', 0.1, false, '13a', 4.51688],
    ['floor', 0.5, false, '13a', 10.1],
    ['add-k', null, false, '13a', 14.882],
    ['add-k', 1, false, '13a', 14.882],
    ['add-k', 2, false, '13a', 21.389],
    ['exp', null, false, 'none', 7.347],
    ['exp', null, false, 'intl', 8.493],
    ['exp', null, false, 'char', 40.8759],
    ['exp', null, true, 'char', 42.0267],
  ];
  it.each(cases)('smooth %s value %s lowercase %s tokenize %s -> %s', (smooth, value, lowercase, tok, expected) => {
    const r = sacreBleuSentence(SYS, [REF], { smooth: smooth as never, smoothValue: value, lowercase, tokenize: tok as never });
    near(r.score, expected, 1e-3);
  });

  it('scores 0.0 with every smoothing when nothing matches (test_sentence_bleu.py, "Example taken from #141")', () => {
    for (const [smooth, value] of [['exp', null], ['none', null], ['floor', null], ['floor', 0.1], ['add-k', null], ['add-k', 1]] as const) {
      near(sacreBleuSentence('this is a cat', ['okay thanks'], { smooth, smoothValue: value }).score, 0.0, 1e-3);
    }
  });

  it('uses exp smoothing and effective order by default (sacrebleu/compat.py sentence_bleu defaults)', () => {
    // ["a little test"] vs ["a test"]: unigrams 2/3, bigrams 0/2, trigrams 0/1 -> exp smoothing 100/(2*2), 100/(4*1),
    // effective order 3: (66.67 * 25 * 25)^(1/3) = 34.67 (derived from bleu.py compute_bleu).
    const r = sacreBleuSentence('a little test', ['a test']);
    near(r.score, Math.cbrt((200 / 3) * 25 * 25), 1e-9);
    expect(r.precisions.map((p) => p.toFixed(2))).toEqual(['66.67', '25.00', '25.00', '0.00']);
    // With effective order off, the missing 4-grams give 0 (my_log(0) = -9999999999).
    expect(sacreBleuSentence('a little test', ['a test'], { effectiveOrder: false }).score).toBe(0);
  });
});

describe('bleuHf (HF evaluate "bleu" = TensorFlow-NMT compute_bleu over 13a tokens)', () => {
  it('reproduces the evaluate metric card example', () => {
    // huggingface/evaluate metrics/bleu/README.md "How to Use":
    // {'bleu': 1.0, 'precisions': [1.0, 1.0, 1.0, 1.0], 'brevity_penalty': 1.0, 'length_ratio': 1.1666666666666667,
    //  'translation_length': 7, 'reference_length': 6}
    const r = bleuHf(['hello there general kenobi', 'foo bar foobar'], [['hello there general kenobi', 'hello there !'], ['foo bar foobar']]);
    expect(r).toEqual({ bleu: 1.0, precisions: [1, 1, 1, 1], brevityPenalty: 1.0, lengthRatio: 1.1666666666666667, translationLength: 7, referenceLength: 6 });
    // metrics/bleu/bleu.py docstring writes the second reference "hello there!" -> same 13a tokens, bleu 1.0.
    expect(bleuHf(['hello there general kenobi', 'foo bar foobar'], [['hello there general kenobi', 'hello there!'], ['foo bar foobar']]).bleu).toBe(1.0);
    // README "Example where each prediction has 1 reference": length_ratio 1.0, lengths 7 / 7.
    expect(bleuHf(['hello there general kenobi', 'foo bar foobar'], [['hello there general kenobi'], ['foo bar foobar']])).toEqual({
      bleu: 1.0,
      precisions: [1, 1, 1, 1],
      brevityPenalty: 1.0,
      lengthRatio: 1.0,
      translationLength: 7,
      referenceLength: 7,
    });
  });

  it('matches tensor2tensor bleu_hook_test testComputeMultipleBatch: 0.7231 (atol 1e-3)', () => {
    // tensorflow/tensor2tensor tensor2tensor/utils/bleu_hook_test.py: translation [[1,2,3,4],[5,6,7,0]], reference
    // [[1,2,3,4],[5,6,7,10]] -> 0.7231. No order has zero matches and c = r, so unsmoothed compute_bleu agrees.
    const r = bleuHf(['1 2 3 4', '5 6 7 0'], [['1 2 3 4'], ['5 6 7 10']]);
    near(r.bleu, 0.7231, 1e-4);
    expect(r.precisions).toEqual([7 / 8, 5 / 6, 3 / 4, 1 / 2]);
  });

  it('matches the torchmetrics BLEUScore docstring example: 0.7598 (shortest = closest reference here)', () => {
    // Lightning-AI/torchmetrics src/torchmetrics/text/bleu.py: tensor(0.7598).
    near(bleuHf(['the cat is on the mat'], [['there is a cat on the mat', 'a cat is on the mat']]).bleu, 0.7598, 5e-5);
  });

  it('agrees with the HF course sacreBLEU example on the 0-1 scale when nothing is smoothed', () => {
    // Derived from huggingface/course chapter7/4.mdx (46.750469682990165, bp 0.9200444146293233): a single reference,
    // no zero counts, so compute_bleu = sacreBLEU / 100 (up to rounding), precisions 11/12, 6/11, 4/10, 3/9.
    const r = bleuHf(
      ['This plugin lets you translate web pages between several languages automatically.'],
      [['This plugin allows you to automatically translate web pages between several languages.']],
    );
    near(r.bleu, 0.46750469682990165, 1e-14);
    expect(r.precisions).toEqual([11 / 12, 6 / 11, 4 / 10, 3 / 9]);
    near(r.brevityPenalty, 0.9200444146293233, 1e-15);
    expect([r.translationLength, r.referenceLength, r.lengthRatio]).toEqual([12, 13, 12 / 13]);
  });

  it('scores 0 for a hypothesis shorter than 4 tokens (no 4-grams, no smoothing; hpt.md §3)', () => {
    const r = bleuHfSentence('The dog bit', ['The dog bit the man.']);
    expect(r.bleu).toBe(0);
    expect(r.precisions).toEqual([1, 1, 1, 0]);
    // Any order without a match gives 0 too (hpt.md §3).
    expect(bleuHfSentence('This This This This', ['This plugin allows you to automatically translate web pages.']).bleu).toBe(0);
  });

  it('gives BP 0 and ratio 0 for an empty translation, even with smoothing (the reference local change; hpt.md §3)', () => {
    expect(bleuHfSentence('', ['Il fait beau.'])).toEqual({
      bleu: 0,
      precisions: [0, 0, 0, 0],
      brevityPenalty: 0,
      lengthRatio: 0,
      translationLength: 0,
      referenceLength: 4,
    });
    // smooth: every precision is (0+1)/(0+1) = 1, so only BP = 0 keeps the score at 0.
    const s = bleuHfSentence('', ['Il fait beau.'], { smooth: true });
    expect([s.precisions, s.brevityPenalty, s.bleu]).toEqual([[1, 1, 1, 1], 0, 0]);
  });

  it('uses BP = exp(1 - r/c) when c <= r (1 at c = r) and the shortest reference length', () => {
    // nmt_bleu.py: bp = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio); reference_length += min(len(r) ...)
    expect(bleuHfSentence('a b c d', ['a b c d']).brevityPenalty).toBe(1);
    const r = bleuHfSentence('a b c d e f', ['a b c d e f g h', 'x y z w v u t s r q']);
    expect(r.referenceLength).toBe(8);
    expect(r.brevityPenalty).toBe(Math.exp(1 - 1 / (6 / 8)));
    near(r.bleu, Math.exp(1 - 8 / 6), 1e-15);
    // shortest (HF) vs closest (sacreBLEU) reference length differ:
    expect(bleuHfSentence('a b c d e', ['a b c d e', 'a b c']).referenceLength).toBe(3);
    expect(sacreBleuSentence('a b c d e', ['a b c d e', 'a b c']).refLen).toBe(5);
  });

  it('is case-sensitive and smooths with add-one when asked (Lin & Och 2004, nmt_bleu.py)', () => {
    expect(bleuHfSentence('The cat sat down', ['the cat sat down']).precisions).toEqual([3 / 4, 2 / 3, 1 / 2, 0]);
    expect(bleuHfSentence('The cat sat down', ['the cat sat down'], { smooth: true }).precisions).toEqual([4 / 5, 3 / 4, 2 / 3, 1 / 2]);
  });
});

describe('IWSLT extraction (hpt.md §4 IWSLT, §9 #16)', () => {
  const PROMPT = "Translate 'The cat is on the mat.' to french as a Translator.\nFrench:";

  it('referenceIwslt: first French: line of the full text, French: removed, stripped; none without such a line', () => {
    expect(referenceIwslt(PROMPT + ' Le chat est sur le tapis.\nNote: literal.')).toBe('Le chat est sur le tapis.');
    expect(referenceIwslt(PROMPT + '\nLe chat est sur le tapis.')).toBe('');
    expect(referenceIwslt('Translate it.\nfrench:\n\nLe chat.')).toBe('Le chat.');
    expect(referenceIwslt('Translate it.\nLe chat.')).toBeNull();
    // Level-3 artifact: exemplar 1's French line comes first (hpt.md §4).
    expect(referenceIwslt("Translate 'x' to French.\nFrench: Cet assèchement.\nTranslate 'y' to French.\nFrench: Le chat.")).toBe('Cet assèchement.');
  });

  it('strictIwslt: first non-empty line of the completion after a repeated cue', () => {
    expect(strictIwslt('\nLe chat est sur le tapis.\nExplanation: ...', 'French:')).toBe('Le chat est sur le tapis.');
    expect(strictIwslt(' French: Le chat.', 'French:')).toBe('Le chat.');
    expect(strictIwslt('**French:**\n\n  Le chat.  ', 'French:')).toBe('Le chat.');
    expect(strictIwslt('french:\nLe chat.', '')).toBe('Le chat.');
    expect(strictIwslt('  \n \n', 'French:')).toBe('');
  });
});

describe('BleuScorer (bleu)', () => {
  const scorer = new BleuScorer();
  const target = 'Le chat est sur le tapis.';
  const sample: Sample = { id: 's1', index: 0, input: { eng_text: 'The cat is on the mat.' }, target };
  const PROMPT = "Translate 'The cat is on the mat.' to french as a Translator.\n";
  const out = (completion: string): GradedOutput => ({ promptText: PROMPT + 'French:', completion, cue: 'French:' });
  const ctx = (compat: 'strict' | 'reference', threshold?: unknown): ScoreContext => ({
    compat,
    options: threshold === undefined ? {} : { threshold: threshold as number },
  });

  it('requires --threshold (hpt.md §9 #7) and validates it', () => {
    expect(() => scorer.score(sample, out(' ' + target), ctx('strict'))).toThrowError(
      expect.objectContaining({ code: 'E_CONFIG', message: '--threshold is required for this dataset (the paper uses 0.15 and 0.20)' }),
    );
    expect(THRESHOLD_REQUIRED_MESSAGE).toBe('--threshold is required for this dataset (the paper uses 0.15 and 0.20)');
    expect(() => scorer.score(sample, out(' ' + target), ctx('strict', 1.5))).toThrowError(expect.objectContaining({ code: 'E_CONFIG' }));
    expect(() => scorer.score(sample, out(' ' + target), ctx('strict', 'abc'))).toThrowError(expect.objectContaining({ code: 'E_CONFIG' }));
    expect(scorer.score(sample, out(' ' + target), ctx('strict', '0.15')).solved).toBe(true);
  });

  it('a reply starting with a newline: "" in reference mode (score 0), the first line in strict mode (score 1)', () => {
    const completion = '\n' + target + '\n(This is a literal translation.)';
    expect(scorer.score(sample, out(completion), ctx('reference', 0.15))).toEqual({ solved: false, score: 0, extracted: '' });
    expect(scorer.score(sample, out(completion), ctx('strict', 0.15))).toEqual({ solved: true, score: 1, extracted: target, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });

  it('solves iff sentence BLEU (0-1) >= threshold', () => {
    // 'Le chat est sur la table .' vs 'Le chat est sur le tapis .': precisions 5/7, 3/6, 2/5, 1/4, equal lengths
    // (BP 1), so BLEU = (5/7 · 3/6 · 2/5 · 1/4)^(1/4) = 0.43472 (nmt_bleu.py formula).
    const v = scorer.score(sample, out(' Le chat est sur la table.'), ctx('strict', 0.2));
    const expected = Math.exp((Math.log(5 / 7) + Math.log(3 / 6) + Math.log(2 / 5) + Math.log(1 / 4)) / 4);
    near(v.score, expected, 1e-15);
    near(v.score, 0.43472, 1e-5);
    expect(v).toMatchObject({ solved: true, extracted: 'Le chat est sur la table.' });
    expect(scorer.score(sample, out(' Le chat est sur la table.'), ctx('strict', 0.45)).solved).toBe(false);
    expect(scorer.score(sample, out(' Le chat est sur la table.'), ctx('strict', v.score)).solved).toBe(true);
    expect(scorer.score(sample, out(' Le chat.'), ctx('reference', 0.15))).toEqual({ solved: false, score: 0, extracted: 'Le chat.' });
  });

  it('rejects a non-string target', () => {
    expect(() => scorer.score({ ...sample, target: 3 }, out(' x'), ctx('strict', 0.2))).toThrowError(expect.objectContaining({ code: 'E_DATA' }));
  });

  it('renderTarget is the reference (scores 1 in both modes); randomAnswer is a seeded subset of its words', () => {
    expect(scorer.renderTarget(sample)).toBe(target);
    expect(scorer.score(sample, out(' ' + scorer.renderTarget(sample)), ctx('reference', 0.2)).score).toBe(1);
    let seed = 7;
    const random = (): number => {
      seed = (Math.imul(seed, 48271) + 11) >>> 0;
      return seed / 4294967296;
    };
    const words = target.split(' ');
    for (let i = 0; i < 50; i++) {
      const a = scorer.randomAnswer(sample, random);
      expect(a.length).toBeGreaterThan(0);
      expect(a).not.toMatch(/\n/);
      const parts = a.split(' ');
      expect(parts.length).toBeLessThanOrEqual(words.length);
      for (const p of parts) expect(words).toContain(p);
      expect(new Set(parts).size).toBe(parts.length);
    }
    const fixed = (): number => 0;
    // random() = 0: each Fisher–Yates step swaps with index 0, giving [chat, est, sur, le, tapis., Le]; prefix length 1.
    expect(scorer.randomAnswer(sample, fixed)).toBe('chat');
  });

  it('aggregates corpus BLEU (HF 0-1 and sacreBLEU 0-100) from streamed predictions', () => {
    const samples: Sample[] = [
      sample,
      { id: 's2', index: 1, input: { eng_text: 'Where is the train station?' }, target: 'Où est la gare ?' },
      { id: 's3', index: 2, input: { eng_text: 'The weather is nice today.' }, target: "Il fait beau aujourd'hui." },
    ];
    const preds = ['Le chat est sur la table.', 'Où est la gare?  ', null];
    const agg = scorer.createAggregator(ctx('strict', 0.2));
    samples.forEach((s, i) => agg.add(s, preds[i] ?? null, false));
    const hyps = preds.map((p) => p ?? '');
    const refs = samples.map((s) => s.target as string);
    expect(agg.result()).toEqual({
      bleu: bleuHf(hyps, refs.map((r) => [r])).bleu,
      sacrebleu: sacreBleuCorpus(hyps, [refs]).score,
      sacrebleuSignature: SACREBLEU_SIGNATURE,
    });
    expect(SACREBLEU_SIGNATURE).toBe('nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.x-compatible');
    // Corpus BLEU is not the mean of sentence scores (hpt.md §3).
    const r = agg.result();
    const mean = hyps.reduce((s, h, i) => s + bleuHfSentence(h, [refs[i]!]).bleu, 0) / hyps.length;
    expect(r['bleu']).not.toBeCloseTo(mean, 6);
    expect(scorer.createAggregator(ctx('strict', 0.2)).result()).toEqual({ bleu: 0, sacrebleu: 0, sacrebleuSignature: SACREBLEU_SIGNATURE });
  });
});

describe('BleuScorer strict extraction trace (issue #23)', () => {
  it('records the first-line rule and the span of the translation it read; none for an empty reply', () => {
    const scorer = new BleuScorer();
    const sample: Sample = { id: 't', index: 0, input: {}, target: 'Bonjour le monde.' };
    const completion = '\n**French:** Bonjour le monde.\n(Explanation: a greeting.)';
    const v = scorer.score(sample, { promptText: '', completion, cue: 'French:' }, { compat: 'strict', options: { threshold: 0.5 } });
    expect(v.extracted).toBe('Bonjour le monde.');
    expect(v.extraction?.rule).toBe('first-line');
    const [s, e] = v.extraction!.span!;
    expect(completion.slice(s, e)).toBe('Bonjour le monde.');
    expect(v.solved).toBe(true);
    const empty = scorer.score(sample, { promptText: '', completion: '  \n', cue: 'French:' }, { compat: 'strict', options: { threshold: 0.5 } });
    expect(empty).toEqual({ solved: false, score: 0, extracted: '', extraction: { rule: 'none', span: null } });
    const ref = scorer.score(sample, { promptText: 'French:', completion: ' Bonjour le monde.', cue: '' }, { compat: 'reference', options: { threshold: 0.5 } });
    expect(ref.extraction).toBeUndefined();
  });
});
