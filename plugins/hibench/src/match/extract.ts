/**
 * HiBench answer extraction (specs/hibench.md §4.1; strict refinement §7 rec. 9): reading the `{"answer": …}` value
 * out of a model's raw output.
 */
import { PY_S, pyStrip, type CompatMode } from '@hpt-bench/sdk';

/**
 * The toolkit's answer pattern (`evaluator/base.py` `_extract_answer`, §4.1): `{` ws? key (optionally quoted) ws? `:`
 * or `=` ws? then the value — a double-quoted string (may span newlines) | a single-quoted string | everything up to
 * the next `}` or newline — then ws? and an optional `}`. Group 1 is the value including its quotes.
 */
const ANSWER_SOURCE = `\\{${PY_S}*["']?answer["']?${PY_S}*[:=]${PY_S}*("[^"]*"|'[^']*'|[^}\\n]*)${PY_S}*\\}?`;
const ANSWER_FIRST = new RegExp(ANSWER_SOURCE, 'u');
/**
 * Strict variant (case-insensitive key, all matches): an unquoted value that is followed by a `}` may span newlines
 * (an unquoted multi-line text tree is read whole); otherwise it stops at the newline as in the toolkit.
 */
const STRICT_SOURCE = `\\{${PY_S}*["']?answer["']?${PY_S}*[:=]${PY_S}*("[^"]*"|'[^']*'|[^{}]*(?=\\})|[^}\\n]*)${PY_S}*\\}?`;
const ANSWER_ALL_CI = new RegExp(STRICT_SOURCE, 'giu');

/**
 * The toolkit extractor, exactly (§4.1): lower-cases the whole output, takes the FIRST (left-most) match of the answer
 * pattern, returns its value (quotes included) stripped of Python whitespace; no match or an empty value → null.
 * No fallback for bare answers.
 * Example: `'{ answer : \'Hello World\' }'` → `"'hello world'"`; `'{"answer": 1}\n{"answer": 2}'` → `"1"`.
 */
export function extractReference(output: string): string | null {
  const m = ANSWER_FIRST.exec(output.toLowerCase());
  if (m === null) return null;
  const value = m[1] ?? '';
  return value ? pyStrip(value) : null;
}

/**
 * The toolkit regex applied to the original-case output, LAST match (§7 rec. 9), with one extension: an unquoted value
 * directly followed (possibly across lines) by a `}` is read up to that brace. A quoted value loses its quotes;
 * a double-quoted one is JSON-unescaped when it parses as a JSON string. Empty → null.
 */
function lastRegexAnswer(output: string): { index: number; value: string | null } | null {
  let last: RegExpExecArray | null = null;
  ANSWER_ALL_CI.lastIndex = 0;
  for (let m = ANSWER_ALL_CI.exec(output); m !== null; m = ANSWER_ALL_CI.exec(output)) {
    last = m;
    if (m[0].length === 0) ANSWER_ALL_CI.lastIndex++;
  }
  if (last === null) return null;
  let value = (last[1] ?? '').trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(value);
      value = typeof parsed === 'string' ? parsed : value.slice(1, -1);
    } catch {
      value = value.slice(1, -1);
    }
  } else if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) {
    value = value.slice(1, -1);
  }
  value = value.trim();
  return { index: last.index, value: value === '' ? null : value };
}

// ---------------------------------------------------------------------------------------------------------------------
// A small JSON reader that keeps number literals as written (so `3.0` stays "3.0"), used by the strict extractor.

type JValue =
  | { k: 'str'; v: string }
  | { k: 'num'; raw: string }
  | { k: 'bool'; v: boolean }
  | { k: 'null' }
  | { k: 'arr'; items: JValue[] }
  | { k: 'obj'; entries: [string, JValue][]; raw: string };

class JsonFail extends Error {}

const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING_RE = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const WS_RE = /[ \t\n\r]*/y;

/** Parses one JSON value at `pos`; returns it and the index after it. @throws JsonFail on invalid JSON. */
function readValue(text: string, pos: number, depth: number): [JValue, number] {
  if (depth > 200) throw new JsonFail();
  pos = skipWs(text, pos);
  const c = text[pos];
  if (c === '{') {
    const start = pos;
    const entries: [string, JValue][] = [];
    pos = skipWs(text, pos + 1);
    if (text[pos] === '}') return [{ k: 'obj', entries, raw: text.slice(start, pos + 1) }, pos + 1];
    for (;;) {
      pos = skipWs(text, pos);
      const [key, afterKey] = readString(text, pos);
      pos = skipWs(text, afterKey);
      if (text[pos] !== ':') throw new JsonFail();
      const [value, afterValue] = readValue(text, pos + 1, depth + 1);
      entries.push([key, value]);
      pos = skipWs(text, afterValue);
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text[pos] === '}') return [{ k: 'obj', entries, raw: text.slice(start, pos + 1) }, pos + 1];
      throw new JsonFail();
    }
  }
  if (c === '[') {
    const items: JValue[] = [];
    pos = skipWs(text, pos + 1);
    if (text[pos] === ']') return [{ k: 'arr', items }, pos + 1];
    for (;;) {
      const [value, after] = readValue(text, pos, depth + 1);
      items.push(value);
      pos = skipWs(text, after);
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text[pos] === ']') return [{ k: 'arr', items }, pos + 1];
      throw new JsonFail();
    }
  }
  if (c === '"') {
    const [v, after] = readString(text, pos);
    return [{ k: 'str', v }, after];
  }
  if (text.startsWith('true', pos)) return [{ k: 'bool', v: true }, pos + 4];
  if (text.startsWith('false', pos)) return [{ k: 'bool', v: false }, pos + 5];
  if (text.startsWith('null', pos)) return [{ k: 'null' }, pos + 4];
  NUMBER_RE.lastIndex = pos;
  const m = NUMBER_RE.exec(text);
  if (m === null) throw new JsonFail();
  return [{ k: 'num', raw: m[0] }, pos + m[0].length];
}

