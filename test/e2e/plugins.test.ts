/**
 * End-to-end: third-party plugins through the built CLI (a subprocess, offline).
 *
 * The fixture test/fixtures/sixth-level-plugin contributes, with no code, a dataset (`capitals`), a sixth ladder level
 * (`self-verify`, kind single-call) and the ladder `hpf6`. It is linked into a sandboxed oclif data dir
 * (XDG_* -> a temp dir), listed, run against the OpenAI-compatible test server, and uninstalled; the `--plugin DIR`
 * path and an invalid manifest are checked too. A broken installed plugin (invalid manifest, a module that throws on
 * import, a module path outside its root) is reported once as a warning and ignored unless a run needs it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';

const FIXTURE = join(ROOT, 'test/fixtures/sixth-level-plugin');
const PLUGIN_NAME = 'hpt-bench-plugin-sixth-level';
const HPI_DATASET = 2.5;
const M = 6;

/** A fresh oclif sandbox: data/cache/config dirs under a new temp dir, and npm kept offline. */
function sandbox(): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'hpt-plugins-'));
  return {
    dir,
    env: {
      XDG_DATA_HOME: join(dir, 'data'),
      XDG_CACHE_HOME: join(dir, 'cache'),
      XDG_CONFIG_HOME: join(dir, 'config'),
      npm_config_offline: 'true',
    },
  };
}

interface Listed {
  id: string;
  qualifiedId: string;
  plugin: string;
  origin: string;
  hpiDataset?: number;
  scorer?: string;
  levels?: string[];
}

function parseList(r: CliResult): Record<string, Listed[]> {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Record<string, Listed[]>;
}

/** A failed command: non-zero exit, nothing on stdout, exactly one `Error: ...` line on stderr, no stack trace. */
function expectOneLineError(r: CliResult): string {
  expect(r.code).not.toBe(0);
  expect(r.code).not.toBeNull();
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^Error: /);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  return lines[0]!;
}

// ---------------------------------------------------------------------------------------------------------------
// The fixture's samples (its data/capitals.jsonl) and the level at which the scripted model answers each correctly
// (null: never). Two samples are solved only by the sixth level.
const SAMPLES: { id: string; question: string; target: boolean; solveAt: number | null }[] = [
  { id: 'cap-1', question: 'is paris the capital of france', target: true, solveAt: 1 },
  { id: 'cap-2', question: 'is sydney the capital of australia', target: false, solveAt: 2 },
  { id: 'cap-3', question: 'is tokyo the capital of japan', target: true, solveAt: 3 },
  { id: 'cap-4', question: 'is toronto the capital of canada', target: false, solveAt: 4 },
  { id: 'cap-5', question: 'is nairobi the capital of kenya', target: true, solveAt: 5 },
  { id: 'cap-6', question: 'is rio de janeiro the capital of brazil', target: false, solveAt: 6 },
  { id: 'cap-7', question: 'is lima the capital of peru', target: true, solveAt: 6 },
  { id: 'cap-8', question: 'is istanbul the capital of turkey', target: false, solveAt: null },
];

/** Wording unique to each level's graded prompt in the fixture's prompt pack (packs/capitals.json). */
const LEVEL_MARKERS: [number, string][] = [
  [1, 'You are a geographer who knows every capital city'],
  [2, "Let's think step by step"],
  [3, "'is zurich the capital of switzerland'"],
  [4, 'Using the comparison'],
  [5, 'using this knowledge about'],
  [6, 'then verify that decision against what you know'],
];

/** The one item of `items` that `pred` accepts. @throws when none or several do. */
function only<T>(items: T[], pred: (x: T) => boolean, what: string): T {
  const hits = items.filter(pred);
  if (hits.length !== 1) throw new Error(`${hits.length} ${what} match`);
  return hits[0]!;
}

/** Which sample and level a graded request is (by the question text and the level's wording). */
function classify(req: ReceivedRequest): { sample: (typeof SAMPLES)[number]; level: number } {
  const user = req.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');
  const sample = only(SAMPLES, (s) => user.includes(`'${s.question}'`), 'samples');
  const [level] = only(LEVEL_MARKERS, ([, marker]) => user.includes(marker), 'levels');
  return { sample, level };
}

const isGraded = (req: ReceivedRequest) => req.messages.some((m) => m.role === 'system');

/** The scripted model: right at the sample's solving level, the opposite boolean at every other graded call. */
function rule(req: ReceivedRequest): Reply {
  if (!isGraded(req)) return { text: 'Some background notes about capital cities.', logprobs: [-0.1, -0.2, -0.3] };
  const { sample, level } = classify(req);
  const answer = level === sample.solveAt ? sample.target : !sample.target;
  return { text: answer ? 'True' : 'False' };
}

