/**
 * Common prompt assembly of every HiBench scenario (specs/hibench.md §2 and §5.1): system prompt, task text, answer
 * format sentence, ICL prefix.
 */
import type { Json } from '@hpt-bench/sdk';
import type { Exemplar, IclMode, Scenario } from './types.js';

const CODE_SYSTEM = 'As an AI agent, you are tasked with performing code reasoning to assist in understanding and analyzing complex code snippets.';

const HIERARCHY_SYSTEM =
  'As an AI agent, you are tasked with performing hierarchical structure reasoning to assist in understanding and analyzing complex organizational frameworks.';

/** The toolkit's system prompt per scenario (§2, exact strings). */
export const SYSTEM_PROMPTS: Record<Scenario, string> = {
  'binary-tree': HIERARCHY_SYSTEM,
  'multiple-tree': HIERARCHY_SYSTEM,
  json: HIERARCHY_SYSTEM,
  formula: 'As an AI agent, you are tasked with performing mathematical reasoning to assist in solving complex mathematical problems.',
  code: CODE_SYSTEM,
  paper: 'As an AI agent, you are tasked with performing paper reasoning to assist in understanding and analyzing complex academic papers.',
  // code-structure (README "Code structure") and code-gen (README "Code generator"): the Code scenario's system prompt
  'code-structure': CODE_SYSTEM,
  'code-gen': CODE_SYSTEM,
};

/** Binary and multiple tree are "fundamental" tree scenarios: newline separators, one space before "and" (§2). */
function isTreeScenario(scenario: Scenario): boolean {
  return scenario === 'binary-tree' || scenario === 'multiple-tree';
}

/**
 * The answer-format sentence (§2): `Please return the answer in JSON format directly like <template> and do not
 * feedback the detailed process.` with one space before "and" for the tree scenarios and two for JSON and Formula
 * (the toolkit strings).
 * @param outputTemplate the task's output-format template, e.g. `{"answer": 1}, where 1 is the node ID,`.
 */
export function formatSentence(scenario: Scenario, outputTemplate: string): string {
  const gap = isTreeScenario(scenario) ? ' ' : '  ';
  return `Please return the answer in JSON format directly like ${outputTemplate}${gap}and do not feedback the detailed process.`;
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
 * Assemble the user message (§2): `[ICL prefix + sep1] + question + sep2 + format sentence`, where for the tree
 * scenarios (and JSON) sep2 is a newline and for Formula and Code nothing; sep1 (after the ICL prefix) is a newline for the
 * fundamental scenarios (trees, JSON) and nothing for Formula and Code.
 * @param question the filled task template, e.g. "Given the hierarchical structure 4 -> 1, ..., is node 1 a leaf node?"
 */
export function assembleQuery(scenario: Scenario, question: string, outputTemplate: string, icl: IclMode, exemplars: readonly Exemplar[]): AssembledQuery {
  // Formula and the other practical scenarios (Code, Paper) concatenate without separators (§2)
  const fundamental = scenario !== 'formula' && scenario !== 'code' && scenario !== 'code-gen' && scenario !== 'paper' && scenario !== 'code-structure';
  const sep = fundamental ? '\n' : '';
  const format = formatSentence(scenario, outputTemplate);
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
