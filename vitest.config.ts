import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  oxc: { decorator: { legacy: true, emitDecoratorMetadata: true } } as never,
  resolve: {
    alias: {
      '@hpt-bench/sdk': src('./packages/sdk/src/index.ts'),
      '@hpt-bench/core': src('./packages/core/src/index.ts'),
      '@hpt-bench/sandbox': src('./packages/sandbox/src/index.ts'),
    },
  },
  test: {
    include: ['test/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'plugins/*/src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // three test files at once on 2 cores: much of the suite waits (servers, timers, child processes), so a third
    // worker fills the gaps (the full suite: about 5 minutes instead of 8 with one worker; four workers gain nothing)
    maxWorkers: 3,
    setupFiles: ['./test/setup.ts'],
  },
});
