/**
 * The plugin contracts of hpt-bench: the shapes every dataset, strategy, model and scorer plugin speaks.
 * Source: DESIGN.md "The four plugin kinds"; the HPT method is in specs/hpt.md (sections cited per type).
 */

import type { ModelCallError } from './errors.js';
import type { Extraction, ExtractionTrace } from './extract/types.js';

/** A JSON value as stored in records, targets and predictions. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `strict` = what the method intends (default); `reference` = what the authors' code did (specs/hpt.md §9). */
export type CompatMode = 'strict' | 'reference';

/**
 * One evaluation item.
 * - `id`: the record's `id`/`task_id` field if it has one, else its 0-based index in the input, as a string.
 * - `index`: 0-based position in the input stream.
 * - `input`: the placeholder values the prompt pack's templates use (e.g. `passage`, `question`, `text1`..`text5`).
 * - `target`: the gold answer in the form the dataset's scorer expects (boolean, letter, number string, ...).
 * - `meta`: anything else worth keeping (subject, raw answer, ...).
 */
export interface Sample {
  id: string;
  index: number;
  input: Record<string, string>;
  target: Json;
  meta?: Record<string, Json>;
}

/** A chat message as sent to an OpenAI-compatible endpoint. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * Why a model call is made: the graded call of a level, a chain step, or a knowledge candidate (hpt.md §1.3); the
 * adaptive HPF's level choice (`selector`, hpt.md §2.3); an LLM-as-a-judge rating (`judge`, hpt.md §5.4).
 */
export type CallPurpose = 'graded' | 'intermediate' | 'knowledge' | 'selector' | 'judge' | 'extract';

/** Generation settings; the paper's defaults are temperature 0.6, top-p 0.9, 1024 max tokens (hpt.md §6). */
export interface GenerationSettings {
  temperature: number;
  topP: number;
  maxTokens: number;
  seed?: number;
  /**
   * how much a reasoning model may think (`--reasoning-effort`; OpenAI `reasoning_effort`, o-series and GPT-5, also
   * served by vLLM and OpenRouter; issue #24); absent: not sent
   */
  reasoningEffort?: ReasoningEffort;
  /**
   * `--max-completion-tokens`: sent as `max_completion_tokens` instead of `max_tokens` (o-series endpoints require it;
   * it bounds thinking and answer together); absent: `max_tokens` is sent
   */
  maxCompletionTokens?: number;
}

/** The reasoning efforts OpenAI-compatible endpoints accept (`reasoning_effort`). */
export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

/** Every `ReasoningEffort`, least first. */
export const REASONING_EFFORTS: readonly ReasoningEffort[] = ['minimal', 'low', 'medium', 'high'];

/**
 * What a strategy asks a model for. `context` lets deterministic baselines (oracle, random) see the sample and its
 * scorer; real providers ignore it and send only `messages` and the settings.
 */
export interface ModelRequest extends GenerationSettings {
  messages: ChatMessage[];
  /** Ask for per-token log-probabilities of the completion (used to rank knowledge candidates, hpt.md §1.3). */
  logprobs?: boolean;
  /**
   * Ask for structured output: a JSON object matching `schema` (OpenAI `response_format: json_schema`, strict). Providers
   * that cannot honour it answer with a `client` ModelCallError (HTTP 400/422) and the caller falls back to parsing.
   */
  responseFormat?: { name: string; schema: Record<string, Json> };
  context?: CallContext;
}

/** Where in the ladder a call is made: the sample, the level (1-based), the strategy and the call's purpose. */
export interface CallContext {
  sample: Sample;
  level: number;
  strategy: string;
  purpose: CallPurpose;
  /** 0-based index of the call within the attempt. */
  seq: number;
  /** Adaptive HPF only: the 1-based iteration of the selector loop the call belongs to (hpt.md §2.3). */
  iteration?: number;
  scorer: Scorer;
  /** The scorer's context for this run (compat mode and the dataset's scorer options). */
  scoreContext: ScoreContext;
  /** Run seed, for reproducible stochastic baselines. */
  seed: number;
}

/** Token counts of one call. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /**
   * of `completionTokens`, the reasoning (thinking) tokens, when the provider reports them
   * (`usage.completion_tokens_details.reasoning_tokens`; issue #24)
   */
  reasoningTokens?: number;
}

