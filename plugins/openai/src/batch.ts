/**
 * The OpenAI Batch API for `run --batch` (https://platform.openai.com/docs/guides/batch): request lines as JSONL
 * (`{custom_id, method: 'POST', url: '/v1/chat/completions', body}`), uploaded with the Files API (`purpose: 'batch'`),
 * submitted with the Batches API (`completion_window: '24h'`), polled, and the output and error files read back line by
 * line (streamed: an output file can be far larger than one string may be).
 */
import OpenAI, { APIError, toFile } from 'openai';
import { type BatchLineResult, type BatchModel, type BatchRequestLine, type BatchStatus, HptError, isModelCallError, ModelCallError, type ModelRequest, type ModelResponse, otherModelReason, servesModel } from '@hpt-bench/sdk';
import { chatRequestBody } from './request.js';
import { completionFromBody, oneLine } from './response.js';

/** The Batch API's limits per input file: 50,000 requests and 200 MB. */
export const OPENAI_BATCH_FILE_LIMITS = Object.freeze({ maxRequests: 50_000, maxBytes: 200 * 1024 * 1024 });

/** The JSONL line (no newline) asking model name `model` for `request` under `customId`. */
export function batchRequestLine(model: string, customId: string, request: ModelRequest): string {
  return JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: chatRequestBody(model, request) });
}

