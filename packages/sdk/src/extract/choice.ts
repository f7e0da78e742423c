/**
 * Multiple-choice answers (CSQA, MMLU, MMLU-Pro: 2–26 option letters; issue #23, replacing hpt.md §9 #14's "first
 * token").
 */
import { blankMath, findMarkers, type Marker, markerAnswer, type Region, replyEnd, replyStart, sentenceEnd, sentences } from './scan.js';
import type { ExtractOptions, Extraction } from './types.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Options of `extractChoice`.
 * - `letters`: the number of options (2–26; letters A.. in order); a letter past them is no answer;
 * - `options`: the options' texts in letter order, when known: an answer that names an option by its text ("homes",
 *   "LIFO memory") is read as its letter.
 */
export interface ChoiceOptions extends ExtractOptions {
  letters: number;
  options?: readonly string[];
}

/** A word character follows: a letter or digit, or `-`/`'` and a letter ("A-list", "B's" is still B). */
const WORD_FOLLOWS_RE = /^(?:[\p{L}\p{N}_]|-\p{L})/u;

/** Text as compared with option texts: lower case, runs of non-alphanumerics as one space, trimmed. */
function norm(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The normalised option texts of `o` within its letters, computed once per options object. */
const NORMED = new WeakMap<readonly string[], string[]>();
function normOptions(o: ChoiceOptions): string[] {
  if (!o.options || o.options.length === 0) return [];
  let texts = NORMED.get(o.options);
  if (texts === undefined) {
    texts = o.options.map(norm);
    NORMED.set(o.options, texts);
  }
  return texts.slice(0, o.letters);
}

/** A letter read from the reply: the letter, its `[start, end)`, and whether an option's text named it. */
interface LetterHit {
  letter: string;
  start: number;
  end: number;
  byText: boolean;
}

/**
 * The option whose text `s` (a stretch of the reply) names, or null: the option texts found in `s` as whole words
 * (normalised); the one found first wins, the longer on a tie ("homes" over "home"); none when no text is found or
 * the options are unknown. Texts shorter than 2 characters are never matched.
 */
function optionByText(text: string, r: Region, o: ChoiceOptions): LetterHit | null {
  const texts = normOptions(o);
  if (texts.length === 0) return null;
  const s = ` ${norm(text.slice(r.start, r.end))} `;
  let best: { i: number; at: number; len: number } | null = null;
  for (const [i, t] of texts.entries()) {
    if (t.length < 2) continue;
    const at = s.indexOf(` ${t} `);
    if (at < 0) continue;
    if (best === null || at < best.at || (at === best.at && t.length > best.len)) best = { i, at, len: t.length };
  }
  if (best === null) return null;
  return { letter: LETTERS[best.i] as string, start: r.start, end: r.end, byText: true };
}

/**
 * The letter at the start of `text[from..end)` in the answer position: an optional `(`/`[` and emphasis, the letter,
 * then a closing bracket or punctuation or the end, or a space and more text. Upper case is read as written; lower
 * case only with brackets or `)`/`.`/`:` after it ("a)" but not "a toy"). `article`: an upper-case `A` or `I`
 * followed by a word is an article or a pronoun ("A toy car is ...", "I think ..."), not an option, unless the words
 * after it are that option's text.
 */
function leadingLetter(text: string, from: number, end: number, o: ChoiceOptions, article: boolean): LetterHit | null {
  let at = from;
  const word = /^(?:option|choice|letter)\s+/iu.exec(text.slice(at, end));
  if (word) at += word[0].length;
  const m = /^([([]\s*)?(?:\*\*|__)?\s*([A-Za-z])(?:\*\*|__)?(\s*[)\]])?/du.exec(text.slice(at, end));
  if (m === null) return null;
  const letter = m[2] as string;
  const after = text.slice(at + m[0].length, end);
  if (WORD_FOLLOWS_RE.test(after)) return null;
  const bracketed = m[1] !== undefined || m[3] !== undefined;
  const upper = letter.toUpperCase();
  if (LETTERS.indexOf(upper) >= o.letters) return null;
  const pos = at + (m.indices as RegExpIndicesArray)[2]![0];
  const hit = { letter: upper, start: pos, end: pos + 1, byText: false };
  if (bracketed) return hit;
  if (letter !== upper) return /^[.:)]/u.test(after) || after.trim() === '' ? hit : null;
  if (article && (upper === 'A' || upper === 'I') && /^\s+\p{L}/u.test(after)) {
    const opt = o.options?.[LETTERS.indexOf(upper)];
    if (opt === undefined || !` ${norm(after)} `.startsWith(` ${norm(opt)} `) || norm(opt) === '') return null;
  }
  return hit;
}

