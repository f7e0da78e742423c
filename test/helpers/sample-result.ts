import type { SampleResult } from '@hpt-bench/core';

/**
 * A stored-ladder result for store tests: sample `index` climbs to `level` (null: all five levels, unsolved, HPI 7.52),
 * one graded call per level whose user message is `content`; answers `A` when solved, `B` otherwise.
 */
export function ladderResult(index: number, level: number | null, content = 'p'): SampleResult {
  const attempts = Array.from({ length: level ?? 5 }, (_, i) => ({
    level: i + 1,
    strategy: `s${i + 1}`,
    solved: level === i + 1,
    score: level === i + 1 ? 1 : 0,
    extracted: level === i + 1 ? 'A' : 'B',
    graded: { promptText: 'p', completion: level === i + 1 ? 'A' : 'B', cue: 'Answer:' },
    calls: [{ seq: 0, purpose: 'graded' as const, model: 'm', messages: [{ role: 'user' as const, content }], output: 'x', usage: { promptTokens: 10, completionTokens: 2 }, latencyMs: 5.25, finishReason: 'stop' }],
  }));
  return { sampleId: `id${index}`, index, level, hpi: level ?? 7.52, solved: level !== null, prediction: 'A', target: 'A', attempts };
}
