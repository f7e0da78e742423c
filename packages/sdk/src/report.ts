/**
 * Report views: what a plugin contributes so that the generic report (`hpt-bench report`: Markdown, CSV, text, HTML)
 * can lay out the runs of its datasets the way its benchmark's paper does. The core knows no dataset, task or
 * benchmark; every paper layout (HPT Tables 1-3, specs/hpt.md §7.1-7.3; the HiBench leaderboard, specs/hibench.md
 * §4.5-4.6) comes from a `reports` contribution of the plugin that owns the datasets.
 *
 * A view has two parts, both optional:
 * - **data** (the manifest's `contributes.reports[]`, `ReportViewDecl`): the datasets the view covers (their order is
 *   the column order), display labels, and declarative tables in one of three layouts — `hpi-accuracy` (rows =
 *   models, per dataset `<label> HPI` and `<label> Acc` in %, hpt.md §7.1), `hpi-metric` (HPI and one metric of the
 *   run summary, e.g. pass@1, hpt.md §7.2) and `threshold` (per dataset one HPI column per threshold, then the metric
 *   per threshold, e.g. BLEU or ROUGE-L, hpt.md §7.3). Prefer data: it needs no code and no build.
 * - **code** (`module` + `export`, a class implementing `ReportViewCode`): tables and charts that need computation
 *   over the gathered runs (means across runs, breakdowns of the sample units by a field of `Sample.meta`). The host
 *   builds the class like any code contribution (it may receive `Tokens.Contribution`, `Tokens.Options`,
 *   `Tokens.Logger`) and calls it with a `ReportViewContext`; charts are returned as data (`ReportChart`) and drawn
 *   by the host, so a plugin needs no charting library.
 *
 * The shapes of the gathered data (`ReportRun`, `SampleUnit`, ...) are the report's JSON output
 * (`hpt-bench report --format json`).
 */
import type { Json } from './contracts.js';
import type { OptionsSchema } from './manifest.js';

/** A closed interval `[lo, hi]` (same unit as the estimate it belongs to). */
export type Interval = [number, number];

/**
 * One done sample of a run as the bootstrap sees it (a row of the store's `samples` table).
 * - `hpi`: the stored HPI **sum** of the sample's recorded scores (one score per sample in manual runs and strict
 *   adaptive runs; zero or two in adaptive runs under `--compat reference`, hpt.md §2.3 (a)-(b));
 * - `scores`: how many scores that sum holds (the unit's weight; `n` of a run = Σ scores);
 * - `solved`: how many of those scores are solves (0/1 in manual runs);
 * - `level`: the solving level (1..m) or null; `replicate`: `meta.replicate` of runs with `--samples N > 1`;
 * - `meta`: the sample's `meta` (e.g. a generated sample's task and preset).
 */
export interface SampleUnit {
  sampleId: string;
  index: number;
  replicate?: number;
  hpi: number;
  scores: number;
  solved: number;
  level: number | null;
  meta?: Record<string, Json>;
}

/** Calls, tokens and (with `--prices`) USD cost of one ladder level or of the selector (the run summary's `levels`). */
export interface ReportUsage {
  calls: number;
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  cost?: number;
  /** of `completionTokens`, the reasoning tokens the provider reported (issue #24) */
  reasoningTokens?: number;
  /** calls whose reply ended inside an unclosed thinking block (no answer) */
  truncatedThinking?: number;
}

/**
 * One run in a report (`hpt-bench report --format json` prints `{"runs": ReportRun[], "bootstrap": ...}`).
 * Point values are the run summary's (hpt.md §2.1: `hpi` = Σ HPI / n, `accuracy` = solved / n, lower HPI is better);
 * `hpiCi95` / `accuracyCi95` are seeded bootstrap percentile intervals over the run's samples, null for a run without
 * scored samples; for a run with replicates (several units of one sample) they are normal intervals with standard
 * errors clustered by sample (Miller 2024, "Adding Error Bars to Evals", §2.2), and `interval` is `clustered`.
 * `accuracy` is a fraction in [0, 1].
 */
