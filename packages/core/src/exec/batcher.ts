/**
 * The batcher of `run --batch` (DESIGN.md "exec"): model calls that miss the cache are queued instead of sent; when
 * every sample in flight waits on a queued call (nothing else can progress), the queue is flushed as one round — its
 * lines written as one or more batch files (within the provider's limits), submitted through the model's `BatchModel`,
 * polled with backoff, and their results put in the model-call cache and handed to the waiting calls. The ladder engine
 * is unchanged: with every sample in flight at once, level 1 of all samples is one round, level 2 of the unsolved the
 * next, each chained call of a strategy (a step that needs the previous step's answer, a knowledge call, the selector's
 * call) its own round.
 *
 * Crash safety: each batch is recorded in the store (`batches` table, keyed by endpoint and batch id) once its input
 * file is uploaded (state `uploaded`) and again once created (`submitted`, with the provider's id); a run interrupted
 * while a batch is in flight and run again finds the batch by its custom ids (the calls' cache keys) and polls it
 * instead of submitting again — a batch recorded as `uploaded` only is looked up at the provider by its input file
 * (`BatchModel.find`) before it is created from that file; a batch whose results were consumed is marked so, and its
 * lines are cache hits. A batch lives at the endpoint that created it: a run resumed with another endpoint while one of
 * its batches is in flight is refused with one line naming the batch's endpoint (polling it there, or submitting its
 * calls again here, is the user's choice: `--base-url` or `--new`). A batch its endpoint no longer has (HTTP 404 for
 * it, or its uploaded file refused: a gateway restarted without its state) is marked `lost` and its calls are
 * submitted again.
 *
 * Untrusted output files: each call gets exactly one result per batch. A line that cannot be read is a failed line of
 * its call (the plugin names it when it can; a call left without any readable line fails the same way); several lines
 * for one call count once when they are identical and are a fault of that call when they differ; lines of calls the
 * batch does not hold are ignored. Such failed calls go into the next round like error lines, up to `maxRetries`.
 */
import { type BatchLineResult, type BatchModel, type BatchStatus, type BatchSummary, HptError, isModelCallError, type Logger, type Model, ModelCallError, type ModelRequest, type ModelResponse } from '@hpt-bench/sdk';
import type { StoredBatch, StoredBatchState } from '../store/batches.js';
import type { CallCache } from '../store/cache.js';
import { splitBatchLines } from './batch-file.js';
import { cacheable, endpointForCache } from './cache-key.js';

/**
 * The store operations the batcher needs (`RunStore` has them; store/batches.ts): batches are known by endpoint
 * (credential-free, null for none) and id together.
 */
export interface BatchLedger {
  recordBatch(batch: Omit<StoredBatch, 'state' | 'outputFileId' | 'errorFileId' | 'finishedAt'> & { state?: 'uploaded' | 'submitted' }): void;
  assignBatch(endpoint: string | null, uploadedId: string, batchId: string): void;
  updateBatch(endpoint: string | null, id: string, state: StoredBatchState, extra?: { outputFileId?: string; errorFileId?: string; finishedAt?: string }): void;
  unconsumedBatches(model: string): StoredBatch[];
}

/**
 * Options of a `Batcher`:
 * - `ledger`: where batches are recorded (the run store), given lazily (`() => store`) so the store opens on first use;
 * - `cache`: the model-call cache every successful line goes into (absent with `--no-cache`);
 * - `maxRetries`: how many later rounds a failed (retryable) or expired line is sent again in before its call fails;
 * - `pollMs`: first wait between two polls of a batch (default 5000); it grows ×1.5 per poll up to `maxPollMs`
 *   (default 60000);
 * - `limits`: per-file limits below the provider's (tests); `sleep`: the wait (tests); `logger`: round messages;
 * - `onRound`: told of each round after its batches are submitted (round number, lines per model id, batches).
 */
export interface BatcherOptions {
  ledger: () => BatchLedger;
  cache?: CallCache;
  maxRetries: number;
  pollMs?: number;
  maxPollMs?: number;
  limits?: { maxRequests?: number; maxBytes?: number };
  sleep?: (ms: number) => Promise<void>;
  logger?: Logger;
  onRound?(info: BatchRoundInfo): void;
}

