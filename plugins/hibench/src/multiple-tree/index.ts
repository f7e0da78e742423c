/**
 * Scenario 2 — Multiple Tree (specs/hibench.md §3.2): 9 tasks × 177 structures (easy, medium-1/2, hard-1/2) × 2
 * representations × 3 ICL modes = 9,558 records by default. The tasks, presets, sampling and prompts are the tree
 * machinery's (../lib/tree/); this folder declares which of them make the scenario (`MULTIPLE_TREE`).
 */
import { HIBENCH_HPI_DATASET, HibenchDataset } from '../dataset.js';
import { GSU, LRA, SM } from '../dimensions.js';
import { HIERARCHY_SYSTEM_PROMPT } from '../prompt.js';
import type { Scenario } from '../scenario.js';
import type { GenerateOptions, HibenchRecord } from '../types.js';
import { generateTreeSuite, resolveTreeFilter, treeFilters, treeRecordPart } from '../lib/tree/suite.js';
import { MULTIPLE_TASKS, type TreeKind } from '../lib/tree/tasks.js';
import { MULTIPLE_PRESET_DEFS } from '../lib/tree/tree.js';

export { MULTIPLE_TASKS };

/** Multiple Tree preset ids in stream order (§3.2; group medium-1/2 and hard-1/2 for three levels, §7 rec. 26). */
export const MULTIPLE_PRESETS: readonly string[] = MULTIPLE_PRESET_DEFS.map((p) => p.id);

/**
 * The Multiple Tree scenario as the tree machinery sees it: multi-trees, the 9 tasks of §3.2, the five presets, the
 * toolkit's question head and the hierarchical-structure prompt (one space before "and", newline separators; §2).
 */
export const MULTIPLE_TREE: TreeKind = {
  name: 'multiple-tree',
  binary: false,
  tasks: MULTIPLE_TASKS,
  presets: MULTIPLE_PRESET_DEFS,
  templatePrefix: 'Given the hierarchical structure',
  prompt: { system: HIERARCHY_SYSTEM_PROMPT, separator: '\n', formatGap: ' ' },
};

/**
 * The Multiple Tree suite (§3.2) as a lazy, deterministic record stream: preset → structure → task → representation
 * → ICL mode; ids `multiple-tree/<task>/<preset>/<structure index>/<representation>/<icl>`.
 * Filters: tasks ({@link MULTIPLE_TASKS}), presets ({@link MULTIPLE_PRESETS}), representations, icl.
 * @throws HptError `E_CONFIG` (at the call) for an unknown filter value or a `semantics` filter.
 */
export function generateMultipleTree(options: GenerateOptions): Generator<HibenchRecord> {
  return generateTreeSuite(MULTIPLE_TREE, options);
}

/** HiBench Multiple Tree (spec §3.2): 9 tasks, presets easy, medium-1, medium-2, hard-1, hard-2; 9,558 queries. */
export class MultipleTreeDataset extends HibenchDataset {
  constructor() {
    super(MULTIPLE_TREE_SCENARIO);
  }
}

/** The Multiple Tree scenario (specs/hibench.md §3.2). */
export const MULTIPLE_TREE_SCENARIO: Scenario = {
  name: MULTIPLE_TREE.name,
  manifest: {
    description: 'HiBench Multiple Tree (generated): root, leaf, ancestors, descendants, LCA, depth, add/remove node, isomorphism; 9,558 queries by default',
    module: './dist/index.js',
    export: 'MultipleTreeDataset',
    scorer: 'hierarchy',
    hpiDataset: HIBENCH_HPI_DATASET,
    filters: treeFilters(MULTIPLE_TREE),
  },
  dataset: MultipleTreeDataset,
  prompt: MULTIPLE_TREE.prompt,
  tasks: MULTIPLE_TASKS,
  matchers: ['structure', 'list', 'string'],
  select: (filter) => resolveTreeFilter(MULTIPLE_TREE, filter),
  generate: generateMultipleTree,
  record: treeRecordPart(true),
  dimensions: {
    add_node: SM,
    all_ancestor: LRA,
    all_children: LRA,
    common_ancestor: LRA,
    isomorphic: GSU,
    remove_node: SM,
    node_depth: LRA,
    leaf: LRA,
    root: LRA,
  },
  report: {
    label: 'Multiple',
    presets: [
      { id: 'easy', level: 'easy' },
      { id: 'medium-1', level: 'medium' },
      { id: 'medium-2', level: 'medium' },
      { id: 'hard-1', level: 'hard' },
      { id: 'hard-2', level: 'hard' },
    ],
  },
};
