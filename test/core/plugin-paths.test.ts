/**
 * Plugin paths stay inside the plugin root, import errors never quote a file, and a broken installed plugin is left
 * out with a reason. Plugins are written to a temp dir; a "secret" file beside the plugin stands
 * for `/etc/passwd`, so the tests also run where /etc/passwd differs.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertValid, DeclarativeDataset, discoverPlugins, importErrorReason, isHptError, loadContributionClass, loadPromptPack, readPluginManifest, resolvePluginPath, type BrokenPlugin, type DatasetDecl } from '@hpt-bench/core';

let dir: string;
let n = 0;
const SECRET_LINE = 'root:x:0:0:root:/root:/bin/bash secret-token-4711';

/** A plugin directory with this package.json (`hpt-bench` manifest) and extra files (relative path -> content). */
function plugin(manifest: unknown, files: Record<string, string> = {}, name = `hpt-bench-plugin-p${++n}`): string {
  const root = join(dir, `plugin-${n}`, 'node_modules', name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', 'hpt-bench': manifest }));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

const model = (module: string) => ({ apiVersion: 1, contributes: { models: [{ id: 'm', module, export: 'M' }] } });
const dataset = (extra: Record<string, unknown>) => ({
  apiVersion: 1,
  contributes: { datasets: [{ id: 'd', scorer: 'boolean', hpiDataset: 2, fields: { question: 'q' }, target: { field: 'a', type: 'boolean' }, ...extra }] },
});

/** The HptError `fn` throws (fails the test when it returns or throws something else). */
function hptErrorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    expect(isHptError(e), String(e)).toBe(true);
    return e as { code: string; message: string };
  }
  throw new Error('expected an HptError, nothing was thrown');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-plugin-paths-'));
  writeFileSync(join(dir, 'secret.js'), `${SECRET_LINE}\n`);
  writeFileSync(join(dir, 'secret.json'), `${SECRET_LINE}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('manifest paths that leave the plugin root are rejected when the manifest is read', () => {
  const traversal = './../../../secret.js';

  it('a module path with ../ segments (it passed the old ^\\./ pattern)', () => {
    const root = plugin(model(traversal));
    const e = hptErrorOf(() => readPluginManifest(root, 'local'));
    expect(e.code).toBe('E_MANIFEST');
    expect(e.message).toContain("model 'm' module");
    expect(e.message).toContain(JSON.stringify(traversal));
    expect(e.message).toMatch(/leaves the plugin root/);
    expect(e.message).not.toContain('secret-token');
  });

  it('the schema pattern alone rejects ., .. and empty segments, backslashes and NUL (schemas/plugin-manifest.schema.json)', () => {
    for (const bad of ['./../etc/passwd', './a/../../x.js', './a/../b.js', './..', './a/..', './a//b.js', './a/./b.js', './a\\b.js', './a\u0000.js', '../x.js', '/etc/passwd']) {
      const e = hptErrorOf(() => assertValid('plugin-manifest', model(bad), 'manifest', 'E_MANIFEST'));
      expect(e.message, bad).toContain('/contributes/models/0/module');
    }
    for (const good of ['./dist/index.js', './.hidden/x.js', './..x/y.js', './a..b.js']) expect(assertValid('plugin-manifest', model(good), 'manifest'), good).toBeTruthy();
  });

  it('every malformed path is rejected when the manifest is read', () => {
    for (const bad of ['./a/../../x.js', './..', './a//b.js', './a/./b.js', './a\\b.js']) {
      const root = plugin(model(bad));
      expect(hptErrorOf(() => readPluginManifest(root, 'local')).code, bad).toBe('E_MANIFEST');
    }
  });

  it('promptPack, file and split paths too, naming the field', () => {
    for (const [extra, what] of [
      [{ promptPack: './../../../secret.json', file: './data/x.jsonl' }, "dataset 'd' promptPack"],
      [{ file: './../../../secret.json' }, "dataset 'd' file"],
      [{ splits: { mini: './../../../secret.json' } }, "dataset 'd' split mini"],
    ] as const) {
      const root = plugin(dataset(extra), { 'data/x.jsonl': '{"q":"x","a":true}\n' });
      const e = hptErrorOf(() => readPluginManifest(root, 'local'));
      expect(e.message).toContain(what);
      expect(e.message).toMatch(/leaves the plugin root/);
    }
  });

  it('a manifest file (`"hpt-bench": "./..."`) outside the root is not read', () => {
    const root = plugin('./../../../secret.json');
    const e = hptErrorOf(() => readPluginManifest(root, 'local'));
    expect(e.code).toBe('E_MANIFEST');
    expect(e.message).toContain('manifest file');
    expect(e.message).not.toContain('secret-token');
    expect(e.message).not.toContain('root:x');
  });

  it('a symbolic link inside the root that points outside it (module and data file)', () => {
    const root = plugin(model('./lib/index.js'));
    mkdirSync(join(root, 'lib'));
    symlinkSync(join(dir, 'secret.js'), join(root, 'lib', 'index.js'));
    const e = hptErrorOf(() => readPluginManifest(root, 'local'));
    expect(e.message).toMatch(/leaves the plugin root through a symbolic link/);

    const root2 = plugin(dataset({ file: './data/x.json' }));
    mkdirSync(join(root2, 'data'));
    symlinkSync(dir, join(root2, 'data', 'outside'));
    // a directory link: ./data/outside/secret.json resolves outside
    writeFileSync(join(root2, 'package.json'), JSON.stringify({ name: 'p-link', 'hpt-bench': dataset({ file: './data/outside/secret.json' }) }));
    expect(hptErrorOf(() => readPluginManifest(root2, 'local')).message).toMatch(/through a symbolic link/);
  });

  it('paths that stay inside (also through a link inside the root) are accepted', () => {
    const root = plugin(dataset({ file: './data/link.jsonl', promptPack: './packs/p.json' }), { 'data/x.jsonl': '{"q":"x","a":true}\n', 'packs/p.json': '{}' });
    symlinkSync(join(root, 'data', 'x.jsonl'), join(root, 'data', 'link.jsonl'));
    expect(readPluginManifest(root, 'local')?.manifest.contributes.datasets?.[0]?.file).toBe('./data/link.jsonl');
    expect(resolvePluginPath({ name: 'p', root }, './data/x.jsonl', 'file')).toBe(join(root, 'data', 'x.jsonl'));
  });
});

describe('paths are checked again when used', () => {
  it('a module swapped for a link to an outside file after discovery is not imported', async () => {
    const root = plugin(model('./index.js'), { 'index.js': 'export class M {}\n' });
    const registry = discoverPlugins([{ root, origin: 'local' }]);
    const c = registry.get('models', 'm');
    unlinkSync(join(root, 'index.js'));
    symlinkSync(join(dir, 'secret.js'), join(root, 'index.js'));
    await expect(loadContributionClass(c)).rejects.toThrow(/leaves the plugin root through a symbolic link/);
  });

  it('a declarative dataset does not open a data file outside its root', async () => {
    const decl = { id: 'd', scorer: 'boolean', hpiDataset: 2, file: './../../../secret.json', fields: { question: 'q' }, target: { field: 'a', type: 'boolean' } } as DatasetDecl;
    const ds = new DeclarativeDataset(decl, join(dir, 'plugin-x', 'node_modules', 'p'), 'p');
    await expect(ds.load({ onInvalid: 'fail', warn: () => {} } as never).next()).rejects.toThrow(/plugin p: dataset 'd' file .* leaves the plugin root/);
  });
});

describe('import errors name the module and the reason, never its contents', () => {
  it('a module that is not JavaScript: the reason is "not a valid JavaScript module", no quoted source', async () => {
    const root = plugin(model('./bad.js'), { 'bad.js': `${SECRET_LINE}\n` });
    const c = discoverPlugins([{ root, origin: 'local' }]).get('models', 'm');
    const err = await loadContributionClass(c).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/^plugin hpt-bench-plugin-p\d+ failed to load: cannot import \.\/bad\.js for model 'm': it is not a valid JavaScript module \(SyntaxError\)$/);
    expect(err?.message).not.toMatch(/secret|root:x|token/);
  });

  it('a module that throws on import: its error class and first message line', async () => {
    const root = plugin(model('./throws.js'), { 'throws.js': 'throw new TypeError("boom at import\\nsecond line");\n' });
    const c = discoverPlugins([{ root, origin: 'local' }]).get('models', 'm');
    await expect(loadContributionClass(c)).rejects.toThrow(/failed to load: cannot import \.\/throws\.js for model 'm': TypeError: boom at import$/);
  });

  it('importErrorReason: codes become words, syntax errors lose their excerpt', () => {
    const syntax = new SyntaxError("Unexpected identifier 'token'");
    expect(importErrorReason(syntax)).toBe('it is not a valid JavaScript module (SyntaxError)');
    expect(importErrorReason(Object.assign(new Error('Cannot find module /x'), { code: 'ERR_MODULE_NOT_FOUND' }))).toBe('the file (or a module it imports) does not exist');
    expect(importErrorReason(Object.assign(new Error('x'), { code: 'ERR_SOMETHING_NEW' }))).toBe('ERR_SOMETHING_NEW');
    expect(importErrorReason('a string')).toBe('it threw string');
  });

  it('a manifest file that is not JSON: the reason without the excerpt V8 quotes', () => {
    const root = plugin('./manifest.json', { 'manifest.json': `${SECRET_LINE}\n` });
    const e = hptErrorOf(() => readPluginManifest(root, 'local'));
    expect(e.message).toMatch(/cannot read manifest \.\/manifest\.json: Unexpected token \(not valid JSON\)$/);
    expect(e.message).not.toMatch(/secret|root:x/);
  });

  it('a prompt pack that is not JSON: likewise', () => {
    const root = plugin(dataset({ file: './d.jsonl', promptPack: './p.json' }), { 'd.jsonl': '', 'p.json': `${SECRET_LINE}\n` });
    const e = hptErrorOf(() => loadPromptPack(join(root, 'p.json')));
    expect(e.code).toBe('E_PACK');
    expect(e.message).not.toMatch(/secret|root:x/);
  });
});

describe('a broken installed plugin is left out with a reason', () => {
  const good = () => plugin(model('./m.js'), { 'm.js': 'export class M {}\n' });

  it('an invalid manifest of an installed plugin: discovery goes on, reports it once, and get() names it', () => {
    const broken = plugin({ apiVersion: 1, contributes: { datasets: [{ id: 'capitals', aliases: ['caps'], scorer: 'boolean' }] } }, {}, 'hpt-bench-plugin-broken');
    const reported: BrokenPlugin[] = [];
    const registry = discoverPlugins([{ root: broken, origin: 'installed' }, { root: good(), origin: 'installed' }], { onBroken: (b) => reported.push(b) });
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ name: 'hpt-bench-plugin-broken', root: broken, declares: { datasets: ['capitals', 'caps'] } });
    expect(reported[0]!.reason).toMatch(/^manifest of plugin hpt-bench-plugin-broken is invalid: .*hpiDataset/);
    expect(registry.broken).toEqual(reported);
    // the healthy plugin is there
    expect(registry.has('models', 'm')).toBe(true);
    // an id the broken plugin declares: the error says it failed to load and why
    for (const id of ['capitals', 'caps', 'hpt-bench-plugin-broken/capitals']) {
      const e = hptErrorOf(() => registry.get('datasets', id));
      expect(e.code).toBe('E_UNKNOWN_ID');
      expect(e.message).toMatch(new RegExp(`^dataset '${id}' is not available: plugin hpt-bench-plugin-broken failed to load \\(manifest of plugin hpt-bench-plugin-broken is invalid: .*hpiDataset.*\\); fix the plugin, or remove it with \`hpt-bench plugins uninstall hpt-bench-plugin-broken\`$`));
    }
    // other unknown ids keep the usual message
    expect(hptErrorOf(() => registry.get('datasets', 'nope')).message).toMatch(/^unknown dataset 'nope'\./);
  });

  it('a plugin whose package.json is not JSON: named by directory, and mentioned after unknown-id errors', () => {
    const root = plugin({}, {}, 'hpt-bench-plugin-garbled');
    writeFileSync(join(root, 'package.json'), '{ "name": "hpt-bench-plugin-garbled", oops');
    const reported: BrokenPlugin[] = [];
    const registry = discoverPlugins([{ root, origin: 'installed' }], { onBroken: (b) => reported.push(b) });
    expect(reported.map((b) => [b.name, b.declares])).toEqual([['hpt-bench-plugin-garbled', undefined]]);
    const e = hptErrorOf(() => registry.get('models', 'thing'));
    expect(e.message).toMatch(/^unknown model 'thing'\..* Not loaded: plugin hpt-bench-plugin-garbled failed to load \(cannot read plugin package\.json at .*: .*\); it may contribute 'thing'\.$/);
  });

  it('a path outside the root makes an installed plugin broken too', () => {
    const reported: BrokenPlugin[] = [];
    discoverPlugins([{ root: plugin(model('./../../../secret.js')), origin: 'installed' }], { onBroken: (b) => reported.push(b) });
    expect(reported[0]!.reason).toMatch(/^model 'm' module .* leaves the plugin root/);
  });

  it('built-in and --plugin DIR plugins still fail discovery (the user asked for them)', () => {
    const bad = plugin({ apiVersion: 1, contributes: { datasets: [{ id: 'x' }] } });
    for (const origin of ['local', 'builtin'] as const) expect(() => discoverPlugins([{ root: bad, origin }])).toThrow(/manifest of plugin .* is invalid/);
  });
});
