/**
 * `evaluate()` from code (issue 26, item 1): the plugins of the installation loaded without the CLI (`loadPlugins`),
 * `runConfig()` giving the CLI's defaults, a matrix that stops at its first failing or incomplete run, cancellation by an
 * AbortSignal that keeps the finished samples and resumes, the `--out` file, and per-sample records read back.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Parser } from '@oclif/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configHash, evaluate, type EvaluationPlugins, loadPlugins, readSampleRecords, RunStore, runConfig } from '@hpt-bench/core';
import { HptCommand } from '../../packages/cli/src/base.js';
import { runConfigOf } from '../../packages/cli/src/run-config.js';
import { type RunFlags, runFlags } from '../../packages/cli/src/run-flags.js';
import { ROOT } from '../helpers/cli.js';
import { closedPort } from '../helpers/net.js';
import { startOpenAIServer, type TestServer } from '../helpers/openai-server.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-evaluate-'));
let plugins: EvaluationPlugins;

/** Six BoolQ records; the fourth one's question holds FAIL (the scripted server refuses it). */
const data = join(dir, 'six.jsonl');
writeFileSync(
  data,
  ['is the sky blue', 'is fire cold', 'is water wet', 'is FAIL a word', 'is ice cold', 'is the sun a star']
    .map((q, i) => JSON.stringify({ question: q, passage: `passage ${i}`, answer: i % 2 === 0 }))
    .join('\n'),
);

/** The flags of `hpt-bench run <argv>` as the command parses them. */
async function parsedFlags(argv: string[]): Promise<RunFlags> {
  const { flags } = await Parser.parse(argv, { flags: { ...runFlags, ...HptCommand.baseFlags } });
  return flags as RunFlags;
}

beforeAll(() => {
  plugins = loadPlugins({ root: ROOT, installed: false });
});

describe('runConfig and loadPlugins', () => {
  it('runConfig() fills the defaults of the run flags: the same configuration and run identity as the CLI', async () => {
    const cli = runConfigOf(await parsedFlags(['--dataset', 'boolq', '--model', 'baseline:oracle']));
    const lib = runConfig({ dataset: 'boolq', model: 'baseline:oracle' });
    expect(lib).toEqual(cli);
    expect(configHash(lib)).toBe(configHash(cli));
    const seeded = runConfigOf(await parsedFlags(['--dataset', 'boolq', '--model', 'baseline:oracle', '--seed', '7', '--temperature', '0']));
    expect(configHash(runConfig({ dataset: 'boolq', model: 'baseline:oracle', seed: 7, generation: { temperature: 0 } }))).toBe(configHash(seeded));
    expect(configHash(runConfig({ dataset: 'boolq', model: 'baseline:oracle', seed: 8 }))).not.toBe(configHash(seeded));
  });

  it('loadPlugins() finds the built-in plugins the hpt-bench package names, and adds --plugin-like directories', () => {
    const ids = plugins.registry.list('datasets').map((c) => c.id);
    expect(ids).toContain('boolq');
    expect(plugins.registry.list('models').map((c) => c.id)).toEqual(expect.arrayContaining(['baseline', 'openai']));
    const withDir = loadPlugins({ root: ROOT, installed: false, dirs: [join(ROOT, 'test/fixtures/sixth-level-plugin')] });
    expect(withDir.registry.list('datasets').length).toBeGreaterThan(ids.length);
  });

  it('loadPlugins() refuses a root that is not an hpt-bench installation', () => {
    expect(() => loadPlugins({ root: dir, installed: false })).toThrow(/package\.json|not installed|no such file/i);
  });
});

