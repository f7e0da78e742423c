/**
 * End-to-end: the install policy of `hpt-bench plugins install` (README "What hpt-bench guarantees", docs/plugins.md
 * "Packing and installing"), through the built CLI in a sandboxed oclif data dir (XDG_* and HOME -> temp dirs, npm
 * offline; every plugin is a local `npm pack` tarball, nothing comes from a registry).
 *
 * - npm lifecycle scripts are off unless `--allow-scripts`: a data-only plugin whose `postinstall` writes a marker file
 *   is installed without the marker ever appearing, and the command names the script it did not run; with
 *   `--allow-scripts` the command names the script before npm runs it, and the marker appears.
 * - the manifest is validated before anything is installed: an invalid one is refused with exit 2 and one line naming
 *   the field, its scripts never run (even with `--allow-scripts`), and nothing stays in the data dir.
 * - ids that a built-in or installed plugin already contributes are refused at install, and the built-in keeps working;
 *   so is a package named like a built-in. Reinstalling the same plugin is not a collision.
 * - `file:./x.tgz` and `./x.tgz` are resolved against the current directory (the CLI runs in a directory that is
 *   neither the repository nor the data dir).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorLine, ROOT, runCli, type CliResult } from '../helpers/cli.js';

const NPM = join(ROOT, 'node_modules/npm/bin/npm-cli.js');

/** The temp dir of this file: plugin sources, tarballs, sandboxes and marker files. */
let work: string;

/** A fresh oclif sandbox (data, config, cache, HOME and npm cache under a new temp dir; npm offline). */
function sandbox(): Record<string, string> {
  const dir = mkdtempSync(join(work, 'box-'));
  const home = join(dir, 'home');
  mkdirSync(home);
  return { XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_CACHE_HOME: join(dir, 'cache'), HOME: home, npm_config_offline: 'true', npm_config_cache: join(dir, 'npm-cache'), npm_config_update_notifier: 'false' };
}
/** oclif's data dir of hpt-bench in a sandbox: where `plugins install` puts packages. */
const dataDir = (env: Record<string, string>) => join(env.XDG_DATA_HOME!, 'hpt-bench');

/** A directory that is neither the repository nor the data dir, holding a copy of `tarball`: the CLI's cwd. */
function cwdWith(tarball: string): string {
  const dir = mkdtempSync(join(work, 'cwd-'));
  copyFileSync(tarball, join(dir, tarball.split('/').pop()!));
  return dir;
}

/** The data-only test plugin's dataset: three yes/no questions. */
const DATASET = { scorer: 'boolean', hpiDataset: 1, file: './data/marks.jsonl', fields: { question: 'question' }, target: { field: 'answer', type: 'boolean' } };

interface Made {
  name: string;
  tarball: string;
  marker: string;
}

/**
 * Write a data-only plugin (a dataset, a declarative strategy) whose `postinstall` runs `node ./mark.cjs`, which writes
 * the uid it ran as to a marker file of its own, and pack it with `npm pack --ignore-scripts`. `extra.pkg` overrides
 * package.json fields; `extra.files` adds files (`MARKER` in them is replaced by the marker path as a JS string).
 */
function makePlugin(name: string, manifest: unknown, extra: { pkg?: Record<string, unknown>; files?: Record<string, string> } = {}): Made {
  const dir = mkdtempSync(join(work, 'src-'));
  const marker = join(work, `marker-${name.replace(/[@/]/g, '_')}-${dir.split('-').pop()}`);
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data/marks.jsonl'), ['yes', 'no', 'yes'].map((a, i) => JSON.stringify({ id: `m${i}`, question: `question ${i}`, answer: a === 'yes' })).join('\n') + '\n');
  writeFileSync(join(dir, 'mark.cjs'), `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'postinstall ran as uid ' + process.getuid() + '\\n');\n`);
  for (const [rel, text] of Object.entries(extra.files ?? {})) writeFileSync(join(dir, rel), text.replaceAll('MARKER', JSON.stringify(marker)));
  const pj = { name, version: '1.0.0', description: 'hpt-bench install-policy test plugin', license: 'MIT', files: ['data', '*.cjs'], oclif: {}, scripts: { postinstall: 'node ./mark.cjs' }, 'hpt-bench': manifest, ...extra.pkg };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pj, null, 2));
  const r = spawnSync(process.execPath, [NPM, 'pack', '--json', '--ignore-scripts', '--pack-destination', work, '--offline', '--loglevel=error'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: join(work, 'npm-home'), npm_config_cache: join(work, 'npm-cache') },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`npm pack failed: ${r.stderr}`);
  const tarball = join(work, (JSON.parse(r.stdout) as { filename: string }[])[0]!.filename);
  return { name, tarball, marker };
}