export interface ReportRun {
  runId: string;
  /** the dataset id the run was made with (as declared by its plugin, e.g. `boolq`) */
  dataset: string;
  model: string;
  /**
   * the model's label when the run was made from an evaluation file whose model entry has a `name` (stored as the run
   * configuration's `name`); tables and charts label the run by it instead of the model id
   */
  name?: string;
  /** `manual` (hpt.md §2.1) or `adaptive` (§2.3) */
  mode: string;
  compat: string;
  seed: number;
  createdAt: string;
  ladder: string[];
  /** recorded scores (Σ scores over done samples) */
  n: number;
  /** done samples (rows), whatever their number of recorded scores */
  samples: number;
  hpi: number;
  hpiCi95: Interval | null;
  hpiDataset: number;
  accuracy: number;
  accuracyCi95: Interval | null;
  /** which interval `hpiCi95` / `accuracyCi95` are (`IntervalKind`); absent in reports made before it was recorded: bootstrap */
  interval?: IntervalKind;
  /** the run was made with `--full-ladder` (every level tried on every sample; its verdicts feed the ladder diagnostics) */
  fullLadder?: boolean;
  /** samples solved at level k by `"k"`, plus `unsolved` */
  levelCounts: Record<string, number>;
  threshold?: number;
  /** the dataset metric of the summary (corpus BLEU, ROUGE F1, pass@k, a benchmark's aggregates, ...) */
  metrics?: Record<string, Json>;
  calls: number;
  cachedCalls: number;
  usage: { promptTokens: number; completionTokens: number };
  /** per ladder level (by level number): calls, tokens and cost */
  levels: Record<string, ReportUsage>;
  /** USD of the run's uncached calls, when it ran with `--prices` */
  cost?: number;
  errored: number;
  /** replicates per sample (`--samples N`), when more than 1 */
  replicates?: number;
  /** adaptive runs: the selector spec, selections made, selections outside 1..m, the selector's usage */
  selector?: string;
  selections?: number;
  invalidSelections?: number;
  selectorUsage?: ReportUsage;
  /**
   * the run's comparability group (issue 16): a canonical key over model, dataset, threshold, ladder level ids, mode,
   * selector, compat, data (content hash, else source) and HPI_Dataset; runs with equal keys are comparable
   */
  group?: string;
  /**
   * what tells the group apart from the other groups of its dataset in this report (`6-level ladder (sixth)`,
   * `data a1b2c3d4`, `HPI_Dataset 2`); empty when nothing does. Part of `modelLabel`.
   */
  groupParts?: string[];
  /** the run's row label in tables and charts (`modelLabel`: model, mode, `[reference]`, then the group parts) */
  groupLabel?: string;
}

/** The bootstrap settings a report was computed with (recorded in its JSON). */
export interface BootstrapSettings {
  resamples: number;
  seed: number;
  level: number;
  /** what was resampled (a sentence for readers of the JSON) */
  units: string;
}

/** A column: its header, whether its cells carry a 95% interval, and the decimals shown (display only). */
export interface ReportColumn {
  label: string;
  ci?: boolean;
  digits?: number;
  /**
   * the column's cells are run ids: the HTML report shows each one short (`shortRunIds`) with the full id on hover
   * (its `title`); Markdown, CSV, JSON and the text table keep the full id
   */
  runId?: boolean;
}

/** A cell: a number (full precision), a string, or null (no value: shown as `-`), with its interval if any. */
export interface ReportCell {
  value: number | string | null;
  ci?: Interval | null;
}

/**
 * A table of a report. `id` selects it (`--table`), `title` and `source` (the spec section of its layout) head it,
 * `notes` explain it. `rows[i][j]` is the cell of column `columns[j]`. Values keep full precision (Markdown and the
 * text table round them to `digits`; CSV and JSON do not).
 */
