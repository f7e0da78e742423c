import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { HptError, ModelCallError, parseRetryAfter, Tokens, type Json, type Model, type ModelRequest, type ModelResponse, inject, injectable } from '@hpt-bench/sdk';
import { findTooLarge, parseBaseUrl, redactSecrets } from './http.js';
import { OpenAIBatch } from './batch.js';
import { chatRequestBody } from './request.js';
import { completionFromBody, DEFAULT_MAX_RESPONSE_BYTES, MAX_MAX_RESPONSE_BYTES, oneLine } from './response.js';
import { undiciFetch } from './transport.js';

/** Options of the `openai` model contribution (validated against its manifest schema). */
export interface OpenAIModelOptions {
  /**
   * endpoint base URL, e.g. http://127.0.0.1:8000/v1; default: OPENAI_BASE_URL, else the SDK's default (api.openai.com).
   * Must be http(s). User info (`http://user:pass@host/v1`) is sent as HTTP Basic auth (`Authorization: Basic ...`,
   * replacing the Bearer API key) and removed from `endpoint`; a query (`?api-version=...`) is sent with every request
   * and removed from `endpoint` too. Neither ever appears in an error message.
   */
  baseUrl?: string;
  /** name of the environment variable holding the API key; default OPENAI_API_KEY */
  apiKeyEnv?: string;
  /**
   * deadline of one request in milliseconds (`--timeout` × 1000), covering connecting, the headers AND the whole body
   * (a server that stalls or trickles after its headers is given up on); fractions are rounded up; default 600000, at
   * most 2^31 - 1. On expiry the request is aborted (socket closed) and a retryable `ModelCallError` `timeout` is
   * thrown. With `maxRetries` > 0 each of the SDK's attempts has its own deadline.
   */
  timeoutMs?: number;
  /**
   * retries inside the openai SDK; default 0. hpt-bench's ModelClient retries failed calls itself (backoff, retry-after,
   * adaptive concurrency on 429), so leave this at 0 under `hpt-bench run`: SDK retries would hide 429s from
   * the limiter and multiply the retry budget. Useful only when the model is used on its own. (The SDK counts a
   * response over `maxResponseBytes` as a failed connection, so it retries that too before the call fails.)
   */
  maxRetries?: number;
  /**
   * cap on a response, in bytes (`--max-response-bytes`; default 4 MiB = 4194304, at most 256 MiB): the body is read
   * incrementally (after content decoding) and the request aborted as soon as it exceeds the cap — or at once when its
   * Content-Length says so —, and a completion text longer than the cap in UTF-8 bytes is refused too. Either way the
   * call fails with a NON-retryable `ModelCallError` `client` "response larger than N bytes (--max-response-bytes)",
   * so the sample is recorded as errored. Error bodies (4xx/5xx) are read up to the cap as well.
   */
  maxResponseBytes?: number;
  /**
   * the name the endpoint gives the model in its answers' `model` field when it is not the name asked for nor a dated
   * snapshot of it (`--served-model`; an Azure deployment answering with its model's name, llama-server started
   * without `--alias` answering with its file): answers naming it count as answers of the model asked for
   */
  servedModel?: string;
}

/** Largest timer delay Node accepts (2^31 - 1 ms, ~24.8 days); longer delays would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** The default deadline of a request: 600000 ms (10 minutes, `--timeout 600`). */
export const DEFAULT_TIMEOUT_MS = 600_000;

/**
 * A chat model behind any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server, LM Studio, Together...),
 * through the official openai SDK. Model id `openai:<model>`. The API key is read from the environment only and never
 * leaves this object (not in requests' records, errors, the store or logs); credentials in the base URL are used for
 * Basic auth and never shown either (`endpoint` is credential-free).
 */
@injectable()
export class OpenAIChatModel implements Model {
  readonly id: string;
  /**
   * The base URL requests go to, without user info, query or fragment (scheme, host, port, path: e.g.
   * `http://127.0.0.1:8000/v1`): the cache key's endpoint, the unit of the adaptive concurrency limit, and
   * what errors name. Never contains credentials (DESIGN.md "Conventions": secrets).
   */
  readonly endpoint: string;
  /** The deadline of one request (headers + body), ms. */
  readonly timeoutMs: number;
  /** The response size cap, bytes. */
  readonly maxResponseBytes: number;
  /** The name the endpoint gives the model, when declared (`OpenAIModelOptions.servedModel`). */
  readonly servedModel?: string;
  /**
   * The OpenAI Batch API for `run --batch` (`OpenAIBatch`: Files API upload, Batches API on `/v1/chat/completions`
   * with a 24 h window, output and error files streamed back). An endpoint without it (404) ends the run with
   * `E_ENDPOINT`.
   */
  readonly batch: OpenAIBatch;
  private readonly client: OpenAI;
  private readonly keyEnv: string;
  /** strings no error message may contain: the API key and the base URL's credentials */
  private readonly secrets: string[];
  /** whether requests authenticate with the base URL's user info (HTTP Basic) instead of the API key */
  private readonly basicAuth: boolean;

