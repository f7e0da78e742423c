/**
 * The dry run of `hpt-bench plan` (issue 16): for a prepared run, what `executeRun` would do — how many samples, how
 * many are already stored in the run it would continue, how many level-1 calls the model-call cache already answers,
 * the upper bound of calls, an estimate from an earlier run, and the estimated cost — without calling any model and
 * without writing to the store (it is read only when it exists).
 */
import type { Json, Model, ModelRequest, ModelResponse, Sample } from '@hpt-bench/sdk';
import { cacheKey } from '../exec/cache-key.js';
import { LadderEngine } from '../ladder/engine.js';
import { cacheLookup } from '../store/cache.js';
import { type RunRecord, RunStore } from '../store/store.js';
import { storeExists } from '../store/location.js';
import { configHashes, dataFingerprint, type RunConfig } from './config.js';
import { sampleStream } from './execute.js';
import { buildFingerprint, dataIdentity } from './fingerprint.js';
import { checkPowerTarget, planPower, type PowerPlan, type PowerTarget } from './power.js';
import { ladderSetup, type PreparedRun } from './resolve.js';
import { DEFAULT_BATCH_PRICE_FACTOR } from './summary.js';

/** A run of the store a plan refers to. */
export interface PlanRunRef {
  runId: string;
  status: string;
}

/**
 * The plan of one run configuration (one cell of a matrix). Counts are of samples (a sample × replicate is one
 * sample) and of model calls (selector calls included in adaptive mode).
 */
export interface RunPlanEstimate {
  dataset: string;
  model: string;
  /** the ladder's strategy ids, level 1 first */
  ladder: string[];
  mode: 'manual' | 'adaptive';
  seed: number;
  /** the resume hash of the configuration (`configHash`, with the data's content) */
  configHash: string;
  /** samples the configuration streams (records up to the limit × replicates) */
  samples: number;
  /** of `samples`, those already scored in `storedIn` (errored ones are redone, so not counted) */
  stored: number;
  /**
   * the run `run` would continue (the newest unfinished run of this hash, `status` running or failed), or a completed
   * run of this hash when there is no unfinished one (then `run` would start a new run answered from the cache, and
   * `remaining` counts every sample as the new run's); undefined when the store holds no run of this configuration
   */
  storedIn?: PlanRunRef & { continued: boolean };
  /** samples `run` would evaluate: `samples - stored` when it continues a run, else `samples` */
  remaining: number;
  /**
   * of `remaining`, the samples whose level-1 call is in the model-call cache (its key computed from the assembled
   * level-1 request, without calling the model); null when not checked: adaptive mode (the selector picks the first
   * level), `--no-cache`, or a model without an endpoint (baselines are never cached); 0 when the store does not exist yet
   */
  cached: number | null;
  /**
   * the most calls one sample can make: every level climbed (adaptive: m iterations × (selector call + the largest
   * level)); with `--full-ladder` also the calls it makes (every level runs)
   */
  maxCallsPerSample: number;
  /** calls of each level for one sample, level 1 first (counted by running its strategy against a stand-in model) */
  callsPerLevel: number[];
  /** `remaining × maxCallsPerSample` */
  callsUpperBound: number;
  /**
   * `remaining ×` the calls per sample of `estimateFrom`, else the upper bound; the cached level-1 calls are not
   * subtracted. `--full-ladder` (every level runs on every sample): the estimate comes only from an earlier
   * full-ladder run, else it is the upper bound; an early-exit plan never takes it from a full-ladder run
   */
  callsEstimate: number;
  /**
   * the earlier completed run (same dataset, ladder, mode and `--full-ladder` setting, any model) the estimate and its
   * tokens per call come from
   */
  estimateFrom?: PlanRunRef & { model: string; callsPerSample: number };
  /**
   * estimated tokens of `callsEstimate` (prompt / completion): from `estimateFrom`'s tokens per call, else prompt =
   * level-1 prompt characters / 4 and completion = max tokens per call; `reasoning` (of completion) when `estimateFrom`
   * reported reasoning tokens (issue #24)
   */
  tokens: { prompt: number; completion: number; reasoning?: number };
  /** USD of the estimated tokens at the model's price (the batch price with `--batch`), with prices (`--prices`); undefined without */
  cost?: number;
  /**
   * with `PlanOptions.power` (`plan --detect` / `--detect-accuracy`): the samples a paired comparison on this data needs
   * and whether `samples` is enough (`planPower`)
   */
  power?: PowerPlan;
}

/** Options of `planRun`. */
export interface PlanOptions {
  /** the SQLite store `run` would use; read only when the file exists (a plan never creates it) */
  storePath: string;
  /** plan the sample size of a paired comparison as well (`planPower`; `RunPlanEstimate.power`) */
  power?: PowerTarget;
}

/** The request a stand-in model recorded, with the model it was meant for. */
interface ProbedCall {
  model: Model;
  request: ModelRequest;
}