/**
 * A model's answer. `logprobs` are natural-log probabilities of the generated tokens, in order, when the provider
 * returns them; `latencyMs` is wall time of the call in milliseconds.
 */
export interface ModelResponse {
  text: string;
  /**
   * the model's thinking when the provider returns it apart from the answer (`message.reasoning_content`, DeepSeek and
   * older vLLM; `message.reasoning`, newer vLLM and OpenRouter; issue #24): stored with the call, never scored
   */
  reasoning?: string;
  logprobs?: number[];
  usage: Usage;
  finishReason: string;
  latencyMs?: number;
  /** true when the response came from the model-call cache (no request was made) */
  cached?: boolean;
  /** true when the request went through the provider's batch interface (`run --batch`; priced at the batch price) */
  batched?: boolean;
  /**
   * the name of the model that served the answer, as the provider reported it (the chat-completions body's `model`,
   * e.g. `gpt-4o-mini-2024-07-18`); absent when the provider did not say (some local servers omit it). The core checks
   * it against the model the run asked for (`servesModel`: the same name, letter case aside, or a dated snapshot of
   * it) before the answer is scored or cached: an endpoint that answers for another model is drained (one replica among
   * several) or ends the run (`HptError` `E_ENDPOINT`). Not stored: cache hits carry none.
   */
  model?: string;
}

/** A model plugin: anything that turns a request into text. Errors a user can fix are thrown as `HptError`. */
export interface Model {
  /** Display id, e.g. `openai:gpt-4o` or `baseline:oracle`. */
  readonly id: string;
  /**
   * Where requests go (e.g. the base URL `http://127.0.0.1:8000/v1`); part of the cache key, and the unit of the
   * adaptive concurrency limit. Absent for local deterministic models (baselines).
   */
  readonly endpoint?: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
  /**
   * Optional: the provider's asynchronous batch interface (e.g. the OpenAI Batch API), used by `run --batch`. A model
   * without it cannot run with `--batch` (usage error, exit 2).
   */
  readonly batch?: BatchModel;
}

/** One request of a batch: `customId` is unique within a batch and comes back with its result. */
export interface BatchRequestLine {
  customId: string;
  request: ModelRequest;
}

/**
 * The state of a submitted batch: `pending` (validating, in progress, finalizing), or a final state: `completed`
 * (its output and error files can be read), `failed` (the whole batch was refused), `expired` (the completion window
 * ended: the finished lines are in the output file, the others are missing), `cancelled`.
 */
export type BatchState = 'pending' | 'completed' | 'failed' | 'expired' | 'cancelled';

/** What polling a batch tells: its state, its output and error file ids (when written), and the provider's reason for `failed`. */
export interface BatchStatus {
  state: BatchState;
  outputFileId?: string;
  errorFileId?: string;
  message?: string;
}

/**
 * The result of one line of a finished batch: a response (no `latencyMs`), or the error the line failed with
 * (a `ModelCallError`; `retryable` says whether it is worth sending again in a later batch).
 */
export type BatchLineResult = { customId: string; response: Omit<ModelResponse, 'latencyMs'> } | { customId: string; error: ModelCallError };

/**
 * A provider's batch interface (DESIGN.md "exec": the batcher of `run --batch` writes the calls of one round as one or
 * more batches, submits them, polls them and reads their results):
 * - `limits`: at most `maxRequests` lines and `maxBytes` bytes (UTF-8, newlines included) per batch file;
 * - `encode(line)`: the JSONL line (without the newline) of one request;
 * - `upload(lines)`: upload the lines as one input file; returns its file id;
 * - `create(inputFileId)`: create a batch from an uploaded file; returns the batch id;
 * - `find(inputFileId)` (optional): the id of a batch already created from that file, if any — so a process killed
 *   between creating a batch and recording it finds the batch instead of creating (and paying for) it twice;
 * - `status(id)`: poll the batch; a batch the endpoint does not know (any more: e.g. a gateway restarted without its
 *   state) is a `ModelCallError` `client` with `status` 404, and its calls are submitted again;
 * - `results(status)`: read the output and error files of a finished batch; lines absent from both (an expired batch's
 *   unfinished lines) are simply missing. A line that cannot be read is a failed line (a retryable error) of the call it
 *   still names, or left out when it names none; never a thrown error (one bad line must not lose the others). Every
 *   line is returned, several of one call included: the batcher counts identical ones once and fails the call when
 *   they differ.
 * Errors: `ModelCallError` for failures worth retrying (connection, 5xx, 429), `HptError` `E_AUTH`/`E_ENDPOINT` for
 * ones that end the run.
 */
