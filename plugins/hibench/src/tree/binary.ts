/**
 * Scenario 1 — Binary Tree (specs/hibench.md §3.1): 6 tasks × 138 structures (easy/medium/hard, each unbalanced and
 * balanced) × 2 representations × 3 ICL modes = 4,968 records by default.
 */
import type { GenerateOptions, HibenchRecord } from '../types.js';
import { generateTreeSuite } from './suite.js';
import { BINARY_TASKS } from './tasks.js';
import { BINARY_PRESET_DEFS } from './tree.js';

export { BINARY_TASKS };

/** Binary Tree preset ids in stream order: each difficulty unbalanced, then balanced (§3.1). */
export const BINARY_PRESETS: readonly string[] = BINARY_PRESET_DEFS.map((p) => p.id);

/**
 * The Binary Tree suite (§3.1) as a lazy, deterministic record stream: preset → structure → task → representation →
 * ICL mode; ids `binary-tree/<task>/<preset>[-balanced]/<structure index>/<representation>/<icl>`.
 * Filters: tasks ({@link BINARY_TASKS}), presets ({@link BINARY_PRESETS}), representations, icl.
 * @throws HptError `E_CONFIG` (at the call) for an unknown filter value or a `semantics` filter.
 */
export function generateBinaryTree(options: GenerateOptions): Generator<HibenchRecord> {
  return generateTreeSuite('binary-tree', options);
}
