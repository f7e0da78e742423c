/**
 * The single-execution primitive of `@hpt-bench/sandbox` (`runPython`, `runPythonSync`, `sandboxIsolation`): statuses,
 * output caps, cleanup, containment of hostile programs, the basic mode; and that the primitive itself does not queue
 * (the core bounds concurrency: test/sandbox/bounded.test.ts).
 */
import { describe, it, expect, beforeAll, afterEach } from 'vitest';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runPython, runPythonSync, runsInFlight, runUid, sandboxIsolation, STDERR_CAP, STDOUT_CAP } from '@hpt-bench/sandbox';

const isRoot = process.getuid?.() === 0;
const tag = (): string => randomBytes(6).toString('hex');

/** Command lines of all processes on the machine (to look for leftovers carrying a unique marker). */
function processArgs(): string[] {
  return execFileSync('ps', ['-e', '-o', 'args='], { encoding: 'utf8' }).split('\n');
}

/** The pids of processes whose command line contains `marker` (to clean up after a failed containment test). */
function pidsWith(marker: string): number[] {
  return execFileSync('ps', ['-e', '-o', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(marker) && !l.includes('ps -e'))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .filter((n) => Number.isInteger(n) && n > 0);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('sandbox isolation report', () => {
  it('uses the strongest isolation this machine allows (root: namespaces, a uid per run, no network, private fs)', () => {
    const iso = sandboxIsolation();
    expect(iso.limits).toBe('prlimit');
    expect(iso.network).toBe('isolated');
    expect(iso.processes).toBe('pid-namespace');
    if (isRoot) {
      expect(iso.mode).toBe('namespaces');
      expect(iso.user).toBe('per-run uid');
      expect(iso.filesystem).toBe('private');
      expect(iso.visible).toContain('/usr');
      expect(iso.visible).not.toContain('/root');
      expect(iso.visible).not.toContain('/home');
    }
  });

  it('reports a missing interpreter as unavailable and runs return status error', async () => {
    const python = `/nonexistent-${tag()}/python3`;
    expect(sandboxIsolation({ python }).mode).toBe('unavailable');
    const r = await runPython('print(1)', { python });
    expect(r.status).toBe('error');
    expect(runPythonSync('print(1)', { python }).status).toBe('error');
  });
});

describe('runPython basics', () => {
  it('passes on exit 0, fails on an exception or non-zero exit, and captures output', async () => {
    const ok = await runPython('print("hello")');
    expect(ok).toMatchObject({ status: 'passed', exitCode: 0, signal: null, stdout: 'hello\n' });
    expect(ok.durationMs).toBeGreaterThan(0);
    const exc = await runPython('raise ValueError("boom")');
    expect(exc.status).toBe('failed');
    expect(exc.exitCode).toBe(1);
    expect(exc.stderr).toContain('ValueError: boom');
    expect((await runPython('import sys; sys.exit(3)')).exitCode).toBe(3);
    expect((await runPython('def f(:\n  pass')).status).toBe('failed');
  });

  it('caps stdout (head) and stderr (tail)', async () => {
    const r = await runPython('import sys\nprint("a" * 100000)\nsys.stderr.write("b" * 10000 + "END")');
    expect(r.status).toBe('passed');
    expect(r.stdout.length).toBe(STDOUT_CAP);
    expect(r.stderr.length).toBe(STDERR_CAP);
    expect(r.stderr.endsWith('END')).toBe(true);
  });

  it('gives the program a closed stdin and its own working directory', async () => {
    const r = await runPython('import sys, os\nprint(repr(sys.stdin.read()))\nopen("scratch.txt", "w").write("x")\nprint(os.listdir("."))');
    expect(r.status).toBe('passed');
    expect(r.stdout).toContain("''");
    expect(r.stdout).toContain('scratch.txt');
    expect(r.stdout).toContain('main.py');
  });

  it('removes its temp dirs (async and sync runs, also after a timeout)', async () => {
    const saved = process.env.TMPDIR;
    const base = mkdtempSync(path.join(os.tmpdir(), 'hpt-sbx-test-'));
    process.env.TMPDIR = base;
    try {
      await runPython('open("junk", "w").write("x" * 1000)');
      await runPython('while True: pass', { timeoutMs: 300 });
      runPythonSync('open("junk", "w").write("x")');
      expect(readdirSync(base)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('runPythonSync has the same statuses', () => {
    expect(runPythonSync('print(2)')).toMatchObject({ status: 'passed', stdout: '2\n' });
    expect(runPythonSync('assert False').status).toBe('failed');
    const t0 = performance.now();
    expect(runPythonSync('while True: pass', { timeoutMs: 500 }).status).toBe('timeout');
    expect(performance.now() - t0).toBeLessThan(1500);
  });

  it('does not queue: every call starts its program at once, each with a uid slot of its own, given back at the end', async () => {
    expect(runsInFlight()).toBe(0);
    const runs = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => runPython(`import time\ntime.sleep(0.5)\nprint(${i})`, { timeoutMs: 20_000 }));
    // all ten hold a slot before any of them ended (the queue of 8 the sandbox had before issue 26 would not)
    expect(runsInFlight()).toBe(10);
    const rs = await Promise.all(runs);
    expect(rs.map((r) => r.status)).toEqual(Array(10).fill('passed'));
    expect(rs.map((r) => r.stdout.trim())).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(runsInFlight()).toBe(0);
  });

  it('an abort signal ends a run like its timeout, and an aborted signal starts nothing', async () => {
    const abort = new AbortController();
    const t0 = performance.now();
    const run = runPython('import time\ntime.sleep(30)', { timeoutMs: 20_000, signal: abort.signal });
    setTimeout(() => abort.abort(), 300);
    const r = await run;
    expect(r.status).toBe('timeout');
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(await runPython('print(1)', { signal: abort.signal })).toMatchObject({ status: 'timeout', durationMs: 0, stdout: '' });
  });
});

describe('hostile programs are contained', () => {
  const created: string[] = [];
  afterEach(() => {
    for (const f of created.splice(0)) rmSync(f, { force: true });
  });

  it('cannot write outside its work dir (/tmp, /root, the project, HOME of the evaluator)', async () => {
    const t = tag();
    const targets = [`/tmp/hpt-pwned-${t}`, `/root/hpt-pwned-${t}`, path.join(process.cwd(), `hpt-pwned-${t}`), path.join(os.homedir(), `hpt-pwned-${t}`), `/var/tmp/hpt-pwned-${t}`, `/dev/shm/hpt-pwned-${t}`];
    created.push(...targets);
    const program = `
import os
for p in ${JSON.stringify(targets)}:
    try:
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write("pwned")
        print("wrote", p)
    except OSError as e:
        print("blocked", p, type(e).__name__)
`;
    const r = await runPython(program);
    expect(r.status).toBe('passed');
    for (const p of targets) expect(existsSync(p), `${p} must not exist on the host`).toBe(false);
  });

  it('cannot open a network connection, not even to a server on 127.0.0.1 or the machine address', async () => {
    let connections = 0;
    const server = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    try {
      const hosts = ['127.0.0.1', ...(external ? [external] : [])];
      for (const host of hosts) {
        const r = await runPython(`import socket\ns = socket.create_connection((${JSON.stringify(host)}, ${port}), timeout=2)\ns.sendall(b"hi")\nprint("connected")`, { timeoutMs: 4000 });
        expect(r.status, `connect to ${host}`).toBe('failed');
        expect(r.stdout).not.toContain('connected');
        expect(r.stderr).toMatch(/OSError|unreachable|ConnectionRefused|timed out/i);
      }
      const dns = await runPython('import socket\nprint(socket.getaddrinfo("example.com", 80))', { timeoutMs: 4000 });
      expect(dns.status).not.toBe('passed');
      await sleep(100);
      expect(connections).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('an infinite loop times out within timeout + 1 s', async () => {
    const t0 = performance.now();
    const r = await runPython('while True:\n    pass', { timeoutMs: 1000 });
    const wall = performance.now() - t0;
    expect(r.status).toBe('timeout');
    expect(r.signal).toBe('SIGKILL');
    expect(wall).toBeLessThan(2000);
    expect(r.durationMs).toBeGreaterThanOrEqual(990);
  });

  it('a program that ignores SIGTERM/SIGINT and sleeps still dies at the timeout', async () => {
    const r = await runPython('import signal, time\nfor s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):\n    signal.signal(s, signal.SIG_IGN)\ntime.sleep(60)', { timeoutMs: 500 });
    expect(r.status).toBe('timeout');
    expect(r.durationMs).toBeLessThan(1500);
  });

  it('a fork bomb is contained: the call returns and no process of it is left', async () => {
    const marker = `hpt-forkbomb-${tag()}`;
    // Re-exec under a unique argv[0] so every forked copy is recognisable in `ps`.
    const bomb = `import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass`;
    const program = `import os\nos.execv("/usr/bin/python3", [${JSON.stringify(marker)}, "-I", "-c", ${JSON.stringify(bomb)}])`;
    const t0 = performance.now();
    const r = await runPython(program, { timeoutMs: 1500, maxProcesses: 32 });
    expect(['timeout', 'failed']).toContain(r.status);
    expect(performance.now() - t0).toBeLessThan(4000);
    await sleep(300);
    const left = processArgs().filter((a) => a.includes(marker));
    for (const pid of pidsWith(marker)) process.kill(pid, 'SIGKILL'); // never leave them behind, even on failure
    expect(left).toEqual([]);
  });

  it('a daemon that leaves the process group (setsid) dies with the program', async () => {
    const marker = `${Math.floor(Math.random() * 1e6) + 100}.${Math.floor(Math.random() * 1e6)}`;
    const program = `import subprocess\nsubprocess.Popen(["sleep", "${marker}"], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nprint("parent done")`;
    const r = await runPython(program);
    expect(r.status).toBe('passed');
    await sleep(300);
    const left = processArgs().filter((a) => a.includes(`sleep ${marker}`));
    for (const pid of pidsWith(`sleep ${marker}`)) process.kill(pid, 'SIGKILL');
    expect(left).toEqual([]);
  });

  it('a memory bomb fails with MemoryError (address-space limit), the test process survives', async () => {
    const big = await runPython('x = bytearray(8 * 1024 ** 3)\nprint("allocated")', { memoryMb: 256 });
    expect(big.status).toBe('failed');
    expect(big.stderr).toContain('MemoryError');
    const creeping = await runPython('chunks = []\nwhile True:\n    chunks.append(bytearray(32 * 1024 * 1024))', { memoryMb: 256, timeoutMs: 5000 });
    expect(creeping.status).toBe('failed');
    expect(creeping.stderr).toContain('MemoryError');
  });

  it('cannot read the evaluator environment (OPENAI_API_KEY) directly or through /proc', async () => {
    const secret = `sk-test-${tag()}`;
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = secret;
    try {
      const program = `
import os
print(dict(os.environ))
for pid in [os.getppid(), 1] + [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        print(open(f"/proc/{pid}/environ", "rb").read())
    except OSError:
        pass
`;
      const r = await runPython(program);
      expect(r.status).toBe('passed');
      expect(r.stdout).not.toContain(secret);
      expect(r.stdout).not.toContain('OPENAI_API_KEY');
      const rs = runPythonSync('import os\nprint(dict(os.environ))');
      expect(rs.stdout).not.toContain(secret);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  it.runIf(isRoot)('runs under a uid of its own (not root), without capabilities, and cannot undo the mounts', async () => {
    const r = await runPython(`
import os, subprocess
print("uid", os.getuid(), os.getgid(), os.getgroups())
print([l.strip() for l in open("/proc/self/status") if l.startswith("CapEff")])
print("umount", subprocess.run(["umount", "/tmp"], capture_output=True).returncode)
print("root", sorted(os.listdir("/")))
`);
    expect(r.status).toBe('passed');
    // a per-run uid of this process: 2^30 + (pid mod 2^22) * 256 + slot, with gid = uid and no supplementary groups
    const m = /uid (\d+) (\d+) \[\]/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    const uid = Number(m?.[1]);
    expect(Number(m?.[2])).toBe(uid);
    expect(uid).toBeGreaterThanOrEqual(runUid(0));
    expect(uid).toBeLessThanOrEqual(runUid(255));
    expect(r.stdout).toContain('CapEff:\\t0000000000000000');
    expect(r.stdout).not.toContain('umount 0');
    expect(r.stdout).not.toMatch(/'(root|home|work)'/);
  });
});

describe('basic mode (isolate: false) still bounds time and processes', () => {
  beforeAll(() => {
    expect(sandboxIsolation({ isolate: false }).mode).toBe('basic');
  });

  it('times out an infinite loop and kills a fork bomb', async () => {
    const loop = await runPython('while True: pass', { isolate: false, timeoutMs: 700 });
    expect(loop.status).toBe('timeout');
    expect(loop.durationMs).toBeLessThan(1700);
    const marker = `hpt-forkbomb-basic-${tag()}`;
    const bomb = `import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass`;
    const r = await runPython(`import os\nos.execv("/usr/bin/python3", [${JSON.stringify(marker)}, "-I", "-c", ${JSON.stringify(bomb)}])`, { isolate: false, timeoutMs: 1000, maxProcesses: 32 });
    expect(['timeout', 'failed']).toContain(r.status);
    await sleep(300);
    const left = processArgs().filter((a) => a.includes(marker));
    for (const pid of pidsWith(marker)) process.kill(pid, 'SIGKILL');
    expect(left).toEqual([]);
  });

  it('hides the environment and drops to nobody when root', async () => {
    const saved = process.env.OPENAI_API_KEY;
    const secret = `sk-basic-${tag()}`;
    process.env.OPENAI_API_KEY = secret;
    try {
      const r = await runPython('import os\nprint(os.getuid(), dict(os.environ))', { isolate: false });
      expect(r.status).toBe('passed');
      expect(r.stdout).not.toContain(secret);
      if (isRoot) expect(r.stdout.startsWith('65534 ')).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });
});

