import { spawn } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'node:util';

/** Repository root and the built CLI entry. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
/** oclif's entry, loaded natively (not through vitest's transform) for in-process commands. */
const OCLIF = fileURLToPath(new URL('../../node_modules/@oclif/core/lib/index.js', import.meta.url));
/** The shared folder beside the clone (real samples for tests). */
export const SHARED = fileURLToPath(new URL('../../../shared/', import.meta.url));

/** The outcome of one CLI process. */
export interface CliResult {
  code: number | null;
  /** the signal that ended the process (`startCli` only), else null */
  signal?: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A CLI process started by `startCli`: its pid, a way to signal it, and its outcome once it exits. */
export interface StartedCli {
  pid: number;
  kill: (signal: NodeJS.Signals) => void;
  done: Promise<CliResult>;
}

/**
 * Start the built CLI without waiting for it (signals, several processes at once), in the same minimal environment as
 * `runCli` (PATH, HOME, NO_COLOR), `env` added to it.
 */
export function startCli(args: string[], options: { env?: Record<string, string> } = {}): StartedCli {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { pid: child.pid!, kill: (signal) => child.kill(signal), done };
}

/** Options of `runCli`: environment added to a minimal one, working directory, kill timeout, and the way to run it. */
export interface RunCliOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** child processes only: kill after this many ms (default 120 s) */
  timeoutMs?: number;
  /** run the built CLI as a child process even when it could run in this process (what the test proves needs a process) */
  spawn?: boolean;
}

/** Whether an in-process command is running (a second concurrent one gets a process of its own). */
let inProcessBusy = false;

/**
 * Run the built `hpt-bench` CLI on `args` and collect its exit code, stdout and stderr. `env` is added to a minimal
 * environment (PATH, HOME, NO_COLOR) — the caller's OPENAI_* variables are not inherited.
 *
 * By default the command runs inside this test process (`runInProcess`: oclif's `run` over the built CLI, as
 * bin/run.js does, which saves starting Node, oclif and the plugins for every command — about a second each); a
 * command started while another runs in-process, `spawn: true`, or `HPT_TEST_SPAWN=1` in the environment (to run the
 * whole suite through real processes) starts a child process instead (`spawnCli`).
 */
export async function runCli(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  // a worker thread (npm run test:fast) cannot change the working directory: another one needs a process
  const otherCwd = resolvePath(options.cwd ?? ROOT) !== process.cwd();
  if (options.spawn || inProcessBusy || process.env.HPT_TEST_SPAWN || (otherCwd && !isMainThread)) return spawnCli(args, options);
  inProcessBusy = true;
  try {
    return await runInProcess(args, options);
  } finally {
    inProcessBusy = false;
  }
}

/** Run the built CLI as a child process (asynchronously, so an in-process test server keeps serving). */
export function spawnCli(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The exit code an error thrown out of oclif's `run` stands for (`this.exit(n)`, a parse error, or 1). */
function exitCodeOf(e: unknown): number {
  const oclif = (e as { oclif?: { exit?: number } } | undefined)?.oclif;
  return typeof oclif?.exit === 'number' ? oclif.exit : 1;
}

/**
 * Run the built CLI inside this process: oclif's `run(args, ROOT)` (a fresh oclif Config per command, the plugins'
 * modules cached by Node), with the process's environment, working directory, stdout and stderr (and `console`) swapped for the
 * command's while it runs and restored afterwards (also `process.exitCode`). An error oclif would print on its way
 * out (not one the command reports itself) is written to stderr as bin/run.js's `Error: <message>` line.
 */
async function runInProcess(args: string[], options: RunCliOptions): Promise<CliResult> {
  const { run } = (await import(pathToFileURL(OCLIF).href)) as { run(argv: string[], root: string): Promise<unknown> };
  const saved = { env: process.env, cwd: process.cwd(), exitCode: process.exitCode, out: process.stdout.write, err: process.stderr.write, log: console.log, info: console.info, error: console.error, warn: console.warn };
  let stdout = '';
  let stderr = '';
  const capture = (append: (s: string) => void) =>
    function (chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
      const done = typeof encoding === 'function' ? encoding : cb;
      if (typeof done === 'function') (done as () => void)();
      return true;
    };
  process.env = { PATH: saved.env.PATH ?? '', HOME: saved.env.HOME ?? '/tmp', NO_COLOR: '1', ...options.env };
  if (resolvePath(options.cwd ?? ROOT) !== saved.cwd) process.chdir(options.cwd ?? ROOT);
  process.stdout.write = capture((s) => (stdout += s)) as typeof process.stdout.write;
  process.stderr.write = capture((s) => (stderr += s)) as typeof process.stderr.write;
  // oclif's `this.log` and `ux.stdout` write through console.log (which vitest intercepts)
  console.log = console.info = (...a: unknown[]) => void (stdout += `${format(...a)}\n`);
  console.error = console.warn = (...a: unknown[]) => void (stderr += `${format(...a)}\n`);
  let code = 0;
  try {
    await run(args, ROOT);
  } catch (e) {
    code = exitCodeOf(e);
    const exit = (e as Error | undefined)?.name === 'ExitError' || (e as { code?: string } | undefined)?.code === 'EEXIT';
    if (!exit) stderr += `Error: ${e instanceof Error ? e.message : String(e)}\n`;
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    Object.assign(console, { log: saved.log, info: saved.info, error: saved.error, warn: saved.warn });
    process.env = saved.env;
    if (process.cwd() !== saved.cwd) process.chdir(saved.cwd);
    process.exitCode = saved.exitCode;
  }
  return { code, stdout, stderr };
}

/**
 * What a failed command reported, as `Error: <message>` text: from the one `{"error": …}` object a `--json` command
 * prints on stdout (README "Exit codes"), else stderr as it is.
 */
export function reportedError(r: CliResult): string {
  const out = r.stdout.trim();
  if (out.startsWith('{"error"')) return `Error: ${(JSON.parse(out) as { error: { message: string } }).error.message}\n`;
  return r.stderr;
}

/**
 * The one error line of a failed command (non-zero exit, no stack trace): with `--json`, the `{"error": …}` object is
 * the only output on stdout and stderr is empty; otherwise stdout is empty and stderr is one `Error: …` line.
 */
export function errorLine(r: CliResult): string {
  if (r.code === 0) throw new Error(`the command succeeded: ${r.stdout}`);
  const json = r.stdout.trim().startsWith('{"error"');
  if (json ? r.stderr !== '' || r.stdout.trim().split('\n').length !== 1 : r.stdout !== '') throw new Error(`not a single error report:\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  const lines = reportedError(r).split('\n').filter((l) => l.trim() !== '');
  if (lines.length !== 1 || !lines[0]!.startsWith('Error: ') || /^ {4}at /m.test(r.stderr)) throw new Error(`not one Error line:\n${r.stderr}`);
  return lines[0]!;
}
