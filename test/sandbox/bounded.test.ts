/**
 * The core's code sandbox (`BoundedCodeSandbox`, packages/core/src/exec/code-sandbox.ts; issue 26, item 4): the
 * package's `runPython` never queues, the core bounds how many programs run at once with its own limiter, passes only
 * the SDK's options on, and is what every run container gives scorers as `Tokens.CodeSandbox` (and only scorers).
 */
import { describe, expect, it } from 'vitest';
import { BoundedCodeSandbox, constructContribution, createRunContainer, DEFAULT_SANDBOX_CONCURRENCY, Registry, sharedCodeSandbox, Tokens, type CodeSandbox, type Contribution, type SandboxRunOptions } from '@hpt-bench/core';
import { runsInFlight, sandboxIsolation } from '@hpt-bench/sandbox';
import { codeOf } from '../helpers/errors.js';

const sleeper = (i: number): string => `import time\ntime.sleep(0.4)\nprint(${i})`;

describe('BoundedCodeSandbox', () => {
  it('runs at most `concurrency` programs at once, in order of arrival; results keep their calls', async () => {
    const box = new BoundedCodeSandbox(2);
    let peak = 0;
    const watch = setInterval(() => (peak = Math.max(peak, runsInFlight())), 20);
    try {
      const t0 = performance.now();
      const runs = [0, 1, 2, 3, 4].map((i) => box.run(sleeper(i), { timeoutMs: 20_000 }));
      expect([box.inFlight, box.waiting]).toEqual([2, 3]);
      const rs = await Promise.all(runs);
      // three waves of 0.4 s: a bound of 2 cannot do it faster
      expect(performance.now() - t0).toBeGreaterThanOrEqual(1150);
      expect(rs.map((r) => [r.status, r.stdout.trim()])).toEqual([0, 1, 2, 3, 4].map((i) => ['passed', String(i)]));
    } finally {
      clearInterval(watch);
    }
    expect(peak).toBeLessThanOrEqual(2);
    expect(peak).toBeGreaterThan(0);
    expect([box.inFlight, box.waiting]).toEqual([0, 0]);
  });

  it('the timeout of a waiting run starts at its spawn, not while it waits', async () => {
    const box = new BoundedCodeSandbox(1);
    const [a, b] = await Promise.all([box.run('import time\ntime.sleep(0.8)', { timeoutMs: 20_000 }), box.run('import time\ntime.sleep(0.3)', { timeoutMs: 1000 })]);
    expect([a.status, b.status]).toEqual(['passed', 'passed']);
  });

  it('passes only the SDK options on (no descriptors of the evaluator through a plugin)', async () => {
    const box = new BoundedCodeSandbox(1);
    const sneaky = { timeoutMs: 5000, inheritDescriptors: { 30: 1 } } as SandboxRunOptions;
    const r = await box.run('import os\nos.fstat(30)', sneaky);
    expect(r.status).toBe('failed');
    expect(r.stderr).toContain('Bad file descriptor');
  });

  it('refuses a bound outside 1..255 (one user id per run in flight)', () => {
    for (const n of [0, -1, 1.5, 256, Number.NaN]) expect(() => new BoundedCodeSandbox(n), String(n)).toThrow(RangeError);
    expect(new BoundedCodeSandbox(255).concurrency).toBe(255);
    expect(new BoundedCodeSandbox().concurrency).toBe(DEFAULT_SANDBOX_CONCURRENCY);
  });

  it('isolation is the package probe', () => {
    expect(sharedCodeSandbox().isolation()).toBe(sandboxIsolation());
    expect(sharedCodeSandbox().isolation({ isolate: false })).toBe(sandboxIsolation({ isolate: false }));
  });
});

describe('Tokens.CodeSandbox in the run container', () => {
  const contribution = (kind: Contribution['kind']): Contribution => ({ kind, id: 'x', qualifiedId: 'p/x', plugin: { name: 'p', root: '/nowhere', version: '1.0.0', origin: 'local' }, decl: { id: 'x' } }) as unknown as Contribution;
  class NeedsSandbox {
    static inject = [Tokens.CodeSandbox];
    constructor(readonly sandbox: CodeSandbox) {}
  }

  it('a scorer receives the process-wide bounded sandbox', () => {
    const c = createRunContainer(new Registry());
    const built = constructContribution<NeedsSandbox>(c, NeedsSandbox, contribution('scorers'));
    expect(built.sandbox).toBe(sharedCodeSandbox());
    expect(built.sandbox).toBeInstanceOf(BoundedCodeSandbox);
    expect(constructContribution<NeedsSandbox>(createRunContainer(new Registry()), NeedsSandbox, contribution('scorers')).sandbox).toBe(built.sandbox);
  });

  it('any other kind asking for it is an E_PLUGIN error naming the token', () => {
    const c = createRunContainer(new Registry());
    for (const kind of ['models', 'datasets', 'strategies', 'selectors', 'metrics', 'reports'] as const) {
      const build = (): unknown => constructContribution(c, NeedsSandbox, contribution(kind));
      expect(codeOf(build), kind).toBe('E_PLUGIN');
      expect(build).toThrow(/constructor parameter 1 \(sandbox\) asks for Tokens\.CodeSandbox, which is not available to a/);
    }
  });
});
