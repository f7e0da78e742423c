import { distance } from 'fastest-levenshtein';
import { HptError, type Contribution, type ContributionKind, type DatasetDecl, type DeclOf, type PluginSource } from '@hpt-bench/sdk';

/** The contribution id of a generic `packs` entry (`{"generic": true, ...}`; schemas/plugin-manifest.schema.json #/$defs/pack). */
export const GENERIC_PACK_ID = 'generic';

/**
 * The id of a `packs` entry, read tolerantly (the manifest entry has none of its own): the dataset it extends, or
 * `GENERIC_PACK_ID` for a generic pack (`generic: true`); undefined when it has neither.
 */
export function packEntryId(d: Record<string, unknown>): string | undefined {
  if (typeof d.dataset === 'string') return d.dataset;
  return d.generic === true ? GENERIC_PACK_ID : undefined;
}

/**
 * An installed plugin that discovery left out because it could not be loaded (`discoverPlugins`): its package name
 * (or directory name), root, the reason (one line, no file contents) and, when its manifest could be read at all, the
 * ids it declares per kind (`undefined`: unknown).
 */
export interface BrokenPlugin {
  name: string;
  root: string;
  reason: string;
  declares: Partial<Record<ContributionKind, string[]>> | undefined;
}

const SINGULAR: Record<ContributionKind, string> = {
  datasets: 'dataset',
  strategies: 'strategy',
  models: 'model',
  scorers: 'scorer',
  ladders: 'ladder',
  selectors: 'selector',
  metrics: 'metric',
  packs: 'pack',
  reports: 'report view',
};

/** The singular noun of a contribution kind for messages (`strategies` -> `strategy`). */
export function kindNoun(kind: ContributionKind): string {
  return SINGULAR[kind];
}

/**
 * Suggest the closest known names to `wanted` (Levenshtein distance ≤ max(2, a third of its length), or a prefix match).
 * @returns up to 3 names, closest first.
 */
export function didYouMean(wanted: string, known: Iterable<string>): string[] {
  const w = wanted.toLowerCase();
  const limit = Math.max(2, Math.floor(w.length / 3));
  return [...new Set(known)]
    .map((k) => ({ k, d: k.startsWith(w) || w.startsWith(k) ? 1 : distance(w, k.toLowerCase()) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
    .slice(0, 3)
    .map((x) => x.k);
}

/**
 * Every contribution of every discovered plugin, looked up by id (DESIGN.md "Plugins: manifests, discovery, DI").
 * When two plugins contribute the same id, the plain id is ambiguous and each is reachable by its qualified id
 * `<namespace>/<id>`; a local (`--plugin`) plugin does not shadow anything silently.
 */
export class Registry {
  readonly plugins: PluginSource[] = [];
  /** Installed plugins that failed to load and were left out (see `BrokenPlugin`), in discovery order. */
  readonly broken: BrokenPlugin[] = [];
  private readonly byKind = new Map<ContributionKind, Contribution[]>();

  /** Add a plugin's contributions. @throws HptError `E_PLUGIN` when the same package is added twice from two roots. */
  add(plugin: PluginSource): void {
    const existing = this.plugins.find((p) => p.name === plugin.name);
    if (existing) {
      if (existing.root === plugin.root) return;
      throw new HptError('E_PLUGIN', `plugin ${plugin.name} is loaded twice (${existing.root} and ${plugin.root}); uninstall or unlink one`);
    }
    this.plugins.push(plugin);
    for (const kind of Object.keys(SINGULAR) as ContributionKind[]) {
      const decls = (plugin.manifest.contributes[kind] ?? []) as DeclOf[typeof kind][];
      const list = this.byKind.get(kind) ?? [];
      for (const raw of decls) {
        // a `packs` entry has no id of its own: it is the dataset it extends, or `generic` (a generic pack)
        const decl = kind === 'packs' && !('id' in raw) ? ({ ...(raw as object), id: packEntryId(raw as unknown as Record<string, unknown>) } as DeclOf[typeof kind]) : raw;
        list.push({ kind, id: decl.id, qualifiedId: `${plugin.namespace}/${decl.id}`, plugin, decl });
      }
      this.byKind.set(kind, list);
    }
  }

  /** Record an installed plugin that failed to load, so that `get` can say why an id it declares is missing. */
  addBroken(plugin: BrokenPlugin): void {
    this.broken.push(plugin);
  }

  /** All contributions of a kind, in discovery order. */
  list<K extends ContributionKind>(kind: K): Contribution<K>[] {
    return (this.byKind.get(kind) ?? []) as Contribution<K>[];
  }

  private names(c: Contribution): string[] {
    const aliases = c.kind === 'datasets' ? ((c.decl as DatasetDecl).aliases ?? []) : [];
    return [c.id, c.qualifiedId, ...aliases];
  }

  /**
   * The contribution of `kind` named `id` (plain, qualified or alias).
   * @throws HptError `E_UNKNOWN_ID` with "did you mean ..." suggestions and the known ids (sorted, so the message does not
   *   depend on plugin discovery order), or `E_AMBIGUOUS_ID` listing the qualified ids. When a plugin that failed to
   *   load declares `id`, the message says that plugin failed to load and why (a failed plugin whose ids could not be
   *   read is named after the usual message).
   */
  get<K extends ContributionKind>(kind: K, id: string): Contribution<K> {
    const all = this.list(kind);
    const hits = all.filter((c) => this.names(c).includes(id));
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1) {
      throw new HptError('E_AMBIGUOUS_ID', `${SINGULAR[kind]} id '${id}' is contributed by several plugins; use one of: ${hits.map((h) => h.qualifiedId).join(', ')}`);
    }
    const failed = this.brokenFor(kind, id);
    if (failed.length) {
      const why = failed.map((b) => `plugin ${b.name} failed to load (${b.reason})`).join('; ');
      throw new HptError('E_UNKNOWN_ID', `${SINGULAR[kind]} '${id}' is not available: ${why}; fix the plugin, or remove it with \`hpt-bench plugins uninstall ${failed[0]!.name}\``);
    }
    const known = all.flatMap((c) => this.names(c));
    const sugg = didYouMean(id, known);
    const hint = sugg.length ? ` Did you mean ${sugg.map((s) => `'${s}'`).join(' or ')}?` : '';
    const list = all.length ? ` Known ${kind}: ${[...new Set(all.map((c) => c.id))].sort().join(', ')}.` : ` No ${kind} are installed.`;
    const unreadable = this.broken.filter((b) => b.declares === undefined);
    const note = unreadable.length ? ` Not loaded: ${unreadable.map((b) => `plugin ${b.name} failed to load (${b.reason})`).join('; ')}; it may contribute '${id}'.` : '';
    throw new HptError('E_UNKNOWN_ID', `unknown ${SINGULAR[kind]} '${id}'.${hint}${list}${note}`);
  }

  /** The failed plugins whose manifest declares `id` of `kind` (plain, `<namespace>/<id>`, or an alias). */
  private brokenFor(kind: ContributionKind, id: string): BrokenPlugin[] {
    return this.broken.filter((b) => {
      if (b.declares === undefined) return false;
      const namespace = b.name.replace(/^@[^/]+\//, '');
      return (b.declares[kind] ?? []).some((d) => d === id || `${namespace}/${d}` === id);
    });
  }

  /** Whether some contribution of `kind` answers to `id`. */
  has(kind: ContributionKind, id: string): boolean {
    return this.list(kind).some((c) => this.names(c).includes(id));
  }
}
