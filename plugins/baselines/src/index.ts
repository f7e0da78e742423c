/** @hpt-bench/baselines: deterministic models (oracle, random). */
export { BaselineModel, BASELINES } from './baseline.js';
