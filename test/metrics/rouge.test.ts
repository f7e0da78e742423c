import { describe, it, expect } from 'vitest';
import { HptError, type GradedOutput, type Json, type Sample, type ScoreContext } from '@hpt-bench/core';
import {
  ROUGE_TYPES,
  RougeScorer,
  lcsIndices,
  lcsLength,
  referenceSamsum,
  rougeFmeasure,
  rougeScore,
  rougeTokenize,
  strictSummary,
  summaryLevelLcs,
  unionLcs,
} from '../../plugins/metrics/src/rouge.js';
import { porterStem } from '../../plugins/metrics/src/porter.js';

// Sources of the published values below:
// - GR = google-research/google-research rouge/rouge_scorer_test.py (class RougeScorerTest); `assertAlmostEqual` without
//   `places` is 7 places => toBeCloseTo(x, 7); with places=5/3 => toBeCloseTo(x, 5/3); assertEqual => toBe.
// - GR testdata = rouge/testdata/target.txt, prediction.txt (read with readlines(), so each line keeps its '\n') and
//   rouge/testdata/pyrouge_files/target_multi.0.txt, prediction_multi.0.txt (read whole). Expected values there are
//   ROUGE-1.5.5 perl runs.
// - TOK = rouge/tokenize_test.py; NLTK = nltk/test/stem.doctest, nltk/test/unit/test_stem.py, nltk/stem/porter.py.

const TARGET_0 =
  "ZfbCUIUuePaiLVUlCaUXxkpu XPeWing tUHfPMuZ',-Xd Y BrUgVJing M-HV.-DgdDaY.rFDJCRing Ht-LM EKBDXkME,yz'RBr q'wtion wIojNbN wL,b .a-'XdQggyFl jB-RPP'iyOIcUxer tKM L\n";
const TARGET_1 =
  "KsJdPByEtAor fE-Qg Dpdbring cw-WeFyu vC MoBL Xdn g wkvcEiGvKtion BDFhrpMtion psing sbKao Q m qiing LMmer HqqLFXe,XPY,J XsurkMer ,ed nB'wH'bWVHjWFEing tQ.saefZwJtKrTlixYpMMsJing UCAPwNHeYVjDing c T BUySKtion gMPfJpwGw p'NvxAoping eu pBwMBKV'I DNxqelhu,PHPxDEq,mtion SN\n";
const PREDICTION_0 = "rFDJCRtion Ht-LM EKtDXkME,yz'RBr q'wer wrojNbN wL,b .a-'XdQggyFl jB-RPP'iyOIcUxi\n";
const PREDICTION_1 =
  "n cw-WeFyu vC MoBL Xdn g wkvcEiGvKtion BDFhrpMer pstion sbKao Q m qier LMmed HqqLFXe,XPY,J XsurkMeo ,ed nB'wH'bWVHjWFEer tQ.saefZwJtKrTlixYpMMNJtion UCAPwNHeYVjD\n";
