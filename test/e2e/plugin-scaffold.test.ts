/**
 * `hpt-bench plugins new DIR --kind <kind> [--typescript]`: every kind's scaffold, in JavaScript
 * and in TypeScript (compiled with the repository's tsc), is a plugin package that `--plugin DIR` loads: `list` shows its
 * contribution, and a run uses it. The scaffold's `@hpt-bench/sdk` dependency is linked to the repository's SDK here
 * (test/e2e/third-party-plugin.test.ts installs a plugin with its own packed SDK copy).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';

const KINDS = ['dataset', 'strategy', 'model', 'scorer', 'selector'] as const;
type Kind = (typeof KINDS)[number];
const PLURAL: Record<Kind, string> = { dataset: 'datasets', strategy: 'strategies', model: 'models', scorer: 'scorers', selector: 'selectors' };

let work: string;
let env: Record<string, string>;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'hpt-scaffold-'));
  env = { XDG_DATA_HOME: join(work, 'xdg/data'), XDG_CONFIG_HOME: join(work, 'xdg/config'), XDG_CACHE_HOME: join(work, 'xdg/cache'), HOME: join(work, 'home') };
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function ok(r: CliResult): string {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

/** The run that exercises each kind's scaffold `dir` (id `id`), and what its summary must say. */
function runOf(kind: Kind, id: string, dir: string, extraDir: string): { args: string[]; expect: (s: Record<string, unknown>) => void } {
  const common = ['--json', '--store', join(dir, 'store.db'), '--plugin', dir];
  switch (kind) {
    case 'model':
      // `<id>:True` answers True to every call: the boolq mini samples whose target is true are solved at level 1
      return { args: ['run', '--dataset', 'boolq', '--split', 'mini', '--model', `${id}:True`, ...common], expect: (s) => expect(s).toMatchObject({ model: `${id}:True`, n: 8, complete: true, levelCounts: { '1': 4, unsolved: 4 } }) };
    case 'strategy':
      return {
        args: ['run', '--dataset', 'boolq', '--split', 'mini', '--ladder', `hpf-${id}`, '--model', 'baseline:random', '--seed', '3', ...common],
        expect: (s) => expect(s).toMatchObject({ ladder: ['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge', id], n: 8, complete: true }),
      };
    case 'dataset':
      return { args: ['run', '--dataset', id, '--model', 'baseline:oracle', ...common], expect: (s) => expect(s).toMatchObject({ dataset: id, n: 3, hpi: 1, hpiDataset: 1, accuracy: 1, complete: true }) };
    case 'selector':
      return {
        args: ['run', '--dataset', 'boolq', '--split', 'mini', '--mode', 'adaptive', '--selector', id, '--model', 'baseline:oracle', ...common],
        // the oracle solves at the level chosen at iteration 1 (level 1): 1 + 1 for every sample
        expect: (s) => expect(s).toMatchObject({ mode: 'adaptive', n: 8, hpi: 2, accuracy: 1, complete: true }),
      };
    case 'scorer':
      // a second plugin's dataset names the scaffold's scorer; the oracle renders the target, which it accepts
      return { args: ['run', '--dataset', `uses-${id}`, '--model', 'baseline:oracle', '--plugin', extraDir, ...common], expect: (s) => expect(s).toMatchObject({ dataset: `uses-${id}`, n: 2, hpi: 1, accuracy: 1, complete: true }) };
  }
}

/** A declarative dataset (two exact-answer questions) scored by scorer `scorer`, in its own plugin dir. */
function datasetUsing(scorer: string): string {
  const dir = join(work, `uses-${scorer}`);
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'data/q.jsonl'), '{"id":"a","question":"Say yes.","answer":"yes"}\n{"id":"b","question":"Say no.","answer":"no"}\n');
  const manifest = { apiVersion: 1, contributes: { datasets: [{ id: `uses-${scorer}`, scorer, hpiDataset: 1, file: './data/q.jsonl', fields: { question: 'question' }, target: { field: 'answer', type: 'string' } }] } };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `uses-${scorer}`, version: '1.0.0', type: 'module', oclif: {}, 'hpt-bench': manifest }));
  return dir;
}

