/**
 * The matrix of an evaluation file (`hpt-bench run --config`): its cells (model × dataset, eval-config.ts) run one
 * after the other, each as one ordinary run (its own run in the store, resumable like any run), and one combined table.
 */
import { HptError, isHptError, type ReportTable, type RunSummary } from '@hpt-bench/core';
import { TerminalTable } from './terminal.js';
import type { EvalCell } from './eval-config.js';

/** What one cell's run produced. */
export interface CellOutcome {
  summary: RunSummary;
  /** the report views' tables of the run, shown under its summary */
  tables?: ReportTable[];
}

/** A finished cell: its labels and run summary. */
export interface CellResult extends CellOutcome {
  model: string;
  dataset: string;
}

/**
 * Run `cells` in order with `runCell`, calling `onResult` after each. Stops at the first cell that throws (its error
 * is rethrown, an `HptError` with the cell's labels before its message and its code, hint and exit code kept; the
 * cells before it are stored, and running the file again skips them) and after the first cell whose run is incomplete
 * (errored samples: `summary.complete` false), which is returned last.
 * @returns the results of the cells that ran, in order.
 */
export async function runMatrix(cells: readonly EvalCell[], runCell: (cell: EvalCell) => Promise<CellOutcome>, onResult: (r: CellResult) => void = () => {}): Promise<CellResult[]> {
  const results: CellResult[] = [];
  for (const cell of cells) {
    let outcome: CellOutcome;
    try {
      outcome = await runCell(cell);
    } catch (e) {
      if (cells.length === 1) throw e;
      const where = `${cell.model} × ${cell.dataset}`;
      if (isHptError(e)) throw new HptError(e.code, `${where}: ${e.message}`, { cause: e, exitCode: e.exitCode, ...(e.hint ? { hint: e.hint } : {}) });
      throw e;
    }
    const result = { model: cell.model, dataset: cell.dataset, ...outcome };
    results.push(result);
    onResult(result);
    if (!outcome.summary.complete) break;
  }
  return results;
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
