import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HptError, type ContributionKind, type DatasetDecl, type PluginSource } from '@hpt-bench/sdk';
import { kindNoun, type Registry } from './registry.js';

/**
 * What `hpt-bench plugins install <arg>` installs, read from its argument (`resolveInstallSpec`):
 * - `file`: a local tarball or directory; `spec` is `file:<absolute path>` (what npm is given), `path` the absolute path;
 * - `registry`: an npm package `name` with an optional `@tag` / version / range (`tag`, default `latest`);
 * - `url`: anything else npm understands (a git or tarball URL, a GitHub `user/repo`), passed to npm as it is.
 */
export type InstallSpec =
  | { kind: 'file'; spec: string; path: string }
  | { kind: 'registry'; spec: string; name: string; tag: string }
  | { kind: 'url'; spec: string };

/** What npm reads as a path (npm-package-arg): `.`, `./`, `../`, `/`, `~/`, `C:\`, or a name ending in .tgz/.tar.gz/.tar. */
function looksLikePath(arg: string): boolean {
  return /^(?:\.\.?(?:[/\\]|$)|[/\\]|~[/\\]|[a-zA-Z]:[/\\])/.test(arg) || (!arg.includes(':') && /\.(?:tgz|tar\.gz|tar)$/i.test(arg));
}

/**
 * Read the argument of `plugins install`. A local path — `file:<path>`, `file://<url>`, or a bare path as npm reads
 * one (`./x.tgz`, `../dir`, `/abs/x.tgz`, `x.tgz`) — is resolved against `cwd` (the user's current directory, not the
 * plugin data dir npm runs in) and must exist. `name[@tag]` and `@scope/name[@tag]` are registry packages; anything
 * else (URLs, `user/repo`) goes to npm as it is.
 * @param arg the argument as typed.
 * @param cwd the directory relative paths are resolved against (absolute).
 * @throws HptError `E_CONFIG` when the argument is empty, or a local path does not exist (naming the resolved path).
 */
export function resolveInstallSpec(arg: string, cwd: string): InstallSpec {
  const given = arg.trim();
  if (!given) throw new HptError('E_CONFIG', 'plugins install needs a package: an npm name, file:<tarball>, or a path such as ./my-plugin-1.0.0.tgz');
  let path: string | undefined;
  if (/^file:\/\//i.test(given)) path = fileURLToPath(given);
  else if (/^file:/i.test(given)) path = given.slice('file:'.length);
  else if (looksLikePath(given)) path = given;
  if (path !== undefined) {
    const abs = isAbsolute(path) ? resolve(path) : resolve(cwd, path.replace(/^~(?=[/\\])/, process.env.HOME ?? '~'));
    if (!existsSync(abs)) throw new HptError('E_CONFIG', `cannot install ${given}: ${abs} does not exist (a path is resolved against the current directory, ${cwd})`);
    return { kind: 'file', spec: `file:${abs}`, path: abs };
  }
  if (given.includes(':') || (given.includes('/') && !given.startsWith('@'))) return { kind: 'url', spec: given };
  const at = given.indexOf('@', 1);
  return at < 0 ? { kind: 'registry', spec: given, name: given, tag: 'latest' } : { kind: 'registry', spec: given, name: given.slice(0, at), tag: given.slice(at + 1) || 'latest' };
}

/**
 * The npm CLI script (`npm/bin/npm-cli.js`) to run with this Node: the first `npm` package resolvable from one of
 * `fromDirs` (e.g. @oclif/plugin-plugins' root, whose pinned npm `plugins update` also uses), else from this module.
 * Returns undefined when none is found (the caller then runs `npm` from PATH).
 */
export function findNpmCli(fromDirs: readonly string[]): string | undefined {
  for (const base of [...fromDirs.map((d) => join(d, 'package.json')), fileURLToPath(import.meta.url)]) {
    try {
      const pj = createRequire(base).resolve('npm/package.json');
      const bin = (JSON.parse(readFileSync(pj, 'utf8')) as { bin?: { npm?: string } }).bin?.npm ?? 'bin/npm-cli.js';
      const file = join(pj, '..', bin);
      if (existsSync(file)) return file;
    } catch {
      // not resolvable from there: try the next place
    }
  }
  return undefined;
}

/** The outcome of one npm process: its exit code (null when killed) and its output. */
export interface NpmResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run npm in `cwd` with `args` (and `--no-audit --no-fund --loglevel=error`), its output captured, never shown.
 * @param npmCli the npm-cli.js to run with this Node (`findNpmCli`), or undefined for `npm` from PATH.
 * @param env the environment of the npm process (default: this process's, with HUSKY=0 so that a package's git hooks
 *   are not installed).
 * @returns the exit code and output; a non-zero exit is not an error here (`npmFailure` words it).
 */
export function runNpm(npmCli: string | undefined, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = { ...process.env, HUSKY: '0' }): Promise<NpmResult> {
  const all = [...args, '--no-audit', '--no-fund', '--loglevel=error'];
  const [cmd, argv] = npmCli ? [process.execPath, [npmCli, ...all]] : ['npm', all];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], shell: !npmCli && process.platform === 'win32' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => reject(new HptError('E_PLUGIN', `cannot run npm (${(e as NodeJS.ErrnoException).code ?? e.message}); plugins are installed with npm`)));
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** npm error codes that mean the registry or the network could not be reached (a runtime failure, exit 1). */
const NETWORK_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENETUNREACH', 'EHOSTUNREACH', 'ENOTCACHED', 'ERR_SOCKET_TIMEOUT', 'E500', 'E502', 'E503', 'E504']);

