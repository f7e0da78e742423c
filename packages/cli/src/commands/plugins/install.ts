import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import {
  discoverPlugins,
  findNpmCli,
  GENERIC_PACK_ID,
  HptError,
  isHptError,
  listInstallScripts,
  npmFailure,
  pluginIdCollisions,
  readPluginManifest,
  resolveInstallSpec,
  runNpm,
  type InstallScript,
  type InstallSpec,
  type PluginEntry,
  type PluginSource,
} from '@hpt-bench/core';
import { HptCommand, terminalSafe } from '../../base.js';

/** The contribution kinds in the order `installed … (datasets: …; strategies: …)` names them. */
const KINDS = ['datasets', 'strategies', 'models', 'scorers', 'selectors', 'ladders', 'metrics', 'packs', 'reports'] as const;

/** What the data dir's `.npmrc` says: npm runs no lifecycle scripts there unless a command line says otherwise. */
const NPMRC = '# written by hpt-bench plugins install: npm runs no lifecycle scripts in this directory\n# (`hpt-bench plugins install --allow-scripts` overrides it for one install)\nignore-scripts=true\n';

/** oclif's record of a user-installed plugin in `<dataDir>/package.json` (the format of @oclif/plugin-plugins). */
type PluginRecord = { name: string; type: 'user'; tag: string } | { name: string; type: 'user'; url: string };

/** The data dir's package.json as @oclif/plugin-plugins writes it. */
interface DataPjson {
  name?: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  oclif?: { schema?: number; plugins?: (string | { name: string; type?: string; root?: string })[] };
  [key: string]: unknown;
}

/**
 * `hpt-bench plugins install <package>`: install a plugin into oclif's data dir (~/.local/share/hpt-bench), replacing
 * @oclif/plugin-plugins' command of that name (a command of the root package wins over a plugin's). The install policy
 * (README "What hpt-bench guarantees"):
 * - a local path (`file:./x.tgz`, `./x.tgz`, `../dir`) is resolved against the current directory;
 * - the package is first installed into a temporary directory with npm lifecycle scripts off, and refused there —
 *   before anything reaches the data dir and before any script runs — when it has no `oclif` field, no or an invalid
 *   `hpt-bench` manifest, the package name of a built-in or linked plugin, or an id a built-in or installed plugin
 *   already contributes;
 * - then it is installed into the data dir with scripts off (the ones it has are named as not run), or with
 *   `--allow-scripts` after naming every script that will run; the installed copy's manifest is checked again, and a
 *   failure there puts the data dir's package.json and lockfile back and reinstalls them, so nothing of it stays;
 * - the data dir gets an `.npmrc` with `ignore-scripts=true`, so oclif's `plugins update` / `uninstall` run none either.
 */