  /**
   * @param model the model name sent to the endpoint (`openai:<model>` without the prefix)
   * @param options `OpenAIModelOptions`
   * @throws HptError `E_CONFIG` when the model name is missing or contains a control character, when the base URL is not
   *   an http(s) URL, or when `timeoutMs` / `maxResponseBytes` are out of range; `E_AUTH` when no API key is set and
   *   no endpoint is configured.
   */
  constructor(@inject(Tokens.ModelName) private readonly model: string, @inject(Tokens.Options) options: Record<string, Json>) {
    const o = options as OpenAIModelOptions;
    if (!model) throw new HptError('E_CONFIG', 'the openai model needs a name: --model openai:<model>, e.g. openai:gpt-4o-mini');
    const control = /[\u0000-\u001f\u007f-\u009f]/.exec(model);
    if (control) {
      const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
      throw new HptError('E_CONFIG', `the openai model name contains a control character (U+${code} at position ${control.index + 1}); model names are plain text`);
    }
    this.id = `openai:${model}`;
    this.keyEnv = o.apiKeyEnv ?? 'OPENAI_API_KEY';
    const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || timeoutMs > MAX_TIMER_MS) {
      throw new HptError('E_CONFIG', `timeoutMs must be a number of milliseconds in (0, ${MAX_TIMER_MS}], got ${String(timeoutMs)}`);
    }
    this.timeoutMs = Math.ceil(timeoutMs);
    const cap = o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (!Number.isSafeInteger(cap) || cap < 1 || cap > MAX_MAX_RESPONSE_BYTES) {
      throw new HptError('E_CONFIG', `--max-response-bytes must be an integer in [1, ${MAX_MAX_RESPONSE_BYTES}], got ${String(cap)}`);
    }
    this.maxResponseBytes = cap;
    if (o.servedModel !== undefined && (typeof o.servedModel !== 'string' || o.servedModel.trim() === '')) throw new HptError('E_CONFIG', '--served-model needs a model name');
    this.servedModel = o.servedModel;
    const configured = o.baseUrl ?? (process.env.OPENAI_BASE_URL || undefined); // an empty variable is unset
    const url = parseBaseUrl(configured ?? 'https://api.openai.com/v1', o.baseUrl !== undefined ? '--base-url' : 'OPENAI_BASE_URL');
    this.endpoint = url.endpoint;
    const key = process.env[this.keyEnv];
    if (!key && !configured) {
      throw new HptError('E_AUTH', `no API key: set ${this.keyEnv} (or name another variable with --api-key-env), or point --base-url at a local OpenAI-compatible server`);
    }
    this.secrets = [...url.secrets, ...(key ? [key] : [])];
    this.basicAuth = url.basicAuth !== undefined;
    this.client = new OpenAI({
      // Local servers (vLLM, Ollama, llama.cpp) accept any key; the SDK insists on one.
      apiKey: key ?? 'EMPTY',
      baseURL: url.requestBase,
      timeout: this.timeoutMs,
      maxRetries: o.maxRetries ?? 0,
      // the whole response is read under the deadline and the cap by the transport (transport.ts)
      fetch: undiciFetch({ maxBytes: cap, timeoutMs: this.timeoutMs }),
      ...(Object.keys(url.query).length ? { defaultQuery: url.query } : {}),
      ...(url.basicAuth ? { defaultHeaders: { Authorization: url.basicAuth } } : {}),
    });
    // batch files are far larger than one completion: their client has no size cap (results are streamed line by line)
    const batchClient = new OpenAI({
      apiKey: key ?? 'EMPTY',
      baseURL: url.requestBase,
      timeout: this.timeoutMs,
      maxRetries: o.maxRetries ?? 0,
      ...(Object.keys(url.query).length ? { defaultQuery: url.query } : {}),
      ...(url.basicAuth ? { defaultHeaders: { Authorization: url.basicAuth } } : {}),
    });
    this.batch = new OpenAIBatch(batchClient, { endpoint: this.endpoint, model, maxResponseBytes: cap, ...(o.servedModel !== undefined ? { servedModel: o.servedModel } : {}) }, (e) => {
      if (e instanceof APIError && e.status === 404) return new HptError('E_ENDPOINT', `HTTP 404 from ${this.endpoint}: the endpoint has no OpenAI Batch API (files / batches); run without --batch`);
      return this.explain(e);
    });
  }

  /**
   * One chat completion. Sends messages, temperature, top_p, max_tokens, seed, logprobs when asked, and
   * `response_format: {type: 'json_schema', json_schema: {name, schema, strict: true}}` for `responseFormat`.
   * The whole request (connect, headers, body) must finish within `timeoutMs`; the body is read at most
   * `maxResponseBytes` far. The answer is checked and normalised by `completionFromBody` (non-string content, usage
   * counts, finish reason, logprobs).
   * @returns `{text, logprobs?, usage: {promptTokens, completionTokens} (non-negative integers), finishReason, model?, latencyMs}`
   *   (`model`: the served model's name as the endpoint reported it, when it did; the core checks it)
   * @throws `ModelCallError` (retryable by the ModelClient): `rate-limit` on HTTP 429 (with
   *   `retryAfterMs` from `retry-after-ms` / `retry-after`), `server` on 5xx or a malformed body, `timeout` when the
   *   response (headers and body) was not complete within `timeoutMs` (or HTTP 408), `connection` when the endpoint is
   *   unreachable or dropped the connection; not retryable: `client` on other 4xx (e.g. 400 context length, 422), on a
   *   response over `maxResponseBytes`, and on non-text message content. `HptError` `E_AUTH` on HTTP 401/403 and
   *   `E_ENDPOINT` when the endpoint does not know the model (404) or answers without a chat completion: these end the
   *   run. Messages never contain the key or the base URL's credentials.
   */
  async generate(request: ModelRequest): Promise<ModelResponse> {
    const started = performance.now();
    let data: unknown;
    let contentType: string | null = null;
    try {
      const { data: body, response } = await this.client.chat.completions.create(chatRequestBody(this.model, request)).withResponse();
      data = body as unknown;
      contentType = response.headers.get('content-type');
    } catch (e) {
      throw this.explain(e);
    }
    return {
      ...completionFromBody(data, { endpoint: this.endpoint, model: this.model, maxResponseBytes: this.maxResponseBytes, contentType, ...(this.servedModel !== undefined ? { servedModel: this.servedModel } : {}) }),
      latencyMs: performance.now() - started,
    };
  }

  private timedOut(extra?: { status?: number }): ModelCallError {
    const seconds = Number((this.timeoutMs / 1000).toFixed(3));
    return new ModelCallError(
      'timeout',
      `request to ${this.endpoint} timed out after ${seconds} s (model ${this.model}; --timeout covers the whole response, headers and body); raise --timeout or check the server`,
      extra,
    );
  }

  private explain(e: unknown): HptError {
    const redact = (s: string) => oneLine(redactSecrets(s, this.secrets));
    const where = `${this.endpoint} (model ${this.model})`;
    const tooLarge = findTooLarge(e);
    if (tooLarge) return new ModelCallError('client', `${where}: ${tooLarge.message}`);
    // APIConnectionTimeoutError extends APIConnectionError: test it first
    if (e instanceof APIConnectionTimeoutError) return this.timedOut();
    if (e instanceof APIConnectionError) {
      return new ModelCallError(
        'connection',
        `cannot reach ${this.endpoint} (${redact(String((e.cause as Error | undefined)?.message ?? e.message))}); check --base-url / OPENAI_BASE_URL and that the server is running`,
      );
    }
    if (e instanceof APIError) {
      const status = e.status;
      if (status === 401 || status === 403) {
        if (this.basicAuth) return new HptError('E_AUTH', `HTTP ${status} from ${this.endpoint}: the user name and password in --base-url (sent as HTTP Basic auth) were rejected`);
        return new HptError('E_AUTH', `HTTP ${status} from ${this.endpoint}: the API key in ${this.keyEnv} was rejected; set a valid key (or --api-key-env NAME)`);
      }
      if (status === 404) return new HptError('E_ENDPOINT', `HTTP 404 from ${this.endpoint}: model '${this.model}' or the chat completions route was not found`);
      const message = `HTTP ${status ?? '?'} from ${where}: ${redact(e.message)}`;
      // a reasoning setting the endpoint refuses (issue #24) would fail every call alike: one usage error ends the run
      const refused = status === 400 || status === 422 ? refusedReasoningParam(e) : undefined;
      if (refused === 'max_tokens') {
        return new HptError('E_CONFIG', `${where} does not accept max_tokens (${message}); give --max-completion-tokens N for this model (reasoning models)`, { exitCode: 2 });
      }
      if (refused) {
        const flag = refused === 'reasoning_effort' ? '--reasoning-effort' : '--max-completion-tokens';
        return new HptError('E_CONFIG', `${where} does not accept ${refused} (${message}); run without ${flag} for this model`, { exitCode: 2 });
      }
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
    return new ModelCallError('connection', `request to ${this.endpoint} failed: ${detail}`);
  }
}

/** The token-budget and reasoning parameters an endpoint may refuse (issue #24). */
const REASONING_PARAMS = ['reasoning_effort', 'max_completion_tokens', 'max_tokens'] as const;

/**
 * The parameter a 400/422 error refuses, when it is one of `REASONING_PARAMS`: the error's `param` (OpenAI's
 * `invalid_request_error` with `param: "reasoning_effort"`), else the parameter its message names as unsupported
 * ("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead." names
 * max_tokens; "Unrecognized request argument supplied: reasoning_effort").
 */
function refusedReasoningParam(e: APIError): (typeof REASONING_PARAMS)[number] | undefined {
  const param = typeof e.param === 'string' ? e.param : undefined;
  const named = REASONING_PARAMS.find((p) => p === param);
  if (named) return named;
  const m = /(?:unsupported parameter|unrecognized request argument supplied|unknown (?:parameter|field))\W+(\w+)/i.exec(e.message) ?? /'(\w+)' is not supported/i.exec(e.message);
  return REASONING_PARAMS.find((p) => p === m?.[1]);
}
