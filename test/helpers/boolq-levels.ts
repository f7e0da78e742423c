/**
 * Which HPF level a graded BoolQ request belongs to, read from the built-in BoolQ prompt pack's wording (the scripted
 * servers of `test/e2e/full-ladder.test.ts` and `test/report/ladder-report.test.ts` answer by level).
 * @returns 1..5 for a graded request of that level; undefined for least-to-most's chain steps and knowledge calls.
 */
export function boolqGradedLevel(user: string): number | undefined {
  if (user.includes('as an Omniscent person.')) return 1;
  if (user.includes('Harry Potter and the Escape from Gringotts')) return 3;
  if (user.includes("Let's think step by step.")) return 2;
  if (user.startsWith('Based on the passage, what is the answer to this question:')) return 4;
  if (user.includes('using knowledge of the passage:')) return 5;
  return undefined;
}
