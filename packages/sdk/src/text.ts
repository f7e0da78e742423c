/**
 * Python-compatible text primitives shared by scorers that port a Python reference implementation (hpt.md §4, the
 * authors' `utils/postprocess.py`; hibench.md §4.1, the toolkit's `_extract_answer`): Python's whitespace set as used
 * by `str.isspace()`, `str.strip()` and the `re` class `\s` on str patterns. JavaScript's `trim()` and `\s` differ: they
 * omit U+001C–U+001F and U+0085 and add U+FEFF.
 */

/** Body of a regex character class matching one Python whitespace character; for use inside `[...]` with the `u` flag. */
export const PY_WS_CLASS_BODY = '\\t\\n\\u000b\\f\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

/** Regex source matching one Python `\s` character (use with the `u` flag). */
export const PY_S = `[${PY_WS_CLASS_BODY}]`;

/** True for a UTF-16 code unit Python's `str.isspace()` accepts (exactly the set of `PY_WS_CLASS_BODY`). */
export function isPyWhitespace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13) || c >= 28;
  if (c < 0x85) return false;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** Python's `str.strip()` with no argument: removes leading and trailing Python whitespace (`isPyWhitespace`). */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isPyWhitespace(s.charCodeAt(start))) start++;
  while (end > start && isPyWhitespace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

/** `s` with every regular-expression metacharacter escaped, for use as a literal inside `new RegExp(...)`. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}
