/**
 * `hpt-bench plugins verify DIR|TGZ` (issue 27, item 3): the conformance kit passes good plugins (fixtures and
 * built-ins) and fails, naming the contribution, a broken manifest, a scorer that refuses its own target, a strategy
 * that throws, a model with a malformed response and a selector out of 1..m. Also the manifest's `packEntry` (item 4):
 * a level that reuses another level's prompt-pack entry sends that level's prompt.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPlugin } from '@hpt-bench/core';
import { ROOT, runCli } from '../helpers/cli.js';

interface Row {
  contribution: string;
  check: string;
  status: 'pass' | 'fail' | 'skip';
  detail: string;
}
interface Result {
  plugin: string;
  ok: boolean;
  rows: Row[];
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-verify-test-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Write a plugin package (package.json with the manifest, plus files) under the temp dir. */
function plugin(name: string, contributes: Record<string, unknown>, files: Record<string, string> = {}): string {
  const root = join(dir, name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', oclif: {}, 'hpt-bench': { apiVersion: 1, contributes } }));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

async function verify(target: string, ...flags: string[]): Promise<{ code: number | null; result: Result; stderr: string }> {
  const r = await runCli(['plugins', 'verify', target, '--json', ...flags]);
  return { code: r.code, result: JSON.parse(r.stdout) as Result, stderr: r.stderr };
}

const row = (r: Result, contribution: string, check: string) => r.rows.find((x) => x.contribution === contribution && x.check === check);

const DATA = '{"id":"a","question":"Is water wet?","answer":true}\n{"id":"b","question":"Is fire cold?","answer":false}\n{"id":"c","question":"Is ice cold?","answer":true}\n';
const dataset = (id: string, scorer: string) => ({ id, scorer, hpiDataset: 1, file: './data.jsonl', fields: { question: 'question' }, target: { field: 'answer', type: 'boolean' } });

describe('hpt-bench plugins verify: good plugins pass', () => {
  it('the code-free sixth-level fixture: manifest, dataset records and scorer checks, the strategy’s prompt, the ladder', async () => {
    const { code, result } = await verify(join(ROOT, 'test/fixtures/sixth-level-plugin'));
    expect(code).toBe(0);
    expect(result.ok).toBe(true);
    expect(result.plugin).toBe('hpt-bench-plugin-sixth-level');
    expect(result.rows.map((r) => `${r.contribution}|${r.check}|${r.status}`)).toEqual([
      'plugin hpt-bench-plugin-sixth-level|manifest|pass',
      "dataset 'capitals'|load|pass",
      "dataset 'capitals'|records|pass",
      "dataset 'capitals'|target solves|pass",
      "dataset 'capitals'|empty fails|pass",
      "dataset 'capitals'|wrong fails|pass",
      "strategy 'self-verify'|load|pass",
      "strategy 'self-verify'|runs|pass",
      "ladder 'hpf6'|levels|pass",
    ]);
    expect(row(result, "dataset 'capitals'", 'records')!.detail).toBe('5 sample(s) loaded');
    expect(row(result, "strategy 'self-verify'", 'runs')!.detail).toMatch(/^1 call\(s\) on capitals sample \S+; prompt: ".*verify/);
  });

  it('the community fixture (code dataset and scorer), and the table without --json', async () => {
    const { code, result } = await verify(join(ROOT, 'test/fixtures/community-plugin'), '--records', '3');
    expect(code).toBe(0);
    expect(row(result, "dataset 'shapes'", 'records')!.detail).toBe('3 sample(s) loaded');
    expect(row(result, "scorer 'first-word'", 'load')!.status).toBe('pass');
    const table = await runCli(['plugins', 'verify', join(ROOT, 'test/fixtures/community-plugin')]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/strategy 'plan-and-solve' .* runs .* pass/);
    expect(table.stdout).toContain('hpt-bench-plugin-community: every check passed');
  });

  it('built-in plugins: hpt-datasets (scorers needing a threshold are skipped, not failed), hpf-strategies, baselines', async () => {
    const data = await verify(join(ROOT, 'plugins/hpt-datasets'));
    expect(data.code, JSON.stringify(data.result.rows.filter((r) => r.status === 'fail'))).toBe(0);
    expect(row(data.result, "dataset 'boolq'", 'target solves')!.status).toBe('pass');
    expect(row(data.result, "dataset 'iwslt'", 'scorer')).toMatchObject({ status: 'skip', detail: expect.stringContaining('threshold') });
    expect(row(data.result, "report view 'hpt-tables'", 'small run')!.detail).toBe('1 table(s) on a 5-sample baseline:oracle run of mmlu: "HPI (lower is better) and accuracy (%)"');
    const strategies = await verify(join(ROOT, 'plugins/hpf-strategies'));
    expect(strategies.code).toBe(0);
    expect(row(strategies.result, "strategy 'least-to-most'", 'runs')!.detail).toMatch(/^4 call\(s\)/);
    expect(row(strategies.result, "selector 'fixed'", 'select')!.status).toBe('pass');
    const baselines = await verify(join(ROOT, 'plugins/baselines'), '--model-name', 'oracle');
    expect(baselines.code).toBe(0);
    expect(row(baselines.result, "model 'baseline'", 'generate')!.status).toBe('pass');
    // the openai model, pointed at a local OpenAI-compatible stand-in through its baseUrl option, with no API key
    const openai = await verify(join(ROOT, 'plugins/openai'));
    expect(openai.code, JSON.stringify(openai.result.rows)).toBe(0);
    expect(row(openai.result, "model 'openai'", 'generate')!.detail).toBe('against a local OpenAI-compatible stand-in: 1 chat-completions request(s), answered "stand-in reply" with its token counts');
  });

  it('a packed .tgz is unpacked and verified', async () => {
    const stage = join(dir, 'stage');
    cpSync(join(ROOT, 'test/fixtures/sixth-level-plugin'), join(stage, 'package'), { recursive: true });
    const tgz = join(dir, 'sixth.tgz');
    execFileSync('tar', ['-czf', tgz, '-C', stage, 'package']);
    const { code, result } = await verify(tgz);
    expect(code).toBe(0);
    expect(result.plugin).toBe('hpt-bench-plugin-sixth-level');
    expect(result.rows).toHaveLength(9);
  });
});

describe('hpt-bench plugins verify: broken plugins fail, naming the contribution', () => {
  it('a manifest that does not match the schema fails with the schema error (exit 1), and nothing else runs', async () => {
    const root = plugin('bad-manifest', { datasets: [{ ...dataset('bad-hpi', 'boolean'), hpiDataset: 'high' }] }, { 'data.jsonl': DATA });
    const { code, result } = await verify(root);
    expect(code).toBe(1);
    expect(result.ok).toBe(false);
    expect(result.rows).toHaveLength(1);
    expect(result.rows[0]).toMatchObject({ check: 'manifest', status: 'fail' });
    expect(result.rows[0]!.detail).toMatch(/^manifest of plugin bad-manifest is invalid: .*\/contributes\/datasets\/0\/hpiDataset.*number/);
  });

  it('a scorer that refuses its own rendered target fails "target solves" for its dataset; one that accepts anything fails the empty and wrong checks', async () => {
    const root = plugin(
      'bad-scorer',
      {
        datasets: [dataset('picky-data', 'picky'), dataset('lax-data', 'lax')],
        scorers: [
          { id: 'picky', module: './scorer.js', export: 'PickyScorer' },
          { id: 'lax', module: './scorer.js', export: 'LaxScorer' },
        ],
      },
      {
        'data.jsonl': DATA,
        'scorer.js': `export class PickyScorer {
  id = 'picky';
  score(sample, output) { const ok = output.completion === String(sample.target); return { solved: ok, score: ok ? 1 : 0, extracted: output.completion }; }
  renderTarget(sample) { return 'The answer is ' + sample.target; }
}
export class LaxScorer {
  id = 'lax';
  score(sample, output) { return { solved: true, score: 1, extracted: output.completion }; }
  renderTarget(sample) { return String(sample.target); }
}
`,
      },
    );
    const { code, result } = await verify(root);
    expect(code).toBe(1);
    expect(row(result, "dataset 'picky-data'", 'target solves')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^scorer picky: sample a: the rendered target "The answer is true" is not solved/) });
    expect(row(result, "dataset 'picky-data'", 'empty fails')!.status).toBe('pass');
    expect(row(result, "dataset 'lax-data'", 'target solves')!.status).toBe('pass');
    expect(row(result, "dataset 'lax-data'", 'empty fails')).toMatchObject({ status: 'fail', detail: expect.stringContaining('an empty answer is solved') });
    expect(row(result, "dataset 'lax-data'", 'wrong fails')).toMatchObject({ status: 'fail', detail: expect.stringContaining('sample a: the wrong answer "false" is solved') });
  });

  it('a strategy that throws, one that makes no call, a malformed model and a selector out of range fail, named; the table says how many', async () => {
    const root = plugin(
      'bad-code',
      {
        strategies: [
          { id: 'throws', module: './code.js', export: 'Throws' },
          { id: 'silent', module: './code.js', export: 'Silent' },
        ],
        models: [{ id: 'mute', module: './code.js', export: 'Mute' }],
        selectors: [{ id: 'far', module: './code.js', export: 'Far' }],
        ladders: [{ id: 'bad-ladder', levels: ['throws', 'no-such-level'] }],
      },
      {
        'code.js': `export class Throws { id = 'throws'; async run() { throw new Error('boom from the strategy'); } }
export class Silent { id = 'silent'; async run() { return { graded: { promptText: '', completion: '', cue: '' } }; } }
export class Mute { id = 'mute'; async generate() { return { text: 42 }; } }
export class Far { id = 'far'; async select(ctx) { return { level: ctx.levels.length + 1 }; } }
`,
      },
    );
    const { code, result } = await verify(root);
    expect(code).toBe(1);
    expect(row(result, "strategy 'throws'", 'runs')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/sample \S+: boom from the strategy$/) });
    expect(row(result, "strategy 'silent'", 'runs')).toMatchObject({ status: 'fail', detail: expect.stringContaining('it made no model call') });
    expect(row(result, "model 'mute'", 'generate')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/text is not a string; usage is not/) });
    expect(row(result, "selector 'far'", 'select')).toMatchObject({ status: 'fail', detail: 'a level outside 1..m: m=1: chose 2; m=3: chose 4; m=5: chose 6' });
    expect(row(result, "ladder 'bad-ladder'", 'levels')).toMatchObject({ status: 'fail', detail: 'unknown strategies: no-such-level' });
    const table = await runCli(['plugins', 'verify', root]);
    expect(table.code).toBe(1);
    expect(table.stdout).toContain('bad-code: 5 check(s) failed');
  });

  it('an endpoint model (options take baseUrl) runs against a local OpenAI-compatible stand-in: one that calls it passes, one that makes up its answer fails', async () => {
    const options = { type: 'object', properties: { baseUrl: { type: 'string' } }, additionalProperties: false };
    const root = plugin(
      'endpoint-models',
      {
        models: [
          { id: 'fetcher', module: './code.js', export: 'Fetcher', options },
          { id: 'liar', module: './code.js', export: 'Liar', options },
        ],
      },
      {
        'code.js': `const OPTIONS = Symbol.for('hpt-bench.Options');
export class Fetcher {
  static inject = [OPTIONS];
  id = 'fetcher';
  constructor(o) { this.endpoint = o.baseUrl; }
  async generate(req) {
    const r = await fetch(this.endpoint + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: req.messages }) });
    const b = await r.json();
    return { text: b.choices[0].message.content, usage: { promptTokens: b.usage.prompt_tokens, completionTokens: b.usage.completion_tokens }, finishReason: b.choices[0].finish_reason };
  }
}
export class Liar {
  static inject = [OPTIONS];
  id = 'liar';
  constructor(o) { this.endpoint = o.baseUrl; }
  async generate() { return { text: 'made up', usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop' }; }
}
`,
      },
    );
    const { code, result } = await verify(root);
    expect(code).toBe(1);
    expect(row(result, "model 'fetcher'", 'generate')).toMatchObject({ status: 'pass', detail: expect.stringContaining('1 chat-completions request(s), answered "stand-in reply"') });
    const liar = row(result, "model 'liar'", 'generate')!;
    expect(liar.status).toBe('fail');
    expect(liar.detail).toMatch(/^against a local OpenAI-compatible stand-in: no chat-completions request reached the stand-in at http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(liar.detail).toContain('text "made up" is not the stand-in\'s "stand-in reply"');
  });

  it('report views run on a small run: a declarative view passes with its table, a code view that throws fails, named', async () => {
    const root = plugin(
      'views',
      {
        datasets: [dataset('quiz', 'boolean')],
        reports: [
          { id: 'paper', datasets: ['quiz'], tables: [{ id: 't1', layout: 'hpi-accuracy', title: 'Quiz table' }] },
          { id: 'crashy', datasets: ['quiz'], module: './view.js', export: 'Crashy' },
          { id: 'elsewhere', datasets: ['no-such-dataset'] },
        ],
      },
      { 'data.jsonl': DATA, 'view.js': `export class Crashy { tables(ctx) { throw new Error('view boom on ' + ctx.runs.length + ' run(s)'); } }\n` },
    );
    const { code, result } = await verify(root);
    expect(code).toBe(1);
    expect(row(result, "report view 'paper'", 'load')).toMatchObject({ status: 'pass', detail: 'declarative (no code)' });
    expect(row(result, "report view 'paper'", 'small run')).toMatchObject({ status: 'pass', detail: '1 table(s) on a 3-sample baseline:oracle run of quiz: "Quiz table"' });
    expect(row(result, "report view 'crashy'", 'load')!.status).toBe('pass');
    expect(row(result, "report view 'crashy'", 'small run')).toMatchObject({ status: 'fail', detail: 'on quiz: view boom on 1 run(s)' });
    expect(row(result, "report view 'elsewhere'", 'small run')).toMatchObject({ status: 'skip', detail: 'none of its datasets (no-such-dataset) has local samples to run' });
  });

  it('a strategy that hangs fails after --timeout', async () => {
    const root = plugin('slow', { strategies: [{ id: 'hangs', module: './code.js', export: 'Hangs' }] }, { 'code.js': `export class Hangs { id = 'hangs'; run() { return new Promise(() => {}); } }\n` });
    const { code, result } = await verify(root, '--timeout', '200');
    expect(code).toBe(1);
    expect(row(result, "strategy 'hangs'", 'runs')!.detail).toContain("strategy 'hangs' did not finish within 200 ms");
  });

  it('a path that does not exist is a usage error', async () => {
    const r = await runCli(['plugins', 'verify', join(dir, 'nothing-here')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no plugin at');
  });
});

describe('verifyPlugin from code (what a plugin’s own test calls)', () => {
  it('returns the rows; ok false when a check fails', async () => {
    const good = await verifyPlugin(join(ROOT, 'test/fixtures/sixth-level-plugin'), { records: 2 });
    expect(good.ok).toBe(true);
    expect(good.rows.find((r) => r.check === 'records')!.detail).toBe('2 sample(s) loaded');
    const root = plugin('lib-bad', { strategies: [{ id: 'throws2', module: './code.js', export: 'T' }] }, { 'code.js': `export class T { id = 'throws2'; async run() { throw new Error('nope'); } }\n` });
    const bad = await verifyPlugin(root);
    expect(bad.ok).toBe(false);
    expect(bad.rows.filter((r) => r.status === 'fail').map((r) => r.contribution)).toEqual(["strategy 'throws2'"]);
  });
});

describe('a strategy declaring packEntry reuses another level’s prompt-pack entry (issue 27, item 4)', () => {
  it('the single-call level "cot-again" with packEntry zero-shot-cot sends exactly zero-shot-cot’s prompt', async () => {
    const root = plugin('pack-entry', { strategies: [{ id: 'cot-again', kind: 'single-call', packEntry: 'zero-shot-cot' }] });
    const prompts: unknown[] = [];
    for (const level of ['zero-shot-cot', 'cot-again', 'role']) {
      const ladder = join(dir, `${level}-ladder.json`);
      writeFileSync(ladder, JSON.stringify({ id: `only-${level}`, levels: [level] }));
      const out = join(dir, `${level}.jsonl`);
      const r = await runCli(['run', '--plugin', root, '--dataset', 'boolq', '--split', 'mini', '--limit', '1', '--ladder', ladder, '--model', 'baseline:oracle', '--store', join(dir, `${level}.db`), '--out', out, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const rec = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!) as { attempts: { calls: { messages: unknown }[] }[] };
      prompts.push(rec.attempts[0]!.calls[0]!.messages);
    }
    expect(prompts[1]).toEqual(prompts[0]);
    expect(prompts[2]).not.toEqual(prompts[0]);
    const v = await verify(root);
    expect(v.code).toBe(0);
    expect(row(v.result, "strategy 'cot-again'", 'runs')!.status).toBe('pass');
  });
});