/** What parsing an output or error file needs: the endpoint and model name (for messages) and the completion cap in bytes. */
export interface BatchParseContext {
  endpoint: string;
  model: string;
  maxResponseBytes: number;
  /** the name the endpoint gives `model` (`--served-model`; see `CompletionContext.servedModel`) */
  servedModel?: string;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The custom_id of a line that is not a readable result (cut short, or broken JSON after its custom_id): the value of
 * its first `"custom_id": "..."` pair, when one can be made out, else undefined.
 */
export function salvageCustomId(line: string): string | undefined {
  const m = /"custom_id"\s*:\s*("(?:[^"\\\u0000-\u001f]|\\.)*")/.exec(line);
  if (!m) return undefined;
  try {
    const id = JSON.parse(m[1]!) as unknown;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One line of a batch output or error file, `{id, custom_id, response: {status_code, body} | null, error: {code,
 * message} | null}`, as a `BatchLineResult`:
 * - status 200: the body through `completionFromBody` (checked like an online answer); a body that is not a chat
 *   completion is a retryable `server` error of that line, and one whose `model` names another model than the one
 *   asked for (`servesModel`) a non-retryable `client` error;
 * - another status: `rate-limit` (429), `timeout` (408), `server` (5xx), else `client` (not retried);
 * - no response, with an `error` (e.g. `batch_expired`): a retryable `timeout` naming the code;
 * - a line that is not JSON, or not an object with a string custom_id (a garbled or truncated line): a failed line, a
 *   retryable `server` error of the call whose custom_id can still be read from it (`salvageCustomId`).
 * @returns undefined for a blank line, and for an unreadable line that names no custom_id (its call is then left
 *   without a result, which the batcher treats as a failed line too).
 */
export function parseBatchLine(line: string, ctx: BatchParseContext): BatchLineResult | undefined {
  if (!line.trim()) return undefined;
  let data: unknown;
  let unreadable: string | undefined;
  try {
    data = JSON.parse(line);
    if (!isObject(data) || typeof data.custom_id !== 'string') unreadable = 'without a custom_id';
  } catch {
    unreadable = 'that is not JSON';
  }
  if (unreadable !== undefined || !isObject(data)) {
    const customId = salvageCustomId(line);
    if (customId === undefined) return undefined;
    return { customId, error: new ModelCallError('server', `${ctx.endpoint} (model ${ctx.model}) returned a batch result line ${unreadable ?? 'that is not an object'} for call ${customId}: ${oneLine(line, 200)}`) };
  }
  const customId = data.custom_id as string;
  const where = `${ctx.endpoint} (model ${ctx.model}, batch line ${customId})`;
  const response = isObject(data.response) ? data.response : undefined;
  const error = isObject(data.error) ? data.error : undefined;
  if (response) {
    const status = typeof response.status_code === 'number' ? response.status_code : 0;
    if (status === 200) {
      let completion: Omit<ModelResponse, 'latencyMs'>;
      try {
        completion = completionFromBody(response.body, { endpoint: ctx.endpoint, model: ctx.model, maxResponseBytes: ctx.maxResponseBytes, ...(ctx.servedModel !== undefined ? { servedModel: ctx.servedModel } : {}) });
      } catch (e) {
        if (isModelCallError(e)) return { customId, error: e };
        return { customId, error: new ModelCallError('server', `${where}: ${(e as Error).message}`) };
      }
      // answered by another model than the one asked for (`servesModel`): not retried, never scored or cached
      if (!servesModel(ctx.model, completion.model)) return { customId, error: new ModelCallError('client', `${where} ${otherModelReason(ctx.model, completion.model!)}`) };
      return { customId, response: completion };
    }
    const body = isObject(response.body) ? response.body : {};
    const detail = isObject(body.error) && typeof body.error.message === 'string' ? oneLine(body.error.message, 300) : 'no message';
    const message = `HTTP ${status} from ${where}: ${detail}`;
    if (status === 429) return { customId, error: new ModelCallError('rate-limit', message, { status }) };
    if (status === 408) return { customId, error: new ModelCallError('timeout', message, { status }) };
    if (status >= 500 || status === 0) return { customId, error: new ModelCallError('server', message, { status }) };
    return { customId, error: new ModelCallError('client', message, { status }) };
  }
  const code = error && typeof error.code === 'string' ? error.code : 'unknown';
  const message = error && typeof error.message === 'string' ? oneLine(error.message, 300) : 'no result';
  return { customId, error: new ModelCallError('timeout', `${where} did not run (${code}: ${message})`) };
}

/** Every result of a JSONL batch file's text (`parseBatchLine` per line; blank lines and unreadable lines naming no custom_id skipped). */
export function parseBatchFile(text: string, ctx: BatchParseContext): BatchLineResult[] {
  const out: BatchLineResult[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const r = parseBatchLine(text.slice(start, end), ctx);
    if (r) out.push(r);
    start = end + 1;
  }
  return out;
}

/** The lines of a streamed body (UTF-8), without their newlines. */
async function* bodyLines(body: ReadableStream<Uint8Array> | null): AsyncGenerator<string> {
  if (!body) return;
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    rest += decoder.decode(chunk, { stream: true });
    let nl = rest.indexOf('\n');
    while (nl >= 0) {
      yield rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      nl = rest.indexOf('\n');
    }
  }
  rest += decoder.decode();
  if (rest) yield rest;
}

/** How many of the newest batches `find` looks through: 1000. */
const FIND_SCAN = 1000;

/** Provider states that are not final, and the final ones by name. */
const PENDING = new Set(['validating', 'in_progress', 'finalizing', 'cancelling']);

/**
 * `BatchModel` of an OpenAI-compatible endpoint (see the module comment). `explain` turns an SDK error into the
 * plugin's `ModelCallError` / `HptError` (the chat model's own mapping), so the Files and Batches calls fail like a chat
 * call does.
 */
export class OpenAIBatch implements BatchModel {
  readonly limits = OPENAI_BATCH_FILE_LIMITS;

  /**
   * @param client an openai SDK client without a response-size cap (output files are large; they are streamed)
   * @param ctx the endpoint, model name and completion cap (`BatchParseContext`)
   * @param explain maps an SDK error to the error to throw
   */
  constructor(private readonly client: OpenAI, private readonly ctx: BatchParseContext, private readonly explain: (e: unknown) => Error) {}

