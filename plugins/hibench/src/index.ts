/**
 * @hpt-bench/hibench: the HiBench scenarios (specs/hibench.md) as generated datasets — one folder per scenario, listed
 * in ./scenarios.ts — the `hierarchy` scorer family, and the HiBench report view (leaderboard, capability dimensions).
 */
export * from './types.js';
export * from './rng.js';
export * from './prompt.js';
export * from './scenario.js';
export * from './dimensions.js';
export * from './dataset.js';
export * from './record-schema.js';
export * from './match/scorer.js';
export * from './match/aggregate.js';
export * from './report.js';
export * from './lib/program/bigo.js';
export * from './lib/program/syntax.js';
export * from './lib/program/source.js';
export * from './lib/program/curated.js';
export { CODE_ICL_MODES, CODE_TASKS, codeQuestion, codeQueryFields, OUTPUT_TEMPLATES as CODE_OUTPUT_TEMPLATES, PROGRAM_PROMPT, PROGRAM_RECORD_PART, type CodeQueryFields, type CodeTask } from './lib/program/complexity.js';
export * from './scenarios.js';
