/**
 * The code sandbox contract (issue 26, item 4): what a plugin that runs model-written code receives as
 * `Tokens.CodeSandbox`. The implementation is the `@hpt-bench/sandbox` package (namespaces, a private root, per-run
 * user ids, rlimits, a memory cgroup, a completion nonce); the core registers it in every run container and bounds how
 * many programs run at once. A plugin never imports the implementation: it declares
 * `@inject(Tokens.CodeSandbox) sandbox: CodeSandbox` (or `static inject = [Tokens.CodeSandbox]`) in a scorer's
 * constructor.
 *
 * Today the sandbox runs Python programs (the interpreter is `SandboxRunOptions.python`).
 */

/**
 * How one sandboxed program ended.
 * - `passed`: the program ran to its end (its module body returned; the harness's completion nonce arrived) within the
 *   timeout. How the process then exited does not matter; `sys.exit(0)`, `os._exit(0)`, atexit hooks, SystemExit and
 *   signals never pass.
 * - `failed`: anything else that ended in time (an exception, SystemExit with any code, `os._exit`, a signal that is
 *   not the sandbox's, an out-of-memory kill).
 * - `timeout`: killed by the wall-clock timeout.
 * - `error`: the sandbox itself could not run the program (no working sandbox mode, spawn or setup failure). This is
 *   not the program's fault; a scorer should raise `E_SANDBOX` rather than count it as a failure.
 */
export type SandboxRunStatus = 'passed' | 'failed' | 'timeout' | 'error';

/** Limits and interpreter of one sandboxed run. Every field is optional; the defaults are the reference harness's. */
export interface SandboxRunOptions {
  /** Wall-clock limit in milliseconds, from spawn to exit (default 3000; values below 1 become 1). Time spent waiting
   * for a concurrency slot does not count. */
  timeoutMs?: number;
  /** Address-space limit (RLIMIT_AS) of each process in MiB (default 1024, at least 16). With a memory cgroup, all
   * processes of the run together get memoryMb + 64 MiB. */
  memoryMb?: number;
  /** RLIMIT_NPROC: processes plus threads of the run's user (default 16, at least 1). Per run when the evaluator is
   * root (every run has a user id of its own). */
  maxProcesses?: number;
  /** The Python interpreter (default: /usr/bin/python3 or /usr/local/bin/python3 when present, else `python3`). */
  python?: string;
  /** `false` forces the `basic` mode (no namespaces, no private root); default: the strongest mode that works. */
  isolate?: boolean;
}

/** The outcome of one run. `stdout` keeps the first 16 KiB, `stderr` the last 4 KiB (UTF-8); `durationMs` is the
 * wall time from spawn to exit in milliseconds. `exitCode`/`signal` are the process's, null when it has none. */
export interface SandboxRunResult {
  status: SandboxRunStatus;
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** The isolation in effect for an interpreter and mode, as observed by running a probe program through the sandbox. */
export interface SandboxIsolation {
  /** `namespaces` (root), `user-namespace` (unprivileged user namespaces), `basic` (rlimits and process group only),
   * `unavailable` (not even `basic` can run the interpreter: every run has status `error`). */
  mode: 'namespaces' | 'user-namespace' | 'basic' | 'unavailable';
  /** `isolated`: a TCP connect to 127.0.0.1 fails with ENETUNREACH inside the sandbox. */
  network: 'isolated' | 'not-isolated';
  /** `per-run uid` (every run has a user id of its own) or `uid <n>` as seen by the program. */
  user: string;
  /** `private`: a file the program writes into /tmp is not visible outside; `shared`: it is. */
  filesystem: 'private' | 'shared';
  /** `pid-namespace`: leftovers die with the program; `process-group`: only the group is killed on timeout. */
  processes: 'pid-namespace' | 'process-group';
  /** `prlimit`: the requested RLIMIT_AS was observed inside; `none`: no rlimits applied. */
  limits: 'prlimit' | 'none';
  /** `cgroup`: every run has its own memory cgroup (total bound memoryMb + 64 MiB); `rlimit`: only the per-process
   * RLIMIT_AS holds. */
  memory: 'cgroup' | 'rlimit';
  /** The interpreter used. */
  python: string;
  /** Top-level host paths visible (read-only) to the program in namespace modes; empty in basic mode. */
  visible: string[];
  /** Why stronger modes were not used (empty when the strongest mode for this user works). */
  notes: string[];
}

/** The protections the sandbox escape suite tests, in report order (the keys of `SandboxCheckReport.protections`). */
export const SANDBOX_PROTECTIONS = ['filesystem', 'network', 'descriptors', 'processes', 'memory', 'exitForgery', 'timeout', 'privileges', 'environment'] as const;
/** One protection of the escape suite. */
export type SandboxProtection = (typeof SANDBOX_PROTECTIONS)[number];

/** Whether one protection held, and what was observed (one line). */
export interface ProtectionResult {
  holds: boolean;
  detail: string;
}

/** The result of the escape suite (`CodeSandbox.check`; `hpt-bench sandbox check --json` prints it). */
export interface SandboxCheckReport {
  /** Every protection of SANDBOX_PROTECTIONS with its outcome, in that order. */
  protections: Record<SandboxProtection, ProtectionResult>;
  /** The sandbox mode in effect. */
  mode: SandboxIsolation['mode'];
  /** True when every protection holds. */
  holds: boolean;
  /** The protections that do not hold, in report order. */
  missing: SandboxProtection[];
  /** The isolation the sandbox's probe observed. */
  isolation: Pick<SandboxIsolation, 'user' | 'memory' | 'network' | 'filesystem' | 'processes' | 'limits' | 'python'>;
  /** Wall time of the whole check in milliseconds (an integer). */
  durationMs: number;
}

/** Options of the escape suite: the interpreter and mode of the checked runs (as in `SandboxRunOptions`). */
export type SandboxCheckOptions = Pick<SandboxRunOptions, 'python' | 'isolate'>;

/**
 * The code sandbox a plugin receives as `Tokens.CodeSandbox` (scorers only).
 */
export interface CodeSandbox {
  /**
   * Runs `program` (Python source, written to `main.py` in a fresh work dir) in the sandbox and reports how it ended
   * (see `SandboxRunStatus`). Waits for a concurrency slot when the host's limit of runs in flight is reached; the
   * timeout starts when the program is spawned. Never rejects and never hangs: resolves at the latest about
   * `timeoutMs` + 5 s after the spawn.
   */
  run(program: string, options?: SandboxRunOptions): Promise<SandboxRunResult>;
  /**
   * The isolation runs with these options get. Probes once per interpreter and mode (synchronously, about 0.1-0.3 s),
   * then cached. Record at least `network` next to results (a run without network isolation is flagged).
   */
  isolation(options?: SandboxCheckOptions): SandboxIsolation;
  /**
   * Runs the escape suite (hostile programs, a few seconds) on this machine and reports per protection whether it
   * holds. Never rejects: a row whose checker fails is reported as not holding; with mode `unavailable` every row is.
   */
  check(options?: SandboxCheckOptions): Promise<SandboxCheckReport>;
}
