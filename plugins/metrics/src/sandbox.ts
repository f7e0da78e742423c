/**
 * A sandbox for running model-written Python (HumanEval, specs/hpt.md §3, §9 #2; specs/deps.md last paragraphs).
 *
 * Every run gets a fresh temporary directory (mkdtemp, removed afterwards) holding the program as `main.py`, and starts
 * `python -I -B main.py` detached (its own process group), with stdin on /dev/null, a minimal environment (PATH, HOME,
 * LANG/LC_ALL, TMPDIR: nothing inherited, so no OPENAI_API_KEY), rlimits from `prlimit` (address space, CPU seconds,
 * processes, file size, open files, no core dumps), and a wall-clock timeout after which the WHOLE process group is
 * killed with SIGKILL. The call never hangs: it resolves at the latest a few seconds after the timeout.
 *
 * How much more isolation is added depends on what the machine allows; `sandboxIsolation()` probes once (by running a
 * small Python program through the real pipeline and observing what it can do) and picks the first mode that works:
 * - `namespaces` (running as root, `unshare` + `setpriv` present): new network namespace (loopback down, so no
 *   connection anywhere, not even 127.0.0.1), new mount namespace with a minimal root: the program is chrooted into
 *   a fresh size-limited tmpfs holding only read-only bind mounts of /usr, /etc and /dev (plus /bin, /lib*, /sbin:
 *   their symlinks on merged-/usr systems, else read-only binds), a private /proc, and the work directory /tmp/w
 *   (HOME and TMPDIR; the only writable place) with a copy of the program; everything else (/root, /home, /var, /run,
 *   /sys, the project, the host's /tmp ...) does not exist for it. New PID namespace (the program sees only its own
 *   processes; when it exits or is killed, the kernel kills every process it left behind, including ones that left
 *   the process group with `setsid`). The program runs as user `nobody` (uid/gid from /etc/passwd, else 65534) via
 *   `setpriv` with no supplementary groups, no capabilities (bounding set emptied) and no-new-privs.
 *   Privileges are dropped inside the namespace with `setpriv`, not with spawn's uid/gid, because creating the
 *   namespaces and mounts needs root.
 * - `user-namespace` (not root, unprivileged user namespaces allowed): the same namespaces inside a user namespace;
 *   the program keeps the caller's uid (mapped to root inside, with every capability dropped).
 * - `basic`: no mount namespace (the program sees the host filesystem with the sandbox user's permissions and runs in
 *   the host temp dir). When the caller is root the program runs as `nobody` via spawn's uid/gid (the temp dir is
 *   chowned to it); network and PID namespaces through an unprivileged `unshare --user --net --pid` when that works.
 * - `unavailable`: not even `basic` could run Python (e.g. no python3 readable by the sandbox user); every run returns
 *   status `error`.
 *
 * Parallelism: at most `setSandboxConcurrency(n)` runs (default 8) execute at once per Node process; further calls
 * wait for a slot, and their timeout only starts when their process is spawned. `mapLimit` runs any async function
 * over a list with bounded concurrency. Cost on the 2-core reference machine: about 15–20 ms of wall time per run at
 * concurrency 8 in `namespaces` mode (164 HumanEval programs in about 2.5–5 s), about 10 ms in `basic` mode.
 */
