/**
 * The import graph reads in layers (DESIGN.md "Layout"): plugins stand on `@hpt-bench/sdk` only, the code sandbox
 * (`@hpt-bench/sandbox`) stands on the SDK only, the core implements the SDK and uses the sandbox, the CLI stands on
 * the core; the SDK imports nothing of ours and has no native dependency; nothing in `packages/` imports from
 * `plugins/`. Every import specifier of every source file is read (static `from`, `import()`,
 * `require()`, `export ... from`), and every package.json's dependencies.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { dataFiles, sourceFiles as sources } from '../helpers/sources.js';

/** Every module specifier a file names, with comments removed first. */
export function specifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const out: string[] = [];
  const patterns = [/\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /^\s*import\s*['"]([^'"]+)['"]/gm];
  for (const re of patterns) for (const m of code.matchAll(re)) out.push(m[1]!);
  return out;
}

const ours = (spec: string) => spec.startsWith('@hpt-bench/');
const packageDirs = (parent: string) => readdirSync(join(ROOT, parent)).filter((d) => statSync(join(ROOT, parent, d)).isDirectory()).map((d) => join(ROOT, parent, d));

/** Violations of `allowed` by the imports of the sources under `<pkg>/src`: `file: specifier`. */
function violations(pkg: string, allowed: (spec: string, file: string) => boolean): string[] {
  const out: string[] = [];
  for (const file of sources(join(pkg, 'src'))) {
    for (const spec of specifiers(readFileSync(file, 'utf8'))) if (!allowed(spec, file)) out.push(`${relative(ROOT, file)}: ${spec}`);
  }
  return out;
}

/** A relative specifier that stays inside `root`. */
const inside = (root: string) => (spec: string, file: string) => !spec.startsWith('.') || (resolve(dirname(file), spec) + sep).startsWith(root + sep);

