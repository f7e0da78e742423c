/**
 * Execution of a prepared run: the sample loop. Takes the run to write to (`openRun`), streams the samples through the
 * engine under bounded concurrency, stores each result, stops on an outage (`OutageBreaker`), and ends with the
 * summary (`summarize`) or the run marked failed.
 */
import { randomBytes } from 'node:crypto';
import { EXIT_CODES, HptError, isHptError, isModelCallError, type Json, type Logger, type RunSummary, type Sample, type SampleResult, splitThinking } from '@hpt-bench/sdk';
import { loadHubRows } from '../data/hub.js';
import { OutageBreaker } from '../exec/breaker.js';
import { EndpointSpread } from '../exec/endpoints.js';
import { forEachConcurrent } from '../exec/pool.js';
import { CLAIM_BLOCK } from '../store/claims.js';
import { withGenericInput } from '../prompt/pack.js';
import { dataFingerprint, replicatesOf, type RunConfig, type RunPlan, toStoredConfig } from './config.js';
import { checkBatchable } from './batch.js';
import { probeReasoningSettings } from './probe.js';
import { checkEndpointsReachable, type ReachTarget } from './reach.js';
import { buildFingerprint, fingerprintDifferences, parseFingerprint } from './fingerprint.js';
import { createEngine, type PreparedRun } from './resolve.js';
import { checkResumedSample, currentOwner, HEARTBEAT_MS, openRun, sampleHash } from './resume.js';
import { CLAIM_POLL_MS, leaveRun, RunShare } from './share.js';
import { credentialFreeUrl, redact } from './secrets.js';
import type { RunSession } from './session.js';
import { summarize } from './summary.js';

/** Progress of a run: samples done so far (and the limit when known), running HPI and accuracy. */
/**
 * The state of a running evaluation, as `RunHooks.onProgress` sees it after each finished or errored sample.
 * - `done`: samples finished by this invocation (scored); `errored`: samples whose calls failed after every retry;
 * - `total`: the samples this invocation has to evaluate (the stream's size times replicates, minus those a resumed run
 *   has recorded), known from the start: the data is read once before the run starts (`countSamples`; no calls);
 * - `solved`, `hpiSum`: of the `done` samples; `calls`: model calls of the `done` samples (cached ones included);
 * - `startedAt`: `performance.now()` when the first sample was started (for rates and the ETA);
 * - `workers`: the other workers seen executing the run with this one (run/share.ts), when there are any. `total`
 *   is then this worker's share: it drops by the samples of blocks the others took and grows by the blocks it takes
 *   over from a stopped worker, so it is reached when this worker's part is done.
 */
export interface RunProgress {
  done: number;
  total?: number;
  workers?: number;
  solved: number;
  hpiSum: number;
  errored: number;
  calls: number;
  startedAt: number;
}

/** Hooks of a running evaluation. */
export interface RunHooks {
  logger: Logger;
  onProgress?(p: RunProgress): void;
  /** Called with each finished sample, after it is stored. */
  onSample?(r: SampleResult): void;
  /** Strings to remove from any error text stored or shown (secrets such as an API key; see `urlSecrets` for a base URL's). */
  redact?: string[];
  /** Called once the run id is known (a new run, or the resumed one), before any sample. */
  onRun?(runId: string): void;
  /** Aborted: no further sample is started (`evaluate()` settles the store and reports the interruption). */
  signal?: AbortSignal;
}

/**
 * `run --batch`: the samples in flight at once (the lanes of the pool), at least `--concurrency`. With all of them in
 * flight a round holds one step of every sample of the window (50,000: a common per-file request limit of batch APIs).
 */
export const BATCH_WINDOW = 50_000;

/** A fresh run id: UTC timestamp plus random suffix, sortable by creation time. */
export function newRunId(): string {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  return `${t}-${randomBytes(3).toString('hex')}`;
}

/** Whether a sample's replies hold thinking blocks (`splitThinking`), which `--compat reference` scores as written (issue #24). */
function holdsThinking(r: SampleResult): boolean {
  return r.attempts.some((a) =>
    a.calls.some((c) => {
      const split = splitThinking(c.output);
      return split.thinking !== null || split.truncated;
    }),
  );
}

