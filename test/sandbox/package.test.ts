/**
 * `@hpt-bench/sandbox` as a package (issue 26, item 4): `npm pack` ships the JavaScript with its types, the Python
 * programs and the setup script it reads at runtime, and no sources or build leftovers; those programs are real files
 * read relative to the module (no Python or shell program is spliced together in the TypeScript); the package's
 * manifest has what every workspace package has.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { sourceFiles } from '../helpers/sources.js';

const PKG = join(ROOT, 'packages/sandbox');

/** A line of a Python or shell program (the sandbox's TypeScript held them in template strings before issue 26). */
const PROGRAM_LINE = /^\s*(import [\w, ]+$|def \w+\(|mount -t |exec \$guard |fail\(\) \{)/m;

/** Every file under `dir`, relative to the package. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(PKG, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(PKG, join(e.parentPath, e.name)))
    .sort();
}

describe('@hpt-bench/sandbox package', () => {
  it('npm pack ships the code with its types, every Python program and the setup script, and no sources', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PKG, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [pack] = JSON.parse(out) as [{ name: string; version: string; files: { path: string }[] }];
    const files = pack.files.map((f) => f.path).sort();
    expect(pack).toMatchObject({ name: '@hpt-bench/sandbox', version: '0.1.0' });
    for (const f of ['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/sandbox.js', 'dist/check.js', 'dist/programs.js', 'python/harness.py', 'python/probe.py', 'sh/setup.sh']) expect(files).toContain(f);
    const programs = [...filesUnder('python'), ...filesUnder('sh')];
    expect(programs.length).toBeGreaterThan(20);
    for (const p of programs) expect(files).toContain(p);
    expect(files.filter((f) => /\.map$|\.tsbuildinfo$|^src\//.test(f))).toEqual([]);
  });

  it('has the manifest of a workspace package: version in lockstep, ESM, MIT, Node >= 20, the SDK as its only dependency', () => {
    const pj = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8')) as Record<string, unknown>;
    const core = JSON.parse(readFileSync(join(ROOT, 'packages/core/package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
    expect(pj).toMatchObject({ name: '@hpt-bench/sandbox', version: core.version, type: 'module', license: 'MIT', engines: { node: '>=20.0.0' }, types: './dist/index.d.ts' });
    expect(typeof pj.description).toBe('string');
    expect(pj.dependencies).toEqual({ '@hpt-bench/sdk': core.version });
    expect(core.dependencies['@hpt-bench/sandbox']).toBe(core.version);
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[]; scripts: Record<string, string> };
    expect(root.workspaces).toContain('packages/sandbox');
    // built after the SDK and before the core, which imports it
    for (const script of ['build', 'clean']) expect(root.scripts[script]).toMatch(/packages\/sdk packages\/sandbox packages\/core /);
  });

  it('its programs are files: no Python program or shell script is written inside the TypeScript', () => {
    // the check finds them where they were: the plugin's sandbox.ts and sandbox-check.ts before issue 26, item 4
    expect(PROGRAM_LINE.test('const HARNESS = `import os as _o\ndef _hpt_harness():\n`;')).toBe(true);
    expect(PROGRAM_LINE.test('const SETUP = `\nfail() { echo x; }\nmount -t tmpfs tmpfs root\n`;')).toBe(true);
    expect(PROGRAM_LINE.test('const p = `\nimport json, os\nr = {}\n`;')).toBe(true);
    expect(PROGRAM_LINE.test("import os from 'node:os';\nimport { x } from './y.js';")).toBe(false);
    for (const file of sourceFiles(join(PKG, 'src'))) {
      const code = readFileSync(file, 'utf8');
      const rel = relative(PKG, file);
      // a Python import or def, or a step of the setup script, at the start of a line (TypeScript imports have quotes)
      expect(code, rel).not.toMatch(PROGRAM_LINE);
    }
  });
});
