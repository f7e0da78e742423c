/**
 * End-to-end, with built code in separate processes:
 * - `hpt-bench sandbox check` as a process: the table, `--json`, exit 0 when every protection holds, 1 otherwise;
 * - descriptors a real evaluator process inherited from ITS parent (here: this test, which opens a host directory and
 *   a writable host file and hands them down at 30/100/200/251/300, as a shell's `exec 30</` would) never reach
 *   model code;
 * - a SIGKILLed evaluator leaves its temp dir (and run cgroup) behind; the next evaluator's first run removes them;
 * - the escape suite's `processes` row finds a user id shared with a fork bomb (an evaluator that is not root, with no
 *   user namespaces: every run under the same uid), so its load-robust form still proves what it claims;
 * - a HumanEval run records the sandbox check (`preflight`) in its summary.
 * The sandbox is the built `@hpt-bench/sandbox` package (packages/sandbox/dist).
 */
import { execFileSync, spawn, type StdioOptions } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const isRoot = process.getuid?.() === 0;
const dir = mkdtempSync(join(tmpdir(), 'hpt-e2e-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SANDBOX_JS = join(ROOT, 'packages/sandbox/dist/index.js');

/** Runs `code` (an ES module) in a new Node process: the evaluator. Extra descriptors go at the given numbers. */
function evaluator(code: string, options: { fds?: Record<number, number>; env?: Record<string, string> } = {}): { pid: number; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const stdio: (string | number)[] = ['ignore', 'pipe', 'pipe'];
  for (const [n, fd] of Object.entries(options.fds ?? {})) {
    while (stdio.length <= Number(n)) stdio.push('ignore');
    stdio[Number(n)] = fd;
  }
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, stdio: stdio as StdioOptions, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env } });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (c) => resolve({ code: c, stdout, stderr })));
  return { pid: child.pid as number, done };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('hpt-bench sandbox check', () => {
  it('prints a table of the protections; exit 0 when all hold (root on this machine)', async () => {
    const r = await runCli(['sandbox', 'check']);
    for (const p of ['filesystem', 'network', 'descriptors', 'processes', 'memory', 'exitForgery', 'timeout', 'privileges', 'environment']) expect(r.stdout).toContain(p);
    if (isRoot) {
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/mode namespaces .*all 9 protections hold/);
      expect(r.stdout).not.toMatch(/│ NO /);
    }
  });

  it('--json prints the record; a sandbox that cannot run python exits 1 with every protection missing', async () => {
    const ok = await runCli(['sandbox', 'check', '--json']);
    const rec = JSON.parse(ok.stdout) as { protections: Record<string, { holds: boolean; detail: string }>; mode: string; holds: boolean; missing: string[]; durationMs: number };
    expect(Object.keys(rec.protections)).toHaveLength(9);
    expect(rec.durationMs).toBeGreaterThan(0);
    expect(ok.code).toBe(rec.holds ? 0 : 1);
    if (isRoot) expect(rec).toMatchObject({ mode: 'namespaces', holds: true, missing: [] });
    const bad = await runCli(['sandbox', 'check', '--json', '--python', '/nonexistent/python3']);
    expect(bad.code).toBe(1);
    const badRec = JSON.parse(bad.stdout) as typeof rec;
    expect(badRec).toMatchObject({ mode: 'unavailable', holds: false });
    expect(badRec.missing).toHaveLength(9);
    const table = await runCli(['sandbox', 'check', '--python', '/nonexistent/python3']);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/9 of 9 protections do not hold/);
  });
});