function readString(text: string, pos: number): [string, number] {
  STRING_RE.lastIndex = pos;
  const m = STRING_RE.exec(text);
  if (m === null) throw new JsonFail();
  return [JSON.parse(m[0]) as string, pos + m[0].length];
}

function skipWs(text: string, pos: number): number {
  WS_RE.lastIndex = pos;
  const m = WS_RE.exec(text);
  return pos + (m === null ? 0 : m[0].length);
}

/**
 * A parsed JSON answer value as a string (§7 rec. 9 / the brief): strings as-is, numbers as written, booleans
 * "true"/"false", null "None", arrays their items joined by ", " (an empty array is "[]", nested arrays are bracketed),
 * objects their JSON text.
 */
function valueToString(v: JValue, nested = false): string {
  switch (v.k) {
    case 'str':
      return v.v;
    case 'num':
      return v.raw;
    case 'bool':
      return v.v ? 'true' : 'false';
    case 'null':
      return 'None';
    case 'obj':
      return v.raw;
    case 'arr': {
      if (v.items.length === 0) return '[]';
      const joined = v.items.map((x) => valueToString(x, true)).join(', ');
      return nested ? `[${joined}]` : joined;
    }
  }
}

/** Only the last this-many possible object starts are tried (bounds the work on pathological outputs). */
const MAX_JSON_CANDIDATES = 256;

/**
 * The last JSON object in `output` that has an `answer` key (case-insensitive; the last such key wins), found by
 * trying a JSON parse at each `{` that can start an object (the last `MAX_JSON_CANDIDATES` of them).
 * "Last" = the object ending last.
 * Returns its answer value, or undefined when there is none.
 */
function lastJsonAnswer(output: string): { start: number; end: number; value: JValue } | undefined {
  let best: { start: number; end: number; value: JValue } | undefined;
  const startRe = /\{[ \t\n\r]*["}]/g;
  const starts: number[] = [];
  for (let m = startRe.exec(output); m !== null; m = startRe.exec(output)) {
    starts.push(m.index);
    startRe.lastIndex = m.index + 1;
  }
  for (const start of starts.slice(-MAX_JSON_CANDIDATES)) {
    let parsed: [JValue, number];
    try {
      parsed = readValue(output, start, 0);
    } catch (e) {
      if (e instanceof JsonFail) continue;
      throw e;
    }
    const [obj, end] = parsed;
    if (obj.k !== 'obj') continue;
    let answer: JValue | undefined;
    for (const [key, value] of obj.entries) if (key.toLowerCase() === 'answer') answer = value;
    if (answer === undefined) continue;
    if (best === undefined || end > best.end) best = { start, end, value: answer };
  }
  return best;
}

/**
 * Reads the answer of a model output (§4.1, §7 rec. 9). Returns the answer text or null (no answer → scored wrong).
 * - `reference` (compat): `extractReference` — lower-cased output, first regex match, value with its quotes, stripped.
 * - `strict` (default): the LAST answer, case kept: first a real JSON parse of the last `{…}` object holding an
 *   `answer` key (objects inside ```json fences are found the same way), the value converted to a string (booleans
 *   "true"/"false", numbers as written, arrays joined by ", " (empty: "[]"), null "None", strings as-is, objects as
 *   JSON); else (or when a regex match starts after that object, e.g. a later `{answer: 2}` that is not JSON) the
 *   toolkit regex on the original-case text, last match, surrounding quotes removed (double-quoted values
 *   JSON-unescaped when valid); an empty value or no match → null.
 */
export function extractAnswer(output: string, compat: CompatMode): string | null {
  if (compat === 'reference') return extractReference(output);
  const json = lastJsonAnswer(output);
  const regex = lastRegexAnswer(output);
  if (json !== undefined && (regex === null || regex.index < json.end)) {
    const s = valueToString(json.value).trim();
    return s === '' ? null : s;
  }
  return regex === null ? null : regex.value;
}
