/**
 * End-to-end (built CLI, offline): files written by editors that put a UTF-8 byte order mark first are read:
 * `--data` (.json and .jsonl), a `--ladder` file, a `--prices` file and a `--plugin DIR` whose
 * package.json starts with a BOM.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const BOM = '\uFEFF';
const RECORDS = [
  { question: 'is the sky blue on a clear day', passage: 'On a clear day the sky appears blue because of Rayleigh scattering.', answer: true },
  { question: 'is the moon made of cheese', passage: 'The Moon is a rocky body made of silicate rock and metal.', answer: false },
];
let dir: string;
let n = 0;
const file = (name: string, text: string) => {
  const p = join(dir, `${++n}-${name}`);
  writeFileSync(p, text, 'utf8');
  return p;
};
const summaryOf = (stdout: string) => JSON.parse(stdout) as { n: number; hpi: number; ladder: string[]; cost?: number };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-bom-e2e-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a leading BOM is ignored', () => {
  it('--data FILE.jsonl', async () => {
    const data = file('bom.jsonl', `${BOM}${RECORDS.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'baseline:oracle', '--store', join(dir, 'a.db'), '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(summaryOf(r.stdout).n).toBe(2);
  });

  it('--data FILE.json', async () => {
    const data = file('bom.json', `${BOM}${JSON.stringify(RECORDS)}`);
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--model', 'baseline:oracle', '--store', join(dir, 'b.db'), '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(summaryOf(r.stdout).n).toBe(2);
  });

  it('--plugin DIR whose package.json starts with a BOM', async () => {
    const plugin = join(dir, 'plugin');
    cpSync(join(ROOT, 'test/fixtures/sixth-level-plugin'), plugin, { recursive: true });
    writeFileSync(join(plugin, 'package.json'), `${BOM}${readFileSync(join(plugin, 'package.json'), 'utf8')}`);
    const r = await runCli(['list', 'datasets', '--json', '--plugin', plugin]);
    expect(r.stderr).toBe('');
    expect((JSON.parse(r.stdout) as { datasets: { id: string }[] }).datasets.map((d) => d.id)).toContain('capitals');
  });

  it('--ladder FILE.json', async () => {
    const data = file('ladder-data.jsonl', RECORDS.map((r) => JSON.stringify(r)).join('\n'));
    const ladder = file('ladder.json', `${BOM}${JSON.stringify({ id: 'two', levels: ['role', 'zero-shot-cot'] })}`);
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--ladder', ladder, '--model', 'baseline:oracle', '--store', join(dir, 'c.db'), '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(summaryOf(r.stdout).ladder).toEqual(['role', 'zero-shot-cot']);
  });

  it('--prices FILE.json', async () => {
    const data = file('prices-data.jsonl', RECORDS.map((r) => JSON.stringify(r)).join('\n'));
    const prices = file('prices.json', `${BOM}${JSON.stringify({ 'baseline:oracle': { input: 1, output: 2 } })}`);
    const r = await runCli(['run', '--dataset', 'boolq', '--data', data, '--prices', prices, '--model', 'baseline:oracle', '--store', join(dir, 'd.db'), '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(typeof summaryOf(r.stdout).cost).toBe('number');
  });
});
