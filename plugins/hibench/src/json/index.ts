/**
 * Scenario 3 — JSON (specs/hibench.md §3.3): questions over procedurally generated university documents, in normal and
 * nonsense names, zero/one/few-shot (./suite.ts); the ten question sub-types are averaged into seven leaderboard
 * columns (`JSON_TASK_GROUPS`).
 */
import { HIBENCH_HPI_DATASET, HibenchDataset } from '../dataset.js';
import { GSU, LRA } from '../dimensions.js';
import { filterDecl, iclFilter, type Scenario } from '../scenario.js';
import { generateJson, JSON_PRESETS, JSON_PROMPT, JSON_SEMANTICS, JSON_TASK_GROUPS, JSON_TASKS, resolveJsonFilter } from './suite.js';

export * from './suite.js';

/** HiBench JSON (spec §3.3): 10 question sub-types over procedurally generated university documents. */
export class JsonDataset extends HibenchDataset {
  constructor() {
    super(JSON_SCENARIO);
  }
}

/** The JSON scenario (specs/hibench.md §3.3). */
export const JSON_SCENARIO: Scenario = {
  name: 'json',
  manifest: {
    description: 'HiBench JSON (generated university documents, normal and nonsense names): counts, depth, attributes, level nodes, paths, nearest ancestor',
    module: './dist/index.js',
    export: 'JsonDataset',
    scorer: 'hierarchy',
    hpiDataset: HIBENCH_HPI_DATASET,
    filters: [
      // the sub-type ids, then the ids of the groups that are not a sub-type themselves
      filterDecl('task', 'only these tasks (specs/hibench.md §3)', [...JSON_TASKS, ...Object.keys(JSON_TASK_GROUPS).filter((g) => !(JSON_TASKS as readonly string[]).includes(g))]),
      filterDecl('preset', 'only these presets (structure sizes or complexity cells, specs/hibench.md §3)', JSON_PRESETS),
      iclFilter(),
      filterDecl('semantics', 'only these node-name semantics: normal and/or nonsense (specs/hibench.md §3.3)', JSON_SEMANTICS),
    ],
  },
  dataset: JsonDataset,
  prompt: JSON_PROMPT,
  tasks: JSON_TASKS,
  matchers: ['number', 'string', 'list'],
  select: resolveJsonFilter,
  generate: generateJson,
  record: {
    representations: [null],
    properties: { document: { type: 'object' }, semantics: { enum: [...JSON_SEMANTICS] } },
  },
  dimensions: {
    child_count: LRA,
    node_depth: LRA,
    level_count: GSU,
    node_attribute: LRA,
    level_nodes: GSU,
    path_down_to_up: LRA,
    path_up_to_down: LRA,
    path_between_nodes: LRA,
    shared_ancestor_same_level: LRA,
    shared_ancestor_diff_level: LRA,
  },
  taskGroups: Object.fromEntries(Object.entries(JSON_TASK_GROUPS).flatMap(([group, subs]) => subs.filter((t) => t !== group).map((t) => [t, group]))),
  report: {
    label: 'JSON',
    presets: JSON_PRESETS.map((id) => ({ id })),
  },
};
