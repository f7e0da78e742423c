/**
 * The registry's declared generator filters, `packs` additions to a dataset's prompt pack, and the `metrics` and
 * `scorers` subjects of `hpt-bench score`, as units (the CLI side is test/e2e/registry-kinds.test.ts).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFilters, datasetFilters, datasetPack, declaredFilters, discoverPlugins, packPlaceholders, parseFilterOptions, readPluginManifest, resolveScoreSubject } from '@hpt-bench/core';
import { filterArgv, pluginDirsOf } from '../../packages/cli/src/base.js';
import { ROOT } from '../helpers/cli.js';

const builtins = ['hpt-datasets', 'hpf-strategies', 'openai', 'baselines', 'metrics', 'hibench'].map((p) => ({ root: join(ROOT, 'plugins', p), origin: 'builtin' as const }));
const community = { root: join(ROOT, 'test/fixtures/community-plugin'), origin: 'local' as const };

/** A plugin directory with this manifest (and these extra files). */
function plugin(name: string, contributes: object, files: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'hpt-kinds-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', 'hpt-bench': { apiVersion: 1, contributes } }));
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), JSON.stringify(content));
  }
  return dir;
}

describe('declared generator filters', () => {
  it('reads the string form as a name without values and keeps the object form', () => {
    expect(datasetFilters({ filters: ['task', { name: 'icl', description: 'd', values: ['zero'] }] })).toEqual([{ name: 'task' }, { name: 'icl', description: 'd', values: ['zero'] }]);
    expect(datasetFilters({})).toEqual([]);
  });

  it('checks names and declared values; an undeclared value names the closest allowed one and lists them all', () => {
    const decl = { filters: ['size', { name: 'colour', values: ['red', 'blue'] }] };
    expect(() => checkFilters('shapes', decl, { colour: ['red'], size: ['anything'] })).not.toThrow();
    expect(() => checkFilters('shapes', decl, { colour: [] })).not.toThrow();
    expect(() => checkFilters('shapes', decl, { colour: ['red', 'bleu'] })).toThrow("shapes: unknown --colour 'bleu' (did you mean 'blue'?); allowed: red, blue");
    expect(() => checkFilters('shapes', decl, { colour: ['green'] })).toThrow(/^shapes: unknown --colour 'green'; allowed: red, blue$/);
    expect(() => checkFilters('shapes', decl, { shape: ['x'] })).toThrow('dataset shapes has no filter --shape (it accepts: --size, --colour)');
    expect(() => checkFilters('boolq', {}, { task: ['x'] })).toThrow(/boolq is not generated/);
  });

  it('HiBench declares its filters with the values its generators accept', () => {
    const registry = discoverPlugins(builtins);
    const bt = datasetFilters(registry.get('datasets', 'binary-tree').decl);
    expect(bt.map((f) => f.name)).toEqual(['task', 'preset', 'representation', 'icl']);
    expect(bt.find((f) => f.name === 'task')!.values).toContain('mirror_tree');
    expect(() => checkFilters('formula', registry.get('datasets', 'formula').decl, { preset: ['easy', 'symbol_hard_value_hard_length_hard'] })).not.toThrow();
    const names = declaredFilters(registry).map((f) => f.name);
    expect(names).toEqual(['task', 'preset', 'representation', 'icl', 'semantics', 'language', 'source']);
    expect(declaredFilters(registry).find((f) => f.name === 'semantics')!.datasets).toEqual({ 'hibench/json': ['normal', 'nonsense'] });
    expect(declaredFilters(registry).find((f) => f.name === 'language')!.datasets).toEqual({ 'hibench/code': ['python', 'cpp'], 'hibench/code-structure': ['python', 'cpp'], 'hibench/code-gen': ['python', 'cpp'] });
    // hibench/paper: representation structured/plain, and a value-free `source` (a file path the dataset checks)
    const paper = datasetFilters(registry.get('datasets', 'paper').decl);
    expect(paper.map((f) => f.name)).toEqual(['task', 'preset', 'representation', 'icl', 'source']);
    expect(paper.find((f) => f.name === 'representation')!.values).toEqual(['structured', 'plain']);
    expect(paper.find((f) => f.name === 'source')!.values).toBeUndefined();
    expect(() => checkFilters('paper', registry.get('datasets', 'paper').decl, { source: ['/any/file.json'] })).not.toThrow();
  });

  it('a manifest declaring a filter twice is refused, naming the dataset and the filter', () => {
    const dir = plugin('dup-filters', { datasets: [{ id: 'g', module: './g.js', export: 'G', scorer: 'boolean', hpiDataset: 1, filters: ['task', { name: 'task', values: ['a'] }] }] });
    expect(() => readPluginManifest(dir, 'local')).toThrow("plugin dup-filters: dataset 'g' declares the filter 'task' more than once");
    const bad = plugin('bad-filter', { datasets: [{ id: 'g', module: './g.js', export: 'G', scorer: 'boolean', hpiDataset: 1, filters: [{ name: 'task', values: [] }] }] });
    expect(() => readPluginManifest(bad, 'local')).toThrow(/manifest of plugin bad-filter is invalid/);
  });

  it('--filter entries: name=value[,value], repeated names accumulate, malformed entries are refused', () => {
    expect(parseFilterOptions(['task=a,b', 'icl=zero', 'task=c'])).toEqual({ task: ['a', 'b', 'c'], icl: ['zero'] });
    for (const bad of ['task', '=a', 'task=', 'task=,']) expect(() => parseFilterOptions([bad])).toThrow(/--filter must be name=value/);
  });

  it('declared filter flags are rewritten into --filter before oclif parses the command line', () => {
    expect(filterArgv(['hibench/formula', '--task', 'calculate', '--icl=zero,one', '--out', '-', '--seed', '3'], ['task', 'icl'])).toEqual(['hibench/formula', '--filter', 'task=calculate', '--filter', 'icl=zero,one', '--out', '-', '--seed', '3']);
    expect(filterArgv(['--task', 'x', '--', '--task', 'y'], ['task'])).toEqual(['--filter', 'task=x', '--', '--task', 'y']);
    expect(filterArgv(['--tasks', 'x'], ['task'])).toEqual(['--tasks', 'x']);
    expect(() => filterArgv(['--task'], ['task'])).toThrow('--task needs a value');
    expect(() => filterArgv(['--task', '--out', 'x'], ['task'])).toThrow('--task needs a value');
    expect(pluginDirsOf(['--plugin', 'a', '--plugin=b', '--', '--plugin', 'c'])).toEqual(['a', 'b']);
  });
});

