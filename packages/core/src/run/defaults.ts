/**
 * The defaults of a run, in one place: the CLI's `run` flags take their defaults from here and `runConfig()` fills a
 * library caller's configuration with the same values, so `evaluate(runConfig({ dataset, model }))` is the run that
 * `hpt-bench run --dataset … --model …` makes (the same run identity, `configHash`).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { GenerationSettings, Json } from '@hpt-bench/sdk';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../exec/client.js';
import type { RunConfig } from './config.js';

/**
 * Default values of a run (README "Flags of run"): sampling temperature 0.6 and top-p 0.9 and 1,024 completion tokens
 * (the HPT paper's generation settings, hpt.md §9), the `hpf` ladder, strict mode, seed 0, 4 samples at once, a record
 * missing a field fails the run, key from `OPENAI_API_KEY`, 600 s per call, 5 retries, the model-call cache on.
 */
export const RUN_DEFAULTS = {
  ladder: 'hpf',
  compat: 'strict',
  seed: 0,
  concurrency: 4,
  temperature: 0.6,
  topP: 0.9,
  maxTokens: 1024,
  onInvalid: 'fail',
  apiKeyEnv: 'OPENAI_API_KEY',
  timeoutSeconds: 600,
  maxRetries: 5,
  maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
  cache: true,
  cacheDir: join(homedir(), '.cache', 'hpt-bench'),
} as const;

/** A run configuration as a library caller writes it: `dataset` and `model`, anything else optional (`runConfig`). */
export type RunConfigInput = Partial<Omit<RunConfig, 'dataset' | 'model' | 'generation' | 'modelOptions'>> & {
  dataset: string;
  model: string;
  generation?: Partial<GenerationSettings>;
  modelOptions?: Record<string, Json>;
};

/**
 * A complete `RunConfig` from `input`, every field not given set to `RUN_DEFAULTS`; `generation` and `modelOptions` are
 * merged field by field over the defaults (`modelOptions`: `apiKeyEnv`, `timeoutMs`, `maxResponseBytes`; add `baseUrl`
 * for an endpoint). A relative `data` path is kept as given (resolve it against your working directory yourself).
 */
export function runConfig(input: RunConfigInput): RunConfig {
  const { generation, modelOptions, ...rest } = input;
  return {
    ladder: RUN_DEFAULTS.ladder,
    compat: RUN_DEFAULTS.compat,
    seed: RUN_DEFAULTS.seed,
    concurrency: RUN_DEFAULTS.concurrency,
    onInvalid: RUN_DEFAULTS.onInvalid,
    cacheDir: RUN_DEFAULTS.cacheDir,
    cache: RUN_DEFAULTS.cache,
    maxRetries: RUN_DEFAULTS.maxRetries,
    ...rest,
    modelOptions: { apiKeyEnv: RUN_DEFAULTS.apiKeyEnv, timeoutMs: 1000 * RUN_DEFAULTS.timeoutSeconds, maxResponseBytes: RUN_DEFAULTS.maxResponseBytes, ...modelOptions },
    generation: { temperature: RUN_DEFAULTS.temperature, topP: RUN_DEFAULTS.topP, maxTokens: RUN_DEFAULTS.maxTokens, ...(input.seed !== undefined ? { seed: input.seed } : {}), ...generation },
  };
}
