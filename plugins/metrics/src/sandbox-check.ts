/**
 * The sandbox escape suite: `checkSandbox()` runs hostile Python programs through the real
 * sandbox (`runPython`, see sandbox.ts) on this machine and reports, per protection, whether it held. It backs
 * `hpt-bench sandbox check` and the HumanEval scorer's preflight, which refuses to execute model code when a
 * protection is missing (unless `--unsafe-sandbox`).
 *
 * Protections (each `holds` only when every attack of its row failed AND its control, where it has one, succeeded):
 * - `filesystem`: a world-readable secret in a fresh world-writable host temp dir, /etc/shadow, the evaluator's
 *   working directory (the project) and /root can be neither read nor listed, and nothing can be written into that
 *   host temp dir;
 * - `network`: a TCP connect to a server the checker opens on 127.0.0.1 fails and the server sees no connection; a UDP
 *   `connect()` to 192.0.2.1 (TEST-NET-1) finds no route (a UDP connect only looks the route up: no packet is sent
 *   anywhere);
 * - `descriptors`: a directory and a writable file the checker opened, placed at 30, 100, 200, 251 and 300 without
 *   close-on-exec as an inherited descriptor would be, are closed: the program finds no open descriptor above 2 but
 *   the harness's report channel, `fchdir`/`write` on 3..1024 reach nothing, and the file stays empty;
 * - `processes`: a fork bomb runs next to 6 correct programs that each start a thread; all 6 pass (per-run user ids:
 *   the bomb exhausts only its own RLIMIT_NPROC) and no process of the bomb is left afterwards;
 * - `memory`: an 8 GiB allocation fails with MemoryError; a program whose 6 children each touch 200 MiB (memoryMb 256)
 *   never has more than memoryMb + 64 MiB of them alive together; 40 memfds of 15 MiB (never mapped, so outside
 *   RLIMIT_AS) are stopped before 600 MiB;
 * - `exitForgery`: `sys.exit(0)`, `os._exit(0)`, a SystemExit subclass, an atexit hook calling `os._exit(0)` after a
 *   failed assert, SIGKILL to itself, killing its parent, `os._exit(0)` from a thread, and a made-up nonce written to
 *   the report channel all fail, while a control program that runs to its end passes;
 * - `timeout`: a busy loop that first starts a `sleep` in a new session (setsid) ends as `timeout` within 1.5 s of its
 *   700 ms limit, and the sleeping child is gone;
 * - `privileges`: the program has no capability (CapEff/CapPrm 0) and is not the host's root;
 * - `environment`: the program's environment holds only PATH, HOME, LANG, LC_ALL and TMPDIR (no API key can leak).
 * Takes about 4-6 s on the 2-core reference machine under load (the fork bomb and memory rows dominate). Side
 * effects: a temp dir (removed), a loopback TCP server (closed), sandbox runs (cleaned up as usual).
 */