const manifestWith = (contributes: Record<string, unknown>) => ({ apiVersion: 1, contributes });

/** What a sandbox's data dir says is installed: the packages in node_modules and the oclif plugin records. */
function installed(env: Record<string, string>, name: string): { files: boolean; dependency: boolean; record: boolean } {
  const pjPath = join(dataDir(env), 'package.json');
  const pj = existsSync(pjPath) ? (JSON.parse(readFileSync(pjPath, 'utf8')) as { dependencies?: Record<string, string>; oclif?: { plugins?: { name: string }[] } }) : {};
  return { files: existsSync(join(dataDir(env), 'node_modules', name)), dependency: name in (pj.dependencies ?? {}), record: (pj.oclif?.plugins ?? []).some((p) => p.name === name) };
}
const NOTHING = { files: false, dependency: false, record: false };
const EVERYTHING = { files: true, dependency: true, record: true };

/** `list --json` in a sandbox: the ids of each kind a plugin contributes (stderr must be empty: no plugin is ignored). */
async function listedIds(env: Record<string, string>, plugin: string): Promise<Record<string, string[]>> {
  const r = await runCli(['list', '--json'], { env });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const all = JSON.parse(r.stdout) as Record<string, { id: string; plugin: string }[]>;
  return Object.fromEntries(Object.entries(all).map(([k, list]) => [k, list.filter((c) => c.plugin === plugin).map((c) => c.id)]).filter(([, ids]) => ids.length > 0));
}

const install = (args: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> => runCli(['plugins', 'install', ...args], { env, ...(cwd ? { cwd } : {}), timeoutMs: 120_000 });

let marker: Made;
let invalid: Made;
let boolq: Made;
let copy: Made;
let builtinName: Made;
let noManifest: Made;
let generated: Made;
let missing: Made;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'hpt-plugin-install-'));
  mkdirSync(join(work, 'npm-home'));
  marker = makePlugin('hpt-bench-plugin-marker', manifestWith({ datasets: [{ id: 'marks', ...DATASET }], strategies: [{ id: 'mark-level', kind: 'single-call', template: 'Q: {question}' }] }));
  invalid = makePlugin('hpt-bench-plugin-invalid', manifestWith({ datasets: [{ id: 'bad-marks', ...DATASET, hpiDataset: 'high' }] }));
  boolq = makePlugin('hpt-bench-plugin-boolq', manifestWith({ datasets: [{ id: 'boolq', ...DATASET }] }));
  copy = makePlugin('hpt-bench-plugin-marker-copy', manifestWith({ strategies: [{ id: 'mark-level', kind: 'single-call', template: 'Again: {question}' }] }));
  builtinName = makePlugin('@hpt-bench/metrics', manifestWith({ strategies: [{ id: 'fake-metrics-level', kind: 'single-call', template: '{question}' }] }));
  noManifest = makePlugin('hpt-bench-plugin-none', undefined);
  // data its postinstall makes, and data that nothing makes
  const gen = `const fs = require('node:fs');\nfs.writeFileSync('data/gen.jsonl', JSON.stringify({ id: 'g1', question: 'made at install?', answer: true }) + '\\n');\nfs.writeFileSync(MARKER, 'made\\n');\n`;
  generated = makePlugin('hpt-bench-plugin-generated', manifestWith({ datasets: [{ id: 'gen', ...DATASET, file: './data/gen.jsonl' }] }), { pkg: { scripts: { postinstall: 'node ./gen.cjs' } }, files: { 'gen.cjs': gen } });
  missing = makePlugin('hpt-bench-plugin-missing', manifestWith({ datasets: [{ id: 'missing', ...DATASET, file: './data/missing.jsonl' }] }));
}, 60_000);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('npm lifecycle scripts are off unless --allow-scripts', () => {
  it('`plugins install file:./x.tgz` (relative to the cwd) installs the plugin, never runs its postinstall, and names the script it skipped', async () => {
    const env = sandbox();
    const cwd = cwdWith(marker.tarball);
    const r = await install([`file:./${marker.tarball.split('/').pop()}`], env, cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(marker.marker)).toBe(false);
    expect(r.stdout).toBe('installed hpt-bench-plugin-marker@1.0.0 (datasets: marks; strategies: mark-level)\n');
    expect(r.stderr).toBe(
      'warning: install scripts not run (npm lifecycle scripts are off; `plugins install --allow-scripts` runs them):\n  hpt-bench-plugin-marker@1.0.0 postinstall: node ./mark.cjs\n',
    );
    expect(installed(env, marker.name)).toEqual(EVERYTHING);
    // npm recorded the tarball where it is, not in the data dir
    expect(JSON.parse(readFileSync(join(dataDir(env), 'package.json'), 'utf8')).oclif.plugins).toEqual([{ name: marker.name, type: 'user', url: `file:${join(cwd, marker.tarball.split('/').pop()!)}` }]);
    expect(await listedIds(env, marker.name)).toEqual({ datasets: ['marks'], strategies: ['mark-level'] });
    // a later npm command in the data dir (oclif's `plugins update` / `uninstall`) runs no scripts either: the data
    // dir's .npmrc says so (`npm rebuild` runs the install scripts of installed packages unless scripts are off)
    expect(readFileSync(join(dataDir(env), '.npmrc'), 'utf8')).toMatch(/^ignore-scripts=true$/m);
    const rebuild = spawnSync(process.execPath, [NPM, 'rebuild', '--loglevel=error'], { cwd: dataDir(env), env: { PATH: process.env.PATH ?? '', HOME: env.HOME!, npm_config_cache: env.npm_config_cache!, npm_config_offline: 'true' }, encoding: 'utf8' });
    expect(rebuild.status, rebuild.stderr).toBe(0);
    expect(existsSync(marker.marker)).toBe(false);
  });

  it('`plugins install ./x.tgz --allow-scripts` names the script it runs, and it runs', async () => {
    const env = sandbox();
    const cwd = cwdWith(marker.tarball);
    const r = await install([`./${marker.tarball.split('/').pop()}`, '--allow-scripts'], env, cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('running install scripts (--allow-scripts):\n  hpt-bench-plugin-marker@1.0.0 postinstall: node ./mark.cjs\n');
    expect(r.stdout).toBe('installed hpt-bench-plugin-marker@1.0.0 (datasets: marks; strategies: mark-level)\n');
    expect(readFileSync(marker.marker, 'utf8')).toMatch(/^postinstall ran as uid \d+\n$/);
    expect(installed(env, marker.name)).toEqual(EVERYTHING);
    rmSync(marker.marker);
  });

  it('--json: one object naming the package, its scripts and whether they ran', async () => {
    const env = sandbox();
    const r = await install([marker.tarball, '--json'], env, cwdWith(marker.tarball));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      name: marker.name,
      version: '1.0.0',
      spec: `file:${marker.tarball}`,
      root: join(dataDir(env), 'node_modules', marker.name),
      scripts: { ran: false, listed: [{ package: marker.name, version: '1.0.0', event: 'postinstall', command: 'node ./mark.cjs' }] },
      contributes: { datasets: ['marks'], strategies: ['mark-level'] },
    });
    expect(existsSync(marker.marker)).toBe(false);
  });
});

