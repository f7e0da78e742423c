import { createHash } from 'node:crypto';
import type { Json } from '@hpt-bench/core';

/**
 * Helpers for e2e tests that drive generated (HiBench) samples through the generic prompt pack against a scripted
 * OpenAI-compatible server: find the sample a request is about, the HPF level it belongs to, and a right answer.
 */

/** A generated record's question with its ICL prefix: the user prompt without the answer-format sentence. */
export const questionOf = (r: Record<string, Json>): string => (r.prompt as string).slice(0, (r.prompt as string).length - (r.format as string).length).replace(/\n$/, '');

/**
 * Which level solves a sample (6 = none), from a hash of its question, so every level and "unsolved" occur. Keyed by
 * the question, not the id: small generated items repeat, so two samples can ask the very same question.
 */
export const levelOf = (question: string): number => (createHash('md5').update(question).digest()[0]! % 6) + 1;

/** A completion the strict matchers accept for `target` (written independently of the scorer's renderTarget). */
export const rightAnswer = (t: Json): string => JSON.stringify({ answer: Array.isArray(t) ? t.join(', ') : t });

/** Which HPF level a graded request of the generic pack belongs to, from the pack's wording. */
export function levelOfRequest(user: string): number {
  if (user.startsWith('You are an omniscient expert in this domain.')) return 1;
  if (user.includes('Solved sub-problems:')) return 4;
  if (user.startsWith('Knowledge: ')) return 5;
  if (user.includes('solved examples.')) return 3;
  return 2;
}

/** The record a user message is about: the one whose question it contains (the longest match wins). */
export function recordFor<T extends Record<string, Json>>(records: readonly T[], user: string): T | undefined {
  let best: T | undefined;
  for (const r of records) if (user.includes(questionOf(r)) && (!best || questionOf(r).length > questionOf(best).length)) best = r;
  return best;
}

/** HPI and calls the scripted server implies for records solved at `levelOf` (5 levels; calls per level 1,1,1,3,4). */
export function expectedRun(records: readonly Record<string, Json>[], hpiDataset: number): { hpi: number; calls: number; levels: number[] } {
  const levels = records.map((r) => levelOf(questionOf(r)));
  const perLevel = [1, 1, 1, 3, 4];
  const hpi = levels.reduce((a, l) => a + (l <= 5 ? l : 5 + hpiDataset), 0) / levels.length;
  const calls = levels.reduce((a, l) => a + perLevel.slice(0, Math.min(l, 5)).reduce((x, y) => x + y, 0), 0);
  return { hpi, calls, levels };
}