describe.sequential.each([false, true])('plugins new (typescript: %s)', (typescript) => {
  const lang = typescript ? 'ts' : 'js';
  const dirs = {} as Record<Kind, string>;

  beforeAll(async () => {
    for (const kind of KINDS) {
      dirs[kind] = join(work, lang, `hpt-bench-plugin-${lang}-${kind}`);
      const r = await runCli(['plugins', 'new', dirs[kind], '--kind', kind, ...(typescript ? ['--typescript'] : []), '--json'], { env });
      const made = JSON.parse(ok(r)) as { name: string; id: string; kind: string; files: string[] };
      expect(made).toMatchObject({ name: `hpt-bench-plugin-${lang}-${kind}`, id: `${lang}-${kind}`, kind, typescript });
      const sdk = 'vendor/hpt-bench-sdk-0.1.0.tgz';
      expect(made.files).toEqual(typescript ? ['.gitignore', 'README.md', 'package.json', 'src/index.ts', 'tsconfig.json', sdk] : ['.gitignore', 'README.md', 'index.js', 'package.json', sdk]);
    }
  }, 120_000);

  it('writes a package.json with the manifest, oclif: {}, the vendored SDK tarball as a bundled dependency, and a README', () => {
    for (const kind of KINDS) {
      const pj = JSON.parse(readFileSync(join(dirs[kind], 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(pj).toMatchObject({ type: 'module', oclif: {}, dependencies: { '@hpt-bench/sdk': 'file:vendor/hpt-bench-sdk-0.1.0.tgz' }, bundleDependencies: ['@hpt-bench/sdk'], 'hpt-bench': { apiVersion: 1 } });
      // npm test is the conformance kit (after tsc for TypeScript)
      expect((pj.scripts as Record<string, string>).test).toBe(typescript ? 'tsc && hpt-bench plugins verify .' : 'hpt-bench plugins verify .');
      // the vendored SDK is the tarball npm packs from packages/sdk (package/package.json inside names it)
      const list = spawnSync('tar', ['-tzf', join(dirs[kind], 'vendor/hpt-bench-sdk-0.1.0.tgz')], { encoding: 'utf8' });
      expect(list.stdout.split('\n')).toEqual(expect.arrayContaining(['package/package.json', 'package/dist/index.js', 'package/dist/index.d.ts']));
      expect(readFileSync(join(dirs[kind], '.gitignore'), 'utf8')).toContain('!vendor/*.tgz');
      const contributes = (pj['hpt-bench'] as { contributes: Record<string, { id: string; module: string }[]> }).contributes;
      expect(contributes[PLURAL[kind]]![0]).toMatchObject({ id: `${lang}-${kind}`, module: typescript ? './dist/index.js' : './index.js' });
      const readme = readFileSync(join(dirs[kind], 'README.md'), 'utf8');
      for (const step of ['npm test', 'hpt-bench list --plugin .', 'npm pack', `hpt-bench plugins install file:./hpt-bench-plugin-${lang}-${kind}-0.1.0.tgz`, 'bundleDependencies']) expect(readme, step).toContain(step);
    }
  });

  it('each scaffold loads with --plugin DIR and `list` shows its contribution', async () => {
    const listed = JSON.parse(ok(await runCli(['list', '--json', ...KINDS.flatMap((k) => ['--plugin', dirs[k]])], { env }))) as Record<string, { id: string; plugin: string; origin: string; levels?: string[] }[]>;
    for (const kind of KINDS) {
      const mine = listed[PLURAL[kind]]!.filter((c) => c.plugin === `hpt-bench-plugin-${lang}-${kind}`);
      expect(mine.map((c) => [c.id, c.origin]), kind).toEqual([[`${lang}-${kind}`, 'local']]);
    }
    expect(listed.ladders!.find((l) => l.id === `hpf-${lang}-strategy`)?.levels?.at(-1)).toBe(`${lang}-strategy`);
  });

  it(`each scaffold runs (${typescript ? 'after tsc' : 'no build step'})`, async () => {
    for (const kind of KINDS) {
      mkdirSync(join(dirs[kind], 'node_modules/@hpt-bench'), { recursive: true });
      symlinkSync(join(ROOT, 'packages/sdk'), join(dirs[kind], 'node_modules/@hpt-bench/sdk'));
    }
    if (typescript) {
      const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', ...KINDS.map((k) => dirs[k])], { encoding: 'utf8' });
      expect(tsc.stdout + tsc.stderr).toBe('');
      for (const kind of KINDS) expect(existsSync(join(dirs[kind], 'dist/index.js'))).toBe(true);
    }
    for (const kind of KINDS) {
      const id = `${lang}-${kind}`;
      const run = runOf(kind, id, dirs[kind], datasetUsing(id));
      const r = await runCli(run.args, { env });
      expect(r.code, `${kind}: ${r.stderr}`).toBe(0);
      run.expect(JSON.parse(r.stdout) as Record<string, unknown>);
    }
  });
});

describe('plugins new --sdk registry', () => {
  it('depends on ^<version> of the SDK from the registry and writes no vendor/ tarball', async () => {
    const dir = join(work, 'from-registry');
    const made = JSON.parse(ok(await runCli(['plugins', 'new', dir, '--kind', 'scorer', '--sdk', 'registry', '--json'], { env }))) as { sdk: string; files: string[] };
    expect(made).toMatchObject({ sdk: '^0.1.0', files: ['.gitignore', 'README.md', 'index.js', 'package.json'] });
    const pj = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pj).toMatchObject({ dependencies: { '@hpt-bench/sdk': '^0.1.0' }, bundleDependencies: ['@hpt-bench/sdk'] });
    expect(existsSync(join(dir, 'vendor'))).toBe(false);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).not.toContain('vendor');
  });
});

describe('plugins new refuses', () => {
  it('a directory that is not empty, and an invalid id', async () => {
    const dir = join(work, 'taken');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'keep.txt'), 'x');
    const taken = await runCli(['plugins', 'new', dir, '--kind', 'model'], { env });
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toBe(`Error: ${dir} already exists and is not an empty directory; choose a new directory for the plugin\n`);
    expect(readFileSync(join(dir, 'keep.txt'), 'utf8')).toBe('x');
    const bad = await runCli(['plugins', 'new', join(work, 'fresh'), '--kind', 'model', '--id', 'Bad Id'], { env });
    expect(bad.stderr).toMatch(/^Error: contribution id 'Bad Id' is not valid: .* \(--id\)\n$/);
    expect(existsSync(join(work, 'fresh'))).toBe(false);
  });
});
