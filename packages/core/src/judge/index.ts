/** LLM-as-a-judge and HPI_Dataset calibration (specs/hpt.md §2.4, §5.3, §5.4). */
export * from './judge.js';
export * from './prepare.js';
export * from './calibrate.js';