export interface BatchModel {
  readonly limits: { maxRequests: number; maxBytes: number };
  encode(line: BatchRequestLine): string;
  upload(lines: string[]): Promise<string>;
  create(inputFileId: string): Promise<string>;
  find?(inputFileId: string): Promise<string | undefined>;
  status(id: string): Promise<BatchStatus>;
  results(status: BatchStatus): Promise<BatchLineResult[]>;
}

/**
 * The output a level is graded on (hpt.md §1.3, §4).
 * - `promptText`: the prompt text of the graded call as the reference's full-text pipeline returns it (wrapper prefix,
 *   filled template, wrapper suffix, cue in reference mode; template + cue in strict mode).
 * - `completion`: the model's completion only.
 * - `cue`: the answer cue appended to the prompt (`Answer:`, `Code:`, ...; may be empty).
 */
export interface GradedOutput {
  promptText: string;
  completion: string;
  cue: string;
}

/**
 * A scorer's decision on one graded output.
 * - `solved`: whether the ladder stops at this level.
 * - `score`: the per-sample value the dataset metric aggregates (1/0 for accuracy scorers).
 * - `extracted`: the parsed answer (null when nothing could be parsed).
 * - `extraction`: which rule read it and where (`{ rule, span }`; `rule` `none` when none fired), stored with the
 *   attempt and shown in the report's trace; absent in `--compat reference` (the authors' parsers have no rules).
 */
export interface Verdict {
  solved: boolean;
  score: number;
  extracted: Json;
  /** how `extracted` was read: the extraction rule that fired and the span of the completion it read (issue #23) */
  extraction?: ExtractionTrace;
}

/** Per-call options of a scorer: the compat mode and the options the dataset declared for it. */
export interface ScoreContext {
  compat: CompatMode;
  options: Record<string, Json>;
}

/**
 * Streams a run's final predictions into the dataset metric (corpus BLEU, mean ROUGE, pass@k...): `add` is called once
 * per recorded sample in input order with the sample (`id`, `index`, `target`; `input` is empty), its recorded
 * prediction (the solving level's `extracted`, or the last level's when unsolved, hpt.md §3 "Counting at the last
 * level") and whether some level solved it; `result` returns named metric values (JSON). With `--replicates n` a sample id
 * comes n times (one per replicate).
 */
export interface MetricAggregator {
  add(sample: Sample, prediction: Json, solved: boolean): void;
  result(): Record<string, Json>;
}

/** A scorer plugin (DESIGN.md: `(sample, output) -> Verdict`). */
export interface Scorer {
  readonly id: string;
  /** Check the run's options before any model call (e.g. a required `threshold`); throw HptError `E_CONFIG`. */
  prepare?(ctx: ScoreContext): void;
  /**
   * Check, once before the run's first model call, that the environment this scorer needs holds (e.g. the code
   * sandbox's protections). The record it returns (JSON, a few hundred bytes) is kept with the run
   * (`RunSummary.preflight` and the stored run's `preflight` column). Throw HptError (e.g. `E_SANDBOX`) to refuse the run.
   */
  preflight?(ctx: ScoreContext): Promise<Record<string, Json> | undefined>;
  score(sample: Sample, output: GradedOutput, ctx: ScoreContext): Verdict | Promise<Verdict>;
  /**
   * The answer this scorer reads from a completion in strict mode, with the rule and span (the SDK's extractors, e.g.
   * `extractChoice` with the sample's options), or null when no rule reads one. Strategies reach it through
   * `StrategyContext.extract` (e.g. majority voting over several completions) instead of re-implementing parsing.
   */
  extract?(sample: Sample, output: GradedOutput, ctx: ScoreContext): Extraction<Json> | null;
  /** A completion this scorer accepts as the target (for the oracle baseline). */
  renderTarget?(sample: Sample, ctx: ScoreContext): string;
  /** A valid, seeded random answer (for the random baseline); `random()` returns a float in [0, 1). */
  randomAnswer?(sample: Sample, random: () => number, ctx: ScoreContext): string;
  /** The dataset metric over all recorded predictions, when it is more than accuracy (hpt.md §3 "Final reported metric"). */
  createAggregator?(ctx: ScoreContext): MetricAggregator;
  /**
   * A full check of the environment this scorer needs, for a person to read (`hpt-bench <check> check`, where the
   * manifest declares `environmentCheck: <check>`; e.g. the code sandbox's escape suite). Unlike `preflight` it never
   * throws because the environment is unfit: it reports it. `ctx.options` are the scorer options (e.g. `python`).
   */
  checkEnvironment?(ctx: ScoreContext): Promise<EnvironmentCheck>;
}

