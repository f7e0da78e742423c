/**
 * The sandbox escape suite as a function (`checkSandbox` of `@hpt-bench/sandbox`; the HumanEval scorer's preflight is
 * tested in test/metrics/humaneval-preflight.test.ts). On this machine as root every protection must hold; the same
 * suite must find the missing ones when the sandbox is weakened (`isolate: false`: no mount namespace, no memory
 * cgroup; test/e2e/sandbox.test.ts: a user id shared with a fork bomb) or cannot run at all (a missing interpreter).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { checkSandbox, SANDBOX_PROTECTIONS, type SandboxCheckReport } from '@hpt-bench/sandbox';

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
    // the fork bomb held its process limit while the 6 programs ran, and was still running when they were done
    expect(report.protections.processes.detail).toMatch(/^fork bomb timeout \((\d+) processes at its limit, [1-9]\d* still running when the last program ended\); 6\/6 concurrent programs starting a thread passed; 0 bomb process\(es\) left$/);
    expect(Number(/\((\d+) processes/.exec(report.protections.processes.detail)?.[1])).toBeGreaterThanOrEqual(16);
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
