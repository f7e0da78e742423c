/**
 * Scenario 2 — Multiple Tree (specs/hibench.md §3.2): 9 tasks × 177 structures (easy, medium-1/2, hard-1/2) × 2
 * representations × 3 ICL modes = 9,558 records by default.
 */
import type { GenerateOptions, HibenchRecord } from '../types.js';
import { generateTreeSuite } from './suite.js';
import { MULTIPLE_TASKS } from './tasks.js';
import { MULTIPLE_PRESET_DEFS } from './tree.js';

export { MULTIPLE_TASKS };

/** Multiple Tree preset ids in stream order (§3.2; group medium-1/2 and hard-1/2 for three levels, §7 rec. 26). */
export const MULTIPLE_PRESETS: readonly string[] = MULTIPLE_PRESET_DEFS.map((p) => p.id);

/**
 * The Multiple Tree suite (§3.2) as a lazy, deterministic record stream: preset → structure → task → representation
 * → ICL mode; ids `multiple-tree/<task>/<preset>/<structure index>/<representation>/<icl>`.
 * Filters: tasks ({@link MULTIPLE_TASKS}), presets ({@link MULTIPLE_PRESETS}), representations, icl.
 * @throws HptError `E_CONFIG` (at the call) for an unknown filter value or a `semantics` filter.
 */
export function generateMultipleTree(options: GenerateOptions): Generator<HibenchRecord> {
  return generateTreeSuite('multiple-tree', options);
}