/**
 * Plan a prepared run without calling a model (see `RunPlanEstimate` for each field). Streams the configuration's
 * samples once (files are read again, generated datasets generate, hub data comes from the cache directory, downloading
 * when missing as a run would), runs each ladder level's strategy on the first sample against a stand-in model that
 * records the requests and answers an empty text (the number of calls of the level), and, for each remaining sample,
 * the level-1 strategy the same way to compute its cache key.
 * With `options.power`, also the sample size of a paired comparison on the run's data (`planPower`, from the store's
 * completed runs of the same data identity as the run's fingerprint).
 * @throws what the dataset's `load` throws; HptError `E_STORE` for a store file that is not an hpt-bench store;
 *   HptError `E_CONFIG` for an invalid `options.power` (`checkPowerTarget`), before any data is read.
 */
export async function planRun(prepared: PreparedRun, options: PlanOptions): Promise<RunPlanEstimate> {
  if (options.power) checkPowerTarget(options.power);
  const dataHash = prepared.config.data ? await dataFingerprint(prepared.config.data) : undefined;
  const config: RunConfig = { ...prepared.config, ...(dataHash ? { dataHash } : {}) };
  const [hash, legacy] = configHashes(config) as [string, string?];
  const adaptive = config.mode === 'adaptive';
  const store = storeExists(options.storePath) ? new RunStore(options.storePath, { readonly: true }) : undefined;
  try {
    // the run `run` would write to: the newest unfinished run of this hash; else a completed one is named (a new run)
    let storedIn: RunPlanEstimate['storedIn'];
    let skip = new Set<number>();
    if (store) {
      const unfinished = store.findUnfinished(hash) ?? (legacy ? store.findUnfinished(legacy) : undefined);
      const latest = unfinished ?? store.findLatest(hash) ?? (legacy ? store.findLatest(legacy) : undefined);
      if (latest) {
        const done = store.recordedIndices(latest.id).done;
        storedIn = { runId: latest.id, status: latest.status, continued: unfinished !== undefined };
        skip = done;
      }
    }
    // a model call is cached only for a model with an endpoint and the cache on; no store yet: nothing is cached
    const checkCache = !adaptive && config.cache !== false && prepared.model.endpoint !== undefined;
    const cache = checkCache ? (store ? cacheLookup(store.db) : () => false) : undefined;
    const probe = new Prober(prepared);
    let samples = 0;
    let stored = 0;
    let cached = 0;
    let promptChars = 0;
    let probed = 0;
    let callsPerLevel: number[] = [];
    for await (const sample of sampleStream(prepared, config)) {
      samples++;
      // --extractor: at most one more call per level (asked only when the strict rules read no answer)
      if (samples === 1) callsPerLevel = (await probe.callsPerLevel(sample)).map((n) => n + (prepared.extractorModel ? 1 : 0));
      if (skip.has(sample.index)) {
        stored++;
        if (storedIn?.continued) continue;
      }
      // adaptive: the selector picks the first level; one probe gives the prompt length of the estimate
      if (adaptive && probed > 0) continue;
      const first = await probe.firstCall(sample);
      if (!first) continue;
      probed++;
      promptChars += first.request.messages.reduce((n, m) => n + m.content.length, 0);
      if (cache && cache(cacheKey(first.model, first.request, config.cacheKeyEndpoint === true))) cached++;
    }
    const remaining = storedIn?.continued ? samples - stored : samples;
    const m = prepared.levels.length;
    const largest = Math.max(0, ...callsPerLevel);
    const selectorCalls = adaptive && prepared.selector?.model ? 1 : 0;
    const maxCallsPerSample = adaptive ? m * (selectorCalls + largest) : callsPerLevel.reduce((a, b) => a + b, 0);
    const callsUpperBound = remaining * maxCallsPerSample;
    const earlier = store ? earlierRun(store, prepared) : undefined;
    const callsEstimate = earlier ? Math.round(remaining * earlier.callsPerSample) : callsUpperBound;
    const tokens: RunPlanEstimate['tokens'] = earlier
      ? {
          prompt: Math.round(callsEstimate * earlier.promptPerCall),
          completion: Math.round(callsEstimate * earlier.completionPerCall),
          ...(earlier.reasoningPerCall ? { reasoning: Math.round(callsEstimate * earlier.reasoningPerCall) } : {}),
        }
      : { prompt: Math.round(callsEstimate * (probed ? promptChars / probed / 4 : 0)), completion: callsEstimate * (config.generation.maxTokens ?? 0) };
    const price = config.prices?.[prepared.model.id];
    // with --batch at the batch price (default half the online price, as the run's summary counts it)
    const [input, output] = price ? (config.batch ? [price.batchInput ?? price.input * DEFAULT_BATCH_PRICE_FACTOR, price.batchOutput ?? price.output * DEFAULT_BATCH_PRICE_FACTOR] : [price.input, price.output]) : [0, 0];
    const cost = price ? (tokens.prompt * input + tokens.completion * output) / 1e6 : undefined;
    const power = options.power
      ? planPower(
          store,
          {
            data: dataIdentity({ dataset: prepared.datasetId, fingerprint: buildFingerprint(prepared, config) as unknown as Record<string, Json> }),
            levels: prepared.levels.length,
            hpiDataset: prepared.hpiDataset,
            mode: adaptive ? 'adaptive' : 'manual',
          },
          options.power,
          samples,
        )
      : undefined;
    return {
      dataset: prepared.datasetId,
      model: prepared.model.id,
      ladder: prepared.ladderIds,
      mode: adaptive ? 'adaptive' : 'manual',
      seed: config.seed,
      configHash: hash,
      samples,
      stored,
      ...(storedIn ? { storedIn } : {}),
      remaining,
      cached: cache ? cached : null,
      maxCallsPerSample,
      callsPerLevel,
      callsUpperBound,
      callsEstimate,
      ...(earlier ? { estimateFrom: { runId: earlier.run.id, status: earlier.run.status, model: earlier.run.model, callsPerSample: earlier.callsPerSample } } : {}),
      tokens,
      ...(cost !== undefined ? { cost } : {}),
      ...(power ? { power } : {}),
    };
  } finally {
    store?.close();
  }
}

