/**
 * The report's paired tests (issue 28, item 1; `hpt-bench report` for runs of one dataset): every pair of reported
 * runs on the same data is compared as `hpt-bench compare` does (`pairedCompare`: bootstrap interval of the mean
 * per-sample HPI difference, the sign-flip permutation test and d_z, McNemar's exact test of accuracy), and since a
 * report compares many pairs at once, every p-value is also Holm-adjusted across all the pairs of the report.
 */
import { dataDifferences } from '../run/fingerprint.js';
import { pairedCompare, type CompareResult } from './compare.js';
import type { ReportData } from './gather.js';
import { holmAdjust } from './paired-tests.js';
import type { ReportCell, ReportColumn, ReportTable } from '@hpt-bench/sdk';
import type { ReportRun } from '@hpt-bench/sdk';

/** One compared pair of reported runs (A before B in report order) and its comparison. */
export interface ReportComparison {
  a: string;
  b: string;
  dataset: string;
  result: CompareResult;
}

/**
 * The pairs of `data.runs` to compare: runs of one dataset (and threshold) on the same data (their `dataIdentities`
 * agree; runs without one count as the same data), every pair A, B with A before B in report order, that share a
 * scored sample; compared with the report's bootstrap settings, then Holm-adjusted across all pairs (`holmAdjust`).
 * At most `maxPairs` pairs (default 200), in report order.
 */
export function reportComparisons(data: Pick<ReportData, 'runs' | 'units' | 'bootstrap' | 'dataIdentities'>, options: { maxPairs?: number; permutations?: number } = {}): ReportComparison[] {
  const groups = new Map<string, ReportRun[]>();
  for (const r of data.runs) {
    const k = `${r.dataset}\u0000${r.threshold ?? ''}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const out: ReportComparison[] = [];
  const max = options.maxPairs ?? 200;
  for (const runs of groups.values()) {
    for (let i = 0; i < runs.length; i++) {
      for (let j = i + 1; j < runs.length && out.length < max; j++) {
        const a = runs[i]!;
        const b = runs[j]!;
        const ia = data.dataIdentities?.get(a.runId);
        const ib = data.dataIdentities?.get(b.runId);
        if (ia && ib && dataDifferences(ia, ib).length > 0) continue;
        const input = (r: ReportRun) => ({ runId: r.runId, dataset: r.dataset, model: r.model, mode: r.mode, units: data.units.get(r.runId) ?? [], ...(r.ladder.length ? { levels: r.ladder.length } : {}) });
        let result: CompareResult;
        try {
          result = pairedCompare(input(a), input(b), { resamples: data.bootstrap.resamples, seed: data.bootstrap.seed, ...(options.permutations ? { permutations: options.permutations } : {}) });
        } catch {
          continue; // no shared scored sample: nothing to compare
        }
        out.push({ a: a.runId, b: b.runId, dataset: a.dataset, result });
      }
    }
  }
  holmAdjust(out.map((c) => c.result));
  return out;
}

/**
 * The paired-tests table: one row per compared pair (`reportComparisons`), with `labels` (run id -> a run's label in
 * the report) naming A and B. Columns: dataset, A, B, paired samples, ΔHPI = A − B with its bootstrap 95% interval,
 * d_z, the permutation p and its Holm-adjusted p, Δaccuracy in points with its interval, McNemar's p and its Holm p.
 * Undefined (no pair) when there is nothing to compare.
 */
export function pairedTestsTable(comparisons: readonly ReportComparison[], labels: ReadonlyMap<string, string>): ReportTable | undefined {
  if (comparisons.length === 0) return undefined;
  const columns: ReportColumn[] = [
    { label: 'Dataset' }, { label: 'A' }, { label: 'B' }, { label: 'Paired' },
    { label: 'ΔHPI (A−B)', ci: true, digits: 3 }, { label: 'd_z', digits: 2 }, { label: 'p perm.', digits: 4 }, { label: 'p perm. Holm', digits: 4 },
    { label: 'ΔAcc pp', ci: true, digits: 2 }, { label: 'p McNemar', digits: 4 }, { label: 'p McNemar Holm', digits: 4 },
  ];
  const rows: ReportCell[][] = comparisons.map(({ a, b, dataset, result: r }) => {
    const t = r.tests;
    const mc = t.accuracy.mcnemar;
    return [
      { value: dataset }, { value: labels.get(a) ?? a }, { value: labels.get(b) ?? b }, { value: r.paired },
      { value: r.hpiDiff, ci: r.hpiDiffCi95 }, { value: t.hpi.effect.dz }, { value: t.hpi.permutation.p }, { value: t.hpi.permutation.pHolm },
      { value: 100 * r.accuracyDiff, ci: r.accuracyDiffCi95 ? [100 * r.accuracyDiffCi95[0], 100 * r.accuracyDiffCi95[1]] : null },
      { value: mc ? mc.p : null }, { value: mc ? mc.pHolm : null },
    ];
  });
  const replicates = comparisons.some((c) => c.result.tests.replicates);
  return {
    id: 'paired-tests',
    title: 'Paired tests between runs of the same data',
    notes: [
      'Each pair A, B of runs on the same data (A reported first), on the samples both scored: ΔHPI is the mean per-sample HPI difference (negative: A solves at lower levels, i.e. better) with a bootstrap 95% interval over the paired samples; d_z = mean / sd of the differences; p perm.: two-sided sign-flip permutation test of the mean difference; ΔAcc: accuracy difference in points; p McNemar: McNemar\'s exact test on solved by A only vs by B only (- with replicates or fractional verdicts).',
      `Holm: Holm–Bonferroni adjusted across the ${comparisons.length} pair(s) of this table (family-wise error rate), per test.`,
      ...(replicates ? ['With replicates the tests use per-sample means (a sample is the unit); `hpt-bench compare A B` also gives clustered intervals.'] : []),
    ],
    columns,
    rows,
  };
}
