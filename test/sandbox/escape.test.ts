/**
 * Hostile programs against the sandbox (`@hpt-bench/sandbox`, packages/sandbox/src/sandbox.ts).
 * - "passed" means the program ran to its end: exit forgeries (sys.exit(0), os._exit(0), SystemExit subclasses, atexit
 *   hooks, signals, a thread's os._exit, junk on the report channel) fail, correct programs pass;
 * - descriptors opened by this test process (a host directory, a writable host file), placed at 30/100/200/251/300
 *   without close-on-exec as inherited ones would be, never reach the program;
 * - a fork bomb does not starve 6 concurrent correct programs that start a thread (each run has its own uid);
 * - the memory of a forking program, and unmapped memfd memory, are bounded in total (a memory cgroup per run);
 * - temp dirs and cgroups of a dead evaluator are removed, those of live ones kept.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CGROUP_SLACK_MB, cleanStaleSandboxes, runPython, runPythonSync, runUid, sandboxIsolation } from '@hpt-bench/sandbox';

const isRoot = process.getuid?.() === 0;
const iso = sandboxIsolation();
const work = mkdtempSync(path.join(os.tmpdir(), 'hpt-escape-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The evaluator's memory cgroup directory (cgroup v1 `memory` hierarchy or v2), if any. */
function ownMemoryCgroupDir(): string | undefined {
  const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const v1 = lines.find((l) => l.split(':')[1]?.split(',').includes('memory'));
  if (v1) return path.join('/sys/fs/cgroup/memory', v1.split(':')[2] ?? '');
  const v2 = lines.find((l) => l.startsWith('0::'));
  return v2 ? path.join('/sys/fs/cgroup', v2.slice(3)) : undefined;
}

