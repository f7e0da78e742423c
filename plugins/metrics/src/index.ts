/**
 * @hpt-bench/metrics: answer scorers of the HPT classification/number datasets (specs/hpt.md §3, §4, §9 #1, #14, #15).
 * - `BooleanScorer` (`boolean`, BoolQ), `ChoiceScorer` (`choice`, CSQA/MMLU), `NumericScorer` (`numeric`, GSM8K);
 * - the pure parsers they use, for reuse and testing: the reference ports (`referenceBoolq`, `referenceChoice`,
 *   `referenceGsm8k`, `referenceGsm8kValue`) and the strict parsers (`strictBoolean`, `strictLetter`, `strictNumber`).
 */
export { BooleanScorer, referenceBoolq, strictBoolean } from './boolean.js';
export { ChoiceScorer, referenceChoice, strictLetter } from './choice.js';
export type { ChoiceReference } from './choice.js';
export { NumericScorer, referenceGsm8k, referenceGsm8kValue, strictNumber } from './numeric.js';
