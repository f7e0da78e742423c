/**
 * Diagnostics of the ladder itself in reports (issue 28, items 4–5): from the stored verdicts of full-ladder runs
 * (`run --full-ladder`: every level on every sample), per-level accuracy, order violations, Kendall's τ-b of level vs
 * accuracy, the early-exit HPI those verdicts give, the per-level hazard, and the HPI of any other ladder made of the
 * same levels (`report --ladder L1,L3,L5`, no new calls); and, for any reported runs of one dataset, how the ranking
 * of models changes as HPI_Dataset varies. The statistics are `stats/ladder.ts` and `stats/sensitivity.ts`.
 */
import { HptError, type ReportCell, type ReportColumn, type ReportRun, type ReportTable, type SampleUnit } from '@hpt-bench/sdk';
import { earlyExitHpi, hazardCurve, type LadderData, orderViolations, perLevelAccuracy, tauLevelVsAccuracy } from '../stats/ladder.js';
import { hpiDatasetSensitivity } from '../stats/sensitivity.js';
import { type BootstrapSettings, unitEstimates } from './gather.js';

/**
 * Parse `report --ladder` (`L1,L3,L5`, or `1,3,5`; any subset or order of levels) into level numbers.
 * @throws HptError `E_CONFIG` for an entry that is not `L<k>` / `<k>` with k ≥ 1, or a repeated level.
 */
export function parseLadderSpec(spec: readonly string[]): number[] {
  const levels = spec.map((s) => {
    const m = /^\s*[Ll]?(\d+)\s*$/.exec(s);
    if (!m || Number(m[1]) < 1) throw new HptError('E_CONFIG', `--ladder takes levels as L1,L3,L5 (or 1,3,5), got '${s}'`);
    return Number(m[1]);
  });
  const twice = levels.find((l, i) => levels.indexOf(l) !== i);
  if (twice !== undefined) throw new HptError('E_CONFIG', `--ladder names level L${twice} twice`);
  if (levels.length === 0) throw new HptError('E_CONFIG', '--ladder needs at least one level');
  return levels;
}

const pct = (x: number | null): number | null => (x === null ? null : 100 * x);
const pctCi = (c: [number, number] | null): [number, number] | null => (c ? [100 * c[0], 100 * c[1]] : null);

/**
 * The full-ladder tables of a report: "Ladder diagnostics" (per run: per-level accuracy L1..Lm with Wilson 95%
 * intervals, the share of units solved at a lower level but failed at a higher one, τ-b of level vs accuracy, and the
 * early-exit HPI derived from the verdicts beside the run's HPI) and "Per-level hazard" (per run and level: P(solved
 * at level k | unsolved at every earlier level), Wilson 95%). `verdicts`: the runs' `LadderData` by run id (only
 * full-ladder runs have one). Empty when no reported run has verdicts.
 */
export function ladderTables(runs: readonly ReportRun[], verdicts: ReadonlyMap<string, LadderData>, labels: ReadonlyMap<string, string>): ReportTable[] {
  const full = runs.filter((r) => verdicts.has(r.runId));
  if (full.length === 0) return [];
  const m = Math.max(...full.map((r) => verdicts.get(r.runId)!.levels));
  const levelCols = (suffix: string): ReportColumn[] => Array.from({ length: m }, (_, i) => ({ label: `L${i + 1}${suffix}`, ci: true, digits: 1 }));
  const diag: ReportCell[][] = [];
  const hazard: ReportCell[][] = [];
  for (const r of full) {
    const d = verdicts.get(r.runId)!;
    const acc = perLevelAccuracy(d);
    const v = orderViolations(d);
    const tau = tauLevelVsAccuracy(d);
    const early = earlyExitHpi(d);
    const h = hazardCurve(d);
    const label = labels.get(r.runId) ?? r.runId;
    const pad = <T>(xs: T[], fill: T) => [...xs, ...new Array<T>(m - xs.length).fill(fill)];
    diag.push([
      { value: label },
      ...pad(acc.map((a) => ({ value: pct(a.accuracy), ci: pctCi(a.ci) }) as ReportCell), { value: null }),
      { value: pct(v.share) },
      { value: tau.tau },
      { value: early.hpi },
      { value: r.hpi },
    ]);
    hazard.push([{ value: label }, ...pad(h.map((s) => ({ value: pct(s.hazard), ci: pctCi(s.ci) }) as ReportCell), { value: null }), { value: early.unsolved }]);
  }
  return [
    {
      id: 'ladder-diagnostics',
      title: 'Ladder diagnostics (full-ladder runs)',
      notes: [
        'From runs made with --full-ladder (every level tried on every sample). Lk: accuracy at level k alone, % [Wilson 95%]; Order violations: % of samples solved at some level and failed at a higher one; τ: Kendall τ-b of level vs accuracy (+1: every higher level solves more, the ladder premise; −1: the reverse); HPI early exit: the HPI the ordinary ladder gives from the same verdicts (first solved level, else m + HPI_Dataset), which equals the run\'s HPI.',
      ],
      columns: [{ label: 'Run' }, ...levelCols(' acc %'), { label: 'Order violations %', digits: 1 }, { label: 'τ (level, acc)', digits: 2 }, { label: 'HPI early exit', digits: 3 }, { label: 'HPI (run)', digits: 3 }],
      rows: diag,
    },
    {
      id: 'ladder-hazard',
      title: 'Per-level hazard (full-ladder runs)',
      notes: ['Lk: P(solved at level k | not solved at any earlier level) in %, among the samples still unsolved before level k [Wilson 95%]; the ladder\'s hazard curve. Unsolved: samples no level solved.'],
      columns: [{ label: 'Run' }, ...levelCols(' hazard %'), { label: 'Unsolved' }],
      rows: hazard,
    },
  ];
}

