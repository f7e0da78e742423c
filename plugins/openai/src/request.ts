/** The chat-completions request body of a `ModelRequest`, shared by online calls and Batch API lines. */
import type { ModelRequest } from '@hpt-bench/sdk';

/**
 * The body of `POST /v1/chat/completions` for `request` to model name `model`: messages, temperature, top_p,
 * max_tokens (or `max_completion_tokens` when `maxCompletionTokens` is set), `reasoning_effort` when set, seed when given, `logprobs: true` when asked, and `response_format: {type: 'json_schema', json_schema:
 * {name, schema, strict: true}}` for `responseFormat`. The request's `context` is never sent.
 */
export function chatRequestBody(model: string, request: ModelRequest) {
  return {
    model,
    messages: request.messages,
    temperature: request.temperature,
    top_p: request.topP,
    ...(request.maxCompletionTokens !== undefined ? { max_completion_tokens: request.maxCompletionTokens } : { max_tokens: request.maxTokens }),
    ...(request.reasoningEffort !== undefined ? { reasoning_effort: request.reasoningEffort } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    ...(request.logprobs ? { logprobs: true } : {}),
    ...(request.responseFormat
      ? { response_format: { type: 'json_schema' as const, json_schema: { name: request.responseFormat.name, schema: request.responseFormat.schema, strict: true } } }
      : {}),
  };
}
