/**
 * End-to-end: evaluation files (`hpt-bench init`, `hpt-bench run --config`, issue 16) with the built CLI as a process:
 * a models × datasets matrix (one run each, one JSON array of summaries, one combined table), re-runs that continue
 * unfinished runs and answer finished ones from the cache, command-line flags over the file, schema errors naming the
 * failing path, YAML and JSON forms, relative paths against the file, and OpenAI-compatible models with their own
 * endpoint and key variable.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parse as parseYaml } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { errorLine, runCli } from '../helpers/cli.js';
import { startOpenAIServer, type ReceivedRequest, type TestServer } from '../helpers/openai-server.js';

interface Summary {
  runId: string;
  model: string;
  dataset: string;
  n: number;
  hpi: number;
  accuracy: number;
  seed: number;
  calls: number;
  cachedCalls: number;
  complete: boolean;
  resumed?: boolean;
  errored?: number;
}

const tmp = () => mkdtempSync(join(tmpdir(), 'hpt-evalfile-'));
const summaries = (stdout: string) => JSON.parse(stdout) as Summary[];
const cellsOf = (s: Summary[]) => s.map((x) => `${x.model}|${x.dataset}`);
const configHashes = (store: string) => {
  const db = new Database(store, { readonly: true });
  try {
    return (db.prepare('SELECT model, config_hash AS h FROM runs ORDER BY created_at, id').all() as { model: string; h: string }[]).map((r) => `${r.model} ${r.h}`);
  } finally {
    db.close();
  }
};
const runCount = (store: string) => {
  const db = new Database(store, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

/** A small BoolQ file (Hugging Face layout): question i is true when i is odd. */
function boolqData(path: string, n: number, tag: string): void {
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ question: `is ${tag} question ${i} true`, passage: `passage ${tag} ${i}`, answer: i % 2 === 1 }));
  writeFileSync(path, `${lines.join('\n')}\n`);
}

