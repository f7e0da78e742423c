/**
 * Inline thinking kept apart from the answer (issue #24): `splitThinking` on the shapes reasoning models write, and the
 * openai plugin's reading of the providers' reasoning fields and reasoning-token usage (`completionFromBody`), and the
 * check of the reasoning settings before a run (`probeReasoningSettings`).
 */
import { describe, expect, it } from 'vitest';
import { HptError, type Model, type ModelRequest, type ModelResponse, splitThinking } from '@hpt-bench/sdk';
import { PROBE_PROMPT, PROBE_TOKENS, probeReasoningSettings } from '../../packages/core/src/run/probe.js';
import { completionFromBody } from '../../plugins/openai/src/response.js';
import { chatRequestBody } from '../../plugins/openai/src/request.js';
import { cacheKey, cacheKeyMaterial } from '../../packages/core/src/exec/cache-key.js';

describe('splitThinking', () => {
  it('a reply without tags is returned as it is', () => {
    expect(splitThinking(' True ')).toEqual({ answer: ' True ', thinking: null, truncated: false });
    expect(splitThinking('I think the answer is B.')).toEqual({ answer: 'I think the answer is B.', thinking: null, truncated: false });
  });

  it('a closed block before the answer (Qwen3, R1 distills without a reasoning parser)', () => {
    expect(splitThinking('<think>\nIt is A. No, B.\n</think>\n\nThe answer is B.')).toEqual({ answer: 'The answer is B.', thinking: 'It is A. No, B.', truncated: false });
    expect(splitThinking('<THINKING>x</THINKING>True')).toEqual({ answer: 'True', thinking: 'x', truncated: false });
    expect(splitThinking('◁think▷x◁/think▷True')).toEqual({ answer: 'True', thinking: 'x', truncated: false });
  });

  it('a block after a preamble, and several blocks', () => {
    expect(splitThinking('Sure.\n<think>a</think>\nFalse')).toEqual({ answer: 'Sure.\n\nFalse', thinking: 'a', truncated: false });
    expect(splitThinking('<think>a</think>Step 1.<think>b</think> 42')).toEqual({ answer: 'Step 1. 42', thinking: 'a\n\nb', truncated: false });
  });

  it('a closing tag alone: the chat template opened the block in the prompt (DeepSeek-R1)', () => {
    expect(splitThinking('It is 16 - 7 = 9, times 2 = 18.\n</think>\n\n#### 18')).toEqual({ answer: '#### 18', thinking: 'It is 16 - 7 = 9, times 2 = 18.', truncated: false });
  });

  it('a reply that ends inside a block has no answer, even after a preamble', () => {
    expect(splitThinking('<think>\nFirst, A looks right, but')).toEqual({ answer: '', thinking: 'First, A looks right, but', truncated: true });
    expect(splitThinking('The answer is A.<think>hmm')).toEqual({ answer: '', thinking: 'hmm', truncated: true });
    expect(splitThinking('<think>a</think>B<think>c')).toEqual({ answer: '', thinking: 'a\n\nc', truncated: true });
  });
});

describe('completionFromBody: reasoning fields and reasoning tokens', () => {
  const ctx = { endpoint: 'http://127.0.0.1:1/v1', model: 'm', maxResponseBytes: 1 << 20 };
  const body = (message: Record<string, unknown>, usage: Record<string, unknown> = { prompt_tokens: 5, completion_tokens: 30 }) => ({ choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }], usage });

  it('reads message.reasoning_content (DeepSeek) and message.reasoning (vLLM, OpenRouter); never puts them in the text', () => {
    expect(completionFromBody(body({ content: 'B', reasoning_content: 'A? no, B' }), ctx)).toMatchObject({ text: 'B', reasoning: 'A? no, B' });
    expect(completionFromBody(body({ content: 'B', reasoning: 'A? no, B' }), ctx)).toMatchObject({ text: 'B', reasoning: 'A? no, B' });
    expect(completionFromBody(body({ content: 'B', reasoning: null }), ctx).reasoning).toBeUndefined();
    expect(completionFromBody(body({ content: 'B', reasoning: { effort: 'high' } }), ctx).reasoning).toBeUndefined();
  });

  it('reads usage.completion_tokens_details.reasoning_tokens (OpenAI) as reasoningTokens, part of completionTokens', () => {
    const r = completionFromBody(body({ content: 'B' }, { prompt_tokens: 5, completion_tokens: 30, completion_tokens_details: { reasoning_tokens: 24 } }), ctx);
    expect(r.usage).toEqual({ promptTokens: 5, completionTokens: 30, reasoningTokens: 24 });
    expect(completionFromBody(body({ content: 'B' }), ctx).usage).toEqual({ promptTokens: 5, completionTokens: 30 });
    expect(completionFromBody(body({ content: 'B' }, { prompt_tokens: 5, completion_tokens: 30, completion_tokens_details: { reasoning_tokens: null } }), ctx).usage.reasoningTokens).toBeUndefined();
  });
});

