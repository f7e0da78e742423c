/**
 * `hpt-bench export` (issue 29, item 3): stored runs written in the result formats of other tools — Every Eval Ever
 * (`every-eval-ever.ts`), Hugging Face `.eval_results/*.yaml` (`hf-eval-results.ts`), Inspect AI eval logs
 * (`inspect.ts`) and lm-evaluation-harness `results_*.json` + `samples_*.jsonl` (`lm-eval.ts`). This module reads a
 * run once into `ExportRun` (run record, report figures, fingerprint, per-sample results) and holds the helpers the
 * converters share; each format module has pure converters (`ExportRun` → the format's objects) and a writer
 * (`write…`) that writes one run's files into an output directory (atomic writes). `exportRuns` dispatches by format.
 * The HPT specifics (level per sample, HPI, HPI_Dataset, prompt hashes per level, the fingerprint) go into each
 * format's extension fields: docs/export.md says where.
 */
import { HptError } from '@hpt-bench/sdk';
import { EXPORT_FORMATS, type ExportFormat, type ExportRun, type ExportWriteOptions } from './common.js';
import { everyEvalEverPaths, writeEveryEvalEver } from './every-eval-ever.js';
import { hfEvalResultsPaths, writeHfEvalResults } from './hf-eval-results.js';
import { inspectLogPaths, writeInspectLog } from './inspect.js';
import { lmEvalPaths, writeLmEval } from './lm-eval.js';

export * from './common.js';
export * from './every-eval-ever.js';
export * from './hf-eval-results.js';
export * from './inspect.js';
export * from './lm-eval.js';

/** What a writer wrote: the files (absolute paths), by run. */
export interface ExportedFiles {
  runId: string;
  format: ExportFormat;
  files: string[];
}

/** The files run `r` would be written to in `format` under `outDir` (absolute paths; pure). */
export function exportPaths(r: ExportRun, format: ExportFormat, outDir: string): string[] {
  if (format === 'eee') return everyEvalEverPaths(r, outDir);
  if (format === 'hf') return hfEvalResultsPaths(r, outDir);
  if (format === 'inspect') return inspectLogPaths(r, outDir);
  return lmEvalPaths(r, outDir);
}

/**
 * Write each run of `runs` in `format` (one of `EXPORT_FORMATS`) into directory `outDir` (`writeEveryEvalEver`,
 * `writeHfEvalResults`, `writeInspectLog`, `writeLmEval`; every file written atomically: a temp file, then a rename).
 * Runs come from `readExportRun` (completed). Before anything is written, the runs' paths are checked to be distinct.
 * @returns the files written, by run, in order.
 * @throws HptError `E_CONFIG` for an unknown format, when two runs would write the same file, or when a file cannot be
 *   written.
 */
export async function exportRuns(runs: readonly ExportRun[], format: ExportFormat, outDir: string, options: ExportWriteOptions = {}): Promise<ExportedFiles[]> {
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) throw new HptError('E_CONFIG', `unknown export format '${String(format)}'; use one of ${EXPORT_FORMATS.join(', ')}`);
  const seen = new Map<string, string>();
  for (const r of runs)
    for (const f of exportPaths(r, format, outDir)) {
      const other = seen.get(f);
      if (other !== undefined) throw new HptError('E_CONFIG', `runs ${other} and ${r.run.id} would both be written to ${f}; export them into separate directories`);
      seen.set(f, r.run.id);
    }
  const out: ExportedFiles[] = [];
  for (const r of runs) {
    const files = format === 'eee' ? await writeEveryEvalEver(r, outDir, options) : format === 'hf' ? writeHfEvalResults(r, outDir, options) : format === 'inspect' ? await writeInspectLog(r, outDir, options) : await writeLmEval(r, outDir, options);
    out.push({ runId: r.run.id, format, files });
  }
  return out;
}
