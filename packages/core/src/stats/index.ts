/**
 * Statistics of comparisons and of the ladder (issue 28; README "Statistics"): distributions, paired tests (McNemar,
 * sign-flip permutation, effect sizes, Holm), clustered standard errors (Miller 2024), sample-size planning, ladder
 * diagnostics of full-ladder runs and the HPI_Dataset sensitivity of a ranking. Pure functions.
 */
export * from './distributions.js';
export * from './paired.js';
export * from './clustered.js';
export * from './power.js';
export * from './ladder.js';
export * from './sensitivity.js';
