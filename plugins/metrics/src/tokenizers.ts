/**
 * BLEU tokenizers, re-implemented from sacreBLEU 2.x (`sacrebleu/tokenizers/tokenizer_13a.py`, `tokenizer_re.py`,
 * `tokenizer_intl.py`, `tokenizer_char.py`, `tokenizer_none.py`) with Python semantics: regexes work on code points
 * and the final split is Python's `str.split()` (runs of any character `str.isspace()` accepts, see
 * `PY_WS_CLASS_BODY` in parse-util.ts). Used by the BLEU metrics in `bleu.ts` (specs/hpt.md §3 "BLEU").
 *
 * Every tokenizer comes in two forms: `tokenizeX(line)` returns the tokenized line as sacreBLEU does (tokens joined
 * by single spaces), `tokensX(line)` returns the token array the n-gram counter uses (`tokenizeX(line).split(' ')`
 * without the empty-string case).
 */

/** A tokenizer name accepted by the BLEU functions. */
export type BleuTokenizerName = '13a' | 'none' | 'intl' | 'char';

/** The tokenizer names accepted by the BLEU functions. */
export const BLEU_TOKENIZERS: readonly BleuTokenizerName[] = ['13a', 'none', 'intl', 'char'];


import { isPyWhitespace } from '@hpt-bench/sdk';

/**
 * Python's `str.split()` with no argument: the maximal runs of non-whitespace (Python's `isspace()` set), in order.
 * `''` and all-whitespace strings give `[]`.
 */
export function pySplit(s: string): string[] {
  const out: string[] = [];
  const n = s.length;
  let start = -1;
  for (let i = 0; i < n; i++) {
    if (isPyWhitespace(s.charCodeAt(i))) {
      if (start >= 0) {
        out.push(s.slice(start, i));
        start = -1;
      }
    } else if (start < 0) {
      start = i;
    }
  }
  if (start >= 0) out.push(start === 0 ? s : s.slice(start));
  return out;
}

/** Python's `str.rstrip()` with no argument (removes trailing Python whitespace). */
export function pyRstrip(s: string): string {
  let end = s.length;
  while (end > 0 && isPyWhitespace(s.charCodeAt(end - 1))) end--;
  return end === s.length ? s : s.slice(0, end);
}

// sacreBLEU's `TokenizerRegexp` (tokenizer_re.py) runs four regex substitutions over the space-padded line:
//   1. `([\{-\~\[-\` -\&\(-\+\:-\@\/])` -> ` \1 `  (spaces around {|}~ [\]^_` space!"#$%& ()*+ :;<=>?@ /)
//   2. `([^0-9])([\.,])`                      -> `\1 \2 ` (period/comma after a non-digit)
//   3. `([\.,])([^0-9])`                      -> ` \1 \2` (period/comma before a non-digit)
//   4. `([0-9])(-)`                           -> `\1 \2 ` (dash after a digit)
// then splits on whitespace. Each substitution only inserts spaces, and whitespace (original or inserted) is a
// non-digit that is neither `.`, `,` nor `-` (step 1 pads a space with spaces, which changes nothing), so it behaves
// exactly like the padding: the result is the same as (a) splitting the line on whitespace into words, (b) splitting
// each word around its step-1 characters (each becomes a token), and (c) running steps 2–4 on each remaining piece
// padded with one space on each side. A piece without `.`, `,` or `-` is returned whole. test/metrics/bleu.test.ts
// checks this against a literal transcription of the four substitutions on random text.

// ASCII character classes of the scanner: 0 other, 1 a step-1 character (space excluded: it is a separator), 2 one of
// `.` `,` `-`, 3 whitespace.
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if ((c >= 0x21 && c <= 0x26) || (c >= 0x28 && c <= 0x2b) || c === 0x2f || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e)) {
    ASCII_CLASS[c] = 1;
  } else if (c === 0x2c || c === 0x2d || c === 0x2e) {
    ASCII_CLASS[c] = 2;
  } else if (isPyWhitespace(c)) {
    ASCII_CLASS[c] = 3;
  }
}

// Steps 2–4, left to right and non-overlapping like Python's re.sub. No `u` flag needed: the classes are ASCII, and a
// surrogate half matched by `[^0-9]` yields the same output as the whole code point would.
const RE_PERIOD_COMMA_AFTER_NON_DIGIT = /([^0-9])([.,])/g;
const RE_PERIOD_COMMA_BEFORE_NON_DIGIT = /([.,])([^0-9])/g;
const RE_DASH_AFTER_DIGIT = /([0-9])(-)/g;
const RE_PERIOD_COMMA = /[.,]/;
const RE_DIGIT_DASH = /[0-9]-/;

/**
 * Steps 2–4 on one piece (no whitespace, no step-1 character), pushing its tokens onto `out`. `special`: the piece
 * contains `.`, `,` or `-` (otherwise it is one token).
 */
function pushPiece(piece: string, special: boolean, out: string[]): void {
  if (!special) {
    out.push(piece);
    return;
  }
  const n = piece.length;
  const last = piece.charCodeAt(n - 1);
  const head = piece.slice(0, n - 1);
  if ((last === 0x2e || last === 0x2c) && !/[.,-]/.test(head)) {
    // `word.` / `3,` / `.`: the final period/comma is followed by the padding (a non-digit), so step 3 splits it off
    // whatever precedes it; nothing else in the piece can match.
    if (n > 1) out.push(head);
    out.push(piece[n - 1] as string);
    return;
  }
  if (!RE_PERIOD_COMMA.test(piece) && !RE_DIGIT_DASH.test(piece)) {
    // Only dashes, none after a digit (`week-end`): no step applies.
    out.push(piece);
    return;
  }
  const s = ` ${piece} `
    .replace(RE_PERIOD_COMMA_AFTER_NON_DIGIT, '$1 $2 ')
    .replace(RE_PERIOD_COMMA_BEFORE_NON_DIGIT, ' $1 $2')
    .replace(RE_DASH_AFTER_DIGIT, '$1 $2 ');
  for (const t of s.split(' ')) if (t !== '') out.push(t);
}