/**
 * The outcome of `Scorer.checkEnvironment`: whether the environment holds, one row per check in report order
 * (`holds`, a one-line `detail`), the column heading of those rows (e.g. `protection`), a one-line verdict, and the full
 * record (`--json`).
 */
export interface EnvironmentCheck {
  holds: boolean;
  heading: string;
  checks: Record<string, { holds: boolean; detail: string }>;
  summary: string;
  record: Record<string, Json>;
}

/**
 * What a standalone metric returns (`hpt-bench score <metric>`): the aggregate over the corpus (named values, e.g.
 * `{score, counts, bp}` for BLEU or `{rouge1: {precision, recall, fmeasure}, ...}` for ROUGE) and, when asked for, one
 * value per segment in input order.
 */
export interface StandaloneScore {
  aggregate: Record<string, Json>;
  perSample?: Json[];
  /** one human-readable line of the aggregate (e.g. `sacrebleu 48.53 (82.4/50.0/45.5/37.5, BP 0.943)`); absent: `hpt-bench score` prints the aggregate as JSON */
  text?: string;
}

/**
 * A standalone metric (manifest kind `metrics`): scores prediction segments against reference streams without a run
 * (`hpt-bench score`). `references[k][i]` is the k-th reference of segment i; every stream is as long as `predictions`
 * (the host checks it). `options` are the `--option k=v` strings. Throw HptError `E_CONFIG` for an unknown option or
 * value, naming the valid ones.
 */
export interface StandaloneMetric {
  readonly id: string;
  score(predictions: string[], references: string[][], options: Record<string, string>, perSample: boolean): StandaloneScore | Promise<StandaloneScore>;
}

/**
 * One entry of a prompt pack (schemas/prompt-pack.schema.json): the wording one strategy uses for one dataset.
 * - `template`: the (graded) template with `{placeholder}`s;
 * - `steps`: a chain (least-to-most): per step the template, the 1-based step whose completion is `{pred}`
 *   (null: none) and the cue appended after it;
 * - `knowledge`: the knowledge-generation template (generated-knowledge).
 */
export interface PromptPackEntry {
  template?: string;
  steps?: { template: string; pred: number | null; cue: string }[];
  knowledge?: string;
}

/** A prompt pack: the per-dataset wording of every strategy, plus the answer cue of graded calls. */
export interface PromptPack {
  id: string;
  cue: string;
  /**
   * Optional template of the system message of graded calls (filled from the sample's input), replacing the HPT
   * default "Provide the answer at the start of first sentence" (e.g. `{system}` for HiBench's per-scenario prompts).
   */
  system?: string;
  /**
   * The sample's plain task text (a template over its input): `{task}` of the adaptive prompt-selector (hpt.md §5.2,
   * hpt-extras.json › selector.taskTemplates; the level-1 template without the role phrase where the reference has none,
   * §9 #6) and the prompt `calibrate --judge` rates. Absent: the first level's template is used.
   */
  task?: string;
  /**
   * Values of input fields a sample may leave out (e.g. the generic pack's answer-format sentence), used where its
   * input has no such field. Every other placeholder the templates read (except `{pred}`) must be in the input.
   */
  inputs?: Record<string, string>;
  strategies: Record<string, PromptPackEntry>;
}

/** A call as recorded in the store and `--out`: what was sent, what came back, and what it cost. */
export interface CallRecord {
  seq: number;
  purpose: CallPurpose;
  model: string;
  messages: ChatMessage[];
  output: string;
  usage: Usage;
  latencyMs: number;
  finishReason: string;
  /** Mean exp(logprob) of the generated tokens when logprobs were returned (knowledge ranking, hpt.md §9 #10). */
  meanTokenProb?: number | null;
  /** true when answered from the model-call cache: no request was made and nothing was paid */
  cached?: boolean;
  /** true when sent through the provider's batch interface (`run --batch`): paid at the batch price */
  batched?: boolean;
  /**
   * the model's thinking (issue #24): the provider's reasoning field and the inline `<think>` blocks of the reply, which
   * strict mode removes from `output` before anything reads it
   */
  reasoning?: string;
  /** true when the reply ended inside an unclosed thinking block (the length limit hit while thinking): no answer */
  truncatedThinking?: boolean;
}

