import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Json } from '../contracts.js';
import { HptError } from '../errors.js';
import { assertValid } from '../schema.js';

/** JSON Schema of a contribution's options (draft 2020-12). */
export type OptionsSchema = Record<string, Json>;

/** A code contribution: `module` (relative to the plugin root) exports `export`, a class. */
export interface CodeDecl {
  id: string;
  module: string;
  export: string;
  description?: string;
  options?: OptionsSchema;
}

/** A scorer reference of a dataset: an id, or an id with the options the dataset passes to it. */
export type ScorerRef = string | { id: string; options?: Record<string, Json> };

/** A dataset contribution (schemas/plugin-manifest.schema.json #/$defs/dataset). Code or declarative. */
export interface DatasetDecl {
  id: string;
  description?: string;
  module?: string;
  export?: string;
  scorer: ScorerRef;
  /** HPI_Dataset: the penalty added to m for an unsolved sample (hpt.md §2.4). */
  hpiDataset: number;
  /** prompt pack path relative to the plugin root; absent: the generic pack (`GENERIC_PACK_PATH`) */
  promptPack?: string;
  /** generated datasets: the filter names (`task`, `preset`, ...) that `run` and `generate` accept */
  filters?: string[];
  aliases?: string[];
  defaultSplit?: string;
  splits?: Record<string, string>;
  hub?: { dataset: string; config?: string; split?: string };
  file?: string;
  idField?: string[];
  fields?: Record<string, string>;
  optionalFields?: Record<string, string>;
  target?: { field: string; type: 'boolean' | 'letter' | 'number' | 'string'; after?: string };
  meta?: Record<string, string>;
  options?: OptionsSchema;
}

/** A strategy contribution: code, or declarative `kind: single-call`. */
export interface StrategyDecl {
  id: string;
  module?: string;
  export?: string;
  kind?: 'single-call';
  template?: string;
  description?: string;
  options?: OptionsSchema;
}

/** A ladder: strategy ids, level 1 first. */
export interface LadderDecl {
  id: string;
  levels: string[];
  description?: string;
}

/** The `hpt-bench` manifest of a plugin package. */
export interface PluginManifest {
  apiVersion: 1;
  contributes: {
    datasets?: DatasetDecl[];
    strategies?: StrategyDecl[];
    models?: CodeDecl[];
    scorers?: CodeDecl[];
    ladders?: LadderDecl[];
    /** adaptive-HPF level selectors (hpt.md §2.3; issue #6 item 2), e.g. `llm` and `fixed` */
    selectors?: CodeDecl[];
  };
}

/** A plugin found on disk: its package name, short name (namespace), root directory and validated manifest. */
export interface PluginSource {
  /** npm package name, e.g. `@hpt-bench/hpt-datasets`. */
  name: string;
  /** namespace used in qualified ids: the package name without its scope, e.g. `hpt-datasets`. */
  namespace: string;
  version: string;
  root: string;
  manifest: PluginManifest;
  /** `builtin` (shipped), `installed` (oclif user/link plugin) or `local` (`--plugin DIR`). */
  origin: 'builtin' | 'installed' | 'local';
}

/**
 * Read the manifest of the package at `root`: the `hpt-bench` field of its package.json, or the JSON file that field
 * names (e.g. `"hpt-bench": "./hpt-plugin.json"`). Returns undefined when the package declares no manifest.
 *
 * @throws HptError `E_PLUGIN` when the directory has no readable package.json, `E_MANIFEST` when the manifest does not
 *   match schemas/plugin-manifest.schema.json (naming the plugin and the field) or names a missing file.
 */
export function readPluginManifest(root: string, origin: PluginSource['origin']): PluginSource | undefined {
  const abs = resolve(root);
  const pjPath = join(abs, 'package.json');
  let pj: Record<string, unknown>;
  try {
    pj = JSON.parse(readFileSync(pjPath, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new HptError('E_PLUGIN', `cannot read plugin package.json at ${pjPath}: ${(e as Error).message}`);
  }
  const name = typeof pj.name === 'string' ? pj.name : abs.split(/[\\/]/).pop()!;
  let raw = pj['hpt-bench'];
  if (raw === undefined) return undefined;
  if (typeof raw === 'string') {
    const file = join(abs, raw);
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new HptError('E_MANIFEST', `plugin ${name}: cannot read manifest ${raw}: ${(e as Error).message}`);
    }
  }
  const manifest = assertValid<PluginManifest>('plugin-manifest', raw, `manifest of plugin ${name}`, 'E_MANIFEST');
  const c = manifest.contributes;
  const files: [string, string][] = [];
  for (const d of c.datasets ?? []) {
    if (d.promptPack) files.push([`dataset ${d.id} promptPack`, d.promptPack]);
    if (d.file) files.push([`dataset ${d.id} file`, d.file]);
    for (const [s, p] of Object.entries(d.splits ?? {})) files.push([`dataset ${d.id} split ${s}`, p]);
  }
  for (const [what, rel] of files) {
    if (!existsSync(join(abs, rel))) throw new HptError('E_MANIFEST', `plugin ${name}: ${what} names ${rel}, which does not exist in ${abs}`);
  }
  const namespace = name.replace(/^@[^/]+\//, '');
  return { name, namespace, version: typeof pj.version === 'string' ? pj.version : '0.0.0', root: abs, manifest, origin };
}
