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

/** The contribution kinds a manifest can declare (DESIGN.md "The four plugin kinds", plus ladders, selectors and report views). */
export type ContributionKind = 'datasets' | 'strategies' | 'models' | 'scorers' | 'ladders' | 'selectors' | 'reports';

/** The declaration type of each kind. */
export interface DeclOf {
  datasets: DatasetDecl;
  strategies: StrategyDecl;
  models: CodeDecl;
  scorers: CodeDecl;
  ladders: LadderDecl;
  selectors: CodeDecl;
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

