import { HptError, SELECTOR_CUE, Tokens, fillTemplate, type CompatMode, type Selection, type SelectionContext, type Selector, inject, injectable } from '@hpt-bench/sdk';

/**
 * The reference's prompt-selector template (hpt.md §5.2, `selector` in specs/hpt-templates.json), verbatim. `{prev_res}`
 * is the feedback of the latest failed attempt ('' before any), `{task}` the sample's plain task text.
 */
export const SELECTOR_TEMPLATE =
  "{prev_res}Choose the most effective prompting strategy among five prompting strategies for the task. Start with the least indexed prompting strategy which is most effective and move to higher indexed prompting strategies if lower level prompting strategies are not effective\nTask:{task}\nThe prompting strategies are:\n1: Role Prompting -  Defines a role for the model in solving the task.\n2: Zero-shot Chain of Thought prompting - stimulate reasoning and problem-solving by including the phrase 'Let's think step by step' without offering previous examples related to the task.\n3: Three-shot Chain of Thought prompting -  Offers three examples related to the task to guide the model's reasoning process.\n4: Least-to-most prompting  -  Uses a sequential method to derive essential insights from the task in order to solve it.\n5: Generated Knowledge Prompting - Integration and application of external knowledge to accomplish the task. The external knowledge is generated using some other model based on the task.\nSelect only the index(Don't provide the name) of the most effective prompting strategy.";

/** The five HPF strategy ids, level 1 first: the ladder the verbatim template describes. */
const HPF = ['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge'];

/**
 * The selector prompt for a ladder: the verbatim reference template for the five HPF levels; for any other ladder the
 * same wording with "among m prompting strategies" and one line `i: <strategy id>` per level (an extension: the
 * reference only knows the five HPF levels).
 */
export function selectorTemplate(strategies: string[]): string {
  if (strategies.length === HPF.length && strategies.every((s, i) => s === HPF[i])) return SELECTOR_TEMPLATE;
  const head = SELECTOR_TEMPLATE.slice(0, SELECTOR_TEMPLATE.indexOf('The prompting strategies are:\n') + 'The prompting strategies are:\n'.length).replace('among five prompting', `among ${strategies.length} prompting`);
  return `${head}${strategies.map((s, i) => `${i + 1}: ${s}`).join('\n')}\nSelect only the index(Don't provide the name) of the most effective prompting strategy.`;
}

/**
 * Parse a selector reply into a level (hpt.md §2.3 step "Parse it", §9 #4): the first run of digits as an integer; no
 * digit -> 1. The result may lie outside 1..m (the engine then consumes the iteration).
 * - reference: `text` is the full text (prompt + completion); take the first line containing `Level:`, drop `Level:`,
 *   trim, and read the first digit run of that line;
 * - strict: `text` is the completion; read the first digit run after its first `Level:` (case-insensitive) if it has
 *   one, else of the whole completion.
 */
export function parseSelectorLevel(text: string, compat: CompatMode): number {
  let part: string;
  if (compat === 'reference') {
    const line = text.split('\n').find((l) => l.includes('Level:'));
    part = line === undefined ? '' : line.replace(/Level:/g, '').trim();
  } else {
    const at = text.search(/level:/i);
    part = at >= 0 ? text.slice(at + 'level:'.length) : text;
  }
  const digits = /\d+/.exec(part);
  return digits ? Number.parseInt(digits[0], 10) : 1;
}

/**
 * `llm`: the paper's prompt-selector (hpt.md §2.3, §5.2): asks the selector model (the `--selector` argument, any model
 * id; the paper used Llama-3 8B) with the selector template and the `Level:` cue, and parses its reply with
 * `parseSelectorLevel` (full text under `reference`, the completion in strict mode).
 */
@injectable()
export class LlmSelector implements Selector {
  readonly id = 'llm';
  readonly needsModel = true;

  /** @param model the selector model id (`openai:llama3` in `--selector llm:openai:llama3` or `--selector openai:llama3`) */
  constructor(@inject(Tokens.SelectorArgument) readonly model: string) {
    if (!model) throw new HptError('E_CONFIG', 'the llm selector needs a model: --selector <model-id> (e.g. openai:llama3) or --selector llm:<model-id>');
  }

  async select(ctx: SelectionContext): Promise<Selection> {
    const prompt = fillTemplate(selectorTemplate(ctx.levels.map((l) => l.strategy)), { prev_res: ctx.feedback, task: ctx.task });
    const r = await ctx.call(prompt, SELECTOR_CUE);
    return { level: parseSelectorLevel(ctx.compat === 'reference' ? r.promptText + r.text : r.text, ctx.compat), raw: r.text };
  }
}

/**
 * `fixed:<level>`: always picks the same level, with no model call (a baseline: `fixed:1` is the adaptive accounting of
 * role prompting retried up to m times). A level outside the ladder is allowed and consumes every iteration.
 * @throws HptError `E_CONFIG` when the argument is not an integer.
 */
@injectable()
export class FixedSelector implements Selector {
  readonly id = 'fixed';
  readonly level: number;

  constructor(@inject(Tokens.SelectorArgument) argument: string) {
    if (!/^\d+$/.test(argument.trim())) throw new HptError('E_CONFIG', `the fixed selector needs a level: --selector fixed:<level>, e.g. fixed:2 (got '${argument}')`);
    this.level = Number.parseInt(argument, 10);
  }

  async select(): Promise<Selection> {
    return { level: this.level };
  }
}
