import { SingleCallStrategy, type LadderLevel } from '@hpt-bench/core';
import { GeneratedKnowledge, LeastToMost } from '../../plugins/hpf-strategies/src/index.js';

/** The five HPF levels (hpt.md §1.3) built directly, for engine tests without plugin discovery. */
export function hpfLevels(): LadderLevel[] {
  return [
    { level: 1, strategyId: 'role', strategy: new SingleCallStrategy('role') },
    { level: 2, strategyId: 'zero-shot-cot', strategy: new SingleCallStrategy('zero-shot-cot') },
    { level: 3, strategyId: 'three-shot-cot', strategy: new SingleCallStrategy('three-shot-cot') },
    { level: 4, strategyId: 'least-to-most', strategy: new LeastToMost() },
    { level: 5, strategyId: 'generated-knowledge', strategy: new GeneratedKnowledge({}) },
  ];
}
