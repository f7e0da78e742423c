/** JSON scenario renderings (specs/hibench.md §3.3): Python dict repr (compat) and json.dumps (strict). */
import { describe, it, expect } from 'vitest';
import type { Json } from '@hpt-bench/core';
import { jsonDumps, pyRepr, pyStrRepr } from '../../plugins/hibench/src/json/render.js';
import { buildDocument, generateDocumentPair } from '../../plugins/hibench/src/json/document.js';

// Expected strings produced by CPython 3.11: str(o) and json.dumps(o) of the same object.
const OBJ: Json = {
  University: 'Horizon University',
  Faculties: [
    {
      'Faculty Name': "King's College",
      n: 3,
      neg: -12,
      ok: true,
      no: false,
      x: null,
      q: 'say "hi"',
      both: `it's "x"`,
      bs: 'a\\b',
      nl: 'a\nb\tc',
      f: 1.5,
      e: 1e-7,
      small: 0.0001,
      u: 'café',
      nbsp: 'a\u00a0b',
      ctl: '\x01\x7f',
      emoji: '\u{1F600}',
      empty: [],
      d: {},
    },
  ],
};
const PY_STR = String.raw`{'University': 'Horizon University', 'Faculties': [{'Faculty Name': "King's College", 'n': 3, 'neg': -12, 'ok': True, 'no': False, 'x': None, 'q': 'say "hi"', 'both': 'it\'s "x"', 'bs': 'a\\b', 'nl': 'a\nb\tc', 'f': 1.5, 'e': 1e-07, 'small': 0.0001, 'u': 'café', 'nbsp': 'a\xa0b', 'ctl': '\x01\x7f', 'emoji': '😀', 'empty': [], 'd': {}}]}`;
const PY_DUMPS = String.raw`{"University": "Horizon University", "Faculties": [{"Faculty Name": "King's College", "n": 3, "neg": -12, "ok": true, "no": false, "x": null, "q": "say \"hi\"", "both": "it's \"x\"", "bs": "a\\b", "nl": "a\nb\tc", "f": 1.5, "e": 1e-07, "small": 0.0001, "u": "caf\u00e9", "nbsp": "a\u00a0b", "ctl": "\u0001\u007f", "emoji": "\ud83d\ude00", "empty": [], "d": {}}]}`;

describe('pyRepr (compat rendering = Python str(parsed_json))', () => {
  it('renders a hand-made object exactly like CPython', () => {
    expect(pyRepr(OBJ)).toBe(PY_STR);
  });
  it('chooses quotes like Python repr', () => {
    expect(pyStrRepr('plain')).toBe("'plain'");
    expect(pyStrRepr("King's")).toBe(`"King's"`);
    expect(pyStrRepr('say "hi"')).toBe(`'say "hi"'`);
    expect(pyStrRepr(`a'b"c`)).toBe(`'a\\'b"c'`);
  });
  it('renders floats like Python repr', () => {
    expect(pyRepr(0.5)).toBe('0.5');
    expect(pyRepr(1e-5)).toBe('1e-05');
    expect(pyRepr(1.25e-4)).toBe('0.000125');
    expect(pyRepr(123.456)).toBe('123.456');
    expect(pyRepr(-2.5e-20)).toBe('-2.5e-20');
    expect(pyRepr(1e22)).toBe('10000000000000000000000'); // integral values are Python ints
    expect(pyRepr(7)).toBe('7');
  });
});

/** An independent json.dumps for ASCII data: JSON.stringify leaves with the Python separators. */
function simpleDumps(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(simpleDumps).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${simpleDumps(x)}`).join(', ')}}`;
  return JSON.stringify(v);
}

describe('jsonDumps (strict rendering = Python json.dumps)', () => {
  it('renders a hand-made object exactly like CPython json.dumps', () => {
    expect(jsonDumps(OBJ)).toBe(PY_DUMPS);
  });
  it('parses back to the value', () => {
    expect(JSON.parse(jsonDumps(OBJ))).toEqual(OBJ);
  });
  it('a generated document parses back to itself and uses the ", " / ": " separators', () => {
    const pair = generateDocumentPair(5, ['json', 'large-1'], 6, 2);
    for (const names of [pair.normal, pair.nonsense]) {
      const doc = buildDocument(pair.skeleton, names);
      const text = jsonDumps(doc);
      expect(JSON.parse(text)).toEqual(doc);
      expect(text.startsWith('{"University": "')).toBe(true);
      expect(text).not.toMatch(/":"|","|\},\{/);
      // compact json.dumps equals JSON.stringify with the Python separators for ASCII documents
      expect(text).toBe(simpleDumps(doc));
    }
  });
  it('the repr of a generated document uses single quotes and no JSON literals', () => {
    const pair = generateDocumentPair(5, ['json', 'small'], 4, 2);
    const text = pyRepr(buildDocument(pair.skeleton, pair.normal));
    expect(text.startsWith("{'University': '")).toBe(true);
    expect(text).toContain("'Faculties': [{'Faculty Name': '");
    expect(text).not.toContain('"');
  });
});
