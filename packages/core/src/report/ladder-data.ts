/**
 * The stored verdicts of full-ladder runs (`run --full-ladder`) as the ladder statistics read them (`LadderData`,
 * `stats/ladder.ts`), for the report's ladder diagnostics (`ladder-tables.ts`).
 */
import type { ReportRun } from '@hpt-bench/sdk';
import type { LadderAttempts, LadderData } from '../stats/ladder.js';
import type { RunStore } from '../store/store.js';

/**
 * The stored verdicts of a full-ladder run as `LadderData` (`RunStore.ladderVerdictRows`): one unit per done sample
 * (and replicate), `solved[k]` the verdict of its attempt at level k + 1 (null when none was stored); m = the run's
 * ladder length, HPI_Dataset the run's.
 */
export function ladderDataOf(store: RunStore, run: Pick<ReportRun, 'runId' | 'ladder' | 'hpiDataset'>): LadderData | undefined {
  const m = run.ladder.length;
  if (m === 0) return undefined;
  const units = new Map<number, LadderAttempts & { solved: (boolean | null)[] }>();
  for (const r of store.ladderVerdictRows(run.runId)) {
    let u = units.get(r.index);
    if (!u) {
      u = { sampleId: r.sampleId, ...(r.replicate !== undefined ? { replicate: r.replicate } : {}), solved: new Array<boolean | null>(m).fill(null) };
      units.set(r.index, u);
    }
    if (r.level >= 1 && r.level <= m) u.solved[r.level - 1] = r.solved;
  }
  if (units.size === 0) return undefined;
  return { levels: m, hpiDataset: run.hpiDataset, units: [...units.values()] };
}

/** The `LadderData` of the reported full-ladder runs, by run id (for `ladderTables`; JSON-safe summary in reports). */
export function ladderVerdicts(store: RunStore, runs: readonly ReportRun[]): Map<string, LadderData> {
  const out = new Map<string, LadderData>();
  for (const r of runs) {
    if (!r.fullLadder) continue;
    const d = ladderDataOf(store, r);
    if (d) out.set(r.runId, d);
  }
  return out;
}
