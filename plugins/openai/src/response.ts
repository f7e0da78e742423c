/**
 * Turning whatever an OpenAI-compatible endpoint answered into a `ModelResponse`: the body is
 * untrusted JSON, so every field is checked and normalised here instead of trusted by type.
 */
import { HptError, ModelCallError, type ModelResponse } from '@hpt-bench/sdk';
import { tooLargeMessage } from './http.js';

/** Default of the `maxResponseBytes` option (`--max-response-bytes`): 4 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Largest accepted `maxResponseBytes` (256 MiB; the options schema's maximum): a body must fit in one JS string. */
export const MAX_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

/**
 * What `completionFromBody` needs besides the body: the endpoint and model (for messages), the size cap in bytes, and
 * the response's `content-type` (to say what came instead of JSON).
 */
export interface CompletionContext {
  endpoint: string;
  model: string;
  maxResponseBytes: number;
  contentType?: string | null;
  /**
   * the name the endpoint gives `model` in its answers, when it names it otherwise (`servedModel` option,
   * `--served-model`: an Azure deployment answering with its model's name, llama-server without `--alias`)
   */
  servedModel?: string;
}

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `null`, `array`, or `typeof v`. */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Control characters (C0, DEL, C1): never shown raw (terminal escapes). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** A lone surrogate (a high one not followed by a low one, or a low one not preceded by a high one). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with lone surrogates replaced by U+FFFD, so it encodes as valid UTF-8 (what `String#toWellFormed` does). */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * A token count from a usage object: a finite number in [0, 2^53) rounded to the nearest integer; anything else
 * (missing, null, negative, NaN, ±Infinity — JSON's `1e400` —, beyond 2^53, strings, arrays) is 0.
 */
export function tokenCount(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER ? Math.round(v) : 0;
}

/**
 * The text of a chat message's `content`:
 * - a string: itself; `null` / absent: `''` (e.g. a refusal, a tool call, or a reasoning model that spent `max_tokens`
 *   on reasoning — scored as an empty answer, not an error);
 * - an array of content parts (some servers answer so): the `text` of its text parts (`{type: 'text' | 'output_text',
 *   text}` or `{text}` without a type) and its bare strings, joined without a separator; parts of other types
 *   (`thinking`, `reasoning`, `image_url`, `refusal`, ...) are skipped;
 * - anything else (number, boolean, object, an array holding a number/null/nested array or a text part whose `text`
 *   is not a string): `ModelCallError` `client` (not retried: the sample is recorded as errored) — `<where> returned a
 *   non-text message content (<type>)`, `<type>` being e.g. `number` or `array containing number`.
 */
export function messageText(content: unknown, where: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  const nonText = (what: string) => new ModelCallError('client', `${where} returned a non-text message content (${what}); the answer cannot be scored`);
  if (!Array.isArray(content)) throw nonText(typeName(content));
  let out = '';
  for (const part of content) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    if (isObject(part)) {
      const type = part.type;
      if (type === undefined || type === 'text' || type === 'output_text') {
        if (typeof part.text === 'string') {
          out += part.text;
          continue;
        }
      } else if (typeof type === 'string') {
        continue; // a non-text part: reasoning, image, audio, refusal...
      }
    }
    throw nonText(`array containing ${typeName(part)}`);
  }
  return out;
}