const TARGET_MULTI_0 = [
  "ZfbCUIUuePaiLVUlCaUXxkpu XPeWing tUHfPMuZ',-Xd Y BrUgVJing M-HV.-DgdDaY.rFDJCRing Ht-LM EKBDXkME,yz'RBr q'wtion wIojNbN wL,b .a-'XdQggyFl jB-RPP'iyOIcUxer tKM L",
  "KsJdPByEtAor fE-Qg Dpdbring cw-WeFyu vC MoBL Xdn g wkvcEiGvKtion BDFhrpMtion psing sbKao Q m qiing LMmer HqqLFXe,XPY,J XsurkMer ,ed nB'wH'bWVHjWFEing tQ.saefZwJtKrTlixYpMMsJing UCAPwNHeYVjDing c T BUySKtion gMPfJpwGw p'NvxAoping eu pBwMBKV'I DNxqelhu,PHPxDEq,mtion SN",
  "NhETebUbBk'er WOvoHMTjSRizKgH'vHiing Xu,hWxfs VkNE QhgKiLHE -HidivzoM.dO anhtion jbLQiSGDTCsuhREebUaKM dv J dVN tmbOT",
  "vMR HDm,xOAetion D,tion HJtodT.mHl UIv-p VjWH'BdyWjnfGU-OjT aEMdFICyLWfQMtion wEMfdOKing AwkeKbO 'DxqNOHBH qKtVvm OYJl mM",
  '',
].join('\n');
const PREDICTION_MULTI_0 = [
  "rFDJCRtion Ht-LM EKtDXkME,yz'RBr q'wer wrojNbN wL,b .a-'XdQggyFl jB-RPP'iyOIcUxi",
  "n cw-WeFyu vC MoBL Xdn g wkvcEiGvKtion BDFhrpMer pstion sbKao Q m qier LMmed HqqLFXe,XPY,J XsurkMeo ,ed nB'wH'bWVHjWFEer tQ.saefZwJtKrTlixYpMMNJtion UCAPwNHeYVjD",
  'xfs VkJE QhgKiLHE -HidivzoM.dO anhing jbLQiSGDTCsuhREebUaKM dv J',
  "VjWH'BdyWjnfGU-OjTNaEMdFICyLWfQMing wEMfdOKijg AwkeKbO 'DxqNO",
  '',
].join('\n');

/** Asserts precision, recall and F-measure to `places` decimal places (Python assertAlmostEqual semantics). */
function expectPRF(v: { precision: number; recall: number; fmeasure: number } | undefined, p: number, r: number, f: number, places = 7): void {
  expect(v).toBeDefined();
  expect(v!.precision).toBeCloseTo(p, places);
  expect(v!.recall).toBeCloseTo(r, places);
  expect(v!.fmeasure).toBeCloseTo(f, places);
}

describe('rougeTokenize (rouge tokenize.py / tokenizers.DefaultTokenizer)', () => {
  it('lower-cases and splits on whitespace (TOK test_give_me_a_name)', () => {
    expect(rougeTokenize('one Two three')).toEqual(['one', 'two', 'three']);
    expect(rougeTokenize('one\n Two \nthree')).toEqual(['one', 'two', 'three']);
  });

  it('turns every character outside [a-z0-9] into a separator (tokenize.py NON_ALPHANUM_PATTERN; derived)', () => {
    expect(rougeTokenize("Hello, World! It's 3:30pm.")).toEqual(['hello', 'world', 'it', 's', '3', '30pm']);
    expect(rougeTokenize('w1-w2/w3_w4')).toEqual(['w1', 'w2', 'w3', 'w4']);
    expect(rougeTokenize('/')).toEqual([]);
    expect(rougeTokenize('')).toEqual([]);
  });

  it('drops non-ASCII letters after Unicode lower-casing, as Python str.lower() does (derived)', () => {
    // 'ï' and 'é' are not [a-z]; 'İ'.lower() is 'i' + U+0307, so an 'i' token survives; KELVIN SIGN lowers to 'k'.
    expect(rougeTokenize('naïve café İstanbul \u212Aelvin')).toEqual(['na', 've', 'caf', 'i', 'stanbul', 'kelvin']);
    // ftnext/kurenai README: rouge-score gives all-zero scores for Japanese text ('いぬ ねこ' vs itself).
    expect(rougeTokenize('いぬ ねこ')).toEqual([]);
    expect(rougeScore('いぬ ねこ', 'いぬ ねこ', ['rouge1']).rouge1).toEqual({ precision: 0, recall: 0, fmeasure: 0 });
  });

  it('stems only tokens longer than 3 characters with the Porter stemmer (tokenize.py; derived)', () => {
    expect(rougeTokenize('The cats are running quickly; goes was', true)).toEqual(['the', 'cat', 'are', 'run', 'quickli', 'goe', 'was']);
    expect(rougeTokenize('The cats are running quickly; goes was')).toEqual(['the', 'cats', 'are', 'running', 'quickly', 'goes', 'was']);
  });
});

