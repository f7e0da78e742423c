/**
 * End-to-end (issue #25 item 7, "flags and inputs silently ignored"), the built CLI as a process: every flag a dataset
 * accepts is used, and a flag it cannot honour is a usage error (exit 2, one line) — `generate hibench/paper --data`
 * reads the file as `run` does, generators drawn from the seed refuse `--data`, two sources of samples at once are
 * refused, `--threshold` is refused by scorers that grade exactly, `--on-invalid skip` skips in HiBench files too, and
 * a seed above 2^53 − 1 (stored as another number) is refused. The released HiBench Paper records are read in place from ../shared/data.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLine, runCli, SHARED, type CliResult } from '../helpers/cli.js';
import { jsonLines } from '../helpers/files.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-flags-'));
let counter = 0;
const tmp = (name: string) => join(dir, `${++counter}-${name}`);
const released = (task: string) => join(SHARED, 'data/hibench-paper', `paper-${task}-dev-first3.json`);

/** A usage error: exit 2, the one `{"error": …}` object of `--json` with `code`, and its message. */
function usageError(r: CliResult, code = 'E_CONFIG'): string {
  expect(r.code, r.stderr).toBe(2);
  const line = errorLine(r);
  expect((JSON.parse(r.stdout) as { error: { code: string } }).error.code).toBe(code);
  return line;
}

describe('generate --data', () => {
  it('hibench/paper reads the released file: the records `run` reads from it with the same flags (n = 9), not the demo papers', async () => {
    for (const task of ['contextual_qa', 'disordered_section', 'outline_extraction']) {
      const out = tmp(`${task}.jsonl`);
      const g = await runCli(['generate', 'hibench/paper', '--data', released(task), '--out', out, '--json']);
      expect(g.code, g.stderr).toBe(0);
      expect(JSON.parse(g.stdout)).toMatchObject({ records: 9, tasks: { [task]: 9 } });
      const records = jsonLines(readFileSync(out, 'utf8'));
      // the file's three records (their arXiv ids) x three ICL modes, as released
      const papers = (JSON.parse(readFileSync(released(task), 'utf8')) as { id: string }[]).map((x) => x.id);
      expect(records.map((x) => (x.id as string).split('/')[2])).toEqual(papers.flatMap((p) => [p, p, p]));
      expect(records.every((x) => x.preset === 'released')).toBe(true);
      const runOut = tmp(`${task}-run.jsonl`);
      const r = await runCli(['run', '--dataset', 'hibench/paper', '--data', released(task), '--model', 'baseline:oracle', '--threshold', '0.5', '--store', tmp('s.db'), '--out', runOut, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ n: 9 });
      expect(jsonLines(readFileSync(runOut, 'utf8')).map((x) => x.sampleId)).toEqual(records.map((x) => x.id));
    }
  }, 120_000);

  it('a generator drawn from the seed refuses --data (exit 2, one line, nothing written)', async () => {
    for (const dataset of ['binary-tree', 'multiple-tree', 'json', 'formula', 'code-gen']) {
      const out = tmp(`${dataset}.jsonl`);
      const r = await runCli(['generate', `hibench/${dataset}`, '--data', released('contextual_qa'), '--limit', '1', '--out', out, '--json']);
      expect(usageError(r)).toBe(`Error: hibench/${dataset} is drawn at random from --seed and reads no file: drop --data (a file written by \`hpt-bench generate\` is evaluated with \`hpt-bench run --dataset hibench/${dataset} --data FILE\`)`);
      expect(existsSync(out)).toBe(false);
    }
  }, 60_000);
});

