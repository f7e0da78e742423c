/**
 * End-to-end: inputs a user can get wrong, through the built CLI (a subprocess, offline).
 *
 * Each failure must be one `Error: ...` line on stderr naming the input, a non-zero exit, no stack trace, nothing on
 * stdout, and nothing half-written: no `--out` file (nor its temp file), and in the `--store` either no run at all
 * (failures found before the run starts: configuration, any record of the data, an endpoint nothing listens on) or the
 * run recorded as `failed` — never `completed`. Records are named by their line (JSONL) or item (JSON array), from 1.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, SHARED, type CliResult } from '../helpers/cli.js';
import { startOpenAIServer, type TestServer } from '../helpers/openai-server.js';
import { closedPort } from '../helpers/net.js';

let dir: string;
let counter = 0;
/** A fresh path in this file's temp dir. */
const tmp = (name: string) => join(dir, `${++counter}-${name}`);

/** Real BoolQ samples (HPT representative set), read at test time and written to temp files only. */
interface BoolqRecord {
  question: string;
  passage: string;
  answer: string | boolean;
}
let REAL: BoolqRecord[];

/** Write records as a JSONL file; `raw` lines are inserted verbatim at their index. */
function writeJsonl(name: string, records: unknown[], raw: Record<number, string> = {}): string {
  const lines = records.map((r) => JSON.stringify(r));
  for (const [at, text] of Object.entries(raw).sort(([a], [b]) => Number(a) - Number(b))) lines.splice(Number(at), 0, text);
  const path = tmp(name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** A failed command: non-zero exit, nothing on stdout, exactly one `Error: ...` line on stderr, no stack trace. */
function expectOneLineError(r: CliResult): string {
  expect(r.code).not.toBeNull();
  expect(r.code).not.toBe(0);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/^ {4}at /m);
  // progress lines (a long run on a non-TTY stderr prints one every --progress-interval) are not error text
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '' && !/^\S+: \d+\/(\d+|\?) samples/.test(l));
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^Error: \S/);
  return lines[0]!;
}

interface RunRow {
  id: string;
  status: string;
  error: string | null;
  summary: string | null;
}
/** The runs recorded in a store file. */
function runsIn(store: string): RunRow[] {
  const db = new Database(store, { fileMustExist: true });
  try {
    return db.prepare('SELECT id, status, error, summary FROM runs ORDER BY created_at').all() as RunRow[];
  } finally {
    db.close();
  }
}

/** `--out` was not written, not even partly (no temp file beside it). */
function expectNoOut(out: string): void {
  expect(existsSync(out)).toBe(false);
  const base = out.split('/').pop()!;
  expect(readdirSync(dir).filter((f) => f.startsWith(base))).toEqual([]);
}

/** The run is in the store as failed, with `fragment` in its error; no run completed; no summary. */
function expectFailedRun(store: string, fragment: string): RunRow {
  const runs = runsIn(store);
  expect(runs).toHaveLength(1);
  expect(runs[0]!.status).toBe('failed');
  expect(runs[0]!.error).toContain(fragment);
  expect(runs[0]!.summary).toBeNull();
  expect(runs.filter((r) => r.status === 'completed')).toEqual([]);
  return runs[0]!;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-bad-input-'));
  const all = JSON.parse(readFileSync(join(SHARED, 'data/hpt-representative/boolq.json'), 'utf8')) as BoolqRecord[];
  REAL = all.slice(0, 4).map(({ question, passage, answer }) => ({ question, passage, answer }));
  expect(REAL).toHaveLength(4);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('unknown ids (fail before the run starts: nothing is written)', () => {
  it('an unknown dataset id suggests the closest one', async () => {
    const out = tmp('out.jsonl');
    const store = tmp('store.db');
    const r = await runCli(['run', '--dataset', 'boolqq', '--split', 'mini', '--model', 'baseline:oracle', '--store', store, '--out', out]);
    const line = expectOneLineError(r);
    expect(line).toContain("unknown dataset 'boolqq'");
    expect(line).toContain("Did you mean 'boolq'?");
    expectNoOut(out);
    expect(existsSync(store)).toBe(false);
  });

  it('an unknown model id names it and suggests the closest one', async () => {
    const out = tmp('out.jsonl');
    const store = tmp('store.db');
    const r = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'opnai:gpt-4o', '--store', store, '--out', out]);
    const line = expectOneLineError(r);
    expect(line).toContain("unknown model 'opnai'");
    expect(line).toContain("Did you mean 'openai'?");
    expect(line).toContain('Known models: baseline, openai.');
    expectNoOut(out);
    expect(existsSync(store)).toBe(false);
  });

  it('`openai:` without a model name says how to name one', async () => {
    const out = tmp('out.jsonl');
    const store = tmp('store.db');
    const r = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'openai:', '--store', store, '--out', out], { env: { OPENAI_API_KEY: 'sk-dummy' } });
    const line = expectOneLineError(r);
    expect(line).toBe('Error: the openai model needs a name: --model openai:<model>, e.g. openai:gpt-4o-mini');
    expectNoOut(out);
    expect(existsSync(store)).toBe(false);
  });
});