/** sacreBLEU's `TokenizerRegexp` on a line (padding implied) as a token array: one scan (see the comment above). */
function regexpTokens(line: string): string[] {
  const out: string[] = [];
  const n = line.length;
  let start = -1;
  let special = false;
  for (let i = 0; i < n; i++) {
    const c = line.charCodeAt(i);
    const cls = c < 128 ? (ASCII_CLASS[c] as number) : isPyWhitespace(c) ? 3 : 0;
    if (cls === 0) {
      if (start < 0) start = i;
    } else if (cls === 2) {
      if (start < 0) start = i;
      special = true;
    } else {
      if (start >= 0) {
        pushPiece(line.slice(start, i), special, out);
        start = -1;
        special = false;
      }
      if (cls === 1) out.push(line[i] as string);
    }
  }
  if (start >= 0) pushPiece(start === 0 ? line : line.slice(start), special, out);
  return out;
}

/** The language-independent part of mteval-v13a: `<skipped>` removed, `-\n` joined, newlines to spaces, 4 entities. */
function mtevalNormalize(line: string): string {
  let s = line;
  if (s.includes('<skipped>')) s = s.replaceAll('<skipped>', '');
  if (s.includes('\n')) s = s.replaceAll('-\n', '').replaceAll('\n', ' ');
  if (s.includes('&')) {
    s = s.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
  }
  return s;
}

/**
 * Tokens of the mteval-v13a tokenizer as sacreBLEU 2.x implements it (`Tokenizer13a`), which is also the tokenizer of
 * HF `evaluate`'s `bleu` (it returns this token list). Steps, in order:
 * 1. remove every `<skipped>`; replace every `-\n` by nothing, then every `\n` by a space;
 * 2. unescape `&quot;` `&amp;` `&lt;` `&gt;` (in that order, so `&amp;lt;` becomes `<`);
 * 3. pad the line with one space on each side, then: put spaces around each of ``{|}~[\]^_` !"#$%&()*+:;<=>?@/``;
 *    split `.`/`,` from a preceding non-digit, then from a following non-digit; split `-` from a preceding digit
 *    (each step left-to-right and non-overlapping, so `3.5` and `1,000` stay whole, `U.S.` gives `U` `.` `S` `.`);
 * 4. split on Python whitespace. Apostrophes and hyphens between letters are kept (`aujourd'hui`, `week-end`).
 * Case is preserved.
 */
export function tokens13a(line: string): string[] {
  return regexpTokens(mtevalNormalize(line));
}

/** `tokens13a(line)` joined with single spaces: the string sacreBLEU's `Tokenizer13a` returns. */
export function tokenize13a(line: string): string {
  return tokens13a(line).join(' ');
}

/** Tokens of sacreBLEU's `none` tokenizer: the line unchanged, split on Python whitespace. */
export function tokensNone(line: string): string[] {
  return pySplit(line);
}

/**
 * sacreBLEU's `none` tokenizer: returns the line unchanged (BLEU then splits it on Python whitespace, see
 * `tokensNone`).
 */
export function tokenizeNone(line: string): string {
  return line;
}

const RE_INTL_1 = /(\P{N})(\p{P})/gu;
const RE_INTL_2 = /(\p{P})(\P{N})/gu;
const RE_INTL_3 = /(\p{S})/gu;

/**
 * Tokens of sacreBLEU's `intl` tokenizer (mteval-v14 international tokenization): split a punctuation character
 * (Unicode category P) from a preceding non-number, then from a following non-number, put spaces around every symbol
 * (category S), split on Python whitespace. No padding, so a number followed by a final period stays one token
 * (`2017.`), as in mteval-v14. Category tables are V8's (may differ from Python `regex`'s Unicode version on new
 * characters).
 */
export function tokensIntl(line: string): string[] {
  return pySplit(line.replace(RE_INTL_1, '$1 $2 ').replace(RE_INTL_2, ' $1 $2').replace(RE_INTL_3, ' $1 '));
}

/** `tokensIntl(line)` joined with single spaces: the string sacreBLEU's `TokenizerV14International` returns. */
export function tokenizeIntl(line: string): string {
  return tokensIntl(line).join(' ');
}

/** Tokens of sacreBLEU's `char` tokenizer: every non-whitespace code point is a token. */
export function tokensChar(line: string): string[] {
  const out: string[] = [];
  for (const ch of line) if (!(ch.length === 1 && isPyWhitespace(ch.charCodeAt(0)))) out.push(ch);
  return out;
}

/** sacreBLEU's `char` tokenizer: the code points of the line joined by single spaces. */
export function tokenizeChar(line: string): string {
  return Array.from(line).join(' ');
}

/** The token-array function of a tokenizer name (see `BleuTokenizerName`). */
export function tokenizerTokens(name: BleuTokenizerName): (line: string) => string[] {
  switch (name) {
    case '13a':
      return tokens13a;
    case 'none':
      return tokensNone;
    case 'intl':
      return tokensIntl;
    case 'char':
      return tokensChar;
  }
}