export default class PluginsInstall extends HptCommand {
  static override aliases = ['plugins:add'];
  static override summary = 'Install a plugin (an npm package, file:<tarball>, or a path); npm install scripts run only with --allow-scripts.';
  static override description =
    'The package is checked before it is installed: it must have "oclif": {} and a valid "hpt-bench" manifest, and its ids must not be ones a built-in or installed plugin already contributes. Paths are resolved against the current directory. npm lifecycle scripts (preinstall, install, postinstall) of the package and its dependencies do not run unless --allow-scripts is given; either way the command names them. See docs/plugins.md "Packing and installing".';
  static override examples = [
    '<%= config.bin %> plugins install file:./hpt-bench-plugin-my-model-0.1.0.tgz',
    '<%= config.bin %> plugins install ./hpt-bench-plugin-my-model-0.1.0.tgz',
    '<%= config.bin %> plugins install hpt-bench-plugin-foo@1.2.0 --allow-scripts',
  ];
  static override args = {
    package: Args.string({ description: 'npm package name[@version], file:<tarball or dir>, a path (./x.tgz), or a git URL', required: true }),
  };
  static override flags = {
    'allow-scripts': Flags.boolean({ description: "run the npm lifecycle scripts (preinstall, install, postinstall) of the package and its dependencies; they are named before they run. Default: they are not run", default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PluginsInstall);
    const allow = flags['allow-scripts'];
    const spec = resolveInstallSpec(args.package, process.cwd());
    const pp = this.config.plugins.get('@oclif/plugin-plugins');
    const npm = findNpmCli(pp ? [pp.root] : []);
    const registryArgs = this.config.npmRegistry ? [`--registry=${this.config.npmRegistry}`] : [];

    const staging = mkdtempSync(join(tmpdir(), 'hpt-bench-install-'));
    let staged: { source: PluginSource; label: string; scripts: InstallScript[] };
    try {
      staged = await this.stage(spec, args.package, staging, allow, npm, registryArgs);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    const { source: stagedSource, label, scripts } = staged;
    const name = stagedSource.name;

    if (allow) {
      if (scripts.length) {
        this.logger.info('running install scripts (--allow-scripts):');
        for (const s of scripts) process.stderr.write(`  ${terminalSafe(scriptLine(s), true)}\n`);
      } else {
        this.logger.info(`--allow-scripts: ${label} and its dependencies have no install scripts`);
      }
    }
    const installed = await this.installIntoDataDir(spec, label, name, allow, npm, registryArgs);
    if (scripts.length && !allow) {
      this.logger.warn('install scripts not run (npm lifecycle scripts are off; `plugins install --allow-scripts` runs them):');
      for (const s of scripts) process.stderr.write(`  ${terminalSafe(scriptLine(s), true)}\n`);
    }
    const contributes = contributedIds(installed);
    if (flags.json) {
      this.printJson({ name, version: installed.version, spec: spec.spec, root: installed.root, scripts: { ran: allow && scripts.length > 0, listed: scripts }, contributes });
      return;
    }
    const summary = Object.entries(contributes).map(([k, ids]) => `${k}: ${ids.join(', ')}`).join('; ');
    this.log(terminalSafe(`installed ${name}@${installed.version}${summary ? ` (${summary})` : ''}`, true));
  }

  /**
   * Install `spec` into the empty project `staging` with scripts off and check what came: one package, with an
   * `oclif` field and a valid manifest (data files not yet required with `--allow-scripts`: a script may make them),
   * not named like a built-in or linked plugin, and no id another plugin contributes.
   * @returns the package's manifest source (rooted in `staging`), `name@version`, and the install scripts of it and
   *   its dependencies.
   * @throws HptError naming the package and the problem (`E_PLUGIN`, `E_MANIFEST`: exit 2; `E_ENDPOINT`: exit 1).
   */
  private async stage(spec: InstallSpec, given: string, staging: string, allow: boolean, npm: string | undefined, registryArgs: string[]): Promise<{ source: PluginSource; label: string; scripts: InstallScript[] }> {
    writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'hpt-bench-install-staging', private: true }));
    const r = await runNpm(npm, ['install', spec.spec, '--ignore-scripts', '--omit=dev', ...registryArgs], staging);
    if (r.code !== 0) throw npmFailure(given, r);
    const deps = Object.keys((readJson(join(staging, 'package.json')) as DataPjson).dependencies ?? {});
    if (deps.length !== 1) throw new HptError('E_PLUGIN', `cannot install ${given}: npm installed ${deps.length} packages for it, expected one`);
    const name = deps[0]!;
    const root = join(staging, 'node_modules', name);
    const pj = readJson(join(root, 'package.json')) as { version?: unknown; oclif?: unknown };
    const label = `${name}@${typeof pj.version === 'string' ? pj.version : '0.0.0'}`;
    const refuse = (code: string, why: string) => new HptError(code, `cannot install ${label}: ${why}`);

    const present = this.config.getPluginsList();
    const same = present.find((p) => p.name === name);
    if (same?.type === 'core') throw refuse('E_PLUGIN', 'a plugin of that name is built in; choose another package name');
    if (same?.type === 'link') throw refuse('E_PLUGIN', `a plugin of that name is linked from ${same.root}; unlink it first (hpt-bench plugins unlink ${name})`);
    if (pj.oclif === undefined) throw refuse('E_PLUGIN', 'its package.json has no "oclif" field; add "oclif": {} (docs/plugins.md "Packing and installing")');

