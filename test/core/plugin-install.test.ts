/**
 * The pieces of `plugins install` that the core provides (packages/core/src/plugins/install.ts), on real files:
 * how the argument is read (paths against the caller's cwd), which npm lifecycle scripts an install would run (from
 * a real package-lock.json and package.json files), which ids collide with the plugins already present, and how an npm
 * failure is worded. The CLI command is tested end to end in test/e2e/plugin-install.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HptError, listInstallScripts, npmFailure, pluginIdCollisions, readPluginManifest, Registry, resolveInstallSpec, type PluginSource } from '@hpt-bench/core';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-install-unit-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The HptError `fn` throws. */
function errorOf(fn: () => unknown): HptError {
  try {
    fn();
  } catch (e) {
    if (e instanceof HptError) return e;
    throw e;
  }
  throw new Error('it did not throw');
}

describe('resolveInstallSpec: local paths against the caller’s directory', () => {
  it('file:./x.tgz, file:x.tgz, ./x.tgz, x.tgz and ../ paths resolve against cwd; an absolute path and a file:// URL stay', () => {
    const cwd = join(dir, 'cwd');
    mkdirSync(join(cwd, 'sub'), { recursive: true });
    writeFileSync(join(cwd, 'x.tgz'), '');
    const abs = `file:${join(cwd, 'x.tgz')}`;
    for (const arg of ['file:./x.tgz', 'file:x.tgz', './x.tgz', 'x.tgz', ` ./x.tgz `]) expect(resolveInstallSpec(arg, cwd), arg).toEqual({ kind: 'file', spec: abs, path: join(cwd, 'x.tgz') });
    expect(resolveInstallSpec('../x.tgz', join(cwd, 'sub')).spec).toBe(abs);
    expect(resolveInstallSpec('file:../x.tgz', join(cwd, 'sub')).spec).toBe(abs);
    expect(resolveInstallSpec(join(cwd, 'x.tgz'), '/').spec).toBe(abs);
    expect(resolveInstallSpec(`file://${join(cwd, 'x.tgz')}`, '/').spec).toBe(abs);
    // a directory is a path too (npm links it)
    expect(resolveInstallSpec('./sub', cwd)).toEqual({ kind: 'file', spec: `file:${join(cwd, 'sub')}`, path: join(cwd, 'sub') });
  });

  it('a path that does not exist: E_CONFIG (exit 2) naming the path it resolved to and the directory', () => {
    const e = errorOf(() => resolveInstallSpec('file:./gone.tgz', dir));
    expect([e.code, e.exitCode, e.message]).toEqual(['E_CONFIG', 2, `cannot install file:./gone.tgz: ${join(dir, 'gone.tgz')} does not exist (a path is resolved against the current directory, ${dir})`]);
    expect(errorOf(() => resolveInstallSpec('gone.tar.gz', dir)).message).toContain(join(dir, 'gone.tar.gz'));
    expect(errorOf(() => resolveInstallSpec('  ', dir)).code).toBe('E_CONFIG');
  });

  it('registry names with a tag or version, and URLs / GitHub shorthands passed on as they are', () => {
    expect(resolveInstallSpec('hpt-bench-plugin-x', dir)).toEqual({ kind: 'registry', spec: 'hpt-bench-plugin-x', name: 'hpt-bench-plugin-x', tag: 'latest' });
    expect(resolveInstallSpec('hpt-bench-plugin-x@1.2.0', dir)).toEqual({ kind: 'registry', spec: 'hpt-bench-plugin-x@1.2.0', name: 'hpt-bench-plugin-x', tag: '1.2.0' });
    expect(resolveInstallSpec('@me/plugin@^2', dir)).toEqual({ kind: 'registry', spec: '@me/plugin@^2', name: '@me/plugin', tag: '^2' });
    expect(resolveInstallSpec('@me/plugin', dir)).toEqual({ kind: 'registry', spec: '@me/plugin', name: '@me/plugin', tag: 'latest' });
    for (const url of ['someone/some-plugin', 'https://example.org/p.tgz', 'git+ssh://git@example.org/p.git']) expect(resolveInstallSpec(url, dir), url).toEqual({ kind: 'url', spec: url });
  });
});