describe('porterStem (NLTK PorterStemmer, mode NLTK_EXTENSIONS)', () => {
  it('stems the NLTK stem.doctest plurals exactly', () => {
    const plurals = ['caresses', 'flies', 'dies', 'mules', 'denied', 'died', 'agreed', 'owned', 'humbled', 'sized', 'meeting', 'stating',
      'siezing', 'itemization', 'sensational', 'traditional', 'reference', 'colonizer', 'plotted'];
    expect(plurals.map(porterStem).join(' ')).toBe(
      'caress fli die mule deni die agre own humbl size meet state siez item sensat tradit refer colon plot',
    );
  });

  it("stems 'oed' to 'o' (NLTK test_stem.py test_oed_bug, issue #1581)", () => {
    expect(porterStem('oed')).toBe('o');
  });

  it('maps the irregular forms of porter.py (NLTK_EXTENSIONS pool)', () => {
    const pool: Record<string, string> = {
      sky: 'sky', skies: 'sky', dying: 'die', lying: 'lie', tying: 'tie', news: 'news', innings: 'inning', inning: 'inning',
      outings: 'outing', outing: 'outing', cannings: 'canning', canning: 'canning', howe: 'howe', proceed: 'proceed',
      exceed: 'exceed', succeed: 'succeed',
    };
    for (const [w, s] of Object.entries(pool)) expect(porterStem(w)).toBe(s);
  });

  it('applies the NLTK step 1c rule documented in porter.py (happy => happi, enjoy => enjoy, spy/fly/try => spi/fli/tri)', () => {
    expect(['happy', 'enjoy', 'spy', 'fly', 'try'].map(porterStem)).toEqual(['happi', 'enjoy', 'spi', 'fli', 'tri']);
  });

  it('lower-cases (stem(word, to_lowercase=True)); the irregular table is looked up with the word as given (porter.py stem())', () => {
    expect(porterStem('On')).toBe('on');
    expect(porterStem('Github')).toBe('github');
    expect(porterStem('Sky')).toBe('ski');
    expect(porterStem('constructor')).toBe('constructor');
  });
});