/**
 * A failed npm install as one HptError: what was being installed, npm's error code and its first error line (e.g.
 * `npm failed (ENOENT): ENOENT: no such file or directory, open '…'`). A network or registry failure is `E_ENDPOINT`
 * (exit 1); anything else (no such package or version, a bad tarball, a dependency npm cannot resolve) is `E_PLUGIN`
 * (exit 2).
 */
export function npmFailure(what: string, r: NpmResult): HptError {
  const lines = r.stderr.split('\n').map((l) => l.replace(/^npm (?:error|ERR!) ?/, '').trim());
  const code = /^code (\S+)$/m.exec(lines.join('\n'))?.[1];
  const skip = /^(?:code|syscall|path|errno|signal|command|cwd) |^A complete log of this run|^Log files were not written|^You can rerun the command|^$/;
  const first = (lines.find((l) => !skip.test(l)) ?? `exit code ${r.code}`).replace(/^(?:enoent|e404|etarget|notarget)\s+/i, '');
  const message = `cannot install ${what}: npm failed${code ? ` (${code})` : ''}: ${first.slice(0, 300)}`;
  return new HptError(code && NETWORK_CODES.has(code) ? 'E_ENDPOINT' : 'E_PLUGIN', message);
}

/** One npm lifecycle script that installing a package runs (or would run) for it or one of its dependencies. */
export interface InstallScript {
  /** the package's name and version */
  package: string;
  version: string;
  /** `preinstall`, `install` or `postinstall` (and `prepare` for a package installed as a link to a directory) */
  event: string;
  /** the command, as package.json gives it (`node-gyp rebuild` for a package with a binding.gyp and no install script) */
  command: string;
}

/**
 * The lifecycle scripts npm runs when it installs the packages of the project at `projectDir` (after an
 * `npm install --ignore-scripts` there): for every package of its package-lock.json, `preinstall`, `install` and
 * `postinstall` (npm's order), `prepare` for a package linked from a directory, and the implicit `node-gyp rebuild` of
 * a package with a binding.gyp and no install or preinstall script (npm's rules). In lockfile order; empty when there
 * is no lockfile. A package.json that cannot be read is skipped (npm would not run its scripts either).
 */