describe('listInstallScripts: what npm would run, read from the lockfile and each package.json', () => {
  it('preinstall/install/postinstall in npm order, a binding.gyp as node-gyp rebuild, prepare only for links; packages without scripts left out', () => {
    const project = join(dir, 'project');
    const pkg = (location: string, pj: Record<string, unknown>, gyp = false) => {
      mkdirSync(join(project, location), { recursive: true });
      writeFileSync(join(project, location, 'package.json'), JSON.stringify(pj));
      if (gyp) writeFileSync(join(project, location, 'binding.gyp'), '{}');
    };
    pkg('node_modules/plugin', { name: 'plugin', version: '1.0.0', scripts: { postinstall: 'node post.js', preinstall: 'node pre.js', test: 'vitest', prepare: 'tsc' } });
    pkg('node_modules/plugin/node_modules/native', { name: 'native', version: '2.0.0' }, true);
    pkg('node_modules/no-gyp', { name: 'no-gyp', version: '1.0.0', gypfile: false }, true);
    pkg('node_modules/quiet', { name: 'quiet', version: '3.0.0', scripts: { build: 'tsc' } });
    pkg('node_modules/own-install', { name: 'own-install', version: '1.0.0', scripts: { install: 'make' } }, true);
    pkg('linked-src', { name: 'linked', version: '0.1.0', scripts: { prepare: 'tsc', postinstall: 'node x.js' } });
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    // npm's lockfile: a link entry and its target entry (listed once, through the link)
    symlinkSync(join(project, 'linked-src'), join(project, 'node_modules/linked'));
    writeFileSync(
      join(project, 'package-lock.json'),
      JSON.stringify({
        lockfileVersion: 3,
        packages: {
          '': { name: 'project' },
          linked: { name: 'linked', version: '0.1.0' },
          'node_modules/linked': { resolved: 'linked-src', link: true },
          'node_modules/no-gyp': { version: '1.0.0' },
          'node_modules/own-install': { version: '1.0.0', hasInstallScript: true },
          'node_modules/plugin': { version: '1.0.0', hasInstallScript: true },
          'node_modules/plugin/node_modules/native': { version: '2.0.0', hasInstallScript: true },
          'node_modules/quiet': { version: '3.0.0' },
          'node_modules/vanished': { version: '1.0.0', hasInstallScript: true },
        },
      }),
    );
    expect(listInstallScripts(project)).toEqual([
      { package: 'linked', version: '0.1.0', event: 'postinstall', command: 'node x.js' },
      { package: 'linked', version: '0.1.0', event: 'prepare', command: 'tsc' },
      { package: 'own-install', version: '1.0.0', event: 'install', command: 'make' },
      { package: 'plugin', version: '1.0.0', event: 'preinstall', command: 'node pre.js' },
      { package: 'plugin', version: '1.0.0', event: 'postinstall', command: 'node post.js' },
      { package: 'native', version: '2.0.0', event: 'install', command: 'node-gyp rebuild' },
    ]);
    expect(listInstallScripts(join(dir, 'no-such-project'))).toEqual([]);
  });
});

describe('pluginIdCollisions: ids a present plugin already answers to', () => {
  /** A plugin source read from a real package directory (the manifest validated as at install). */
  function source(name: string, contributes: Record<string, unknown>, origin: PluginSource['origin'] = 'installed'): PluginSource {
    const root = join(dir, 'sources', name.replace('/', '__'));
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name, version: '1.0.0', 'hpt-bench': { apiVersion: 1, contributes } }));
    return readPluginManifest(root, origin, { files: false })!;
  }
  const ds = (id: string, extra: Record<string, unknown> = {}) => ({ id, scorer: 'boolean', hpiDataset: 1, module: './d.js', export: 'D', ...extra });
  const st = (id: string) => ({ id, kind: 'single-call', template: '{question}' });

  it('plain ids and dataset aliases per kind, naming each owner and where it comes from; packs and other kinds do not collide', () => {
    const registry = new Registry();
    registry.add(source('@hpt-bench/base', { datasets: [ds('boolq', { aliases: ['bq'] })], strategies: [st('role')], packs: [{ dataset: 'boolq', promptPack: './p.json' }] }, 'builtin'));
    registry.add(source('other', { strategies: [st('role'), st('verify')], ladders: [{ id: 'mine', levels: ['role'] }] }));
    const mine = source('mine', {
      datasets: [ds('bq'), ds('fresh', { aliases: ['boolq'] })],
      strategies: [st('role'), st('verify'), st('new-level')],
      models: [{ id: 'verify', module: './m.js', export: 'M' }],
      ladders: [{ id: 'other-ladder', levels: ['role'] }],
      packs: [{ dataset: 'boolq', promptPack: './p.json' }],
    });
    expect(pluginIdCollisions(registry, mine)).toEqual([
      "dataset 'bq' is already contributed by @hpt-bench/base (built in)",
      "dataset 'boolq' is already contributed by @hpt-bench/base (built in)",
      "strategy 'role' is already contributed by @hpt-bench/base (built in) and other (installed)",
      "strategy 'verify' is already contributed by other (installed)",
    ]);
  });

  it('an installed copy of the same package is not a collision (a reinstall); a plugin failing to load that declares the id is', () => {
    const registry = new Registry();
    registry.add(source('mine', { strategies: [st('role')] }));
    registry.addBroken({ name: 'broken', root: join(dir, 'broken'), reason: 'invalid', declares: { strategies: ['role'], datasets: ['x'] } });
    registry.addBroken({ name: 'unreadable', root: join(dir, 'unreadable'), reason: 'invalid', declares: undefined });
    // an older, broken copy of the same package: the reinstall that fixes it is no collision
    registry.addBroken({ name: 'mine', root: join(dir, 'old-mine'), reason: 'invalid', declares: { strategies: ['role'] } });
    const again = source('mine', { strategies: [st('role')] });
    expect(pluginIdCollisions(registry, again)).toEqual(["strategy 'role' is already contributed by broken (installed, failing to load)"]);
  });
});