describe('the manifest and the ids are checked before anything is installed', () => {
  it('an invalid manifest: exit 2, one line naming the field, its postinstall never runs (even with --allow-scripts), nothing stays installed', async () => {
    const env = sandbox();
    for (const extra of [[], ['--allow-scripts']]) {
      const r = await install([invalid.tarball, ...extra], env);
      expect(r.code).toBe(2);
      expect(errorLine(r)).toBe('Error: cannot install hpt-bench-plugin-invalid@1.0.0: manifest of plugin hpt-bench-plugin-invalid is invalid: at /contributes/datasets/0/hpiDataset: must be number');
      expect(existsSync(invalid.marker)).toBe(false);
      expect(installed(env, invalid.name)).toEqual(NOTHING);
    }
    // and no command complains about it afterwards
    expect(await listedIds(env, invalid.name)).toEqual({});
  });

  it('a package without an "hpt-bench" manifest is refused, naming what is missing', async () => {
    const env = sandbox();
    const r = await install([noManifest.tarball], env);
    expect(r.code).toBe(2);
    expect(errorLine(r)).toBe('Error: cannot install hpt-bench-plugin-none@1.0.0: its package.json has no "hpt-bench" manifest, so it contributes nothing to hpt-bench (docs/plugins.md "Manifest reference")');
    expect(installed(env, noManifest.name)).toEqual(NOTHING);
  });

  it("a dataset id a built-in contributes (boolq) is refused at install, and the built-in's boolq keeps working", async () => {
    const env = sandbox();
    const r = await install([boolq.tarball], env);
    expect(r.code).toBe(2);
    expect(errorLine(r)).toBe(
      "Error: cannot install hpt-bench-plugin-boolq@1.0.0: dataset 'boolq' is already contributed by @hpt-bench/hpt-datasets (built in); ids must be unique among installed plugins (rename it, or uninstall the other plugin)",
    );
    expect(installed(env, boolq.name)).toEqual(NOTHING);
    const store = join(mkdtempSync(join(work, 'run-')), 'store.db');
    const run = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:oracle', '--json', '--store', store], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ dataset: 'boolq', complete: true });
  });

  it('an id an installed plugin contributes is refused; reinstalling that same plugin is not a collision', async () => {
    const env = sandbox();
    expect((await install([marker.tarball], env)).code).toBe(0);
    const r = await install([copy.tarball], env);
    expect(r.code).toBe(2);
    expect(errorLine(r)).toBe(
      "Error: cannot install hpt-bench-plugin-marker-copy@1.0.0: strategy 'mark-level' is already contributed by hpt-bench-plugin-marker (installed); ids must be unique among installed plugins (rename it, or uninstall the other plugin)",
    );
    expect(installed(env, copy.name)).toEqual(NOTHING);
    const again = await install([marker.tarball], env);
    expect(again.code, again.stderr).toBe(0);
    expect(installed(env, marker.name)).toEqual(EVERYTHING);
    expect(await listedIds(env, marker.name)).toEqual({ datasets: ['marks'], strategies: ['mark-level'] });
  });

  it('a package named like a built-in plugin is refused, and every command keeps working', async () => {
    const env = sandbox();
    const r = await install([builtinName.tarball], env);
    expect(r.code).toBe(2);
    expect(errorLine(r)).toBe('Error: cannot install @hpt-bench/metrics@1.0.0: a plugin of that name is built in; choose another package name');
    expect(installed(env, builtinName.name)).toEqual(NOTHING);
    expect((await listedIds(env, '@hpt-bench/metrics')).metrics?.length).toBeGreaterThan(0);
  });
});