/** The reason a run whose samples all errored or that left errored samples did not complete. */
function incompleteReason(runId: string, errored: number, total: number, firstError: string | undefined): string {
  return `${errored} of ${total} samples errored (${firstError ?? 'see erroredSamples'}); run ${runId} is not complete: re-run the same command to retry them`;
}

/**
 * Execute a prepared run (manual HPF, or adaptive HPF with a selector: hpt.md §2.1, §2.3) in `session`: check the
 * scorer's environment (`Scorer.preflight`), read the first sample, check that something listens at every endpoint
 * (`checkEndpointsReachable`: one TCP connection each, no request), read the rest of the data through (`countSamples`:
 * a bad record anywhere fails here, and the count is the progress total) and, when reasoning settings are sent, check
 * that the endpoint accepts them (`probeReasoningSettings`) — an error in any of these, of the configuration, the data
 * or the endpoint, leaves no run row behind —, pick and take the run to write to (`openRun`: resume by configuration and data
 * content; a run live processes execute is joined, its samples shared by claimed blocks: run/share.ts), build the
 * engine with the session's model clients (cache, retries with backoff, AIMD concurrency per endpoint), stream samples
 * (up to `limit`, each `replicates` times) under bounded concurrency through the ladder (or the selector loop),
 * evaluating those of the blocks this worker claims, store each finished sample atomically, take over the blocks of
 * workers that died and wait until no block of the run is open, then compute the summary from the store (every worker
 * of a shared run returns the same figures; the first to finish marks the run).
 *
 * Outcomes:
 * - every sample scored: the run is `completed` and its summary returned with `complete: true`;
 * - some samples errored (their calls failed after every retry): the summary is returned with `complete: false` and
 *   the run is marked `failed` with the reason; re-running the same command continues it and redoes only those;
 * - the endpoint looks down (`OutageBreaker`: the first 3 samples, or `max(8, concurrency)` samples in a row after a
 *   success, all errored), no sample could be scored, a store write failed, the data changed under a resumed run, or
 *   any other error: the run is marked `failed` (best effort on a broken store) and the error is thrown — nothing is
 *   reported as a result, and the samples stored are kept for the resume. A worker of a shared run that other live
 *   workers carry on leaves the run `running` instead and releases its blocks to them (`leaveRun`).
 */