describe('the import graph reads in layers', () => {
  it('finds the specifiers it must judge (the reader itself can fail)', () => {
    expect(specifiers(`import a from 'x';\n// import b from 'commented';\nconst c = await import('y'); export { d } from "./z.js";\nimport 'side';\n/* from 'no' */`)).toEqual(['x', './z.js', 'y', 'side']);
  });

  it('every plugin imports only @hpt-bench/sdk of ours, and nothing outside its own directory', () => {
    const bad: string[] = [];
    for (const dir of packageDirs('plugins')) {
      const local = inside(dir);
      bad.push(...violations(dir, (spec, file) => (ours(spec) ? spec === '@hpt-bench/sdk' : local(spec, file))));
      const pj = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
        for (const dep of Object.keys(pj[field] ?? {})) if (ours(dep) && dep !== '@hpt-bench/sdk') bad.push(`${relative(ROOT, dir)}/package.json ${field}: ${dep}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the SDK imports nothing of ours and depends on no native module', () => {
    const sdk = join(ROOT, 'packages/sdk');
    expect(violations(sdk, (spec, file) => !ours(spec) && inside(sdk)(spec, file))).toEqual([]);
    const pj = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    const native = Object.keys(pj.dependencies ?? {}).filter((d) => {
      const depPj = JSON.parse(readFileSync(join(ROOT, 'node_modules', d, 'package.json'), 'utf8')) as { gypfile?: boolean; scripts?: Record<string, string> };
      return depPj.gypfile === true || /node-gyp|prebuild/.test(JSON.stringify(depPj.scripts ?? {}));
    });
    expect(native).toEqual([]);
  });

  it('the sandbox imports only @hpt-bench/sdk of ours, depends on nothing else of ours, and nothing outside its directory', () => {
    const sandbox = join(ROOT, 'packages/sandbox');
    expect(violations(sandbox, (spec, file) => (ours(spec) ? spec === '@hpt-bench/sdk' : inside(sandbox)(spec, file)))).toEqual([]);
    const pj = JSON.parse(readFileSync(join(sandbox, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const deps = (['dependencies', 'peerDependencies', 'optionalDependencies'] as const).flatMap((f) => Object.keys(pj[f] ?? {}));
    expect(deps.filter(ours)).toEqual(['@hpt-bench/sdk']);
  });

  it('the core and the CLI import no plugin: the core stands on the SDK and the sandbox, the CLI on the core', () => {
    const core = join(ROOT, 'packages/core');
    const cli = join(ROOT, 'packages/cli');
    expect(violations(core, (spec, file) => (ours(spec) ? spec === '@hpt-bench/sdk' || spec === '@hpt-bench/sandbox' : inside(core)(spec, file)))).toEqual([]);
    expect(violations(cli, (spec, file) => (ours(spec) ? spec === '@hpt-bench/core' || spec === '@hpt-bench/sdk' : inside(cli)(spec, file)))).toEqual([]);
  });

  it('the modules of the SDK, the sandbox, the core and the CLI import one another without a cycle (type-only imports aside)', () => {
    expect(importCycles({ a: ['b'], b: ['c', 'd'], c: ['a'], d: [] })).toEqual(['a -> b -> c -> a']);
    for (const pkg of ['packages/sdk', 'packages/sandbox', 'packages/core', 'packages/cli']) {
      const graph: Record<string, string[]> = {};
      for (const file of sources(join(ROOT, pkg, 'src'))) {
        const code = readFileSync(file, 'utf8').replace(/^\s*(?:import|export)\s+type\b[^;]*;/gm, '');
        graph[relative(ROOT, file)] = specifiers(code)
          .filter((spec) => spec.startsWith('.'))
          .map((spec) => relative(ROOT, resolve(dirname(file), spec)).replace(/\.js$/, '.ts'));
      }
      expect(importCycles(graph), pkg).toEqual([]);
    }
  });
});

/** The import cycles of `graph` (module -> the modules it imports), each as `a -> b -> a` (depth-first, from each module in order). */
function importCycles(graph: Record<string, string[]>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (node: string, path: string[]): void => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph[node] ?? []) {
      if (!(next in graph)) continue;
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].join(' -> '));
      else if (!state.has(next)) visit(next, path);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of Object.keys(graph)) if (!state.has(node)) visit(node, []);
  return cycles;
}

describe('store backends are chosen in one place', () => {
  it('only store/backends.ts asks whether a location is a database URL (isPostgresUrl, or a postgres:// test of its own)', () => {
    const allowed = new Set(['packages/core/src/store/backends.ts', 'packages/core/src/store/postgres.ts', 'packages/core/src/store/location.ts']);
    const hits: string[] = [];
    for (const pkg of ['packages/sdk', 'packages/core', 'packages/cli']) {
      for (const file of sources(join(ROOT, pkg, 'src'))) {
        const rel = relative(ROOT, file);
        if (allowed.has(rel)) continue;
        const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
        // a call of the test, or a test of its own (a prefix check or a /^postgres.../ pattern); help texts may name URLs
        if (/\bisPostgresUrl\s*\(|startsWith\(\s*['"]postgres|\/\^postgres/i.test(code)) hits.push(rel);
      }
    }
    expect(hits).toEqual([]);
  });
});

/** Each `new URL('<path>', import.meta.url)` path of a source file (the files of its own package a module opens). */
export function ownFileUrls(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  return [...code.matchAll(/new\s+URL\(\s*['"`]([^'"`]+)['"`]\s*,\s*import\.meta\.url\s*\)/g)].map((m) => m[1]!);
}

describe('the core ships no benchmark data (issue 26, item 2)', () => {
  const PACKAGES = ['packages/sdk', 'packages/core', 'packages/cli'];

  it('no data file of packages/{sdk,core,cli} is a prompt pack or a plugin manifest with contributions', () => {
    const bad: string[] = [];
    const seen: string[] = [];
    for (const pkg of PACKAGES) {
      for (const file of dataFiles(join(ROOT, pkg))) {
        if (!/\.json$/i.test(file)) continue;
        const rel = relative(ROOT, file).split(sep).join('/');
        seen.push(rel);
        const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
        if (json && typeof json === 'object' && 'strategies' in json) bad.push(`${rel}: a prompt pack (it has "strategies")`);
        if (json && typeof json === 'object' && 'hpt-bench' in json) bad.push(`${rel}: a plugin manifest ("hpt-bench")`);
      }
    }
    expect(seen).toEqual(expect.arrayContaining(['packages/core/package.json', 'packages/sdk/schemas/prompt-pack.schema.json']));
    expect(bad).toEqual([]);
    // the reader can fail: a built-in plugin's pack and manifest are both recognised
    const pack = JSON.parse(readFileSync(join(ROOT, 'plugins/hpf-strategies/packs/generic.json'), 'utf8')) as object;
    const manifest = JSON.parse(readFileSync(join(ROOT, 'plugins/hpf-strategies/package.json'), 'utf8')) as object;
    expect(['strategies' in pack, 'hpt-bench' in manifest]).toEqual([true, true]);
  });

  it('the modules of packages/{sdk,core,cli} open no file of their own package but the SDK\'s schemas and precompiled validators', () => {
    expect(ownFileUrls("const a = new URL('../../packs/generic.json', import.meta.url); // new URL('x', import.meta.url)")).toEqual(['../../packs/generic.json']);
    // the SDK's schemas, and the viewer's own page files (packages/cli/view: index.html, app.js, view.css; no data)
    const allowed = new Set(['packages/sdk/src/schema.ts: ../schemas/', 'packages/sdk/src/schema.ts: ../dist/schemas.precompiled.cjs', 'packages/cli/src/view/server.ts: ../../view/']);
    const opened: string[] = [];
    for (const pkg of PACKAGES) {
      for (const file of sources(join(ROOT, pkg, 'src'))) {
        for (const url of ownFileUrls(readFileSync(file, 'utf8'))) opened.push(`${relative(ROOT, file).split(sep).join('/')}: ${url}`);
      }
    }
    expect(opened.filter((o) => !allowed.has(o))).toEqual([]);
    expect(opened.length).toBeGreaterThan(0);
  });
});