export function listInstallScripts(projectDir: string): InstallScript[] {
  let lock: { packages?: Record<string, { link?: boolean }> };
  try {
    lock = JSON.parse(readFileSync(join(projectDir, 'package-lock.json'), 'utf8')) as typeof lock;
  } catch {
    return [];
  }
  const out: InstallScript[] = [];
  for (const [location, entry] of Object.entries(lock.packages ?? {})) {
    // the project itself (""), and the directory a link points to (listed through the link)
    if (!location.startsWith('node_modules/') && !location.includes('/node_modules/')) continue;
    let pj: { name?: unknown; version?: unknown; scripts?: Record<string, unknown>; gypfile?: unknown };
    try {
      pj = JSON.parse(readFileSync(join(projectDir, location, 'package.json'), 'utf8')) as typeof pj;
    } catch {
      continue;
    }
    const name = typeof pj.name === 'string' ? pj.name : location.replace(/^.*node_modules\//, '');
    const version = typeof pj.version === 'string' ? pj.version : '';
    const scripts = pj.scripts ?? {};
    const script = (event: string) => (typeof scripts[event] === 'string' && scripts[event] !== '' ? (scripts[event] as string) : undefined);
    const events = entry.link === true ? ['preinstall', 'install', 'postinstall', 'prepare'] : ['preinstall', 'install', 'postinstall'];
    for (const event of events) {
      let command = script(event);
      if (event === 'install' && command === undefined && script('preinstall') === undefined && pj.gypfile !== false && existsSync(join(projectDir, location, 'binding.gyp'))) command = 'node-gyp rebuild';
      if (command !== undefined) out.push({ package: name, version, event, command });
    }
  }
  return out;
}

/** The kinds whose ids must be unique among installed plugins (`packs` extend another plugin's dataset by its id). */
const UNIQUE_KINDS: ContributionKind[] = ['datasets', 'strategies', 'models', 'scorers', 'selectors', 'ladders', 'metrics', 'reports'];

/** The plain names a contribution answers to: its id, and a dataset's aliases. */
function plainNames(kind: ContributionKind, decl: { id: string }): string[] {
  return kind === 'datasets' ? [decl.id, ...((decl as DatasetDecl).aliases ?? [])] : [decl.id];
}

/**
 * The ids of `plugin` that another plugin of `registry` already answers to, one line each, e.g.
 * `dataset 'boolq' is already contributed by @hpt-bench/hpt-datasets (built in)`: per kind (not `packs`, which extend
 * a dataset by naming it), a plain id or dataset alias of `plugin` that is a plain id or alias of another plugin's
 * contribution, or that an installed plugin which fails to load declares. Installed, they would make both plugins'
 * ids ambiguous (`Registry.get`). Contributions of a plugin of the same package name are not collisions (a reinstall).
 */
export function pluginIdCollisions(registry: Registry, plugin: PluginSource): string[] {
  const out: string[] = [];
  const origin = (o: PluginSource['origin']) => (o === 'builtin' ? 'built in' : o === 'installed' ? 'installed' : '--plugin');
  for (const kind of UNIQUE_KINDS) {
    const mine = ((plugin.manifest.contributes[kind] ?? []) as { id: string }[]).flatMap((d) => plainNames(kind, d));
    for (const id of new Set(mine)) {
      const owners = new Set<string>();
      for (const c of registry.list(kind)) {
        if (c.plugin.name !== plugin.name && plainNames(kind, c.decl as { id: string }).includes(id)) owners.add(`${c.plugin.name} (${origin(c.plugin.origin)})`);
      }
      for (const b of registry.broken) if (b.name !== plugin.name && (b.declares?.[kind] ?? []).includes(id)) owners.add(`${b.name} (installed, failing to load)`);
      if (owners.size) out.push(`${kindNoun(kind)} '${id}' is already contributed by ${[...owners].join(' and ')}`);
    }
  }
  return out;
}
