/**
 * End-to-end (built CLI, offline): hostile text from a model id never reaches the terminal as escape sequences, and
 * never reaches the Markdown report as HTML. Two runs are stored: one by a `--plugin DIR` model
 * (written to a temp dir) whose id is full of ANSI/OSC escapes, BEL, CR, a C1 CSI, a bidi override and HTML, one by
 * `baseline:oracle`; then `runs`, `report --format table`, `report --format md`, `compare`, the run summary and an
 * error line are checked. `--json` output keeps the model id exactly (it is data).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';

const HOSTILE = 'hostile:m\u001b[31mred\u001b]0;pwned\u0007\u001b[2J\r\u009b1m\u202eevil<img src=x onerror=alert(1)><script>alert(2)</script>';
/** A character a terminal acts on instead of printing (newline aside: it separates lines). */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let dir: string;
let store: string;
let data: string;
const ids: string[] = [];
let hostileRun: CliResult;

function ok(r: CliResult): CliResult {
  expect(r.code, r.stderr).toBe(0);
  return r;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-terminal-'));
  store = join(dir, 'store.db');
  data = join(dir, 'boolq.jsonl');
  writeFileSync(
    data,
    [
      { question: 'is the sky blue on a clear day', passage: 'On a clear day the sky appears blue because of Rayleigh scattering.', answer: true },
      { question: 'is the moon made of cheese', passage: 'The Moon is a rocky body made of silicate rock and metal.', answer: false },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
  // a plugin model whose id (what the store records and the tables show) is HOSTILE; it answers True to everything
  const plugin = join(dir, 'hostile-plugin');
  mkdirSync(plugin);
  writeFileSync(
    join(plugin, 'package.json'),
    JSON.stringify({ name: 'hpt-bench-plugin-hostile', version: '1.0.0', type: 'module', 'hpt-bench': { apiVersion: 1, contributes: { models: [{ id: 'hostile', module: './model.js', export: 'HostileModel' }] } } }),
  );
  writeFileSync(
    join(plugin, 'model.js'),
    `export class HostileModel {\n  id = ${JSON.stringify(HOSTILE)};\n  async generate() { return { text: 'True', usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop' }; }\n}\n`,
  );
  hostileRun = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'hostile:x', '--plugin', plugin, '--store', store]);
  ok(hostileRun);
  ok(await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'baseline:oracle', '--store', store]));
  const listed = JSON.parse(ok(await runCli(['runs', '--store', store, '--json'])).stdout) as { runs: { runId: string; model: string }[] };
  for (const r of listed.runs) ids.push(r.runId);
  expect(listed.runs.map((r) => r.model).sort()).toEqual(['baseline:oracle', HOSTILE].sort());
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('terminal tables show control characters as visible escapes', () => {
  it('`runs`', async () => {
    const r = ok(await runCli(['runs', '--store', store]));
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).toContain('m\\x1b[31mred\\x1b]0;pwned\\x07\\x1b[2J\\x0d\\x9b1m\\u202eevil');
  });

  it('`report --format table`', async () => {
    const r = ok(await runCli(['report', '--store', store, '--format', 'table']));
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).toContain('m\\x1b[31mred');
  });

  it('`compare`', async () => {
    const r = ok(await runCli(['compare', ids[0]!, ids[1]!, '--store', store]));
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).toContain('m\\x1b[31mred');
  });

  it('an error line naming the hostile id', async () => {
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', `nope\u001b[31m:x`, '--store', store]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stderr).toMatch(/^Error: unknown model 'nope\\x1b\[31m'/);
  });

  it('the summary `run` prints', () => {
    expect(hostileRun.stdout).not.toMatch(CONTROL);
    expect(hostileRun.stdout).toContain('m\\x1b[31mred');
  });
});

describe('the Markdown report escapes HTML; JSON stays raw', () => {
  it('`report --format md` has no raw tag, only entities', async () => {
    const r = ok(await runCli(['report', '--store', store, '--format', 'md']));
    expect(r.stdout).not.toMatch(/<(img|script|\/script)\b/i);
    expect(r.stdout).toContain('&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
  });

  it('`report --json` and `runs --json` keep the model id exactly', async () => {
    const report = JSON.parse(ok(await runCli(['report', '--store', store, '--json'])).stdout) as { runs: { model: string }[] };
    expect(report.runs.map((r) => r.model)).toContain(HOSTILE);
  });
});
