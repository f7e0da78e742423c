/**
 * The flags of `hpt-bench run` (and of `plan`, which takes the same flags). Their defaults are the core's
 * `RUN_DEFAULTS`, which `runConfig()` also fills in for a library caller.
 */
import * as Flags from '@oclif/core/flags';
import type * as Interfaces from '@oclif/core/interfaces';
import { RUN_DEFAULTS } from '@hpt-bench/core';
import { endpointFlags, filterFlags, type HptCommand } from './base.js';
import { seedFlag } from './seed-flag.js';
import { storeFlag } from './store-flag.js';

/** The flags of `run` and `plan` (see each flag's description; `hpt-bench run --help`). */
export const runFlags = {
  config: Flags.string({ description: 'run the evaluation file FILE (YAML or JSON, schemas/eval-config.schema.json; `hpt-bench init` writes an example): every model × dataset in it is one run, run in turn; flags given here override the file; --json prints an array of run summaries' }),
  dataset: Flags.string({ char: 'd', description: 'dataset id (see `hpt-bench list datasets`); required unless --resume or --config (with --config: run only this dataset of the file)' }),
  data: Flags.string({ description: 'read samples from this .json/.jsonl file (Hugging Face field layout or the HPT representative-set layout)' }),
  split: Flags.string({ description: "split: a shipped one such as 'mini', or a Hugging Face split (default: the paper's)" }),
  limit: Flags.integer({ char: 'n', description: 'evaluate only the first N samples', min: 1 }),
  model: Flags.string({ char: 'm', description: 'model id: openai:<model>, baseline:oracle, baseline:random, or a plugin model; required unless --resume or --config (with --config: run only this model of the file)' }),
  'knowledge-model': Flags.string({ description: 'model that generates knowledge at the generated-knowledge level (default: --model)' }),
  extractor: Flags.string({ description: 'opt-in: a model asked for the final answer of a reply from which the strict extraction rules read none (its calls are cached and counted; the attempt records that a model extracted it). Strict mode only' }),
  ladder: Flags.string({ description: 'ladder id or a JSON file {"id","levels":[...]}', default: RUN_DEFAULTS.ladder }),
  'full-ladder': Flags.boolean({ description: "run every level on every sample (no early exit at the first solved level): each sample's level, HPI and prediction stay those of the first solved level, and every level's attempt is stored (for ladder diagnostics); costs up to every level's calls per sample; part of the run's identity; manual mode only", default: false }),
  mode: Flags.string({ description: 'manual: climb the ladder level by level (hpt.md §2.1); adaptive: a selector picks the level at each of m iterations and a sample solved by level x at iteration i scores x + i (§2.3)', options: ['manual', 'adaptive'], default: 'manual', helpGroup: 'ADAPTIVE' }),
  selector: Flags.string({ description: "adaptive mode: a model id for the paper's prompt-selector (e.g. openai:llama3, same as llm:openai:llama3), fixed:<level>, or a plugin selector <id>[:<argument>]", helpGroup: 'ADAPTIVE' }),
  'selector-base-url': Flags.string({ description: "adaptive mode: the selector model's OpenAI-compatible endpoint when it is not --base-url (it gets its own adaptive concurrency limit)", helpGroup: 'ADAPTIVE' }),
  temperature: Flags.string({ description: 'sampling temperature', default: String(RUN_DEFAULTS.temperature) }),
  'top-p': Flags.string({ description: 'nucleus sampling top-p', default: String(RUN_DEFAULTS.topP) }),
  'max-tokens': Flags.integer({ description: 'maximum completion tokens per call', default: RUN_DEFAULTS.maxTokens, min: 1 }),
  'reasoning-effort': Flags.string({ description: 'reasoning models: how much the model may think, sent as reasoning_effort (o-series, GPT-5, gpt-oss, and servers that accept it); part of the run\'s identity and cache key', options: ['minimal', 'low', 'medium', 'high'] }),
  'max-completion-tokens': Flags.integer({ description: 'reasoning models: send max_completion_tokens (thinking and answer together) instead of max_tokens, as o-series endpoints require', min: 1 }),
  seed: seedFlag('run seed, an integer up to 2^53 - 1 (recorded; sent to the endpoint as `seed` when given; seeds the baselines)'),
  concurrency: Flags.integer({ char: 'c', description: 'samples evaluated at once, and the ceiling of the adaptive (AIMD) limit of calls in flight per endpoint', default: RUN_DEFAULTS.concurrency, min: 1, max: 1024 }),
  compat: Flags.string({ description: 'strict (what the method intends) or reference (reproduce the authors’ code)', options: ['strict', 'reference'], default: RUN_DEFAULTS.compat }),
  store: storeFlag(),
  out: Flags.string({ description: 'write one JSON line per sample (with every attempt and call) to this file' }),
  replicates: Flags.integer({ description: 'replicates per sample: climb each ladder N times (pass@k uses them)', default: 1, min: 1, max: 1000 }),
  samples: Flags.integer({ description: 'deprecated alias of --replicates', min: 1, max: 1000, hidden: true }),
  threshold: Flags.string({ description: 'solve threshold for metric-solved datasets, required by the scorers that grade by a metric score (e.g. sentence BLEU, ROUGE-1 F1); the paper uses 0.15 and 0.20' }),
  'on-invalid': Flags.string({ description: 'a record missing a required field: fail the run, or skip it with a warning', options: ['fail', 'skip'], default: RUN_DEFAULTS.onInvalid }),
  'hpi-dataset': Flags.string({ description: "HPI_Dataset: the penalty added to m for an unsolved sample (default: a value saved with `calibrate --save` in --store, else the dataset's constant; generated datasets declare a documented default)" }),
  resume: Flags.string({ description: 'continue this run id (see `hpt-bench runs`) with its stored configuration; recorded samples are kept', helpGroup: 'EXECUTION' }),
  new: Flags.boolean({ description: 'start a new run even when an unfinished run with the same configuration exists (default: continue it)', default: false, helpGroup: 'EXECUTION' }),
  'retry-errors': Flags.boolean({ description: 'redo only the errored samples of the newest run with this configuration', default: false, helpGroup: 'EXECUTION' }),
  'served-model': Flags.string({ description: "the name the endpoint gives the model in its answers' `model` field when it is neither the name asked for nor a dated snapshot of it (an Azure deployment, llama-server without --alias); answers naming any other model are refused", helpGroup: 'MODEL' }),
  'max-response-bytes': Flags.integer({ description: 'largest model response in bytes (HTTP body and completion text): a larger reply fails its call (not retried) and its sample is recorded as errored', default: RUN_DEFAULTS.maxResponseBytes, min: 1024, max: 268_435_456, helpGroup: 'EXECUTION' }),
  'unsafe-sandbox': Flags.boolean({ description: 'let scorers that run model code execute it even when `hpt-bench sandbox check` finds a protection missing on this machine; the summary and the stored run say so', default: false, helpGroup: 'EXECUTION' }),
  progress: Flags.boolean({ description: 'show progress on stderr even with --json (a bar on a terminal, else a line every --progress-interval seconds)', default: false, helpGroup: 'OUTPUT' }),
  'progress-interval': Flags.string({ description: 'seconds between two progress lines when stderr is not a terminal (CI logs, files)', default: '5', helpGroup: 'OUTPUT' }),
  prices: Flags.string({ description: 'JSON file of USD per 1M tokens per model id ({"openai:gpt-4o-mini": {"input": 0.15, "output": 0.6}}; "batchInput"/"batchOutput" price --batch calls, default half): adds cost per level and in total', helpGroup: 'EXECUTION' }),
  batch: Flags.boolean({ description: "send the calls through the model's batch interface (the OpenAI Batch API: half price, results within its 24 h window), level by level over all samples; same results as an online run; an interrupted run picks its batches up again", default: false, helpGroup: 'EXECUTION' }),
  'batch-poll': Flags.string({ description: 'with --batch: seconds before the first poll of a batch (then x1.5 per poll, at most 60 s)', default: '5', helpGroup: 'EXECUTION' }),
  ...filterFlags,
  ...endpointFlags,
};

/** The parsed flags of `run` (and of `plan`). */
export type RunFlags = Interfaces.InferredFlags<typeof runFlags & (typeof HptCommand)['baseFlags']>;
