/**
 * The HumanEval scorer's preflight (`code-exec`): it runs the escape suite of the sandbox it was given
 * (`Tokens.CodeSandbox`; here the core's process-wide one, as a run container gives it) once per process, sandbox and
 * interpreter, keeps a compact record of it, and refuses to run model code when a protection is missing unless
 * `unsafeSandbox`. The suite itself: test/sandbox/check.test.ts.
 */
import { describe, it, expect } from 'vitest';
import { isHptError, SANDBOX_PROTECTIONS, sharedCodeSandbox, type CodeSandbox, type HptError, type SandboxCheckReport } from '@hpt-bench/core';
import { HumanEvalScorer, sandboxPreflightRecord } from '../../plugins/metrics/src/humaneval.js';

const isRoot = process.getuid?.() === 0;

describe('HumanEval preflight', () => {
  const scorer = new HumanEvalScorer(sharedCodeSandbox());

  it.runIf(isRoot)('returns a compact record of the check (all protections hold here)', async () => {
    const record = await scorer.preflight({ compat: 'strict', options: {} });
    expect(record).toMatchObject({ check: 'sandbox', mode: 'namespaces', holds: true, missing: [], user: 'per-run uid', memory: 'cgroup' });
    expect(Object.keys(record.protections as object)).toEqual([...SANDBOX_PROTECTIONS]);
    expect(record.summary).toMatch(/^sandbox: all 9 protections hold/);
    expect(JSON.stringify(record).length).toBeLessThan(1000);
    expect(record.unsafe).toBeUndefined();
  }, 60_000);

  it('runs the check once per process and interpreter (memoized)', async () => {
    const ctx = { compat: 'strict' as const, options: { python: '/nonexistent/python3', unsafeSandbox: true } };
    const t0 = performance.now();
    const a = await scorer.preflight(ctx);
    const b = await scorer.preflight(ctx);
    expect(b).toEqual(a);
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('refuses to run model code when a protection is missing: E_SANDBOX, exit code 1, names them and the way out', async () => {
    let err: unknown;
    try {
      await scorer.preflight({ compat: 'strict', options: { python: '/nonexistent/python3' } });
    } catch (e) {
      err = e;
    }
    expect(isHptError(err)).toBe(true);
    const e = err as HptError;
    expect(e.code).toBe('E_SANDBOX');
    expect(e.exitCode).toBe(1);
    for (const p of ['filesystem', 'network', 'memory', 'exitForgery']) expect(e.message).toContain(p);
    expect(e.message).toContain('hpt-bench sandbox check');
    expect(e.message).toContain('--unsafe-sandbox');
  });

  it('with unsafeSandbox the run may go on, and the record says unsafe', async () => {
    const record = await scorer.preflight({ compat: 'strict', options: { python: '/nonexistent/python3', unsafeSandbox: true } });
    expect(record).toMatchObject({ check: 'sandbox', mode: 'unavailable', holds: false, unsafe: true });
    expect(record.summary).toMatch(/^UNSAFE sandbox/);
    expect(record.missing).toEqual([...SANDBOX_PROTECTIONS]);
  });

  it('sandboxPreflightRecord keeps names and verdicts only', () => {
    const fake: SandboxCheckReport = {
      protections: Object.fromEntries(SANDBOX_PROTECTIONS.map((p) => [p, { holds: p !== 'memory', detail: 'x'.repeat(500) }])) as SandboxCheckReport['protections'],
      mode: 'namespaces',
      holds: false,
      missing: ['memory'],
      isolation: { user: 'per-run uid', memory: 'rlimit', network: 'isolated', filesystem: 'private', processes: 'pid-namespace', limits: 'prlimit', python: '/usr/bin/python3' },
      durationMs: 1234,
    };
    const r = sandboxPreflightRecord(fake);
    expect(r).toMatchObject({ holds: false, missing: ['memory'], memory: 'rlimit', summary: 'sandbox: memory does not hold (namespaces)' });
    expect((r.protections as Record<string, boolean>).memory).toBe(false);
    expect(JSON.stringify(r)).not.toContain('xxxx');
  });
});

describe('the scorer uses the sandbox it is given', () => {
  /** A sandbox that records its calls; its check finds `missing` not holding. */
  function fakeSandbox(missing: SandboxCheckReport['missing']): CodeSandbox & { calls: string[] } {
    const calls: string[] = [];
    const iso = { mode: 'namespaces', network: 'isolated', user: 'per-run uid', filesystem: 'private', processes: 'pid-namespace', limits: 'prlimit', memory: 'cgroup', python: '/fake/python3', visible: [], notes: [] } as const;
    return {
      calls,
      run: async (program) => {
        calls.push(`run ${program.includes('check(') ? 'check' : 'other'}`);
        return { status: program.includes('return None') ? 'failed' : 'passed', exitCode: 0, signal: null, stdout: '', stderr: '', durationMs: 1 };
      },
      isolation: () => ({ ...iso, visible: [], notes: [] }),
      check: async (options) => {
        calls.push(`check ${options?.python ?? 'default'}`);
        return {
          protections: Object.fromEntries(SANDBOX_PROTECTIONS.map((p) => [p, { holds: !missing.includes(p), detail: 'fake' }])) as SandboxCheckReport['protections'],
          mode: 'namespaces',
          holds: missing.length === 0,
          missing,
          isolation: { user: 'per-run uid', memory: 'cgroup', network: 'isolated', filesystem: 'private', processes: 'pid-namespace', limits: 'prlimit', python: '/fake/python3' },
          durationMs: 5,
        };
      },
    };
  }
  const sample = { id: 'HumanEval/0', index: 0, input: { code: 'def f(x):\n', test: 'def check(c):\n    assert c(1) == 1\n', entry_point: 'f' }, target: '    return x\n' };
  const ctx = { compat: 'strict' as const, options: {} };

  it('score runs the program through it; preflight, checkEnvironment and the aggregator ask it', async () => {
    const box = fakeSandbox([]);
    const scorer = new HumanEvalScorer(box);
    expect((await scorer.score(sample, { promptText: '', completion: '```python\ndef f(x):\n    return x\n```', cue: 'Code:' }, ctx)).solved).toBe(true);
    expect((await scorer.score(sample, { promptText: '', completion: '```python\ndef f(x):\n    return None\n```', cue: 'Code:' }, ctx)).solved).toBe(false);
    expect(await scorer.preflight(ctx)).toMatchObject({ check: 'sandbox', holds: true });
    await scorer.preflight(ctx); // memoized per sandbox and interpreter
    expect((await scorer.checkEnvironment({ compat: 'strict', options: { python: '/x/python3' } })).holds).toBe(true);
    expect(box.calls).toEqual(['run check', 'run check', 'check default', 'check /x/python3']);
    expect(scorer.createAggregator(ctx).result()['sandbox.network']).toBe('isolated');
  });

  it('a missing protection of that sandbox refuses the run (E_SANDBOX); another sandbox is checked on its own', async () => {
    const weak = new HumanEvalScorer(fakeSandbox(['processes']));
    await expect(weak.preflight(ctx)).rejects.toMatchObject({ code: 'E_SANDBOX', message: expect.stringContaining('missing: processes (fake)') });
    await expect(new HumanEvalScorer(fakeSandbox([])).preflight(ctx)).resolves.toMatchObject({ holds: true });
  });

  it('a sandbox error is not a failed sample: E_SANDBOX naming the sample', async () => {
    const box = fakeSandbox([]);
    box.run = async () => ({ status: 'error', exitCode: null, signal: null, stdout: '', stderr: 'hpt-sandbox: setup failed: root', durationMs: 0 });
    await expect(new HumanEvalScorer(box).score(sample, { promptText: '', completion: '```python\ndef f(x):\n    return x\n```', cue: 'Code:' }, ctx)).rejects.toMatchObject({
      code: 'E_SANDBOX',
      message: expect.stringContaining('could not run sample HumanEval/0 (mode namespaces, python /fake/python3): hpt-sandbox: setup failed: root'),
    });
  });
});
