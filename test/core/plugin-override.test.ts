/**
 * The same plugin installed and passed with `--plugin DIR` — the development copy wins, the other copy is
 * reported once (the CLI prints it as a one-line warning; test/e2e/third-party-plugin.test.ts checks that line). Two
 * `--plugin DIR`s of one package name still fail as "loaded twice".
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverPlugins, isTypeScriptModule, type BrokenPlugin, type PluginOverride } from '@hpt-bench/core';

let dir: string;
let n = 0;

/** A plugin directory named `name` contributing one model `modelId` (its module need not exist: discovery does not import). */
function plugin(name: string, modelId: string, manifest?: unknown): string {
  const root = join(dir, `copy-${++n}`, name);
  mkdirSync(root, { recursive: true });
  const m = manifest ?? { apiVersion: 1, contributes: { models: [{ id: modelId, module: './m.js', export: 'M' }] } };
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', 'hpt-bench': m }));
  return root;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-override-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a --plugin DIR copy of an installed or built-in plugin', () => {
  it('wins over the installed copy: its contributions are listed once, from the local root, and the override is reported', () => {
    const installed = plugin('hpt-bench-plugin-dup', 'installed-model');
    const local = plugin('hpt-bench-plugin-dup', 'dev-model');
    const overrides: PluginOverride[] = [];
    const registry = discoverPlugins([{ root: installed, origin: 'installed' }, { root: local, origin: 'local' }], { onOverride: (o) => overrides.push(o) });
    expect(registry.plugins.map((p) => [p.name, p.root, p.origin])).toEqual([['hpt-bench-plugin-dup', local, 'local']]);
    expect(registry.list('models').map((c) => c.id)).toEqual(['dev-model']);
    expect(registry.has('models', 'installed-model')).toBe(false);
    expect(overrides).toEqual([{ name: 'hpt-bench-plugin-dup', used: local, ignored: installed, ignoredOrigin: 'installed' }]);
  });

  it('wins over a built-in copy too, and other plugins keep their discovery order', () => {
    const other = plugin('hpt-bench-plugin-other', 'other');
    const builtin = plugin('@hpt-bench/thing', 'thing');
    const local = plugin('@hpt-bench/thing', 'thing');
    const overrides: PluginOverride[] = [];
    const registry = discoverPlugins(
      [
        { root: other, origin: 'installed' },
        { root: builtin, origin: 'builtin' },
        { root: local, origin: 'local' },
      ],
      { onOverride: (o) => overrides.push(o) },
    );
    expect(registry.plugins.map((p) => p.root)).toEqual([other, local]);
    expect(registry.get('models', 'thing').plugin.origin).toBe('local');
    expect(overrides.map((o) => o.ignoredOrigin)).toEqual(['builtin']);
  });

  it('the same directory given twice (installed through `plugins link` and --plugin) is one plugin, no warning', () => {
    const root = plugin('hpt-bench-plugin-linked', 'linked');
    const alias = join(dir, 'alias-of-linked');
    symlinkSync(root, alias);
    const overrides: PluginOverride[] = [];
    const registry = discoverPlugins([{ root, origin: 'installed' }, { root: alias, origin: 'local' }], { onOverride: (o) => overrides.push(o) });
    expect(overrides).toEqual([]);
    expect(registry.list('models').map((c) => c.id)).toEqual(['linked']);
  });

  it('a broken installed copy is replaced, not reported as broken', () => {
    const broken = plugin('hpt-bench-plugin-fixed', 'x', { apiVersion: 1, contributes: { models: [{ id: 'x' }] } });
    const local = plugin('hpt-bench-plugin-fixed', 'x');
    const reported: BrokenPlugin[] = [];
    const overrides: PluginOverride[] = [];
    const registry = discoverPlugins([{ root: broken, origin: 'installed' }, { root: local, origin: 'local' }], { onBroken: (b) => reported.push(b), onOverride: (o) => overrides.push(o) });
    expect(reported).toEqual([]);
    expect(registry.broken).toEqual([]);
    expect(overrides.map((o) => o.ignored)).toEqual([broken]);
    expect(registry.get('models', 'x').plugin.root).toBe(local);
  });

  it('two --plugin DIRs of one package name still fail, naming both roots', () => {
    const a = plugin('hpt-bench-plugin-twice', 'a');
    const b = plugin('hpt-bench-plugin-twice', 'b');
    expect(() => discoverPlugins([{ root: a, origin: 'local' }, { root: b, origin: 'local' }])).toThrow(`plugin hpt-bench-plugin-twice is loaded twice (${a} and ${b}); uninstall or unlink one`);
  });

  it('without a --plugin copy, two installed copies still fail as before', () => {
    const a = plugin('hpt-bench-plugin-two', 'a');
    const b = plugin('hpt-bench-plugin-two', 'b');
    expect(() => discoverPlugins([{ root: a, origin: 'builtin' }, { root: b, origin: 'installed' }])).toThrow(/loaded twice/);
  });
});

describe('TypeScript module paths in a manifest', () => {
  it('are recognised by extension (the CLI test checks the message: test/e2e/third-party-plugin.test.ts)', () => {
    for (const p of ['./src/model.ts', './a.mts', './a.cts', './x/y.TSX']) expect(isTypeScriptModule(p), p).toBe(true);
    for (const p of ['./dist/model.js', './a.mjs', './a.d.ts.js', './ts', './a.tsv']) expect(isTypeScriptModule(p), p).toBe(false);
  });
});