export interface ReportTable {
  id: string;
  title: string;
  source?: string;
  notes: string[];
  columns: ReportColumn[];
  rows: ReportCell[][];
}

/**
 * The metric a declarative table shows for a dataset (`hpi-metric` and `threshold` layouts).
 * - `label`: its column header (`BLEU`, `ROUGE-L`, `Pass@1`);
 * - `key`: a key of the run summary's `metrics` (e.g. `bleu`, `rougeL`, `pass@1`); absent: the run's accuracy;
 * - `fallback`: `accuracy` shows the accuracy when the run has no number under `key` (default: no value);
 * - `scale`: multiplies the value (100 for a percentage; default 1);
 * - `ci`: the cell carries the accuracy's bootstrap interval when the value is the accuracy (e.g. pass@1 with one
 *   completion per problem); other metrics are shown without an interval.
 */
export interface ReportMetricDecl {
  label: string;
  key?: string;
  fallback?: 'accuracy';
  scale?: number;
  ci?: boolean;
}

/**
 * A declarative table of a report view (schemas/plugin-manifest.schema.json #/$defs/reportTable). Rows are models
 * (`model`, plus the adaptive selector, `[reference]` compat and the run's `groupParts`: runs with different ladders
 * or data get different rows); for each (row, column) the newest run is shown and a note counts the older ones.
 * - `layout`: `hpi-accuracy` (hpt.md §7.1: per dataset `<label> HPI` and `<label> Acc` in %, both with intervals),
 *   `hpi-metric` (§7.2: `HPI` and the dataset's metric; headers prefixed by the dataset label when the table has
 *   several datasets) or `threshold` (§7.3: per dataset `<label> HPI <t>` for each threshold t of its runs, then
 *   `<metric label> <t>`; a dataset without a metric shows `<label> Acc` in %). `hpi-accuracy` and `hpi-metric`
 *   take runs without a threshold; `threshold` takes runs with one.
 * - `datasets`: the datasets it shows, in column order (absent: the view's `datasets`); datasets of other runs follow
 *   in order of appearance.
 * - `fallback`: the table also takes the runs (of its layout's kind) that no other declarative table of any view took,
 *   so runs of a dataset without a view (or with a threshold its tables do not expect) still appear in a paper-style
 *   table (labelled by the view covering their dataset, else by the dataset id).
 * - `metrics`: dataset id -> the metric shown (`hpi-metric`, `threshold`).
 * Empty tables (no run) are left out of the report.
 */
export interface ReportTableDecl {
  id: string;
  layout: 'hpi-accuracy' | 'hpi-metric' | 'threshold';
  title: string;
  source?: string;
  notes?: string[];
  datasets?: string[];
  fallback?: boolean;
  metrics?: Record<string, ReportMetricDecl>;
}

/**
 * A report view contribution (`contributes.reports[]`; schemas/plugin-manifest.schema.json #/$defs/reportView).
 * - `datasets`: the dataset ids the view covers, in display order (the ids its plugin declares; a run matches by its
 *   dataset id, `<plugin namespace>/<id>` or an alias). Ids of things that are not datasets of the plugin (a
 *   benchmark's scenarios still to come) may be listed to fix their column order.
 * - `labels`: display names by id (datasets, or any key a code view shows); unknown ids are shown as they are.
 * - `tables`: declarative tables, in report order (see `ReportTableDecl`).
 * - `module` + `export`: an optional class implementing `ReportViewCode` for computed tables and charts.
 * The report lists views in plugin discovery order, each view's declarative tables first, then its code tables.
 */
export interface ReportViewDecl {
  id: string;
  description?: string;
  datasets: string[];
  labels?: Record<string, string>;
  tables?: ReportTableDecl[];
  module?: string;
  export?: string;
  options?: OptionsSchema;
}

