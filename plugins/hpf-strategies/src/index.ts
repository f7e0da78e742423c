/** @hpt-bench/hpf-strategies: the code strategies of the HPF ladder (levels 4 and 5; levels 1-3 are declarative). */
export { LeastToMost } from './least-to-most.js';
export { GeneratedKnowledge, bestCandidate, stripSpecialTokens } from './generated-knowledge.js';
export { LlmSelector, FixedSelector, SELECTOR_TEMPLATE, selectorTemplate, parseSelectorLevel } from './selectors.js';