    const scripts = listInstallScripts(staging);
    let source: PluginSource | undefined;
    try {
      source = readPluginManifest(root, 'installed', { files: !allow });
    } catch (e) {
      if (!isHptError(e)) throw e;
      const unrun = !allow && scripts.length > 0 && /which does not exist/.test(e.message) ? ' (its install scripts, which are off, may be what makes it: --allow-scripts runs them)' : '';
      throw refuse(e.code, `${e.message.split(root).join('the package')}${unrun}`);
    }
    if (!source) throw refuse('E_MANIFEST', 'its package.json has no "hpt-bench" manifest, so it contributes nothing to hpt-bench (docs/plugins.md "Manifest reference")');
    this.refuseCollisions(source, label);
    return { source, label, scripts };
  }

  /**
   * @throws HptError `E_PLUGIN` listing every id of `source` that a built-in or installed plugin (other than an
   *   installed copy of the same package, which a reinstall replaces) already contributes.
   */
  private refuseCollisions(source: PluginSource, label: string): void {
    const entries: PluginEntry[] = this.config
      .getPluginsList()
      .filter((p) => p.name !== source.name)
      .map((p) => ({ root: p.root, origin: p.type === 'core' ? 'builtin' : 'installed' }));
    const clashes = pluginIdCollisions(discoverPlugins(entries), source);
    if (clashes.length) throw new HptError('E_PLUGIN', `cannot install ${label}: ${clashes.join('; ')}; ids must be unique among installed plugins (rename it, or uninstall the other plugin)`);
  }

  /**
   * Install `spec` into oclif's data dir (scripts off unless `allow`), check the installed copy's manifest in full and
   * its ids again, and record it as a user plugin. On any failure the data dir's package.json and lockfile are put back
   * and `npm install --ignore-scripts` restores node_modules to them.
   * @returns the installed plugin's manifest source.
   */
  private async installIntoDataDir(spec: InstallSpec, label: string, name: string, allow: boolean, npm: string | undefined, registryArgs: string[]): Promise<PluginSource> {
    const dataDir = this.config.dataDir;
    const pjPath = join(dataDir, 'package.json');
    const lockPath = join(dataDir, 'package-lock.json');
    mkdirSync(dataDir, { recursive: true });
    if (!existsSync(pjPath)) writeFileSync(pjPath, JSON.stringify({ name: this.config.name, private: true, dependencies: {}, oclif: { plugins: [], schema: 1 } }, null, 2));
    const npmrc = join(dataDir, '.npmrc');
    const rc = existsSync(npmrc) ? readFileSync(npmrc, 'utf8') : '';
    if (!/^\s*ignore-scripts\s*=\s*true\s*$/m.test(rc)) writeFileSync(npmrc, rc ? `${rc.replace(/\n?$/, '\n')}${NPMRC}` : NPMRC);
    const before = { pj: readFileSync(pjPath, 'utf8'), lock: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : undefined };
    try {
      const r = await runNpm(npm, ['install', spec.spec, allow ? '--ignore-scripts=false' : '--ignore-scripts', '--omit=dev', ...registryArgs], dataDir);
      if (r.code !== 0) throw npmFailure(label, r);
      const root = join(dataDir, 'node_modules', name);
      let source: PluginSource | undefined;
      try {
        source = readPluginManifest(root, 'installed');
      } catch (e) {
        if (isHptError(e)) throw new HptError(e.code, `cannot install ${label}: ${e.message}`);
        throw e;
      }
      if (!source) throw new HptError('E_MANIFEST', `cannot install ${label}: the installed copy has no "hpt-bench" manifest`);
      this.refuseCollisions(source, label);
      const pj = readJson(pjPath) as DataPjson;
      const record: PluginRecord = spec.kind === 'registry' ? { name, type: 'user', tag: spec.tag } : { name, type: 'user', url: spec.spec };
      const plugins = (pj.oclif?.plugins ?? []).filter((p) => (typeof p === 'string' ? p : p.name) !== name);
      writeFileSync(pjPath, JSON.stringify({ ...pj, oclif: { schema: 1, ...pj.oclif, plugins: [...plugins, record] } }, null, 2));
      return source;
    } catch (e) {
      writeFileSync(pjPath, before.pj);
      if (before.lock === undefined) rmSync(lockPath, { force: true });
      else writeFileSync(lockPath, before.lock);
      await runNpm(npm, ['install', '--ignore-scripts', '--omit=dev', ...registryArgs], dataDir).catch(() => undefined);
      throw e;
    }
  }
}

/** `name@version event: command`, as the script notices print it. */
function scriptLine(s: InstallScript): string {
  return `${s.package}${s.version ? `@${s.version}` : ''} ${s.event}: ${s.command}`;
}

/** The ids a plugin contributes, by kind (packs by the dataset they extend, or `generic`); kinds it does not contribute left out. */
function contributedIds(source: PluginSource): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const kind of KINDS) {
    const list = (source.manifest.contributes[kind] ?? []) as { id?: string; dataset?: string; generic?: boolean }[];
    const ids = list.map((d) => d.id ?? d.dataset ?? (d.generic ? GENERIC_PACK_ID : '')).filter((id) => id !== '');
    if (ids.length) out[kind] = ids;
  }
  return out;
}

/** Parse a JSON file we or npm wrote. @throws HptError `E_PLUGIN` naming the file when it cannot be read. */
function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new HptError('E_PLUGIN', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}
