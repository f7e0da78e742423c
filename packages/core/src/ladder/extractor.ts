/**
 * Model-graded answer extraction, opt-in (`run --extractor <model>`; issue #23): when the strict rules read no answer
 * from a reply (no rule fired, or the reply states several different answers with nothing to choose between them), a
 * second model is asked which final answer the reply gives; its short reply is then read by the same scorer, and the
 * attempt records that a model extracted the answer (`extraction: { rule: 'model', span: null, by: <model id> }`).
 * Its calls go through the run's client like any call (cached, rate-limited, retried, counted in the level's usage and
 * cost) and are stored with the attempt, purpose `extract`.
 */
import type { ChatMessage, GradedOutput } from '@hpt-bench/sdk';

/**
 * The extractor's system message (documented in README "Scoring real answers"). The extractor sees the question the
 * reply answers and the reply, never the target.
 */
export const EXTRACTOR_SYSTEM =
  'You read answers. Given a question and a reply to it, state the final answer the reply gives, exactly as the reply ' +
  'gives it: a number, an option letter, true or false, or a short phrase. Do not solve the question yourself and do ' +
  'not correct the reply. If the reply gives no final answer, or gives several different final answers without ' +
  'settling on one, write NONE. Write only the answer, on one line.';

/** The extractor's messages for one graded output: the system message, then the question and the reply. */
export function extractorMessages(graded: GradedOutput): ChatMessage[] {
  const question = graded.promptText.trim();
  return [
    { role: 'system', content: EXTRACTOR_SYSTEM },
    { role: 'user', content: `${question ? `Question:\n${question}\n\n` : ''}Reply:\n${graded.completion}\n\nFinal answer given by the reply:` },
  ];
}

/** True for an extractor reply that means "no answer" (`NONE`, empty, `N/A`). */
export function isNoAnswer(reply: string): boolean {
  return /^\W*(?:none|n\/a|no answer)?\W*$/iu.test(reply.trim());
}