/** Words just before a letter that rule it out: "not (A)", "rather than option D", "isn't C", "instead of B". */
const NEGATED_RE = /(?:\bnot|\bthan|n't|\binstead of|\bexcept)\s+(?:(?:option|choice|answer)\s+)?\(?$/iu;

/** Candidates in a final sentence: `(B)`, "option B", or a bare capital letter that is not the article/pronoun. */
const SENTENCE_LETTER_RE = /(?<![\p{L}\p{N}'’_\\{$^-])(?:\(([A-Z])\)|(?:option|choice|letter)\s+\(?([A-Za-z])\)?|([A-Z]))(?![\p{L}\p{N}_]|['’]\p{L}|-\p{L})/gu;

/**
 * The letter the last sentence states: the last candidate letter in it (`SENTENCE_LETTER_RE`) within the letters; a
 * bare `A`/`I` counts only when punctuation or the sentence end follows it (not "A fox would ..."). When it has no
 * letter, the option text it names. A letter ruled out by the words before it ("not A", "rather than D") is passed
 * over. Math (`$...$`, `\\(...\\)`) is set aside: `\\mathrm{J}` names no option.
 */
function sentenceLetter(text: string, s: Region, o: ChoiceOptions): LetterHit | null {
  const part = blankMath(text, s);
  let last: LetterHit | null = null;
  for (const m of part.matchAll(SENTENCE_LETTER_RE)) {
    const letter = ((m[1] ?? m[2] ?? m[3]) as string).toUpperCase();
    if (LETTERS.indexOf(letter) >= o.letters) continue;
    const at = s.start + (m.index as number) + m[0].lastIndexOf((m[1] ?? m[2] ?? m[3]) as string);
    if (m[3] !== undefined && (letter === 'A' || letter === 'I')) {
      const after = text.slice(at + 1, s.end);
      if (!/^\s*(?:[.,:;)!?]|$)/u.test(after)) continue;
    }
    // a letter the sentence rules out is not its answer ("B is correct, not A"; "C rather than D")
    if (NEGATED_RE.test(text.slice(Math.max(s.start, at - 24), at))) continue;
    last = { letter, start: at, end: at + 1, byText: false };
  }
  return last ?? optionByText(text, s, o);
}

/** A hit as an `Extraction`, its rule suffixed `+option-text` when the option's text named it. */
function result(hit: LetterHit, rule: string): Extraction<string> {
  return { value: hit.letter, rule: hit.byText ? `${rule}+option-text` : rule, span: [hit.start, hit.end] };
}

/**
 * Extracts an option letter from a model's reply, by an ordered cascade (the first rule that reads a letter wins):
 * 1. explicit final-answer markers ("The answer is (B).", "the correct option is C", "Answer: B", "**FINAL ANSWER:
 *    D**", `\boxed{B}`, a JSON `"answer"` field, a wholly bold line starting with the letter), the LAST one in the
 *    reply that holds a letter in the answer position (after the marker; `A` counts here even before a word) or an
 *    option's text; the last JSON field, `\boxed{}` or "Final answer:" is decisive ("Answer: None of the above" after
 *    "Final answer:" is no answer);
 * 2. `answer-first`: the reply starts with the letter ("B", "(B)", "**B.**", "B) library", "B bookstore"), where an
 *    `A`/`I` followed by a word is the article or pronoun, not an option, unless that word starts option A's/I's text;
 *    or with an option's text followed by punctuation or the end ("Homes.");
 * 3. `final-sentence`: the last letter stated in the reply's last sentence ("most likely B, homes.") or, without one,
 *    the option text it names.
 * The reply is read up to where the model starts a new turn. Returns the upper-case letter, or null.
 */
export function extractChoice(completion: string, options: ChoiceOptions): Extraction<string> | null {
  const text = completion.slice(0, replyEnd(completion));
  const read = (marker: Marker, region: Region): LetterHit | null => {
    const hit = leadingLetter(text, skipChoiceNoise(text, region.start, region.end), region.end, options, false);
    if (hit !== null || marker.rule === 'bold') return hit;
    return optionByText(text, region, options);
  };
  const stated = markerAnswer(text, findMarkers(text, true), read, (a, b) => a.letter === b.letter);
  if (stated === 'none') return null;
  if (stated !== null) return result(stated.hit, stated.marker.rule);
  const start = replyStart(text, options.cue);
  const first = leadingLetter(text, start, text.length, options, true);
  if (first !== null) return result(first, 'answer-first');
  const firstSentence = sentences(text, start, sentenceEnd(text, start))[0];
  if (firstSentence !== undefined && options.options) {
    const byText = optionByText(text, firstSentence, options);
    const whole = byText !== null && norm(text.slice(firstSentence.start, firstSentence.end)) === norm(options.options[LETTERS.indexOf(byText.letter)] ?? '');
    if (whole) return result(byText as LetterHit, 'answer-first');
  }
  const all = sentences(text);
  const last = all[all.length - 1];
  if (last === undefined) return null;
  const hit = sentenceLetter(text, last, options);
  return hit === null ? null : result(hit, 'final-sentence');
}

/** Skips noise before a marker's answer: emphasis, quotes, `:`, `-`, whitespace. */
function skipChoiceNoise(text: string, from: number, end: number): number {
  const m = /^[\s*_`"'“”‘’:=–—-]+/u.exec(text.slice(from, end));
  return from + (m ? m[0].length : 0);
}