describe('two sources of samples at once', () => {
  it('hibench/paper: --data with --source (generate, run), --split with --data or --source (run): exit 2 naming both', async () => {
    const file = released('contextual_qa');
    const g = await runCli(['generate', 'hibench/paper', '--data', file, '--source', file, '--out', tmp('x.jsonl'), '--json']);
    expect(usageError(g)).toMatch(/^Error: hibench\/paper: --data and --source are two sources of papers; give one/);
    const run = (...more: string[]) => runCli(['run', '--dataset', 'hibench/paper', '--model', 'baseline:oracle', '--threshold', '0.5', '--store', tmp('s.db'), '--json', ...more]);
    expect(usageError(await run('--data', file, '--source', file))).toMatch(/--data and --source are two sources of papers/);
    expect(usageError(await run('--data', file, '--split', 'validation'))).toMatch(/--data and --split are two sources of papers/);
    expect(usageError(await run('--split', 'validation', '--source', file))).toMatch(/--split and --source are two sources of papers/);
  }, 60_000);

  it('a declarative dataset: --data with --split is refused instead of reading the file and ignoring the split', async () => {
    const data = join(SHARED, 'data/hpt-representative/boolq.json');
    const r = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--data', data, '--model', 'baseline:oracle', '--store', tmp('s.db'), '--limit', '1', '--json']);
    expect(usageError(r)).toBe('Error: dataset boolq: give --data FILE or --split mini, not both (--data replaces the split)');
  });
});

describe('--threshold', () => {
  it('a dataset whose scorer grades exactly refuses it (it was accepted and ignored); a metric-scored one still takes it', async () => {
    for (const dataset of ['boolq', 'mmlu', 'gsm8k', 'humaneval']) {
      const store = tmp('s.db');
      const r = await runCli(['run', '--dataset', dataset, '--split', 'mini', '--limit', '1', '--model', 'baseline:oracle', '--threshold', '0.5', '--store', store, '--json']);
      expect(usageError(r)).toMatch(/^Error: --threshold 0\.5 has no use here: scorer (boolean|choice|numeric|code-exec) grades exactly .*; drop it$/);
      expect(existsSync(store)).toBe(false);
    }
    const bleu = await runCli(['run', '--dataset', 'iwslt', '--split', 'mini', '--limit', '1', '--model', 'baseline:oracle', '--threshold', '0.15', '--store', tmp('s.db'), '--json']);
    expect(bleu.code, bleu.stderr).toBe(0);
    expect(JSON.parse(bleu.stdout)).toMatchObject({ n: 1, threshold: 0.15 });
  }, 60_000);
});

