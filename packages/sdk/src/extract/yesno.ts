/**
 * Yes/no answers (BoolQ and any true/false question; issue #23, replacing hpt.md §9 #14's "first token").
 */
import { findMarkers, type Marker, markerAnswer, type Region, replyEnd, replyStart, sentences } from './scan.js';
import type { ExtractOptions, Extraction } from './types.js';

/** A yes/no read from the reply: the value and its `[start, end)`. */
interface BoolHit {
  value: boolean;
  start: number;
  end: number;
}

/**
 * `true`/`yes` (and `false`/`no`) as a whole word, optionally after `not` ("not true" is false), standing alone: the end,
 * a line break or punctuation follows ("No, because ...", "True."), not a word ("No evidence suggests ...").
 */
const LEADING_RE = /^(?:(not)\s+)?(true|false|yes|no)(?=[ \t]*(?:$|[\n.,!:;()[\]*_"'“”‘’—–]|-(?!\p{L})))/iu;

/** The yes/no a stretch starts with, after emphasis, quotes and `:`: "**True**", "No, because ...", "not true". */
function leadingBool(text: string, from: number, end: number): BoolHit | null {
  const noise = /^[\s*_`"'“”‘’:=>–—-]*/u.exec(text.slice(from, end)) as RegExpExecArray;
  const at = from + noise[0].length;
  const m = LEADING_RE.exec(text.slice(at, end));
  if (m === null) return null;
  const word = (m[2] as string).toLowerCase();
  const positive = word === 'true' || word === 'yes';
  const start = at + m[0].length - (m[2] as string).length;
  return { value: m[1] !== undefined ? !positive : positive, start, end: start + (m[2] as string).length };
}

/** In a final sentence: a statement "... is (not) true/false" or "... (is) correct/incorrect", or a lone true/false. */
const SENTENCE_RE = /(?<![\p{L}\p{N}_])(?:(?:is|are|was|were|be)\s+(not\s+)?)?(true|false)(?![\p{L}\p{N}_]|[-'’]\p{L})/giu;

/**
 * The yes/no the last sentence states: it starts with yes/no/true/false ("No, the passage says ..."), else its last
 * "true"/"false" (with "is not true" read as false). A bare "no" or "yes" inside a sentence ("there is no evidence")
 * is not an answer.
 */
function sentenceBool(text: string, s: Region): BoolHit | null {
  const first = leadingBool(text, s.start, s.end);
  if (first !== null) return first;
  let last: BoolHit | null = null;
  for (const m of text.slice(s.start, s.end).matchAll(SENTENCE_RE)) {
    const positive = (m[2] as string).toLowerCase() === 'true';
    const start = s.start + (m.index as number) + m[0].length - (m[2] as string).length;
    last = { value: m[1] !== undefined ? !positive : positive, start, end: start + (m[2] as string).length };
  }
  return last;
}

/**
 * Extracts a yes/no answer (true for yes/true, false for no/false) from a model's reply, by an ordered cascade:
 * 1. explicit final-answer markers ("Answer: False", "the answer is yes", "Final answer: **No**", `\boxed{True}`, a
 *    JSON `"answer"` field, a wholly bold line), the LAST one holding a yes/no at its start ("not true" is false);
 *    the last decisive one (JSON field, `\boxed{}`, "Final answer:") holding none means no answer;
 * 2. `answer-first`: the reply starts with true/false/yes/no as a whole word ("Yes, because ...", "**False**");
 * 3. `final-sentence`: the last sentence starts with one, or states "... is (not) true/false".
 * `untrue`, `Nope` and "no-brainer" are not answers. The reply is read up to where the model starts a new turn.
 * Returns null when no rule reads one.
 */
export function extractYesNo(completion: string, options: ExtractOptions = {}): Extraction<boolean> | null {
  const text = completion.slice(0, replyEnd(completion));
  const read = (_marker: Marker, region: Region): BoolHit | null => leadingBool(text, region.start, region.end);
  const stated = markerAnswer(text, findMarkers(text), read, (a, b) => a.value === b.value);
  if (stated === 'none') return null;
  if (stated !== null) return { value: stated.hit.value, rule: stated.marker.rule, span: [stated.hit.start, stated.hit.end] };
  const start = replyStart(text, options.cue);
  const first = leadingBool(text, start, text.length);
  if (first !== null) return { value: first.value, rule: 'answer-first', span: [first.start, first.end] };
  const all = sentences(text);
  const last = all[all.length - 1];
  const hit = last === undefined ? null : sentenceBool(text, last);
  return hit === null ? null : { value: hit.value, rule: 'final-sentence', span: [hit.start, hit.end] };
}
