/**
 * `npm run test:fast`: the inner loop (issue 26, item 6) — the unit tests of the SDK, the core, the plugins and the
 * CLI helpers, in worker threads. Left to `npm test`: the tests that start processes (the built CLI: test/e2e,
 * test/judge; Python in the sandbox: test/sandbox, test/metrics/humaneval and humaneval-preflight, hibench code-gen
 * runs), a PostgreSQL server (test/store) or Chromium (test/report). About a minute on 2 cores; `npm test` (what CI
 * runs) about 5.
 */
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      pool: 'threads',
      exclude: [
        '**/node_modules/**',
        'test/e2e/**',
        'test/judge/**',
        'test/store/**',
        'test/report/**',
        'test/sandbox/**',
        'test/metrics/humaneval.test.ts',
        'test/metrics/humaneval-preflight.test.ts',
        'test/hibench/code-gen-run.test.ts',
      ],
    },
  }),
);
