/**
 * @hpt-bench/hibench: HiBench generators (binary tree, multiple tree, JSON, formula) as generated datasets, and the
 * `hierarchy` scorer family (specs/hibench.md), and the HiBench report view (leaderboard, capability dimensions).
 */
export * from './types.js';
export * from './rng.js';
export * from './prompt.js';
export * from './dataset.js';
export * from './match/scorer.js';
export * from './match/aggregate.js';
export * from './report.js';
export * from './code/bigo.js';
export * from './code/syntax.js';
export * from './code/source.js';
export { buildCodeRecord, generateCode, resolveCodeFilter, CODE_ICL_MODES, type CodeSelection } from './code/suite.js';
export { codeQueryFields, type CodeQueryFields } from './code/suite.js';
export { analyse, bigOLabel, RECURSION_KINDS, type Analysis, type Bound, type Complexity, type Construction, type LoopKind, type RecursionKind, type SizeVar, type Stmt } from './code-gen/construct.js';
export { renderProgram, PY_ENTRY, type ProgramNames } from './code-gen/program.js';
export { CODE_GEN_PRESETS, PRESETS as CODE_GEN_PRESET_SPECS, drawProgram, type CodeGenPreset, type DrawnProgram } from './code-gen/generate.js';
export { CODE_GEN_PER_PRESET, generateCodeGen, resolveCodeGenFilter, type CodeGenSelection } from './code-gen/suite.js';
export { CodeGenDataset } from './code-gen/dataset.js';
export { CODE_TASKS, codeQuestion, OUTPUT_TEMPLATES as CODE_OUTPUT_TEMPLATES, type CodeTask } from './code/compat-examples.js';
export * from './code-structure/targets.js';
export * from './code-structure/suite.js';
export { CodeStructureDataset, preloadCodeStructure, loadedCodeSyntax } from './code-structure/dataset.js';
