/**
 * HiBench score aggregation (specs/hibench.md §4.4–4.6, §7 rec. 22): per-configuration accuracy → task → scenario →
 * overall, and the five capability dimensions (§1.3). All scores are fractions in [0, 1] (the paper prints
 * percentages: multiply by 100).
 */
import { DIMENSIONS, type Dimension } from '../dimensions.js';
import { SCENARIOS } from '../scenarios.js';

export { DIMENSIONS, type Dimension } from '../dimensions.js';

/**
 * Sub-task id → capability dimension (§1.3, the toolkit's `analysis/capability.ipynb`): the union of the listed
 * scenarios' `dimensions` (each scenario maps its own tasks, in its folder; a task id two scenarios share, e.g.
 * `node_depth` of Multiple Tree and JSON, must have one dimension). The one copy: the aggregation below and the report
 * view (`report.ts`: breakdowns by dimension) use it. Look-ups go through `dimensionOf`, which ignores case, `-` and
 * `_` (so `all-ancestor` and `SpaceComplexity` / `space_complexity` resolve too).
 * @throws Error at import when two scenarios map one task to two dimensions (the list is wrong).
 */
export const CAPABILITY_DIMENSIONS: Readonly<Record<string, Dimension>> = mergeDimensions();

function mergeDimensions(): Record<string, Dimension> {
  const out: Record<string, Dimension> = {};
  for (const s of SCENARIOS) {
    for (const [task, dim] of Object.entries(s.dimensions)) {
      if (out[task] !== undefined && out[task] !== dim) throw new Error(`capability dimensions: ${s.name} maps ${task} to ${dim}, another scenario to ${out[task]}`);
      out[task] = dim;
    }
  }
  return out;
}

/**
 * Leaderboard task groups (§1.1 JSON row, §3.3): per scenario, sub-task id → the leaderboard column it is averaged
 * into, from the listed scenarios' `taskGroups` (e.g. JSON's "Path Finding" = its three path sub-types, "Nearest
 * Ancestor" = its two shared-ancestor sub-types); every other sub-task is its own column. Look-ups ignore case, `-` and
 * `_` (see `taskGroupOf`).
 */
export const TASK_GROUPS: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.fromEntries(
  SCENARIOS.filter((s) => s.taskGroups !== undefined).map((s) => [s.name, s.taskGroups!]),
);

function key(s: string): string {
  return s.toLowerCase().replace(/[-_\s]/g, '');
}

const GROUPS_BY_KEY = new Map(
  Object.entries(TASK_GROUPS).map(([scenario, groups]) => [key(scenario), new Map(Object.entries(groups).map(([k, v]) => [key(k), v]))]),
);

const DIMENSION_BY_KEY = new Map(Object.entries(CAPABILITY_DIMENSIONS).map(([k, v]) => [key(k), v]));

/** The capability dimension of a sub-task id (§1.3; case, `-` and `_` ignored), or undefined for tasks outside it. */
export function dimensionOf(task: string): Dimension | undefined {
  return DIMENSION_BY_KEY.get(key(task));
}

/** The leaderboard column of a sub-task in a scenario (`TASK_GROUPS`), else the task id itself. */
export function taskGroupOf(scenario: string, task: string): string {
  return GROUPS_BY_KEY.get(key(scenario))?.get(key(task)) ?? task;
}

/**
 * One scored query: its scenario (e.g. `binary-tree`, `json`), sub-task id (e.g. `prefix_traversal`,
 * `path_down_to_up`), configuration id (one toolkit "result file": all queries sharing task, representation,
 * difficulty, balance, ICL mode, …), ICL mode (`zero` / `one` / `few`; absent = zero-shot), JSON semantics
 * (`normal` / `nonsense`) and score in [0, 1] (1/0, or the hit-rate fraction).
 */
export interface ScoreRow {
  scenario: string;
  task: string;
  config: string;
  icl?: string;
  semantics?: string;
  score: number;
}

/** Filters of `aggregateScores` (§4.5 step 1): keep zero-shot rows only, drop nonsense-JSON rows. Both default true. */
export interface AggregateOptions {
  zeroShotOnly?: boolean;
  excludeNonsense?: boolean;
}

/**
 * The aggregate (fractions in [0, 1]):
 * - `configs`: config id → accuracy (mean score of its rows; §4.4). A config id used under two (scenario, task) pairs
 *   is reported as `<scenario>/<task>/<config>` for each;
 * - `tasks`: `"<scenario>/<task group>"` → unweighted mean of its configurations' accuracies (§4.5 step 2);
 * - `scenarios`: scenario → mean of its task scores (step 3); `overall`: mean of the scenario scores (step 4);
 * - `dimensions`: dimension → score (§4.6), only dimensions with data;
 * - `n`: number of rows kept after filtering. With no rows every mean is 0.
 */
