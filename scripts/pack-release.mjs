#!/usr/bin/env node
// Packs a release of hpt-bench (docs/release.md): after `npm run build`,
//   node scripts/pack-release.mjs [--out DIR] [--publish-dry-run]
// writes to DIR (default ./release):
// - one tarball per workspace package (`npm pack --workspaces --ignore-scripts`): @hpt-bench/sdk, sandbox, core, cli
//   and the built-in plugins, for a registry release (`npm publish <tarball>` each, in lockstep at one version);
// - hpt-bench-<version>.tgz, the installable CLI: the root package (bin/run.js, oclif.manifest.json) with its whole
//   dependency tree inside its node_modules (`bundleDependencies`: every @hpt-bench/* package and the third-party ones,
//   see below), so `npm install -g hpt-bench-<version>.tgz` needs no registry at all; better-sqlite3's install script
//   still runs on the user's machine (prebuild-install, else node-gyp: python3, make, g++).
// The repository's root package.json stays the private workspace root: the CLI's manifest is derived from it in a
// staging directory (DIR/stage): no scripts, workspaces or devDependencies, the oclif paths and oclif.manifest.json
// pointing at node_modules/@hpt-bench/cli instead of packages/cli, and the bundled packages' third-party dependencies
// listed as its own. Building the stage's node_modules needs the registry (or npm's cache) for the third-party packages. With --publish-dry-run it then runs `npm publish --dry-run` on every tarball's package.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const outArg = argv.indexOf('--out');
const out = resolve(outArg >= 0 ? argv[outArg + 1] : join(root, 'release'));
const publishDryRun = argv.includes('--publish-dry-run');
const npm = process.env.npm_execpath && process.env.npm_execpath.endsWith('.js') ? [process.execPath, process.env.npm_execpath] : ['npm'];

/** Run npm with `args` in `cwd`; returns stdout. @throws with npm's output when it fails. */
function runNpm(args, cwd) {
  const r = spawnSync(npm[0], [...npm.slice(1), ...args], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

if (!existsSync(join(root, 'packages/cli/dist/commands')) || !existsSync(join(root, 'oclif.manifest.json'))) {
  throw new Error('build first: npm run build (packages/cli/dist and oclif.manifest.json are missing)');
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// 1. one tarball per workspace package (already built: --ignore-scripts skips the SDK's prepack tsc)
const packed = JSON.parse(runNpm(['pack', '--workspaces', '--ignore-scripts', '--json', '--pack-destination', out], root));
const workspaces = packed.map((p) => ({ name: p.name, version: p.version, file: join(out, p.filename) }));

// 2. the CLI: stage the root package with the workspace packages extracted into its node_modules
const rootPkg = readJson(join(root, 'package.json'));
const stage = join(out, 'stage');
mkdirSync(join(stage, 'bin'), { recursive: true });
cpSync(join(root, 'bin/run.js'), join(stage, 'bin/run.js'));
cpSync(join(root, 'README.md'), join(stage, 'README.md'));
const thirdParty = {};
for (const w of workspaces) {
  const dest = join(stage, 'node_modules', w.name);
  mkdirSync(dest, { recursive: true });
  const tar = spawnSync('tar', ['-xzf', w.file, '-C', dest, '--strip-components=1'], { encoding: 'utf8' });
  if (tar.status !== 0) throw new Error(`tar -xzf ${w.file}: ${tar.stderr}`);
  for (const [dep, range] of Object.entries(readJson(join(dest, 'package.json')).dependencies ?? {})) {
    if (dep.startsWith('@hpt-bench/')) continue;
    if (thirdParty[dep] && thirdParty[dep] !== range) throw new Error(`${dep}: ${thirdParty[dep]} and ${range} in the bundled packages; align them`);
    thirdParty[dep] = range;
  }
}
const cliDir = './node_modules/@hpt-bench/cli';
const pkg = { ...rootPkg };
for (const key of ['private', 'workspaces', 'scripts', 'devDependencies', 'allowScripts']) delete pkg[key];
const bundled = workspaces.map((w) => w.name).sort();
pkg.files = ['bin', 'oclif.manifest.json', 'README.md'];
pkg.dependencies = Object.fromEntries(
  Object.entries({ ...thirdParty, ...rootPkg.dependencies, ...Object.fromEntries(workspaces.map((w) => [w.name, w.version])) }).sort(([a], [b]) => a.localeCompare(b)),
);
// Every dependency is bundled, third-party ones too: npm 10/11 does not install the dependencies of bundled packages
// when they are not in the bundle (it takes them for part of it: `better-sqlite3` arrived empty, its install script
// failed with "binding.gyp not found"). So the stage gets its dependency tree from `npm install` (scripts off:
// better-sqlite3 is compiled, or its prebuilt binary fetched, by its install script on the user's machine).
// (written after that install: with bundleDependencies in package.json, npm install fails on npm's own bundled
// libnpmexec, ETARGET)
pkg.oclif = {
  ...rootPkg.oclif,
  commands: rootPkg.oclif.commands.replace('./packages/cli', cliDir),
  helpClass: rootPkg.oclif.helpClass.replace('./packages/cli', cliDir),
  hooks: Object.fromEntries(Object.entries(rootPkg.oclif.hooks).map(([k, v]) => [k, v.replace('./packages/cli', cliDir)])),
};
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
const manifest = readJson(join(root, 'oclif.manifest.json'));
for (const c of Object.values(manifest.commands)) {
  if (Array.isArray(c.relativePath) && c.relativePath[0] === 'packages' && c.relativePath[1] === 'cli') c.relativePath.splice(0, 2, 'node_modules', '@hpt-bench', 'cli');
}
writeFileSync(join(stage, 'oclif.manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
// the extracted @hpt-bench/* packages satisfy their own specs (0.1.0), so npm keeps them and fetches only the rest
runNpm(['install', '--omit=dev', '--ignore-scripts', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error'], stage);
for (const w of workspaces) {
  if (!existsSync(join(stage, 'node_modules', w.name, 'package.json'))) throw new Error(`npm install in the stage removed ${w.name}`);
}
pkg.bundleDependencies = Object.keys(pkg.dependencies);
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
const cli = JSON.parse(runNpm(['pack', '--ignore-scripts', '--json', '--pack-destination', out], stage))[0];
const cliFile = join(out, cli.filename);

// 3. optionally: npm publish --dry-run of every package (nothing is uploaded)
if (publishDryRun) {
  for (const file of [...workspaces.map((w) => w.file), cliFile]) {
    runNpm(['publish', '--dry-run', '--ignore-scripts', '--registry', 'https://registry.npmjs.org/', file], out);
    process.stdout.write(`npm publish --dry-run ${file}: ok\n`);
  }
}
writeFileSync(join(out, 'release.json'), `${JSON.stringify({ cli: cliFile, bundled, packages: workspaces.map((w) => w.file) }, null, 2)}\n`);
process.stdout.write(`${cliFile} (${cli.entryCount} files, ${(cli.size / 1e6).toFixed(1)} MB; bundles ${bundled.join(', ')} and their third-party dependencies)\n`);
for (const w of workspaces) process.stdout.write(`${w.file}\n`);
