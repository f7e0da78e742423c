/**
 * HiBench-specific report pieces (specs/hibench.md §1.3, §4.5-4.6): scenario and task labels, the capability-dimension
 * map, and HPI / accuracy breakdowns of a generated-dataset run by preset and by capability dimension.
 */
import type { Json } from '@hpt-bench/sdk';
import type { Interval } from './bootstrap.js';
import { unitEstimates, type ReportRun, type SampleUnit } from './gather.js';

/** Leaderboard column names of the six scenarios (hibench.md Table 2), in the paper's order. */
export const HIBENCH_SCENARIOS: readonly (readonly [id: string, label: string])[] = [
  ['binary-tree', 'Binary'],
  ['multiple-tree', 'Multiple'],
  ['json', 'JSON'],
  ['code', 'Code'],
  ['formula', 'Formula'],
  ['paper', 'Paper'],
];

/** The five capability dimensions in the paper's order (hibench.md §1.3). */
export const HIBENCH_DIMENSION_NAMES = [
  'Local Relationship Awareness',
  'Global Structural Understanding',
  'Structural Manipulation',
  'Analytical Reasoning',
  'Textual Reasoning',
] as const;

/** One of the five capability dimensions (`HIBENCH_DIMENSION_NAMES`). */
export type HibenchDimension = (typeof HIBENCH_DIMENSION_NAMES)[number];

const LRA: HibenchDimension = 'Local Relationship Awareness';
const GSU: HibenchDimension = 'Global Structural Understanding';
const SM: HibenchDimension = 'Structural Manipulation';
const AR: HibenchDimension = 'Analytical Reasoning';
const TR: HibenchDimension = 'Textual Reasoning';

/**
 * Sub-task id -> capability dimension, the table of hibench.md §1.3 (the toolkit's `analysis/capability.ipynb`);
 * `node_depth` covers both the Multiple-Tree and the JSON task. The one copy: the report needs it and the core knows
 * no plugin, so the hibench plugin's aggregation imports it from here (as `CAPABILITY_DIMENSIONS`).
 */
export const HIBENCH_TASK_DIMENSIONS: Readonly<Record<string, HibenchDimension>> = {
  all_ancestor: LRA, all_children: LRA, common_ancestor: LRA, node_depth: LRA, leaf: LRA, root: LRA, child_count: LRA,
  node_attribute: LRA, path_down_to_up: LRA, path_up_to_down: LRA, shared_ancestor_same_level: LRA,
  shared_ancestor_diff_level: LRA, path_between_nodes: LRA,
  isomorphic: GSU, balance: GSU, prefix_traversal: GSU, infix_traversal: GSU, postfix_traversal: GSU,
  traversal_order_verification: GSU, level_count: GSU, level_nodes: GSU,
  add_node: SM, remove_node: SM, mirror_tree: SM,
  calculate: AR, convert: AR, equivalent: AR, SpaceComplexity: AR, TimeComplexity: AR,
  contextual_qa: TR, disordered_section: TR, outline_extraction: TR,
};

const norm = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
const DIM_BY_KEY = new Map(Object.entries(HIBENCH_TASK_DIMENSIONS).map(([k, v]) => [norm(k), v]));

/** The capability dimension of a HiBench sub-task (case, `-` and `_` ignored), or undefined for tasks outside §1.3. */
export function hibenchDimensionOf(task: string): HibenchDimension | undefined {
  return DIM_BY_KEY.get(norm(task));
}

/** The leaderboard label of a scenario id (`binary-tree` -> `Binary`); unknown ids are returned as they are. */
export function scenarioLabel(id: string): string {
  return HIBENCH_SCENARIOS.find(([s]) => s === id)?.[1] ?? id;
}

