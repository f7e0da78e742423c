import { fileURLToPath } from 'node:url';
import { assertValid, HptError, jsonErrorReason, type PromptPack, readJsonText, type Sample } from '@hpt-bench/sdk';
import { GRADED_SYSTEM_PROMPT } from './assemble.js';

/**
 * The generic prompt pack (packages/core/packs/generic.json; DESIGN.md "Prompt packs"): the five HPF levels for a dataset
 * whose manifest names no pack (e.g. every generated dataset). It reads the sample input fields `question` (required),
 * `format`, `format_cot`, `exemplars` and `system`.
 */
export const GENERIC_PACK_PATH = fileURLToPath(new URL('../../packs/generic.json', import.meta.url));

/**
 * Defaults of the generic pack's optional input fields: no answer-format sentence, a plain step-by-step cue, no
 * exemplars, and HPT's graded system prompt.
 */
export const GENERIC_INPUT_DEFAULTS: Readonly<Record<string, string>> = {
  format: '',
  format_cot: "Let's think step by step.",
  exemplars: '',
  system: GRADED_SYSTEM_PROMPT,
};

/**
 * A sample with the generic pack's optional fields filled by `GENERIC_INPUT_DEFAULTS` where the dataset gives none.
 * @throws HptError `E_DATA` when the sample has no `question` field, naming the sample.
 */
export function withGenericInput(sample: Sample): Sample {
  if (typeof sample.input.question !== 'string') {
    throw new HptError('E_DATA', `sample ${sample.id}: the generic prompt pack needs an input field 'question' (the dataset names no prompt pack)`);
  }
  return { ...sample, input: { ...GENERIC_INPUT_DEFAULTS, ...sample.input } };
}

const packs = new Map<string, PromptPack>();

/**
 * Load and validate a prompt pack file (schemas/prompt-pack.schema.json), cached by path. A leading UTF-8 byte order
 * mark is ignored.
 * @throws HptError `E_PACK` naming the file and the failing field (a file that is not JSON: the reason without quoting
 *   the file); also when a chain's last step cue differs from the pack cue or a step's `pred` does not name an earlier
 *   step.
 */
export function loadPromptPack(path: string): PromptPack {
  const cached = packs.get(path);
  if (cached) return cached;
  let raw: unknown;
  try {
    raw = JSON.parse(readJsonText(path));
  } catch (e) {
    const reason = e instanceof SyntaxError ? jsonErrorReason(e) : ((e as NodeJS.ErrnoException).code ?? (e as Error).message);
    throw new HptError('E_PACK', `cannot read prompt pack ${path}: ${reason}`);
  }
  const pack = assertValid<PromptPack>('prompt-pack', raw, `prompt pack ${path}`, 'E_PACK');
  for (const [id, entry] of Object.entries(pack.strategies)) {
    entry.steps?.forEach((s, i) => {
      if (s.pred !== null && s.pred > i) throw new HptError('E_PACK', `prompt pack ${path}: ${id} step ${i + 1} takes {pred} from step ${s.pred}, which is not an earlier step`);
    });
  }
  packs.set(path, pack);
  return pack;
}
