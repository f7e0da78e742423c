/**
 * The HiBench scenario list (issue 26, item 3): the one place that names the scenarios. Each entry is the `Scenario`
 * object of one folder `src/<name>/` (./scenario.ts); the record schema, the aggregation, the scorer and the report
 * view read this list, and test/hibench/scenarios.test.ts checks that no other file outside the scenario folders names
 * a scenario and that the plugin manifest declares exactly these datasets. Adding a scenario: its folder, one line
 * here, its manifest entry (plugins/hibench/README.md "Adding a scenario").
 *
 * The order is the record schema's `scenario` enum order and the order the report merges the scenarios' preset orders
 * in; the leaderboard's column order is the manifest report view's `datasets`.
 */
import type { Scenario } from './scenario.js';
import { BINARY_TREE_SCENARIO } from './binary-tree/index.js';
import { MULTIPLE_TREE_SCENARIO } from './multiple-tree/index.js';
import { JSON_SCENARIO } from './json/index.js';
import { FORMULA_SCENARIO } from './formula/index.js';
import { CODE_SCENARIO } from './code/index.js';
import { PAPER_SCENARIO } from './paper/index.js';
import { CODE_STRUCTURE_SCENARIO } from './code-structure/index.js';
import { CODE_GEN_SCENARIO } from './code-gen/index.js';

export * from './binary-tree/index.js';
export * from './multiple-tree/index.js';
export * from './json/index.js';
export * from './formula/index.js';
export * from './code/index.js';
export * from './paper/index.js';
export * from './code-structure/index.js';
export * from './code-gen/index.js';

/** The scenarios of the plugin, in order (see the module comment). */
export const SCENARIOS: readonly Scenario[] = [
  BINARY_TREE_SCENARIO,
  MULTIPLE_TREE_SCENARIO,
  JSON_SCENARIO,
  FORMULA_SCENARIO,
  CODE_SCENARIO,
  PAPER_SCENARIO,
  CODE_STRUCTURE_SCENARIO,
  CODE_GEN_SCENARIO,
];

/** The scenario of this name, or undefined. */
export function scenarioNamed(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}

/** The system prompt of every scenario by name (§2, exact strings): `SYSTEM_PROMPTS[name] = scenario.prompt.system`. */
export const SYSTEM_PROMPTS: Readonly<Record<string, string>> = Object.fromEntries(SCENARIOS.map((s) => [s.name, s.prompt.system]));
