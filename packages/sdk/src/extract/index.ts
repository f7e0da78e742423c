/**
 * Answer extraction for real model replies (issue #23; DESIGN.md round 3): per answer type an ordered cascade of named
 * rules, each result carrying the rule that fired and the span it read. Built-in scorers use it in strict mode;
 * plugins import it from `@hpt-bench/sdk` (and strategies reach their dataset's extraction through
 * `StrategyContext.extract`).
 */
export * from './types.js';
export { extractNumber } from './number.js';
export { extractChoice, type ChoiceOptions } from './choice.js';
export { extractYesNo } from './yesno.js';
export { extractFirstLine, type FirstLineOptions } from './line.js';
export { extractCode, type CodeOptions } from './code.js';
