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
  stdout: string;
  stderr: string;
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
