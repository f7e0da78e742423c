/** @hpt-bench/cli: the oclif commands (thin: parse flags, call core, print). */
export { HptCommand } from './base.js';
export { renderSummary } from './commands/run.js';
