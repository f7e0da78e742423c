/**
 * The records hpt-bench writes, as plugin code and readers of its output see them: a sample's ladder outcome with every
 * attempt and call (one line of `run --out FILE.jsonl`: schemas/sample-record.schema.json) and the run summary (the
 * `--json` output of `run`: schemas/run-summary.schema.json). test/sdk/schema-types.test.ts checks these types against
 * the schemas, property by property.
 */
import type { CallRecord, CompatMode, GradedOutput, Json, SelectionRecord } from './contracts.js';
import type { ExtractionTrace } from './extract/types.js';

/** One level tried on one sample: the graded output, the scorer's verdict and every call made. */
export interface AttemptRecord {
  level: number;
  strategy: string;
  solved: boolean;
  score: number;
  extracted: Json;
  /** how `extracted` was read (the scorer's `Verdict.extraction`), when the scorer tells */
  extraction?: ExtractionTrace;
  graded: GradedOutput;
  calls: CallRecord[];
  notes?: Record<string, Json>;
  /** adaptive HPF: the 1-based selector iteration of this attempt (hpt.md §2.3) */
  iteration?: number;
}

/**
 * The outcome of the ladder on one sample (hpt.md §2.1-2.2).
 * - `level`: the first solving level (1..m), or null when no level solved it;
 * - `hpi`: `level`, or `m + hpiDataset` when unsolved;
 * - `prediction`: the solving level's parsed answer, or the last level's when unsolved (hpt.md §9 #24).
 */
export interface SampleResult {
  sampleId: string;
  index: number;
  level: number | null;
  hpi: number;
  solved: boolean;
  prediction: Json;
  target: Json;
  attempts: AttemptRecord[];
  /** the sample's `meta` (scenario, task, configuration... for per-configuration metrics), when it has one */
  meta?: Record<string, Json>;
  /** adaptive HPF: the iteration i at which level x solved the sample (`hpi` = x + i; hpt.md §2.3) */
  iteration?: number;
  /** adaptive HPF: every selection of the sample, in order (valid or not) */
  selections?: SelectionRecord[];
  /**
   * adaptive HPF under `--compat reference` only: the score records the reference code appends for this sample when
   * they are not exactly one (hpt.md §2.3 (a)-(c)): none (the sample is dropped), or two (solved at the last iteration:
   * x + i, then m + HPI_Dataset with the last failed attempt's prediction). `hpi` and `solved` then hold their sum and
   * count; HPI and accuracy are taken over records, not samples.
   */
  records?: { hpi: number; solved: boolean; prediction: Json }[];
}

/** Usage (and cost, with `--prices`) of one ladder level. */
export interface LevelUsage {
  calls: number;
  /** of which answered from the model-call cache (no request, no cost) */
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** USD paid in this run for this level's uncached calls, when prices were given (batched calls at the batch price) */
  cost?: number;
  /** of `calls`, the ones sent through the provider's batch interface (`run --batch`); present when some were */
  batchedCalls?: number;
  /** with batched calls and prices: what the uncached calls would have cost at the online price */
  onlineCost?: number;
  /** of `completionTokens`, the reasoning tokens the provider reported (present when some were; issue #24) */
  reasoningTokens?: number;
  /** calls whose reply ended inside an unclosed thinking block ("truncated while thinking"; present when some did) */
  truncatedThinking?: number;
}

/**
 * `run --batch`: what the batcher did in this invocation — rounds flushed, batches and request lines submitted, batches
 * of an interrupted invocation picked up instead of submitted again, lines retried in a later batch and lines that
 * failed for good — and, with prices, the run's uncached calls at the online price and the saving (`onlineCost - cost`).
 */
export interface BatchSummary {
  rounds: number;
  batches: number;
  requests: number;
  resumedBatches: number;
  retriedLines: number;
  failedLines: number;
  onlineCost?: number;
  saving?: number;
}

/**
 * The summary of a run (the `--json` output of `hpt-bench run`; schemas/run-summary.schema.json).
 * `hpi` = mean over samples of the solving level, or m + hpiDataset when unsolved (hpt.md §2.1); `accuracy` = solved/n.
 */
export interface RunSummary {
  runId: string;
  dataset: string;
  model: string;
  /** `manual` (hpt.md §2.1) or `adaptive` (§2.3: x + i per solved sample) */
  mode: 'manual' | 'adaptive';
  ladder: string[];
  n: number;
  hpi: number;
  hpiDataset: number;
  accuracy: number;
  levelCounts: Record<string, number>;
  calls: number;
  usage: { promptTokens: number; completionTokens: number };
  compat: CompatMode;
  seed: number;
  skipped: number;
  /** replicates per sample (`--replicates`) when more than 1 (`n` then counts every replicate) */
  samples?: number;
  /** the solve threshold, for datasets solved by a metric threshold (IWSLT BLEU, SamSum ROUGE-1; hpt.md §3) */
  threshold?: number;
  /** the dataset metric over every recorded prediction (corpus BLEU, mean ROUGE F1, ...; hpt.md §3), when the scorer has one */
  metrics?: Record<string, Json>;
  /**
   * false when samples errored: the run is then not `completed` (stored as `failed` with the reason) and its figures
   * cover the scored samples only; re-running the same command redoes the errored ones
   */
  complete: boolean;
  /** samples whose model calls failed after every retry: recorded with the reason, not in n, HPI or accuracy */
  errored: number;
  /** the first 20 errored samples and why */
  erroredSamples?: { sampleId: string; error: string }[];
  /** of `calls`, the ones answered from the model-call cache (no request made) */
  cachedCalls: number;
  /** calls, tokens (and cost) per ladder level, by level number */
  levels: Record<string, LevelUsage>;
  /** USD paid in this run (uncached calls), when `--prices` was given */
  cost?: number;
  /** true when this invocation continued an earlier, unfinished run (or redid its errored samples) */
  resumed?: boolean;
  /**
   * when the model is served by several endpoints (`--base-url` given several times): per endpoint (credential-free
   * URL), the requests this invocation sent to it (failed ones included), its failed requests, the mean latency of its
   * answered requests in ms, and its breaker state at the end (`open`: drained); for an endpoint drained because it
   * answered for another model (issue 25), `servedModel` (the name it gave) and `reason` (`serves model X, not Y`): its
   * refused answers count in `errors` and were neither scored nor cached
   */
  endpoints?: { endpoint: string; calls: number; errors: number; meanLatencyMs: number; state: 'closed' | 'open' | 'half-open'; servedModel?: string; reason?: string }[];
  /** what the scorer's environment check found before the first model call (`Scorer.preflight`, e.g. the sandbox) */
  preflight?: Record<string, Json>;
  /** adaptive mode: the selector (`llm:<model>`, `fixed:<level>`, ...) */
  selector?: string;
  /** adaptive mode: iterations consumed by a selection outside 1..m (no attempt made; hpt.md §2.3, §9 #4) */
  invalidSelections?: number;
  /** adaptive mode: selections made in all */
  selections?: number;
  /** adaptive mode: the selector model's calls and tokens (and cost), also counted in `calls` and `usage` */
  selectorUsage?: LevelUsage;
  /** `run --batch`: batches, rounds and the saving against the online price */
  batch?: BatchSummary;
}


/**
 * One line of `hpt-bench run --out FILE.jsonl` (schemas/sample-record.schema.json): a sample's `SampleResult` without
 * its internal `index`, plus `replicate` (0-based) for runs with `--replicates n > 1`.
 */
export interface SampleRecord extends Omit<SampleResult, 'index'> {
  replicate?: number;
}
