/**
 * The vitest configuration of mutation runs (`npm run mutate`, stryker.config.mjs): the unit tests only. Left out are
 * the tests that start the CLI as a child process (test/e2e, and the unit-test files that call `runCli`): Stryker runs
 * the tests related to a mutated file once per mutant, and a CLI process per test would make a run take hours without
 * killing more mutants than the in-process tests do.
 *
 * `MUTATE_TESTS` (comma-separated globs) narrows the run to those test files, e.g.
 * `MUTATE_TESTS='test/metrics/bleu*.test.ts' npm run mutate -- --mutate plugins/metrics/src/bleu.ts`. Use it instead of
 * Stryker's own `--testFiles`: with StrykerJS 9.6.1 and vitest that option activates static mutants (module-level
 * constants such as a regular expression) only after their module was loaded, so they are reported as survivors even
 * when a test kills them (stryker-mutator/stryker-js#6144).
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

const only = (process.env['MUTATE_TESTS'] ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s !== '');

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: only.length > 0 ? only : ['test/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'plugins/*/src/**/*.test.ts'],
    exclude: [
      '**/node_modules/**',
      'test/e2e/**',
      // these unit-test files also start the CLI (runCli)
      'test/core/schema-precompiled.test.ts',
      'test/judge/calibrate.test.ts',
      'test/judge/judge-e2e.test.ts',
      'test/report/report-cli.test.ts',
    ],
  },
});
