/**
 * The report views of the discovered plugins (the `reports` contributions; the contract is `@hpt-bench/sdk` report.ts):
 * loading them (code views are built like any code contribution), telling which view covers a run's dataset, and
 * the display labels they declare. The core itself knows no dataset: a run no view covers is shown by its dataset id.
 */
import type { DependencyContainer } from 'tsyringe';
import type { Contribution, DatasetDecl, ReportRun, ReportViewCode, ReportViewDecl } from '@hpt-bench/sdk';
import { instantiate } from '../plugins/host.js';
import type { Registry } from '../plugins/registry.js';

/** A report view ready for the report: its contribution (plugin, ids), declaration and, for a code view, its object. */
export interface LoadedReportView {
  contribution: Contribution<'reports'>;
  decl: ReportViewDecl;
  code?: ReportViewCode;
}

/**
 * The report views of one report, in plugin discovery order, with the dataset look-ups the generic tables and
 * charts need. A view's entry `id` (in `datasets` or a table's `datasets`) that its plugin declares as a dataset
 * matches a run whose dataset is `id`, `<namespace>/id`, or an alias of that dataset (or the alias qualified); other
 * entries match no run (they only fix a column order).
 */
export class ReportViews {
  /** No view: every run is shown by its dataset id, and only the generic tables and charts are made. */
  static readonly none = new ReportViews([]);

  private readonly names = new Map<LoadedReportView, Map<string, string>>();

  constructor(readonly list: readonly LoadedReportView[]) {}

  /** name -> entry id, for the entries of `view` (its datasets and its tables' datasets) that its plugin declares */
  private namesOf(view: LoadedReportView): Map<string, string> {
    let m = this.names.get(view);
    if (m) return m;
    m = new Map();
    const plugin = view.contribution.plugin;
    const datasets = (plugin.manifest.contributes.datasets ?? []) as DatasetDecl[];
    const entries = new Set([...view.decl.datasets, ...(view.decl.tables ?? []).flatMap((t) => t.datasets ?? [])]);
    for (const id of entries) {
      const decl = datasets.find((d) => d.id === id);
      if (!decl) continue; // not a dataset of this plugin: it only fixes a column order
      for (const n of [id, ...(decl.aliases ?? [])]) {
        if (!m.has(n)) m.set(n, id);
        if (!m.has(`${plugin.namespace}/${n}`)) m.set(`${plugin.namespace}/${n}`, id);
      }
    }
    this.names.set(view, m);
    return m;
  }

  /** The entry id of `entries` (ids of `view`) that the run's dataset is, or undefined. */
  entryOf(view: LoadedReportView, run: Pick<ReportRun, 'dataset'>, entries: readonly string[] = view.decl.datasets): string | undefined {
    const id = this.namesOf(view).get(run.dataset);
    return id !== undefined && entries.includes(id) ? id : undefined;
  }

  /** The first view (in discovery order) that covers the run's dataset, and the entry id it matched. */
  viewOf(run: Pick<ReportRun, 'dataset'>): { view: LoadedReportView; entry: string } | undefined {
    for (const view of this.list) {
      const entry = this.entryOf(view, run);
      if (entry !== undefined) return { view, entry };
    }
    return undefined;
  }

  /** The runs a view covers, in report order. */
  runsOf(view: LoadedReportView, runs: readonly ReportRun[]): ReportRun[] {
    return runs.filter((r) => this.entryOf(view, r) !== undefined);
  }

  /** A dataset's display name: the label of the view covering the run (`labels[entry]`), else the run's dataset id. */
  datasetLabel(run: Pick<ReportRun, 'dataset'>): string {
    const hit = this.viewOf(run);
    if (!hit) return run.dataset;
    return hit.view.decl.labels?.[hit.entry] ?? hit.entry;
  }
}

/** Options of `loadReportViews`. */
export interface LoadReportViewsOptions {
  /**
   * Called when a code view cannot be loaded or built; the view is then kept without its code (its declarative
   * tables and labels still apply). Without it the error is thrown.
   */
  onCodeError?: (contribution: Contribution<'reports'>, error: unknown) => void;
}

/**
 * The report views of the registry's plugins (`registry.list('reports')`), code views built through `instantiate`
 * in `container` (so a view receives `Tokens.Contribution`, `Tokens.Options`, `Tokens.Logger`).
 * @throws HptError `E_PLUGIN` when a code view's class cannot be loaded or built (unless `onCodeError` is given).
 */
export async function loadReportViews(registry: Registry, container: DependencyContainer, options: LoadReportViewsOptions = {}): Promise<ReportViews> {
  const out: LoadedReportView[] = [];
  for (const contribution of registry.list('reports')) {
    const decl = contribution.decl;
    const view: LoadedReportView = { contribution, decl };
    if (decl.module && decl.export) {
      try {
        view.code = await instantiate<ReportViewCode>(container, contribution);
      } catch (e) {
        if (!options.onCodeError) throw e;
        options.onCodeError(contribution, e);
      }
    }
    out.push(view);
  }
  return new ReportViews(out);
}
