import type { RunConfig } from '@hpt-bench/core';

/** A complete manual-run configuration (BoolQ, an OpenAI-compatible model on an unused local port) for unit tests. */
export const BASE_CONFIG: RunConfig = {
  dataset: 'boolq',
  model: 'openai:m',
  modelOptions: { apiKeyEnv: 'OPENAI_API_KEY', baseUrl: 'http://127.0.0.1:1/v1', timeoutMs: 1000 },
  ladder: 'hpf',
  compat: 'strict',
  seed: 0,
  concurrency: 4,
  generation: { temperature: 0.6, topP: 0.9, maxTokens: 1024 },
  onInvalid: 'fail',
  cacheDir: '/tmp/a',
};
