import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { HptError } from '@hpt-bench/core';
import { HptCommand } from '../../base.js';
import { SCAFFOLD_KINDS, scaffoldPlugin, sdkTarballName, type ScaffoldKind } from '../../scaffold.js';

/** The directory and version of the @hpt-bench/sdk this CLI runs on (the one `--sdk tarball` packs). */
export function installedSdk(): { dir: string; version: string } {
  const pj = createRequire(import.meta.url).resolve('@hpt-bench/sdk/package.json');
  return { dir: dirname(pj), version: (JSON.parse(readFileSync(pj, 'utf8')) as { version: string }).version };
}

/**
 * Pack the SDK in `sdkDir` (already built: its lifecycle scripts are not run) into `destDir` with `npm pack`.
 * @returns the tarball's file name
 * @throws HptError `E_CONFIG` when npm is missing or fails (naming `--sdk registry` as the way around it)
 */
export function packSdk(sdkDir: string, destDir: string): string {
  mkdirSync(destDir, { recursive: true });
  const win = process.platform === 'win32';
  const r = spawnSync(win ? 'npm.cmd' : 'npm', ['pack', sdkDir, '--ignore-scripts', '--json', '--pack-destination', destDir, '--loglevel=error'], {
    cwd: destDir,
    encoding: 'utf8',
    shell: win,
    timeout: 120_000,
  });
  if (r.status !== 0) {
    const why = r.error ? r.error.message : (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ');
    throw new HptError('E_CONFIG', `could not pack @hpt-bench/sdk from ${sdkDir} with npm (${why}); install npm, or use --sdk registry when the SDK is on your registry`);
  }
  return (JSON.parse(r.stdout) as { filename: string }[])[0]!.filename;
}

/**
 * `hpt-bench plugins new DIR --kind <kind> [--typescript]`: write a working plugin package from a
 * template. It sits in the `plugins` topic beside @oclif/plugin-plugins' install/link/uninstall (which has no `new`).
 */
export default class PluginsNew extends HptCommand {
  static override summary = 'Write a new plugin package (dataset, strategy, model, scorer or selector) from a template.';
  static override description =
    'The package imports only @hpt-bench/sdk, has the hpt-bench manifest and `oclif: {}` in its package.json, bundles the SDK (so `plugins install file:<tarball>` needs no registry), and a README saying how to test, pack and install it. See docs/plugins.md.\n\nWith --sdk tarball (the default) the SDK comes from vendor/hpt-bench-sdk-<version>.tgz, packed (with npm) from the SDK this hpt-bench runs on: `npm install` in the new package needs no registry copy of @hpt-bench/sdk. --sdk registry depends on ^<version> from the npm registry instead.';
  static override examples = [
    '<%= config.bin %> plugins new ./my-model --kind model',
    '<%= config.bin %> plugins new ./hpt-bench-plugin-verify --kind strategy --typescript',
    '<%= config.bin %> list --plugin ./my-model',
  ];
  static override args = {
    dir: Args.string({ description: 'directory to create (must not exist, or be empty)', required: true }),
  };
  static override flags = {
    kind: Flags.string({ description: 'what the plugin contributes', options: [...SCAFFOLD_KINDS], required: true }),
    typescript: Flags.boolean({ description: 'TypeScript source compiled with tsc (default: plain JavaScript, no build step)', default: false }),
    name: Flags.string({ description: 'npm package name (default: hpt-bench-plugin-<id>)' }),
    id: Flags.string({ description: "the contribution's id (default: the directory's name without hpt-bench-plugin-)" }),
    sdk: Flags.string({ description: 'where @hpt-bench/sdk comes from: a tarball packed from this hpt-bench into vendor/, or the npm registry', options: ['tarball', 'registry'], default: 'tarball' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PluginsNew);
    const dir = resolve(args.dir);
    if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
      throw new HptError('E_CONFIG', `${dir} already exists and is not an empty directory; choose a new directory for the plugin`);
    }
    const sdk = installedSdk();
    const s = scaffoldPlugin({
      dir,
      kind: flags.kind as ScaffoldKind,
      typescript: flags.typescript,
      sdk: flags.sdk as 'tarball' | 'registry',
      sdkVersion: sdk.version,
      ...(flags.name ? { name: flags.name } : {}),
      ...(flags.id ? { id: flags.id } : {}),
    });
    const created = !existsSync(dir);
    try {
      for (const [rel, text] of Object.entries(s.files)) {
        mkdirSync(dirname(join(dir, rel)), { recursive: true });
        writeFileSync(join(dir, rel), text, { flag: 'wx' });
      }
      if (s.sdkTarball) {
        const packed = packSdk(sdk.dir, join(dir, 'vendor'));
        if (packed !== s.sdkTarball) throw new HptError('E_INTERNAL', `npm packed the SDK as ${packed}, expected ${sdkTarballName(sdk.version)}`);
      }
    } catch (e) {
      // leave no half-written package behind
      if (created) rmSync(dir, { recursive: true, force: true });
      else for (const f of readdirSync(dir)) rmSync(join(dir, f), { recursive: true, force: true });
      throw e;
    }
    const files = [...Object.keys(s.files), ...(s.sdkTarball ? [`vendor/${s.sdkTarball}`] : [])].sort();
    if (flags.json) {
      this.printJson({ dir, name: s.name, kind: s.kind, id: s.id, typescript: s.typescript, sdk: s.sdkTarball ? `file:vendor/${s.sdkTarball}` : `^${sdk.version}`, files });
      return;
    }
    this.log(`Created ${s.name} in ${dir}: the ${s.kind} '${s.id}' (${s.typescript ? 'TypeScript' : 'JavaScript'})`);
    for (const f of files) this.log(`  ${f}`);
    this.log(`Next: cd ${args.dir} && npm install${s.typescript ? ' && npm run build' : ''} && ${this.config.bin} list --plugin .   (README.md says how to pack and install it)`);
  }
}
