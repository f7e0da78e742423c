/**
 * A HiBench scenario is one folder (issue 26, item 3): each scenario is `plugins/hibench/src/<name>/`, whose index
 * exports one `Scenario` object, and `src/scenarios.ts` lists them. This file checks that
 * - the list is the only place naming scenarios: no file of plugins/hibench/src outside a scenario's own folder and the
 *   list names it (as a string — a whole literal, or a path/id segment — or as a property name), comments aside;
 * - the plugin manifest declares exactly the listed datasets, each entry equal to its scenario's `manifest`, and the
 *   report view exactly their labels;
 * - each scenario object tells the truth about its records (tasks, matcher types, prompt, schema, selection);
 * - the plugin's modules import one another without a cycle (a scenario folder never reaches the list).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { Dataset, DatasetDecl, GenerateOptions, Json, PluginManifest, ReportRun, ReportViewDecl, SampleUnit } from '@hpt-bench/sdk';
import { SCENARIOS, SYSTEM_PROMPTS } from '../../plugins/hibench/src/scenarios.js';
import { hibenchRecordSchema, assertRecord } from '../../plugins/hibench/src/record-schema.js';
import { preloadCodeStructure } from '../../plugins/hibench/src/code-structure/index.js';
import { selects, type AnyHibenchRecord } from '../../plugins/hibench/src/types.js';
import type { Scenario } from '../../plugins/hibench/src/scenario.js';
import { EXTENSION_SCENARIOS, hibenchBreakdown, HibenchReportView, PRESET_ORDER, presetOrder } from '../../plugins/hibench/src/report.js';
import { CAPABILITY_DIMENSIONS, TASK_GROUPS } from '../../plugins/hibench/src/match/aggregate.js';
import { ROOT, SHARED } from '../helpers/cli.js';

const PLUGIN = join(ROOT, 'plugins/hibench');
const SRC = join(PLUGIN, 'src');
const LIST = join(SRC, 'scenarios.ts');
const CODE = join(SHARED, 'data/hibench-code/code.jsonl');
const manifest = (JSON.parse(readFileSync(join(PLUGIN, 'package.json'), 'utf8')) as { 'hpt-bench': PluginManifest })['hpt-bench'];

/** The `.ts` files under `dir`, recursively. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** A string naming `name`: the whole string, or a path/id segment (after the start or a `/`, before the end, `/`, `:` or a space). */
function stringNames(text: string, name: string): boolean {
  if (text === name) return true;
  const n = name.replace(/[-]/g, '\\-');
  return new RegExp(`(?:^|/)${n}(?=$|[/:\\s])`).test(text);
}

/**
 * Where `code` names one of `names` outside comments (`<line>: <name> (<how>)`): string and template literals (import
 * specifiers included) by `stringNames`, and property names (object keys, property accesses and declarations, object
 * binding keys, and the string keys `{ 'x': ... }` and `o['x']`) equal to a name — except `fields`, the names that
 * are record fields (a record's `code` or `formula` field is the field, not the scenario).
 */
