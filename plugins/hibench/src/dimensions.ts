/**
 * The five capability dimensions of HiBench (specs/hibench.md §1.3, paper Fig. 1a). Each scenario maps its own tasks
 * to them (`Scenario.dimensions`, in its folder); the aggregation (match/aggregate.ts) and the report view read the
 * merged map. A kernel module: it imports nothing, so a scenario folder can use it without reaching the scenario list.
 */

/** The five capability dimensions of §1.3 (paper Fig. 1a), in the paper's order. */
export const DIMENSIONS = [
  'Local Relationship Awareness',
  'Global Structural Understanding',
  'Structural Manipulation',
  'Analytical Reasoning',
  'Textual Reasoning',
] as const;

/** One of the five capability dimensions (`DIMENSIONS`). */
export type Dimension = (typeof DIMENSIONS)[number];

/** Local Relationship Awareness (§1.3): parent-child, ancestor and path questions. */
export const LRA: Dimension = 'Local Relationship Awareness';
/** Global Structural Understanding (§1.3): properties of the whole structure (balance, traversals, levels, isomorphism). */
export const GSU: Dimension = 'Global Structural Understanding';
/** Structural Manipulation (§1.3): add, remove, mirror. */
export const SM: Dimension = 'Structural Manipulation';
/** Analytical Reasoning (§1.3): formulas and program complexity. */
export const AR: Dimension = 'Analytical Reasoning';
/** Textual Reasoning (§1.3): the Paper tasks. */
export const TR: Dimension = 'Textual Reasoning';