import { spawn, spawnSync, type SpawnOptions, type SpawnSyncOptionsWithBufferEncoding, type SpawnSyncReturns, type StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, chownSync, constants as fsConstants, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** `passed`: exit code 0 in time; `failed`: non-zero exit or killed by a signal (not ours); `timeout`: killed by the
 * wall-clock timeout; `error`: the sandbox itself could not run the program (spawn or setup failure). */
export type RunStatus = 'passed' | 'failed' | 'timeout' | 'error';

/** Options of one sandboxed run. */
export interface RunPythonOptions {
  /** Wall-clock limit in milliseconds, from spawn to exit (default 3000, as the reference harness). */
  timeoutMs?: number;
  /** Address-space limit (RLIMIT_AS) in MiB (default 1024). */
  memoryMb?: number;
  /** RLIMIT_NPROC of the sandbox user (default 16). Counts threads, and every process of that user on the machine. */
  maxProcesses?: number;
  /** Python interpreter (default /usr/bin/python3 or /usr/local/bin/python3 when present, else `python3` on PATH). */
  python?: string;
  /** `false` forces the `basic` mode (no namespaces); default true = the strongest mode that works. */
  isolate?: boolean;
}

/** The outcome of one run. `stdout` keeps the first 16 KiB, `stderr` the last 4 KiB; `durationMs` is wall time. */
export interface RunResult {
  status: RunStatus;
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** The isolation in effect for a given interpreter (see the module docs; every field is observed by the probe). */
export interface SandboxIsolation {
  mode: 'namespaces' | 'user-namespace' | 'basic' | 'unavailable';
  /** `isolated`: a TCP connect to 127.0.0.1 fails with ENETUNREACH inside the sandbox. */
  network: 'isolated' | 'not-isolated';
  /** `nobody` or `uid <n>` as seen by the program. */
  user: string;
  /** `private`: a file the program writes into /tmp is not visible outside; `shared`: it is. */
  filesystem: 'private' | 'shared';
  /** `pid-namespace`: leftovers die with the program; `process-group`: only the group is killed on timeout. */
  processes: 'pid-namespace' | 'process-group';
  /** `prlimit`: the requested RLIMIT_AS was observed inside; `none`: no rlimits applied. */
  limits: 'prlimit' | 'none';
  /** The interpreter used. */
  python: string;
  /** Top-level paths of the host visible (read-only) to the program in namespace modes; empty in basic mode, where
   * the whole filesystem is visible with the sandbox user's permissions. */
  visible: string[];
  /** Why stronger modes were not used (empty when the strongest mode for this user works). */
  notes: string[];
}

/** Default wall-clock timeout (ms): the reference harness's 3.0 s (specs/hpt.md §3). */
export const DEFAULT_TIMEOUT_MS = 3000;
/** Default address-space limit (MiB). */
export const DEFAULT_MEMORY_MB = 1024;
/**
 * Default RLIMIT_NPROC. Kept small because RLIMIT_AS is per process: a program that forks can hold up to about
 * maxProcesses × memoryMb (no cgroup caps the total), and because the count is per user machine-wide (all runs as
 * `nobody` share it), so concurrent runs eat into it. HumanEval solutions never fork.
 */
export const DEFAULT_MAX_PROCESSES = 16;
/** Bytes of stdout kept (the head). */
export const STDOUT_CAP = 16 * 1024;
/** Bytes of stderr kept (the tail, where a traceback ends). */
export const STDERR_CAP = 4 * 1024;
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
/** Size of the minimal root tmpfs (holds /tmp and the work dir). */
const ROOT_SIZE = '64m';
const TOOL_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

/**
 * The setup run by `/bin/sh` as (namespace-)root inside the new namespaces, in the run's temp dir (which holds main.py
 * and an empty `root/`). Positional parameters: python, RLIMIT_AS bytes, CPU seconds, nproc, fsize, nofile, uid and
 * gid to drop to ('' = keep), the backstop in seconds ('' = none: see `backstopSeconds`), then the entries of the new root: `link:/bin` (copy the symlink) or `bind:/usr` (read-only
 * bind). It reports success on fd 3 and closes it before exec, so the program cannot forge it.
 */
const SETUP_SCRIPT = `
fail() { echo "hpt-sandbox: setup failed: $1" >&2; exit 125; }
py=$1; as=$2; cpu=$3; nproc=$4; fsize=$5; nofile=$6; uid=$7; gid=$8; backstop=$9; shift 9
guard=; if [ -n "$backstop" ]; then guard="timeout -s KILL $backstop"; fi
mount -t tmpfs -o size=${ROOT_SIZE},mode=755,nosuid,nodev tmpfs root || fail root
links=; binds=; dirs="root/tmp/w root/proc"
for e in "$@"; do
  case $e in
    link:*) links="$links \${e#link:}" ;;
    bind:*) binds="$binds \${e#bind:}"; dirs="$dirs root\${e#bind:}" ;;
  esac
done
mkdir -p $dirs && cp main.py root/tmp/w/main.py || fail workdir
if [ -n "$uid" ]; then chown -R "$uid:$gid" root/tmp/w || fail chown; fi
for d in $binds; do mount --bind -o ro "$d" "root$d" || fail "bind $d"; done
if [ -n "$links" ]; then cp -P $links root/ || fail links; fi
mount -t proc -o nosuid,nodev,noexec proc root/proc 2>/dev/null || :
unset PWD OLDPWD
printf ok >&3
exec 3>&-
if [ -n "$uid" ]; then
  exec $guard unshare --root=root --wd=/tmp/w setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- \\
    prlimit --as="$as" --cpu="$cpu" --nproc="$nproc" --fsize="$fsize" --nofile="$nofile" --core=0 -- "$py" -I -B main.py
fi
exec $guard unshare --root=root --wd=/tmp/w setpriv --no-new-privs --inh-caps=-all --bounding-set=-all -- \\
  prlimit --as="$as" --cpu="$cpu" --nproc="$nproc" --fsize="$fsize" --nofile="$nofile" --core=0 -- "$py" -I -B main.py
`;

/** The probe program: reports what a sandboxed program can observe. `MARKER` is replaced by a random file name. */
const PROBE_PROGRAM = `
import json, os, resource, socket
r = {"uid": os.getuid()}
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(1)
try:
    s.connect(("127.0.0.1", 9))
    r["net"] = 0
except OSError as e:
    r["net"] = e.errno or -1
finally:
    s.close()
try:
    with open("/tmp/MARKER", "w") as f:
        f.write("x")
except OSError:
    pass
r["as"] = resource.getrlimit(resource.RLIMIT_AS)[0]
print("hpt-sandbox-probe " + json.dumps(r))
`;

const ENETUNREACH = 101;

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
  /** uid/gid to drop to (ns: via setpriv; basic: via spawn's uid/gid); undefined = keep the caller's. */
  uid?: number;
  gid?: number;
  /** The minimal root's entries (ns modes). */
  rootEntries: string[];
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

/** The default interpreter: a system python3 (readable by `nobody`), else `python3` on the sandbox PATH. */
export function defaultPython(): string {
  for (const p of ['/usr/bin/python3', '/usr/local/bin/python3', '/bin/python3']) if (existsSync(p)) return p;
  return 'python3';
}

/** uid/gid of `nobody` from /etc/passwd (65534/65534 when absent). */
function nobodyIds(): { uid: number; gid: number } {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f[0] === 'nobody' && f.length >= 4) {
        const uid = Number(f[2]);
        const gid = Number(f[3]);
        if (Number.isInteger(uid) && Number.isInteger(gid)) return { uid, gid };
      }
    }
  } catch {
    // no passwd file: use the conventional ids
  }
  return { uid: 65534, gid: 65534 };
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * The entries of the minimal root (see SETUP_SCRIPT): `link:/x` for top-level symlinks of ROOT_KEEP (merged /usr),
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