  /** `batchRequestLine` for this model. */
  encode(line: BatchRequestLine): string {
    return batchRequestLine(this.ctx.model, line.customId, line.request);
  }

  /** Upload `lines` as one JSONL file (Files API, `purpose: 'batch'`); returns the file id. */
  async upload(lines: string[]): Promise<string> {
    try {
      const file = await this.client.files.create({ file: await toFile(Buffer.from(`${lines.join('\n')}\n`, 'utf8'), 'hpt-bench-batch.jsonl', { type: 'application/jsonl' }), purpose: 'batch' });
      return file.id;
    } catch (e) {
      throw this.explain(e);
    }
  }

  /** Create a batch on `/v1/chat/completions` with the 24 h completion window from uploaded file `inputFileId`. */
  async create(inputFileId: string): Promise<string> {
    try {
      const batch = await this.client.batches.create({ input_file_id: inputFileId, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { source: 'hpt-bench' } });
      return batch.id;
    } catch (e) {
      throw this.explain(e);
    }
  }

  /** The id of a batch created from `inputFileId`, looked for in the newest `FIND_SCAN` batches of the account (`GET /v1/batches`). */
  async find(inputFileId: string): Promise<string | undefined> {
    try {
      let seen = 0;
      for await (const b of this.client.batches.list({ limit: 100 })) {
        if (b.input_file_id === inputFileId) return b.id;
        if (++seen >= FIND_SCAN) return undefined;
      }
      return undefined;
    } catch (e) {
      throw this.explain(e);
    }
  }

  /**
   * The batch's state: validating / in_progress / finalizing / cancelling are `pending`; the others are final.
   * @throws ModelCallError `client` with status 404 when the endpoint's Batch API does not know the batch (any more:
   *   HTTP 404 for it while listing batches works); otherwise the chat model's mapping of the error (`explain`).
   */
  async status(id: string): Promise<BatchStatus> {
    let b: OpenAI.Batches.Batch;
    try {
      b = await this.client.batches.retrieve(id);
    } catch (e) {
      if (e instanceof APIError && e.status === 404) {
        // the Batch API answers (its list does) but does not know this batch: it is gone there
        try {
          await this.client.batches.list({ limit: 1 });
        } catch (probe) {
          throw this.explain(probe);
        }
        throw new ModelCallError('client', `${this.ctx.endpoint} has no batch ${oneLine(id, 100)} (HTTP 404): it is gone there (e.g. a gateway restarted without its state)`, { status: 404 });
      }
      throw this.explain(e);
    }
    if (PENDING.has(b.status)) return { state: 'pending' };
    if (b.status !== 'completed' && b.status !== 'failed' && b.status !== 'expired' && b.status !== 'cancelled') {
      throw new HptError('E_ENDPOINT', `${this.ctx.endpoint} answered batch ${id} with an unknown status ${oneLine(String(b.status), 50)}`);
    }
    const message = b.errors?.data?.map((d) => d.message).filter(Boolean).join('; ');
    return { state: b.status, ...(b.output_file_id ? { outputFileId: b.output_file_id } : {}), ...(b.error_file_id ? { errorFileId: b.error_file_id } : {}), ...(message ? { message } : {}) };
  }

  /**
   * The results in the batch's output and error files, streamed and parsed line by line (`parseBatchLine`): a garbled
   * line is a failed line of its call, or left out when it names none; several lines of one call are all returned
   * (the batcher decides what they mean).
   */
  async results(status: BatchStatus): Promise<BatchLineResult[]> {
    const out: BatchLineResult[] = [];
    for (const fileId of [status.outputFileId, status.errorFileId]) {
      if (!fileId) continue;
      try {
        const response = await this.client.files.content(fileId);
        for await (const line of bodyLines(response.body)) {
          const r = parseBatchLine(line, this.ctx);
          if (r) out.push(r);
        }
      } catch (e) {
        throw isModelCallError(e) ? e : this.explain(e);
      }
    }
    return out;
  }
}