export async function executeRun(prepared: PreparedRun, session: RunSession, hooks: RunHooks, runId = newRunId(), plan: RunPlan = {}): Promise<RunSummary> {
  const dataHash = prepared.config.data ? await dataFingerprint(prepared.config.data) : undefined;
  const config: RunConfig = { ...prepared.config, ...(dataHash ? { dataHash } : {}) };
  const store = session.store;
  const owner = currentOwner();
  let skipped = 0;
  // everything that can fail on the configuration or the data's first record fails before a run row exists, so a
  // mistake never leaves a run to "resume": the scorer's environment check, then the first sample of the stream
  if (config.batch) checkBatchable(prepared);
  const preflight = prepared.scorer.preflight ? await prepared.scorer.preflight({ compat: config.compat, options: prepared.scorerOptions }) : undefined;
  const stream = sampleStream(prepared, config, (m) => {
    skipped++;
    hooks.logger.warn(m);
  })[Symbol.asyncIterator]();
  const first = await stream.next();
  if (first.done) throw new HptError('E_DATA', `dataset ${prepared.datasetId} yielded no samples${skipped ? ` (${skipped} skipped as invalid)` : ''}`);
  // an endpoint nothing listens on fails here in about a second, with one line (issue #25): one TCP connection each
  // — unless the cache holds answers of the model: re-running a finished run (a replay) needs no endpoint
  try {
    await checkEndpointsReachable(reachTargets(prepared), hooks.logger);
  } catch (e) {
    if (!(isHptError(e) && e.code === 'E_ENDPOINT' && session.cache?.holds(prepared.model.id))) throw e;
    hooks.logger.warn(`${e.message.replace(/ \(no run was started\)$/, '')}; going on, as the cache holds answers of ${prepared.model.id} (a call it does not hold will fail)`);
  }
  // the rest of the data is read once before the run exists, so a bad record N fails here too (issue #25); the
  // count is the progress total
  const streamedTotal = await countSamples(prepared, config);
  // stored with the run (not hashed): how many samples it will have, for progress read from the store (`hpt-bench view`)
  const storedConfig = { ...toStoredConfig(config, prepared.ladderIds), samplesTotal: streamedTotal };
  // a reasoning setting the endpoint refuses fails here, with one line, before the first sample (issue #24)
  await probeReasoningSettings(prepared.model, config.generation);
  const version = session.hptBenchVersion;
  const fingerprint = buildFingerprint(prepared, config, version ? { hptBenchVersion: version } : {});
  const opened = openRun(store, config, plan, runId, owner, { dataset: prepared.datasetId, model: prepared.model.id, mode: config.mode ?? 'manual', config: storedConfig, fingerprint: fingerprint as unknown as Record<string, Json> });
  runId = opened.runId;
  if (opened.resumed) warnChangedFingerprint(store.getRun(runId)?.fingerprint ?? null, fingerprint, runId, hooks.logger);
  if (opened.joined) hooks.logger.info(`joining run ${runId} as one more worker (with ${opened.joined.join(', ')}): samples are shared by blocks of ${CLAIM_BLOCK}; ${opened.skip.size} already recorded`);
  else if (opened.resumed) hooks.logger.info(`resuming run ${runId}: ${opened.skip.size} samples already recorded${opened.recorded.size > opened.skip.size ? `, redoing ${opened.recorded.size - opened.skip.size} errored` : ''}`);
  hooks.onRun?.(runId);
  // --batch: every sample of a window in flight at once, so each round holds one step of all of them
  const batcher = session.batcher;
  if (batcher) batcher.runId = runId;
  const share = new RunShare(store, runId, owner);
  const engine = createEngine(prepared, (m) => session.client(m));
  const baseTotal = Math.max(0, streamedTotal - opened.skip.size);
  // (no more lanes than samples to evaluate, when that is known)
  const lanes = batcher ? Math.max(config.concurrency, Math.min(BATCH_WINDOW, baseTotal)) : config.concurrency;
  /** samples of this invocation's stream left to other workers, and samples of blocks taken over from stopped ones */
  let elsewhere = 0;
  let takenOver = 0;
  const progress: RunProgress = { done: 0, total: baseTotal, solved: 0, hpiSum: 0, errored: 0, calls: 0, startedAt: performance.now(), ...(opened.joined ? { workers: opened.joined.length } : {}) };
  const refreshTotal = (): void => {
    progress.total = Math.max(0, baseTotal - elsewhere + takenOver);
  };
  /** the other workers seen executing the run during this invocation */
  const seen = new Set(opened.joined ?? []);
  const heartbeat = setInterval(() => {
    store.heartbeat(runId, owner);
    for (const w of share.heartbeat(hooks.logger)) seen.add(w);
    if (seen.size) progress.workers = seen.size;
  }, HEARTBEAT_MS);
  heartbeat.unref();
  let lastYield = performance.now();
  const breaker = new OutageBreaker(lanes);
  /** samples the first pass streamed (all of the run's, recorded or not) */
  let streamed = 0;
  /** --compat reference: whether the run has said that replies hold thinking blocks (once per run) */
  let toldThinking = false;
  /** whether the run stopped because the endpoint was down from the start (the outage breaker tripped before any success) */
  let downFromStart = false;
  try {
    if (preflight) store.setPreflight(runId, preflight);
    const all = prepend(first.value, stream);
    const samples = filterStream(all, (s) => {
      streamed++;
      if (opened.recorded.size) checkResumedSample(runId, s, sampleHash(s), opened.recorded.get(s.index));
      const skipped = opened.skip.has(s.index);
      const mine = share.admit(s.index, skipped);
      if (!mine && !skipped) {
        elsewhere++;
        refreshTotal();
      }
      return mine;
    });
    const evaluate = async (sample: Sample): Promise<void> => {
      if (hooks.signal?.aborted) throw new HptError('E_INTERRUPTED', 'the run was interrupted', { exitCode: EXIT_CODES.interrupted });
      const hash = sampleHash(sample);
      let result: SampleResult;
      try {
        result = await engine.climb(sample);
      } catch (e) {
        if (!isModelCallError(e)) throw e;
        const message = redact(e.message, hooks.redact);
        store.saveErrored(runId, sample, message, hash);
        share.finish(sample.index);
        if (breaker.failure(sample.index)) {
          if (!breaker.anySuccess) {
            downFromStart = true;
            throw e;
          }
          throw new HptError('E_ENDPOINT', `the last ${breaker.streak} samples all failed (last error: ${message}); ${prepared.model instanceof EndpointSpread ? 'all endpoints look' : 'the endpoint looks'} down, so run ${runId} stopped. Re-run the same command to continue it`, { exitCode: 1, cause: e });
        }
        // before any success the error may be an outage that ends the run: it is reported once, as the run's error
        if (breaker.anySuccess) hooks.logger.warn(`sample ${sample.id} errored: ${message}`);
        progress.errored++;
        hooks.onProgress?.(progress);
        return;
      }
      store.saveSample(runId, result, hash);
      share.finish(sample.index);
      if (config.compat === 'reference' && !toldThinking && holdsThinking(result)) {
        toldThinking = true;
        hooks.logger.warn('--compat reference: the replies hold thinking blocks (<think>…</think>); as in the authors\' code they are scored with their thinking (the default strict mode sets thinking apart and scores the answer)');
      }
      breaker.success();
      progress.done++;
      progress.hpiSum += result.hpi;
      progress.calls += result.attempts.reduce((n, a) => n + a.calls.length, 0) + (result.selections?.filter((x) => x.call).length ?? 0);
      if (result.solved) progress.solved++;
      hooks.onSample?.(result);
      hooks.onProgress?.(progress);
      // models that answer at once (baselines, the cache) never leave the microtask queue: give signals (Ctrl-C),
      // timers and the progress display a turn every 50 ms
      if (performance.now() - lastYield > 50) {
        await new Promise((r) => setImmediate(r));
        lastYield = performance.now();
      }
    };
    const laneHooks = batcher ? { started: () => batcher.laneStarted(), ended: () => batcher.laneEnded() } : undefined;
    await forEachConcurrent(samples, lanes, evaluate, laneHooks);
    share.endPass();
    // several workers: take over the blocks of stopped workers, and wait until no block of the run is open
    let waiting = false;
    for (;;) {
      const taken = share.takeOver();
      if (taken.size) {
        hooks.logger.info(`taking over ${taken.size} block(s) of run ${runId} from a stopped worker`);
        const again = filterStream(sampleStream(prepared, config, undefined, prepared.scanDataset), (s) => {
          const mine = share.admit(s.index, false, taken);
          if (mine) {
            takenOver++;
            refreshTotal();
          }
          return mine;
        });
        await forEachConcurrent(again, lanes, evaluate, laneHooks);
        share.endPass();
        continue;
      }
      const open = share.openBlocks();
      if (!open) break;
      if (!waiting) hooks.logger.info(`this worker's part of run ${runId} is done; waiting for the other workers' ${open} open block(s) (the run completes when every sample is recorded)`);
      waiting = true;
      await new Promise((r) => setTimeout(r, CLAIM_POLL_MS));
    }
    const agg = store.aggregate(runId);
    if (agg.samples === 0 && agg.errored === 0) throw new HptError('E_DATA', `dataset ${prepared.datasetId} yielded no samples${skipped ? ` (${skipped} skipped as invalid)` : ''}`);
    if (share.shared && agg.samples + agg.errored < streamed) {
      throw new HptError('E_STORE', `run ${runId} has ${agg.samples + agg.errored} of its ${streamed} samples recorded although no worker holds the others; re-run the same command to evaluate them`, { exitCode: 1 });
    }
    const erroredSamples = agg.errored ? store.erroredSamples(runId).slice(0, 20).map((e) => ({ sampleId: e.sampleId, error: e.error })) : [];
    if (agg.samples === 0) {
      throw new HptError('E_NO_RESULTS', `no sample could be scored: ${incompleteReason(runId, agg.errored, agg.errored, erroredSamples[0]?.error)}`, { exitCode: 1 });
    }
    const summary = summarize(prepared, config, runId, agg, erroredSamples, { skipped, resumed: opened.resumed, preflight, ...(batcher ? { batch: batcher.stats } : {}) }, store);
    if (prepared.model instanceof EndpointSpread) summary.endpoints = endpointSummary(prepared.model);
    // every worker of a shared run gets here with the same figures; the first marks the run
    store.exclusive(() => {
      if (store.getRun(runId)?.status === 'completed') return;
      if (summary.complete) store.finishRun(runId, summary as unknown as Record<string, Json>);
      else store.failRun(runId, incompleteReason(runId, agg.errored, agg.samples + agg.errored, erroredSamples[0]?.error));
    });
    share.leave('finished');
    if (share.shared) hooks.logger.info(`this worker of run ${runId} evaluated ${share.finished} samples in ${share.claims} claimed blocks (${share.takenOver} taken over from stopped workers; ${share.claimAttempts} claim statements)`);
    return summary;
  } catch (e) {
    // samples that errored only because the endpoint was down from the start are not kept as errored (the run's error
    // is the endpoint's, and names no count); when the run ends for another reason — e.g. every sample of a short run
    // errored ("2 of 2 samples errored") — they are kept, so `runs` and `runs show` count what the error says
    if (downFromStart && breaker.beforeSuccess.length && !store.failure) {
      try {
        store.deleteErrored(runId, breaker.beforeSuccess);
      } catch {
        // a broken store: they are redone by the resume anyway
      }
    }
    const message = redact(isHptError(e) ? e.message : `${(e as Error).name ?? 'Error'}: ${(e as Error).message ?? String(e)}`, hooks.redact);
    // with other live workers the run carries on without this one (its blocks are released); else it failed
    store.updateWorker(runId, owner, { samples: share.finished, claims: share.claims });
    if (leaveRun(store, runId, owner, message) === 'left') hooks.logger.warn(`this worker stopped (${message}); the other workers of run ${runId} carry on`);
    throw e;
  } finally {
    clearInterval(heartbeat);
  }
}

