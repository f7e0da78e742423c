/**
 * The sandbox escape suite as a function (`checkSandbox`) and the HumanEval scorer's preflight.
 * On this machine as root every protection must hold; the same suite must find the missing ones when the sandbox is
 * weakened (`isolate: false`: no mount namespace, no memory cgroup) or cannot run at all (a missing interpreter).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { isHptError, type HptError } from '@hpt-bench/core';
import { checkSandbox, SANDBOX_PROTECTIONS, type SandboxCheckReport } from '../../plugins/metrics/src/sandbox-check.js';
import { HumanEvalScorer, sandboxPreflightRecord } from '../../plugins/metrics/src/humaneval.js';

const isRoot = process.getuid?.() === 0;

describe('checkSandbox', () => {
  let report: SandboxCheckReport;
  beforeAll(async () => {
    report = await checkSandbox();
  }, 60_000);

  it('reports every protection with a verdict and a detail, the mode and its duration', () => {
    expect(Object.keys(report.protections)).toEqual([...SANDBOX_PROTECTIONS]);
    for (const p of SANDBOX_PROTECTIONS) {
      expect(typeof report.protections[p].holds).toBe('boolean');
      expect(report.protections[p].detail.length).toBeGreaterThan(0);
    }
    expect(report.missing).toEqual(SANDBOX_PROTECTIONS.filter((p) => !report.protections[p].holds));
    expect(report.holds).toBe(report.missing.length === 0);
    expect(report.durationMs).toBeGreaterThan(0);
    expect(report.durationMs).toBeLessThan(30_000);
  });

  it.runIf(isRoot)('as root on this machine every protection holds (namespaces, a uid per run, a memory cgroup)', () => {
    expect(report.mode).toBe('namespaces');
    expect(report.missing, JSON.stringify(report.protections, null, 1)).toEqual([]);
    expect(report.isolation).toMatchObject({ user: 'per-run uid', memory: 'cgroup', network: 'isolated', filesystem: 'private' });
    expect(report.protections.descriptors.detail).toContain('30, 100, 200, 251, 300');
    expect(report.protections.exitForgery.detail).toContain('control passed');
  });

  it.runIf(isRoot)('finds what the basic mode lacks: the host filesystem and a total memory bound', async () => {
    const basic = await checkSandbox({ isolate: false });
    expect(basic.mode).toBe('basic');
    expect(basic.protections.filesystem.holds).toBe(false);
    expect(basic.protections.filesystem.detail).toMatch(/secret\.txt/);
    expect(basic.protections.memory.holds).toBe(false);
    expect(basic.protections.memory.detail).toMatch(/held (\d{3,}) MiB in [2-6] children/);
    // what the basic mode does have still holds
    for (const p of ['descriptors', 'exitForgery', 'timeout', 'environment'] as const) expect(basic.protections[p].holds, basic.protections[p].detail).toBe(true);
    expect(basic.holds).toBe(false);
    expect(basic.missing).toEqual(expect.arrayContaining(['filesystem', 'memory']));
  }, 60_000);

  it('an interpreter that does not exist: mode unavailable, no protection holds', async () => {
    const r = await checkSandbox({ python: '/nonexistent/python3' });
    expect(r.mode).toBe('unavailable');
    expect(r.holds).toBe(false);
    expect(r.missing).toEqual([...SANDBOX_PROTECTIONS]);
  });
});

describe('HumanEval preflight', () => {
  const scorer = new HumanEvalScorer();

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
