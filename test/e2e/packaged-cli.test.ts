/**
 * End-to-end: hpt-bench as a user installs it, and a plugin author's first steps with it (issue 27).
 *
 * `scripts/pack-release.mjs` packs the release (one tarball per workspace package, and the CLI tarball with its whole
 * dependency tree bundled); the CLI is installed with `npm install -g --prefix <fresh prefix> --offline` and a fresh
 * npm cache, so nothing comes from a registry (better-sqlite3's install script compiles it: python3, make, g++, and
 * Node's headers through the user's npm config, e.g. `nodedir`). Then, with the installed `hpt-bench` (never the
 * repository's bin), a fresh HOME and XDG dirs, from a directory outside the repository:
 * `--version`, a baseline run, `plugins new` (JavaScript and TypeScript), `npm install` in the new package with the
 * `@hpt-bench` scope's registry pointing at a closed port (any registry lookup of an @hpt-bench package fails; ajv and
 * typescript come from npm's cache or the registry), `npm run build` (TypeScript), `npm pack`,
 * `hpt-bench plugins verify ./<tarball>`, `hpt-bench plugins install ./<tarball>` and a run with the installed plugin's
 * model; then the example plugin `examples/arc-self-consistency` the way its README says (vendor/ copied from a package
 * `plugins new` wrote, `npm install`, `npm test`, `npm pack`, verify, install) and a run of its ladder hpf-sc against
 * a scripted OpenAI-compatible server (`test/helpers/arc-script.ts`).
 *
 * It takes minutes (the compile of better-sqlite3 dominates), so it runs when HPT_TEST_PACKAGED=1 (CI sets it) and is
 * skipped, saying why, otherwise or when npm, tar or a C++ toolchain is missing. HPT_RELEASE_DIR=<dir> reuses a
 * release packed before (`node scripts/pack-release.mjs --out <dir>`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARC_EXAMPLE, ARC_LADDER, ARC_RECORDS, arcScript } from '../helpers/arc-script.js';
import { ROOT } from '../helpers/cli.js';
import { startOpenAIServer } from '../helpers/openai-server.js';

/** Why this file cannot run here ('' when it can). */
function missing(): string {
  if (process.env.HPT_TEST_PACKAGED !== '1') return 'set HPT_TEST_PACKAGED=1 to run it (it installs the packed CLI globally: minutes)';
  for (const [cmd, args] of [['npm', ['--version']], ['tar', ['--version']], ['make', ['--version']], ['g++', ['--version']], ['python3', ['--version']]] as const) {
    if (spawnSync(cmd, [...args], { encoding: 'utf8' }).status !== 0) return `${cmd} is not available`;
  }
  return '';
}
const why = missing();
if (why) process.stdout.write(`test/e2e/packaged-cli.test.ts skipped: ${why}\n`);

let work: string;
let prefix: string;
/** Environment of every command: a fresh HOME, XDG dirs and npm cache, the global prefix first on PATH. */
let env: Record<string, string>;

/** Run `cmd` in `cwd` with the test's environment. @throws with its output when it exits non-zero. */
function sh(cmd: string, args: string[], cwd: string, extra: Record<string, string> = {}, timeout = 240_000): { stdout: string; stderr: string; ms: number } {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd, env: { ...env, ...extra }, encoding: 'utf8', timeout, maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t0 };
}
/** `sh`, without blocking this process (for commands that talk to a server running in it). */
function shAsync(cmd: string, args: string[], cwd: string, extra: Record<string, string> = {}, timeout = 120_000): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'], timeout });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => (code === 0 ? resolve({ stdout, stderr }) : reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${code ?? signal}:\n${stdout}\n${stderr}`))));
  });
}
/** What `plugins verify --json` prints. */
interface VerifyResult {
  plugin: string;
  ok: boolean;
  rows: { id: string; check: string; status: string; detail: string }[];
}
/** The globally installed hpt-bench. */
const hpt = (args: string[], cwd: string) => sh(join(prefix, 'bin/hpt-bench'), args, cwd);
/** npm with the @hpt-bench scope's registry closed: an @hpt-bench package can only come from a file or a bundle. */
const npmScoped = (args: string[], cwd: string) => sh('npm', [...args, '--no-audit', '--no-fund', '--fetch-retries=0', '--loglevel=error'], cwd, { 'npm_config_@hpt-bench:registry': 'http://127.0.0.1:9/' });