/**
 * `report --ladder L1,L3,L5`: the HPI, accuracy (with the report's intervals) and unsolved count that the given
 * ladder (levels of the run's ladder, in the given order) would have produced on each full-ladder run, computed from
 * its stored verdicts without new calls (`earlyExitHpi`: positions 1..L, penalty L + HPI_Dataset with L the new
 * ladder's length; a missing verdict counts as failed). Runs without verdicts are named in a note.
 * @throws HptError `E_CONFIG` when no reported run has verdicts (they come from `run --full-ladder`), or a level is
 *   beyond a run's ladder.
 */
export function subLadderTable(runs: readonly ReportRun[], verdicts: ReadonlyMap<string, LadderData>, ladder: readonly number[], labels: ReadonlyMap<string, string>, bootstrap: Pick<BootstrapSettings, 'resamples' | 'seed'>): ReportTable {
  const full = runs.filter((r) => verdicts.has(r.runId));
  if (full.length === 0) throw new HptError('E_CONFIG', `--ladder ${ladder.map((l) => `L${l}`).join(',')} needs runs made with --full-ladder (every level's verdict stored); none of the reported runs is one`);
  const rows: ReportCell[][] = full.map((r) => {
    const d = verdicts.get(r.runId)!;
    const beyond = ladder.find((l) => l > d.levels);
    if (beyond !== undefined) throw new HptError('E_CONFIG', `--ladder names L${beyond}, but run ${r.runId} has a ${d.levels}-level ladder`);
    const e = earlyExitHpi(d, { ladder });
    const units: SampleUnit[] = e.units.map((u, index) => ({ sampleId: u.sampleId, index, ...(u.replicate !== undefined ? { replicate: u.replicate } : {}), hpi: u.hp, scores: 1, solved: u.level === null ? 0 : 1, level: u.position }));
    const est = unitEstimates(units, { resamples: bootstrap.resamples, seed: bootstrap.seed, stream: `${r.runId}|ladder` });
    const names = ladder.map((l) => `L${l}${r.ladder[l - 1] ? ` ${r.ladder[l - 1]}` : ''}`).join(', ');
    return [{ value: labels.get(r.runId) ?? r.runId }, { value: names }, { value: e.hpi, ci: est.hpiCi95 }, { value: 100 * e.accuracy, ci: pctCi(est.accuracyCi95) }, { value: e.unsolved }, { value: r.hpi }, { value: e.missingVerdicts }];
  });
  const left = runs.filter((r) => !verdicts.has(r.runId)).map((r) => r.runId);
  const spec = ladder.map((l) => `L${l}`).join(',');
  return {
    id: 'ladder-subset',
    title: `HPI of the ladder ${spec} (from full-ladder verdicts, no new calls)`,
    notes: [
      `The levels ${spec} tried in that order, stopping at the first solved one, on the same stored replies: HPI = position of the first solving level in this ladder (1..${ladder.length}), else ${ladder.length} + HPI_Dataset; [lo, hi]: the report's 95% interval. HPI (run): the run's own ladder. Missing: verdicts not stored (counted as failed).`,
      ...(left.length ? [`Not full-ladder runs, left out: ${left.join(', ')}.`] : []),
    ],
    columns: [{ label: 'Run' }, { label: 'Ladder' }, { label: 'HPI', ci: true, digits: 3 }, { label: 'Acc %', ci: true, digits: 2 }, { label: 'Unsolved' }, { label: 'HPI (run)', digits: 3 }, { label: 'Missing' }],
    rows,
  };
}

/** Grid points of the sensitivity table: HPI_Dataset = 0, m/4, m/2, 3m/4, m. */
const SENSITIVITY_STEPS = 5;

