/**
 * The Porter stemmer exactly as NLTK's `nltk.stem.porter.PorterStemmer()` behaves in its default mode
 * `NLTK_EXTENSIONS`, which is what Google's `rouge_score` uses when `use_stemmer=True` (specs/hpt.md §3 "ROUGE"; the
 * hpt-bench default is no stemmer, so this only serves `rougeScore(..., { stemmer: true })`).
 *
 * Reference: M. Porter, "An algorithm for suffix stripping", Program 14.3 (1980) 130-137, with the NLTK departures:
 * - a table of irregular forms (`skies` ⇒ `sky`, `dying` ⇒ `die`, `news`, `proceed`, ...) bypasses the algorithm;
 * - words of 1 or 2 characters are returned unchanged (lower-cased);
 * - step 1a maps a 4-letter `-ies` word to `-ie` (`dies` ⇒ `die`); step 1b maps `-ied` to `-ie` (4 letters) or `-i`;
 * - the `*o` (cvc) test also accepts a 2-letter vowel-consonant stem;
 * - step 1c turns a final `y` into `i` only after a consonant that is not the first letter (`happy` ⇒ `happi`,
 *   `enjoy` ⇒ `enjoy`, `by` stays);
 * - step 2 tries `-alli` ⇒ `-al` first and re-runs step 2 on the result; `-bli` ⇒ `-ble` (instead of `-abli`);
 *   adds `-fulli` ⇒ `-ful` and `-logi` ⇒ `-log` (measure taken on the stem including the `l`).
 *
 * Rule lists use Porter's "first matching suffix decides" convention: when the longest listed suffix that matches
 * fails its condition, no later rule of that step is tried.
 */

/** NLTK's irregular forms (word ⇒ stem), applied before the algorithm. A Map, so `constructor` etc. are not keys. */
const IRREGULAR = new Map<string, string>([
  ['sky', 'sky'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['news', 'news'],
  ['innings', 'inning'],
  ['inning', 'inning'],
  ['outings', 'outing'],
  ['outing', 'outing'],
  ['cannings', 'canning'],
  ['canning', 'canning'],
  ['howe', 'howe'],
  ['proceed', 'proceed'],
  ['exceed', 'exceed'],
  ['succeed', 'succeed'],
]);

const A = 97;
const E = 101;
const I = 105;
const O = 111;
const U = 117;
const Y = 121;

/**
 * Whether `w[i]` is a consonant in Porter's sense: not a, e, i, o, u, and `y` only when it starts the word or
 * follows a vowel (so in `toy` the consonants are t and y, in `syzygy` s, z and g).
 */
function isConsonant(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  if (c === A || c === E || c === I || c === O || c === U) return false;
  if (c === Y) return i === 0 ? true : !isConsonant(w, i - 1);
  return true;
}

/** Porter's measure m of `stem` written as [C](VC)^m[V]: the number of vowel-to-consonant transitions. */
function measure(stem: string): number {
  let m = 0;
  let prevVowel = false;
  for (let i = 0; i < stem.length; i++) {
    const cons = isConsonant(stem, i);
    if (cons && prevVowel) m++;
    prevVowel = !cons;
  }
  return m;
}

/** `*v*`: the stem contains a vowel. */
function containsVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

/** `*d`: the word ends with a double consonant. */
function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w.charCodeAt(n - 1) === w.charCodeAt(n - 2) && isConsonant(w, n - 1);
}

/** `*o` (NLTK form): the word ends consonant-vowel-consonant with the last not w, x or y, or is exactly vowel-consonant. */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n >= 3) {
    const last = w[n - 1] as string;
    if (isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && last !== 'w' && last !== 'x' && last !== 'y') {
      return true;
    }
  }
  return n === 2 && !isConsonant(w, 0) && isConsonant(w, 1);
}

/** A suffix rule: replace `suffix` by `replacement` when `when(stem)` holds (stem = word without the suffix). */
type Rule = readonly [suffix: string, replacement: string, when: ((stem: string) => boolean) | null];

const mGt0 = (stem: string): boolean => measure(stem) > 0;
const mGt1 = (stem: string): boolean => measure(stem) > 1;

/**
 * Applies the first rule whose suffix ends `word`. If its condition fails the word is returned unchanged and no
 * later rule is tried.
 */
function applyRules(word: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, when] of rules) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, word.length - suffix.length);
    return when === null || when(stem) ? stem + replacement : word;
  }
  return word;
}

const STEP1A: readonly Rule[] = [
  ['sses', 'ss', null],
  ['ies', 'i', null],
  ['ss', 'ss', null],
  ['s', '', null],
];

/** Step 1a: plurals (`caresses` ⇒ `caress`, `ponies` ⇒ `poni`, `cats` ⇒ `cat`; NLTK: `dies` ⇒ `die`). */
function step1a(w: string): string {
  if (w.length === 4 && w.endsWith('ies')) return w.slice(0, 1) + 'ie';
  return applyRules(w, STEP1A);
}

/** Step 1b: `-eed`, `-ed`, `-ing` (`agreed` ⇒ `agree`, `plastered` ⇒ `plaster`, `hopping` ⇒ `hop`, `filing` ⇒ `file`). */
function step1b(w: string): string {
  if (w.endsWith('ied')) return w.length === 4 ? w.slice(0, 1) + 'ie' : w.slice(0, -3) + 'i';
  if (w.endsWith('eed')) {
    const stem = w.slice(0, -3);
    return measure(stem) > 0 ? stem + 'ee' : w;
  }
  let s: string | null = null;
  if (w.endsWith('ed') && containsVowel(w.slice(0, -2))) s = w.slice(0, -2);
  else if (w.endsWith('ing') && containsVowel(w.slice(0, -3))) s = w.slice(0, -3);
  if (s === null) return w;
  if (s.endsWith('at') || s.endsWith('bl') || s.endsWith('iz')) return s + 'e';
  if (endsDoubleConsonant(s)) {
    const last = s[s.length - 1];
    return last === 'l' || last === 's' || last === 'z' ? s : s.slice(0, -1);
  }
  return measure(s) === 1 && endsCvc(s) ? s + 'e' : s;
}