/** A launch plan for one program in `dir` (which holds main.py). */
interface Plan {
  command: string;
  args: string[];
  options: SpawnOptions;
  /** Whether fd 3 carries the setup-success token. */
  setupFd: boolean;
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

function planFor(l: Launcher, dir: string, python: string, lim: Limits): Plan {
  const as = String(lim.memoryMb * 1024 * 1024);
  const cpu = String(Math.ceil(lim.timeoutMs / 1000) + 1);
  const nproc = String(lim.maxProcesses);
  const backstop = l.timeout ? String(backstopSeconds(lim.timeoutMs)) : '';
  if (l.kind === 'ns') {
    const drop = l.uid === undefined ? ['', ''] : [String(l.uid), String(l.gid)];
    return {
      command: l.unshare as string,
      args: [...l.unshareArgs, '--', '/bin/sh', '-c', SETUP_SCRIPT, 'hpt-sandbox', python, as, cpu, nproc, String(FSIZE_LIMIT), String(NOFILE_LIMIT), ...drop, backstop, ...l.rootEntries],
      options: { cwd: dir, env: sandboxEnv('/tmp/w'), detached: true, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] },
      setupFd: true,
    };
  }
  const inner = [python, '-I', '-B', 'main.py'];
  const limited = l.prlimit
    ? [l.prlimit, `--as=${as}`, `--cpu=${cpu}`, `--nproc=${nproc}`, `--fsize=${FSIZE_LIMIT}`, `--nofile=${NOFILE_LIMIT}`, '--core=0', '--', ...inner]
    : inner;
  const guarded = l.timeout ? [l.timeout, '-s', 'KILL', backstop, ...limited] : limited;
  const full = l.unshare && l.unshareArgs.length > 0 ? [l.unshare, ...l.unshareArgs, '--', ...guarded] : guarded;
  const options: SpawnOptions = { cwd: dir, env: sandboxEnv(dir), detached: true, stdio: ['ignore', 'pipe', 'pipe'] };
  if (l.uid !== undefined && l.gid !== undefined) {
    options.uid = l.uid;
    options.gid = l.gid;
  }
  return { command: full[0] as string, args: full.slice(1), options, setupFd: false };
}

