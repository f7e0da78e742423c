/**
 * Common prompt assembly of every HiBench scenario (specs/hibench.md §2 and §5.1): system prompt, task text, answer
 * format sentence, ICL prefix. What differs between scenarios (the system prompt and the two separators) is the
 * scenario's `PromptStyle` (its `prompt`, declared in its folder); nothing here knows a scenario.
 */
import type { Json } from '@hpt-bench/sdk';
import type { Exemplar, IclMode } from './types.js';

/**
 * How a scenario's queries are assembled (§2, the toolkit's strings):
 * - `system`: the system prompt, exactly;
 * - `separator`: what joins the ICL prefix, the task text and the answer-format sentence — a newline for the
 *   "fundamental" scenarios (trees, JSON), nothing for the practical ones (Formula, Code, Paper);
 * - `formatGap`: the whitespace before "and do not feedback" in the answer-format sentence — one space for the two tree
 *   scenarios, two for the others.
 * Example (JSON): `{ system: HIERARCHY_SYSTEM_PROMPT, separator: '\n', formatGap: '  ' }`.
 */
export interface PromptStyle {
  readonly system: string;
  readonly separator: '\n' | '';
  readonly formatGap: ' ' | '  ';
}

/** The toolkit's system prompt of the hierarchical-structure scenarios (trees, JSON; §2, exact string). */
export const HIERARCHY_SYSTEM_PROMPT =
  'As an AI agent, you are tasked with performing hierarchical structure reasoning to assist in understanding and analyzing complex organizational frameworks.';

/**
 * The answer-format sentence (§2): `Please return the answer in JSON format directly like <template> and do not
 * feedback the detailed process.` with the style's `formatGap` before "and" (one space for the tree scenarios, two for
 * the others: the toolkit strings).
 * @param style the scenario's prompt style (only `formatGap` is used).
 * @param outputTemplate the task's output-format template, e.g. `{"answer": 1}, where 1 is the node ID,`.
 */
export function formatSentence(style: Pick<PromptStyle, 'formatGap'>, outputTemplate: string): string {
  return `Please return the answer in JSON format directly like ${outputTemplate}${style.formatGap}and do not feedback the detailed process.`;
}

/**
 * The chain-of-thought variant of the answer-format sentence (§5.2 recommendation): think step by step, then end with
 * the JSON answer. Used by the CoT levels of the generic prompt pack.
 */
export function formatSentenceCot(outputTemplate: string): string {
  return `Let's think step by step, then give the final answer at the end in JSON format like ${outputTemplate} as the last line.`;
}

/**
 * The ICL prefix (§5.1, toolkit wording, including the missing space after "example."): '' for zero-shot; one-shot
 * uses the first exemplar, few-shot the first three.
 * @throws RangeError when there are fewer exemplars than the mode needs.
 */
export function iclPrefix(mode: IclMode, exemplars: readonly Exemplar[]): string {
  if (mode === 'zero') return '';
  const need = mode === 'one' ? 1 : 3;
  if (exemplars.length < need) throw new RangeError(`${mode}-shot needs ${need} exemplars, got ${exemplars.length}`);
  if (mode === 'one') return `Here is one example.The input is ${exemplars[0]!.input}, the answer is ${exemplars[0]!.answer}.`;
  const parts = exemplars.slice(0, 3).map((e) => `The input is ${e.input}, the answer is ${e.answer}.`);
  return `Here are a few examples. ${parts.join(' ')}`;
}

/** The assembled texts of one query. */
export interface AssembledQuery {
  /** the user message: ICL prefix + task text + separator + format sentence */
  prompt: string;
  /** the format sentence alone */
  format: string;
  /** its chain-of-thought variant */
  formatCot: string;
}

/**
 * Assemble the user message (§2): `[ICL prefix + sep] + question + sep + format sentence`, where sep is the style's
 * `separator` (a newline for the fundamental scenarios, trees and JSON; nothing for Formula, Code and Paper).
 * @param style the scenario's prompt style.
 * @param question the filled task template, e.g. "Given the hierarchical structure 4 -> 1, ..., is node 1 a leaf node?"
 * @throws RangeError from `iclPrefix` when there are fewer exemplars than the ICL mode needs.
 */
export function assembleQuery(style: PromptStyle, question: string, outputTemplate: string, icl: IclMode, exemplars: readonly Exemplar[]): AssembledQuery {
  const sep = style.separator;
  const format = formatSentence(style, outputTemplate);
  const prefix = iclPrefix(icl, exemplars);
  const prompt = (prefix ? prefix + sep : '') + question + sep + format;
  return { prompt, format, formatCot: formatSentenceCot(outputTemplate) };
}

/**
 * Python's `str()` of a reference value, as the toolkit's scorer sees it (§4.1): booleans `True`/`False`, lists
 * `[3, 2, 0, 1]` (strings quoted with single quotes), numbers as JS prints them, null `None`.
 */
export function pyStr(value: Json): string {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => (typeof v === 'string' ? `'${v}'` : pyStr(v))).join(', ')}]`;
  return JSON.stringify(value);
}

/**
 * A strict-mode exemplar answer: `{"answer": <value>}` with the value as JSON, lists joined by ", " into one string
 * (so the extractor reads the whole list), multi-line strings kept as JSON escapes.
 */
export function answerJson(value: Json): string {
  const v = Array.isArray(value) ? value.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ') : value;
  return JSON.stringify({ answer: v }).replace('{"answer":', '{"answer": ');
}
