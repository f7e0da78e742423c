import { existsSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import * as Flags from '@oclif/core/flags';
import { EXPORT_FORMATS, exportRuns, HptError, readExportRun, RunStore, selectRuns, storeExists, storeLabel, type ExportFormat, type ExportRun } from '@hpt-bench/core';
import { HptCommand } from '../base.js';
import { storeFlag } from '../store-flag.js';

/**
 * `hpt-bench export RUN… --format eee|hf|inspect|lm-eval --out DIR`: completed runs written in the result formats of
 * other tools (core/src/export; docs/export.md), each run's HPT data (per-sample level, HPI, HPI_Dataset, prompt
 * hashes, fingerprint) in the format's extension fields.
 */
export default class Export extends HptCommand {
  static override summary = 'Export completed runs to other tools\' formats: Every Eval Ever, Hugging Face .eval_results, Inspect AI logs, lm-evaluation-harness.';
  static override description = `Writes each run named (or --latest: the newest run; --all: every completed run) into the directory --out, in one format (docs/export.md):

eee: Every Eval Ever 0.3.0, data/<dataset>/<developer>/<model>/<uuid>.json (the aggregate record: HPI and accuracy) and <uuid>_samples.jsonl (one instance record per sample).

hf: Hugging Face model-repo results, <model>/.eval_results/<dataset>_<run>.yaml (HPI and accuracy; the HPT details in notes).

inspect: an Inspect AI eval log (.json, log version 2, for inspect view), <time>_hpt-<dataset>_<run>.json (replicates as epochs).

lm-eval: lm-evaluation-harness output, <model>/results_<time>.json and samples_hpt_<dataset>_<time>.jsonl.

The HPT specifics (each sample's solving level and HPI, HPI_Dataset, the ladder and each level's prompt hash, the run's fingerprint) go into each format's extension fields. Only completed runs are exported; an unknown or unfinished run stops the command before anything is written. --out must be a new or empty directory unless --force (files of the same names are then replaced). --json prints {"format", "out", "runs": [{"runId", "files"}]}.`;
  static override usage = ['<%= command.id %> RUN... -f eee|hf|inspect|lm-eval -o DIR [--store S] [--force] [--json]', '<%= command.id %> --latest|--all -f eee|hf|inspect|lm-eval -o DIR [--store S] [--force] [--json]'];
  static override examples = [
    '<%= config.bin %> export 20261121T093000-1a2b3c --format eee --out export/eee',
    '<%= config.bin %> export RUN_A RUN_B --format inspect --out logs && inspect view --log-dir logs',
    '<%= config.bin %> export --latest --format hf --out hf --hf-dataset my-org/my-dataset',
    '<%= config.bin %> export --all --format lm-eval --out lm-eval --store results.db --json',
  ];
  static override strict = false;
  static override args = {};

  static override flags = {
    store: storeFlag(),
    format: Flags.string({ char: 'f', description: 'the format to write', options: [...EXPORT_FORMATS], required: true }),
    out: Flags.string({ char: 'o', description: 'the directory to write into (created; must be empty unless --force)', required: true }),
    force: Flags.boolean({ description: 'write into a non-empty --out directory (files of the same names are replaced)', default: false }),
    latest: Flags.boolean({ description: 'export the newest run of the store', default: false }),
    all: Flags.boolean({ description: 'export every completed run of the store', default: false }),
    'hf-dataset': Flags.string({ description: 'hf: the Hub dataset id of the results (default: the dataset the run read from the Hub, else hpt-bench/<dataset>)' }),
    bootstrap: Flags.integer({ description: 'bootstrap resamples B of the 95% intervals (as in report)', default: 2000, min: 1, max: 1_000_000 }),
    seed: Flags.integer({ description: 'bootstrap seed', default: 0 }),
  };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(Export);
    const runIds = (argv as string[]).filter((a) => a.length > 0);
    const format = flags.format as ExportFormat;
    if (!runIds.length && !flags.latest && !flags.all) throw new HptError('E_CONFIG', 'name the runs to export (see `hpt-bench runs`), or give --latest or --all');
    const out = resolve(flags.out);
    if (existsSync(out)) {
      if (!statSync(out).isDirectory()) throw new HptError('E_CONFIG', `--out ${flags.out} is a file, not a directory`);
      if (readdirSync(out).length > 0 && !flags.force) throw new HptError('E_CONFIG', `--out ${flags.out} is not empty; give an empty or new directory, or --force to write into it`);
    }
    if (!storeExists(flags.store)) throw new HptError('E_CONFIG', `no store at ${storeLabel(flags.store)}; give --store FILE or URL (the store \`hpt-bench run --store\` wrote)`);
    const store = new RunStore(flags.store, { readonly: true });
    let written: { runId: string; files: string[] }[];
    try {
      const label = storeLabel(flags.store);
      const runs = selectRuns(store, label, { runIds, latest: flags.latest, all: flags.all });
      const read: ExportRun[] = runs.map((r) => readExportRun(store, r.id, { resamples: flags.bootstrap, seed: flags.seed, storeLabel: label }));
      written = (await exportRuns(read, format, out, { ...(flags['hf-dataset'] ? { hfDatasetId: flags['hf-dataset'] } : {}) })).map((e) => ({ runId: e.runId, files: e.files }));
    } finally {
      store.close();
    }
    if (flags.json) {
      this.printJson({ format, out, runs: written });
      return;
    }
    const n = written.reduce((a, w) => a + w.files.length, 0);
    for (const w of written) for (const f of w.files) this.log(f);
    this.logger.info(`exported ${written.length} run(s) as ${format}: ${n} file(s) in ${flags.out}`);
  }
}
