import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { HptError } from '@hpt-bench/core';
import { HptCommand } from '../../base.js';
import { SCAFFOLD_KINDS, scaffoldPlugin, type ScaffoldKind } from '../../scaffold.js';

/**
 * `hpt-bench plugins new DIR --kind <kind> [--typescript]`: write a working plugin package from a
 * template. It sits in the `plugins` topic beside @oclif/plugin-plugins' install/link/uninstall (which has no `new`).
 */
export default class PluginsNew extends HptCommand {
  static override summary = 'Write a new plugin package (dataset, strategy, model, scorer or selector) from a template.';
  static override description =
    'The package imports only @hpt-bench/sdk, has the hpt-bench manifest and `oclif: {}` in its package.json, bundles the SDK (so `plugins install file:<tarball>` needs no registry), and a README saying how to test, pack and install it. See docs/plugins.md.';
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
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PluginsNew);
    const dir = resolve(args.dir);
    if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
      throw new HptError('E_CONFIG', `${dir} already exists and is not an empty directory; choose a new directory for the plugin`);
    }
    const s = scaffoldPlugin({ dir, kind: flags.kind as ScaffoldKind, typescript: flags.typescript, ...(flags.name ? { name: flags.name } : {}), ...(flags.id ? { id: flags.id } : {}) });
    for (const [rel, text] of Object.entries(s.files)) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text, { flag: 'wx' });
    }
    const files = Object.keys(s.files).sort();
    if (flags.json) {
      this.printJson({ dir, name: s.name, kind: s.kind, id: s.id, typescript: s.typescript, files });
      return;
    }
    this.log(`Created ${s.name} in ${dir}: the ${s.kind} '${s.id}' (${s.typescript ? 'TypeScript' : 'JavaScript'})`);
    for (const f of files) this.log(`  ${f}`);
    this.log(`Next: cd ${args.dir} && npm install${s.typescript ? ' && npm run build' : ''} && ${this.config.bin} list --plugin .   (README.md says how to pack and install it)`);
  }
}