/** One flushed round: its 1-based number, the custom ids queued per model id, and the batches submitted and picked up. */
export interface BatchRoundInfo {
  round: number;
  customIds: Record<string, string[]>;
  submitted: number;
  resumed: number;
}

/** What a batcher did: the counts of the SDK's `BatchSummary` (see there for the meaning of each), without the costs. */
export type BatcherStats = Omit<BatchSummary, 'onlineCost' | 'saving'>;

/** Default first poll interval: 5 s. */
export const DEFAULT_BATCH_POLL_MS = 5000;
/** Default longest poll interval: 60 s. */
export const DEFAULT_BATCH_MAX_POLL_MS = 60_000;

interface Waiter {
  resolve(r: ModelResponse): void;
  reject(e: unknown): void;
}

interface Queued {
  customId: string;
  model: Model;
  request: ModelRequest;
  waiters: Waiter[];
  tries: number;
  queuedAt: number;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What makes two result lines of one call the same: the response as the plugin parsed it (text, usage, finish
 * reason, ...), or the error's kind, status and message. Provider line and request ids are not part of it, so a line
 * written twice counts once.
 */
function fingerprintOf(r: BatchLineResult): string {
  return 'response' in r ? JSON.stringify({ response: r.response }) : JSON.stringify({ error: [r.error.kind, r.error.status ?? null, r.error.message] });
}

/** A provider's final batch states. */
const FINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);

/**
 * The queue and round loop of `run --batch` (see the module comment). The run's executor reports its sample lanes
 * (`laneStarted` / `laneEnded`); model clients queue calls with `enqueue` and wrap every wait on a queued call in
 * `block`. A round is flushed when some call is queued and every lane is blocked (checked one macrotask after any
 * change, so a sample that is scoring or being read holds the round back).
 */