/** What a strategy returns: the graded output and notes (e.g. how knowledge was chosen). Calls are recorded by the engine. */
export interface StrategyOutput {
  graded: GradedOutput;
  notes?: Record<string, Json>;
}

/** The result of `StrategyContext.call`: the completion, the prompt text the reference parsers see, the raw response and the stored record. */
export interface CallResult {
  text: string;
  promptText: string;
  response: ModelResponse;
  record: CallRecord;
}

/**
 * What the ladder hands a strategy for one attempt.
 * - `entry`: this strategy's prompt-pack entry for the dataset (undefined when the pack has none);
 * - `pack`: the whole pack (for the cue);
 * - `call(purpose, text, cue)`: assemble the messages for `text` (filled template) and `cue` per hpt.md §6 and send
 *   them to the evaluated model (or the knowledge model for `knowledge`); the engine records every call;
 * - `fill(template, vars)`: one-pass placeholder substitution (specs/hpt.md §0);
 * - `extract(completion, cue?)`: the answer the run's scorer reads from a completion (`Scorer.extract`);
 * - `score(completion, cue?)`: the run's scorer's verdict on a completion, not recorded (verification levels);
 * - `entryOf(strategyId)`: another strategy's prompt-pack entry for the dataset (a level reusing another's wording).
 */
export interface StrategyContext {
  sample: Sample;
  level: number;
  strategyId: string;
  entry: PromptPackEntry | undefined;
  pack: PromptPack;
  compat: CompatMode;
  call(purpose: CallPurpose, text: string, cue: string, options?: { logprobs?: boolean }): Promise<CallResult>;
  fill(template: string, vars?: Record<string, string>): string;
  /**
   * The answer the run's scorer reads from `completion` for this sample (`Scorer.extract`, strict rules; `cue`
   * defaults to the pack's cue), or null when no rule reads one or the scorer has no `extract`. Lets a strategy compare
   * the answers of several calls (self-consistency, majority voting) the way they will be scored.
   */
  extract(completion: string, cue?: string): Extraction<Json> | null;
  /**
   * The run's scorer's verdict on `completion` for this sample (`Scorer.score` with the run's compat mode and scorer
   * options; `cue` defaults to the pack's cue; the prompt text is empty). Nothing is recorded: the attempt is still
   * graded on the strategy's returned output only. Lets a strategy check a candidate answer (a verification level,
   * picking among self-consistency samples). Rejects with what the scorer throws.
   */
  score(completion: string, cue?: string): Promise<Verdict>;
  /**
   * The prompt-pack entry of strategy `strategyId` for this dataset (undefined when the pack has none), e.g. a level
   * that reuses the `zero-shot-cot` wording and adds a step. `entry` is `entryOf(<this level's pack entry>)`.
   */
  entryOf(strategyId: string): PromptPackEntry | undefined;
}

/** A strategy plugin: one rung of the ladder, turning a sample into one graded output (hpt.md §1.3). */
export interface Strategy {
  readonly id: string;
  run(ctx: StrategyContext): Promise<StrategyOutput>;
}

/**
 * One decision of an adaptive-HPF selector, as recorded with the sample (hpt.md §2.3).
 * - `iteration`: 1-based iteration i of the selector loop (1..m);
 * - `level`: the level the selector chose (the `llm` selector's first digit run, 1 when its reply has no digit); may be
 *   outside 1..m;
 * - `valid`: 1 <= level <= m; an invalid selection consumes the iteration with no attempt (§9 #4);
 * - `raw`: the selector's reply text, when it has one;
 * - `solved`: for a valid selection, whether the attempt at that level solved the sample;
 * - `call`: the selector model's call (messages, output, usage), when one was made.
 */
export interface SelectionRecord {
  iteration: number;
  level: number | null;
  valid: boolean;
  raw?: string;
  solved?: boolean;
  call?: CallRecord;
}

