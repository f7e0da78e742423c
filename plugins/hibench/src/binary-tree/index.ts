/**
 * Scenario 1 — Binary Tree (specs/hibench.md §3.1): 6 tasks × 138 structures (easy/medium/hard, each unbalanced and
 * balanced) × 2 representations × 3 ICL modes = 4,968 records by default. The tasks, presets, sampling and prompts are
 * the tree machinery's (../lib/tree/); this folder declares which of them make the scenario (`BINARY_TREE`).
 */
import { HIBENCH_HPI_DATASET, HibenchDataset } from '../dataset.js';
import { GSU, SM } from '../dimensions.js';
import { HIERARCHY_SYSTEM_PROMPT } from '../prompt.js';
import type { Scenario } from '../scenario.js';
import type { GenerateOptions, HibenchRecord } from '../types.js';
import { generateTreeSuite, resolveTreeFilter, treeFilters, treeRecordPart } from '../lib/tree/suite.js';
import { BINARY_TASKS, type TreeKind } from '../lib/tree/tasks.js';
import { BINARY_PRESET_DEFS } from '../lib/tree/tree.js';

export { BINARY_TASKS };

/** Binary Tree preset ids in stream order: each difficulty unbalanced, then balanced (§3.1). */
export const BINARY_PRESETS: readonly string[] = BINARY_PRESET_DEFS.map((p) => p.id);

/**
 * The Binary Tree scenario as the tree machinery sees it: binary trees, the 6 tasks of §3.1, the six presets, the
 * toolkit's question head and the hierarchical-structure prompt (one space before "and", newline separators; §2).
 */
export const BINARY_TREE: TreeKind = {
  name: 'binary-tree',
  binary: true,
  tasks: BINARY_TASKS,
  presets: BINARY_PRESET_DEFS,
  templatePrefix: 'Given the binary tree-liked hierarchical structure',
  prompt: { system: HIERARCHY_SYSTEM_PROMPT, separator: '\n', formatGap: ' ' },
};

/**
 * The Binary Tree suite (§3.1) as a lazy, deterministic record stream: preset → structure → task → representation →
 * ICL mode; ids `binary-tree/<task>/<preset>[-balanced]/<structure index>/<representation>/<icl>`.
 * Filters: tasks ({@link BINARY_TASKS}), presets ({@link BINARY_PRESETS}), representations, icl.
 * @throws HptError `E_CONFIG` (at the call) for an unknown filter value or a `semantics` filter.
 */
export function generateBinaryTree(options: GenerateOptions): Generator<HibenchRecord> {
  return generateTreeSuite(BINARY_TREE, options);
}

/** HiBench Binary Tree (spec §3.1): 6 tasks, presets easy/medium/hard x balanced/unbalanced; 4,968 queries by default. */
export class BinaryTreeDataset extends HibenchDataset {
  constructor() {
    super(BINARY_TREE_SCENARIO);
  }
}

/** The Binary Tree scenario (specs/hibench.md §3.1). */
export const BINARY_TREE_SCENARIO: Scenario = {
  name: BINARY_TREE.name,
  manifest: {
    description: 'HiBench Binary Tree (generated): balance, prefix/infix/postfix traversal, traversal order verification, mirror; 4,968 queries by default',
    module: './dist/index.js',
    export: 'BinaryTreeDataset',
    scorer: 'hierarchy',
    hpiDataset: HIBENCH_HPI_DATASET,
    filters: treeFilters(BINARY_TREE),
  },
  dataset: BinaryTreeDataset,
  prompt: BINARY_TREE.prompt,
  tasks: BINARY_TASKS,
  matchers: ['string', 'list', 'structure'],
  select: (filter) => resolveTreeFilter(BINARY_TREE, filter),
  generate: generateBinaryTree,
  record: treeRecordPart(false),
  dimensions: {
    balance: GSU,
    prefix_traversal: GSU,
    infix_traversal: GSU,
    postfix_traversal: GSU,
    traversal_order_verification: GSU,
    mirror_tree: SM,
  },
  report: {
    label: 'Binary',
    presets: [
      { id: 'easy', level: 'easy' },
      { id: 'easy-balanced', level: 'easy' },
      { id: 'medium', level: 'medium' },
      { id: 'medium-balanced', level: 'medium' },
      { id: 'hard', level: 'hard' },
      { id: 'hard-balanced', level: 'hard' },
    ],
  },
};
