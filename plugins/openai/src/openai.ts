import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { inject, injectable } from 'tsyringe';
import { HptError, ModelCallError, parseRetryAfter, Tokens, type Json, type Model, type ModelRequest, type ModelResponse } from '@hpt-bench/core';

/** Options of the `openai` model contribution (validated against its manifest schema). */
export interface OpenAIModelOptions {
  /** endpoint base URL, e.g. http://127.0.0.1:8000/v1; default: OPENAI_BASE_URL, else the SDK's default (api.openai.com) */
  baseUrl?: string;
  /** name of the environment variable holding the API key; default OPENAI_API_KEY */
  apiKeyEnv?: string;
  /** per-request timeout in milliseconds; default 600000 */
  timeoutMs?: number;
  /**
   * retries inside the openai SDK; default 0. hpt-bench's ModelClient retries failed calls itself (backoff, retry-after,
   * adaptive concurrency on 429 — issue #5), so leave this at 0 under `hpt-bench run`: SDK retries would hide 429s from
   * the limiter and multiply the retry budget. Useful only when the model is used on its own.
   */
  maxRetries?: number;
}

/**
 * A chat model behind any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server, LM Studio, Together...),
 * through the official openai SDK. Model id `openai:<model>`. The API key is read from the environment only and never
 * leaves this object (not in requests' records, errors, the store or logs).
 */
@injectable()
export class OpenAIChatModel implements Model {
  readonly id: string;
  /** The base URL requests go to (the cache key's endpoint and the unit of the adaptive concurrency limit; issue #5). */
  readonly endpoint: string;
  private readonly client: OpenAI;
  private readonly baseUrl: string;
  private readonly keyEnv: string;
  private readonly apiKey: string;

  /**
   * @throws HptError `E_CONFIG` when the model name is missing; `E_AUTH` when no API key is set and no local endpoint
   *   is configured.
   */
  constructor(@inject(Tokens.ModelName) private readonly model: string, @inject(Tokens.Options) options: Record<string, Json>) {
    const o = options as OpenAIModelOptions;
    if (!model) throw new HptError('E_CONFIG', 'the openai model needs a name: --model openai:<model>, e.g. openai:gpt-4o-mini');
    this.id = `openai:${model}`;
    this.keyEnv = o.apiKeyEnv ?? 'OPENAI_API_KEY';
    const baseURL = o.baseUrl ?? process.env.OPENAI_BASE_URL ?? undefined;
    this.baseUrl = baseURL ?? 'https://api.openai.com/v1';
    this.endpoint = this.baseUrl;
    const key = process.env[this.keyEnv];
    if (!key && !baseURL) {
      throw new HptError('E_AUTH', `no API key: set ${this.keyEnv} (or name another variable with --api-key-env), or point --base-url at a local OpenAI-compatible server`);
    }
    // Local servers (vLLM, Ollama, llama.cpp) accept any key; the SDK insists on one.
    this.apiKey = key ?? 'EMPTY';
    this.client = new OpenAI({ apiKey: this.apiKey, baseURL, timeout: o.timeoutMs ?? 600_000, maxRetries: o.maxRetries ?? 0 });
  }

  /**
   * One chat completion. Sends messages, temperature, top_p, max_tokens, seed, logprobs when asked, and
   * `response_format: {type: 'json_schema', json_schema: {name, schema, strict: true}}` for `responseFormat`.
   * @throws `ModelCallError` (retryable by the ModelClient, issue #5 item 3): `rate-limit` on HTTP 429 (with
   *   `retryAfterMs` from `retry-after-ms` / `retry-after`), `server` on 5xx, `timeout` when no answer came within
   *   `timeoutMs` (or HTTP 408), `connection` when the endpoint is unreachable or dropped the connection; not retryable:
   *   `client` on other 4xx (e.g. 400 context length, 422). `HptError` `E_AUTH` on HTTP 401/403 and `E_ENDPOINT` when the
   *   endpoint does not know the model (404) or answers without choices: these end the run. Messages never contain the key.
   */
  async generate(request: ModelRequest): Promise<ModelResponse> {
    const started = performance.now();
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create({
        model: this.model,
        messages: request.messages,
        temperature: request.temperature,
        top_p: request.topP,
        max_tokens: request.maxTokens,
        ...(request.seed !== undefined ? { seed: request.seed } : {}),
        ...(request.logprobs ? { logprobs: true } : {}),
        ...(request.responseFormat
          ? { response_format: { type: 'json_schema' as const, json_schema: { name: request.responseFormat.name, schema: request.responseFormat.schema, strict: true } } }
          : {}),
      });
    } catch (e) {
      throw this.explain(e);
    }
    const choice = completion.choices?.[0];
    if (!choice) throw new HptError('E_ENDPOINT', `${this.baseUrl} returned no choices for model ${this.model}`);
    const logprobs = choice.logprobs?.content?.map((t) => t.logprob);
    return {
      text: choice.message?.content ?? '',
      ...(logprobs && logprobs.length ? { logprobs } : {}),
      usage: { promptTokens: completion.usage?.prompt_tokens ?? 0, completionTokens: completion.usage?.completion_tokens ?? 0 },
      finishReason: choice.finish_reason ?? 'unknown',
      latencyMs: performance.now() - started,
    };
  }

  private explain(e: unknown): HptError {
    const redact = (s: string) => (this.apiKey && this.apiKey !== 'EMPTY' ? s.split(this.apiKey).join('[redacted]') : s);
    const where = `${this.baseUrl} (model ${this.model})`;
    // APIConnectionTimeoutError extends APIConnectionError: test it first
    if (e instanceof APIConnectionTimeoutError) {
      return new ModelCallError('timeout', `request to ${this.baseUrl} timed out (model ${this.model}); raise --timeout or check the server`);
    }
    if (e instanceof APIConnectionError) {
      return new ModelCallError(
        'connection',
        `cannot reach ${this.baseUrl} (${redact(String((e.cause as Error | undefined)?.message ?? e.message))}); check --base-url / OPENAI_BASE_URL and that the server is running`,
      );
    }
    if (e instanceof APIError) {
      const status = e.status;
      if (status === 401 || status === 403) {
        return new HptError('E_AUTH', `HTTP ${status} from ${this.baseUrl}: the API key in ${this.keyEnv} was rejected; set a valid key (or --api-key-env NAME)`);
      }
      if (status === 404) return new HptError('E_ENDPOINT', `HTTP 404 from ${this.baseUrl}: model '${this.model}' or the chat completions route was not found`);
      const message = `HTTP ${status ?? '?'} from ${where}: ${redact(e.message)}`;
      const retryAfterMs = parseRetryAfter(e.headers);
      const extra = { ...(status !== undefined ? { status } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
      if (status === 429) return new ModelCallError('rate-limit', message, extra);
      if (status === 408) return new ModelCallError('timeout', message, extra);
      if (status === undefined || status >= 500) return new ModelCallError('server', message, extra);
      return new ModelCallError('client', message, extra);
    }
    // not an SDK error: the body could not be read (connection dropped mid-response) or was not JSON
    const cause = (e as Error | undefined)?.cause as Error | undefined;
    const detail = redact(`${(e as Error)?.message ?? String(e)}${cause?.message ? ` (${cause.message})` : ''}`);
    if (e instanceof SyntaxError) return new ModelCallError('server', `${where} answered with a malformed response: ${detail}`);
    return new ModelCallError('connection', `request to ${this.baseUrl} failed: ${detail}`);
  }
}
