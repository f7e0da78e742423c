import { extname } from 'node:path';
import * as Flags from '@oclif/core/flags';
import { gatherReport, HptError, loadReportViews, parseLadderSpec, writeFileAtomic, reportTables, reportToJson, reportToMarkdown, ReportViews, RunStore, tablesToCsv, type LoadedReportView, type ReportTable, storeExists, storeLabel } from '@hpt-bench/core';
import { HptCommand, renderTables } from '../base.js';
import { renderHtmlReport } from '../report/html.js';
import { storeFlag } from '../store-flag.js';

const FORMATS = ['table', 'md', 'csv', 'json', 'html'] as const;
type Format = (typeof FORMATS)[number];

/**
 * `hpt-bench report`: tables, charts and statistics over stored runs. HPI and accuracy carry seeded bootstrap
 * 95% percentile intervals over samples; `md`/`csv` give the paper layouts the plugins' report views declare (the
 * built-ins: hpt.md §7.1-7.3, hibench.md §4.5-4.6); `html` is one self-contained page with inline SVG charts and the
 * per-sample ladder trace.
 */
export default class Report extends HptCommand {
  static override summary = 'Report on stored runs: tables, paper layouts, bootstrap intervals, an HTML page with charts.';
  static override description = `Reports the newest completed run of each group of comparable runs (same model, dataset and threshold, ladder, mode and selector, compat, data, HPI_Dataset; older runs of a group are left out with a note), every completed run (--all), the runs named as arguments or with --run, or the newest run (--latest). Runs of one model and dataset that differ in ladder, data or HPI_Dataset get separate rows labelled by what differs (e.g. '2-level ladder (two)', 'data 1a2b3c4d'). HPI and accuracy come with bootstrap 95% percentile intervals over samples (--bootstrap resamples, --seed). Formats: table (aligned text; the default on a terminal), md (Markdown, the default otherwise), csv, json, html (one self-contained file: inline SVG charts, a searchable per-sample ladder trace, no network access). --out writes the report to a file (atomically); its extension (.md .csv .json .html) sets the format unless --format is given.`;
  static override examples = [
    '<%= config.bin %> report',
    '<%= config.bin %> report --latest --json',
    '<%= config.bin %> report --run 20261121T093000-1a2b3c --run 20261121T101500-9f8e7d',
    '<%= config.bin %> report --all --format md',
    '<%= config.bin %> report 20261121T093000-1a2b3c 20261121T101500-9f8e7d --format md',
    '<%= config.bin %> report --format csv --table hpt --out table1.csv',
    '<%= config.bin %> report --format html --out report.html',
  ];
  static override strict = false;
  static override args = {};

