import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { duplicateFilterNames } from './filters.js';
import { packEntryId } from './registry.js';
import { assertValid, HptError, jsonErrorReason, type PluginManifest, type PluginSource, readJsonText } from '@hpt-bench/sdk';

const CODE_KINDS = ['datasets', 'strategies', 'models', 'scorers', 'selectors', 'ladders', 'metrics', 'packs', 'reports'] as const;
const SINGULAR: Record<(typeof CODE_KINDS)[number], string> = {
  datasets: 'dataset',
  strategies: 'strategy',
  models: 'model',
  scorers: 'scorer',
  selectors: 'selector',
  ladders: 'ladder',
  metrics: 'metric',
  packs: 'pack',
  reports: 'report view',
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every file path a manifest names, read tolerantly from a manifest that may not be valid yet: each contribution's
 * `module`, and each dataset's `promptPack`, `file` and `splits` values, as `[what, path]` (e.g.
 * `["model 'echo' module", "./echo.js"]`). Values that are not strings are left to the schema.
 */
function declaredPaths(raw: unknown): { what: string; rel: string; mustExist: boolean }[] {
  const out: { what: string; rel: string; mustExist: boolean }[] = [];
  const contributes = isRecord(raw) ? raw.contributes : undefined;
  if (!isRecord(contributes)) return out;
  for (const kind of CODE_KINDS) {
    const list = contributes[kind];
    if (!Array.isArray(list)) continue;
    list.forEach((d, i) => {
      if (!isRecord(d)) return;
      const name = typeof d.id === 'string' ? d.id : kind === 'packs' ? packEntryId(d) : undefined;
      const who = `${SINGULAR[kind]} ${name !== undefined ? `'${name}'` : `#${i}`}`;
      if (typeof d.module === 'string') out.push({ what: `${who} module`, rel: d.module, mustExist: false });
      if (kind === 'packs' && typeof d.promptPack === 'string') out.push({ what: `${who} promptPack`, rel: d.promptPack, mustExist: true });
      if (kind !== 'datasets') return;
      if (typeof d.promptPack === 'string') out.push({ what: `${who} promptPack`, rel: d.promptPack, mustExist: true });
      if (typeof d.file === 'string') out.push({ what: `${who} file`, rel: d.file, mustExist: true });
      if (isRecord(d.splits)) for (const [name, p] of Object.entries(d.splits)) if (typeof p === 'string') out.push({ what: `${who} split ${name}`, rel: p, mustExist: true });
    });
  }
  return out;
}

/**
 * The ids a (possibly invalid) manifest declares, by contribution kind (plain ids and dataset aliases), read
 * tolerantly; used to say which ids a plugin that failed to load would have contributed. Empty when nothing is readable.
 */
export function declaredIds(raw: unknown): Partial<Record<(typeof CODE_KINDS)[number], string[]>> {
  const out: Partial<Record<(typeof CODE_KINDS)[number], string[]>> = {};
  const contributes = isRecord(raw) ? raw.contributes : undefined;
  if (!isRecord(contributes)) return out;
  for (const kind of CODE_KINDS) {
    const list = contributes[kind];
    if (!Array.isArray(list)) continue;
    const ids: string[] = [];
    for (const d of list) {
      if (!isRecord(d)) continue;
      const id = typeof d.id === 'string' ? d.id : kind === 'packs' ? packEntryId(d) : undefined;
      if (id !== undefined) ids.push(id);
      if (kind === 'datasets' && Array.isArray(d.aliases)) ids.push(...d.aliases.filter((a): a is string => typeof a === 'string'));
    }
    if (ids.length) out[kind] = ids;
  }
  return out;
}