describe('rougeScore: published rouge_scorer_test.py cases', () => {
  it('testRouge1', () => {
    expectPRF(rougeScore('testing one two', 'testing', ['rouge1']).rouge1, 1, 1 / 3, 1 / 2);
  });

  it('testRougeEmpty (every type, empty prediction)', () => {
    for (const type of ['rouge1', 'rouge2', 'rougeL', 'rougeLsum']) {
      expectPRF(rougeScore('testing one two', '', [type])[type], 0, 0, 0);
    }
  });

  it('testRouge2', () => {
    expectPRF(rougeScore('testing one two', 'testing one', ['rouge2']).rouge2, 1, 1 / 2, 2 / 3);
  });

  it('testRougeLConsecutive and testRougeLNonConsecutive', () => {
    expectPRF(rougeScore('testing one two', 'testing one', ['rougeL']).rougeL, 1, 2 / 3, 4 / 5);
    expectPRF(rougeScore('testing one two', 'testing two', ['rougeL']).rougeL, 1, 2 / 3, 4 / 5);
  });

  it('testMultipleRougeTypes', () => {
    const r = rougeScore('testing one two', 'testing one', ['rouge1', 'rougeL']);
    expect(Object.keys(r)).toEqual(['rouge1', 'rougeL']);
    expectPRF(r.rouge1, 1, 2 / 3, 4 / 5);
    expectPRF(r.rougeL, 1, 2 / 3, 4 / 5);
  });

  it('testValidRougeTypes and testInvalidRougeTypes', () => {
    for (const type of ['rouge1', 'rouge9', 'rougeL', 'rougeLsum']) {
      expect(Object.keys(rougeScore('testing one two', 'testing', [type]))).toEqual([type]);
    }
    for (const type of ['rougen', 'rouge0', 'rouge10']) {
      expect(() => rougeScore('testing one two', 'testing', [type])).toThrow(HptError);
    }
  });

  it('testRouge1AgainstRouge155 (GR testdata lines 0 and 1, 5 places)', () => {
    expectPRF(rougeScore(TARGET_0, PREDICTION_0, ['rouge1']).rouge1, 0.6875, 0.40741, 0.51163, 5);
    expectPRF(rougeScore(TARGET_1, PREDICTION_1, ['rouge1']).rouge1, 0.65385, 0.40476, 0.5, 5);
  });

  it('testRouge1AgainstRouge155WithStemming', () => {
    expectPRF(rougeScore(TARGET_0, PREDICTION_0, ['rouge1'], { stemmer: true }).rouge1, 0.6875, 0.40741, 0.51163, 5);
    expectPRF(rougeScore(TARGET_1, PREDICTION_1, ['rouge1'], { stemmer: true }).rouge1, 0.69231, 0.42857, 0.52941, 5);
  });

  it('testRouge2AgainstRouge155 and testRouge2AgainstRouge155WithStemming', () => {
    for (const stemmer of [false, true]) {
      expectPRF(rougeScore(TARGET_0, PREDICTION_0, ['rouge2'], { stemmer }).rouge2, 0.53333, 0.30769, 0.39024, 5);
      expectPRF(rougeScore(TARGET_1, PREDICTION_1, ['rouge2'], { stemmer }).rouge2, 0.48, 0.29268, 0.36364, 5);
    }
  });

  it('testRougeLAgainstRouge155', () => {
    expectPRF(rougeScore(TARGET_0, PREDICTION_0, ['rougeL']).rougeL, 0.6875, 0.40741, 0.51163, 5);
    expectPRF(rougeScore(TARGET_1, PREDICTION_1, ['rougeL']).rougeL, 0.65385, 0.40476, 0.5, 5);
  });

  it('testRougeLSumAgainstRouge155WithStemming (pyrouge_files/*_multi.0.txt)', () => {
    const r = rougeScore(TARGET_MULTI_0, PREDICTION_MULTI_0, ['rougeLsum'], { stemmer: true });
    expectPRF(r.rougeLsum, 0.66667, 0.36538, 0.47205, 5);
  });

  it('testLcsTable', () => {
    const ref = [1, 2, 3, 4, 5];
    expect(lcsLength(ref, [2, 5, 3, 4])).toBe(3);
    expect(lcsIndices(ref, [2, 5, 3, 4])).toEqual([1, 2, 3]);
    expect(lcsIndices(ref, [2, 5, 3, 4]).map((i) => ref[i])).toEqual([2, 3, 4]);
    expect(lcsLength(ref, [8, 9])).toBe(0);
    expect(lcsIndices(ref, [8, 9])).toEqual([]);
  });

  it('testUnionLcs (ROUGE paper §3.2 example)', () => {
    expect(unionLcs([1, 2, 3, 4, 5], [[1, 2, 6, 7, 8], [1, 3, 8, 9, 5]])).toEqual([1, 2, 3, 5]);
    expect(unionLcs([1, 2, 3, 4, 5], [[1, 3, 8, 9, 5], [1, 2, 6, 7, 8]])).toEqual([1, 2, 3, 5]);
  });

  it('testSummaryLevelLcs', () => {
    const s = summaryLevelLcs([[1, 2, 3, 4, 5]], [[1, 2, 6, 7, 8], [1, 3, 8, 9, 5]]);
    expect(s.recall).toBe(0.8);
    expect(s.precision).toBe(0.4);
    expect(s.fmeasure).toBeCloseTo(0.5333, 3);
    // Tokenizer may drop all tokens, resulting in an empty candidate list.
    expect(summaryLevelLcs([['reference']], [[]]).recall).toBe(0);
  });

  it('testRougeLsum (incl. empty and all-non-word cases)', () => {
    expectPRF(rougeScore('w1 w2 w3 w4 w5', 'w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5', ['rougeLsum']).rougeLsum, 0.4, 0.8, 0.5333, 3);
    expect(rougeScore('w1 w2 w3 w4 w5', 'w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5', ['rougeLsum']).rougeLsum?.recall).toBeCloseTo(0.8, 7);
    expect(rougeScore('w1 w2 w3 w4 w5', 'w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5', ['rougeLsum']).rougeLsum?.precision).toBeCloseTo(0.4, 7);
    expectPRF(rougeScore('w1 w2 w3 w4 w5', '', ['rougeLsum']).rougeLsum, 0, 0, 0, 3);
    expectPRF(rougeScore('', 'w1', ['rougeLsum']).rougeLsum, 0, 0, 0, 3);
    expectPRF(rougeScore('w1 w2 w3 w4 w5', '/', ['rougeLsum']).rougeLsum, 0, 0, 0, 3);
  });
});