/**
 * Which 95% interval an estimate carries: `bootstrap`, a seeded percentile bootstrap over samples (units drawn with
 * replacement); `clustered`, mean ± 1.96 · SE with the standard error clustered by sample (Miller 2024 §2.2, CR1
 * factor C/(C − 1)), used when some sample has several units (replicates), whose outcomes are correlated.
 */
export type IntervalKind = 'bootstrap' | 'clustered';

/**
 * HPI and accuracy of a set of sample units with their 95% intervals (`ReportViewContext.estimate`): bootstrap
 * percentile intervals, or clustered-by-sample normal intervals when the units hold replicates (`interval`).
 */
export interface UnitEstimate {
  hpi: number;
  hpiCi95: Interval | null;
  accuracy: number;
  accuracyCi95: Interval | null;
  /** which interval the two are; absent means `bootstrap` */
  interval?: IntervalKind;
}

/**
 * What the host gives a code view: the runs of the view's datasets (in report order), their sample units, the
 * report's bootstrap settings and helpers, so a view computes with exactly the report's statistics and labels.
 */
export interface ReportViewContext {
  /** the runs whose dataset the view covers (`ReportViewDecl.datasets`), in report order */
  readonly runs: readonly ReportRun[];
  /** the view's `datasets`, in declared (display) order */
  readonly order: readonly string[];
  readonly bootstrap: BootstrapSettings;
  /** a run's done samples in input order (empty when the report was made without units) */
  units(runId: string): readonly SampleUnit[];
  /**
   * HPI = Σ hpi / Σ scores and accuracy = Σ solved / Σ scores of `units`, with seeded bootstrap percentile intervals
   * (the report's resamples and seed; `stream` names the random stream, so each group draws its own reproducible one).
   */
  estimate(units: readonly SampleUnit[], stream: string): UnitEstimate;
  /** the view's label of an id (`labels[id]`), else the id */
  label(id: string): string;
  /**
   * the row label of a run in paper tables: the model, plus the adaptive selector and `[reference]` compat, then what
   * tells its comparability group apart (`ReportRun.groupParts`: ladder, data, HPI_Dataset), so incomparable runs of
   * one model and dataset get distinct rows
   */
  modelLabel(run: ReportRun): string;
  /** a chart label of a run, unique within the report (model · dataset, with the run id when two would collide) */
  runLabel(run: ReportRun): string;
  /**
   * What the tables are for: `report` (default), a report over stored runs; `run`, the summary `hpt-bench run` prints
   * under a run it just finished (one run: a view may leave out the tables that only compare runs).
   */
  readonly purpose?: 'report' | 'run';
}

/** One bar of a `ReportChart`: its group (a y-axis category), series (a colour: usually a run), value and interval. */
export interface ReportBar {
  group: string;
  series: string;
  value: number;
  lo: number | null;
  hi: number | null;
}

/**
 * A chart a code view contributes, as data the host draws (grouped horizontal bars, one bar per group and series,
 * with interval whiskers where `lo`/`hi` are given), or a `note` when there is nothing to draw.
 */
export interface ReportChart {
  id: string;
  title: string;
  caption: string;
  bars?: {
    /** the chart's own heading inside the figure */
    heading: string;
    /** the value axis title */
    axis: string;
    /** the group order (y axis) */
    groups: string[];
    /** the series order (colours) */
    series: string[];
    values: ReportBar[];
    /** a fixed value-axis domain, e.g. [0, 100] for percentages */
    domain?: [number, number];
  };
  note?: string;
}

/**
 * The code part of a report view: tables and charts computed over the gathered runs. Both are optional; tables are
 * placed after the view's declarative tables, charts after the host's generic charts, in view order.
 */
export interface ReportViewCode {
  tables?(ctx: ReportViewContext): ReportTable[];
  charts?(ctx: ReportViewContext): ReportChart[];
}