/** `RunSummary.endpoints` of a model served by several endpoints: its per-endpoint stats, URLs without credentials. */
function endpointSummary(spread: EndpointSpread): NonNullable<RunSummary['endpoints']> {
  return spread.stats().map((e) => ({ ...e, endpoint: credentialFreeUrl(e.endpoint) }));
}

/**
 * A resumed run keeps the fingerprint it was created with: say so when this invocation's plugins or hpt-bench version
 * differ from it (the results of the run then mix both).
 */
function warnChangedFingerprint(stored: Record<string, Json> | null, current: ReturnType<typeof buildFingerprint>, runId: string, logger: Logger): void {
  const before = parseFingerprint(stored);
  if (!before) return;
  const changed = fingerprintDifferences(before, current).filter((d) => d.field === 'hptBench' || d.field.startsWith('plugins.') || d.field.startsWith('prompts.'));
  if (changed.length) logger.warn(`run ${runId} was started with other versions (${changed.map((d) => `${d.field}: ${String(d.a)} then, ${String(d.b)} now`).join('; ')}); it keeps its original fingerprint`);
}

/**
 * The models of a prepared run that call endpoints, each with the flag that sets its endpoint, for
 * `checkEndpointsReachable`: the evaluated model, the knowledge model, the extractor (`--base-url`) and the selector's
 * model (`--selector-base-url` when given, else `--base-url`).
 */