describe('rougeScore: derived behaviour (rouge_scorer.py semantics)', () => {
  it('HF evaluate rouge docstring: identical texts score 1.0 for every default type', () => {
    for (const [ref, pred] of [['hello there', 'hello there'], ['general kenobi', 'general kenobi']] as const) {
      const r = rougeScore(ref, pred);
      expect(Object.keys(r)).toEqual(['rouge1', 'rouge2', 'rougeL', 'rougeLsum']);
      for (const t of ROUGE_TYPES) expect(r[t]).toEqual({ precision: 1, recall: 1, fmeasure: 1 });
    }
  });

  it('takes the target first: precision is over the prediction, recall over the target', () => {
    const r = rougeScore('Ann will buy milk and bread.', 'Ann buys milk.');
    expectPRF(r.rouge1, 2 / 3, 1 / 3, 4 / 9);
    expectPRF(r.rouge2, 0, 0, 0);
    expectPRF(r.rougeL, 2 / 3, 1 / 3, 4 / 9);
    expectPRF(r.rougeLsum, 2 / 3, 1 / 3, 4 / 9);
    expectPRF(rougeScore('Ann buys milk.', 'Ann will buy milk and bread.', ['rouge1']).rouge1, 1 / 3, 2 / 3, 4 / 9);
  });

  it('clips repeated n-grams to the target count', () => {
    expectPRF(rougeScore('the cat', 'the the the', ['rouge1']).rouge1, 1 / 3, 1 / 2, 0.4);
    expectPRF(rougeScore('a a b', 'a a a b', ['rouge2']).rouge2, 2 / 3, 1, 0.8);
  });

  it('stemming: "testing" vs "tested" match only with the stemmer (both stem to "test")', () => {
    expect(porterStem('testing')).toBe('test');
    expect(porterStem('tested')).toBe('test');
    expectPRF(rougeScore('testing', 'tested', ['rouge1']).rouge1, 0, 0, 0);
    expectPRF(rougeScore('testing', 'tested', ['rouge1'], { stemmer: true }).rouge1, 1, 1, 1);
  });

  it('rougeLsum is summary-level over \\n lines (rouge README "Two flavors of ROUGE-L"); rougeL ignores newlines', () => {
    const r = rougeScore('a b c\nd e', 'd e\na b c');
    expectPRF(r.rougeL, 0.6, 0.6, 0.6);
    expectPRF(r.rougeLsum, 1, 1, 1);
    expectPRF(r.rouge2, 0.75, 0.75, 0.75);
  });

  it('rougeLsum drops empty lines; lines of punctuation only tokenize to nothing (get_sents)', () => {
    const r = rougeScore('w1 w2 w3 w4 w5\n\n', 'w1 w2 w6 w7 w8\n\n--\nw1 w3 w8 w9 w5', ['rougeLsum']);
    expect(r.rougeLsum?.recall).toBe(0.8);
    expect(r.rougeLsum?.precision).toBe(0.4);
  });

  it('rougeFmeasure is 2PR/(P+R) and 0 when both are 0 (scoring.fmeasure)', () => {
    expect(rougeFmeasure(0, 0)).toBe(0);
    expect(rougeFmeasure(1, 1 / 3)).toBe(0.5);
    expect(rougeFmeasure(0.4, 0.8)).toBeCloseTo(0.5333333, 7);
  });
});

const THRESHOLD = (t: Json): ScoreContext => ({ compat: 'strict', options: { threshold: t } });
const REF = (t: Json): ScoreContext => ({ compat: 'reference', options: { threshold: t } });
const GOLD = 'Ann will buy milk and bread.';
const PROMPT =
  "Summarise the Dialogue: 'Maddie: I'm in Asda, do you need anything? John: could do with a white bread and some apples'.\n" +
  "Summary: Maddie will buy a white bread and apples on John's request..\n" +
  "Summarise the Dialogue: 'Ann: I'm going to the shop. Bob: Get milk and bread please.'\nSummary:";