/**
 * HPI_Dataset sensitivity (issue 28, item 5): for each dataset with runs of two or more models (manual ladder, one
 * ladder length, the same data as the group's first run per `sameData`), each reported run's model's HPI and rank as HPI_Dataset goes from 0
 * to m (an unsolved sample then costs from m to 2m; HPI(h) = a + u·h is linear in h with u the unsolved share), at the
 * dataset's own constant and at 0, m/4, …, m, and the exact values where two models' HPI lines cross (the ranking
 * changes there). `units`: the runs' sample units. Empty when no dataset has two models.
 */
export function sensitivityTables(runs: readonly ReportRun[], units: ReadonlyMap<string, readonly SampleUnit[]>, labels: ReadonlyMap<string, string>, sameData: (a: string, b: string) => boolean = () => true): ReportTable[] {
  const groups = new Map<string, ReportRun[]>();
  for (const r of runs) {
    if (r.mode !== 'manual' || !r.ladder.length) continue;
    const k = `${r.dataset}\u0000${r.threshold ?? ''}\u0000${r.ladder.length}`;
    const g = groups.get(k) ?? [];
    if (g.length && !sameData(g[0]!.runId, r.runId)) continue;
    g.push(r);
    groups.set(k, g);
  }
  const out: ReportTable[] = [];
  for (const g of groups.values()) {
    if (new Set(g.map((r) => r.model)).size < 2) continue;
    const m = g[0]!.ladder.length;
    const own = g[0]!.hpiDataset;
    const models = g.map((r) => ({ label: labels.get(r.runId) ?? r.runId, levels: m, units: (units.get(r.runId) ?? []).filter((u) => u.scores > 0) }));
    if (models.some((x) => x.units.length === 0)) continue;
    const s = hpiDatasetSensitivity(models, { range: [0, m], steps: SENSITIVITY_STEPS });
    // HPI(h) = intercept + slope · h per model (`hpiLine`); rank 1 = lowest HPI, ties share the average rank
    const at = (h: number) => {
      const hpi = s.lines.map((l) => l.intercept + l.slope * h);
      const tol = 1e-9 * (1 + Math.max(...hpi.map(Math.abs)));
      const rank = hpi.map((v) => 1 + hpi.filter((w) => w < v - tol).length + (hpi.filter((w) => Math.abs(w - v) <= tol).length - 1) / 2);
      return { hpi, rank };
    };
    const points = [...s.grid.map((p) => p.hpiDataset)];
    if (!points.some((h) => Math.abs(h - own) < 1e-9)) points.push(own);
    points.sort((a, b) => a - b);
    const grid = points.map((h) => ({ h, p: at(h) }));
    const columns: ReportColumn[] = [{ label: 'Model' }, { label: 'Unsolved %', digits: 1 }, ...grid.map(({ h }) => ({ label: `HPI @ ${formatH(h)}${Math.abs(h - own) < 1e-9 ? ' (dataset)' : ''}`, digits: 3 })), ...grid.map(({ h }) => ({ label: `rank @ ${formatH(h)}` }))];
    const rows: ReportCell[][] = models.map((x, i) => [
      { value: x.label },
      { value: 100 * (1 - s.lines[i]!.accuracy) },
      ...grid.map(({ p }) => ({ value: p.hpi[i]! })),
      ...grid.map(({ p }) => ({ value: p.rank[i]! })),
    ]);
    const cross = s.crossovers.map((c) => `${c.models[0]} and ${c.models[1]} cross at HPI_Dataset = ${formatH(c.hpiDataset)} (HPI ${c.hpi.toFixed(3)})`);
    const r0 = g[0]!;
    out.push({
      id: `hpi-dataset-sensitivity-${r0.dataset}${r0.threshold !== undefined ? `@${r0.threshold}` : ''}`,
      title: `HPI_Dataset sensitivity: ${r0.dataset}${r0.threshold !== undefined ? ` @${r0.threshold}` : ''}`,
      notes: [
        `HPI_Dataset is a modelling choice (the penalty of an unsolved sample is m + HPI_Dataset, m = ${m}); each model's HPI = (sum of solving levels + unsolved × (m + HPI_Dataset)) / n is linear in it, so the ranking (1 = lowest HPI) can change only where two lines cross. The dataset's constant is ${formatH(own)}.`,
        cross.length ? `Ranking changes within [0, ${m}]: ${cross.join('; ')}.` : `No two models' HPI lines cross within [0, ${m}]: the ranking does not depend on HPI_Dataset there.`,
      ],
      columns,
      rows,
    });
  }
  return out;
}

function formatH(h: number): string {
  return String(Number(h.toFixed(3)));
}