/**
 * What the adaptive engine hands a selector at each iteration (hpt.md §2.3, §5.2).
 * - `levels`: the ladder, level 1 first (m = `levels.length`);
 * - `task`: the sample's plain task text (the pack's `task` template filled from the sample; `{task}` of §5.2);
 * - `feedback`: `{prev_res}` of §5.2: '' at iteration 1 and until an attempt fails, then the feedback sentence around
 *   the latest failed attempt's completion (strict) or its full text (reference);
 * - `history`: the earlier selections of this sample;
 * - `call(text, cue)`: send `text` (then the cue, e.g. `Level:`) to the selector model and record the call.
 *   @throws HptError `E_CONFIG` when the selector was configured without a model.
 */
export interface SelectionContext {
  sample: Sample;
  iteration: number;
  levels: { level: number; strategy: string }[];
  task: string;
  feedback: string;
  history: SelectionRecord[];
  compat: CompatMode;
  call(text: string, cue: string): Promise<CallResult>;
}

/** The cue after the selector prompt (hpt.md §2.3; hpt-extras.json › selector.cue). */
export const SELECTOR_CUE = 'Level:';

/** A selector's answer: the chosen level (any integer; the engine checks 1..m) or null for "none", and its reply text. */
export interface Selection {
  level: number | null;
  raw?: string;
}

/**
 * A selector plugin: picks the level to try at each iteration of the adaptive HPF (hpt.md §2.3; DESIGN.md "Selector").
 * Built-ins: `llm` (the paper's prompt-selector; `needsModel`) and `fixed:<level>`. The part of `--selector` after the
 * id is injected as `Tokens.SelectorArgument`.
 */
export interface Selector {
  readonly id: string;
  /** true when the selector asks a model (the run resolves the model named by the selector argument). */
  readonly needsModel?: boolean;
  select(ctx: SelectionContext): Promise<Selection>;
}

/** Options a dataset's `load` receives from the run. */
export interface DatasetLoadOptions {
  /** A local `.json`/`.jsonl` file, or undefined for the dataset's default source (Hugging Face hub or embedded). */
  data?: string;
  /** Split name; `mini` selects the embedded demo split where a dataset ships one. */
  split?: string;
  /** What to do with a record missing a required field: fail (default) or skip it with a warning. */
  onInvalid: 'fail' | 'skip';
  /** Directory for cached hub downloads. */
  cacheDir: string;
  /**
   * The rows of one split of a Hugging Face hub dataset through the host's hub loader (dataset viewer API, cached
   * under `cacheDir`), for code datasets that convert hub data themselves; `config` defaults to `default`. Absent when
   * the host provides none.
   */
  hubRows?(source: { dataset: string; config?: string; split: string }): AsyncIterable<Record<string, unknown>>;
  /** Called once per skipped record with a message naming the record index and field. */
  warn(message: string): void;
  /** Run seed: generated datasets draw every random choice from it (DESIGN.md "Determinism"). */
  seed?: number;
  /** Compat mode of the run: generated datasets follow the authors' toolkit under `reference`. */
  compat?: CompatMode;
  /**
   * Generator filters by name (`task`, `preset`, `representation`, `icl`, `semantics`, ...): each a list of wanted
   * values, empty/absent = all. Only datasets whose manifest declares `filters` accept them.
   */
  filters?: Record<string, string[]>;
}

/**
 * What `hpt-bench generate` passes a generated dataset: the seed, compat mode and filters, and `data` (`--data`) for
 * datasets whose records are built from a local source rather than drawn at random. A dataset that cannot use an
 * option it is given (e.g. `data` for a generator that draws everything from the seed) must refuse it with an
 * `HptError` `E_CONFIG` (exit 2) rather than ignore it.
 */
export interface GenerateOptions {
  seed: number;
  compat: CompatMode;
  filters: Record<string, string[]>;
  data?: string;
}

/** A dataset plugin: a stream of samples plus the constants the ladder needs. */
export interface Dataset {
  readonly id: string;
  load(options: DatasetLoadOptions): AsyncIterable<Sample>;
  /**
   * Generated datasets only (DESIGN.md "generated"): the self-describing records behind the samples, lazily, for
   * `hpt-bench generate`. Same options => byte-identical records. @throws HptError `E_CONFIG` on an unknown filter value.
   */
  generate?(options: GenerateOptions): Iterable<Record<string, Json>>;
}