describe('descriptors inherited by the evaluator process', () => {
  it('a directory and a writable file at 30/100/200/251/300 are unusable by model code (both sandbox modes)', async () => {
    const host = mkdtempSync(join(dir, 'host-'));
    writeFileSync(join(host, 'HumanEval-canonical.jsonl'), 'secret');
    const victim = join(host, 'victim.txt');
    writeFileSync(victim, '');
    const dirFd = openSync(host, 'r');
    const fileFd = openSync(victim, 'w');
    try {
      const program = `
import os
hits = []
for fd in range(3, 1025):
    if fd == 4:
        continue
    try:
        os.fchdir(fd)
        hits.append(("fchdir", fd, sorted(os.listdir("."))))
    except OSError:
        pass
    try:
        os.write(fd, b"pwned")
        hits.append(("write", fd))
    except OSError:
        pass
print("hits", hits)
`;
      const code = `
import fs from 'node:fs';
import { runPython } from ${JSON.stringify(SANDBOX_JS)};
const open = [30, 100, 200, 251, 300].filter((fd) => { try { fs.fstatSync(fd); return true; } catch { return false; } });
console.log('evaluator has', JSON.stringify(open));
for (const isolate of [true, false]) {
  const r = await runPython(${JSON.stringify(program)}, { isolate });
  console.log(isolate, r.status, r.stdout.trim());
}
`;
      const r = await evaluator(code, { fds: { 30: dirFd, 100: fileFd, 200: dirFd, 251: fileFd, 300: dirFd } }).done;
      expect(r.code, r.stderr).toBe(0);
      // the descriptors really were in the evaluator (the attack surface of the issue)
      expect(r.stdout).toContain('evaluator has [30,100,200,251,300]');
      expect(r.stdout).toContain('true passed hits []');
      expect(r.stdout).toContain('false passed hits []');
      expect(readFileSync(victim, 'utf8')).toBe('');
    } finally {
      closeSync(dirFd);
      closeSync(fileFd);
    }
  });
});

describe('leftovers of a SIGKILLed evaluator', () => {
  it('the temp dir (and, as root, the run cgroup) of a killed evaluator are removed by the next one', async () => {
    const tmp = mkdtempSync(join(dir, 'tmp-'));
    const first = evaluator(`import { runPython } from ${JSON.stringify(SANDBOX_JS)};\nawait runPython('import time\\ntime.sleep(30)', { timeoutMs: 1000 });`, { env: { TMPDIR: tmp } });
    const mine = (): string[] => readdirSync(tmp).filter((n) => n.startsWith(`hpt-sbx-${first.pid}-`));
    for (let i = 0; i < 100 && mine().length === 0; i++) await sleep(50);
    expect(mine()).toHaveLength(1);
    const cgDir = ownMemoryCgroupDir();
    const cgroups = (): string[] => (cgDir && isRoot ? readdirSync(cgDir).filter((n) => n.startsWith(`hpt-sbx-${first.pid}-`)) : []);
    const procsIn = (n: string): string => {
      try {
        return readFileSync(join(cgDir as string, n, 'cgroup.procs'), 'utf8').trim();
      } catch {
        return '';
      }
    };
    const comm = (pid: string): string => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        return '';
      }
    };
    // kill the evaluator while its program runs (as root: once python is in the run's cgroup)
    const running = (): boolean => cgroups().some((n) => procsIn(n).split('\n').some((pid) => comm(pid).startsWith('python')));
    if (cgDir && isRoot) for (let i = 0; i < 100 && !running(); i++) await sleep(50);
    else await sleep(700);
    const cgBefore = cgroups();
    if (cgDir && isRoot) expect(running()).toBe(true);
    process.kill(first.pid, 'SIGKILL');
    await first.done;
    await sleep(200);
    expect(mine()).toHaveLength(1); // nobody removed it
    if (cgDir && isRoot) expect(cgBefore.length).toBe(1);
    // the program dies at the latest by the sandbox's own backstop (timeout + 2 s = 3 s), though its evaluator is gone
    const t0 = performance.now();
    for (let i = 0; i < 80 && cgDir && isRoot && cgroups().some((n) => procsIn(n) !== ''); i++) await sleep(100);
    if (cgDir && isRoot) {
      expect(running()).toBe(false);
      expect(performance.now() - t0).toBeLessThan(6000);
    }
    const second = await evaluator(`import { runPython } from ${JSON.stringify(SANDBOX_JS)};\nconst r = await runPython('print(7)');\nconsole.log(r.status, r.stdout.trim());`, { env: { TMPDIR: tmp } }).done;
    expect(second.stdout.trim()).toBe('passed 7');
    expect(mine()).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
    if (cgDir && isRoot) expect(cgroups()).toEqual([]);
  }, 30_000);
});

