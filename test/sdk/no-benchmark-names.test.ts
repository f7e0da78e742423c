/**
 * The core knows no benchmark (DESIGN.md "Layout": built-ins load exactly like community plugins): the sources of
 * `packages/sdk`, `packages/sandbox`, `packages/core` and `packages/cli` name no dataset of the built-in plugins and
 * no HiBench scenario, task or capability dimension outside comments. The names are read from the plugins themselves — the dataset ids
 * and aliases of every built-in manifest, the datasets and labels of their report views, the HiBench task lists and
 * the capability-dimension table (specs/hibench.md §1.3), and the namespaces of the plugins that bring datasets — so a
 * new dataset or task is checked without editing this file. Comments are stripped first (docstrings cite the specs);
 * a name matches as a whole word.
 *
 * The same holds for the data files of `packages/sdk`, `packages/core` and `packages/cli` (JSON, YAML, text, Markdown;
 * issue 26, item 2): they name no built-in dataset or HiBench name, no strategy id of a built-in manifest, and hold no
 * text of a built-in prompt pack (the generic pack lives in @hpt-bench/hpf-strategies). The SDK's copy of the
 * top-level schemas (contracts) is included: none needs a benchmark name (HiBench's record schema ships with its plugin).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { dataFiles, sourceFiles as sources } from '../helpers/sources.js';
import { CAPABILITY_DIMENSIONS, DIMENSIONS, TASK_GROUPS } from '../../plugins/hibench/src/match/aggregate.js';
import { BINARY_TASKS, MULTIPLE_TASKS } from '../../plugins/hibench/src/lib/tree/tasks.js';
import { FORMULA_TASKS } from '../../plugins/hibench/src/formula/generate.js';
import { JSON_TASK_GROUPS } from '../../plugins/hibench/src/json/suite.js';

/**
 * `text` with every comment replaced by spaces (line breaks kept, so line numbers stay right): `//` and block comments
 * outside string, template and regular-expression literals. Strings (template `${...}` code included) stay.
 */
export function stripComments(text: string): string {
  let out = '';
  let i = 0;
  const n = text.length;
  const templateDepth: number[] = []; // brace depth at which each open template's `${` started
  let braces = 0;
  let prev = ''; // last significant code character (for telling a regex from a division)
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  const readString = (q: string) => {
    let j = i + 1;
    while (j < n && text[j] !== q && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
    out += text.slice(i, j + 1);
    i = j + 1;
  };
  const readTemplate = () => {
    // from just after a backtick or a closing `}` of `${...}`, up to the closing backtick or the next `${`
    let j = i;
    while (j < n && text[j] !== '`' && !(text[j] === '$' && text[j + 1] === '{')) j += text[j] === '\\' ? 2 : 1;
    if (text[j] === '`') {
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += text.slice(i, j + 2);
      i = j + 2;
      templateDepth.push(braces);
      braces++;
    }
    prev = 'x';
  };
  while (i < n) {
    const c = text[i]!;
    const d = text[i + 1];
    if (c === '/' && d === '/') {
      const j = text.indexOf('\n', i);
      const end = j === -1 ? n : j;
      out += blank(text.slice(i, end));
      i = end;
    } else if (c === '/' && d === '*') {
      const j = text.indexOf('*/', i + 2);
      const end = j === -1 ? n : j + 2;
      out += blank(text.slice(i, end));
      i = end;
    } else if (c === '"' || c === "'") {
      readString(c);
      prev = 'x';
    } else if (c === '`') {
      out += c;
      i++;
      readTemplate();
    } else if (c === '/' && (prev === '' || '(,=:[!&|?{};+-*%<>~^'.includes(prev))) {
      // a regular-expression literal
      let j = i + 1;
      let cls = false;
      while (j < n && text[j] !== '\n' && (cls || text[j] !== '/')) {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') cls = true;
        else if (text[j] === ']') cls = false;
        j++;
      }
      out += text.slice(i, j + 1);
      i = j + 1;
      prev = 'x';
    } else {
      if (c === '{') braces++;
      if (c === '}') {
        braces--;
        if (templateDepth.length && templateDepth[templateDepth.length - 1] === braces) {
          templateDepth.pop();
          out += c;
          i++;
          readTemplate();
          continue;
        }
      }
      out += c;
      if (!/\s/.test(c)) prev = /[\w$)\]]/.test(c) ? 'x' : c;
      i++;
    }
  }
  return out;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The names of `names` that occur in `code` (comments already stripped) as whole words, case-insensitively: not
 * preceded or followed by a letter, digit, `_` or `-` (so `iwslt` does not match `iwslt2017-en-fr`, which is a name
 * of its own, and `hibench/binary-tree` matches `binary-tree`). Returns `line: name` for each hit.
 */