/**
 * The newest completed run of the same dataset, ladder, mode and `--full-ladder` setting (any model, any other
 * settings) with scored samples, and its calls and tokens per sample and per call (selector calls included). The
 * full-ladder setting must match: an early-exit run's calls per sample undercount a full-ladder run (it stops at the
 * first solved level), and a full-ladder run's overcount an early-exit run.
 */
function earlierRun(store: RunStore, prepared: PreparedRun): { run: RunRecord; callsPerSample: number; promptPerCall: number; completionPerCall: number; reasoningPerCall: number } | undefined {
  const ladder = JSON.stringify(prepared.ladderIds);
  const mode = prepared.config.mode ?? 'manual';
  const full = prepared.config.fullLadder === true;
  const comparable = store
    .listRuns()
    .filter((run) => run.status === 'completed' && run.dataset === prepared.datasetId && run.mode === mode && JSON.stringify(run.config.ladderLevels) === ladder && (run.config.fullLadder === true) === full);
  // a run of the same model at the same reasoning effort first (its thinking is what this run will pay for), else any
  const effort = prepared.config.generation.reasoningEffort;
  const same = (run: RunRecord) => run.model === prepared.config.model && (run.config.generation as { reasoningEffort?: string } | undefined)?.reasoningEffort === effort;
  for (const run of [...comparable.filter(same), ...comparable.filter((r) => !same(r))]) {
    const agg = store.aggregate(run.id);
    if (!agg.samples) continue;
    const selector = agg.selectorUsage.reduce((a, u) => ({ calls: a.calls + u.calls, p: a.p + u.promptTokens, c: a.c + u.completionTokens }), { calls: 0, p: 0, c: 0 });
    const calls = agg.calls + selector.calls;
    const reasoning = agg.usageByLevel.reduce((n, u) => n + (u.reasoningTokens ?? 0), 0);
    return {
      run,
      callsPerSample: calls / agg.samples,
      promptPerCall: calls ? (agg.promptTokens + selector.p) / calls : 0,
      completionPerCall: calls ? (agg.completionTokens + selector.c) / calls : 0,
      reasoningPerCall: calls ? reasoning / calls : 0,
    };
  }
  return undefined;
}

/**
 * Runs ladder levels with stand-in models that record each request and answer an empty text, so no endpoint is
 * called: a request is exactly the one the engine would send (same assembly, generation settings and context), and the
 * number of requests of a level is its number of calls when every call is answered.
 */
class Prober {
  private readonly calls: ProbedCall[] = [];
  private readonly engine: LadderEngine;

  constructor(private readonly prepared: PreparedRun) {
    const stand = (model: Model): Model => ({
      id: model.id,
      ...(model.endpoint !== undefined ? { endpoint: model.endpoint } : {}),
      generate: async (request: ModelRequest): Promise<ModelResponse> => {
        this.calls.push({ model, request });
        return { text: '', usage: { promptTokens: 0, completionTokens: 0 }, finishReason: 'stop' };
      },
    });
    this.engine = new LadderEngine(ladderSetup(prepared, stand));
  }

  /** The calls each level makes for `sample`, level 1 first. */
  async callsPerLevel(sample: Sample): Promise<number[]> {
    const counts: number[] = [];
    for (const rung of this.prepared.levels) counts.push((await this.run(sample, rung.level)).length);
    return counts;
  }

  /** The first request of level 1 for `sample` (the call whose key does not depend on an earlier answer), if any. */
  async firstCall(sample: Sample): Promise<ProbedCall | undefined> {
    return (await this.run(sample, 1))[0];
  }

  private async run(sample: Sample, level: number): Promise<ProbedCall[]> {
    this.calls.length = 0;
    await this.engine.runLevel(sample, this.prepared.levels[level - 1]!);
    return this.calls.splice(0).sort((a, b) => seqOf(a) - seqOf(b));
  }
}

/** The `seq` of a probed call (its order within the level). */
function seqOf(c: ProbedCall): number {
  return c.request.context?.seq ?? 0;
}
