/**
 * @hpt-bench/metrics: the scorers and metrics of the HPT datasets (specs/hpt.md §3, §4, §9).
 * - answer scorers: `BooleanScorer` (`boolean`, BoolQ), `ChoiceScorer` (`choice`, CSQA/MMLU), `NumericScorer`
 *   (`numeric`, GSM8K), with their reference ports and strict parsers;
 * - `BleuScorer` (`bleu`, IWSLT: sentence BLEU ≥ threshold; corpus BLEU) with sacreBLEU-compatible and HF-evaluate BLEU;
 * - `RougeScorer` (`rouge`, SamSum: ROUGE-1 F1 ≥ threshold; mean F1 of the four types), rouge_score-compatible;
 * - `HumanEvalScorer` (`code-exec`, HumanEval: the program runs in the host's code sandbox, injected as
 *   `Tokens.CodeSandbox`; pass@1), `passAtK`, and the compact preflight record of the sandbox's escape suite;
 * - `scoreStandalone` and `SacreBleuMetric`, `BleuHfMetric`, `RougeMetric`: the metrics alone (`hpt-bench score`).
 */
export { BooleanScorer, referenceBoolq, strictBoolean } from './boolean.js';
export { ChoiceScorer, referenceChoice, strictLetter } from './choice.js';
export type { ChoiceReference } from './choice.js';
export { NumericScorer, referenceGsm8k, referenceGsm8kValue, strictNumber } from './numeric.js';
export * from './bleu.js';
export * from './rouge.js';
export { porterStem } from './porter.js';
export { BleuHfMetric, RougeMetric, SacreBleuMetric, scoreStandalone, STANDALONE_METRICS, type StandaloneMetric } from './standalone.js';
export { HumanEvalScorer, sandboxPreflightRecord, buildProgram, definesEntryPoint, extractCode, passAtK, problemOf, referenceExtractCode, strictExtractCode } from './humaneval.js';