describe('bad data files (the whole data is read before a run row exists: no run is left; --out is not written)', () => {
  it('a missing --data file is named', async () => {
    const data = tmp('does-not-exist.jsonl');
    const out = tmp('out.jsonl');
    const store = tmp('store.db');
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'baseline:oracle', '--store', store, '--out', out]);
    expect(expectOneLineError(r)).toBe(`Error: data file not found: ${data}`);
    expectNoOut(out);
    // found before a run row is created: nothing for a later command to "resume"
    expect(runsIn(store)).toEqual([]);
  });

  it('a malformed .json file is named with the parse error', async () => {
    const data = tmp('broken.json');
    writeFileSync(data, `${JSON.stringify(REAL).slice(0, -20)}\n`); // truncated array
    const out = tmp('out.jsonl');
    const store = tmp('store.db');
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'baseline:oracle', '--store', store, '--out', out]);
    expect(expectOneLineError(r)).toMatch(new RegExp(`^Error: ${escape(data)} is not valid JSON: `));
    expectNoOut(out);
    expect(runsIn(store)).toEqual([]);
  });

  it('a JSONL line that is not JSON is named by file and line number', async () => {
    // line 1, 2: records; line 3: not JSON; line 4: a record
    const data = writeJsonl('bad-line.jsonl', [REAL[0], REAL[1], REAL[2]], { 2: '{"question": "unterminated' });
    expect(readFileSync(data, 'utf8').split('\n')[2]).toBe('{"question": "unterminated');
    const out = tmp('out.jsonl');
    const store = tmp('store.db');
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'baseline:oracle', '--store', store, '--out', out]);
    expect(expectOneLineError(r)).toMatch(new RegExp(`^Error: ${escape(data)}:3 is not valid JSON: `));
    expectNoOut(out);
    expect(runsIn(store)).toEqual([]);
  });

  it('a record missing a required field is named by its line (from 1) and field, with the --on-invalid hint; no run is left', async () => {
    const { passage: _dropped, ...noPassage } = REAL[2]!;
    const data = writeJsonl('missing-field.jsonl', [REAL[0], REAL[1], noPassage, REAL[3]]);
    const out = tmp('out.jsonl');
    const store = tmp('store.db');
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'baseline:oracle', '--store', store, '--out', out]);
    expect(expectOneLineError(r)).toBe(`Error: ${data}: line 3: missing field 'passage' (use --on-invalid skip to skip such records)`);
    expectNoOut(out);
    expect(runsIn(store)).toEqual([]);
  });

  it('with --on-invalid skip the same file succeeds: the record is skipped with a warning and n is one less', async () => {
    const { passage: _dropped, ...noPassage } = REAL[2]!;
    const data = writeJsonl('missing-field-skip.jsonl', [REAL[0], REAL[1], noPassage, REAL[3]]);
    const out = tmp('out.jsonl');
    const store = tmp('store.db');
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'baseline:oracle', '--store', store, '--out', out, '--on-invalid', 'skip', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([`warning: skipped ${data}: line 3: missing field 'passage'`]);
    const s = JSON.parse(r.stdout) as { n: number; skipped: number; levelCounts: Record<string, number>; hpi: number };
    expect(s.n).toBe(3);
    expect(s.skipped).toBe(1);
    expect(s.levelCounts['1']).toBe(3);
    expect(s.hpi).toBe(1);
    // the out file has the three valid records, by their input index (ids default to the index)
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { sampleId: string; target: boolean });
    expect(lines.map((l) => l.sampleId)).toEqual(['0', '1', '3']);
    expect(lines.map((l) => l.target)).toEqual([REAL[0], REAL[1], REAL[3]].map((x) => String(x!.answer).toLowerCase() === 'true'));
    const runs = runsIn(store);
    expect(runs.map((x) => x.status)).toEqual(['completed']);
    expect((JSON.parse(runs[0]!.summary!) as { n: number }).n).toBe(3);
  });
});