describe('data files an install script makes (--allow-scripts): checked once the scripts ran', () => {
  it('without --allow-scripts, a data file only its postinstall makes is missing: refused, naming the file and the flag', async () => {
    const env = sandbox();
    const r = await install([generated.tarball], env);
    expect(r.code).toBe(2);
    expect(errorLine(r)).toBe(
      "Error: cannot install hpt-bench-plugin-generated@1.0.0: plugin hpt-bench-plugin-generated: dataset 'gen' file names ./data/gen.jsonl, which does not exist in the package (its install scripts, which are off, may be what makes it: --allow-scripts runs them)",
    );
    expect(existsSync(generated.marker)).toBe(false);
    expect(installed(env, generated.name)).toEqual(NOTHING);
  });

  it('with --allow-scripts, the postinstall makes it and the plugin is installed', async () => {
    const env = sandbox();
    const r = await install([generated.tarball, '--allow-scripts'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('running install scripts (--allow-scripts):\n  hpt-bench-plugin-generated@1.0.0 postinstall: node ./gen.cjs\n');
    expect(existsSync(join(dataDir(env), 'node_modules', generated.name, 'data/gen.jsonl'))).toBe(true);
    expect(await listedIds(env, generated.name)).toEqual({ datasets: ['gen'] });
    rmSync(generated.marker);
  });

  it('a data file still missing after the scripts ran: refused, and the data dir is put back (the plugin installed before stays)', async () => {
    const env = sandbox();
    expect((await install([marker.tarball], env)).code).toBe(0);
    const before = readFileSync(join(dataDir(env), 'package.json'), 'utf8');
    const r = await install([missing.tarball, '--allow-scripts'], env);
    expect(r.code).toBe(2);
    // the scripts were named before they ran (stderr), then the one error line
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines.slice(0, 2)).toEqual(['running install scripts (--allow-scripts):', '  hpt-bench-plugin-missing@1.0.0 postinstall: node ./mark.cjs']);
    expect(lines.slice(2)).toEqual([
      `Error: cannot install hpt-bench-plugin-missing@1.0.0: plugin hpt-bench-plugin-missing: dataset 'missing' file names ./data/missing.jsonl, which does not exist in ${join(dataDir(env), 'node_modules', missing.name)}`,
    ]);
    expect(existsSync(missing.marker)).toBe(true);
    expect(installed(env, missing.name)).toEqual(NOTHING);
    expect(readFileSync(join(dataDir(env), 'package.json'), 'utf8')).toBe(before);
    expect(installed(env, marker.name)).toEqual(EVERYTHING);
    expect(await listedIds(env, marker.name)).toEqual({ datasets: ['marks'], strategies: ['mark-level'] });
  });
});

describe('local paths are resolved against the current directory', () => {
  it('a relative tarball path that does not exist: exit 2, one line naming the path it resolved to', async () => {
    const env = sandbox();
    const cwd = mkdtempSync(join(work, 'cwd-'));
    for (const spec of ['file:./nope-1.0.0.tgz', './nope-1.0.0.tgz']) {
      const r = await install([spec], env, cwd);
      expect(r.code).toBe(2);
      expect(errorLine(r)).toBe(`Error: cannot install ${spec}: ${join(cwd, 'nope-1.0.0.tgz')} does not exist (a path is resolved against the current directory, ${cwd})`);
    }
    expect(existsSync(join(dataDir(env), 'node_modules'))).toBe(false);
  });
});