/** Whether `child` (absolute, normalised) is `parent` or lies below it. */
function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Resolve a path a plugin's manifest names (`./...`, relative to the plugin root) to an absolute path that stays inside
 * the root: after normalisation (no `..` escape, not absolute, no NUL) and, when the path exists, after following
 * symbolic links (its realpath lies inside the realpath of the root). Used when the manifest is read and again right
 * before a module is imported or a file is opened.
 * @param plugin the plugin's package name (for messages) and root directory.
 * @param rel the path as the manifest gives it, e.g. `./dist/index.js`.
 * @param what what names the path, for messages, e.g. `model 'echo' module`.
 * @returns the absolute (lexically resolved) path.
 * @throws HptError `E_MANIFEST` naming the plugin, `what` and the path (never the file's contents) when it leaves the root.
 */
export function resolvePluginPath(plugin: { name: string; root: string }, rel: string, what: string): string {
  const root = resolve(plugin.root);
  const outside = (detail: string) =>
    new HptError('E_MANIFEST', `plugin ${plugin.name}: ${what} ${JSON.stringify(rel)} ${detail}; a plugin path must start with ./ and stay inside the plugin root ${root}`);
  if (rel.includes('\0')) throw outside('contains a NUL character');
  if (isAbsolute(rel)) throw outside('is absolute');
  const abs = resolve(root, rel);
  if (!isInside(root, abs)) throw outside(`leaves the plugin root (it resolves to ${abs})`);
  if (existsSync(abs)) {
    let realRoot: string;
    let real: string;
    try {
      realRoot = realpathSync(root);
      real = realpathSync(abs);
    } catch (e) {
      throw new HptError('E_MANIFEST', `plugin ${plugin.name}: cannot resolve ${what} ${JSON.stringify(rel)}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    if (!isInside(realRoot, real)) throw outside(`leaves the plugin root through a symbolic link (it resolves to ${real})`);
  }
  return abs;
}

/**
 * Read the manifest of the package at `root`: the `hpt-bench` field of its package.json, or the JSON file that field
 * names (e.g. `"hpt-bench": "./hpt-plugin.json"`). Returns undefined when the package declares no manifest. A leading
 * UTF-8 byte order mark in either file is ignored. Every path the manifest names (the manifest file, each `module`,
 * `promptPack`, `file` and split) must stay inside the plugin root, symbolic links followed (`resolvePluginPath`).
 *
 * @param options `files: false` skips the check that the data files a manifest names (`file`, splits, `promptPack`)
 *   exist, for a package whose install scripts have not run yet (`plugins install --allow-scripts` checks them again
 *   once they have); every other check is made. Default: checked.
 * @throws HptError `E_PLUGIN` when the directory has no readable package.json, `E_MANIFEST` when the manifest does not
 *   match schemas/plugin-manifest.schema.json (naming the plugin and the field), names a missing file, or names a path
 *   outside the plugin root. Messages name files and reasons, never a file's contents.
 */
export function readPluginManifest(root: string, origin: PluginSource['origin'], options: { files?: boolean } = {}): PluginSource | undefined {
  const abs = resolve(root);
  const pjPath = join(abs, 'package.json');
  let pj: Record<string, unknown>;
  try {
    pj = JSON.parse(readJsonText(pjPath)) as Record<string, unknown>;
  } catch (e) {
    const reason = e instanceof SyntaxError ? jsonErrorReason(e) : ((e as NodeJS.ErrnoException).code ?? (e as Error).message);
    throw new HptError('E_PLUGIN', `cannot read plugin package.json at ${pjPath}: ${reason}`);
  }
  if (!isRecord(pj)) throw new HptError('E_PLUGIN', `plugin package.json at ${pjPath} is not a JSON object`);
  const name = typeof pj.name === 'string' ? pj.name : abs.split(/[\\/]/).pop()!;
  let raw = pj['hpt-bench'];
  if (raw === undefined) return undefined;
  if (typeof raw === 'string') {
    const rel = raw;
    const file = resolvePluginPath({ name, root: abs }, rel, 'manifest file');
    try {
      raw = JSON.parse(readJsonText(file));
    } catch (e) {
      const reason = e instanceof SyntaxError ? jsonErrorReason(e) : ((e as NodeJS.ErrnoException).code ?? (e as Error).message);
      throw new HptError('E_MANIFEST', `plugin ${name}: cannot read manifest ${rel}: ${reason}`);
    }
  }
  // paths first: a path that leaves the root gets its own message, not the schema's pattern
  const paths = declaredPaths(raw);
  for (const p of paths) resolvePluginPath({ name, root: abs }, p.rel, p.what);
  const manifest = assertValid<PluginManifest>('plugin-manifest', raw, `manifest of plugin ${name}`, 'E_MANIFEST');
  for (const d of manifest.contributes.datasets ?? []) {
    const dup = duplicateFilterNames(d);
    if (dup.length) throw new HptError('E_MANIFEST', `plugin ${name}: dataset '${d.id}' declares the filter ${dup.map((n) => `'${n}'`).join(', ')} more than once`);
  }
  for (const p of paths) {
    const file = resolvePluginPath({ name, root: abs }, p.rel, p.what);
    if (p.mustExist && options.files !== false && !existsSync(file)) throw new HptError('E_MANIFEST', `plugin ${name}: ${p.what} names ${p.rel}, which does not exist in ${abs}`);
  }
  const namespace = name.replace(/^@[^/]+\//, '');
  return { name, namespace, version: typeof pj.version === 'string' ? pj.version : '0.0.0', root: abs, manifest, origin };
}
