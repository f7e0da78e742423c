/** Reports over stored runs (issue #7): run selection, bootstrap intervals, paired comparison, paper-style tables. */
export * from './bootstrap.js';
export * from './gather.js';
export * from './compare.js';
export * from './hibench.js';
export * from './tables.js';