/** Whether this machine has what the shared-uid evaluator needs: root, unshare, setpriv, a user that can read the repo. */
const canDropToNobody = ((): boolean => {
  if (!isRoot) return false;
  try {
    execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(SANDBOX_JS)})`], { stdio: 'ignore' });
    execFileSync('unshare', ['--mount', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('the escape suite finds a user id shared with a fork bomb', () => {
  it.runIf(canDropToNobody)('as nobody, with unshare unusable (every run under uid 65534): processes does not hold, and says why', () => {
    // a mount namespace of this test only, where /usr/bin/unshare is /bin/false: the sandbox falls back to the basic
    // mode without namespaces, and every run of the evaluator (nobody) counts against one RLIMIT_NPROC
    const home = mkdtempSync(join(tmpdir(), 'hpt-e2e-nobody-'));
    chmodSync(home, 0o777); // nobody's HOME and TMPDIR
    let out: string;
    try {
      const script = join(home, 'shared-uid.mjs');
      writeFileSync(script, `import { checkSandbox } from ${JSON.stringify(SANDBOX_JS)};\nconst r = await checkSandbox();\nconsole.log(JSON.stringify({ mode: r.mode, user: r.isolation.user, missing: r.missing, processes: r.protections.processes }));\n`);
      out = execFileSync(
        'unshare',
        ['--mount', '--propagation', 'private', '/bin/sh', '-c', 'mount --bind /bin/false /usr/bin/unshare && exec setpriv --reuid=65534 --regid=65534 --clear-groups "$0" "$1"', process.execPath, script],
        { cwd: '/', encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: home }, timeout: 120_000 },
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    const r = JSON.parse(out.trim().split('\n').pop() as string) as { mode: string; user: string; missing: string[]; processes: { holds: boolean; detail: string } };
    expect(r).toMatchObject({ mode: 'basic', user: 'uid 65534' });
    expect(r.missing).toContain('processes');
    expect(r.processes.holds).toBe(false);
    // the bomb held its limit and outlived the programs, which failed to start their thread: the row's own finding
    expect(r.processes.detail).toMatch(/^fork bomb timeout \(\d+ processes at its limit, [1-9]\d* still running when the last program ended\); 0\/6 concurrent programs starting a thread passed \(failed exit 1: RuntimeError: can't start new thread\); 0 bomb process\(es\) left$/);
  }, 120_000);
});

describe('a HumanEval run records the sandbox check', () => {
  it.runIf(isRoot)('summary.preflight says which protections held; the oracle still solves every problem', async () => {
    const r = await runCli(['run', '--dataset', 'humaneval', '--split', 'mini', '--model', 'baseline:oracle', '--store', join(dir, 'he.db'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as { preflight?: Record<string, unknown>; metrics: Record<string, unknown>; n: number };
    expect(s.preflight).toMatchObject({ check: 'sandbox', holds: true, missing: [] });
    expect(Object.keys(s.preflight?.protections as object)).toHaveLength(9);
    expect(s.metrics['pass@1']).toBe(1);
    // the check is also kept with the stored run, whatever its outcome
    const db = new Database(join(dir, 'he.db'), { readonly: true });
    const row = db.prepare('SELECT preflight FROM runs').get() as { preflight: string };
    db.close();
    expect(JSON.parse(row.preflight)).toEqual(s.preflight);
  });
});

/** This process's memory cgroup directory (v1 `memory` hierarchy, or v2). */
function ownMemoryCgroupDir(): string | undefined {
  if (!existsSync('/proc/self/cgroup')) return undefined;
  const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const v1 = lines.find((l) => l.split(':')[1]?.split(',').includes('memory'));
  if (v1) return join('/sys/fs/cgroup/memory', v1.split(':')[2] ?? '');
  const v2 = lines.find((l) => l.startsWith('0::'));
  return v2 ? join('/sys/fs/cgroup', v2.slice(3)) : undefined;
}