export function reachTargets(prepared: PreparedRun): ReachTarget[] {
  const targets: ReachTarget[] = [{ model: prepared.model, flag: '--base-url' }, { model: prepared.knowledgeModel, flag: '--base-url' }];
  if (prepared.extractorModel) targets.push({ model: prepared.extractorModel, flag: '--base-url' });
  if (prepared.selector?.model) targets.push({ model: prepared.selector.model, flag: prepared.config.selectorBaseUrl ? '--selector-base-url' : '--base-url' });
  return targets;
}

/**
 * The number of samples a run's configuration streams (the dataset's records up to `limit`, times `replicates`), from
 * a separate pass over the data that makes no model calls, through `prepared.scanDataset` (the dataset's second
 * instance, whose own log messages are not shown: the run's pass shows them); invalid records skipped under
 * `--on-invalid skip` are not counted and not reported again. Generated datasets generate, files are read again, hub
 * data comes from the cache the run's own load filled. `executeRun` runs it before the run row exists, so a bad record
 * anywhere in the data ends the run before it starts. @throws what the dataset's `load` throws (`E_DATA` naming the
 * record).
 */
export async function countSamples(prepared: PreparedRun, config: RunConfig): Promise<number> {
  let n = 0;
  let lastYield = performance.now();
  for await (const _ of sampleStream(prepared, config, undefined, prepared.scanDataset)) {
    n++;
    // a generator that never waits keeps the event loop busy: give signals (Ctrl-C) and timers a turn every 50 ms
    if (performance.now() - lastYield > 50) {
      await new Promise((r) => setImmediate(r));
      lastYield = performance.now();
    }
  }
  return n;
}

