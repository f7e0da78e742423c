/**
 * The plugin manifest's shapes (the `hpt-bench` field of a plugin's package.json, validated against
 * `schemas/plugin-manifest.schema.json`, shipped in this package's `schemas/`) and the contribution a plugin's code is
 * constructed for (`Tokens.Contribution`). DESIGN.md "Plugins: manifests, discovery, DI".
 */
import type { Json } from './contracts.js';
import type { ReportViewDecl } from './report.js';

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

/**
 * A generator filter a dataset declares (schemas/plugin-manifest.schema.json #/$defs/filter): its name (the flag
 * `--<name>` and `--filter <name>=...` of `run` and `generate`), what it selects, and its allowed values (absent: any
 * value; the dataset checks it). The plain string form `"task"` is a filter with a name only.
 */
export interface FilterDecl {
  name: string;
  description?: string;
  values?: string[];
}

/** A scorer contribution: code, and optionally the name of the environment check it implements (`checkEnvironment`). */
export interface ScorerDecl extends CodeDecl {
  /** e.g. `sandbox`: `hpt-bench sandbox check` runs this scorer's `checkEnvironment` */
  environmentCheck?: string;
}

/**
 * A `packs` contribution: prompt-pack entries a plugin adds, in one of two forms (schemas/plugin-manifest.schema.json
 * #/$defs/pack; exactly one of `dataset` and `generic`):
 * - `dataset`: `promptPack` (a path inside the plugin root) holds `{ "strategies": { <strategy id>: PromptPackEntry } }`;
 *   the entries are merged into the pack of `dataset`, and an entry for a strategy that pack (or another plugin's
 *   addition) already has is an error naming both plugins.
 * - `generic: true`: `promptPack` is (part of) the generic prompt pack, which every dataset that names no `promptPack`
 *   uses. It is a prompt pack whose `id` (default `generic`) and `cue` (default '') may be omitted. The generic packs of
 *   all discovered plugins merge in discovery order: their `strategies` unite (an entry two of them give is an error
 *   naming both plugins), `id` and `source` are the first one's, and `cue`, `system` and `task` come from the first one
 *   that sets them (a later one that sets another value is an error). The core ships none: without a plugin giving one,
 *   a dataset without a pack cannot be run (issue 26, item 2).
 */
export interface PackDecl {
  /**
   * the contribution id: `<dataset>` for a dataset's additions (several plugins may extend the same dataset; their
   * qualified ids differ), `generic` for a generic pack
   */
  id: string;
  /** the dataset whose pack the entries extend (plain id, qualified id or alias); absent when `generic` */
  dataset?: string;
  /** true: the file is (part of) the generic prompt pack; absent when `dataset` is given */
  generic?: true;
  promptPack: string;
  description?: string;
}

/** A dataset contribution (schemas/plugin-manifest.schema.json #/$defs/dataset). Code or declarative. */
export interface DatasetDecl {
  id: string;
  description?: string;
  module?: string;
  export?: string;
  scorer: ScorerRef;
  /** HPI_Dataset: the penalty added to m for an unsolved sample (hpt.md §2.4). */
  hpiDataset: number;
  /** prompt pack path relative to the plugin root; absent: the generic pack (the `packs` entries with `generic: true`) */
  promptPack?: string;
  /** generated datasets: the filters (`task`, `preset`, ... or `{name, description, values}`) `run` and `generate` accept */
  filters?: (string | FilterDecl)[];
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
  /**
   * the prompt-pack entry this strategy uses instead of the one named by its own id (e.g. `zero-shot-cot`): its
   * `StrategyContext.entry`, and for `single-call` the template it sends
   */
  packEntry?: string;
  description?: string;
  options?: OptionsSchema;
}

/** A ladder: strategy ids, level 1 first. */
export interface LadderDecl {
  id: string;
  levels: string[];
  description?: string;
  /**
   * Options per strategy id of `levels` (as written there), validated against that strategy's declared `options`
   * schema and injected into it as `Tokens.Options`; a level without an entry gets `{}`.
   */
  options?: Record<string, Record<string, Json>>;
}

/** The `hpt-bench` manifest of a plugin package. */
export interface PluginManifest {
  apiVersion: 1;
  contributes: {
    datasets?: DatasetDecl[];
    strategies?: StrategyDecl[];
    models?: CodeDecl[];
    scorers?: ScorerDecl[];
    ladders?: LadderDecl[];
    /** adaptive-HPF level selectors (hpt.md §2.3), e.g. `llm` and `fixed` */
    selectors?: CodeDecl[];
    /** standalone metrics (`hpt-bench score <id>`): classes implementing `StandaloneMetric` */
    metrics?: CodeDecl[];
    /** prompt-pack entries for existing datasets, or parts of the generic pack (the manifest has no `id`: it is the dataset's, or `generic`) */
    packs?: Omit<PackDecl, 'id'>[];
    /** report views: the paper layouts of the plugin's datasets (`ReportViewDecl`, report.ts) */
    reports?: ReportViewDecl[];
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
 * The contribution kinds a manifest can declare (DESIGN.md "The four plugin kinds", plus ladders, selectors, standalone
 * metrics, prompt-pack additions and report views).
 */
export type ContributionKind = 'datasets' | 'strategies' | 'models' | 'scorers' | 'ladders' | 'selectors' | 'metrics' | 'packs' | 'reports';

/** The declaration type of each kind. */
export interface DeclOf {
  datasets: DatasetDecl;
  strategies: StrategyDecl;
  models: CodeDecl;
  scorers: ScorerDecl;
  ladders: LadderDecl;
  selectors: CodeDecl;
  metrics: CodeDecl;
  packs: PackDecl;
  reports: ReportViewDecl;
}

/**
 * One contribution of one plugin. `id` is the id as declared; `qualifiedId` is `<namespace>/<id>`; `names` are the
 * ids it answers to (its id, qualified id and aliases).
 */
export interface Contribution<K extends ContributionKind = ContributionKind> {
  kind: K;
  id: string;
  qualifiedId: string;
  plugin: PluginSource;
  decl: DeclOf[K];
}

