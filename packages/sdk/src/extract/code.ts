/**
 * Code answers (HumanEval and any code-generation dataset; hpt.md §9 #1, #2; issue #23: body-only completions).
 */
import { escapeRegExp } from '../text.js';
import type { ExtractOptions, Extraction } from './types.js';

/**
 * Options of `extractCode`.
 * - `cue`: the prompt's answer cue (default `Code:`), dropped when the reply repeats it before unfenced code;
 * - `entryPoint`: the name of the function the code must define (HumanEval's `entry_point`), when known.
 */
export interface CodeOptions extends ExtractOptions {
  entryPoint?: string;
}

/** An info string after an opening fence that is a language tag (```python, ```py, ```python3, ``` ...). */
const LANG_TAG_RE = /^[ \t]*[A-Za-z0-9_+.#-]*[ \t]*$/u;

/** textwrap.dedent: removes the common leading whitespace of the non-blank lines. */
function dedent(code: string): string {
  const lines = code.split('\n');
  let common: string | undefined;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const ws = (/^[ \t]*/u.exec(line) as RegExpExecArray)[0];
    if (common === undefined) common = ws;
    else {
      let i = 0;
      while (i < common.length && i < ws.length && common[i] === ws[i]) i++;
      common = common.slice(0, i);
    }
  }
  if (!common) return code;
  const c = common;
  return lines.map((l) => (l.startsWith(c) ? l.slice(c.length) : l.trim() === '' ? '' : l)).join('\n');
}

/** A top-level line of Python that only a module holds: a definition, an import, a decorator, a comment. */
const MODULE_LINE_RE = /^(?:(?:async[ \t]+)?def[ \t]|class[ \t(:]|from[ \t]|import[ \t]|@|#|if[ \t]+__name__)/u;

/**
 * Whether dedenting an indented block gives the code to run on its own rather than a function body to append to the
 * prompt. With `entryPoint`: exactly when the dedented code defines that function at its top level (`def name(`), so
 * a body that starts with an indented helper `def` or an `import` stays a body. Without it: when every top-level line
 * of the dedented code is a definition, an import, a decorator or a comment (a body has a top-level `return`).
 */
function isModule(dedented: string, entryPoint: string | undefined): boolean {
  if (entryPoint !== undefined) return new RegExp(`^(?:async[ \\t]+)?def[ \\t]+${escapeRegExp(entryPoint)}[ \\t]*\\(`, 'mu').test(dedented);
  return dedented.split('\n').every((l) => l.trim() === '' || /^[ \t]/u.test(l) || /^[)\]}]/u.test(l) || MODULE_LINE_RE.test(l));
}

/**
 * Extracts the code of a reply (reads the completion only):
 * - `code-fence`: the inner text of the first fenced block (the opening line's language tag, e.g. ```` ```python ````,
 *   is dropped; an unclosed fence runs to the end of the text);
 * - `code-body`: else the whole completion, after dropping a leading repetition of the cue (`Code:`, also `**Code:**`).
 * Then "trimmed": leading blank lines and trailing whitespace are removed, but the first line's indentation is kept (a
 * body-only completion stays indented, as the standard harness appends it to the prompt). Code indented as a whole is
 * dedented only when it is a module on its own (see `isModule`: with `entryPoint`, when it defines that function).
 * The span covers the code as it stands in the reply (before dedenting). Returns null for a reply with no code.
 */
export function extractCode(completion: string, options: CodeOptions = {}): Extraction<string> | null {
  let start: number;
  let end: number;
  let rule: string;
  const open = completion.indexOf('```');
  if (open >= 0) {
    start = open + 3;
    const nl = completion.indexOf('\n', start);
    const info = nl < 0 ? completion.slice(start) : completion.slice(start, nl);
    if (LANG_TAG_RE.test(info)) start = nl < 0 ? completion.length : nl + 1;
    const close = completion.indexOf('```', start);
    end = close < 0 ? completion.length : close;
    rule = 'code-fence';
  } else {
    const c = (options.cue ?? '').trim() === '' ? 'Code:' : (options.cue as string).trim();
    const cueRe = new RegExp(`^\\s*[*_]*${escapeRegExp(c)}[*_]*[ \\t]*(?:\\r?\\n)?`, 'iu');
    start = cueRe.exec(completion)?.[0].length ?? 0;
    end = completion.length;
    rule = 'code-body';
  }
  const lead = /^(?:[ \t]*\r?\n)*/u.exec(completion.slice(start, end)) as RegExpExecArray;
  start += lead[0].length;
  while (end > start && /\s/u.test(completion[end - 1] as string)) end--;
  if (end <= start) return null;
  const code = completion.slice(start, end);
  const dedented = dedent(code);
  const value = dedented !== code && isModule(dedented, options.entryPoint) ? dedented : code;
  return { value, rule, span: [start, end] };
}
