/**
 * The package.json of every workspace package is ready for `npm publish` (docs/release.md), checked cheaply without
 * npm: name in the @hpt-bench scope, the root's version (lockstep), not private, a description, MIT license, the
 * repository (with its directory), engines.node, `files`, `main`/`types`/`exports` whose targets are in `files`, and
 * @hpt-bench/* dependencies pinned to the lockstep version. The root package stays the private workspace root from
 * which scripts/pack-release.mjs derives the installable CLI; it must list every workspace package as a dependency
 * (so the CLI tarball bundles them) and carry the fields the CLI's package.json inherits.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  description?: string;
  license?: string;
  repository?: { type: string; url: string; directory?: string };
  engines?: { node?: string };
  files?: string[];
  main?: string;
  types?: string;
  exports?: Record<string, string | { types?: string; default?: string }>;
  dependencies?: Record<string, string>;
  bin?: Record<string, string>;
  workspaces?: string[];
}
const read = (dir: string): Manifest => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;
const root = read('.');
const workspaces = root.workspaces!.flatMap((w) => (w.endsWith('/*') ? readdirSync(join(ROOT, w.slice(0, -2))).map((d) => `${w.slice(0, -2)}/${d}`) : [w])).filter((d) => existsSync(join(ROOT, d, 'package.json')));

/** Whether the package path `p` (./dist/index.js) is covered by one of the `files` entries. */
function covered(files: string[], p: string): boolean {
  const rel = p.replace(/^\.\//, '');
  return files.some((f) => !f.startsWith('!') && (rel === f || rel.startsWith(`${f.replace(/\/?\*\*.*$/, '').replace(/\/$/, '')}/`)));
}

describe('release manifests', () => {
  it('finds the workspace packages', () => {
    expect(workspaces).toEqual(expect.arrayContaining(['packages/sdk', 'packages/sandbox', 'packages/core', 'packages/cli', 'plugins/baselines']));
  });

  it.each(workspaces)('%s is publishable, in lockstep with the root version', (dir) => {
    const m = read(dir);
    expect(m.name).toMatch(/^@hpt-bench\/[a-z0-9-]+$/);
    expect(m.version).toBe(root.version);
    expect(m.private).toBeUndefined();
    expect(m.description?.length).toBeGreaterThan(20);
    expect(m.license).toBe('MIT');
    expect(m.repository).toEqual({ type: 'git', url: root.repository!.url, directory: dir });
    expect(m.engines?.node).toBe(root.engines!.node);
    expect(m.files?.length).toBeGreaterThan(0);
    expect(m.main).toBe('./dist/index.js');
    expect(m.types).toBe('./dist/index.d.ts');
    const dot = m.exports?.['.'];
    const targets = [m.main!, m.types!, ...(typeof dot === 'string' ? [dot] : [dot?.types, dot?.default].filter((x): x is string => !!x))];
    for (const t of targets) expect(covered(m.files!, t), `${dir}: ${t} in files`).toBe(true);
    expect(m.exports?.['./package.json']).toBe('./package.json');
    for (const [dep, range] of Object.entries(m.dependencies ?? {})) {
      if (dep.startsWith('@hpt-bench/')) {
        expect(range, `${dir} -> ${dep}`).toBe(root.version);
        expect(workspaces.map((w) => read(w).name)).toContain(dep);
      }
    }
  });

  it('the root (the CLI) depends on every workspace package at the lockstep version, with a bin, license, repository and engines', () => {
    expect(root).toMatchObject({ name: 'hpt-bench', private: true, license: 'MIT', bin: { 'hpt-bench': './bin/run.js' }, engines: { node: '>=20.0.0' } });
    expect(root.repository).toEqual({ type: 'git', url: 'git+https://github.com/hpt-bench/hpt-bench.git' });
    const names = workspaces.map((w) => read(w).name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) {
      // @hpt-bench/sdk, sandbox and core reach the root through cli and the plugins; pack-release adds them
      if (['@hpt-bench/sdk', '@hpt-bench/sandbox'].includes(n)) continue;
      expect(root.dependencies?.[n], n).toBe(root.version);
    }
  });
});