/**
 * A `ModelResponse` (without `latencyMs`) from a parsed chat-completions body, checked field by field:
 * - the body must be a JSON object with a non-empty `choices` array whose first element is an object, else HptError
 *   `E_ENDPOINT` (the endpoint does not speak chat completions: the run ends, as for an unknown model);
 * - `text`: `messageText(choices[0].message.content)` with lone surrogates replaced by U+FFFD; longer than
 *   `maxResponseBytes` UTF-8 bytes: `ModelCallError` `client` `response larger than <N> bytes (--max-response-bytes)`;
 * - `logprobs`: `choices[0].logprobs.content[].logprob` when all are finite numbers, else omitted;
 * - `reasoning`: `choices[0].message.reasoning_content` (DeepSeek, older vLLM) or `.reasoning` (newer vLLM, OpenRouter)
 *   when it is a non-empty string (issue #24);
 * - `usage`: `prompt_tokens` and `completion_tokens` through `tokenCount` (missing/invalid -> 0, rounded), and
 *   `completion_tokens_details.reasoning_tokens` as `reasoningTokens` when present (OpenAI, o-series and GPT-5);
 * - `finishReason`: `choices[0].finish_reason` when it is a short identifier (`[A-Za-z0-9_.:-]{1,64}`), else `unknown`;
 * - `model`: the body's `model` (the model that served the answer, as the endpoint names it) when it is a non-empty
 *   string, else omitted (a server that leaves it out, or sends a non-string, reports no model); a body naming
 *   `ctx.servedModel` reports `ctx.model` (the endpoint was declared to serve the asked model under that name). Not
 *   judged here: the core compares it with the model the run asked for (`servesModel`).
 * @throws HptError `E_ENDPOINT`; ModelCallError `client` (non-text content, text over the cap)
 */
export function completionFromBody(data: unknown, ctx: CompletionContext): Omit<ModelResponse, 'latencyMs'> {
  const where = `${ctx.endpoint} (model ${ctx.model})`;
  if (!isObject(data)) {
    let got: string;
    if (data === undefined || data === null || data === '') got = data === null ? 'JSON null' : 'an empty body';
    else if (typeof data === 'string') got = `a non-JSON body (content-type ${(ctx.contentType ?? 'none').replace(CONTROL, ' ').slice(0, 100)})`;
    else got = `a JSON ${typeName(data)}`;
    throw new HptError('E_ENDPOINT', `${where} did not answer with a chat completion (got ${got}); check --base-url: it should end with the API root, e.g. /v1`);
  }
  const choices = data.choices;
  const choice = Array.isArray(choices) ? choices[0] : undefined;
  if (!isObject(choice)) throw new HptError('E_ENDPOINT', `${ctx.endpoint} returned no choices for model ${ctx.model}`);
  const message = isObject(choice.message) ? choice.message : undefined;
  const text = wellFormed(messageText(message?.content, where));
  if (text.length > ctx.maxResponseBytes / 3 && Buffer.byteLength(text, 'utf8') > ctx.maxResponseBytes) {
    throw new ModelCallError('client', `${where}: ${tooLargeMessage(ctx.maxResponseBytes)}`);
  }
  const lp = isObject(choice.logprobs) ? choice.logprobs.content : undefined;
  let logprobs: number[] | undefined;
  if (Array.isArray(lp) && lp.length) {
    const values = lp.map((t) => (isObject(t) ? t.logprob : undefined));
    if (values.every((v): v is number => typeof v === 'number' && Number.isFinite(v))) logprobs = values;
  }
  const usage = isObject(data.usage) ? data.usage : {};
  const finish = choice.finish_reason;
  // thinking returned apart from the answer: `reasoning_content` (DeepSeek API, older vLLM), `reasoning` (newer vLLM,
  // OpenRouter); a string only (OpenRouter's structured `reasoning_details` are not read)
  const thought = [message?.reasoning_content, message?.reasoning].find((r): r is string => typeof r === 'string' && r !== '');
  const details = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : undefined;
  const reasoningTokens = details && details.reasoning_tokens !== undefined && details.reasoning_tokens !== null ? tokenCount(details.reasoning_tokens) : undefined;
  return {
    text,
    ...(thought !== undefined ? { reasoning: wellFormed(thought) } : {}),
    ...(logprobs ? { logprobs } : {}),
    usage: { promptTokens: tokenCount(usage.prompt_tokens), completionTokens: tokenCount(usage.completion_tokens), ...(reasoningTokens !== undefined ? { reasoningTokens } : {}) },
    finishReason: typeof finish === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(finish) ? finish : 'unknown',
    ...(typeof data.model === 'string' && data.model !== '' ? { model: data.model === ctx.servedModel ? ctx.model : data.model } : {}),
  };
}

/** `text` made safe for a one-line error message: control characters as spaces, at most `max` characters (then `…`). */
export function oneLine(text: string, max = 500): string {
  const flat = text.replace(CONTROL, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