describe('readPluginManifest at install: data files checked or not', () => {
  it('files: false skips only the check that named data files exist; the schema and the paths are still checked', () => {
    const root = join(dir, 'files-later');
    mkdirSync(root, { recursive: true });
    const write = (dataset: Record<string, unknown>) =>
      writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'files-later', version: '1.0.0', 'hpt-bench': { apiVersion: 1, contributes: { datasets: [{ id: 'd', scorer: 'boolean', hpiDataset: 1, fields: { question: 'q' }, target: { field: 'a', type: 'boolean' }, ...dataset }] } } }));
    write({ file: './data/made-by-postinstall.jsonl' });
    expect(errorOf(() => readPluginManifest(root, 'installed')).message).toBe(`plugin files-later: dataset 'd' file names ./data/made-by-postinstall.jsonl, which does not exist in ${root}`);
    expect(readPluginManifest(root, 'installed', { files: false })?.manifest.contributes.datasets?.[0]?.id).toBe('d');
    write({ file: '../outside.jsonl' });
    expect(errorOf(() => readPluginManifest(root, 'installed', { files: false })).code).toBe('E_MANIFEST');
    write({ file: './data/x.jsonl', hpiDataset: 'high' });
    expect(errorOf(() => readPluginManifest(root, 'installed', { files: false })).message).toMatch(/hpiDataset: must be number/);
  });
});

describe('npmFailure: one line from npm’s error output', () => {
  it('names what was installed, npm’s code and its first error line; usage errors exit 2, network errors exit 1', () => {
    const enoent = npmFailure('file:/x.tgz', {
      code: 254,
      stdout: '',
      stderr: "npm error code ENOENT\nnpm error syscall open\nnpm error path /tmp/x.tgz\nnpm error errno -2\nnpm error enoent ENOENT: no such file or directory, open '/tmp/x.tgz'\nnpm error enoent This is related to npm not being able to find a file.\nnpm error A complete log of this run can be found in: /home/me/.npm/_logs/x.log\n",
    });
    expect([enoent.code, enoent.exitCode, enoent.message]).toEqual(['E_PLUGIN', 2, "cannot install file:/x.tgz: npm failed (ENOENT): ENOENT: no such file or directory, open '/tmp/x.tgz'"]);
    const e404 = npmFailure('nope', { code: 1, stdout: '', stderr: "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/nope - Not found\nnpm error 404\n" });
    expect([e404.code, e404.exitCode, e404.message]).toEqual(['E_PLUGIN', 2, 'cannot install nope: npm failed (E404): 404 Not Found - GET https://registry.npmjs.org/nope - Not found']);
    const offline = npmFailure('p', { code: 1, stdout: '', stderr: 'npm error code ENOTFOUND\nnpm error syscall getaddrinfo\nnpm error network request to https://registry.npmjs.org/p failed\n' });
    expect([offline.code, offline.exitCode]).toEqual(['E_ENDPOINT', 1]);
    expect(npmFailure('p', { code: null, stdout: '', stderr: '' }).message).toBe('cannot install p: npm failed: exit code null');
  });
});
