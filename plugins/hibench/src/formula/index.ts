/** The Formula scenario of HiBench (specs/hibench.md §3.4): notations, formula drawing, the suite. */
export * from './notation.js';
export * from './generate.js';
export { COMPAT_EXAMPLES } from './compat-examples.js';