export class Batcher {
  /** the run the batches belong to (recorded with them); set by the executor once known */
  runId: string | undefined;
  private readonly counters: BatcherStats = { rounds: 0, batches: 0, requests: 0, resumedBatches: 0, retriedLines: 0, failedLines: 0 };
  private readonly queue = new Map<string, Queued>();
  private active = 0;
  private blocked = 0;
  private flushing = false;
  private scheduled = false;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: BatcherOptions) {
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** A snapshot of the counters. */
  get stats(): BatcherStats {
    return { ...this.counters };
  }

  /** A sample lane of the executor started (it is working on, or reading, a sample until `laneEnded`). */
  laneStarted(): void {
    this.active++;
    this.schedule();
  }

  /** A sample lane of the executor ended (no more samples). */
  laneEnded(): void {
    this.active--;
    this.schedule();
  }

  /** Await `p`, counting its caller as blocked on a queued call meanwhile. */
  async block<T>(p: Promise<T>): Promise<T> {
    this.blocked++;
    this.schedule();
    try {
      return await p;
    } finally {
      this.blocked--;
    }
  }

  /**
   * Queue one call of `model` (which must have a `batch` interface) under `customId` (the call's cache key; unique per
   * distinct request): identical ids share one line. Resolves with the line's response (`batched: true`, `latencyMs`
   * from queueing to the result) once its round is done.
   * @throws (rejects) the line's `ModelCallError` when it failed and no retry is left (or was not retryable); a
   *   `HptError` of the provider that ends the run (`E_AUTH`, `E_ENDPOINT`).
   */
  enqueue(model: Model, customId: string, request: ModelRequest): Promise<ModelResponse> {
    if (!model.batch) return Promise.reject(new HptError('E_CONFIG', `model ${model.id} has no batch interface: run it without --batch`, { exitCode: 2 }));
    return new Promise<ModelResponse>((resolve, reject) => {
      const q = this.queue.get(customId);
      if (q) q.waiters.push({ resolve, reject });
      else this.queue.set(customId, { customId, model, request, waiters: [{ resolve, reject }], tries: 0, queuedAt: performance.now() });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.flushing && this.queue.size && this.blocked >= this.active) void this.flush();
    });
  }

  /** One round: take the queue, batch it per model, wait for every batch, hand the results out. */
  private async flush(): Promise<void> {
    this.flushing = true;
    const round = ++this.counters.rounds;
    const items = [...this.queue.values()];
    this.queue.clear();
    const byModel = new Map<Model, Queued[]>();
    for (const q of items) {
      const list = byModel.get(q.model);
      if (list) list.push(q);
      else byModel.set(q.model, [q]);
    }
    const info: BatchRoundInfo = { round, customIds: {}, submitted: 0, resumed: 0 };
    const results = new Map<string, BatchLineResult>();
    let fatal: unknown;
    try {
      // every model's stored batches first: a refusal (a batch of this run at another endpoint) comes before any upload
      const unread = new Map<Model, StoredBatch[]>();
      for (const [model, list] of byModel) {
        const stored = this.options.ledger().unconsumedBatches(model.id);
        this.refuseMovedBatches(model, list, stored);
        unread.set(model, stored);
      }
      await Promise.all(
        [...byModel].map(async ([model, list]) => {
          info.customIds[model.id] = list.map((q) => q.customId);
          for (const r of await this.runModelRound(model, list, unread.get(model)!, round, info)) results.set(r.customId, r);
        }),
      );
    } catch (e) {
      fatal = e;
    }
    for (const q of items) {
      if (fatal !== undefined) {
        for (const w of q.waiters) w.reject(fatal);
        continue;
      }
      const r = results.get(q.customId);
      if (r && 'response' in r) {
        const response: ModelResponse = { ...r.response, batched: true, latencyMs: performance.now() - q.queuedAt };
        for (const w of q.waiters) w.resolve(response);
        continue;
      }
      const error = r && 'error' in r ? r.error : new ModelCallError('timeout', `batch line ${q.customId} of model ${q.model.id} has no result`);
      if (error.retryable && q.tries < this.options.maxRetries) {
        q.tries++;
        this.counters.retriedLines++;
        const again = this.queue.get(q.customId);
        if (again) again.waiters.push(...q.waiters);
        else this.queue.set(q.customId, q);
      } else {
        this.counters.failedLines++;
        for (const w of q.waiters) w.reject(error);
      }
    }
    this.flushing = false;
    this.schedule();
  }

  /**
   * Refuse a round holding calls that only a batch of this run at another endpoint holds (`stored`: the model's
   * unread batches): the run was resumed with another base URL while that batch was in flight. Polling it there would
   * take this endpoint's credentials to another host, and submitting its calls here would pay for them twice; which
   * one is the user's choice.
   * @throws HptError `E_CONFIG` (exit code 2), one line naming the batch, its endpoint and both ways on.
   */
  private refuseMovedBatches(model: Model, list: Queued[], stored: StoredBatch[]): void {
    if (this.runId === undefined) return;
    const endpoint = endpointForCache(model.endpoint);
    const here = new Set<string>();
    for (const b of stored) if (b.endpoint === endpoint) for (const id of b.customIds) here.add(id);
    const queued = new Set(list.map((q) => q.customId).filter((id) => !here.has(id)));
    const moved = stored.filter((b) => b.runId === this.runId && b.endpoint !== endpoint && b.customIds.some((id) => queued.has(id)));
    if (!moved.length) return;
    const first = moved[0]!;
    const there = first.endpoint ?? '(no endpoint)';
    const calls = new Set(moved.flatMap((b) => b.customIds.filter((id) => queued.has(id)))).size;
    const more = moved.length > 1 ? ` and ${moved.length - 1} more batch${moved.length > 2 ? 'es' : ''}` : '';
    throw new HptError(
      'E_CONFIG',
      `run ${this.runId} has batch ${first.id}${more} in flight at ${there} (${calls} call${calls === 1 ? '' : 's'} of ${model.id}), but its endpoint is now ${endpoint ?? '(none)'}: run the same command with --base-url ${there} to collect the batch (already paid for), or with --new to submit its calls again at ${endpoint ?? 'the new endpoint'}`,
      { exitCode: 2 },
    );
  }

  /**
   * The batches of one model in one round: lines already held by an unconsumed stored batch at the model's endpoint
   * (an interrupted run's; `stored` are the model's unread batches) are taken from it; the others are encoded, split
   * within the limits, and submitted. Every batch is polled to its end, its results are read (one per call, see
   * `oneResultPerCall`), the successful ones put in the cache, and the batch marked consumed.
   */
  private async runModelRound(model: Model, list: Queued[], stored: StoredBatch[], round: number, info: BatchRoundInfo): Promise<BatchLineResult[]> {
    const api = model.batch!;
    const ledger = this.options.ledger();
    const endpoint = endpointForCache(model.endpoint);
    const held = new Map<string, StoredBatch>();
    for (const b of stored) {
      if (b.endpoint !== endpoint) continue;
      for (const id of b.customIds) if (!held.has(id)) held.set(id, b);
    }
    /** the batches of this round and the custom ids each holds */
    const batches = new Map<string, string[]>();
    const uploaded = new Map<string, StoredBatch>();
    const fresh: Queued[] = [];
    for (const q of list) {
      const b = held.get(q.customId);
      if (!b) fresh.push(q);
      else if (b.state === 'uploaded') uploaded.set(b.id, b);
      else batches.set(b.id, b.customIds);
    }
    // uploaded by an interrupted run, perhaps created too: find it, else create it from the file uploaded then; a file
    // the endpoint refuses (gone: a gateway restarted without its state) is given up and its calls uploaded again
    for (const b of uploaded.values()) {
      const inputFileId = b.inputFileId!;
      try {
        const found = api.find ? await this.retrying(`looking up the batch of file ${inputFileId}`, () => api.find!(inputFileId)) : undefined;
        const id = found ?? (await this.createOnce(api, model, inputFileId));
        ledger.assignBatch(endpoint, b.id, id);
        batches.set(id, b.customIds);
      } catch (e) {
        if (!isModelCallError(e) || e.retryable) throw e;
        this.options.logger?.warn(`the batch of ${model.id} uploaded as file ${inputFileId}${endpoint ? ` to ${endpoint}` : ''} by an interrupted run cannot be created (${e.message}); its calls are uploaded again`);
        ledger.updateBatch(endpoint, b.id, 'lost');
        for (const q of list) if (held.get(q.customId) === b) fresh.push(q);
      }
    }
    info.resumed += batches.size;
    this.counters.resumedBatches += batches.size;
    const out: BatchLineResult[] = [];
    const submittedBefore = this.counters.batches;
    if (fresh.length) {
      const lines = fresh.map((q) => api.encode({ customId: q.customId, request: q.request }));
      const limits = {
        maxRequests: Math.min(api.limits.maxRequests, this.options.limits?.maxRequests ?? Infinity),
        maxBytes: Math.min(api.limits.maxBytes, this.options.limits?.maxBytes ?? Infinity),
      };
      const { chunks, tooLarge } = splitBatchLines(lines, limits);
      for (const i of tooLarge) {
        out.push({ customId: fresh[i]!.customId, error: new ModelCallError('client', `the request of call ${fresh[i]!.customId} is larger than a batch file may be (${limits.maxBytes} bytes)`) });
      }
      for (const chunk of chunks) {
        const inputFileId = await this.retrying(`uploading a batch file of ${chunk.length} requests to ${model.id}`, () => api.upload(chunk.map((i) => lines[i]!)));
        const uploadedId = `file:${inputFileId}`;
        const customIds = chunk.map((i) => fresh[i]!.customId);
        ledger.recordBatch({ id: uploadedId, state: 'uploaded', runId: this.runId ?? null, round, model: model.id, endpoint, inputFileId, customIds, submittedAt: new Date().toISOString() });
        const id = await this.createOnce(api, model, inputFileId);
        ledger.assignBatch(endpoint, uploadedId, id);
        this.counters.batches++;
        this.counters.requests += chunk.length;
        info.submitted++;
        batches.set(id, customIds);
      }
    }
    this.options.onRound?.(info);
    const picked = batches.size - (this.counters.batches - submittedBefore);
    this.options.logger?.info(`batch round ${round}: ${list.length} calls of ${model.id} in ${batches.size} batch${batches.size === 1 ? '' : 'es'}${picked ? ` (${picked} picked up from an interrupted run)` : ''}; waiting for the results (within the provider's window, up to 24 h)`);
    const collected = await Promise.all([...batches].map(([id, ids]) => this.collect(model, endpoint, id, ids)));
    for (const c of collected) out.push(...c);
    return out;
  }

  /**
   * Create a batch from uploaded file `inputFileId`; a failed attempt may still have created it (e.g. a timeout after
   * the provider accepted it), so before trying again the batch is looked up by its file (`find`, when the provider
   * has it).
   */
  private async createOnce(api: BatchModel, model: Model, inputFileId: string): Promise<string> {
    let tried = false;
    return this.retrying(`creating a batch of ${model.id} from file ${inputFileId}`, async () => {
      if (tried && api.find) {
        const found = await api.find(inputFileId);
        if (found) return found;
      }
      tried = true;
      return api.create(inputFileId);
    });
  }

  /**
   * Poll batch `id` of `model` at `endpoint` (holding `customIds`) to a final state, read its results (one per call:
   * `oneResultPerCall`), cache the successful ones, and mark it consumed. A batch the provider refused as a whole
   * (`failed`) gives each of its lines a retryable `server` error with the provider's reason.
   */
  private async collect(model: Model, endpoint: string | null, id: string, customIds: string[]): Promise<BatchLineResult[]> {
    const api = model.batch!;
    const ledger = this.options.ledger();
    let wait = this.options.pollMs ?? DEFAULT_BATCH_POLL_MS;
    const maxWait = Math.max(wait, this.options.maxPollMs ?? DEFAULT_BATCH_MAX_POLL_MS);
    let status: BatchStatus;
    for (;;) {
      try {
        status = await this.retrying(`polling batch ${id} of ${model.id}`, () => api.status(id));
      } catch (e) {
        if (isModelCallError(e) && e.kind === 'client' && e.status === 404) return this.gone(model, endpoint, id, customIds, e);
        throw e;
      }
      if (FINAL.has(status.state)) break;
      await this.sleep(wait);
      wait = Math.min(maxWait, wait * 1.5);
    }
    const finishedAt = new Date().toISOString();
    ledger.updateBatch(endpoint, id, status.state as StoredBatchState, { ...(status.outputFileId ? { outputFileId: status.outputFileId } : {}), ...(status.errorFileId ? { errorFileId: status.errorFileId } : {}), finishedAt });
    let results: BatchLineResult[];
    if (status.state === 'failed') {
      const why = `batch ${id} of ${model.id} failed: ${status.message ?? 'no reason given'}`;
      this.options.logger?.warn(`${why}; its calls are sent again in the next round (up to --max-retries)`);
      results = customIds.map((customId) => ({ customId, error: new ModelCallError('server', why) }));
    } else {
      const lines = await this.retrying(`reading the results of batch ${id}`, () => api.results(status));
      results = this.oneResultPerCall(model, endpoint, id, status, customIds, lines);
    }
    const cache = this.options.cache;
    if (cache) for (const r of results) if ('response' in r && cacheable({ ...r.response })) cache.put(r.customId, model.id, model.endpoint, r.response);
    ledger.updateBatch(endpoint, id, 'consumed');
    return results;
  }

  /**
   * Batch `id` at `endpoint` is unknown there (`status` failed with a `client` error of status 404: e.g. a gateway
   * restarted without its state): it is marked `lost`, and each of its calls gets a retryable error, so they go into the
   * next round (submitted again: the provider did not keep them).
   */
  private gone(model: Model, endpoint: string | null, id: string, customIds: string[], why: ModelCallError): BatchLineResult[] {
    this.options.ledger().updateBatch(endpoint, id, 'lost', { finishedAt: new Date().toISOString() });
    const message = `batch ${id} of ${model.id} is gone: ${why.message}`;
    this.options.logger?.warn(`${message}; its ${customIds.length} call${customIds.length === 1 ? ' is' : 's are'} sent again in the next round (up to --max-retries)`);
    return customIds.map((customId) => ({ customId, error: new ModelCallError('server', message) }));
  }

  /**
   * One result per call of batch `id` (holding `customIds`) from the lines of its output and error files (`lines`, as
   * the provider wrote them; untrusted):
   * - lines of custom ids the batch does not hold are ignored (warned about);
   * - several lines for one call count once when they are identical (same response, or same error); when they differ
   *   the call has no trustworthy answer: a retryable `server` error naming the number of different results (warned);
   * - a call without a line: in a `completed` batch its line was missing or unreadable: a retryable `server` error
   *   (warned); in an `expired` or `cancelled` batch it did not run in time: a retryable `timeout`;
   * - failed lines (error lines, unreadable lines the plugin could attribute) are warned about, once per batch.
   * Retryable errors go into the next round like error lines, up to `maxRetries` rounds.
   */
  private oneResultPerCall(model: Model, endpoint: string | null, id: string, status: BatchStatus, customIds: string[], lines: BatchLineResult[]): BatchLineResult[] {
    const where = `batch ${id} of ${model.id}${endpoint ? ` at ${endpoint}` : ''}`;
    const mine = new Set(customIds);
    const byCall = new Map<string, { result: BatchLineResult; fingerprint: string }[]>();
    let strangers = 0;
    for (const line of lines) {
      if (!mine.has(line.customId)) {
        strangers++;
        continue;
      }
      const seen = byCall.get(line.customId);
      const entry = { result: line, fingerprint: fingerprintOf(line) };
      if (seen) seen.push(entry);
      else byCall.set(line.customId, [entry]);
    }
    const warn = (m: string) => this.options.logger?.warn(m);
    if (strangers) warn(`${where} returned ${strangers} line${strangers === 1 ? '' : 's'} for calls it does not hold; ignored`);
    const out: BatchLineResult[] = [];
    const conflicts: string[] = [];
    const missing: string[] = [];
    const failed: ModelCallError[] = [];
    for (const customId of customIds) {
      const seen = byCall.get(customId);
      if (!seen) {
        missing.push(customId);
        const error =
          status.state === 'completed'
            ? new ModelCallError('server', `${where} returned no readable result for call ${customId} (its line was missing or unreadable)`)
            : new ModelCallError('timeout', `${where} did not run call ${customId} (the batch ${status.state === 'expired' ? 'expired' : 'was cancelled'} before it ran)`);
        out.push({ customId, error });
        continue;
      }
      const distinct = new Set(seen.map((e) => e.fingerprint)).size;
      if (distinct > 1) {
        conflicts.push(customId);
        out.push({ customId, error: new ModelCallError('server', `${where} returned ${distinct} different results for call ${customId}; its answer is not trusted`) });
        continue;
      }
      const result = seen[0]!.result;
      if ('error' in result) failed.push(result.error);
      out.push(result);
    }
    const next = 'sent again in the next round (up to --max-retries)';
    if (conflicts.length) {
      const first = conflicts[0]!;
      const k = new Set(byCall.get(first)!.map((e) => e.fingerprint)).size;
      warn(`${where} returned ${k} different results for call ${first}${conflicts.length > 1 ? ` (and different results for ${conflicts.length - 1} more call${conflicts.length === 2 ? '' : 's'})` : ''}; ${conflicts.length === 1 ? 'it is' : 'they are'} ${next}`);
    }
    if (missing.length && status.state === 'completed') warn(`${where}: ${missing.length} of its ${customIds.length} calls have no readable result line; ${missing.length === 1 ? 'it is' : 'they are'} ${next}`);
    if (failed.length) warn(`${where}: ${failed.length} of its ${customIds.length} lines failed (first: ${failed[0]!.message}); the retryable ones are ${next}`);
    return out;
  }

  /** `f()`, tried again after a backoff on a retryable `ModelCallError` (up to `maxRetries` times); other errors at once. */
  private async retrying<T>(what: string, f: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await f();
      } catch (e) {
        if (!isModelCallError(e) || !e.retryable || attempt >= this.options.maxRetries) throw e;
        const delay = Math.min(this.options.maxPollMs ?? DEFAULT_BATCH_MAX_POLL_MS, (this.options.pollMs ?? DEFAULT_BATCH_POLL_MS) * 2 ** attempt);
        this.options.logger?.warn(`${what} failed (${e.message}); trying again in ${(delay / 1000).toFixed(1)} s`);
        await this.sleep(delay);
      }
    }
  }
}