function sample(target: Json = GOLD): Sample {
  return { id: 's1', index: 0, input: { dialogue: "Ann: I'm going to the shop. Bob: Get milk and bread please." }, target };
}
function out(completion: string, promptText = PROMPT): GradedOutput {
  return { promptText, completion, cue: 'Summary:' };
}
function errorOf(f: () => unknown): HptError {
  try {
    f();
  } catch (e) {
    if (e instanceof HptError) return e;
    throw e;
  }
  throw new Error('expected an HptError');
}

describe('RougeScorer (SamSum, hpt.md §3, §4, §9 #7/#8)', () => {
  const scorer = new RougeScorer();

  it('has id rouge', () => {
    expect(scorer.id).toBe('rouge');
  });

  it('requires a threshold (§9 #7): E_CONFIG from prepare() and score()', () => {
    for (const f of [() => scorer.prepare({ compat: 'strict', options: {} }), () => scorer.score(sample(), out('Ann buys milk.'), { compat: 'strict', options: {} })]) {
      const e = errorOf(f);
      expect(e.code).toBe('E_CONFIG');
      expect(e.message).toBe('--threshold is required for this dataset (the paper uses 0.15 and 0.20)');
    }
    expect(errorOf(() => scorer.prepare(THRESHOLD(null))).code).toBe('E_CONFIG');
  });

  it('rejects thresholds outside [0, 1] or non-numeric', () => {
    for (const t of [1.5, -0.1, 'abc', '', true]) {
      const e = errorOf(() => scorer.prepare(THRESHOLD(t)));
      expect(e.code).toBe('E_CONFIG');
      expect(e.message).toBe(`--threshold must be a number from 0 to 1, got ${JSON.stringify(t)}`);
    }
    expect(() => scorer.prepare(THRESHOLD(0.15))).not.toThrow();
    expect(() => scorer.prepare(THRESHOLD('0.2'))).not.toThrow();
  });

  it('strict: drops a leading repeated cue, scores ROUGE-1 F1 of (target, prediction), solved iff >= threshold', () => {
    const v = scorer.score(sample(), out(' Summary: Ann buys milk.\n'), THRESHOLD(0.2));
    expect(v.extracted).toBe('Ann buys milk.');
    expect(v.score).toBeCloseTo(4 / 9, 12);
    expect(v.solved).toBe(true);
    const w = scorer.score(sample(), out('Ann buys milk.'), THRESHOLD(0.45));
    expect(w).toEqual({ solved: false, score: 0.4444444444444444, extracted: 'Ann buys milk.' });
    expect(scorer.score(sample(), out('Ann buys milk.'), THRESHOLD(4 / 9)).solved).toBe(true);
  });

  it('strict: handles markdown around the repeated cue and keeps a later Summary: in the text', () => {
    expect(strictSummary('**Summary:** Ann buys milk.', 'Summary:')).toBe('Ann buys milk.');
    expect(strictSummary('summary: Ann buys milk.', 'Summary:')).toBe('Ann buys milk.');
    expect(strictSummary('Ann buys milk. Summary: x', 'Summary:')).toBe('Ann buys milk. Summary: x');
    expect(strictSummary('  Ann buys milk.  ', '')).toBe('Ann buys milk.');
  });

  it('reference: takes the last Summary: piece of prompt + completion (§4 SamSum)', () => {
    const v = scorer.score(sample(), out(' Ann will buy milk.\nSummary: Ann buys bread.'), REF(0.15));
    expect(v.extracted).toBe('Ann buys bread.');
    expectPRF(rougeScore(GOLD, 'Ann buys bread.', ['rouge1']).rouge1, 2 / 3, 1 / 3, 4 / 9);
    expect(v.score).toBeCloseTo(4 / 9, 12);
    expect(v.solved).toBe(true);
    // The exemplar summaries of a three-shot prompt are before the cue, so they are never picked up.
    const w = scorer.score(sample(), out(' Ann will buy milk and bread.'), REF(0.2));
    expect(w).toEqual({ solved: true, score: 1, extracted: 'Ann will buy milk and bread.' });
    // Case-sensitive: a lower-case "summary:" is not a split point.
    expect(referenceSamsum('x Summary: a summary: b')).toBe('a summary: b');
    expect(referenceSamsum('no cue at all \n')).toBe('no cue at all');
  });

  it('strict vs reference differ when the completion repeats the cue later', () => {
    const completion = 'Ann buys milk.\nSummary: Bob sleeps.';
    expect(scorer.score(sample(), out(completion), THRESHOLD(0.2)).extracted).toBe(completion);
    expect(scorer.score(sample(), out(completion), REF(0.2))).toEqual({ solved: false, score: 0, extracted: 'Bob sleeps.' });
  });

  it('rejects a non-string target with E_DATA', () => {
    expect(errorOf(() => scorer.score(sample(3), out('x'), THRESHOLD(0.2))).code).toBe('E_DATA');
  });

  it('renderTarget is the reference summary and scores 1 in both modes (oracle)', () => {
    const text = scorer.renderTarget(sample());
    expect(text).toBe(GOLD);
    expect(scorer.score(sample(), out(text), THRESHOLD(0.3))).toEqual({ solved: true, score: 1, extracted: GOLD });
    expect(scorer.score(sample(), out(text), REF(0.3))).toEqual({ solved: true, score: 1, extracted: GOLD });
  });

  it('randomAnswer is a seeded shuffle + prefix of the target words', () => {
    const seq = [0.5, 0.1, 0.9, 0.3, 0.7, 0.2];
    let i = 0;
    const random = () => seq[i++ % seq.length] as number;
    expect(scorer.randomAnswer(sample(), random)).toBe('buy will');
    expect(scorer.randomAnswer(sample('   '), () => 0.5)).toBe('');
    expect(scorer.randomAnswer(sample('one'), () => 0.99)).toBe('one');
  });

  it('aggregator: plain means of the four F-measures over all added predictions (§9 #8)', () => {
    const agg = scorer.createAggregator();
    expect(agg.result()).toEqual({ rouge1: null, rouge2: null, rougeL: null, rougeLsum: null });
    agg.add(sample('testing one two'), 'testing one', false); // F: rouge1 0.8, rouge2 2/3, rougeL 0.8, rougeLsum 0.8
    agg.add(sample('testing one two'), '', false); // all 0
    const r = agg.result();
    expect(Object.keys(r)).toEqual(['rouge1', 'rouge2', 'rougeL', 'rougeLsum']);
    expect(r.rouge1 as number).toBeCloseTo(0.4, 12);
    expect(r.rouge2 as number).toBeCloseTo(1 / 3, 12);
    expect(r.rougeL as number).toBeCloseTo(0.4, 12);
    expect(r.rougeLsum as number).toBeCloseTo(0.4, 12);
    agg.add(sample('a b c\nd e'), 'd e\na b c', false); // rouge1 1, rouge2 0.75, rougeL 0.6, rougeLsum 1
    agg.add(sample('x'), null, false); // null prediction counts as '' => 0
    const s = agg.result();
    expect(s.rouge1 as number).toBeCloseTo(1.8 / 4, 12);
    expect(s.rouge2 as number).toBeCloseTo((2 / 3 + 0.75) / 4, 12);
    expect(s.rougeL as number).toBeCloseTo(1.4 / 4, 12);
    expect(s.rougeLsum as number).toBeCloseTo(1.8 / 4, 12);
  });

  it('aggregator reproduces the HF evaluate docstring example (identical pairs => 1.0)', () => {
    const agg = scorer.createAggregator();
    agg.add(sample('hello there'), 'hello there', false);
    agg.add(sample('general kenobi'), 'general kenobi', false);
    expect(agg.result()).toEqual({ rouge1: 1, rouge2: 1, rougeL: 1, rougeLsum: 1 });
  });
});