export function namedScenarios(code: string, names: readonly string[], fields: ReadonlySet<string>): string[] {
  const sf = ts.createSourceFile('x.ts', code, ts.ScriptTarget.Latest, true);
  const hits: string[] = [];
  const at = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const propertyName = (node: ts.Identifier): boolean => {
    const p = node.parent;
    return (
      ((ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p) || ts.isMethodSignature(p) || ts.isGetAccessor(p)) && p.name === node) ||
      ts.isShorthandPropertyAssignment(p) ||
      (ts.isPropertyAccessExpression(p) && p.name === node) ||
      (ts.isBindingElement(p) && ts.isObjectBindingPattern(p.parent) && (p.propertyName ?? p.name) === node)
    );
  };
  const stringKey = (node: ts.StringLiteralLike): boolean => {
    const p = node.parent;
    return (ts.isElementAccessExpression(p) && p.argumentExpression === node) || ((ts.isPropertyAssignment(p) || ts.isPropertySignature(p)) && p.name === node);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) && stringKey(node) && fields.has(node.text)) {
      // a record field used as a key: the field, not the scenario
    } else if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      for (const n of names) if (stringNames(node.text, n)) hits.push(`${at(node)}: ${n} (string ${JSON.stringify(node.text.slice(0, 60))})`);
    } else if (ts.isIdentifier(node) && propertyName(node) && names.includes(node.text) && !fields.has(node.text)) {
      hits.push(`${at(node)}: ${node.text} (property name)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return hits;
}

const NAMES = SCENARIOS.map((s) => s.name);
const RECORD_FIELDS = new Set(Object.keys((hibenchRecordSchema() as { properties: Record<string, Json> }).properties));

describe('the HiBench scenario list is the only place naming scenarios', () => {
  it('the check finds names in strings, paths, ids and property names, and not in comments, prose or record fields', () => {
    const code = [
      '// json, paper and code-gen in a comment',
      "const a = 'json'; /* 'paper' */",
      'const b = x.paper;',
      "import y from '../code-gen/z.js';",
      "const c = { 'binary-tree': 1, json: 2 };",
      'const d = `${s}/formula/${t}`;',
      "const e = 'Given a code snippet and a paper';",
      'const f = r.code + r.formula;',
      "throw new Error('multiple-tree: bad');",
      "const g = 'hibench/code-structure';",
      "const h = 'answer.json';",
      "const i = r['code'] ?? x['paper'];",
    ].join('\n');
    expect(namedScenarios(code, NAMES, RECORD_FIELDS)).toEqual([
      '2: json (string "json")',
      '3: paper (property name)',
      '4: code-gen (string "../code-gen/z.js")',
      '5: binary-tree (string "binary-tree")',
      '5: json (property name)',
      '6: formula (string "/formula/")',
      '9: multiple-tree (string "multiple-tree: bad")',
      '10: code-structure (string "hibench/code-structure")',
      '12: paper (string "paper")',
    ]);
    // the record fields the exception covers are real record fields
    for (const f of ['code', 'formula']) expect(RECORD_FIELDS).toContain(f);
    expect(RECORD_FIELDS).not.toContain('json');
  });

  it('each listed scenario has its folder src/<name>/ whose index exports its scenario object', async () => {
    expect(NAMES.length).toBeGreaterThanOrEqual(8);
    expect(new Set(NAMES).size).toBe(NAMES.length);
    for (const s of SCENARIOS) {
      const mod = (await import(pathToFileURL(join(SRC, s.name, 'index.ts')).href)) as Record<string, unknown>;
      expect(Object.values(mod), s.name).toContain(s);
    }
  });

  it('no file of plugins/hibench/src outside a scenario folder and the list names a scenario (comments aside)', () => {
    const hits: string[] = [];
    let checked = 0;
    for (const file of tsFiles(SRC)) {
      if (file === LIST) continue;
      const folder = relative(SRC, file).split(/[\\/]/)[0]!;
      const others = NAMES.filter((n) => n !== folder);
      checked++;
      for (const h of namedScenarios(readFileSync(file, 'utf8'), others, RECORD_FIELDS)) hits.push(`${relative(ROOT, file)}:${h}`);
    }
    expect(checked).toBeGreaterThan(40);
    expect(hits).toEqual([]);
  });

  it('the plugin modules import one another without a cycle (type-only and dynamic imports aside)', () => {
    const graph: Record<string, string[]> = {};
    for (const file of tsFiles(SRC)) {
      const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const deps: string[] = [];
      for (const st of sf.statements) {
        const typeOnly = (ts.isImportDeclaration(st) && st.importClause?.isTypeOnly === true) || (ts.isExportDeclaration(st) && st.isTypeOnly);
        const spec = (ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? st.moduleSpecifier.text : undefined;
        if (spec?.startsWith('.') && !typeOnly) deps.push(relative(ROOT, resolve(dirname(file), spec)).replace(/\.js$/, '.ts'));
      }
      graph[relative(ROOT, file)] = deps;
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const walk = (node: string, path: string[]): void => {
      state.set(node, 'open');
      path.push(node);
      for (const next of graph[node] ?? []) {
        if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].join(' -> '));
        else if (!state.has(next)) walk(next, path);
      }
      path.pop();
      state.set(node, 'done');
    };
    for (const node of Object.keys(graph)) if (!state.has(node)) walk(node, []);
    expect(Object.keys(graph).length).toBeGreaterThan(40);
    expect(cycles).toEqual([]);
  });
});

describe('the plugin manifest and the scenario list agree exactly', () => {
  const datasets = manifest.contributes.datasets as DatasetDecl[];

  it('every manifest dataset is a listed scenario and every scenario a manifest dataset, entry for entry', () => {
    expect(datasets.map((d) => d.id).sort()).toEqual([...NAMES].sort());
    // the expected entry, printed whole on a mismatch: paste it into package.json
    for (const s of SCENARIOS) expect(datasets.find((d) => d.id === s.name), s.name).toEqual({ id: s.name, ...s.manifest });
  });

  it("the manifest's module and export of each dataset is the scenario's dataset class", async () => {
    await preloadCodeStructure();
    const index = (await import(pathToFileURL(join(SRC, 'index.ts')).href)) as Record<string, unknown>;
    for (const s of SCENARIOS) {
      expect(s.manifest.export, s.name).toBe(s.dataset.name);
      expect(index[s.dataset.name], `${s.name}: the package index exports ${s.dataset.name}`).toBe(s.dataset);
      const module = /^\.\/dist\/(.+)\.js$/.exec(s.manifest.module ?? '')?.[1];
      expect(module, s.name).toBeDefined();
      const mod = (await import(pathToFileURL(join(SRC, `${module}.ts`)).href)) as Record<string, unknown>;
      expect(mod[s.manifest.export!], `${s.name}: ${s.manifest.module} exports ${s.manifest.export}`).toBe(s.dataset);
      expect((new s.dataset() as Dataset).id).toBe(s.name);
    }
  });

  it('the report view shows exactly the listed scenarios, with their labels', () => {
    const view = (manifest.contributes.reports as ReportViewDecl[]).find((r) => r.id === 'hibench')!;
    expect([...view.datasets].sort()).toEqual([...NAMES].sort());
    expect(view.labels).toEqual(Object.fromEntries(SCENARIOS.map((s) => [s.name, s.report.label])));
  });
});

/** The first records of a scenario per compat mode (zero-shot), enough to see every task: generated, or built from code.jsonl. */
async function recordsOf(s: Scenario, compat: 'strict' | 'reference'): Promise<AnyHibenchRecord[]> {
  let stream: Iterable<AnyHibenchRecord>;
  if (s.generate) stream = s.generate({ seed: 5, compat, filter: { icl: ['zero'] } });
  else {
    await preloadCodeStructure(); // the code-structure dataset's synchronous generate parses with the preloaded grammars
    stream = (new s.dataset() as Dataset).generate!({ seed: 5, compat, filters: { icl: ['zero'] }, data: CODE } as GenerateOptions) as Iterable<AnyHibenchRecord>;
  }
  const out: AnyHibenchRecord[] = [];
  const seen = new Set<string>();
  for (const r of stream) {
    out.push(r);
    seen.add(r.task);
    if ((seen.size === s.tasks.length && out.length >= 200) || out.length >= 4000) break;
  }
  return out;
}

describe('each scenario object describes its records', () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s: tasks, matcher types, prompt, schema part, selection, dimensions', async (name, s) => {
    const records = [...(await recordsOf(s, 'strict')), ...(await recordsOf(s, 'reference'))];
    expect(records.length).toBeGreaterThan(0);
    expect(new Set(records.map((r) => r.scenario))).toEqual(new Set([name]));
    expect(new Set(records.map((r) => r.task))).toEqual(new Set(s.tasks));
    expect(new Set(records.map((r) => r.matcher.type))).toEqual(new Set(s.matchers));
    expect(new Set(records.map((r) => r.system))).toEqual(new Set([s.prompt.system]));
    expect(SYSTEM_PROMPTS[name]).toBe(s.prompt.system);
    for (const r of records) expect(s.record.representations).toContain(r.representation);
    const own = new Set(Object.keys(s.record.properties ?? {}));
    const common = new Set((hibenchRecordSchema() as { required: string[] }).required);
    for (const r of records.slice(0, 50)) {
      assertRecord(r, r.id);
      // every field a record has is common or declared by its scenario's part
      expect(Object.keys(r).filter((k) => !common.has(k) && !own.has(k)), r.id).toEqual([]);
    }
    const all = s.select({});
    for (const r of records) expect(selects(all, r), r.id).toBe(true);
    for (const k of Object.keys(s.dimensions)) expect(s.tasks).toContain(k);
    for (const k of Object.keys(s.taskGroups ?? {})) expect(s.tasks).toContain(k);
  }, 120_000);
});

describe('the report view and the aggregation read their scenario data from the list', () => {
  it('preset order: the declared presets with a level (easy, medium, hard), then those without, first place wins', () => {
    expect(PRESET_ORDER).toEqual(['easy', 'easy-balanced', 'medium', 'medium-balanced', 'medium-1', 'medium-2', 'hard', 'hard-balanced', 'hard-1', 'hard-2', 'small', 'large-1', 'large-2', 'released', 'generated']);
    const sc = (name: string, presets: Scenario['report']['presets']) => ({ name, report: { label: name, presets } }) as unknown as Scenario;
    expect(presetOrder([sc('a', [{ id: 'x' }, { id: 'h', level: 'hard' }]), sc('b', [{ id: 'e', level: 'easy' }, { id: 'x', level: 'medium' }, { id: 'y' }]), sc('c', undefined)])).toEqual(['e', 'x', 'h', 'y']);
    // the chart groups: declared presets in that order, the others (formula cells, languages) by name after them
    const units = ['hard-1', 'python', 'small', 'easy', 'symbol_easy_value_easy_length_easy', 'medium-1', 'released', 'cpp', 'medium'].map(
      (preset, index): SampleUnit => ({ sampleId: String(index), index, hpi: 1, scores: 1, solved: 1, level: 1, meta: { preset } }),
    );
    const groups = hibenchBreakdown(units, () => ({ hpi: 1, hpiCi95: null, accuracy: 1, accuracyCi95: null }), 's').byPreset.map((g) => g.group);
    expect(groups).toEqual(['easy', 'medium', 'medium-1', 'hard-1', 'small', 'released', 'cpp', 'python', 'symbol_easy_value_easy_length_easy']);
  });

  it("extension scenarios, leaderboard notes, capability dimensions and task groups are the scenarios' own", () => {
    expect(EXTENSION_SCENARIOS).toEqual(SCENARIOS.filter((s) => s.report.extension).map((s) => s.name));
    expect(EXTENSION_SCENARIOS).toEqual(['code-structure', 'code-gen']);
    for (const s of SCENARIOS) for (const [task, dim] of Object.entries(s.dimensions)) expect(CAPABILITY_DIMENSIONS[task], `${s.name} ${task}`).toBe(dim);
    expect(Object.keys(CAPABILITY_DIMENSIONS).sort()).toEqual([...new Set(SCENARIOS.flatMap((s) => Object.keys(s.dimensions)))].sort());
    expect(TASK_GROUPS).toEqual(Object.fromEntries(SCENARIOS.filter((s) => s.taskGroups).map((s) => [s.name, s.taskGroups])));
    expect(Object.keys(TASK_GROUPS)).toEqual(['json']);
    // a scenario's note appears when some model ran it, and only then
    const noted = SCENARIOS.filter((s) => s.report.note !== undefined);
    expect(noted.map((s) => s.name)).toEqual(['paper']);
    const notes = (datasets: string[]) => {
      const runs = datasets.map((dataset, i): ReportRun => ({
        runId: String(i), dataset, model: 'm', mode: 'manual', compat: 'strict', seed: 0, createdAt: `2026-01-01T00:00:0${i}.000Z`, ladder: ['a'], n: 5, samples: 5, hpi: 1, hpiCi95: null, hpiDataset: 1,
        accuracy: 1, accuracyCi95: null, levelCounts: {}, calls: 5, cachedCalls: 0, usage: { promptTokens: 1, completionTokens: 1 }, levels: {}, errored: 0,
        metrics: { hibench: { scenarios: { [dataset]: 0.5 }, tasks: {}, dimensions: {}, overall: 0.5, n: 5 } },
      }) as unknown as ReportRun);
      const tables = new HibenchReportView().tables({
        runs, order: NAMES, bootstrap: { resamples: 10, seed: 0, level: 0.95, units: '' }, units: () => [], estimate: () => ({ hpi: 0, hpiCi95: null, accuracy: 0, accuracyCi95: null }),
        label: (id: string) => id, modelLabel: (r: ReportRun) => r.model, runLabel: (r: ReportRun) => r.runId,
      } as never);
      return tables.find((t) => t.id === 'hibench-leaderboard')!.notes ?? [];
    };
    expect(notes(['json', 'paper'])).toContain(noted[0]!.report.note);
    expect(notes(['json'])).not.toContain(noted[0]!.report.note);
  });
});
