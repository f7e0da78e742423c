/**
 * Built-ins load exactly like community plugins, and the CLI knows no benchmark (as processes):
 * - generator filters come from the datasets' manifests: `--filter name=value` and `--<name> value`, values checked,
 *   `--help` lists them — for HiBench and for a community dataset loaded with `--plugin DIR`;
 * - `hpt-bench score` scores with any plugin's scorer or standalone metric (HiBench matchers, boolean, a community
 *   scorer and metric);
 * - a plugin adds a level's wording to the prompt packs of humaneval and iwslt (`packs`), and a ladder with that level
 *   runs on humaneval; `list datasets --json` gives each dataset's filters and placeholders.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { startOpenAIServer, type ReceivedRequest, type Reply } from '../helpers/openai-server.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-e2e-kinds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const PLUGIN = join(ROOT, 'test/fixtures/community-plugin');
const file = (name: string, lines: string[]): string => {
  const p = join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
};
const records = (stdout: string): Record<string, unknown>[] => stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
const oneLine = (stderr: string): void => expect(stderr.trim().split('\n')).toHaveLength(1);

describe('generator filters from the manifests', () => {
  it('--filter name=value selects what --name value selects; repeated and comma-separated values add up', async () => {
    const a = await runCli(['generate', 'hibench/formula', '--filter', 'task=calculate', '--filter', 'preset=easy', '--filter', 'icl=zero', '--out', '-']);
    const b = await runCli(['generate', 'hibench/formula', '--task', 'calculate', '--preset=easy', '--icl', 'zero', '--out', '-']);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(records(a.stdout)).toHaveLength(39);
    const two = await runCli(['generate', 'hibench/formula', '--filter', 'task=calculate,convert', '--preset', 'easy', '--icl', 'zero', '--icl', 'one', '--out', '-']);
    expect(new Set(records(two.stdout).map((r) => `${String(r.task)}/${String(r.icl)}`))).toEqual(new Set(['calculate/zero', 'calculate/one', 'convert/zero', 'convert/one']));
  });

  it('an undeclared value is refused before any generation, listing the allowed values', async () => {
    const out = join(dir, 'never.jsonl');
    const r = await runCli(['generate', 'hibench/json', '--filter', 'semantics=silly', '--out', out]);
    expect(r.code).toBe(2);
    oneLine(r.stderr);
    expect(r.stderr).toBe("Error: json: unknown --semantics 'silly'; allowed: normal, nonsense\n");
    const run = await runCli(['run', '--dataset', 'hibench/binary-tree', '--icl', 'two', '--model', 'baseline:oracle', '--store', join(dir, 'x.db')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^Error: binary-tree: unknown --icl 'two'; allowed: zero, one, few\n$/);
    const noValue = await runCli(['generate', 'hibench/json', '--task', '--out', out]);
    expect(noValue.stderr).toMatch(/^Error: --task needs a value/);
    const malformed = await runCli(['generate', 'hibench/json', '--filter', 'task', '--out', out]);
    expect(malformed.stderr).toMatch(/^Error: --filter must be name=value/);
  });

  it("a community dataset's declared filters work as flags, with its values checked and listed in --help", async () => {
    const red = await runCli(['generate', 'shapes', '--plugin', PLUGIN, '--colour', 'red', '--out', '-']);
    expect(red.code, red.stderr).toBe(0);
    expect(records(red.stdout).map((r) => r.id)).toEqual(['red-small', 'red-large']);
    const bad = await runCli(['generate', 'shapes', '--plugin', PLUGIN, '--colour', 'green', '--out', '-']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("Error: shapes: unknown --colour 'green'; allowed: red, blue\n");
    // a filter declared by name only: any value passes the host, the dataset checks it
    const size = await runCli(['generate', 'shapes', '--plugin', PLUGIN, '--size', 'large', '--filter', 'colour=blue', '--out', '-']);
    expect(records(size.stdout).map((r) => r.id)).toEqual(['blue-large']);
    // without the plugin, --colour is no flag of the command
    const unknown = await runCli(['generate', 'hibench/json', '--colour', 'red', '--out', '-']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/Nonexistent flag: --colour/);
    const run = await runCli(['run', '--plugin', PLUGIN, '--dataset', 'shapes', '--colour', 'blue', '--model', 'baseline:oracle', '--store', join(dir, 'shapes.db'), '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ dataset: 'shapes', n: 2, accuracy: 1 });
    const help = await runCli(['generate', '--help', '--plugin', PLUGIN]);
    expect(help.stdout).toMatch(/FILTERS \(generated datasets; --<name> value\[,value\.\.\.\] or --filter <name>=value\[,value\.\.\.\]\)/);
    expect(help.stdout).toMatch(/--colour {2}only squares of these colours\n\s+hpt-bench-plugin-community\/shapes: red, blue/);
    expect(help.stdout).toMatch(/--size\n\s+hpt-bench-plugin-community\/shapes: any value \(checked by the dataset\)/);
    expect(help.stdout).toMatch(/--semantics {2}only these node-name semantics.*\n\s+hibench\/json: normal, nonsense/);
    const runHelp = await runCli(['run', '--help']);
    expect(runHelp.stdout).toMatch(/--task {2}only these tasks.*\n\s+hibench\/binary-tree: balance, prefix_traversal/);
    expect(runHelp.stdout).not.toMatch(/--colour/);
  });
});

describe('hpt-bench score with any plugin scorer or metric', () => {
  it("a community scorer (--plugin DIR): per-sample verdicts and the aggregate", async () => {
    const pred = file('colours.txt', ['Red, clearly.', 'green', '']);
    const gold = file('colours-gold.txt', ['red', 'blue', 'blue']);
    const r = await runCli(['score', 'first-word', '--plugin', PLUGIN, '--predictions', pred, '--references', gold, '--per-sample', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      scorer: 'first-word',
      n: 3,
      solved: 1,
      accuracy: 1 / 3,
      meanScore: 1 / 3,
      scores: [
        { solved: true, score: 1, extracted: 'red' },
        { solved: false, score: 0, extracted: 'green' },
        { solved: false, score: 0, extracted: null },
      ],
    });
    const text = await runCli(['score', 'first-word', '--plugin', PLUGIN, '--predictions', pred, '--references', gold]);
    expect(text.stdout).toBe('first-word: 1 of 3 solved (accuracy 33.33%, mean score 0.3333)\n');
    const without = await runCli(['score', 'first-word', '--predictions', pred, '--references', gold]);
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/^Error: unknown scorer or metric 'first-word'\..*Scorers: bleu, boolean/);
  });

  it('a community standalone metric, with its options', async () => {
    const pred = file('short.txt', ['a b', 'c']);
    const ref = file('long.txt', ['a b c d', 'e f']);
    const r = await runCli(['score', 'length-ratio', '--plugin', PLUGIN, '--predictions', pred, '--references', ref, '--option', 'scale=2', '--per-sample', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ratio: 1, predictionWords: 3, referenceWords: 6, scores: [1, 1] });
    const bad = await runCli(['score', 'length-ratio', '--plugin', PLUGIN, '--predictions', pred, '--references', ref, '--option', 'colour=blue']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown option 'colour' for length-ratio/);
  });

  it('HiBench matchers and the HPT answer scorers score files; JSONL references hold any JSON target', async () => {
    const lists = file('lists.txt', ['[3, 1, 2]', 'the answer is 4, 5', 'nothing']);
    const gold = join(dir, 'lists.jsonl');
    writeFileSync(gold, ['[1, 2, 3]', '["4", "5"]', '["6"]'].join('\n') + '\n');
    const h = await runCli(['score', 'hierarchy-list', '--predictions', lists, '--references', gold, '--option', 'sep=,', '--per-sample', '--json']);
    expect(h.code, h.stderr).toBe(0);
    const hj = JSON.parse(h.stdout) as { n: number; solved: number; scores: { solved: boolean }[] };
    expect(hj.n).toBe(3);
    expect(hj.scores.map((s) => s.solved)[2]).toBe(false);
    const num = await runCli(['score', 'numeric', '--predictions', file('nums.txt', ['so #### 42', '7 apples', 'none']), '--references', file('nums-gold.txt', ['42', '8', '1']), '--json']);
    expect(JSON.parse(num.stdout)).toMatchObject({ scorer: 'numeric', n: 3, solved: 1 });
    const choice = await runCli(['score', 'choice', '--predictions', file('letters.txt', ['B', 'The answer is C']), '--references', file('letters-gold.txt', ['B', 'D']), '--option', 'letters=5', '--json']);
    expect(JSON.parse(choice.stdout)).toMatchObject({ scorer: 'choice', n: 2, solved: 1 });
    const bool = await runCli(['score', 'boolean', '--predictions', file('yn.txt', ['True', 'False']), '--references', gold, '--json']);
    expect(bool.code).not.toBe(0);
    oneLine(bool.stderr);
    const rouge = await runCli(['score', 'rouge', '--as', 'scorer', '--predictions', file('s.txt', ['the cat sat']), '--references', file('s-gold.txt', ['the cat sat down']), '--option', 'threshold=0.5', '--json']);
    expect(JSON.parse(rouge.stdout)).toMatchObject({ scorer: 'rouge', n: 1, solved: 1, metrics: { rouge1: expect.closeTo(6 / 7, 10) } });
    const twoRefs = await runCli(['score', 'numeric', '--predictions', file('n1.txt', ['1']), '--references', file('n1-gold.txt', ['1']), '--references', file('n2-gold.txt', ['1'])]);
    expect(twoRefs.stderr).toMatch(/scorer numeric takes one --references file/);
  });
});

describe('packs: a level with wording for existing datasets', () => {
  it('the plugin adds plan-and-solve to the humaneval pack, and a ladder climbs to it (solved at level 2)', async () => {
    const problems = readFileSync(join(ROOT, 'plugins/hpt-datasets/data/humaneval-mini.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { prompt: string; canonical_solution: string; entry_point: string });
    const server = await startOpenAIServer((req: ReceivedRequest): Reply => {
      const user = req.messages.find((m) => m.role === 'user')!.content;
      if (!user.startsWith('PLAN FIRST')) return { text: 'I am not sure.' };
      const p = problems.find((x) => user.includes(`\`${x.entry_point}\``))!;
      return { text: '```python\n' + p.prompt + p.canonical_solution + '```' };
    });
    try {
      const out = join(dir, 'he.jsonl');
      const r = await runCli(['run', '--plugin', PLUGIN, '--dataset', 'humaneval', '--split', 'mini', '--ladder', 'role-then-plan', '--model', 'openai:test', '--base-url', server.url, '--store', join(dir, 'he.db'), '--out', out, '--json'], { env: { OPENAI_API_KEY: 'sk-test' } });
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout) as { ladder: string[]; n: number; levelCounts: Record<string, number>; accuracy: number };
      expect(s.ladder).toEqual(['role', 'plan-and-solve']);
      expect(s).toMatchObject({ n: problems.length, accuracy: 1, levelCounts: { '1': 0, '2': problems.length, unsolved: 0 } });
      const first = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!) as { attempts: { strategy: string; calls: { messages: { content: string }[] }[] }[] };
      const plan = first.attempts[1]!.calls[0]!.messages.map((m) => m.content).join('\n');
      expect(plan).toContain('PLAN FIRST. Read the function signature and docstring: \n\ndef add_numbers(a: int, b: int) -> int:');
      expect(plan).toContain('complete the function `add_numbers`');
      expect(plan).toMatch(/\nCode:$/);
    } finally {
      await server.close();
    }
  });

  it("without the pack addition the level's fallback template cannot fill humaneval (the failure the addition fixes)", async () => {
    const noPack = join(dir, 'no-pack');
    mkdirSync(noPack);
    const pj = JSON.parse(readFileSync(join(PLUGIN, 'package.json'), 'utf8')) as { name: string; 'hpt-bench': { contributes: Record<string, unknown> } };
    pj.name = 'hpt-bench-plugin-no-pack';
    delete pj['hpt-bench'].contributes.packs;
    delete pj['hpt-bench'].contributes.datasets;
    delete pj['hpt-bench'].contributes.scorers;
    delete pj['hpt-bench'].contributes.metrics;
    writeFileSync(join(noPack, 'package.json'), JSON.stringify(pj));
    const r = await runCli(['run', '--plugin', noPack, '--dataset', 'humaneval', '--split', 'mini', '--ladder', 'plan-only', '--model', 'baseline:oracle', '--store', join(dir, 'np.db'), '--json']);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/placeholder \{question\} has no value \(known: code, test, entry_point\)/);
  });

  it('list datasets --json gives filters and placeholders; list packs shows the additions', async () => {
    const r = await runCli(['list', 'datasets', '--plugin', PLUGIN, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const ds = (JSON.parse(r.stdout) as { datasets: { id: string; placeholders: string[]; filters?: { name: string; values?: string[] }[] }[] }).datasets;
    const by = (id: string) => ds.find((d) => d.id === id)!;
    expect(by('humaneval').placeholders).toEqual(['code', 'entry_point', 'test']);
    expect(by('boolq').placeholders).toEqual(['passage', 'question']);
    expect(by('shapes').filters).toEqual([{ name: 'colour', description: 'only squares of these colours', values: ['red', 'blue'] }, { name: 'size' }]);
    expect(by('json').filters!.map((f) => f.name)).toEqual(['task', 'preset', 'icl', 'semantics']);
    const packs = await runCli(['list', 'packs', '--plugin', PLUGIN, '--json']);
    expect((JSON.parse(packs.stdout) as { packs: { id: string; dataset: string; plugin: string }[] }).packs).toEqual([
      // the generic prompt pack is a built-in plugin's contribution too (issue 26, item 2)
      expect.objectContaining({ id: 'generic', generic: true, plugin: '@hpt-bench/hpf-strategies' }),
      expect.objectContaining({ id: 'humaneval', dataset: 'humaneval', plugin: 'hpt-bench-plugin-community' }),
      expect.objectContaining({ id: 'iwslt', dataset: 'iwslt', plugin: 'hpt-bench-plugin-community' }),
    ]);
  });
});
