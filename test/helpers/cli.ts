import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Repository root and the built CLI entry. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
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

/**
 * Run the built `hpt-bench` CLI as a child process (asynchronously, so an in-process test server keeps serving).
 * `env` is added to a minimal environment (PATH, HOME) — the caller's OPENAI_* variables are not inherited.
 */
export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
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