/** True for runs of generated HiBench datasets: dataset id `hibench/*` or a summary with `metrics.hibench`. */
export function isHibenchRun(run: Pick<ReportRun, 'dataset' | 'metrics'>): boolean {
  const m = run.metrics?.hibench;
  return run.dataset.startsWith('hibench/') || (m !== undefined && m !== null && typeof m === 'object' && !Array.isArray(m));
}

/** The HiBench aggregate of a run's summary (`metrics.hibench`, zero-shot and non-nonsense; §4.5), if present. */
export function hibenchAggregate(run: Pick<ReportRun, 'metrics'>, key: 'hibench' | 'hibenchAll' = 'hibench'): { scenarios: Record<string, number>; tasks: Record<string, number>; dimensions: Record<string, number>; overall: number; n: number } | undefined {
  const m = run.metrics?.[key];
  if (!m || typeof m !== 'object' || Array.isArray(m)) return undefined;
  const rec = (v: Json | undefined) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, number>) : {});
  return { scenarios: rec(m.scenarios), tasks: rec(m.tasks), dimensions: rec(m.dimensions), overall: typeof m.overall === 'number' ? m.overall : 0, n: typeof m.n === 'number' ? m.n : 0 };
}

/** One group of a breakdown: its key, recorded scores n, HPI (with bootstrap interval) and accuracy (fraction). */
export interface BreakdownRow {
  group: string;
  n: number;
  hpi: number;
  hpiCi95: Interval | null;
  accuracy: number;
}

function breakdown(units: readonly SampleUnit[], keyOf: (u: SampleUnit) => string | undefined, options: { resamples?: number; seed?: number; stream?: string }, order?: readonly string[]): BreakdownRow[] {
  const groups = new Map<string, SampleUnit[]>();
  for (const u of units) {
    const k = keyOf(u);
    if (k === undefined) continue;
    const list = groups.get(k);
    if (list) list.push(u);
    else groups.set(k, [u]);
  }
  const keys = [...groups.keys()];
  if (order) keys.sort((a, b) => (order.indexOf(a) + 1 || 1e9) - (order.indexOf(b) + 1 || 1e9) || a.localeCompare(b));
  return keys.map((k) => {
    const us = groups.get(k)!;
    const e = unitEstimates(us, { ...options, stream: `${options.stream ?? ''}|${k}` });
    return { group: k, n: us.reduce((a, u) => a + u.scores, 0), hpi: e.hpi, hpiCi95: e.hpiCi95, accuracy: e.accuracy };
  });
}

const PRESET_ORDER = ['easy', 'easy-balanced', 'easy-unbalanced', 'medium', 'medium-balanced', 'medium-unbalanced', 'medium-1', 'medium-2', 'hard', 'hard-balanced', 'hard-unbalanced', 'hard-1', 'hard-2', 'small', 'large-1', 'large-2'];

/**
 * HPI and accuracy of a HiBench run's samples by `meta.preset` (difficulty) and by capability dimension of
 * `meta.task` (§1.3); samples without the field are left out. Intervals: the same bootstrap as the run's, per group.
 */
export function hibenchBreakdown(units: readonly SampleUnit[], options: { resamples?: number; seed?: number; stream?: string } = {}): { byPreset: BreakdownRow[]; byDimension: BreakdownRow[]; byTask: BreakdownRow[] } {
  const str = (u: SampleUnit, k: string) => (typeof u.meta?.[k] === 'string' ? (u.meta[k] as string) : undefined);
  return {
    byPreset: breakdown(units, (u) => str(u, 'preset'), { ...options, stream: `${options.stream ?? ''}|preset` }, PRESET_ORDER),
    byDimension: breakdown(units, (u) => { const t = str(u, 'task'); return t === undefined ? undefined : hibenchDimensionOf(t); }, { ...options, stream: `${options.stream ?? ''}|dimension` }, HIBENCH_DIMENSION_NAMES),
    byTask: breakdown(units, (u) => str(u, 'task'), { ...options, stream: `${options.stream ?? ''}|task` }),
  };
}