describe('endpoint failures (an endpoint nothing listens on: no run; a refusing one: the run is recorded as failed; --out is not written)', () => {
  let server: TestServer;
  const KEY = 'sk-test-ShouldNeverBeShown-0123456789';
  beforeAll(async () => {
    // like api.openai.com, the 401 body echoes (part of) the key
    server = await startOpenAIServer(() => ({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}.`, type: 'invalid_request_error', code: 'invalid_api_key' } } }));
  });
  afterAll(async () => server?.close());

  it('an unreachable endpoint is named with a hint, before a run row exists', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const data = writeJsonl('ok.jsonl', REAL);
    const out = tmp('out.jsonl');
    const store = tmp('store.db');
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'openai:test-model', '--base-url', url, '--store', store, '--out', out], { env: { OPENAI_API_KEY: KEY } });
    const line = expectOneLineError(r);
    expect(line).toMatch(new RegExp(`^Error: cannot reach ${escape(url)} \\(`));
    expect(line).toContain('--base-url');
    expect(line).not.toContain(KEY);
    expectNoOut(out);
    expect(runsIn(store)).toEqual([]);
  });

  it('HTTP 401 names the key variable, never the key', async () => {
    const data = writeJsonl('ok.jsonl', REAL);
    const out = tmp('out.jsonl');
    const store = tmp('store.db');
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'openai:test-model', '--base-url', server.url, '--store', store, '--out', out], { env: { OPENAI_API_KEY: KEY } });
    const line = expectOneLineError(r);
    expect(line).toContain('HTTP 401');
    expect(line).toContain('OPENAI_API_KEY');
    expect(r.stderr).not.toContain(KEY);
    expect(r.stderr).not.toContain('ShouldNeverBeShown');
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests[0]!.authorization).toBe(`Bearer ${KEY}`); // the key did reach the server
    expectNoOut(out);
    const run = expectFailedRun(store, 'HTTP 401');
    expect(run.error).toContain('OPENAI_API_KEY');
    expect(run.error).not.toContain('ShouldNeverBeShown');
  });

  it('HTTP 401 with --api-key-env names that variable', async () => {
    const data = writeJsonl('ok.jsonl', REAL.slice(0, 1));
    const out = tmp('out.jsonl');
    const store = tmp('store.db');
    const r = await runCli(
      ['run', '--dataset', 'boolq', '--data', data, '--model', 'openai:test-model', '--base-url', server.url, '--api-key-env', 'HPT_E2E_KEY', '--store', store, '--out', out],
      { env: { HPT_E2E_KEY: KEY } },
    );
    const line = expectOneLineError(r);
    expect(line).toContain('HPT_E2E_KEY');
    expect(line).not.toContain('OPENAI_API_KEY');
    expect(r.stderr).not.toContain('ShouldNeverBeShown');
    expectNoOut(out);
    expectFailedRun(store, 'HPT_E2E_KEY');
  });
});

/** Escape a string for use in a RegExp. */
function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