describe.skipIf(why !== '')('the packed CLI, installed globally', () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'hpt-packaged-'));
    prefix = join(work, 'prefix');
    const home = join(work, 'home');
    mkdirSync(home, { recursive: true });
    const userNpmrc = join(homedir(), '.npmrc');
    env = {
      PATH: [join(prefix, 'bin'), dirname(process.execPath), ...(process.env.PATH ?? '').split(delimiter).filter((p) => !p.startsWith(ROOT))].join(delimiter),
      HOME: home,
      XDG_DATA_HOME: join(work, 'xdg/data'),
      XDG_CONFIG_HOME: join(work, 'xdg/config'),
      XDG_CACHE_HOME: join(work, 'xdg/cache'),
      npm_config_cache: join(work, 'npm-cache'),
      // the user's npm config (registry, cafile, nodedir for node-gyp), not their HOME
      ...(existsSync(userNpmrc) ? { npm_config_userconfig: userNpmrc } : {}),
      NO_COLOR: '1',
    };
  }, 10_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  let cliTarball: string;
  it('packs the release and installs the CLI tarball on a fresh prefix, offline', () => {
    let release = process.env.HPT_RELEASE_DIR;
    if (!release) {
      release = join(work, 'release');
      const packed = sh(process.execPath, [join(ROOT, 'scripts/pack-release.mjs'), '--out', release], ROOT, { PATH: process.env.PATH ?? '', HOME: homedir(), npm_config_cache: '' });
      process.stdout.write(`pack-release: ${packed.ms} ms\n`);
    }
    cliTarball = (JSON.parse(readFileSync(join(release, 'release.json'), 'utf8')) as { cli: string }).cli;
    const installed = sh('npm', ['install', '-g', '--prefix', prefix, cliTarball, '--offline', '--no-audit', '--no-fund', '--loglevel=warn'], work, {}, 390_000);
    process.stdout.write(`npm install -g (fresh prefix and cache, offline): ${installed.ms} ms\n`);
    expect(existsSync(join(prefix, 'bin/hpt-bench'))).toBe(true);
    expect(existsSync(join(prefix, 'lib/node_modules/hpt-bench/node_modules/@hpt-bench/sdk/package.json'))).toBe(true);
  }, 400_000);

  it('runs --version and a baseline run from another directory', () => {
    const elsewhere = join(work, 'elsewhere');
    mkdirSync(elsewhere);
    expect(hpt(['--version'], elsewhere).stdout).toMatch(/^hpt-bench\/0\.1\.0 /);
    const run = JSON.parse(hpt(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--json'], elsewhere).stdout) as Record<string, unknown>;
    expect(run).toMatchObject({ dataset: 'boolq', model: 'baseline:random', n: 8, complete: true });
    // the command is the installed copy, not this repository's
    expect(realpathSync(join(prefix, 'bin/hpt-bench')).startsWith(realpathSync(prefix))).toBe(true);
  }, 60_000);

  it.each([
    ['js', false],
    ['ts', true],
  ])('a %s plugin: plugins new, npm install (no registry copy of @hpt-bench/*), pack, plugins install, run', (lang, typescript) => {
    const authors = join(work, 'authors');
    mkdirSync(authors, { recursive: true });
    const name = `hpt-bench-plugin-answer-${lang}`;
    hpt(['plugins', 'new', `./${name}`, '--kind', 'model', ...(typescript ? ['--typescript'] : [])], authors);
    const dir = join(authors, name);
    const pj = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; scripts?: Record<string, string> };
    expect(pj.dependencies['@hpt-bench/sdk']).toBe('file:vendor/hpt-bench-sdk-0.1.0.tgz');
    const install = npmScoped(['install', '--prefer-offline'], dir);
    process.stdout.write(`${lang}: npm install ${install.ms} ms\n`);
    expect(existsSync(join(dir, 'node_modules/@hpt-bench/sdk/dist/index.js'))).toBe(true);
    if (typescript) npmScoped(['run', 'build'], dir);
    if (pj.scripts?.test) npmScoped(['test'], dir);
    const listed = JSON.parse(hpt(['list', 'models', '--plugin', '.', '--json'], dir).stdout) as { models: { id: string; origin: string }[] };
    expect(listed.models.find((m) => m.id === `answer-${lang}`)?.origin).toBe('local');
    const tgz = (JSON.parse(npmScoped(['pack', '--json'], dir).stdout) as { filename: string }[])[0]!.filename;
    const verified = JSON.parse(hpt(['plugins', 'verify', `./${tgz}`, '--json'], dir).stdout) as VerifyResult;
    expect(verified).toMatchObject({ plugin: name, ok: true });
    expect(verified.rows.map((r) => [r.id, r.check, r.status])).toContainEqual([`answer-${lang}`, 'generate', 'pass']);
    hpt(['plugins', 'install', `./${tgz}`], dir);
    const elsewhere = join(work, `run-${lang}`);
    mkdirSync(elsewhere);
    const run = JSON.parse(hpt(['run', '--dataset', 'boolq', '--split', 'mini', '--model', `answer-${lang}:True`, '--json'], elsewhere).stdout) as Record<string, unknown>;
    expect(run).toMatchObject({ model: `answer-${lang}:True`, n: 8, complete: true, levelCounts: { '1': 4, unsolved: 4 } });
  }, 180_000);

  it('the example plugin examples/arc-self-consistency: vendor, npm install, npm test, pack, verify, install, a run through hpf-sc', async () => {
    const vendor = join(work, 'authors/hpt-bench-plugin-answer-js/vendor');
    expect(existsSync(vendor), 'written by plugins new in the previous test').toBe(true);
    // the example as a user checks it out (no node_modules, no vendor tarball), vendor/ copied from a package
    // `plugins new` wrote, as its README says
    const dir = join(work, 'arc-self-consistency');
    cpSync(ARC_EXAMPLE, dir, { recursive: true, filter: (src) => !/\/(node_modules|vendor)(\/|$)/.test(src) && !src.endsWith('.tgz') });
    cpSync(vendor, join(dir, 'vendor'), { recursive: true });
    npmScoped(['install', '--prefer-offline'], dir);
    const tested = npmScoped(['test'], dir);
    expect(tested.stdout).toMatch(/hpt-bench-plugin-arc/);
    const tgz = (JSON.parse(npmScoped(['pack', '--json'], dir).stdout) as { filename: string }[])[0]!.filename;
    expect(tgz).toBe('hpt-bench-plugin-arc-0.1.0.tgz');
    const verified = JSON.parse(hpt(['plugins', 'verify', `./${tgz}`, '--json'], dir).stdout) as VerifyResult;
    expect(verified).toMatchObject({ plugin: 'hpt-bench-plugin-arc', ok: true });
    expect(verified.rows.map((r) => [r.id, r.check, r.status])).toContainEqual(['self-consistency', 'runs', 'pass']);
    hpt(['plugins', 'install', `./${tgz}`], dir);

    const reply = arcScript();
    const server = await startOpenAIServer((req) => ({ text: reply(req.messages.map((m) => m.content).join('\n')) }));
    try {
      const elsewhere = join(work, 'run-arc');
      mkdirSync(elsewhere);
      cpSync(join(ARC_EXAMPLE, 'data/sample.jsonl'), join(elsewhere, 'sample.jsonl'));
      // the server answers in this process: the command runs asynchronously
      const r = await shAsync(join(prefix, 'bin/hpt-bench'), ['run', '--dataset', 'arc', '--data', 'sample.jsonl', '--ladder', 'hpf-sc', '--model', 'openai:scripted', '--base-url', server.url, '--concurrency', '1', '--json'], elsewhere, { OPENAI_API_KEY: 'sk-test' });
      const n = ARC_RECORDS.length;
      expect(JSON.parse(r.stdout)).toMatchObject({ dataset: 'arc', ladder: ARC_LADDER, n, complete: true, levelCounts: { '6': n - 1, unsolved: 1 } });
    } finally {
      await server.close();
    }
  }, 240_000);
});