import { closeSync, existsSync, fstatSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, chmodSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { CGROUP_SLACK_MB, defaultPython, runPython, sandboxIsolation, type RunPythonOptions, type RunResult, type SandboxIsolation } from './sandbox.js';

/** The protections `checkSandbox` tests, in report order. */
export const SANDBOX_PROTECTIONS = ['filesystem', 'network', 'descriptors', 'processes', 'memory', 'exitForgery', 'timeout', 'privileges', 'environment'] as const;
/** One protection of the escape suite (see the module docs for what each one tries). */
export type SandboxProtection = (typeof SANDBOX_PROTECTIONS)[number];

/** Whether one protection held, and what was observed (one line). */
export interface ProtectionResult {
  holds: boolean;
  detail: string;
}

/** The result of `checkSandbox`. */
export interface SandboxCheckReport {
  /** Every protection of SANDBOX_PROTECTIONS with its outcome. */
  protections: Record<SandboxProtection, ProtectionResult>;
  /** The sandbox mode in effect (`sandboxIsolation().mode`). */
  mode: SandboxIsolation['mode'];
  /** True when every protection holds. */
  holds: boolean;
  /** The protections that do not hold, in report order. */
  missing: SandboxProtection[];
  /** The isolation the sandbox's probe observed (user, memory bound, network, filesystem, processes, python). */
  isolation: Pick<SandboxIsolation, 'user' | 'memory' | 'network' | 'filesystem' | 'processes' | 'limits' | 'python'>;
  /** Wall time of the whole check in milliseconds. */
  durationMs: number;
}

/** Options of `checkSandbox`: the interpreter and mode the checked runs use (as `runPython`'s). */
export type CheckSandboxOptions = Pick<RunPythonOptions, 'python' | 'isolate'>;

const ALLOWED_ENV = ['HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'PATH', 'TMPDIR'];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The last JSON line a program printed (its report), or undefined. */
function jsonOut(r: RunResult): Record<string, unknown> | undefined {
  const line = r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (!line) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function short(r: RunResult): string {
  const last = r.stderr.trim().split('\n').pop() ?? '';
  return `${r.status}${r.exitCode !== null ? ` exit ${r.exitCode}` : ''}${r.signal ? ` ${r.signal}` : ''}${last ? `: ${last.slice(0, 120)}` : ''}`;
}

/** Host pids whose command line contains `marker` (processes the checked program left behind). */
function processesWith(marker: string): number[] {
  const out: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(marker)) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** True when `p` is (under) a path the sandbox shows on purpose (its own /, /tmp, read-only /usr, /etc ...). */
function shownInside(p: string, iso: SandboxIsolation): boolean {
  if (p === '/' || p === '/tmp') return true;
  return iso.visible.some((v) => v !== '/tmp' && (p === v || p.startsWith(`${v}/`)));
}

async function checkFilesystem(base: RunPythonOptions, hostDir: string, iso: SandboxIsolation): Promise<ProtectionResult> {
  const secret = `hpt-secret-${randomBytes(8).toString('hex')}`;
  const secretFile = path.join(hostDir, 'secret.txt');
  writeFileSync(secretFile, secret, { mode: 0o644 });
  chmodSync(secretFile, 0o644);
  const written = path.join(hostDir, 'written.txt');
  const reads = [secretFile, ...(existsSync('/etc/shadow') ? ['/etc/shadow'] : [])];
  const lists = [...new Set([process.cwd(), '/root', hostDir])].filter((p) => !shownInside(p, iso));
  const program = `
import json, os
r = {"read": [], "listed": [], "wrote": []}
for p in ${JSON.stringify(reads)}:
    try:
        with open(p, "rb") as f:
            f.read(64)
        r["read"].append(p)
    except OSError:
        pass
for p in ${JSON.stringify(lists)}:
    try:
        os.listdir(p)
        r["listed"].append(p)
    except OSError:
        pass
try:
    with open(${JSON.stringify(written)}, "w") as f:
        f.write("x")
    r["wrote"].append(${JSON.stringify(written)})
except OSError:
    pass
print(json.dumps(r))
`;
  const r = await runPython(program, base);
  const rep = jsonOut(r);
  if (!rep) return { holds: false, detail: `the probe program did not report (${short(r)})` };
  const leaked = [...(rep.read as string[]), ...(rep.listed as string[]).map((p) => `${p}/`), ...(rep.wrote as string[])];
  if (existsSync(written) && !leaked.includes(written)) leaked.push(written);
  if (r.stdout.includes(secret)) leaked.push('secret content');
  return leaked.length === 0
    ? { holds: true, detail: `could not read ${reads.join(', ')}, list ${lists.join(', ')} or write to host tmp` }
    : { holds: false, detail: `reached on the host: ${leaked.join(', ')}` };
}

async function checkNetwork(base: RunPythonOptions): Promise<ProtectionResult> {
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as net.AddressInfo).port;
  try {
    const program = `
import json, socket
r = {}
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(2)
try:
    s.connect(("127.0.0.1", ${port}))
    r["tcp"] = "connected"
except OSError as e:
    r["tcp"] = e.errno or str(e)
finally:
    s.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.connect(("192.0.2.1", 9))
    r["route"] = "routable"
except OSError as e:
    r["route"] = e.errno or str(e)
finally:
    u.close()
try:
    with open("/proc/net/dev") as f:
        r["ifaces"] = [l.split(":")[0].strip() for l in f.readlines()[2:]]
except OSError:
    r["ifaces"] = None
print(json.dumps(r))
`;
    const r = await runPython(program, { ...base, timeoutMs: 5000 });
    await sleep(50);
    const rep = jsonOut(r);
    if (!rep) return { holds: false, detail: `the probe program did not report (${short(r)})` };
    const holds = rep.tcp !== 'connected' && rep.route !== 'routable' && connections === 0;
    const ifaces = Array.isArray(rep.ifaces) ? (rep.ifaces as string[]).join(',') : '?';
    return { holds, detail: `tcp 127.0.0.1: ${rep.tcp === 'connected' ? 'connected' : `errno ${String(rep.tcp)}`}; server saw ${connections} connection(s); route to 192.0.2.1: ${rep.route === 'routable' ? 'yes' : `errno ${String(rep.route)}`}; interfaces: ${ifaces}` };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * Descriptor numbers the escape suite places in the sandbox (inherited without close-on-exec, they would reach model
 * code: sandbox.ts "Descriptors").
 */
export const INHERITED_FD_NUMBERS = [30, 100, 200, 251, 300] as const;

async function checkDescriptors(base: RunPythonOptions, hostDir: string): Promise<ProtectionResult> {
  const victim = path.join(hostDir, 'victim.txt');
  writeFileSync(victim, '');
  const dirFd = openSync(hostDir, 'r');
  const fileFd = openSync(victim, 'w');
  try {
    const inherit: Record<number, number> = {};
    INHERITED_FD_NUMBERS.forEach((n, i) => (inherit[n] = i % 2 === 0 ? dirFd : fileFd));
    const program = `
import json, os
r = {"open": [], "fchdir": [], "write": []}
for fd in range(3, 1025):
    try:
        os.fstat(fd)
    except OSError:
        continue
    if fd == 4:
        continue  # the harness's report channel
    r["open"].append(fd)
    try:
        os.fchdir(fd)
        r["fchdir"].append(fd)
    except OSError:
        pass
    try:
        os.write(fd, b"pwned")
        r["write"].append(fd)
    except OSError:
        pass
print(json.dumps(r))
`;
    const r = await runPython(program, { ...base, inheritDescriptors: inherit });
    const rep = jsonOut(r);
    const size = fstatSync(fileFd).size;
    if (!rep) return { holds: false, detail: `the probe program did not report (${short(r)})` };
    const open = rep.open as number[];
    const holds = open.length === 0 && size === 0;
    return holds
      ? { holds: true, detail: `descriptors placed at ${INHERITED_FD_NUMBERS.join(', ')} (a host directory, a writable host file) were closed before the program ran` }
      : { holds: false, detail: `open in the program: ${open.join(', ') || 'none'}; fchdir worked on ${(rep.fchdir as number[]).join(', ') || 'none'}; host file got ${size} bytes` };
  } finally {
    closeSync(dirFd);
    closeSync(fileFd);
  }
}

async function checkProcesses(base: RunPythonOptions, python: string): Promise<ProtectionResult> {
  const marker = `hpt-check-forkbomb-${randomBytes(6).toString('hex')}`;
  const bombBody = 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass';
  // re-exec under a unique argv[0] so that every copy of the bomb is recognisable in /proc
  const bomb = `import os\nos.execv(${JSON.stringify(python)}, [${JSON.stringify(marker)}, "-I", "-c", ${JSON.stringify(bombBody)}])`;
  const good = 'import threading, time\ntime.sleep(0.3)\nout = []\nt = threading.Thread(target=lambda: out.append(sum(range(1000))))\nt.start()\nt.join()\nassert out == [499500]';
  const [b, ...goods] = await Promise.all([runPython(bomb, { ...base, timeoutMs: 1200, maxProcesses: 32 }), ...Array.from({ length: 6 }, () => runPython(good, base))]);
  await sleep(200);
  const left = processesWith(marker);
  const passed = goods.filter((g) => g.status === 'passed').length;
  const firstFail = goods.find((g) => g.status !== 'passed');
  const holds = passed === goods.length && left.length === 0;
  return {
    holds,
    detail: `fork bomb ${b.status}; ${passed}/${goods.length} concurrent programs starting a thread passed${firstFail ? ` (${short(firstFail)})` : ''}; ${left.length} bomb process(es) left`,
  };
}

async function checkMemory(base: RunPythonOptions): Promise<ProtectionResult> {
  const memoryMb = 256;
  const boundMb = memoryMb + CGROUP_SLACK_MB;
  const childMb = 200;
  const forking = `
import os, sys, time
kids = []
for i in range(6):
    pid = os.fork()
    if pid == 0:
        try:
            b = b"x" * (${childMb} * 1024 * 1024)
            time.sleep(0.6)
            os.write(1, b"alive\\n")
        except MemoryError:
            pass
        os._exit(0)
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)
`;
  const memfd = `
import os
fds = []
for i in range(40):
    fd = os.memfd_create("x")
    os.write(fd, b"y" * (15 * 1024 * 1024))
    fds.append(fd)
    os.write(1, b"memfd %d\\n" % len(fds))
`;
  const opts = { ...base, memoryMb, timeoutMs: 6000 };
  const [big, fork, mem] = await Promise.all([runPython('x = bytearray(8 * 1024 ** 3)', opts), runPython(forking, opts), runPython(memfd, opts)]);
  const bigOk = big.status === 'failed' && big.stderr.includes('MemoryError');
  const alive = (fork.stdout.match(/alive/g) ?? []).length;
  const forkOk = alive * childMb <= boundMb && fork.status !== 'timeout' && fork.status !== 'error';
  const memfds = Number(/memfd (\d+)\s*$/.exec(mem.stdout)?.[1] ?? 0);
  const memfdOk = memfds * 15 <= boundMb && mem.status !== 'passed' && mem.status !== 'error';
  return {
    holds: bigOk && forkOk && memfdOk,
    detail: `8 GiB allocation: ${bigOk ? 'MemoryError' : short(big)}; forking program held ${alive * childMb} MiB in ${alive} children (bound ${boundMb} MiB); memfd (unmapped) reached ${memfds * 15} MiB${memfdOk ? ' before it was stopped' : ` (${short(mem)})`}`,
  };
}

/** The exit forgeries: each would count as passed if "passed" meant exit code 0. */
const FORGERIES: Record<string, string> = {
  'sys.exit(0)': 'import sys\nsys.exit(0)\nassert False',
  'os._exit(0)': 'import os\nos._exit(0)\nassert False',
  'SystemExit subclass': 'class Done(SystemExit):\n    pass\nraise Done(0)',
  'atexit os._exit(0)': 'import atexit, os\natexit.register(lambda: os._exit(0))\nassert False',
  'SIGKILL self': 'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)',
  'kill parent': 'import os, signal, time\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\nexcept OSError:\n    pass\ntime.sleep(0.3)\nassert False',
  'thread os._exit(0)': 'import os, threading, time\nthreading.Thread(target=lambda: os._exit(0)).start()\ntime.sleep(0.5)\nassert False',
  'fake nonce on fd 4': 'import os\nfor n in (b"0" * 32, b"hpt-done\\n"):\n    try:\n        os.write(4, n)\n    except OSError:\n        pass\nos._exit(0)',
};

async function checkExitForgery(base: RunPythonOptions): Promise<ProtectionResult> {
  const control = 'def check(f):\n    assert f(2) == 4\ncheck(lambda x: x * 2)';
  const names = Object.keys(FORGERIES);
  const [c, ...rs] = await Promise.all([runPython(control, base), ...names.map((n) => runPython(FORGERIES[n] as string, base))]);
  const forged = names.filter((_, i) => rs[i]?.status === 'passed');
  const holds = c.status === 'passed' && forged.length === 0;
  return {
    holds,
    detail: `control ${c.status}; ${forged.length === 0 ? `none of ${names.length} forgeries passed (${names.join(', ')})` : `passed: ${forged.join(', ')}`}`,
  };
}

async function checkTimeout(base: RunPythonOptions): Promise<ProtectionResult> {
  const marker = `${Math.floor(Math.random() * 1e6) + 1000}.${Math.floor(Math.random() * 1e6)}`;
  const program = `import subprocess\nsubprocess.Popen(["sleep", "${marker}"], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nwhile True:\n    pass`;
  const timeoutMs = 700;
  const t0 = performance.now();
  const r = await runPython(program, { ...base, timeoutMs });
  const wall = performance.now() - t0;
  await sleep(300);
  const left = processesWith(`sleep\0${marker}`);
  const holds = r.status === 'timeout' && wall < timeoutMs + 1500 && left.length === 0;
  return { holds, detail: `busy loop with a setsid child: ${r.status} after ${Math.round(wall)} ms (limit ${timeoutMs} ms); ${left.length} child process(es) left` };
}

async function checkPrivileges(base: RunPythonOptions, mode: SandboxIsolation['mode']): Promise<{ privileges: ProtectionResult; environment: ProtectionResult }> {
  const program = `
import json, os
r = {"uid": os.getuid(), "euid": os.geteuid(), "env": sorted(os.environ)}
with open("/proc/self/status") as f:
    for line in f:
        k, _, v = line.partition(":")
        if k in ("CapEff", "CapPrm", "NoNewPrivs"):
            r[k] = v.strip()
print(json.dumps(r))
`;
  const r = await runPython(program, base);
  const rep = jsonOut(r);
  if (!rep) {
    const detail = `the probe program did not report (${short(r)})`;
    return { privileges: { holds: false, detail }, environment: { holds: false, detail } };
  }
  const noCaps = /^0+$/.test(String(rep.CapEff)) && /^0+$/.test(String(rep.CapPrm));
  // uid 0 inside a user namespace is the unprivileged caller; anywhere else it is the host's root
  const notRoot = (rep.uid !== 0 && rep.euid !== 0) || mode === 'user-namespace';
  const env = rep.env as string[];
  const extra = env.filter((k) => !ALLOWED_ENV.includes(k));
  return {
    privileges: { holds: noCaps && notRoot, detail: `uid ${String(rep.uid)}, CapEff ${String(rep.CapEff)}, CapPrm ${String(rep.CapPrm)}, NoNewPrivs ${String(rep.NoNewPrivs ?? '?')}` },
    environment: { holds: extra.length === 0, detail: extra.length === 0 ? `only ${env.join(', ')}` : `unexpected variables: ${extra.join(', ')}` },
  };
}

/** Runs one row; a crash of the checker itself counts as "does not hold" with the error as detail. */
async function guarded<T>(fn: () => Promise<T>, fallback: (detail: string) => T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    return fallback(`the check itself failed: ${String((e as Error).message ?? e)}`);
  }
}

/**
 * Runs the escape suite (see the module docs) against the sandbox as `runPython` would run model code with these
 * options, on this machine, and reports per protection whether it holds. Takes a few seconds (about 4-6 s on the
 * 2-core reference machine); runs use the sandbox's concurrency slots (`setSandboxConcurrency`, default 8: the fork
 * bomb row needs 7 at once to be meaningful). Never throws: a row whose checker fails is reported as not holding.
 * When no sandbox mode works (`mode: 'unavailable'`), every row reports that.
 */
export async function checkSandbox(options: CheckSandboxOptions = {}): Promise<SandboxCheckReport> {
  const t0 = performance.now();
  const python = options.python ?? defaultPython();
  const base: RunPythonOptions = { python, ...(options.isolate === false ? { isolate: false } : {}) };
  const iso = sandboxIsolation(base);
  const protections = {} as Record<SandboxProtection, ProtectionResult>;
  if (iso.mode === 'unavailable') {
    for (const p of SANDBOX_PROTECTIONS) protections[p] = { holds: false, detail: `no sandbox mode can run ${python}: ${iso.notes.join('; ')}` };
  } else {
    const hostDir = mkdtempSync(path.join(os.tmpdir(), 'hpt-check-'));
    chmodSync(hostDir, 0o777); // world-writable: only the sandbox's isolation may keep the program out
    try {
      const fail = (detail: string): ProtectionResult => ({ holds: false, detail });
      // fast rows together; then the fork bomb alone (its 7 runs must overlap); then memory and the timeout
      const [filesystem, network, descriptors, exitForgery, priv] = await Promise.all([
        guarded(() => checkFilesystem(base, hostDir, iso), fail),
        guarded(() => checkNetwork(base), fail),
        guarded(() => checkDescriptors(base, hostDir), fail),
        guarded(() => checkExitForgery(base), fail),
        guarded(() => checkPrivileges(base, iso.mode), (d) => ({ privileges: fail(d), environment: fail(d) })),
      ]);
      const processes = await guarded(() => checkProcesses(base, python), fail);
      const [memory, timeout] = await Promise.all([guarded(() => checkMemory(base), fail), guarded(() => checkTimeout(base), fail)]);
      Object.assign(protections, { filesystem, network, descriptors, processes, memory, exitForgery, timeout, privileges: priv.privileges, environment: priv.environment });
    } finally {
      rmSync(hostDir, { recursive: true, force: true });
    }
  }
  const missing = SANDBOX_PROTECTIONS.filter((p) => !protections[p].holds);
  const ordered = Object.fromEntries(SANDBOX_PROTECTIONS.map((p) => [p, protections[p]])) as Record<SandboxProtection, ProtectionResult>;
  return {
    protections: ordered,
    mode: iso.mode,
    holds: missing.length === 0,
    missing,
    isolation: { user: iso.user, memory: iso.memory, network: iso.network, filesystem: iso.filesystem, processes: iso.processes, limits: iso.limits, python: iso.python },
    durationMs: Math.round(performance.now() - t0),
  };
}