export function findNames(code: string, names: readonly string[]): string[] {
  const hits: string[] = [];
  const lines = code.split('\n');
  for (const name of names) {
    const re = new RegExp(`(?<![A-Za-z0-9_-])${escapeRe(name)}(?![A-Za-z0-9_-])`, 'i');
    lines.forEach((l, k) => {
      if (re.test(l)) hits.push(`${k + 1}: ${name}`);
    });
  }
  return hits;
}

const readJson = (p: string) => JSON.parse(readFileSync(join(ROOT, p), 'utf8')) as Record<string, unknown>;

interface Manifest {
  contributes: {
    datasets?: { id: string; aliases?: string[]; promptPack?: string }[];
    reports?: { datasets: string[]; labels?: Record<string, string>; tables?: { datasets?: string[] }[] }[];
    strategies?: { id: string }[];
    packs?: { promptPack: string }[];
  };
}

/** The `hpt-bench` manifest of every plugin under plugins/ that has one, with its directory name. */
function manifests(): { dir: string; manifest: Manifest }[] {
  return readdirSync(join(ROOT, 'plugins')).flatMap((dir) => {
    const m = readJson(`plugins/${dir}/package.json`)['hpt-bench'] as Manifest | undefined;
    return m ? [{ dir, manifest: m }] : [];
  });
}

/** The strategy ids declared by the manifest of every plugin under plugins/. */
function strategyNames(): string[] {
  return manifests().flatMap(({ manifest }) => (manifest.contributes.strategies ?? []).map((st) => st.id));
}

/** Strategy ids that are ordinary words of data files too (the `role` of a chat message): not searched. Each is checked to be one. */
const ORDINARY_STRATEGY_WORDS = ['role'];

interface PackJson {
  system?: string;
  task?: string;
  strategies: Record<string, { template?: string; knowledge?: string; steps?: { template: string }[] }>;
}

/** Every prompt-pack file a built-in manifest names (datasets' `promptPack`, `packs` entries), as paths from the root. */
function packFiles(): string[] {
  return manifests().flatMap(({ dir, manifest }) =>
    [...(manifest.contributes.datasets ?? []).flatMap((d) => (d.promptPack ? [d.promptPack] : [])), ...(manifest.contributes.packs ?? []).map((p) => p.promptPack)].map((rel) => join('plugins', dir, rel)),
  );
}

/**
 * The text of the built-in prompt packs as fragments that cannot be an accident: every template (system, task, each
 * entry's template, knowledge template and chain steps) cut at placeholders and line breaks, trimmed, the pieces of at
 * least 20 characters.
 */
function packFragments(): string[] {
  const out = new Set<string>();
  for (const f of packFiles()) {
    const pack = readJson(f) as unknown as PackJson;
    const texts = [pack.system ?? '', pack.task ?? ''];
    for (const e of Object.values(pack.strategies)) texts.push(e.template ?? '', e.knowledge ?? '', ...(e.steps ?? []).map((st) => st.template));
    for (const t of texts) for (const piece of t.split(/\{[A-Za-z_][A-Za-z0-9_]*\}|\n/)) if (piece.trim().length >= 20) out.add(piece.trim());
  }
  return [...out];
}

/** Every string (keys too) of a JSON value, depth first. */
function jsonStrings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(jsonStrings);
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [k, ...jsonStrings(x)]);
  return [];
}

/** A data file's text as the checks read it: the file, plus, for JSON and JSON Lines, its strings decoded (escapes undone). */
function dataText(name: string, text: string): string {
  if (/\.json$/i.test(name)) return `${text}\n${jsonStrings(JSON.parse(text)).join('\n')}`;
  if (/\.jsonl$/i.test(name)) return `${text}\n${text.split('\n').filter((l) => l.trim()).flatMap((l) => jsonStrings(JSON.parse(l))).join('\n')}`;
  return text;
}