describe('reasoning settings on the wire and in the cache key', () => {
  const request = { messages: [{ role: 'user' as const, content: 'q' }], temperature: 1, topP: 1, maxTokens: 1024 };

  it('chatRequestBody sends reasoning_effort and max_completion_tokens (instead of max_tokens) only when set', () => {
    expect(chatRequestBody('o4-mini', request)).toEqual({ model: 'o4-mini', messages: request.messages, temperature: 1, top_p: 1, max_tokens: 1024 });
    expect(chatRequestBody('o4-mini', { ...request, reasoningEffort: 'high', maxCompletionTokens: 8000 })).toEqual({ model: 'o4-mini', messages: request.messages, temperature: 1, top_p: 1, max_completion_tokens: 8000, reasoning_effort: 'high' });
  });

  it('another effort or completion budget is another cache key; the keys of plain calls are unchanged', () => {
    const model = { id: 'openai:m' };
    const plain = cacheKeyMaterial(model, request);
    expect(plain).not.toContain('reasoning');
    const low = cacheKey(model, { ...request, reasoningEffort: 'low' });
    expect(new Set([cacheKey(model, request), low, cacheKey(model, { ...request, reasoningEffort: 'high' }), cacheKey(model, { ...request, reasoningEffort: 'low', maxCompletionTokens: 100 })]).size).toBe(4);
    expect(cacheKey(model, { ...request, reasoningEffort: 'low' })).toBe(low);
  });
});

describe('an endpoint that refuses a reasoning parameter', () => {
  it('names it from the error param or the message; advises --max-completion-tokens when max_tokens is refused', async () => {
    const { startOpenAIServer } = await import('../helpers/openai-server.js');
    const { OpenAIChatModel } = await import('../../plugins/openai/src/openai.js');
    const bodies = [
      { error: { message: 'Unrecognized request argument supplied: reasoning_effort', type: 'invalid_request_error', param: null } },
      { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: 'invalid_request_error', param: 'max_tokens' } },
      { error: { message: 'Unsupported parameter: max_completion_tokens', type: 'invalid_request_error', param: null } },
      { error: { message: "This model's maximum context length is 8192 tokens", type: 'invalid_request_error', param: 'messages' } },
    ];
    let i = 0;
    const server = await startOpenAIServer(() => ({ status: 400, body: bodies[i++] }));
    try {
      const model = new OpenAIChatModel('m', { baseUrl: server.url });
      const request = { messages: [{ role: 'user' as const, content: 'q' }], temperature: 1, topP: 1, maxTokens: 16 };
      const err = async () => model.generate(request).then(() => undefined, (e: Error & { code?: string }) => e);
      const a = await err();
      expect(a).toMatchObject({ code: 'E_CONFIG' });
      expect(a!.message).toMatch(/does not accept reasoning_effort .*run without --reasoning-effort/);
      const b = await err();
      expect(b!.message).toMatch(/does not accept max_tokens .*give --max-completion-tokens N/);
      const c = await err();
      expect(c!.message).toMatch(/does not accept max_completion_tokens .*run without --max-completion-tokens/);
      const d = await err();
      expect(d).not.toMatchObject({ code: 'E_CONFIG' });
    } finally {
      await server.close();
    }
  });
});

describe('probeReasoningSettings: the settings checked before the first sample', () => {
  const generation = { temperature: 0.6, topP: 0.9, maxTokens: 1024 };
  /** A model that records its requests and answers with `answer` (a function: may throw or never settle). */
  const fake = (answer: () => Promise<ModelResponse>, endpoint: string | null = 'http://127.0.0.1:1/v1') => {
    const seen: ModelRequest[] = [];
    const model: Model = { id: 'openai:m', ...(endpoint ? { endpoint } : {}), generate: (r) => (seen.push(r), answer()) };
    return { model, seen };
  };
  const ok = async (): Promise<ModelResponse> => ({ text: 'OK', usage: { promptTokens: 5, completionTokens: 1 }, finishReason: 'stop' });

  it('sends nothing without reasoning settings or to a model without an endpoint', async () => {
    const a = fake(ok);
    expect(await probeReasoningSettings(a.model, generation)).toBe(false);
    const b = fake(ok, null);
    expect(await probeReasoningSettings(b.model, { ...generation, reasoningEffort: 'high' })).toBe(false);
    expect([...a.seen, ...b.seen]).toEqual([]);
  });

  it('sends one short request with the run\'s settings, its budget capped at PROBE_TOKENS', async () => {
    const a = fake(ok);
    expect(await probeReasoningSettings(a.model, { ...generation, reasoningEffort: 'low', maxCompletionTokens: 4000 })).toBe(true);
    expect(a.seen).toEqual([{ ...generation, maxTokens: PROBE_TOKENS, reasoningEffort: 'low', maxCompletionTokens: PROBE_TOKENS, messages: [{ role: 'user', content: PROBE_PROMPT }] }]);
    const b = fake(ok);
    await probeReasoningSettings(b.model, { ...generation, maxTokens: 8, maxCompletionTokens: 10 });
    expect([b.seen[0]!.maxTokens, b.seen[0]!.maxCompletionTokens, b.seen[0]!.reasoningEffort]).toEqual([8, 10, undefined]);
  });

  it('throws the plugin\'s E_CONFIG (a refused parameter); any other failure, or no answer in time, lets the run go on', async () => {
    const refused = new HptError('E_CONFIG', 'does not accept reasoning_effort', { exitCode: 2 });
    await expect(probeReasoningSettings(fake(() => Promise.reject(refused)).model, { ...generation, reasoningEffort: 'high' })).rejects.toBe(refused);
    const down = fake(() => Promise.reject(new HptError('E_MODEL_CALL', 'connection refused')));
    expect(await probeReasoningSettings(down.model, { ...generation, reasoningEffort: 'high' })).toBe(true);
    const crashed = fake(() => Promise.reject(new TypeError('fetch failed')));
    expect(await probeReasoningSettings(crashed.model, { ...generation, reasoningEffort: 'high' })).toBe(true);
    const silent = fake(() => new Promise<ModelResponse>(() => undefined));
    const started = performance.now();
    expect(await probeReasoningSettings(silent.model, { ...generation, reasoningEffort: 'high' }, 50)).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });
});