export interface Aggregate {
  configs: Record<string, number>;
  tasks: Record<string, number>;
  scenarios: Record<string, number>;
  overall: number;
  dimensions: Record<string, number>;
  n: number;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Is this ICL mode zero-shot? (absent counts as zero-shot) */
function isZeroShot(icl: string | undefined): boolean {
  if (icl === undefined) return true;
  const k = key(icl);
  return k === 'zero' || k === 'zeroshot' || k === '0';
}

function pushTo<K, V>(map: Map<K, V[]>, k: K, v: V): void {
  const list = map.get(k);
  if (list === undefined) map.set(k, [v]);
  else list.push(v);
}

/**
 * Aggregates scored queries the way the toolkit's analysis does (§4.4–4.6, §7 rec. 22):
 * 1. filter (`zeroShotOnly`: keep rows whose `icl` is absent or zero-shot; `excludeNonsense`: drop `semantics`
 *    "nonsense");
 * 2. per configuration (scenario, task, config): accuracy = mean score;
 * 3. per task column (scenario, `taskGroupOf(scenario, task)`): unweighted mean of its configurations' accuracies;
 * 4. per scenario: mean of its task columns; overall: mean of the scenarios;
 * 5. dimensions (§4.6): per scenario, per sub-task the mean of its configuration accuracies; sub-tasks mapped with
 *    `dimensionOf` (unmapped ones ignored); mean within (scenario, dimension); then the mean of those values across the
 *    scenarios that have the dimension.
 * Returns an `Aggregate` (fractions, not percentages). Pure; never throws.
 */
export function aggregateScores(rows: readonly ScoreRow[], options: AggregateOptions = {}): Aggregate {
  const zeroShotOnly = options.zeroShotOnly ?? true;
  const excludeNonsense = options.excludeNonsense ?? true;
  const kept = rows.filter(
    (r) => (!zeroShotOnly || isZeroShot(r.icl)) && (!excludeNonsense || r.semantics === undefined || key(r.semantics) !== 'nonsense'),
  );

  // 2. configurations, keyed by (scenario, task, config)
  const configRows = new Map<string, { row: ScoreRow; scores: number[] }>();
  for (const r of kept) {
    const k = JSON.stringify([r.scenario, r.task, r.config]);
    const entry = configRows.get(k);
    if (entry === undefined) configRows.set(k, { row: r, scores: [r.score] });
    else entry.scores.push(r.score);
  }
  const owners = new Map<string, number>();
  for (const { row } of configRows.values()) owners.set(row.config, (owners.get(row.config) ?? 0) + 1);

  const configs: Record<string, number> = {};
  const taskAcc = new Map<string, number[]>(); // "<scenario>/<group>" → config accuracies
  const scenarioOfTask = new Map<string, string>();
  const subTaskAcc = new Map<string, number[]>(); // JSON [scenario, sub-task] → config accuracies
  for (const { row, scores } of configRows.values()) {
    const acc = mean(scores);
    const name = (owners.get(row.config) ?? 0) > 1 ? `${row.scenario}/${row.task}/${row.config}` : row.config;
    configs[name] = acc;
    const taskKey = `${row.scenario}/${taskGroupOf(row.scenario, row.task)}`;
    pushTo(taskAcc, taskKey, acc);
    scenarioOfTask.set(taskKey, row.scenario);
    pushTo(subTaskAcc, JSON.stringify([row.scenario, row.task]), acc);
  }

  // 3.–4. tasks, scenarios, overall
  const tasks: Record<string, number> = {};
  const scenarioTasks = new Map<string, number[]>();
  for (const [taskKey, accs] of taskAcc) {
    tasks[taskKey] = mean(accs);
    pushTo(scenarioTasks, scenarioOfTask.get(taskKey)!, tasks[taskKey]!);
  }
  const scenarios: Record<string, number> = {};
  for (const [scenario, values] of scenarioTasks) scenarios[scenario] = mean(values);
  const overall = mean(Object.values(scenarios));

  // 5. dimensions
  const perScenarioDim = new Map<string, number[]>(); // JSON [scenario, dimension] → sub-task means
  for (const [k, accs] of subTaskAcc) {
    const [scenario, task] = JSON.parse(k) as [string, string];
    const dim = dimensionOf(task);
    if (dim !== undefined) pushTo(perScenarioDim, JSON.stringify([scenario, dim]), mean(accs));
  }
  const perDim = new Map<string, number[]>();
  for (const [k, values] of perScenarioDim) {
    const [, dim] = JSON.parse(k) as [string, string];
    pushTo(perDim, dim, mean(values));
  }
  const dimensions: Record<string, number> = {};
  for (const dim of DIMENSIONS) {
    const values = perDim.get(dim);
    if (values !== undefined) dimensions[dim] = mean(values);
  }

  return { configs, tasks, scenarios, overall, dimensions, n: kept.length };
}
