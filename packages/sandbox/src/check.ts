/**
 * The sandbox escape suite: `checkSandbox()` runs hostile Python programs (`python/check/*.py` of this package) through
 * the real sandbox (`runPython`, see sandbox.ts) on this machine and reports, per protection, whether it held. It
 * backs `CodeSandbox.check` (the core's `BoundedCodeSandbox`), hence `hpt-bench sandbox check` and the preflight of
 * scorers that run model code, which refuse to execute it when a protection is missing (unless `--unsafe-sandbox`).
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
 * - `processes`: a fork bomb (RLIMIT_NPROC 32) is started first; once the host sees its processes stop multiplying (it
 *   holds its process limit), 6 correct programs that each start a thread run next to it, and the bomb must still be
 *   running when the last of them ends (so they overlapped, however loaded the machine). All 6 pass (per-run user
 *   ids: the bomb exhausts only its own RLIMIT_NPROC); the bomb is then ended like a timeout, and within 3 s no
 *   process of it is left. Timing only bounds how long the row may take, never what it proves (its programs get 20 s,
 *   the bomb 30 s);
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
 *
 * The suite calls the single-execution primitive directly, not through the host's concurrency bound: how its programs
 * overlap (a bomb next to 6 programs) is part of what it proves. At most 9 of its runs are in flight at once.
 */