/** Step 1c (NLTK): final `y` ⇒ `i` when preceded by a consonant that is not the word's only letter. */
function step1c(w: string): string {
  if (!w.endsWith('y')) return w;
  const stem = w.slice(0, -1);
  return stem.length > 1 && isConsonant(stem, stem.length - 1) ? stem + 'i' : w;
}

const STEP2: readonly Rule[] = [
  ['ational', 'ate', mGt0],
  ['tional', 'tion', mGt0],
  ['enci', 'ence', mGt0],
  ['anci', 'ance', mGt0],
  ['izer', 'ize', mGt0],
  ['bli', 'ble', mGt0],
  ['alli', 'al', mGt0],
  ['entli', 'ent', mGt0],
  ['eli', 'e', mGt0],
  ['ousli', 'ous', mGt0],
  ['ization', 'ize', mGt0],
  ['ation', 'ate', mGt0],
  ['ator', 'ate', mGt0],
  ['alism', 'al', mGt0],
  ['iveness', 'ive', mGt0],
  ['fulness', 'ful', mGt0],
  ['ousness', 'ous', mGt0],
  ['aliti', 'al', mGt0],
  ['iviti', 'ive', mGt0],
  ['biliti', 'ble', mGt0],
  ['fulli', 'ful', mGt0],
  // `logi` ⇒ `log`, the measure taken on the stem plus its `l` (so `geologi`, `theologi` reduce too).
  ['logi', 'log', (stem) => measure(stem + 'l') > 0],
];

/** Step 2: double suffixes to single ones when m > 0 (`relational` ⇒ `relate`, `hopefulness` ⇒ `hopeful`). */
function step2(w: string): string {
  if (w.endsWith('alli') && measure(w.slice(0, -4)) > 0) return step2(w.slice(0, -4) + 'al');
  return applyRules(w, STEP2);
}

const STEP3: readonly Rule[] = [
  ['icate', 'ic', mGt0],
  ['ative', '', mGt0],
  ['alize', 'al', mGt0],
  ['iciti', 'ic', mGt0],
  ['ical', 'ic', mGt0],
  ['ful', '', mGt0],
  ['ness', '', mGt0],
];

const STEP4: readonly Rule[] = [
  ['al', '', mGt1],
  ['ance', '', mGt1],
  ['ence', '', mGt1],
  ['er', '', mGt1],
  ['ic', '', mGt1],
  ['able', '', mGt1],
  ['ible', '', mGt1],
  ['ant', '', mGt1],
  ['ement', '', mGt1],
  ['ment', '', mGt1],
  ['ent', '', mGt1],
  ['ion', '', (stem) => measure(stem) > 1 && (stem.endsWith('s') || stem.endsWith('t'))],
  ['ou', '', mGt1],
  ['ism', '', mGt1],
  ['ate', '', mGt1],
  ['iti', '', mGt1],
  ['ous', '', mGt1],
  ['ive', '', mGt1],
  ['ize', '', mGt1],
];

/** Step 5a: drop a final `e` when m > 1, or m = 1 and the stem does not end cvc (`probate` ⇒ `probat`, `rate` stays). */
function step5a(w: string): string {
  if (!w.endsWith('e')) return w;
  const stem = w.slice(0, -1);
  const m = measure(stem);
  return m > 1 || (m === 1 && !endsCvc(stem)) ? stem : w;
}

/** Step 5b: `-ll` ⇒ `-l` when m > 1 (`controll` ⇒ `control`, `roll` stays). */
function step5b(w: string): string {
  return w.endsWith('ll') && measure(w.slice(0, -1)) > 1 ? w.slice(0, -1) : w;
}

/**
 * Stems one word like NLTK's `PorterStemmer().stem(word)` (mode `NLTK_EXTENSIONS`, `to_lowercase=True`).
 * Input: one word; ROUGE passes lower-case `[a-z0-9]+` tokens longer than 3 characters. Output: the lower-cased stem.
 * Examples (NLTK `stem.doctest`): `caresses` ⇒ `caress`, `flies` ⇒ `fli`, `dies` ⇒ `die`, `agreed` ⇒ `agre`,
 * `sized` ⇒ `size`, `itemization` ⇒ `item`, `sensational` ⇒ `sensat`, `plotted` ⇒ `plot`.
 * Like NLTK, the irregular-form table is consulted with the word as given (so `Sky` is stemmed to `ski`, `sky` stays),
 * and a word of at most 2 characters is only lower-cased. Characters are UTF-16 code units (equal to Python's code
 * points for the ASCII tokens ROUGE produces); anything that is not a, e, i, o, u or y counts as a consonant.
 * Never throws.
 */
export function porterStem(word: string): string {
  const lower = word.toLowerCase();
  const irregular = IRREGULAR.get(word);
  if (irregular !== undefined) return irregular;
  if (word.length <= 2) return lower;
  let w = step1a(lower);
  w = step1b(w);
  w = step1c(w);
  w = step2(w);
  w = applyRules(w, STEP3);
  w = applyRules(w, STEP4);
  w = step5a(w);
  return step5b(w);
}