describe('hpt-bench init and run --config (baselines, offline)', () => {
  it('init writes a commented 2 × 2 example that runs as a matrix of 4 runs; init keeps an existing file', async () => {
    const dir = tmp();
    const init = await runCli(['init'], { cwd: dir });
    expect(init.code, init.stderr).toBe(0);
    const text = readFileSync(join(dir, 'eval.yaml'), 'utf8');
    expect(text).toMatch(/^# hpt-bench evaluation file/);
    const again = await runCli(['init'], { cwd: dir });
    expect(again.code).toBe(2);
    expect(errorLine(again)).toBe('Error: eval.yaml exists; it is kept (--force overwrites it)');
    expect((await runCli(['init', '--force'], { cwd: dir })).code).toBe(0);

    // the example names two installed datasets that ship a `mini` split (the CLI names no benchmark itself)
    const written = parseYaml(readFileSync(join(dir, 'eval.yaml'), 'utf8')) as { datasets: { id: string; split?: string }[] };
    expect(written.datasets).toHaveLength(2);
    expect(written.datasets.every((d) => d.split === 'mini')).toBe(true);
    const [d1, d2] = written.datasets.map((d) => d.id);
    const r = await runCli(['run', '--config', 'eval.yaml', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const s = summaries(r.stdout);
    expect(cellsOf(s)).toEqual([`baseline:oracle|${d1}`, `baseline:oracle|${d2}`, `baseline:random|${d1}`, `baseline:random|${d2}`]);
    expect(s.every((x) => x.complete)).toBe(true);
    expect(s.filter((x) => x.model === 'baseline:oracle').map((x) => [x.hpi, x.accuracy])).toEqual([[1, 1], [1, 1]]);
    expect(new Set(s.map((x) => x.runId)).size).toBe(4);
    // the store named in the file, relative to the file's directory
    expect(runCount(join(dir, '.hpt-bench/hpt-bench.db'))).toBe(4);

    // human output: each run's summary, then one combined table
    const h = await runCli(['run', '--config', 'eval.yaml'], { cwd: dir });
    expect(h.code, h.stderr).toBe(0);
    expect(h.stdout.match(/^run \d{8}T\d{6}-\w+ \(strict, seed 0\) stored in /gm)).toHaveLength(4);
    const table = h.stdout.slice(h.stdout.lastIndexOf('│ model'));
    expect(table).toMatch(/│ model\s+│ dataset\s+│ HPI\s+│ accuracy\s+│ n\s+│ run/);
    expect(table).toMatch(new RegExp(`│ baseline:oracle\\s+│ ${d2}\\s+│ 1\\.000\\s+│ 100\\.00%\\s+│ \\d+\\s+│`));
    expect(table.match(/│ baseline:/g)).toHaveLength(4);
  });

  it('command-line flags override the file: --limit, --seed, and --model selects the entries', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'e.yaml'), 'seed: 1\nlimit: 5\ndatasets:\n  - id: boolq\n    split: mini\n    limit: 6\n  - id: gsm8k\n    split: mini\nmodels:\n  - id: baseline:random\n  - id: baseline:oracle\nstore: s.db\n');
    const file = await runCli(['run', '--config', 'e.yaml', '--json'], { cwd: dir });
    expect(file.code, file.stderr).toBe(0);
    // the dataset's own limit over the top-level one
    expect(summaries(file.stdout).map((x) => [x.n, x.seed])).toEqual([[6, 1], [5, 1], [6, 1], [5, 1]]);
    const over = await runCli(['run', '--config', 'e.yaml', '--json', '-n', '3', '--seed', '7', '--model', 'baseline:oracle'], { cwd: dir });
    expect(over.code, over.stderr).toBe(0);
    expect(summaries(over.stdout).map((x) => [x.model, x.n, x.seed])).toEqual([['baseline:oracle', 3, 7], ['baseline:oracle', 3, 7]]);
    const none = await runCli(['run', '--config', 'e.yaml', '--model', 'baseline:nope'], { cwd: dir });
    expect(errorLine(none)).toBe('Error: --model baseline:nope is not a model of e.yaml');
  });

  it('a pair of the file is the same run as the same flags on the command line (same configuration hash)', async () => {
    const dir = tmp();
    boolqData(join(dir, 'a.jsonl'), 3, 'a');
    writeFileSync(join(dir, 'e.yaml'), 'datasets: [{ id: boolq, data: a.jsonl, limit: 2 }]\nmodels: [{ id: baseline:random, generation: { temperature: 0.3 } }]\nseed: 5\ncompat: reference\nstore: s.db\n');
    const file = await runCli(['run', '--config', 'e.yaml', '--json'], { cwd: dir });
    expect(file.code, file.stderr).toBe(0);
    const flags = await runCli(['run', '--dataset', 'boolq', '--data', 'a.jsonl', '--limit', '2', '--model', 'baseline:random', '--temperature', '0.3', '--seed', '5', '--compat', 'reference', '--store', 's.db', '--json'], { cwd: dir });
    expect(flags.code, flags.stderr).toBe(0);
    const [a, b] = configHashes(join(dir, 's.db'));
    expect(a).toBe(b);
    // and a value that differs gives another hash (the check can fail)
    expect((await runCli(['run', '--config', 'e.yaml', '--seed', '6', '--json'], { cwd: dir })).code).toBe(0);
    expect(new Set(configHashes(join(dir, 's.db'))).size).toBe(2);
    // --resume does not combine with --config; a missing file is named
    expect(errorLine(await runCli(['run', '--config', 'e.yaml', '--resume', 'x'], { cwd: dir }))).toMatch(/^Error: --resume continues one stored run and cannot be combined with --config/);
    const missing = await runCli(['run', '--config', 'nope.yaml', '--json'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(errorLine(missing)).toBe('Error: cannot read evaluation file nope.yaml: no such file');
  });

  it('reads the same evaluation as JSON, with data, store and out relative to the file', async () => {
    const dir = tmp();
    const sub = join(dir, 'evals');
    mkdirSync(join(sub, 'data'), { recursive: true });
    boolqData(join(sub, 'data', 'a.jsonl'), 4, 'a');
    boolqData(join(sub, 'data', 'b.jsonl'), 3, 'b');
    const evaluation = {
      datasets: [{ id: 'boolq', name: 'a', data: 'data/a.jsonl' }, { id: 'boolq', name: 'b', data: 'data/b.jsonl' }],
      models: [{ id: 'baseline:oracle' }],
      store: 'runs.db',
      out: 'results/{model}-{dataset}.jsonl',
    };
    writeFileSync(join(sub, 'e.json'), JSON.stringify(evaluation));
    const r = await runCli(['run', '--config', 'evals/e.json', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(summaries(r.stdout).map((x) => x.n)).toEqual([4, 3]);
    expect(runCount(join(sub, 'runs.db'))).toBe(2);
    expect(existsSync(join(dir, '.hpt-bench'))).toBe(false);
    expect(readFileSync(join(sub, 'results', 'baseline_oracle-a.jsonl'), 'utf8').trim().split('\n')).toHaveLength(4);
    expect(readFileSync(join(sub, 'results', 'baseline_oracle-b.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);

    // the YAML form of the same evaluation gives the same runs (same configuration: the finished runs are found again)
    const yaml = ['datasets:', '  - { id: boolq, name: a, data: data/a.jsonl }', '  - id: boolq', '    name: b', '    data: data/b.jsonl', 'models:', '  - id: baseline:oracle', 'store: runs.db'].join('\n');
    writeFileSync(join(sub, 'e.yaml'), `${yaml}\n`);
    const y = await runCli(['run', '--config', join(sub, 'e.yaml'), '--json'], { cwd: tmp() });
    expect(y.code, y.stderr).toBe(0);
    expect(summaries(y.stdout).map((x) => [x.n, x.hpi])).toEqual(summaries(r.stdout).map((x) => [x.n, x.hpi]));
    expect(runCount(join(sub, 'runs.db'))).toBe(4);
  });

  it("a model entry's name labels its runs in the report (issue 29): paper and HiBench tables, the runs table beside the id", async () => {
    const dir = tmp();
    boolqData(join(dir, 'q.jsonl'), 4, 'q');
    const yaml = ['datasets:', '  - { id: boolq, data: q.jsonl }', '  - { id: binary-tree, limit: 6 }', 'models:', '  - { id: baseline:random, name: rnd }', '  - id: baseline:oracle', 'store: runs.db'].join('\n');
    writeFileSync(join(dir, 'e.yaml'), `${yaml}\n`);
    const r = await runCli(['run', '--config', join(dir, 'e.yaml'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(summaries(r.stdout).map((x) => x.model)).toEqual(['baseline:random', 'baseline:random', 'baseline:oracle', 'baseline:oracle']);
    const md = await runCli(['report', '--store', join(dir, 'runs.db'), '--format', 'md', '--bootstrap', '20']);
    expect(md.code, md.stderr).toBe(0);
    // the runs table: the name with the model id; the paper table (HPT Table 1) and the HiBench leaderboard: the name
    expect(md.stdout).toMatch(/\| boolq \| rnd \(baseline:random\) \|/);
    expect(md.stdout).toMatch(/\n\| rnd \| [\d.]+ \[/);
    const leaderboard = md.stdout.slice(md.stdout.indexOf('## HiBench leaderboard'));
    expect(leaderboard).toMatch(/\n\| rnd \|/);
    expect(leaderboard).toMatch(/\n\| baseline:oracle \|/);
    expect(leaderboard.split('\n## ')[0]).not.toContain('baseline:random');
    const json = await runCli(['report', '--store', join(dir, 'runs.db'), '--json', '--bootstrap', '20']);
    const runs = (JSON.parse(json.stdout) as { runs: { model: string; name?: string; groupLabel: string }[] }).runs;
    expect(runs.filter((x) => x.model === 'baseline:random').map((x) => [x.name, x.groupLabel])).toEqual([['rnd', 'rnd'], ['rnd', 'rnd']]);
    expect(runs.filter((x) => x.model === 'baseline:oracle').every((x) => x.name === undefined)).toBe(true);
  });

  it('a schema error names the file and the failing path, exits 2 and creates no run', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'eval.yaml'), 'datasets:\n  - id: boolq\n    split: mini\nmodels:\n  - id: baseline:oracle\n  - id: baseline:random\n    concurrency: 0\nstore: s.db\n');
    const r = await runCli(['run', '--config', 'eval.yaml'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual(['Error: eval.yaml: /models/1/concurrency must be >= 1', 'hint: the format is schemas/eval-config.schema.json; `hpt-bench init` writes a commented example']);
    const j = await runCli(['run', '--config', 'eval.yaml', '--json'], { cwd: dir });
    expect(j.code).toBe(2);
    expect(j.stderr).toBe('');
    expect(JSON.parse(j.stdout).error).toMatchObject({ code: 'E_CONFIG', message: 'eval.yaml: /models/1/concurrency must be >= 1' });
    expect(existsSync(join(dir, 's.db'))).toBe(false);
    // two cells writing one --out file are refused before any run
    writeFileSync(join(dir, 'two.yaml'), 'datasets: [{ id: boolq, split: mini }]\nmodels: [{ id: baseline:oracle }, { id: baseline:random }]\nstore: s.db\nout: one.jsonl\n');
    const out = await runCli(['run', '--config', 'two.yaml'], { cwd: dir });
    expect(out.code).toBe(2);
    expect(errorLine(out)).toMatch(/^Error: several runs of the matrix would write --out .*one\.jsonl: put \{model\} and \{dataset\} in it/);
    expect(existsSync(join(dir, 's.db'))).toBe(false);
  });
});

describe('run --config with OpenAI-compatible models', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('calls each model at its endpoint with its key; a re-run continues the unfinished run and calls nothing for finished ones', async () => {
    let failing = true;
    const rule = (req: ReceivedRequest) => {
      const text = req.messages.map((m) => m.content).join('\n');
      // model m2 cannot answer question 1 of file a during the first pass
      if (failing && req.model === 'm2' && text.includes('is a question 1 true')) return { status: 500, body: { error: { message: 'boom' } } };
      const i = Number(/is \w question (\d+) true/.exec(text)?.[1] ?? 0);
      return { text: i % 2 === 1 ? 'True' : 'False' };
    };
    const one = await startOpenAIServer(rule);
    const two = await startOpenAIServer(rule);
    servers.push(one, two);
    const dir = tmp();
    boolqData(join(dir, 'a.jsonl'), 4, 'a');
    boolqData(join(dir, 'b.jsonl'), 3, 'b');
    const yaml = [
      'datasets:',
      '  - { id: boolq, name: a, data: a.jsonl }',
      '  - { id: boolq, name: b, data: b.jsonl }',
      'models:',
      `  - { id: openai:m1, baseUrl: ${one.url}, apiKeyEnv: KEY_ONE }`,
      `  - { id: openai:m2, baseUrl: ${two.url}, apiKeyEnv: KEY_TWO, concurrency: 1 }`,
      'maxRetries: 0',
      'store: s.db',
    ].join('\n');
    writeFileSync(join(dir, 'eval.yaml'), `${yaml}\n`);
    const env = { KEY_ONE: 'sk-one', KEY_TWO: 'sk-two' };
    const first = await runCli(['run', '--config', 'eval.yaml', '--json'], { cwd: dir, env });
    // m2 × a has an errored sample: the matrix stops there (m2 × b not started) and exits 1
    expect(first.code, first.stderr).toBe(1);
    const s1 = summaries(first.stdout);
    expect(cellsOf(s1)).toEqual(['openai:m1|boolq', 'openai:m1|boolq', 'openai:m2|boolq']);
    expect(s1.map((x) => x.complete)).toEqual([true, true, false]);
    expect(s1[2]!.errored).toBe(1);
    expect(first.stderr).toMatch(/1 samples errored, so run \S+ is not complete .*the 1 later runs of the matrix were not started/);
    expect(one.requests.map((r) => [r.model, r.authorization])).toEqual(Array.from({ length: 7 }, () => ['m1', 'Bearer sk-one']));
    expect(two.requests.every((r) => r.model === 'm2' && r.authorization === 'Bearer sk-two')).toBe(true);
    expect(two.requests).toHaveLength(4);

    failing = false;
    const second = await runCli(['run', '--config', 'eval.yaml', '--json'], { cwd: dir, env });
    expect(second.code, second.stderr).toBe(0);
    const s2 = summaries(second.stdout);
    expect(s2).toHaveLength(4);
    expect(s2.every((x) => x.complete && x.accuracy === 1)).toBe(true);
    // m1's finished runs: every call from the cache, none at the endpoint
    expect(one.requests).toHaveLength(7);
    expect(s2.slice(0, 2).map((x) => x.calls === x.cachedCalls)).toEqual([true, true]);
    // m2 × a continues its run (only the errored sample is redone); m2 × b runs for the first time
    expect(s2[2]!.runId).toBe(s1[2]!.runId);
    expect(s2[2]!.resumed).toBe(true);
    expect(two.requests).toHaveLength(4 + 1 + 3);

    const third = await runCli(['run', '--config', 'eval.yaml', '--json'], { cwd: dir, env });
    expect(third.code, third.stderr).toBe(0);
    expect(one.requests.length + two.requests.length).toBe(7 + 8);
    expect(summaries(third.stdout).every((x) => x.complete && x.calls === x.cachedCalls)).toBe(true);
  });
});