  static override flags = {
    store: storeFlag(),
    latest: Flags.boolean({ description: 'report only the newest run of the store', default: false }),
    run: Flags.string({ description: 'report this run (repeatable; the same as naming run ids as arguments, which it joins: arguments first)', multiple: true }),
    all: Flags.boolean({ description: 'report every completed run, not only the newest of each group (model, dataset, ladder, mode, compat, data, HPI_Dataset, reasoning effort)', default: false }),
    format: Flags.string({ char: 'f', description: 'table | md | csv | json | html (default: from --out, else table on a terminal, md otherwise)', options: [...FORMATS] }),
    out: Flags.string({ char: 'o', description: 'write the report to this file (a temp file renamed into place)' }),
    table: Flags.string({ description: 'md/csv/table: only these tables (ids: runs, paired-tests, ladder-subset, ladder-diagnostics, ladder-hazard, hpi-dataset-sensitivity-<dataset>, usage, and those of the report views of the installed plugins; an unknown id lists the report\'s tables)', multiple: true, delimiter: ',' }),
    bootstrap: Flags.integer({ description: 'bootstrap resamples B for the 95% intervals', default: 2000, min: 1, max: 1_000_000 }),
    seed: Flags.integer({ description: 'bootstrap seed (same seed => same intervals)', default: 0 }),
    ladder: Flags.string({ description: 'also the HPI another ladder would give, from the stored verdicts of full-ladder runs (run --full-ladder), no new calls: its levels in order, e.g. L1,L3,L5', multiple: true, delimiter: ',' }),
    'trace-limit': Flags.integer({ description: 'html: samples per run in the ladder trace (0: no trace)', default: 500, min: 0 }),
  };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(Report);
    const runIds = [...(argv as string[]), ...(flags.run ?? [])].filter((a) => a.length > 0);
    const format = resolveFormat(flags.json, flags.format, flags.out);
    if (!storeExists(flags.store)) throw new HptError('E_CONFIG', `no store at ${storeLabel(flags.store)}; give --store FILE or URL (the store \`hpt-bench run --store\` wrote)`);
    // the paper layouts come from the plugins' report views (not needed for json, which has no tables)
    const views = format === 'json' ? undefined : await (async () => {
      const { registry, container } = this.discover(flags.plugin ?? []);
      // a view whose code fails to load costs its computed tables and charts, not the report
      const onCodeError = (c: { qualifiedId: string; plugin: { name: string } }, e: unknown) => this.logger.warn(`report view ${c.qualifiedId} of plugin ${c.plugin.name}: its computed tables and charts are left out (${(e as Error).message})`);
      return this.inDeclaredOrder(await loadReportViews(registry, container, { onCodeError }));
    })();
    const store = new RunStore(flags.store, { readonly: true });
    let text: string;
    try {
      const data = gatherReport(store, storeLabel(flags.store), { runIds, latest: flags.latest, all: flags.all, resamples: flags.bootstrap, seed: flags.seed });
      const ladder = flags.ladder ? parseLadderSpec(flags.ladder) : undefined;
      if (format === 'json') text = `${JSON.stringify(reportToJson(data, ladder ? { ladder } : {}))}\n`;
      else if (format === 'html') text = await renderHtmlReport(data, store, { traceLimit: flags['trace-limit'], ...(views ? { views } : {}), ...(ladder ? { ladder } : {}) });
      else {
        const tables = pickTables(reportTables(data, views, ladder ? { ladder } : {}), flags.table);
        text = format === 'md' ? reportToMarkdown(data, tables) : format === 'csv' ? tablesToCsv(tables) : `${renderTables(tables)}\n`;
      }
    } finally {
      store.close();
    }
    if (flags.out) {
      writeFileAtomic(flags.out, text);
      this.logger.info(`wrote ${format} report to ${flags.out}`);
    } else process.stdout.write(text);
  }

  /**
   * The views in the order the CLI declares its built-in plugins (`oclif.plugins` of its package.json: the HPT tables
   * before HiBench's), then those of other plugins in discovery order (oclif lists plugins alphabetically).
   */
  private inDeclaredOrder(views: ReportViews): ReportViews {
    const declared = ((this.config.pjson.oclif as { plugins?: string[] } | undefined)?.plugins ?? []).filter((p): p is string => typeof p === 'string');
    const rank = (v: LoadedReportView) => {
      const i = declared.indexOf(v.contribution.plugin.name);
      return i === -1 ? declared.length : i;
    };
    return new ReportViews(views.list.map((v, i) => ({ v, i })).sort((a, b) => rank(a.v) - rank(b.v) || a.i - b.i).map((x) => x.v));
  }
}

/** The output format: `--json`, else `--format`, else the `--out` extension, else table on a TTY and md otherwise. */
function resolveFormat(json: boolean, format: string | undefined, out: string | undefined): Format {
  if (json) {
    if (format && format !== 'json') throw new HptError('E_CONFIG', `--json and --format ${format} disagree; give one of them`);
    return 'json';
  }
  if (format) return format as Format;
  const ext = out ? extname(out).toLowerCase() : '';
  const byExt: Record<string, Format> = { '.md': 'md', '.markdown': 'md', '.csv': 'csv', '.json': 'json', '.html': 'html', '.htm': 'html', '.txt': 'table' };
  if (byExt[ext]) return byExt[ext];
  return process.stdout.isTTY && !out ? 'table' : 'md';
}

/** Keep the tables named by `--table` (in the order given). @throws HptError `E_CONFIG` naming an unknown table id. */
function pickTables(tables: ReportTable[], ids: string[] | undefined): ReportTable[] {
  if (!ids?.length) return tables;
  return ids.map((id) => {
    const t = tables.find((x) => x.id === id);
    if (!t) throw new HptError('E_CONFIG', `no table '${id}' in this report; it has: ${tables.map((x) => x.id).join(', ')}`);
    return t;
  });
}
