/**
 * The matrix of an evaluation file (`hpt-bench run --config`; the core's `evaluate()` runs its cells one after the
 * other): its combined table, and the check that its cells write different `--out` files.
 */
import { HptError, type RunSummary } from '@hpt-bench/core';
import { TerminalTable } from './terminal.js';

/** A finished run of a matrix: its labels and run summary. */
export interface CellResult {
  model: string;
  dataset: string;
  summary: RunSummary;
}

/** The combined table of a matrix: one row per cell (model, dataset, HPI, accuracy, n, run id). */
export function renderMatrixTable(results: readonly CellResult[]): string {
  const t = new TerminalTable({ head: ['model', 'dataset', 'HPI', 'accuracy', 'n', 'run'] });
  for (const r of results) {
    const s = r.summary;
    t.push([r.model, r.dataset, s.hpi.toFixed(3), `${(100 * s.accuracy).toFixed(2)}%`, String(s.n), `${s.runId}${s.complete ? '' : ' (incomplete)'}`]);
  }
  return t.toString();
}

/**
 * Check that the cells' `--out` files differ: with several cells, `out` needs `{model}` and/or `{dataset}` enough to
 * tell them apart.
 * @param paths each cell's out file (undefined: none).
 * @throws HptError `E_CONFIG` naming the shared file.
 */
export function checkDistinctOut(paths: readonly (string | undefined)[]): void {
  const seen = new Set<string>();
  for (const p of paths) {
    if (p === undefined) continue;
    if (seen.has(p)) throw new HptError('E_CONFIG', `several runs of the matrix would write --out ${p}: put {model} and {dataset} in it, e.g. results/{model}-{dataset}.jsonl`);
    seen.add(p);
  }
}