/** Creates the temp dir with main.py, readable (and in basic mode writable) by the sandbox user. */
function prepareDirSync(program: string, l: Launcher | undefined): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hpt-sbx-'));
  try {
    writeFileSync(path.join(dir, 'main.py'), program, { mode: 0o644 });
    if (l?.kind === 'ns') mkdirSync(path.join(dir, 'root'));
    if (l?.kind === 'basic' && l.uid !== undefined && l.gid !== undefined) {
      chownSync(dir, l.uid, l.gid);
      chownSync(path.join(dir, 'main.py'), l.uid, l.gid);
      chmodSync(dir, 0o700);
    }
    return dir;
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

async function prepareDir(program: string, l: Launcher): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hpt-sbx-'));
  try {
    await writeFile(path.join(dir, 'main.py'), program, { mode: 0o644 });
    if (l.kind === 'ns') await mkdir(path.join(dir, 'root'));
    if (l.kind === 'basic' && l.uid !== undefined && l.gid !== undefined) {
      await chown(dir, l.uid, l.gid);
      await chown(path.join(dir, 'main.py'), l.uid, l.gid);
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

/** Runs one program synchronously under launcher `l` (probe and synchronous fallback). */
function runSyncWith(l: Launcher, program: string, python: string, lim: Limits): RunResult & { setupOk: boolean } {
  let dir: string | undefined;
  const started = performance.now();
  try {
    dir = prepareDirSync(program, l);
    const plan = planFor(l, dir, python, lim);
    // Basic mode: no stdout/stderr pipes, so a grandchild that escaped the group cannot keep this call waiting.
    const stdio = plan.setupFd ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'];
    const syncOptions: SpawnSyncOptionsWithBufferEncoding = {
      cwd: plan.options.cwd,
      env: plan.options.env,
      stdio: stdio as StdioOptions,
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
    const out = (r.output?.[1] as Buffer | null) ?? Buffer.alloc(0);
    const err = (r.output?.[2] as Buffer | null) ?? Buffer.alloc(0);
    const setupOk = plan.setupFd ? ((r.output?.[3] as Buffer | null)?.toString() ?? '') === 'ok' : true;
    const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
    const stdout = out.subarray(0, STDOUT_CAP).toString('utf8');
    const stderr = err.subarray(Math.max(0, err.length - STDERR_CAP)).toString('utf8');
    const base = { exitCode: r.status, signal: r.signal, stdout, stderr, durationMs, setupOk };
    if (timedOut) return { ...base, status: 'timeout' };
    if (r.error || !setupOk) return { ...base, status: 'error', stderr: base.stderr || String(r.error?.message ?? '') };
    return { ...base, status: r.status === 0 ? 'passed' : 'failed' };
  } catch (e) {
    return { status: 'error', exitCode: null, signal: null, stdout: '', stderr: String((e as Error).message ?? e), durationMs: performance.now() - started, setupOk: false };
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

interface ProbeReport {
  uid: number;
  net: number;
  as: number;
}

/** Runs the probe program under `l`; returns the observed isolation or a reason for failure. */
function probeWith(l: Launcher, python: string): { iso?: SandboxIsolation; why?: string } {
  const marker = `hpt-sandbox-probe-${randomBytes(6).toString('hex')}`;
  const memoryMb = 512;
  const r = runSyncWith(l, PROBE_PROGRAM.replace('MARKER', marker), python, { timeoutMs: 10_000, memoryMb, maxProcesses: DEFAULT_MAX_PROCESSES });
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
  const nobody = nobodyIds();
  return {
    iso: {
      mode: l.kind === 'ns' ? (l.unshareArgs.includes('--map-root-user') ? 'user-namespace' : 'namespaces') : 'basic',
      network: rep.net === ENETUNREACH ? 'isolated' : 'not-isolated',
      user: rep.uid === nobody.uid ? 'nobody' : `uid ${rep.uid}`,
      filesystem: leaked ? 'shared' : 'private',
      processes: l.unshareArgs.includes('--pid') ? 'pid-namespace' : 'process-group',
      limits: rep.as === memoryMb * 1024 * 1024 ? 'prlimit' : 'none',
      python,
      visible: l.kind === 'ns' ? [...l.rootEntries.map((e) => e.replace(/^(link|bind):/, '')), '/proc', '/tmp'] : [],
      notes: [],
    },
  };
}

const NS_ARGS = ['--net', '--mount', '--pid', '--fork', '--kill-child', '--propagation', 'private'];

/** Builds the candidate launchers, strongest first. */
function candidates(python: string, isolate: boolean): Launcher[] {
  const unshare = findTool('unshare');
  const setpriv = findTool('setpriv');
  const prlimit = findTool('prlimit');
  const timeout = findTool('timeout');
  const root = isRoot();
  const nobody = nobodyIds();
  const rootEntriesList = rootEntries(python);
  const blank = (mode: SandboxIsolation['mode']): SandboxIsolation => ({
    mode,
    network: 'not-isolated',
    user: '',
    filesystem: 'shared',
    processes: 'process-group',
    limits: 'none',
    python,
    visible: [],
    notes: [],
  });
  const out: Launcher[] = [];
  if (isolate && unshare && setpriv && prlimit) {
    if (root) out.push({ isolation: blank('namespaces'), kind: 'ns', unshare, prlimit, unshareArgs: NS_ARGS, uid: nobody.uid, gid: nobody.gid, rootEntries: rootEntriesList, timeout });
    else out.push({ isolation: blank('user-namespace'), kind: 'ns', unshare, prlimit, unshareArgs: ['--user', '--map-root-user', ...NS_ARGS], rootEntries: rootEntriesList, timeout });
  }
  const drop = root ? { uid: nobody.uid, gid: nobody.gid } : {};
  if (unshare) {
    out.push({ isolation: blank('basic'), kind: 'basic', unshare, prlimit, unshareArgs: ['--user', '--net', '--pid', '--fork', '--kill-child'], rootEntries: [], timeout, ...drop });
    out.push({ isolation: blank('basic'), kind: 'basic', unshare, prlimit, unshareArgs: ['--user', '--net'], rootEntries: [], timeout, ...drop });
  }
  out.push({ isolation: blank('basic'), kind: 'basic', prlimit, unshareArgs: [], rootEntries: [], timeout, ...drop });
  return out;
}

const launchers = new Map<string, Launcher>();

/** Probes once per (python, isolate) and caches the launcher (synchronous: ~0.1 s the first time). */
function launcherFor(python: string, isolate: boolean): Launcher {
  const key = `${isolate ? 'iso' : 'basic'}\0${python}`;
  const cached = launchers.get(key);
  if (cached) return cached;
  const notes: string[] = [];
  let chosen: Launcher | undefined;
  if (!isolate) notes.push('namespaces disabled by the caller (isolate: false)');
  if (isolate && !isRoot()) notes.push('not running as root: cannot switch to user nobody');
  for (const c of candidates(python, isolate)) {
    const { iso, why } = probeWith(c, python);
    if (iso) {
      chosen = { ...c, isolation: { ...iso, notes: [...notes] } };
      break;
    }
    notes.push(`${c.kind === 'ns' ? c.isolation.mode : `basic${c.unshareArgs.length ? ` + unshare ${c.unshareArgs.join(' ')}` : ''}`} did not work: ${why}`);
  }
  chosen ??= {
    isolation: { mode: 'unavailable', network: 'not-isolated', user: '', filesystem: 'shared', processes: 'process-group', limits: 'none', python, visible: [], notes },
    kind: 'none',
    unshareArgs: [],
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

/** A FIFO counting semaphore: a waiter is handed the slot of the run that released it. */
class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(public limit: number) {}
  async acquire(): Promise<() => void> {
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.pump();
    };
  }
  pump(): void {
    while (this.active < this.limit && this.waiting.length > 0) {
      this.active++;
      (this.waiting.shift() as () => void)();
    }
  }
}

const limiter = new Limiter(8);

/** Sets how many sandboxed programs may run at once in this process (default 8). */
export function setSandboxConcurrency(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`sandbox concurrency must be an integer >= 1, got ${n}`);
  limiter.limit = n;
  limiter.pump();
}

/**
 * Maps `fn` over `items` with at most `limit` calls in flight; results keep the input order. The first rejection
 * is rethrown after the calls in flight settle (no new calls start after it).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i] as T, i);
      } catch (error) {
        failed ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(Math.floor(limit), items.length)) }, lane));
  if (failed) throw failed.error;
  return results;
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
  text(): string {
    return this.buf.subarray(Math.max(0, this.buf.length - this.cap)).toString('utf8');
  }
}

/**
 * Runs a Python program in the sandbox (see the module docs for the isolation) and reports how it ended.
 * - `passed` iff the interpreter exited with code 0 within `timeoutMs`;
 * - `timeout`: the wall-clock limit hit; the whole process group (and, in namespace modes, the PID namespace) was
 *   SIGKILLed; `durationMs` is then about `timeoutMs`;
 * - `failed`: non-zero exit (exception, MemoryError under the RLIMIT_AS, ...) or death by a signal such as SIGXCPU;
 * - `error`: the sandbox could not start the program (probe found no working mode, spawn failed, setup failed).
 * Never rejects and never hangs; resolves at the latest about `timeoutMs` + 5 s after the program was spawned.
 * Waits for a slot when `setSandboxConcurrency` runs are already in flight (the timeout starts at spawn).
 */
export async function runPython(program: string, options: RunPythonOptions = {}): Promise<RunResult> {
  const python = options.python ?? defaultPython();
  const lim = limitsOf(options);
  const l = launcherFor(python, options.isolate !== false);
  if (l.kind === 'none') {
    return { status: 'error', exitCode: null, signal: null, stdout: '', stderr: `hpt-sandbox: no working sandbox for ${python}: ${l.isolation.notes.join('; ')}`, durationMs: 0 };
  }
  const release = await limiter.acquire();
  let dir: string | undefined;
  try {
    dir = await prepareDir(program, l);
    return await spawnAndWait(planFor(l, dir, python, lim), lim.timeoutMs);
  } catch (e) {
    return { status: 'error', exitCode: null, signal: null, stdout: '', stderr: `hpt-sandbox: ${String((e as Error).message ?? e)}`, durationMs: 0 };
  } finally {
    release();
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

function spawnAndWait(plan: Plan, timeoutMs: number): Promise<RunResult> {
  return new Promise<RunResult>((resolve) => {
    const out = new Head(STDOUT_CAP);
    const err = new Tail(STDERR_CAP);
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

    const finish = (): void => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      killGroup(pid);
      for (const s of child.stdio) s?.destroy();
      child.unref();
      const durationMs = (ended ?? performance.now()) - started;
      const base = { exitCode, signal, stdout: out.text(), stderr: err.text(), durationMs };
      if (timedOut) resolve({ ...base, status: 'timeout' });
      else if (spawnError) resolve({ ...base, status: 'error', stderr: `hpt-sandbox: ${spawnError.message}` });
      else if (plan.setupFd && setupToken !== 'ok') resolve({ ...base, status: 'error' });
      else resolve({ ...base, status: exitCode === 0 ? 'passed' : 'failed' });
    };

    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    const fd3 = child.stdio[3];
    if (fd3 && 'on' in fd3) fd3.on('data', (b: Buffer) => (setupToken += b.toString()));
    for (const s of child.stdio) s?.on('error', () => undefined);

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

    timers.push(
      setTimeout(() => {
        if (exited) return;
        timedOut = true;
        killGroup(pid);
      }, timeoutMs),
    );
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
 * such as a `MetricAggregator.add`. Same isolation and statuses; ignores the concurrency limit.
 */
export function runPythonSync(program: string, options: RunPythonOptions = {}): RunResult {
  const python = options.python ?? defaultPython();
  const l = launcherFor(python, options.isolate !== false);
  if (l.kind === 'none') {
    return { status: 'error', exitCode: null, signal: null, stdout: '', stderr: `hpt-sandbox: no working sandbox for ${python}`, durationMs: 0 };
  }
  const { setupOk: _setupOk, ...r } = runSyncWith(l, program, python, limitsOf(options));
  return r;
}