describe('packs: entries added to an existing dataset prompt pack', () => {
  it("merges a plugin's entries into the dataset's pack without changing the cached pack", () => {
    const registry = discoverPlugins([...builtins, community]);
    const he = registry.get('datasets', 'humaneval');
    const pack = datasetPack(he, registry);
    expect(pack.strategies['plan-and-solve']!.template).toMatch(/^PLAN FIRST/);
    expect(pack.strategies.role).toBeDefined();
    expect(pack.cue).toBe('Code:');
    expect(datasetPack(he).strategies['plan-and-solve']).toBeUndefined();
    expect(datasetPack(registry.get('datasets', 'boolq'), registry).strategies['plan-and-solve']).toBeUndefined();
    expect(packPlaceholders(he, registry)).toEqual(['code', 'entry_point', 'test']);
    expect(packPlaceholders(registry.get('datasets', 'iwslt'), registry)).toEqual(['eng_text']);
    expect(packPlaceholders(registry.get('datasets', 'hibench/json'), registry)).toEqual(['exemplars', 'format', 'format_cot', 'question', 'system']);
  });

  it('an entry for a strategy the pack already has is an error naming both plugins', () => {
    const clash = plugin('clashing-pack', { packs: [{ dataset: 'humaneval', promptPack: './packs/he.json' }] }, { 'packs/he.json': { strategies: { role: { template: '{code}' } } } });
    const registry = discoverPlugins([...builtins, { root: clash, origin: 'local' }]);
    expect(() => datasetPack(registry.get('datasets', 'humaneval'), registry)).toThrow(
      "plugin clashing-pack adds a 'role' entry to the prompt pack of dataset humaneval, which plugin @hpt-bench/hpt-datasets (dataset humaneval) already provides; remove one of them",
    );
    const twice = plugin('second-plan', { packs: [{ dataset: 'hpt-datasets/humaneval', promptPack: './p.json' }] }, { 'p.json': { strategies: { 'plan-and-solve': { template: '{code}' } } } });
    const both = discoverPlugins([...builtins, community, { root: twice, origin: 'local' }]);
    expect(() => datasetPack(both.get('datasets', 'humaneval'), both)).toThrow(/plugin second-plan adds a 'plan-and-solve' entry .* which plugin hpt-bench-plugin-community \(packs \.\/packs\/humaneval-plan\.json\) already provides/);
  });

  it("a clash with the generic pack's entry says so", () => {
    const clash = plugin('generic-clash', { packs: [{ dataset: 'hibench/json', promptPack: './p.json' }] }, { 'p.json': { strategies: { 'zero-shot-cot': { template: '{question}' }, 'plan-and-solve': { template: '{question}' } } } });
    const registry = discoverPlugins([...builtins, { root: clash, origin: 'local' }]);
    expect(() => datasetPack(registry.get('datasets', 'json'), registry)).toThrow(
      "plugin generic-clash adds a 'zero-shot-cot' entry to the prompt pack of dataset json, which the generic pack of plugin @hpt-bench/hpf-strategies (packs ./packs/generic.json; dataset json of plugin @hpt-bench/hibench names no pack) already provides; remove one of them",
    );
  });

  it('an addition file must exist and be a valid pack', () => {
    const missing = plugin('missing-pack', { packs: [{ dataset: 'humaneval', promptPack: './nope.json' }] });
    expect(() => readPluginManifest(missing, 'local')).toThrow(/pack 'humaneval' promptPack names \.\/nope\.json, which does not exist/);
    const invalid = plugin('invalid-pack', { packs: [{ dataset: 'iwslt', promptPack: './p.json' }] }, { 'p.json': { strategies: { x: { templat: 'typo' } } } });
    const registry = discoverPlugins([...builtins, { root: invalid, origin: 'local' }]);
    expect(() => datasetPack(registry.get('datasets', 'iwslt'), registry)).toThrow(/prompt pack .*p\.json is invalid/);
  });
});

describe('score subjects', () => {
  const registry = discoverPlugins([...builtins, community]);
  it('a metric id is a metric, a scorer id a scorer; --as picks the kind of an id that names both', () => {
    expect(resolveScoreSubject(registry, 'sacrebleu').kind).toBe('metrics');
    expect(resolveScoreSubject(registry, 'rouge').kind).toBe('metrics');
    expect(resolveScoreSubject(registry, 'rouge', 'scorer').kind).toBe('scorers');
    expect(resolveScoreSubject(registry, 'hierarchy-list').kind).toBe('scorers');
    expect(resolveScoreSubject(registry, 'first-word').contribution.plugin.name).toBe('hpt-bench-plugin-community');
    expect(resolveScoreSubject(registry, 'length-ratio').kind).toBe('metrics');
    expect(() => resolveScoreSubject(registry, 'sacreblue')).toThrow(/unknown scorer or metric 'sacreblue'\. Did you mean 'sacrebleu'\? Metrics: bleu-hf, length-ratio, rouge, sacrebleu\. Scorers: bleu, boolean/);
    expect(() => resolveScoreSubject(registry, 'boolean', 'metric')).toThrow(/unknown metric 'boolean'/);
  });
});
