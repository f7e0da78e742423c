// @ts-check
/**
 * Mutation testing (`npm run mutate`; issue #13 item 12): StrykerJS with the vitest runner and the TypeScript checker,
 * unit tests only (vitest.mutate.config.ts), in a sandbox copy under .stryker-tmp/ (the working tree is never mutated
 * in place). Not part of CI: a run takes one to fifteen minutes per file on one core.
 *
 *   npm run mutate                                                  # the DEFAULT_MUTATE files, in one run
 *   npm run mutate -- --mutate plugins/metrics/src/bleu.ts --concurrency 1
 *   MUTATE_TESTS='test/metrics/bleu*.test.ts' npm run mutate -- --mutate plugins/metrics/src/bleu.ts
 *
 * `MUTATE_TESTS` narrows the tests (see vitest.mutate.config.ts; do not use Stryker's own `--testFiles`). The npm script
 * first links .stryker-tmp/shared to ../shared: the sandbox sits two directories below the repository, and the tests
 * read the specs and data beside the repository through `../shared` (test/helpers/cli.ts `SHARED`).
 *
 * Reports: the score table and every surviving mutant on the console (clear-text), and one HTML report (with the same
 * results as mutation-testing-report-schema JSON beside it) per run under reports/mutation/, named after `--mutate`
 * (e.g. reports/mutation/plugins-metrics-src-bleu.ts.html; `default.html` for the default files, one section per file).
 * The score counts only mutants that compile: the TypeScript checker rejects the others (`# errors` in the table).
 */

/** The files `npm run mutate` mutates when no `--mutate` is given (issue #13 item 12). */
const DEFAULT_MUTATE = [
  'packages/core/src/exec/retry.ts',
  'packages/core/src/ladder/adaptive.ts',
  'packages/core/src/ladder/engine.ts',
  'plugins/metrics/src/bleu.ts',
  'plugins/hibench/src/match/matchers.ts',
];

/** The `--mutate` / `-m` value of the command line, if any. */
function mutateArgument() {
  const argv = process.argv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === '--mutate' || a === '-m') && i + 1 < argv.length) return argv[i + 1];
    if (a.startsWith('--mutate=')) return a.slice('--mutate='.length);
  }
  return undefined;
}

const mutate = mutateArgument();
const reportName = mutate === undefined ? 'default' : mutate.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: true },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.mutate.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  mutate: DEFAULT_MUTATE,
  // dist/ stays: tests load packages/core/dist (precompiled schema validators, a store test's child process)
  ignorePatterns: ['/reports', '/coverage', '.hpt-bench', '/tmp'],
  reporters: ['clear-text', 'html', 'json', 'progress'],
  clearTextReporter: { reportMutants: true, reportTests: false, reportScoreTable: true, allowEmojis: false },
  htmlReporter: { fileName: `reports/mutation/${reportName}.html` },
  jsonReporter: { fileName: `reports/mutation/${reportName}.json` },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  timeoutMS: 10_000,
  thresholds: { high: 90, low: 85, break: null },
};