import { closeSync, existsSync, fstatSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, chmodSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { SANDBOX_PROTECTIONS, type ProtectionResult, type SandboxCheckOptions, type SandboxCheckReport, type SandboxIsolation, type SandboxProtection } from '@hpt-bench/sdk';
import { pythonProgram } from './programs.js';
import { CGROUP_SLACK_MB, defaultPython, runPython, sandboxIsolation, type RunPythonOptions, type RunResult } from './sandbox.js';

export { SANDBOX_PROTECTIONS, type ProtectionResult, type SandboxCheckReport, type SandboxProtection } from '@hpt-bench/sdk';

/** Options of `checkSandbox` (the SDK's `SandboxCheckOptions`): the interpreter and mode of the checked runs. */
export type CheckSandboxOptions = SandboxCheckOptions;

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
  const program = pythonProgram('python/check/filesystem.py', { reads, lists, written });
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
    const program = pythonProgram('python/check/network.py', { port });
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
    const program = pythonProgram('python/check/descriptors.py');
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

/** RLIMIT_NPROC of the fork bomb of the `processes` row. */
const BOMB_PROCESSES = 32;
/** Wall-clock limit of the bomb (ms): a backstop only, the row ends it as soon as the correct programs are done. */
const BOMB_TIMEOUT_MS = 30_000;
/** Wall-clock limit of each correct program of the `processes` row (ms): generous, so that CPU starvation under
 * load is not mistaken for the failure the row looks for ("can't start new thread" fails at once). */
const THREAD_TIMEOUT_MS = 20_000;
/** How long the row waits for the bomb to hold its limit, and afterwards for its processes to be gone (ms). */
const BOMB_START_MS = 10_000;
const BOMB_GONE_MS = 3000;

/**
 * Waits until the host sees processes carrying `marker` and their number has stopped growing for 200 ms (or reached
 * `limit`): the bomb holds its process limit. Returns that number, or 0 when none appeared within `withinMs` or
 * `ended()` became true first.
 */
async function untilSaturated(marker: string, limit: number, withinMs: number, ended: () => boolean): Promise<number> {
  const until = performance.now() + withinMs;
  let count = 0;
  let stable = 0;
  while (performance.now() < until && !ended()) {
    const n = processesWith(marker).length;
    if (n >= limit) return n;
    stable = n > 0 && n === count ? stable + 1 : 0;
    count = n;
    if (stable >= 4) return n;
    await sleep(50);
  }
  return 0;
}

/** Polls until no process carries `marker` or `withinMs` passed; returns the pids still there. */
async function untilGone(marker: string, withinMs: number): Promise<number[]> {
  const until = performance.now() + withinMs;
  let left = processesWith(marker);
  while (left.length > 0 && performance.now() < until) {
    await sleep(100);
    left = processesWith(marker);
  }
  return left;
}

async function checkProcesses(base: RunPythonOptions): Promise<ProtectionResult> {
  const marker = `hpt-check-forkbomb-${randomBytes(6).toString('hex')}`;
  const abort = new AbortController();
  let bombEnded = false;
  const bomb = runPython(pythonProgram('python/check/fork-bomb.py', { marker }), { ...base, timeoutMs: BOMB_TIMEOUT_MS, maxProcesses: BOMB_PROCESSES, signal: abort.signal }).finally(() => {
    bombEnded = true;
  });
  let peak = 0;
  let alive = 0;
  let goods: RunResult[] = [];
  try {
    // 1. the bomb holds its process limit (seen from the host), however long the machine takes to get it there
    peak = await untilSaturated(marker, BOMB_PROCESSES, BOMB_START_MS, () => bombEnded);
    if (peak > 0) {
      // 2. six correct programs start a thread each next to it
      goods = await Promise.all(Array.from({ length: 6 }, () => runPython(pythonProgram('python/check/thread.py'), { ...base, timeoutMs: THREAD_TIMEOUT_MS })));
      // 3. the bomb was still at work when the last of them ended: they overlapped with it the whole time
      alive = bombEnded ? 0 : processesWith(marker).length;
    }
  } finally {
    abort.abort();
  }
  const b = await bomb;
  const left = await untilGone(marker, BOMB_GONE_MS);
  if (peak === 0) return { holds: false, detail: `the fork bomb never showed a process on the host (${short(b)}); ${left.length} bomb process(es) left` };
  const passed = goods.filter((g) => g.status === 'passed').length;
  const firstFail = goods.find((g) => g.status !== 'passed');
  const holds = passed === goods.length && alive > 0 && left.length === 0;
  return {
    holds,
    detail: `fork bomb ${b.status} (${peak} processes at its limit, ${alive} still running when the last program ended); ${passed}/${goods.length} concurrent programs starting a thread passed${firstFail ? ` (${short(firstFail)})` : ''}; ${left.length} bomb process(es) left`,
  };
}

async function checkMemory(base: RunPythonOptions): Promise<ProtectionResult> {
  const memoryMb = 256;
  const boundMb = memoryMb + CGROUP_SLACK_MB;
  const childMb = 200;
  const forking = pythonProgram('python/check/memory-fork.py', { child_mb: childMb });
  const memfd = pythonProgram('python/check/memfd.py');
  const opts = { ...base, memoryMb, timeoutMs: 6000 };
  const [big, fork, mem] = await Promise.all([runPython(pythonProgram('python/check/big-alloc.py'), opts), runPython(forking, opts), runPython(memfd, opts)]);
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

/** The exit forgeries (files of `python/check/forgeries/`) by name: each would pass if "passed" meant exit code 0. */
const FORGERIES: Record<string, string> = {
  'sys.exit(0)': 'sys-exit.py',
  'os._exit(0)': 'os-exit.py',
  'SystemExit subclass': 'systemexit-subclass.py',
  'atexit os._exit(0)': 'atexit-exit.py',
  'SIGKILL self': 'sigkill-self.py',
  'kill parent': 'kill-parent.py',
  'thread os._exit(0)': 'thread-exit.py',
  'fake nonce on fd 4': 'fake-nonce.py',
};

async function checkExitForgery(base: RunPythonOptions): Promise<ProtectionResult> {
  const names = Object.keys(FORGERIES);
  const [c, ...rs] = await Promise.all([runPython(pythonProgram('python/check/control.py'), base), ...names.map((n) => runPython(pythonProgram(`python/check/forgeries/${FORGERIES[n] as string}`), base))]);
  const forged = names.filter((_, i) => rs[i]?.status === 'passed');
  const holds = c.status === 'passed' && forged.length === 0;
  return {
    holds,
    detail: `control ${c.status}; ${forged.length === 0 ? `none of ${names.length} forgeries passed (${names.join(', ')})` : `passed: ${forged.join(', ')}`}`,
  };
}

async function checkTimeout(base: RunPythonOptions): Promise<ProtectionResult> {
  const marker = `${Math.floor(Math.random() * 1e6) + 1000}.${Math.floor(Math.random() * 1e6)}`;
  const program = pythonProgram('python/check/timeout.py', { marker });
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
  const program = pythonProgram('python/check/privileges.py');
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
 * options, on this machine, and reports per protection whether it holds (`SandboxCheckReport`, the SDK's). Takes a
 * few seconds (about 4-6 s on the 2-core reference machine). Its runs do not wait for the host's concurrency bound
 * (at most 9 in flight; see the module docs). Never throws: a row whose checker fails is reported as not holding.
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
      // the fast rows together (4 runs); the exit forgeries (9 runs); the fork bomb alone (it overlaps with its 6
      // programs); then memory and the timeout (4 runs): never more than 9 runs in flight
      const [filesystem, network, descriptors, priv] = await Promise.all([
        guarded(() => checkFilesystem(base, hostDir, iso), fail),
        guarded(() => checkNetwork(base), fail),
        guarded(() => checkDescriptors(base, hostDir), fail),
        guarded(() => checkPrivileges(base, iso.mode), (d) => ({ privileges: fail(d), environment: fail(d) })),
      ]);
      const exitForgery = await guarded(() => checkExitForgery(base), fail);
      const processes = await guarded(() => checkProcesses(base), fail);
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