/** What the data-file check finds in one file: `names` as whole words (`name <line>: <name>`) and pack fragments. */
function dataFindings(name: string, text: string, names: readonly string[], fragments: readonly string[]): string[] {
  const t = dataText(name, text);
  return [...findNames(t, names).map((h) => `name ${h}`), ...fragments.filter((f) => t.includes(f)).map((f) => `pack text: ${f.slice(0, 60)}`)];
}

/**
 * Dataset ids, aliases, report-view datasets and labels declared by the manifest of every plugin under plugins/, and
 * the namespace of every plugin that declares datasets or report views.
 */
function manifestNames(): string[] {
  const out: string[] = [];
  for (const dir of readdirSync(join(ROOT, 'plugins'))) {
    const pj = readJson(`plugins/${dir}/package.json`);
    const m = pj['hpt-bench'] as Manifest | undefined;
    if (!m) continue;
    // a plugin that brings datasets or report views names a benchmark (its namespace: `hibench`, `hpt-datasets`)
    if (m.contributes.datasets?.length || m.contributes.reports?.length) out.push(String(pj.name).replace(/^@[^/]+\//, ''));
    for (const d of m.contributes.datasets ?? []) out.push(d.id, ...(d.aliases ?? []));
    for (const r of m.contributes.reports ?? []) {
      out.push(...r.datasets, ...Object.keys(r.labels ?? {}), ...Object.values(r.labels ?? {}));
      for (const t of r.tables ?? []) out.push(...(t.datasets ?? []));
    }
  }
  return out;
}

/** HiBench's task ids, task groups and capability dimensions, as its source declares them. */
function hibenchNames(): string[] {
  return [
    ...Object.keys(CAPABILITY_DIMENSIONS),
    ...DIMENSIONS,
    ...BINARY_TASKS,
    ...MULTIPLE_TASKS,
    ...FORMULA_TASKS,
    ...Object.keys(JSON_TASK_GROUPS),
    ...Object.values(JSON_TASK_GROUPS).flat(),
    ...Object.values(TASK_GROUPS).flatMap((g) => [...Object.keys(g), ...Object.values(g)]),
  ];
}

/**
 * Names that are ordinary words of the code as well (the `json` output format, `code` of an error, the `root` of a
 * plugin, ...): a hit cannot tell the benchmark's meaning from the other, so they are not searched. Each must really
 * be one of the names read above (the test checks), so the list cannot hide a name by a typo.
 */
const ORDINARY_WORDS = ['json', 'JSON', 'code', 'Code', 'formula', 'Formula', 'paper', 'Paper', 'root', 'leaf', 'balance', 'calculate', 'convert', 'equivalent', 'isomorphic', 'Binary', 'Multiple'];

describe('the core knows no benchmark', () => {
  it('the comment stripper and the matcher find a planted name, and only outside comments', () => {
    const names = ['boolq', 'binary-tree', 'iwslt', 'iwslt2017-en-fr', 'all_ancestor'];
    const planted = [
      "const a = 'BoolQ';", // 1: a label, case-insensitive
      '// boolq in a line comment', // 2
      '/* binary-tree in a block', // 3
      '   comment */ const x = 1;', // 4
      'const url = "http://host/x"; const d = `hibench/${id}/binary-tree`;', // 5: // inside a string is no comment
      'const re = /\\/\\/ not a comment/; f(all_ancestor);', // 6: a regex with slashes, then an identifier
      "const t = `a ${b ? '}' : `iwslt2017-en-fr`} c`;", // 7: nested template; only the alias matches
      'const boolqx = 1; const xiwslt = 2; const all_ancestors = 3;', // 8: no whole word
      "x = a / 2; y = 'csqa'; // iwslt", // 9: a division, then a comment
    ].join('\n');
    const code = stripComments(planted);
    expect(code.split('\n')).toHaveLength(9);
    expect(findNames(code, names).sort()).toEqual(['1: boolq', '5: binary-tree', '6: all_ancestor', '7: iwslt2017-en-fr'].sort());
    expect(findNames(code, ['csqa'])).toEqual(['9: csqa']);
    // the same text unstripped does have the commented names: stripping is what removes them
    expect(findNames(planted, names)).toEqual(expect.arrayContaining(['2: boolq', '3: binary-tree', '9: iwslt']));
  });

  it('reads the names from the plugins (so the check covers what they declare)', () => {
    const names = new Set([...manifestNames(), ...hibenchNames()]);
    for (const n of ['hibench', 'hpt-datasets', 'boolq', 'csqa', 'commonsense_qa', 'mmlu', 'gsm8k', 'humaneval', 'iwslt', 'iwslt2017-en-fr', 'samsum', 'binary-tree', 'multiple-tree', 'all_ancestor', 'node_depth', 'mirror_tree', 'SpaceComplexity', 'Local Relationship Awareness', 'BoolQ', 'HumanEval']) expect(names).toContain(n);
    for (const w of ORDINARY_WORDS) expect(names).toContain(w);
  });

  it('packages/{sdk,sandbox,core,cli}/src name no built-in dataset, HiBench scenario, task or dimension outside comments', () => {
    const ordinary = new Set(ORDINARY_WORDS.map((w) => w.toLowerCase()));
    const names = [...new Set([...manifestNames(), ...hibenchNames()])].filter((n) => !ordinary.has(n.toLowerCase()));
    const hits = new Set<string>();
    const where: string[] = [];
    for (const pkg of ['sdk', 'sandbox', 'core', 'cli']) {
      for (const file of sources(join(ROOT, 'packages', pkg, 'src'))) {
        const rel = relative(ROOT, file).split('\\').join('/');
        for (const h of findNames(stripComments(readFileSync(file, 'utf8')), names)) {
          const name = h.slice(h.indexOf(': ') + 2);
          hits.add(`${rel}: ${name.toLowerCase()}`);
          where.push(`${rel}:${h}`);
        }
      }
    }
    expect([...hits].sort(), `hits:\n${where.join('\n')}`).toEqual([]);
  });

  it('reads strategy ids and pack text from the plugins, and the data-file check finds what it must', () => {
    const strategies = strategyNames();
    for (const id of ['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge']) expect(strategies).toContain(id);
    for (const w of ORDINARY_STRATEGY_WORDS) expect(strategies).toContain(w);
    expect(packFiles()).toEqual(expect.arrayContaining(['plugins/hpt-datasets/packs/boolq.json', 'plugins/hpf-strategies/packs/generic.json']));
    const fragments = packFragments();
    expect(fragments).toContain('Do not solve the problem. Generate the definitions, rules and facts needed to solve it.');
    // the generic pack as a core data file (where it was before issue 26, item 2) is caught: its keys and its text
    const names = strategies.filter((n) => !ORDINARY_STRATEGY_WORDS.includes(n));
    const hits = dataFindings('generic.json', readFileSync(join(ROOT, 'plugins/hpf-strategies/packs/generic.json'), 'utf8'), names, fragments);
    expect(hits).toEqual(expect.arrayContaining([expect.stringMatching(/^name \d+: least-to-most$/), expect.stringMatching(/^pack text: /)]));
    // JSON escapes do not hide pack text; YAML and text files are read as they are; a name is a whole word
    expect(dataFindings('x.json', JSON.stringify({ t: `x\n${fragments[0]}\ty` }), [], fragments)).toHaveLength(1);
    expect(dataFindings('x.yaml', 'levels:\n  - zero-shot-cot\n', names, [])).toEqual(['name 2: zero-shot-cot']);
    expect(dataFindings('x.md', 'a role and a zero-shot-cotx', names, [])).toEqual([]);
  });

  it('the data files of packages/{sdk,core,cli} name no strategy, dataset or HiBench name and hold no prompt-pack text', () => {
    const ordinary = new Set(ORDINARY_WORDS.map((w) => w.toLowerCase()));
    const benchmark = [...new Set([...manifestNames(), ...hibenchNames()])].filter((n) => !ordinary.has(n.toLowerCase()));
    const names = [...new Set([...benchmark, ...strategyNames().filter((n) => !ORDINARY_STRATEGY_WORDS.includes(n))])];
    const fragments = packFragments();
    const checked: string[] = [];
    const hits: string[] = [];
    for (const pkg of ['sdk', 'core', 'cli']) {
      for (const file of dataFiles(join(ROOT, 'packages', pkg))) {
        const rel = relative(ROOT, file).split('\\').join('/');
        checked.push(rel);
        for (const h of dataFindings(rel, readFileSync(file, 'utf8'), names, fragments)) hits.push(`${rel}: ${h}`);
      }
    }
    // the check read the packages' manifests and the SDK's schemas (a pack put there would be read too)
    expect(checked).toEqual(expect.arrayContaining(['packages/core/package.json', 'packages/cli/package.json', 'packages/sdk/package.json', 'packages/sdk/schemas/prompt-pack.schema.json']));
    expect(hits).toEqual([]);
  });
});
