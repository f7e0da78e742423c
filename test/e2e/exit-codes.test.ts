/**
 * End-to-end (issue 16, "Machine interface"): one case of each class of the exit-code table (README "Exit codes"):
 * 0 success, 1 runtime failure, 2 usage or input error, 130 interrupted. With `--json` every error is one
 * `{"error": {"code", "message", "hint"?}}` object on stdout and nothing else; without it, one `Error:` line (and a
 * `hint:` line) on stderr with no usage dump and no stack trace.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { startOpenAIServer, type TestServer } from '../helpers/openai-server.js';
import { closedPort } from '../helpers/net.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-exit-'));
const data = join(dir, 'boolq.jsonl');
writeFileSync(data, Array.from({ length: 6 }, (_, i) => JSON.stringify({ question: `is ${i} even?`, answer: i % 2 === 0, passage: `${i} is a number.` })).join('\n'));

/** The one JSON error object of a `--json` failure (and nothing else on stdout or stderr). */
function jsonError(r: CliResult): { code: string; message: string; hint?: string } {
  const lines = r.stdout.split('\n').filter(Boolean);
  expect(lines, r.stdout).toHaveLength(1);
  const parsed = JSON.parse(lines[0]!) as { error: { code: string; message: string; hint?: string } };
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(r.stderr).toBe('');
  return parsed.error;
}

describe('exit codes and JSON errors', () => {
  let slow: TestServer;
  beforeAll(async () => {
    slow = await startOpenAIServer(() => ({ text: 'True', delayMs: 400 }));
  });
  afterAll(async () => slow?.close());

  it('0: success', async () => {
    const r = await runCli(['runs', '--store', join(dir, 'empty.db'), '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ store: join(dir, 'empty.db'), runs: [] });
  });

  it('2: a mistyped flag or command, an unknown id, a missing file — each a usage/input error with a suggestion where one exists', async () => {
    const flag = await runCli(['run', '--datset', 'boolq', '--json']);
    expect(flag.code).toBe(2);
    expect(jsonError(flag)).toEqual({ code: 'E_USAGE', message: 'Nonexistent flag: --datset', hint: 'did you mean --dataset? (see --help)' });
    // a repeatable flag on the line (--plugin) no longer adds oclif's "allows multiple values" note to the error
    const human = await runCli(['run', '--datset', 'boolq', '--plugin', join(ROOT, 'test/fixtures/hierarchy-data-plugin')]);
    expect(human.code).toBe(2);
    expect(human.stdout).toBe('');
    expect(human.stderr).toBe('Error: Nonexistent flag: --datset\nhint: did you mean --dataset? (see --help)\n');
    const command = await runCli(['rnu', '--json']);
    expect(command.code).toBe(2);
    expect(jsonError(command)).toEqual({ code: 'E_USAGE', message: "unknown command 'rnu'", hint: "did you mean 'run' or 'runs'? (see hpt-bench --help)" });
    const commandHuman = await runCli(['cache', 'stat']);
    expect(commandHuman.code).toBe(2);
    expect(commandHuman.stderr).toBe("Error: unknown command 'cache stat'\nhint: did you mean 'cache stats'? (see hpt-bench --help)\n");
    const unknown = await runCli(['run', '--dataset', 'boolk', '--model', 'baseline:oracle', '--store', join(dir, 'u.db'), '--json']);
    expect(unknown.code).toBe(2);
    expect(jsonError(unknown)).toMatchObject({ code: 'E_UNKNOWN_ID', message: expect.stringMatching(/unknown dataset 'boolk'\. Did you mean 'boolq'\?/) });
    const missing = await runCli(['run', '--dataset', 'boolq', '--data', join(dir, 'nope.jsonl'), '--model', 'baseline:oracle', '--store', join(dir, 'm.db'), '--json']);
    expect(missing.code).toBe(2);
    expect(jsonError(missing)).toMatchObject({ code: 'E_DATA', message: expect.stringContaining('nope.jsonl') });
    const value = await runCli(['run', '--dataset', 'boolq', '--limit', 'many', '--json']);
    expect(value.code).toBe(2);
    expect(jsonError(value)).toMatchObject({ code: 'E_USAGE', message: expect.stringMatching(/--limit/) });
  });

  it('1: a runtime failure (the endpoint cannot be reached)', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'openai:m', '--base-url', url, '--max-retries', '0', '--store', join(dir, 'down.db'), '--json'], { env: { OPENAI_API_KEY: 'k' } });
    expect(r.code).toBe(1);
    expect(jsonError(r)).toMatchObject({ code: expect.stringMatching(/^E_(ENDPOINT|MODEL_CALL|NO_RESULTS)$/), message: expect.stringContaining('cannot reach') });
  });

  it('130: interrupted by Ctrl-C, with the interruption as the JSON error', async () => {
    const child = spawn(process.execPath, [BIN, 'run', '--dataset', 'boolq', '--data', data, '--model', 'openai:m', '--base-url', `${slow.url}/v1`, '--concurrency', '1', '--store', join(dir, 'int.db'), '--json'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OPENAI_API_KEY: 'k' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const deadline = Date.now() + 20_000;
    while (slow.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((res) => child.on('close', res));
    expect(code).toBe(130);
    expect(jsonError({ code, stdout, stderr })).toMatchObject({ code: 'E_INTERRUPTED', message: expect.stringMatching(/^interrupted by SIGINT; run \S+ is marked failed/) });
  });
});