/** Calls the ladder makes up to and including level k: levels 1-3 and 6 one call, 4 a 4-step chain, 5 3 knowledge + 1. */
const CALLS_AT_LEVEL = [1, 1, 1, 4, 4, 1];
const callsUpTo = (k: number) => CALLS_AT_LEVEL.slice(0, k).reduce((a, b) => a + b, 0);

// ---------------------------------------------------------------------------------------------------------------

describe.sequential('a code-free plugin linked into the CLI (plugins link / list / run / uninstall)', () => {
  let box: ReturnType<typeof sandbox>;
  let server: TestServer;

  beforeAll(async () => {
    box = sandbox();
    server = await startOpenAIServer(rule);
  });
  afterAll(async () => {
    await server?.close();
    if (box) rmSync(box.dir, { recursive: true, force: true });
  });

  it('is absent before linking and listed with origin installed after `plugins link --no-install`', async () => {
    const before = parseList(await runCli(['list', 'datasets', '--json'], { env: box.env }));
    expect(before.datasets!.map((d) => d.id)).not.toContain('capitals');
    expect(before.datasets!.every((d) => d.origin === 'builtin')).toBe(true);

    const link = await runCli(['plugins', 'link', FIXTURE, '--no-install'], { env: box.env });
    expect(link.code).toBe(0);
    // oclif records the link in the sandboxed data dir, nowhere else
    const userPjson = JSON.parse(readFileSync(join(box.env.XDG_DATA_HOME!, 'hpt-bench', 'package.json'), 'utf8')) as { oclif: { plugins: { name: string; type: string; root: string }[] } };
    expect(userPjson.oclif.plugins).toEqual([{ name: PLUGIN_NAME, type: 'link', root: FIXTURE.replace(/\/$/, '') }]);

    const datasets = parseList(await runCli(['list', 'datasets', '--json'], { env: box.env })).datasets!;
    const capitals = only(datasets, (d) => d.id === 'capitals', 'datasets');
    expect(capitals).toMatchObject({ qualifiedId: `${PLUGIN_NAME}/capitals`, plugin: PLUGIN_NAME, origin: 'installed', hpiDataset: HPI_DATASET, scorer: 'boolean' });
    // built-ins are still there, and still built-in
    expect(datasets.find((d) => d.id === 'boolq')?.origin).toBe('builtin');

    const ladders = parseList(await runCli(['list', 'ladders', '--json'], { env: box.env })).ladders!;
    const hpf6 = only(ladders, (l) => l.id === 'hpf6', 'ladders');
    expect(hpf6).toMatchObject({ plugin: PLUGIN_NAME, origin: 'installed' });
    expect(hpf6.levels).toEqual(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge', 'self-verify']);

    const strategies = parseList(await runCli(['list', 'strategies', '--json'], { env: box.env })).strategies!;
    expect(only(strategies, (s) => s.id === 'self-verify', 'strategies')).toMatchObject({ plugin: PLUGIN_NAME, origin: 'installed' });
  });

  it('runs the hpf6 ladder on capitals: six levels, level-6 solves counted, HPI as computed, no call above the solving level', async () => {
    const out = join(box.dir, 'capitals.jsonl');
    const store = join(box.dir, 'store.db');
    const r = await runCli(
      ['run', '--dataset', 'capitals', '--ladder', 'hpf6', '--model', 'openai:test-model', '--base-url', server.url, '--json', '--out', out, '--store', store],
      { env: { ...box.env, OPENAI_API_KEY: 'sk-dummy-test-key' } },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as { dataset: string; model: string; ladder: string[]; n: number; hpi: number; hpiDataset: number; accuracy: number; levelCounts: Record<string, number>; calls: number };

    expect(summary.dataset).toBe('capitals');
    expect(summary.model).toBe('openai:test-model');
    expect(summary.ladder).toHaveLength(M);
    expect(summary.ladder[5]).toBe('self-verify');
    expect(summary.n).toBe(SAMPLES.length);
    expect(summary.hpiDataset).toBe(HPI_DATASET);

    // independent expectations from the script
    const expectedCounts: Record<string, number> = { unsolved: 0 };
    for (let l = 1; l <= M; l++) expectedCounts[String(l)] = 0;
    for (const s of SAMPLES) expectedCounts[s.solveAt === null ? 'unsolved' : String(s.solveAt)]! += 1;
    expect(expectedCounts).toEqual({ '1': 1, '2': 1, '3': 1, '4': 1, '5': 1, '6': 2, unsolved: 1 });
    expect(summary.levelCounts).toEqual(expectedCounts);
    expect(summary.levelCounts['6']).toBe(2);

    const expectedHpi = SAMPLES.reduce((sum, s) => sum + (s.solveAt ?? M + HPI_DATASET), 0) / SAMPLES.length;
    expect(expectedHpi).toBeCloseTo(35.5 / 8, 12);
    expect(summary.hpi).toBeCloseTo(expectedHpi, 12);
    expect(summary.accuracy).toBeCloseTo(7 / 8, 12);

    const expectedCalls = SAMPLES.reduce((sum, s) => sum + callsUpTo(s.solveAt ?? M), 0);
    expect(expectedCalls).toBe(60);
    expect(summary.calls).toBe(expectedCalls);
    expect(server.requests).toHaveLength(expectedCalls);
    expect(new Set(server.requests.map((q) => q.model))).toEqual(new Set(['test-model']));

    // graded calls: per sample exactly levels 1..solving level (1..6 when unsolved), each once; never above
    const graded = new Map<string, number[]>();
    for (const req of server.requests.filter(isGraded)) {
      const { sample, level } = classify(req);
      graded.set(sample.id, [...(graded.get(sample.id) ?? []), level]);
    }
    for (const s of SAMPLES) {
      const top = s.solveAt ?? M;
      const levels = graded.get(s.id) ?? [];
      expect(Math.max(...levels), `${s.id} highest graded level`).toBe(top);
      expect([...levels].sort((a, b) => a - b), `${s.id} graded levels`).toEqual(Array.from({ length: top }, (_, i) => i + 1));
    }
    // level 6 used the pack's self-verify wording, not the manifest's fallback template
    expect(server.requests.some((q) => q.messages.some((m) => m.content.includes('double-check your answer')))).toBe(false);
    // knowledge calls of level 5 asked for logprobs; 3 per sample that reached level 5
    const reached5 = SAMPLES.filter((s) => (s.solveAt ?? M) >= 5).length;
    expect(server.requests.filter((q) => q.logprobs && !isGraded(q))).toHaveLength(3 * reached5);

    // the --out file: one line per sample, in input order, with its level and HPI
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { sampleId: string; level: number | null; hpi: number; solved: boolean; attempts: { level: number; strategy: string }[] });
    expect(lines.map((l) => l.sampleId)).toEqual(SAMPLES.map((s) => s.id));
    expect(lines.map((l) => l.level)).toEqual(SAMPLES.map((s) => s.solveAt));
    expect(lines.map((l) => l.hpi)).toEqual(SAMPLES.map((s) => s.solveAt ?? M + HPI_DATASET));
    expect(lines[5]!.attempts.map((a) => a.strategy)).toEqual(summary.ladder);
  });

  it('`plugins uninstall` removes it: capitals and hpf6 are gone, and runs on them fail with a one-line error', async () => {
    const un = await runCli(['plugins', 'uninstall', PLUGIN_NAME], { env: box.env });
    expect(un.code).toBe(0);
    const listed = parseList(await runCli(['list', '--json'], { env: box.env }));
    expect(listed.datasets!.map((d) => d.id)).not.toContain('capitals');
    expect(listed.datasets!.map((d) => d.id)).toEqual(expect.arrayContaining(['boolq', 'csqa', 'mmlu', 'gsm8k']));
    expect(listed.ladders!.map((l) => l.id)).not.toContain('hpf6');
    expect(listed.strategies!.map((s) => s.id)).not.toContain('self-verify');

    const r = await runCli(['run', '--dataset', 'capitals', '--model', 'baseline:oracle', '--store', join(box.dir, 'after.db')], { env: box.env });
    expect(expectOneLineError(r)).toMatch(/^Error: unknown dataset 'capitals'\./);
  });
});

describe('the --plugin DIR flag (no linking)', () => {
  let box: ReturnType<typeof sandbox>;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => {
    if (box) rmSync(box.dir, { recursive: true, force: true });
  });

  it('contributes the same dataset, strategy and ladder with origin local', async () => {
    const listed = parseList(await runCli(['list', '--json', '--plugin', FIXTURE], { env: box.env }));
    const capitals = only(listed.datasets!, (d) => d.id === 'capitals', 'datasets');
    expect(capitals).toEqual({
      id: 'capitals',
      qualifiedId: `${PLUGIN_NAME}/capitals`,
      plugin: PLUGIN_NAME,
      origin: 'local',
      description: 'Capitals: yes/no questions about capital cities (8 self-written questions)',
      hpiDataset: HPI_DATASET,
      scorer: 'boolean',
      // the placeholders its pack can fill: the declared input fields
      placeholders: ['country', 'question'],
    });
    expect(only(listed.ladders!, (l) => l.id === 'hpf6', 'ladders')).toMatchObject({ origin: 'local', levels: ['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge', 'self-verify'] });
    expect(only(listed.strategies!, (s) => s.id === 'self-verify', 'strategies').origin).toBe('local');
    // nothing was installed into the sandbox
    expect(existsSync(join(box.env.XDG_DATA_HOME!, 'hpt-bench', 'package.json'))).toBe(false);
    // and without the flag it is not there
    const plain = parseList(await runCli(['list', 'datasets', '--json'], { env: box.env }));
    expect(plain.datasets!.map((d) => d.id)).not.toContain('capitals');
  });

  it('runs the declarative dataset through the six-level ladder (oracle baseline: all solved at level 1)', async () => {
    const r = await runCli(['run', '--plugin', FIXTURE, '--dataset', 'capitals', '--ladder', 'hpf6', '--model', 'baseline:oracle', '--store', join(box.dir, 's.db'), '--json'], { env: box.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as { n: number; hpi: number; ladder: string[]; levelCounts: Record<string, number>; hpiDataset: number };
    expect(s.n).toBe(8);
    expect(s.ladder).toHaveLength(6);
    expect(s.hpiDataset).toBe(HPI_DATASET);
    expect(s.levelCounts).toEqual({ '1': 8, '2': 0, '3': 0, '4': 0, '5': 0, '6': 0, unsolved: 0 });
    expect(s.hpi).toBe(1);
  });
});

describe('a plugin with an invalid manifest', () => {
  let box: ReturnType<typeof sandbox>;
  let bad: string;
  beforeAll(() => {
    box = sandbox();
    bad = join(box.dir, 'broken-plugin');
    // a copy of the fixture whose dataset lacks the required hpiDataset
    mkdirSync(bad, { recursive: true });
    cpSync(join(FIXTURE, 'data'), join(bad, 'data'), { recursive: true });
    cpSync(join(FIXTURE, 'packs'), join(bad, 'packs'), { recursive: true });
    const pj = JSON.parse(readFileSync(join(FIXTURE, 'package.json'), 'utf8')) as Record<string, any>;
    pj.name = 'hpt-bench-plugin-broken';
    delete pj['hpt-bench'].contributes.datasets[0].hpiDataset;
    writeFileSync(join(bad, 'package.json'), JSON.stringify(pj, null, 2));
  });
  afterAll(() => {
    if (box) rmSync(box.dir, { recursive: true, force: true });
  });

  it('makes `list --plugin DIR` fail with one line naming the plugin and the field', async () => {
    const line = expectOneLineError(await runCli(['list', '--plugin', bad], { env: box.env }));
    expect(line).toContain('hpt-bench-plugin-broken');
    expect(line).toContain("'hpiDataset'");
    expect(line).toContain('/contributes/datasets/0');
  });

  it('once linked, is reported once as a warning and ignored: `list` works, built-ins are intact', async () => {
    expect((await runCli(['plugins', 'link', bad, '--no-install'], { env: box.env })).code).toBe(0);
    const r = await runCli(['list', 'datasets', '--json'], { env: box.env });
    expect(r.code).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: plugin hpt-bench-plugin-broken ignored: manifest of plugin hpt-bench-plugin-broken is invalid: .*hpiDataset/);
    const ids = (JSON.parse(r.stdout) as Record<string, Listed[]>).datasets!.map((d) => d.id);
    expect(ids).not.toContain('capitals');
    expect(ids).toEqual(expect.arrayContaining(['boolq', 'csqa', 'mmlu', 'gsm8k']));
  });

  it('a run on one of its datasets fails in one line saying the plugin failed to load and why', async () => {
    const store = join(box.dir, 'store.db');
    const r = await runCli(['run', '--dataset', 'capitals', '--model', 'baseline:oracle', '--store', store], { env: box.env });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^warning: plugin hpt-bench-plugin-broken ignored: /);
    expect(lines[1]).toMatch(/^Error: dataset 'capitals' is not available: plugin hpt-bench-plugin-broken failed to load \(manifest of plugin hpt-bench-plugin-broken is invalid: .*hpiDataset.*\); fix the plugin, or remove it with `hpt-bench plugins uninstall hpt-bench-plugin-broken`$/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('a run that does not need it works (with the warning) and uninstalling it silences the warning', async () => {
    const store = join(box.dir, 'store2.db');
    const r = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--limit', '1', '--model', 'baseline:oracle', '--store', store, '--json'], { env: box.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^warning: plugin hpt-bench-plugin-broken ignored: /)]);
    expect((JSON.parse(r.stdout) as { n: number }).n).toBe(1);

    expect((await runCli(['plugins', 'uninstall', 'hpt-bench-plugin-broken'], { env: box.env })).code).toBe(0);
    const after = parseList(await runCli(['list', 'datasets', '--json'], { env: box.env }));
    expect(after.datasets!.map((d) => d.id)).not.toContain('capitals');
    expect(after.datasets!.map((d) => d.id)).toEqual(expect.arrayContaining(['boolq', 'csqa', 'mmlu', 'gsm8k']));
  });
});

describe('a linked plugin whose module throws on import, and plugin paths that leave the plugin root', () => {
  let box: ReturnType<typeof sandbox>;
  let throwing: string;
  let escaping: string;
  const SECRET = 'root:x:0:0:root:/root:/bin/bash secret-token-4711';
  beforeAll(() => {
    box = sandbox();
    // stands for /etc/passwd: a file beside (outside) the plugins
    writeFileSync(join(box.dir, 'secret.js'), `${SECRET}\n`);
    throwing = join(box.dir, 'plugins', 'throwing');
    mkdirSync(throwing, { recursive: true });
    writeFileSync(
      join(throwing, 'package.json'),
      JSON.stringify({ name: 'hpt-bench-plugin-throwing', version: '1.0.0', type: 'module', oclif: {}, 'hpt-bench': { apiVersion: 1, contributes: { models: [{ id: 'thrower', module: './index.js', export: 'M' }] } } }),
    );
    writeFileSync(join(throwing, 'index.js'), 'throw new Error("boom at import");\n');
    escaping = join(box.dir, 'plugins', 'escaping');
    mkdirSync(escaping, { recursive: true });
    writeFileSync(
      join(escaping, 'package.json'),
      JSON.stringify({ name: 'hpt-bench-plugin-escaping', version: '1.0.0', type: 'module', oclif: {}, 'hpt-bench': { apiVersion: 1, contributes: { models: [{ id: 'evil', module: './../../secret.js', export: 'M' }] } } }),
    );
  });
  afterAll(() => {
    if (box) rmSync(box.dir, { recursive: true, force: true });
  });

  it('the throwing module breaks nothing until its model is asked for; then one line names the plugin and the reason', async () => {
    expect((await runCli(['plugins', 'link', throwing, '--no-install'], { env: box.env })).code).toBe(0);
    const models = parseList(await runCli(['list', 'models', '--json'], { env: box.env })).models!;
    expect(models.map((m) => m.id)).toEqual(expect.arrayContaining(['thrower', 'baseline', 'openai']));
    const ok = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--limit', '1', '--model', 'baseline:oracle', '--store', join(box.dir, 's1.db'), '--json'], { env: box.env });
    expect(ok.code, ok.stderr).toBe(0);

    const line = expectOneLineError(await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--limit', '1', '--model', 'thrower:x', '--store', join(box.dir, 's2.db')], { env: box.env }));
    expect(line).toBe("Error: plugin hpt-bench-plugin-throwing failed to load: cannot import ./index.js for model 'thrower': Error: boom at import");
  });

  it('a module path leaving the root (./../../secret.js): `--plugin DIR` fails in one line that names the path, not the contents', async () => {
    const line = expectOneLineError(await runCli(['list', '--plugin', escaping], { env: box.env }));
    expect(line).toMatch(/^Error: plugin hpt-bench-plugin-escaping: model 'evil' module "\.\/\.\.\/\.\.\/secret\.js" leaves the plugin root/);
    expect(line).not.toMatch(/secret-token|root:x/);
  });

  it('linked, the same plugin is ignored with a warning, and its model is reported as not available', async () => {
    expect((await runCli(['plugins', 'link', escaping, '--no-install'], { env: box.env })).code).toBe(0);
    const r = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--limit', '1', '--model', 'evil:x', '--store', join(box.dir, 's3.db')], { env: box.env });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toEqual([
      expect.stringMatching(/^warning: plugin hpt-bench-plugin-escaping ignored: model 'evil' module "\.\/\.\.\/\.\.\/secret\.js" leaves the plugin root/),
      expect.stringMatching(/^Error: model 'evil' is not available: plugin hpt-bench-plugin-escaping failed to load \(model 'evil' module .* leaves the plugin root/),
    ]);
    expect(r.stderr).not.toMatch(/secret-token|root:x/);
  });
});
