import type { CallPurpose, ChatMessage, CompatMode } from '@hpt-bench/sdk';

/**
 * A raw chat wrapper of the reference code (specs/hpt-extras.json › chatWrappers): strings prepended and appended to
 * the filled template in reference mode.
 */
export interface ChatWrapper {
  prefix: string;
  suffix: string;
}

/** The wrapper the reference code sends to API models (GPT-4o, Claude) as literal text (hpt.md §6). */
export const API_WRAPPER: ChatWrapper = { prefix: '<|startoftext|>### Instruction: ', suffix: '<|endoftext|>\n' };
/** The Llama-3 wrapper the reference uses for every knowledge call, whatever the evaluated model (hpt.md §1.3). */
export const LLAMA3_WRAPPER: ChatWrapper = {
  prefix: '<|start_header_id|>user<|end_header_id|>\n',
  suffix: '<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n',
};
/** System message of graded ("final") calls to API models (hpt.md §6; hpt-extras.json › apiFinalCallSystemPrompt). */
export const GRADED_SYSTEM_PROMPT = 'Provide the answer at the start of first sentence';

/** The messages of one call and the prompt text the reference's full-text pipeline would return before the completion. */
export interface AssembledPrompt {
  messages: ChatMessage[];
  promptText: string;
}

/**
 * Build the messages of one call (hpt.md §6 and recommendation #13).
 *
 * - strict (default): native chat format. The user message is the filled template, then a newline and the cue when
 *   there is one (no assistant prefill: OpenAI-compatible endpoints do not all support it). Graded calls carry the
 *   system message "Provide the answer at the start of first sentence"; chain steps and knowledge calls have none.
 *   `promptText` is the user message.
 * - reference: one user message holding the literal `wrapper.prefix + text + wrapper.suffix + cue` (the reference sends
 *   the API wrapper strings as text); knowledge calls always use the Llama-3 wrapper and no cue. `promptText` is that
 *   string, which the reference parsers see in front of the completion.
 *
 * @param purpose graded, intermediate (chain step) or knowledge.
 * @param text the filled template.
 * @param cue the answer cue (`Answer:`, `Code:`, ... or '').
 * @param system the system message of graded calls when the prompt pack sets one (default GRADED_SYSTEM_PROMPT).
 */
export function assemblePrompt(purpose: CallPurpose, text: string, cue: string, compat: CompatMode, wrapper: ChatWrapper = API_WRAPPER, system: string = GRADED_SYSTEM_PROMPT): AssembledPrompt {
  const messages: ChatMessage[] = [];
  if (purpose === 'graded') messages.push({ role: 'system', content: system });
  let user: string;
  if (compat === 'reference') {
    const w = purpose === 'knowledge' ? LLAMA3_WRAPPER : wrapper;
    user = w.prefix + text + w.suffix + (purpose === 'knowledge' ? '' : cue);
  } else {
    user = cue && purpose !== 'knowledge' ? `${text}\n${cue}` : text;
  }
  messages.push({ role: 'user', content: user });
  return { messages, promptText: user };
}
