/**
 * Free-text answers read from the first line (IWSLT translations; hpt.md §9 #1, #16).
 */
import { escapeRegExp, pyStrip } from '../text.js';
import type { ExtractOptions, Extraction } from './types.js';

/**
 * Options of `extractFirstLine`: `cue` (the prompt's answer cue) and `cues`, further labels a model may repeat before
 * its answer (e.g. `French:`); the first of them found at the start is dropped.
 */
export interface FirstLineOptions extends ExtractOptions {
  cues?: readonly string[];
}

/**
 * Extracts a free-text answer: drops leading whitespace and one leading repetition of the cue or of one of `cues`
 * (case-insensitive; markdown emphasis around it such as `**French:**` too), then returns the first line with
 * non-whitespace content, stripped (Python whitespace), with rule `first-line` and its span. Lines end at `\n`,
 * `\r\n` or `\r`. Returns null when the reply has no such line.
 * Example: `"\nBonjour.\n(Explanation...)"` gives `"Bonjour."`; `" French: Bonjour."` gives `"Bonjour."`.
 */
export function extractFirstLine(completion: string, options: FirstLineOptions = {}): Extraction<string> | null {
  let at = 0;
  const cues = [...new Set([options.cue?.trim() ?? '', ...(options.cues ?? []).map((c) => c.trim())].filter((c) => c !== ''))];
  for (const c of cues) {
    const m = new RegExp(`^[\\s*_]*${escapeRegExp(c)}[*_]*`, 'iu').exec(completion);
    if (m !== null) {
      at = m[0].length;
      break;
    }
  }
  let pos = at;
  for (const line of completion.slice(at).split(/\r\n|\n|\r/u)) {
    const value = pyStrip(line);
    if (value !== '') {
      const start = pos + line.indexOf(value);
      return { value, rule: 'first-line', span: [start, start + value.length] };
    }
    pos += line.length + (completion.startsWith('\r\n', pos + line.length) ? 2 : 1);
  }
  return null;
}