describe('exit forgeries never pass', () => {
  const forgeries: Record<string, string> = {
    'sys.exit(0)': 'import sys\nsys.exit(0)\nassert False',
    'exit(0) builtin': 'exit(0)\nassert False',
    'os._exit(0)': 'import os\nos._exit(0)\nassert False',
    'raise SystemExit': 'raise SystemExit\nassert False',
    'SystemExit subclass with code 0': 'class Done(SystemExit):\n    pass\nraise Done(0)',
    'SystemExit caught by nobody inside a function': 'def check(f):\n    f()\n    assert False\ndef candidate():\n    raise SystemExit(0)\ncheck(candidate)',
    'atexit hook exiting 0 after a failed assert': 'import atexit, os\natexit.register(lambda: os._exit(0))\nassert False',
    'atexit hook with sys.exit(0)': 'import atexit, sys\natexit.register(lambda: sys.exit(0))\nraise ValueError("wrong")',
    'SIGKILL itself': 'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)',
    'SIGTERM its process group': 'import os, signal\nos.killpg(0, signal.SIGTERM)\nassert False',
    'kill its parent': 'import os, signal, time\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\nexcept OSError:\n    pass\ntime.sleep(0.3)\nassert False',
    'os._exit(0) from a thread': 'import os, threading, time\nthreading.Thread(target=lambda: os._exit(0)).start()\ntime.sleep(2)\nassert False',
    'made-up nonce on the report channel': 'import os\nfor fd in range(3, 10):\n    try:\n        os.write(fd, b"0" * 32 + b"\\n")\n    except OSError:\n        pass\nos._exit(0)',
    'os.abort': 'import os\nos.abort()',
  };
  for (const [name, program] of Object.entries(forgeries)) {
    it(`${name}: failed`, async () => {
      const r = await runPython(program);
      expect(r.status, `${name}: ${r.stderr.slice(-300)}`).toBe('failed');
    });
  }

  it('the sync runner agrees (sys.exit(0), os._exit(0), atexit fail; a completed program passes)', () => {
    expect(runPythonSync('import sys\nsys.exit(0)').status).toBe('failed');
    expect(runPythonSync('import os\nos._exit(0)').status).toBe('failed');
    expect(runPythonSync('import atexit, os\natexit.register(lambda: os._exit(0))\nassert False').status).toBe('failed');
    expect(runPythonSync('def check(f):\n    assert f(3) == 9\ncheck(lambda x: x * x)')).toMatchObject({ status: 'passed', exitCode: 0 });
  });

  it('correct programs still pass: output, atexit hooks that do nothing, daemon threads, __main__ semantics, pickling', async () => {
    const r = await runPython(`
import atexit, pickle, sys, threading
atexit.register(lambda: None)
threading.Thread(target=lambda: __import__("time").sleep(30), daemon=True).start()
class Point:
    def __init__(self, x):
        self.x = x
assert pickle.loads(pickle.dumps(Point(3))).x == 3
assert __name__ == "__main__" and __file__.endswith("main.py") and sys.argv[0].endswith("main.py")
if __name__ == "__main__":
    print("main ran")
def check(candidate):
    assert candidate([3, 1, 2]) == [1, 2, 3]
check(sorted)
`);
    expect(r.status, r.stderr).toBe('passed');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('main ran\n');
  });

  it('keeps Python exit codes and tracebacks of failures', async () => {
    const r = await runPython('import sys\nsys.exit(7)');
    expect(r).toMatchObject({ status: 'failed', exitCode: 7 });
    const e = await runPython('def f():\n    raise KeyError("k")\nf()');
    expect(e.status).toBe('failed');
    expect(e.exitCode).toBe(1);
    expect(e.stderr).toMatch(/main\.py", line 2, in f[\s\S]*KeyError: 'k'/);
  });

  it('the program cannot read the nonce: stdin is /dev/null, no fd but 0-2 and the report channel, nothing in env or argv', async () => {
    const r = await runPython(`
import os, sys
print(repr(sys.stdin.read()), repr(os.read(0, 100)))
print(sorted(int(f) for f in os.listdir("/proc/self/fd")))
print(sorted(os.environ), sys.argv)
print(open("/proc/self/cmdline", "rb").read().count(b"\\0"))
`);
    expect(r.status).toBe('passed');
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe("'' b''");
    // 0-2, the report channel 4, and the descriptor listdir itself had open (3) while reading /proc/self/fd
    expect(lines[1]).toBe('[0, 1, 2, 3, 4]');
    expect(lines[2]).not.toMatch(/[0-9a-f]{32}/);
    expect(r.stdout).not.toMatch(/[0-9a-f]{32}/);
  });
});

describe('descriptors of the evaluator never reach the program', () => {
  it.each([true, false])('directory and writable-file descriptors at 30/100/200/251/300 are closed (isolate %s)', async (isolate) => {
    const hostDir = mkdtempSync(path.join(work, 'fds-'));
    writeFileSync(path.join(hostDir, 'host-secret.txt'), 'secret');
    const victim = path.join(hostDir, 'victim.txt');
    writeFileSync(victim, '');
    const dirFd = openSync(hostDir, 'r');
    const fileFd = openSync(victim, 'w');
    try {
      const program = `
import os
hits = []
for fd in range(3, 1025):
    if fd == 4:
        continue  # the harness's report channel
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
print(hits)
`;
      const r = await runPython(program, { isolate, inheritDescriptors: { 30: dirFd, 100: fileFd, 200: dirFd, 251: fileFd, 300: dirFd } });
      expect(r.status, r.stderr).toBe('passed');
      expect(r.stdout.trim()).toBe('[]');
      expect(fstatSync(fileFd).size).toBe(0);
      expect(readFileSync(victim, 'utf8')).toBe('');
      const sync = runPythonSync(program, { isolate, inheritDescriptors: { 30: dirFd, 100: fileFd, 251: fileFd } });
      expect(sync.stdout.trim()).toBe('[]');
      expect(readFileSync(victim, 'utf8')).toBe('');
    } finally {
      closeSync(dirFd);
      closeSync(fileFd);
    }
  });

  it('the same descriptors WOULD be reachable without the harness closing them (the attack is real)', async () => {
    // control: the descriptors really are in the sandbox's first process (sh), before the harness runs
    const hostDir = mkdtempSync(path.join(work, 'fds-control-'));
    const dirFd = openSync(hostDir, 'r');
    try {
      // a shell in the same spawn configuration sees descriptor 30
      const seen = await new Promise<string>((resolve) => {
        const stdio: (string | number)[] = ['ignore', 'pipe', 'ignore'];
        while (stdio.length < 30) stdio.push('ignore');
        stdio.push(dirFd);
        const c = spawn('/bin/sh', ['-c', 'ls /proc/$$/fd'], { stdio: stdio as never });
        let out = '';
        c.stdout?.on('data', (b: Buffer) => (out += b.toString()));
        c.on('close', () => resolve(out));
      });
      expect(seen.split(/\s+/)).toContain('30');
    } finally {
      closeSync(dirFd);
    }
  });
});

describe('per-run user ids and total memory', () => {
  it.runIf(isRoot)('a fork bomb next to 6 concurrent correct programs that start a thread: all 6 pass', async () => {
    const bomb = 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass';
    const good = `
import threading, time
time.sleep(0.4)
results = []
threads = [threading.Thread(target=lambda i=i: results.append(i * i)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
def check(r):
    assert sorted(r) == [0, 1, 4, 9]
check(results)
`;
    const [b, ...goods] = await Promise.all([runPython(bomb, { timeoutMs: 2000 }), ...Array.from({ length: 6 }, () => runPython(good))]);
    expect(['timeout', 'failed']).toContain(b.status);
    for (const g of goods) expect(g.status, g.stderr.slice(-300)).toBe('passed');
  });

  it.runIf(isRoot)('concurrent runs have distinct uids of this process; the sync runs use slot 255', async () => {
    const prog = 'import os, time\ntime.sleep(0.3)\nprint(os.getuid(), os.getgid())';
    const rs = await Promise.all(Array.from({ length: 5 }, () => runPython(prog)));
    const uids = rs.map((r) => Number(r.stdout.split(' ')[0]));
    expect(new Set(uids).size).toBe(5);
    for (const u of uids) {
      expect(u).toBeGreaterThanOrEqual(runUid(0));
      expect(u).toBeLessThan(runUid(255));
    }
    expect(runPythonSync('import os\nprint(os.getuid())').stdout.trim()).toBe(String(runUid(255)));
  });

  it.runIf(isRoot)('the total memory of a forking program is bounded (memoryMb + 64 MiB), not maxProcesses x memoryMb', async () => {
    expect(iso.memory).toBe('cgroup');
    const program = `
import os, time
for i in range(6):
    if os.fork() == 0:
        try:
            b = b"x" * (200 * 1024 * 1024)
            time.sleep(0.8)
            os.write(1, b"alive\\n")
        except MemoryError:
            pass
        os._exit(0)
for i in range(6):
    os.wait()
`;
    const r = await runPython(program, { memoryMb: 256, timeoutMs: 8000 });
    const alive = (r.stdout.match(/alive/g) ?? []).length;
    // 6 x 200 MiB fits 6 RLIMIT_AS of 256 MiB each; only the per-run cgroup keeps them below 320 MiB together
    expect(alive * 200).toBeLessThanOrEqual(256 + CGROUP_SLACK_MB);
  });

  it.runIf(isRoot)('memory that is never mapped (memfd, outside RLIMIT_AS) is bounded too', async () => {
    const program = `
import os
fds = []
for i in range(60):
    fd = os.memfd_create("x")
    os.write(fd, b"y" * (15 * 1024 * 1024))
    fds.append(fd)
    os.write(1, b"%d\\n" % len(fds))
`;
    const r = await runPython(program, { memoryMb: 256, timeoutMs: 8000 });
    const reached = Number(r.stdout.trim().split('\n').pop() ?? 0) * 15;
    expect(r.status).toBe('failed');
    expect(reached).toBeLessThanOrEqual(256 + CGROUP_SLACK_MB);
  });

  it.runIf(isRoot)('each run joins its own cgroup, which is removed afterwards', async () => {
    const cg = ownMemoryCgroupDir() as string;
    const before = readdirSync(cg).filter((n) => n.startsWith(`hpt-sbx-${process.pid}-`));
    const r = await runPython('print(open("/proc/self/cgroup").read())');
    expect(r.status).toBe('passed');
    expect(r.stdout).toMatch(new RegExp(`/hpt-sbx-${process.pid}-\\d+-[0-9a-f]+\\n`));
    const name = new RegExp(`(hpt-sbx-${process.pid}-\\d+-[0-9a-f]+)`).exec(r.stdout)?.[1] as string;
    await new Promise((res) => setTimeout(res, 300));
    expect(existsSync(path.join(cg, name))).toBe(false);
    expect(readdirSync(cg).filter((n) => n.startsWith(`hpt-sbx-${process.pid}-`))).toEqual(before);
  });
});

describe('leftovers of a killed evaluator', () => {
  /** A pid that no process has now: a child that already exited. */
  async function deadPid(): Promise<number> {
    const c = spawn('true');
    await new Promise((r) => c.on('exit', r));
    return c.pid as number;
  }

  it('removes temp dirs whose owner process is dead or whose pid was reused later; keeps live owners', async () => {
    const tmp = mkdtempSync(path.join(work, 'stale-'));
    const dead = await deadPid();
    const live = process.ppid; // the vitest main process: alive, started before the dirs below
    const mk = (name: string): string => {
      const d = path.join(tmp, name);
      mkdirSync(path.join(d, 'root'), { recursive: true });
      writeFileSync(path.join(d, 'main.py'), 'print(1)');
      return d;
    };
    const deadDir = mk(`hpt-sbx-${dead}-abc123`);
    const liveDir = mk(`hpt-sbx-${live}-def456`);
    const mine = mk(`hpt-sbx-${process.pid}-ghi789`);
    // pid 1 is alive, but it started after this back-dated dir was made: a reused pid, not the dir's owner
    const reused = mk(`hpt-sbx-1-jkl012`);
    utimesSync(reused, new Date(1000), new Date(1000));
    const other = mk('hpt-sbx-XyZ123'); // old naming without a pid: never touched
    const removed = cleanStaleSandboxes(tmp);
    expect(removed.sort()).toEqual([deadDir, reused].sort());
    expect(existsSync(deadDir)).toBe(false);
    expect(existsSync(reused)).toBe(false);
    expect(existsSync(liveDir)).toBe(true);
    expect(existsSync(mine)).toBe(true);
    expect(existsSync(other)).toBe(true);
  });

  it.runIf(isRoot)('removes run cgroups of dead evaluators under this process cgroup', async () => {
    const cg = ownMemoryCgroupDir() as string;
    const dead = await deadPid();
    const stale = path.join(cg, `hpt-sbx-${dead}-1-aaaaaa`);
    mkdirSync(stale);
    try {
      const removed = cleanStaleSandboxes(mkdtempSync(path.join(work, 'stale-cg-')));
      expect(removed).toContain(stale);
      expect(existsSync(stale)).toBe(false);
    } finally {
      if (existsSync(stale)) rmSync(stale, { recursive: true, force: true });
    }
  });
});
