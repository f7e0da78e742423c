/** Reports over stored runs: run selection, bootstrap intervals, paired comparison, generic tables driven by the plugins' report views. */
export * from './bootstrap.js';
export * from './gather.js';
export * from './pairing.js';
export * from './transitions.js';
export * from './compare.js';
export * from './paired-tests.js';
export * from './paired-table.js';
export * from './ladder-tables.js';
export * from './ladder-data.js';
export * from './views.js';
export * from './tables.js';
export * from './groups.js';
