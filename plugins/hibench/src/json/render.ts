/**
 * Renderings of a JSON document into the prompt (specs/hibench.md §3.3 "Rendering into the prompt"; §7 rec. 13):
 * strict = Python's `json.dumps(doc)` (default separators `", "` and `": "`, `ensure_ascii=True`); compat = the
 * toolkit's `str(parsed_json)`, i.e. a Python dict repr with single quotes.
 *
 * Numbers: integral values print as Python ints (JSON integers load as `int` in Python), other values as Python's
 * float repr (shortest round-trip digits, exponent form when the decimal exponent is < -4 or >= 16, e.g. `1e-05`,
 * `1e+16`, `0.0001`, `1.5`). Non-finite numbers cannot occur in `Json`.
 */
import type { Json } from '@hpt-bench/sdk';

/** Python's `repr(float)` of a finite non-integral (or huge) number. */
function pyFloatRepr(n: number): string {
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const sign = n < 0 ? '-' : '';
  const [mant, expStr] = Math.abs(n).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const decpt = Number(expStr) + 1; // value = 0.<digits> x 10^decpt
  if (decpt <= -4 || decpt > 16) {
    const e = decpt - 1;
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

/** A number as Python prints it after `json.loads`: integers as ints, the rest as floats. */
function pyNumber(n: number): string {
  if (Number.isInteger(n)) return Math.abs(n) >= 1e21 ? BigInt(n).toString() : String(n === 0 ? 0 : n);
  return pyFloatRepr(n);
}

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's `\x`/`\u`/`\U` escape of a code point. */
function pyEscape(cp: number): string {
  if (cp < 0x100) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\U${cp.toString(16).padStart(8, '0')}`;
}

/**
 * Python 3's `repr(str)`: single quotes unless the string contains `'` and no `"`; backslash and the chosen quote
 * escaped; `\t`, `\n`, `\r` as such; other non-printable characters (Unicode categories C* and Z* except the ASCII
 * space, as `str.isprintable`) as `\xhh`, `\uhhhh` or `\Uhhhhhhhh`; printable non-ASCII kept.
 * Example: `pyStrRepr("King's")` = `"King's"`, `pyStrRepr('a\'b"c')` = `'a\'b"c'`.
 */
export function pyStrRepr(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += pyEscape(cp);
    else if (cp < 0x7f) out += ch;
    else if (NON_PRINTABLE.test(ch)) out += pyEscape(cp);
    else out += ch;
  }
  return out + quote;
}

/**
 * The toolkit's rendering (compat): Python's `str()` of the value after `json.loads`, e.g.
 * `{'University': 'Horizon University', 'Faculties': [{'Faculty Name': 'Faculty of Science'}]}`; `True`/`False`/
 * `None`; strings as {@link pyStrRepr}; lists `[a, b]`; dicts `{k: v, ...}` in insertion order.
 */
export function pyRepr(value: Json): string {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return pyNumber(value);
  if (typeof value === 'string') return pyStrRepr(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(value).map(([k, v]) => `${pyStrRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
}

/** A JSON string literal as Python's json.dumps writes it with ensure_ascii=True (all of U+0000-001F, U+007F+ escaped). */
function dumpsString(value: string): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const ch = value[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

/**
 * The strict rendering: exactly Python's `json.dumps(value)` with default arguments — separators `", "` and `": "`,
 * `ensure_ascii=True` (non-ASCII as `\uXXXX`, surrogate pairs for astral characters), numbers as {@link pyRepr}
 * prints them, `true`/`false`/`null`. The output is valid JSON: `JSON.parse(jsonDumps(v))` deep-equals `v`.
 */
export function jsonDumps(value: Json): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return pyNumber(value);
  if (typeof value === 'string') return dumpsString(value);
  if (Array.isArray(value)) return `[${value.map(jsonDumps).join(', ')}]`;
  return `{${Object.entries(value).map(([k, v]) => `${dumpsString(k)}: ${jsonDumps(v)}`).join(', ')}}`;
}
