/**
 * The check of a run's reasoning settings before its first sample (issue #24, "an endpoint that rejects the parameter
 * gives one clear error before the run, not per sample"): `reasoning_effort` and `max_completion_tokens` are accepted by
 * reasoning models only, and an endpoint that refuses one refuses every call alike.
 */
import { type ChatMessage, type GenerationSettings, isHptError, type Model } from '@hpt-bench/sdk';

/** The probe's one message: a request any chat model answers in a word. */
export const PROBE_PROMPT = 'Reply with the word OK.';

/** The probe's token budget (`max_completion_tokens` or `max_tokens`, whichever the run sends): it costs a few tokens. */
export const PROBE_TOKENS = 16;

/** How long the probe waits for its answer before the run goes on without it (ms). */
export const PROBE_TIMEOUT_MS = 30_000;

/**
 * When the run sends `reasoning_effort` or `max_completion_tokens` (`generation.reasoningEffort`/`maxCompletionTokens`)
 * to a model with an endpoint, sends one short request with the same settings (budget capped at `PROBE_TOKENS`,
 * `PROBE_PROMPT` as the only message) straight to the model plugin: not cached, not stored, not part of the run's calls
 * or cost. The model plugin turns the endpoint's refusal of a parameter into `HptError` `E_CONFIG` (exit 2; the openai
 * plugin: HTTP 400/422 naming the parameter), which is thrown here before any run row exists. Any other outcome — an
 * answer, a network error, a 5xx, no answer within `timeoutMs` — lets the run go on (its own calls retry and report).
 * @returns whether a probe was sent
 * @throws HptError `E_CONFIG` when the endpoint refuses a reasoning setting
 */
export async function probeReasoningSettings(model: Model, generation: GenerationSettings, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  if (generation.reasoningEffort === undefined && generation.maxCompletionTokens === undefined) return false;
  if (model.endpoint === undefined) return false;
  const messages: ChatMessage[] = [{ role: 'user', content: PROBE_PROMPT }];
  const budget = generation.maxCompletionTokens === undefined ? {} : { maxCompletionTokens: Math.min(generation.maxCompletionTokens, PROBE_TOKENS) };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([model.generate({ ...generation, maxTokens: Math.min(generation.maxTokens, PROBE_TOKENS), ...budget, messages }), timeout]);
  } catch (e) {
    if (isHptError(e) && e.code === 'E_CONFIG') throw e;
  } finally {
    clearTimeout(timer);
  }
  return true;
}
