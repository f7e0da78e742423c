/**
 * Random answers for the Paper tasks (the random baseline's `randomAnswer`, match/scorer.ts), drawn from the paper the
 * question shows, never from the reference: an answer a reader could give without understanding the paper.
 * - `outline-f1` (outline extraction): the paper's section titles shuffled, cut short with probability 1/3, one per line;
 * - `section-set` (disordered section): two distinct top-level titles other than Title and Abstract, ", "-joined;
 * - `answer-f1` (contextual QA): a span of 1-8 consecutive words of the paper's text.
 * The paper is the text after the prompt's last `Context:` (the ICL examples come before it). Titles are read from the
 * `<<<…>>>` markers; a plain-representation paper has none, so its short lines (at most 60 characters, not ending with
 * a full stop) stand in for titles. Chosen by the matcher's `metric` (match/scorer.ts), so it lives outside the scenario
 * folders.
 */
import { rngOf } from '../rng.js';
import type { PaperMetric } from './answer-metrics.js';

const OPEN = /^<<<(?!\/)(.*)>>>$/;

/** The paper part of a Paper prompt: the text after its last `Context:`, or the whole text. */
export function paperContext(prompt: string): string {
  const at = prompt.lastIndexOf('Context:');
  return at === -1 ? prompt : prompt.slice(at + 'Context:'.length);
}

/** A random answer text for a Paper task given the prompt's paper (see the module comment); '' for an empty paper. */
export function randomPaperAnswer(prompt: string, metric: PaperMetric, random: () => number): string {
  const rng = rngOf(random);
  const lines = paperContext(prompt).split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const marked = lines.map((l) => OPEN.exec(l)?.[1]).filter((t): t is string => t !== undefined);
  const titles = marked.length > 0 ? marked : lines.filter((l) => l.length <= 60 && !l.endsWith('.'));
  const text = lines.filter((l) => !l.startsWith('<<<'));
  if (metric === 'outline-f1' && titles.length > 0) {
    let order = rng.shuffle(titles);
    if (random() < 1 / 3) order = order.slice(0, rng.int(1, order.length));
    return order.join('\n');
  }
  if (metric === 'section-set') {
    const names = [...new Set(titles.filter((t) => !/^(title|abstract)$/i.test(t)))];
    if (names.length >= 2) return rng.shuffle(names).slice(0, 2).join(', ');
  }
  const words = text.join(' ').split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return '';
  const len = rng.int(1, Math.min(8, words.length));
  const start = rng.int(0, words.length - len);
  return words.slice(start, start + len).join(' ');
}