describe('evaluate', () => {
  let server: TestServer;
  beforeAll(async () => {
    // "true" for every question but FAIL's, which gets a 400 (not retried: the sample is recorded as errored)
    server = await startOpenAIServer((req) => (req.messages.some((m) => m.content.includes('FAIL')) ? { status: 400, body: { error: { message: 'refused' } } } : { text: 'True', delayMs: 30 }));
  });
  afterAll(async () => server.close());

  it('runs a 2 × 2 matrix in order; per-sample records equal the --out file; the oracle solves every sample at level 1', async () => {
    const store = join(dir, 'matrix.sqlite');
    const runs = ['baseline:oracle', 'baseline:random'].flatMap((model) => ['boolq', 'csqa'].map((dataset) => ({ config: runConfig({ dataset, split: 'mini', model, limit: 4, seed: 3 }), out: join(dir, `${model.replace(':', '_')}-${dataset}.jsonl`) })));
    const seen: string[] = [];
    const results = await evaluate(runs, { store, plugins, onSample: (_r, cell) => seen.push(cell.label) });
    expect(results.map((r) => r.label)).toEqual(['baseline:oracle × boolq', 'baseline:oracle × csqa', 'baseline:random × boolq', 'baseline:random × csqa']);
    expect(seen.length).toBe(16);
    for (const r of results) {
      const records = readSampleRecords(store, r.runId);
      expect(records).toHaveLength(4);
      expect(readFileSync(runs[r.index]!.out, 'utf8')).toBe(records.map((x) => `${JSON.stringify(x)}\n`).join(''));
      expect(r.summary.hpi).toBeCloseTo(records.reduce((s, x) => s + x.hpi, 0) / 4, 12);
    }
    expect(results[0]!.summary.hpi).toBe(1);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('gathers the report views\' tables of a complete run only when asked', async () => {
    const store = join(dir, 'tables.sqlite');
    const config = runConfig({ dataset: 'hibench/json', model: 'baseline:oracle', limit: 20 });
    const [withTables] = await evaluate({ config }, { store, plugins, tables: true });
    expect(withTables!.tables.map((t) => t.id).length).toBeGreaterThan(0);
    expect(withTables!.tables.every((t) => t.rows.length > 0)).toBe(true);
    const [without] = await evaluate({ config, fresh: true }, { store, plugins });
    expect(without!.tables).toEqual([]);
  });

  it('checks every run before the first starts: a bad third run stores nothing', async () => {
    const store = join(dir, 'check.sqlite');
    const runs = [runConfig({ dataset: 'boolq', split: 'mini', model: 'baseline:oracle' }), runConfig({ dataset: 'boolq', split: 'mini', model: 'baseline:random' }), runConfig({ dataset: 'boolq', split: 'mini', model: 'baseline:random', ladder: 'no-such-ladder' })].map((config) => ({ config }));
    await expect(evaluate(runs, { store, plugins })).rejects.toMatchObject({ code: 'E_UNKNOWN_ID', message: expect.stringMatching(/^baseline:random × boolq: /) });
    expect(existsSync(store)).toBe(false);
  });

  it('stops at the first run that fails, naming it; the runs before it stay stored', async () => {
    const store = join(dir, 'fail.sqlite');
    const down = `http://127.0.0.1:${await closedPort()}/v1`;
    const runs = [
      { config: runConfig({ dataset: 'boolq', split: 'mini', model: 'baseline:oracle' }) },
      { config: runConfig({ dataset: 'boolq', split: 'mini', model: 'openai:m', modelOptions: { baseUrl: down } }), label: 'down' },
      { config: runConfig({ dataset: 'boolq', split: 'mini', model: 'baseline:random' }) },
    ];
    const done: string[] = [];
    await expect(evaluate(runs, { store, plugins, onResult: (r) => done.push(r.label) })).rejects.toMatchObject({ code: 'E_ENDPOINT', message: expect.stringMatching(/^down: /) });
    expect(done).toEqual(['baseline:oracle × boolq']);
    const s = new RunStore(store);
    try {
      expect(s.listRuns().map((r) => r.model)).toEqual(['baseline:oracle']);
    } finally {
      s.close();
    }
  });

  it('stops after an incomplete run (errored samples) and returns it last', async () => {
    const store = join(dir, 'incomplete.sqlite');
    const openai = runConfig({ dataset: 'boolq', data, model: 'openai:m', modelOptions: { baseUrl: server.url }, maxRetries: 0, concurrency: 1 });
    const results = await evaluate([{ config: openai }, { config: runConfig({ dataset: 'boolq', split: 'mini', model: 'baseline:oracle' }) }], { store, plugins });
    expect(results).toHaveLength(1);
    expect(results[0]!.summary).toMatchObject({ complete: false, errored: 1, n: 5 });
  });

  it('an aborted signal interrupts at once: finished samples stay, the run is marked failed, and evaluating again resumes it', async () => {
    const store = join(dir, 'abort.sqlite');
    const config = runConfig({ dataset: 'boolq', split: 'mini', model: 'openai:m', modelOptions: { baseUrl: server.url }, concurrency: 1, ladder: 'hpf' });
    const controller = new AbortController();
    let samples = 0;
    const run = evaluate({ config }, {
      store,
      plugins,
      signal: controller.signal,
      onSample: () => {
        if (++samples === 2) controller.abort('SIGTERM');
      },
    });
    await expect(run).rejects.toMatchObject({ code: 'E_INTERRUPTED', exitCode: 143, message: expect.stringMatching(/interrupted by SIGTERM; run \S+ is marked failed/) });
    const s = new RunStore(store);
    let runId: string;
    try {
      const [row] = s.listRuns();
      expect(row!.status).toBe('failed');
      runId = row!.id;
      expect([...s.iterSamples(runId)].length).toBeGreaterThanOrEqual(2);
    } finally {
      s.close();
    }
    const [again] = await evaluate({ config }, { store, plugins });
    expect(again!.runId).toBe(runId);
    expect(again!.summary).toMatchObject({ complete: true, resumed: true });
  });

  it('an abort after the run finished leaves it complete (only --out is not written)', async () => {
    const store = join(dir, 'late.sqlite');
    const out = join(dir, 'late.jsonl');
    const controller = new AbortController();
    const run = evaluate({ config: runConfig({ dataset: 'boolq', split: 'mini', model: 'baseline:oracle' }), out }, { store, plugins, signal: controller.signal, onRunEnd: (_cell, finished) => finished && controller.abort('SIGINT') });
    await expect(run).rejects.toMatchObject({ code: 'E_INTERRUPTED', exitCode: 130, message: expect.stringMatching(/after run \S+ finished: it is stored in .*late\.sqlite; its --out file was not written/) });
    const s = new RunStore(store);
    try {
      expect(s.listRuns().map((r) => r.status)).toEqual(['completed']);
    } finally {
      s.close();
    }
    expect(existsSync(out)).toBe(false);
  });

  it('an empty list of runs is a configuration error', async () => {
    const store = join(dir, 'none.sqlite');
    await expect(evaluate([], { store, plugins })).rejects.toMatchObject({ code: 'E_CONFIG', message: 'evaluate() needs at least one run' });
    expect(existsSync(store)).toBe(false);
  });

  it('a signal aborted before the run starts records nothing', async () => {
    const store = join(dir, 'early.sqlite');
    const controller = new AbortController();
    controller.abort('SIGINT');
    await expect(evaluate({ config: runConfig({ dataset: 'boolq', split: 'mini', model: 'baseline:oracle' }) }, { store, plugins, signal: controller.signal })).rejects.toMatchObject({ code: 'E_INTERRUPTED', exitCode: 130, message: expect.stringContaining('before the run started; nothing was recorded') });
    expect(existsSync(store)).toBe(false);
  });
});
