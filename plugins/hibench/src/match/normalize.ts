/**
 * HiBench answer normalisation (specs/hibench.md §4.2, the toolkit's `refine_string`) and the strict-mode helpers
 * built on it (§7 recs 5–7, 15).
 */
import { PY_S, pyStrip } from '@hpt-bench/sdk';

const PY_WS_RUN = new RegExp(`${PY_S}+`, 'gu');
const NOT_KEPT = /[^a-zA-Z0-9 ,]/g;

/**
 * The toolkit's `refine_string` (§4.2), in this order: lower-case; strip (Python whitespace); collapse every
 * whitespace run to one space; delete every character that is not an ASCII letter, digit, space or comma; strip
 * leading/trailing `'` then `"`. The collapse happens before the deletion, so "a → b" becomes "a  b" (two spaces),
 * "a->b" becomes "ab", and a value like `' x '` keeps its inner spaces (" x ").
 * Examples: `"'Hello World'"` → "hello world"; `"-3.5"` → "35"; `"[3, 2, 0, 1]"` → "3, 2, 0, 1".
 */
export function refineString(s: string): string {
  let out = s.toLowerCase();
  out = pyStrip(out);
  out = out.replace(PY_WS_RUN, ' ');
  out = out.replace(NOT_KEPT, '');
  out = stripChars(out, "'");
  out = stripChars(out, '"');
  return out;
}

/** Python's `str.strip(chars)` for a set of characters. */
function stripChars(s: string, chars: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && chars.includes(s[start]!)) start++;
  while (end > start && chars.includes(s[end - 1]!)) end--;
  return s.slice(start, end);
}

/**
 * The strict normal form of a label, name or list item (§7 recs 5, 6, 15): `refineString`, then whitespace runs
 * collapsed to one space and trimmed (so spacing and punctuation never matter, letters/digits do).
 * Examples: `" Faculty of  Science. "` → "faculty of science"; `"True"` → "true"; `"O(n log n)"` → "on log n".
 */
export function strictNorm(s: string): string {
  return refineString(s).replace(/ +/g, ' ').trim();
}

/** Python's `re.sub(r'\s+', '', s)`: every (Python) whitespace character removed. */
export function removeWhitespace(s: string): string {
  return s.replace(PY_WS_RUN, '');
}

/** Python's `re.sub(r'\D', '', s)` on refined (ASCII) text: only the ASCII digits kept. */
export function digitsOnly(s: string): string {
  return s.replace(/[^0-9]/g, '');
}
