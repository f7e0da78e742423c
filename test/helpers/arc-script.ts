/**
 * The scripted model of the example plugin `examples/arc-self-consistency` (ARC multiple choice, ladder hpf-sc), shared
 * by `test/e2e/example-plugin.test.ts` (the repository's CLI) and `test/e2e/packaged-cli.test.ts` (the packed CLI
 * installed globally): levels 1-5 always answer a wrong letter; the self-consistency level's five draws give a majority
 * for the right letter (the first and last draws wrong, so submitting either would fail) on every question but the
 * last, whose majority is wrong (its first and last draws right). So a run of the sample file through hpf-sc solves
 * n - 1 questions at level 6 and leaves the last unsolved.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

/** The example plugin's folder. */
export const ARC_EXAMPLE = join(ROOT, 'examples/arc-self-consistency');
/** The ladder hpf-sc's strategies, in order. */
export const ARC_LADDER = ['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge', 'self-consistency'];
/** The plugin's HPI_Dataset. */
export const ARC_HPI_DATASET = 2.5;
export const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** One record of the sample file (allenai/ai2_arc's format). */
export interface ArcRecord {
  id: string;
  question: string;
  choices: { text: string[]; label: string[] };
  answerKey: string;
}

/** The example's sample file. */
export const ARC_RECORDS: ArcRecord[] = readFileSync(join(ARC_EXAMPLE, 'data/sample.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as ArcRecord);
/** The right letter of each question, computed here (the position of answerKey in labels). */
export const ARC_RIGHT = new Map(ARC_RECORDS.map((r) => [r.id, LETTERS[r.choices.label.indexOf(r.answerKey)]!]));
/** The question whose self-consistency majority is wrong (unsolved). */
export const ARC_UNSOLVED = ARC_RECORDS[ARC_RECORDS.length - 1]!.id;

/**
 * A fresh scripted model: `reply(prompt text)` answers as described above; it counts the self-consistency draws per
 * question (recognised by the level's "Reason independently" instruction), so use one script per run.
 */
export function arcScript(): (content: string) => string {
  const draws = new Map<string, number>();
  return (content: string) => {
    const rec = ARC_RECORDS.find((r) => content.includes(r.question));
    if (!rec) return 'I do not know.';
    const n = rec.choices.text.length;
    const right = LETTERS.indexOf(ARC_RIGHT.get(rec.id)!);
    const wrong = (k: number) => LETTERS[(right + k) % n]!;
    if (!content.includes('Reason independently')) return `Answer: ${wrong(1)}`; // levels 1-5 (and their intermediate calls)
    const i = draws.get(rec.id) ?? 0;
    draws.set(rec.id, i + 1);
    // five draws: right 3 of 5, the first and last wrong; the unsolved question: right 2 of 5 (the first and last), wrong 3
    const cycle = rec.id === ARC_UNSOLVED ? [LETTERS[right]!, wrong(1), wrong(1), wrong(1), LETTERS[right]!] : [wrong(1), LETTERS[right]!, LETTERS[right]!, LETTERS[right]!, wrong(2)];
    return `Reasoning about the options. Answer: ${cycle[i % 5]!}`;
  };
}