/**
 * The samples a run's configuration streams, as `executeRun` streams them: the dataset's records (generic-pack inputs
 * filled in), up to `limit`, each `replicates` times (replicate r at index `input index * n + r`). Nothing is called;
 * `warn` receives the records skipped under `--on-invalid skip`; `dataset` is the instance read (default
 * `prepared.dataset`). @throws what the dataset's `load` throws.
 */
export function sampleStream(prepared: PreparedRun, config: RunConfig, warn: (message: string) => void = () => undefined, dataset = prepared.dataset): AsyncGenerator<Sample> {
  const loaded = dataset.load({
    data: config.data,
    split: config.split,
    onInvalid: config.onInvalid,
    cacheDir: config.cacheDir,
    hubRows: (source) => loadHubRows(source, { cacheDir: config.cacheDir }),
    warn,
    seed: config.seed,
    compat: config.compat,
    filters: config.filters ?? {},
  });
  return replicate(limitStream(prepared.genericPack ? mapStream(loaded, (sample) => withGenericInput(sample, prepared.pack)) : loaded, config.limit), replicatesOf(config));
}

/** `head`, then the rest of `rest` (a stream whose first item was taken to check it). */
async function* prepend<T>(head: T, rest: AsyncIterator<T>): AsyncGenerator<T> {
  yield head;
  for (let r = await rest.next(); !r.done; r = await rest.next()) yield r.value;
}

/** Keep the items of a stream that pass `keep`. */
async function* filterStream<T>(items: AsyncIterable<T>, keep: (x: T) => boolean): AsyncGenerator<T> {
  for await (const x of items) if (keep(x)) yield x;
}

/**
 * Yield each sample `n` times (replicates r = 0..n-1) with `index` = input index * n + r (unique, input order) and
 * `meta.replicate` = r; n = 1 yields the samples unchanged.
 */
async function* replicate(items: AsyncIterable<Sample>, n: number): AsyncGenerator<Sample> {
  if (n <= 1) {
    yield* items;
    return;
  }
  for await (const s of items) {
    for (let r = 0; r < n; r++) yield { ...s, index: s.index * n + r, meta: { ...(s.meta ?? {}), replicate: r } };
  }
}

/** Apply `f` to each item of a stream. */
async function* mapStream<T, U>(items: AsyncIterable<T>, f: (x: T) => U): AsyncGenerator<U> {
  for await (const x of items) yield f(x);
}

/** Yield at most `limit` items of `items` (all when undefined). */
async function* limitStream<T>(items: AsyncIterable<T>, limit: number | undefined): AsyncGenerator<T> {
  if (limit === undefined) {
    yield* items;
    return;
  }
  let n = 0;
  if (n >= limit) return;
  for await (const x of items) {
    yield x;
    if (++n >= limit) return;
  }
}