describe('--on-invalid skip in HiBench files (it used to fail on the first bad record anyway)', () => {
  it('a file written by generate: the invalid record is named by its line and skipped with a warning', async () => {
    const good = jsonLines((await runCli(['generate', 'hibench/formula', '--limit', '3', '--out', '-'])).stdout);
    const file = tmp('formula.jsonl');
    writeFileSync(file, `${JSON.stringify(good[0])}\n${JSON.stringify({ ...good[1], matcher: { type: 'fuzzy' } })}\n${JSON.stringify(good[2])}\n`);
    const args = ['run', '--dataset', 'hibench/formula', '--data', file, '--model', 'baseline:oracle', '--json'];
    const fail = await runCli([...args, '--store', tmp('s.db')]);
    expect(fail.code).toBe(2);
    expect(errorLine(fail)).toMatch(new RegExp(`^Error: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line 2 is invalid: .*matcher`));
    const skip = await runCli([...args, '--store', tmp('s.db'), '--on-invalid', 'skip']);
    expect(skip.code, skip.stderr).toBe(0);
    expect(JSON.parse(skip.stdout)).toMatchObject({ n: 2, skipped: 1, accuracy: 1 });
    expect(skip.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^warning: skipped .*formula\\.jsonl line 2 is invalid: .*matcher`))]);
  }, 60_000);

  it('the toolkit\'s released Paper records: a broken record is named by its item (from 1) and skipped with a warning', async () => {
    const records = JSON.parse(readFileSync(released('contextual_qa'), 'utf8')) as { id: string; question: string; answer: unknown }[];
    const file = tmp('paper.json');
    writeFileSync(file, JSON.stringify([records[0], { ...records[1], question: 'no context here' }, records[2]]));
    const args = ['run', '--dataset', 'hibench/paper', '--data', file, '--model', 'baseline:oracle', '--threshold', '0.5', '--json'];
    const fail = await runCli([...args, '--store', tmp('s.db')]);
    expect(fail.code).toBe(2);
    expect(errorLine(fail)).toBe(`Error: ${file} item 2: the question has no "\\n\\nContext: " part`);
    const skip = await runCli([...args, '--store', tmp('s.db'), '--on-invalid', 'skip']);
    expect(skip.code, skip.stderr).toBe(0);
    expect(JSON.parse(skip.stdout)).toMatchObject({ n: 6, skipped: 1 });
    expect(skip.stderr).toContain(`warning: skipped ${file} item 2: the question has no`);
  }, 60_000);

  it('hibench/code from a code.jsonl-like file: an entry without its label is named by its line and skipped', async () => {
    const lines = readFileSync(join(SHARED, 'data/hibench-code/code.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 3);
    const second = JSON.parse(lines[1]!) as Record<string, unknown>;
    delete second.space;
    const file = tmp('code.jsonl');
    writeFileSync(file, `${lines[0]}\n${JSON.stringify(second)}\n${lines[2]}\n`);
    const args = ['run', '--dataset', 'hibench/code', '--data', file, '--icl', 'zero', '--model', 'baseline:oracle', '--json'];
    const fail = await runCli([...args, '--store', tmp('s.db')]);
    expect(fail.code).toBe(2);
    expect(errorLine(fail)).toBe(`Error: ${file} line 2: no \`space\` label`);
    const skip = await runCli([...args, '--store', tmp('s.db'), '--on-invalid', 'skip']);
    expect(skip.code, skip.stderr).toBe(0);
    // two programs x two tasks (space, time), zero-shot
    expect(JSON.parse(skip.stdout)).toMatchObject({ n: 4, skipped: 1 });
  }, 60_000);
});

describe('--seed', () => {
  it('above 2^53 − 1 (stored as 1e20 before) is refused by generate, run and an evaluation file: exit 2, one line', async () => {
    const big = '99999999999999999999';
    const g = await runCli(['generate', 'hibench/formula', '--seed', big, '--limit', '1', '--out', tmp('g.jsonl'), '--json']);
    expect(usageError(g, 'E_USAGE')).toBe(`Error: Parsing --seed Expected an integer from -9007199254740991 to 9007199254740991 (2^53 - 1: a larger seed is not stored exactly) but received: ${big}`);
    const store = tmp('s.db');
    const r = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:oracle', '--seed', big, '--store', store, '--json']);
    expect(usageError(r, 'E_USAGE')).toContain(`but received: ${big}`);
    expect(usageError(await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:oracle', '--seed', '9007199254740992', '--store', store, '--json']), 'E_USAGE')).toContain('but received: 9007199254740992');
    expect(existsSync(store)).toBe(false);
    const yaml = tmp('eval.yaml');
    writeFileSync(yaml, `datasets:\n  - { id: boolq, split: mini }\nmodels:\n  - id: baseline:oracle\nseed: ${big}\nstore: ${store}\n`);
    expect(usageError(await runCli(['run', '--config', yaml, '--json']))).toBe(`Error: ${yaml}: /seed must be <= 9007199254740991`);
    expect(existsSync(store)).toBe(false);
  }, 60_000);

  it('2^53 − 1 is accepted and stored exactly (generate records, run summary)', async () => {
    const max = '9007199254740991';
    const out = tmp('g.jsonl');
    const g = await runCli(['generate', 'hibench/formula', '--seed', max, '--limit', '1', '--out', out]);
    expect(g.code, g.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(new RegExp(`"seed":${max}[,}]`));
    const r = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--limit', '1', '--model', 'baseline:oracle', '--seed', max, '--store', tmp('s.db'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`"seed":${max}[,}]`));
  }, 60_000);
});
