/**
 * A plugin's new level is judged with no core change (issue 26, item 2): test/fixtures/seventh-level-plugin adds two
 * levels above the five HPF levels — `restate` (single-call, wording only in prompt packs) and `critique-revise` (a code
 * strategy whose revision step gets BOTH earlier outputs, trimmed: a wiring no pack field describes) — with their
 * wording in the generic pack (a second `packs` entry with `generic: true`, merged with @hpt-bench/hpf-strategies') and
 * in BoolQ's pack, and the 7-level ladder `hpf7`. The judge must rate, for each level, exactly the prompt the level's
 * strategy sends; the expected prompts are derived here from the fixture's pack JSON and the strategy's documented
 * wiring, with this file's own one-pass fill.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRunContainer,
  discoverPlugins,
  genericPack,
  JudgeClient,
  judgeLadder,
  judgeSamples,
  LadderEngine,
  resolveDatasetSource,
  runJudge,
  type DatasetLoadOptions,
  type JudgeRecord,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type Sample,
  type Scorer,
} from '@hpt-bench/core';
import { runCli, ROOT, SHARED } from '../helpers/cli.js';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';

const FIXTURE = join(ROOT, 'test/fixtures/seventh-level-plugin');
const BUILTINS = ['hpt-datasets', 'hpf-strategies'].map((p) => ({ root: join(ROOT, 'plugins', p), origin: 'builtin' as const }));
const JUDGE_PROMPT = (JSON.parse(readFileSync(join(SHARED, 'specs/hpt-templates.json'), 'utf8')) as { judge: string }).judge;
const BOOLQ = join(SHARED, 'data/hpt-representative/boolq.json');
const RIDDLES = join(FIXTURE, 'data/riddles.jsonl');

interface Step {
  template: string;
  pred: number | null;
  cue: string;
}
type Entries = Record<string, { template?: string; steps?: Step[] }>;
const packJson = (file: string) => (JSON.parse(readFileSync(join(FIXTURE, 'packs', file), 'utf8')) as { strategies: Entries }).strategies;

/** FNV-1a 32-bit. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The scripted helper's completion: blanks around it (the strategy trims them) and a literal `{pred}` (one-pass fill). */
const helperText = (prompt: string) => `  draft-or-critique ${fnv(prompt).toString(16)} {pred}\n`;

/** This test's own one-pass placeholder fill. */
function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    if (!(name in vars)) throw new Error(`no value for {${name}}`);
    return vars[name]!;
  });
}

/**
 * The judged prompt of the two fixture levels, and the helper prompts of critique-revise, for one sample's input:
 * restate is its template; critique-revise sends the draft, then the critique with {pred} = the draft, and is judged
 * on the revision with {pred} = "Draft: <draft trimmed>\nCritique: <critique trimmed>".
 */
function expectedLevels(entries: Entries, input: Record<string, string>) {
  const [draft, critique, revise] = entries['critique-revise']!.steps!;
  const p1 = fill(draft!.template, input);
  const p2 = fill(critique!.template, { ...input, pred: helperText(p1) });
  const pred = `Draft: ${helperText(p1).trim()}\nCritique: ${helperText(p2).trim()}`;
  return {
    restate: { prompt: fill(entries.restate!.template!, input), steps: '0' },
    critique: { prompt: fill(revise!.template, { ...input, pred }), steps: '2', helpers: [p1, p2] },
  };
}

/** The generic pack's values of its optional input fields (@hpt-bench/hpf-strategies' packs/generic.json `inputs`). */
const GENERIC_INPUTS = (JSON.parse(readFileSync(join(ROOT, 'plugins/hpf-strategies/packs/generic.json'), 'utf8')) as { inputs: Record<string, string> }).inputs;
const genericInput = (question: string) => ({ ...GENERIC_INPUTS, question });
const riddles = readFileSync(RIDDLES, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; question: string; answer: boolean });
const boolqRecords = (JSON.parse(readFileSync(BOOLQ, 'utf8')) as { question: string; passage: string; answer: string }[]).slice(0, 2);

/** A model answering each request with `answer(request)`, recording the requests. */
function scripted(answer: (r: ModelRequest) => string): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'scripted:m',
    endpoint: 'http://scripted.invalid/v1',
    requests,
    async generate(r: ModelRequest): Promise<ModelResponse> {
      requests.push(r);
      return { text: answer(r), usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop' };
    },
  };
}

const load: DatasetLoadOptions = { onInvalid: 'fail', cacheDir: tmpdir(), warn: () => undefined, seed: 0, compat: 'strict', filters: {} };

describe('a seventh level from a plugin is judged (core API)', () => {
  const registry = discoverPlugins([...BUILTINS, { root: FIXTURE, origin: 'local' }]);
  const container = createRunContainer(registry);

  it('the generic pack merges the plugins’ generic packs: the five HPF levels, then the fixture’s two', () => {
    const pack = genericPack(registry);
    expect(Object.keys(pack.strategies)).toEqual(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge', 'restate', 'critique-revise']);
    // id, cue, system and task are the built-in generic pack's (the fixture's file sets none of them)
    expect([pack.id, pack.cue, pack.system, pack.task]).toEqual(['generic', '', '{system}', '{question}\n{format}']);
    expect(pack.strategies.restate).toEqual(packJson('generic-levels.json').restate);
  });

  it('judges all seven levels; levels 6 and 7 are rated on exactly what their strategies send', async () => {
    const levels = await judgeLadder(registry, container, 'hpf7');
    expect(levels.map((l) => [l.level, l.strategy])).toEqual(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge', 'restate', 'critique-revise'].map((s, i) => [i + 1, s]));
    const sources = [await resolveDatasetSource(registry, container, 'riddles'), await resolveDatasetSource(registry, container, 'boolq')];
    const helper = scripted((r) => helperText(r.messages[0]!.content));
    const judgeModel = scripted(() => '{"score1":2,"score2":3,"score3":4,"score4":5}');
    const records: JudgeRecord[] = [];
    const result = await runJudge({
      datasets: [
        { id: 'riddles', pack: sources[0]!.pack, samples: judgeSamples(sources[0]!, load) },
        { id: 'boolq', pack: sources[1]!.pack, samples: judgeSamples(sources[1]!, { ...load, data: BOOLQ }, 2) },
      ],
      levels,
      judge: new JudgeClient(judgeModel),
      helper,
      concurrency: 2,
      onRecord: (r) => void records.push(r),
    });
    expect(result.items).toBe(riddles.length + 2);
    expect(result.levels.map((l) => [l.strategy, l.n, l.invalid])).toEqual(levels.map((l) => [l.strategy, riddles.length + 2, 0]));

    const generic = packJson('generic-levels.json');
    const boolq = packJson('boolq-levels.json');
    const items = [
      ...riddles.map((r) => ({ dataset: 'riddles', sampleId: r.id, input: genericInput(r.question), entries: generic, gold: r.answer ? 'True' : 'False' })),
      ...boolqRecords.map((r, i) => ({ dataset: 'boolq', sampleId: String(i), input: { passage: r.passage, question: r.question }, entries: boolq, gold: r.answer })),
    ];
    const judgeUsers = judgeModel.requests.map((q) => q.messages[1]!.content);
    for (const item of items) {
      const want = expectedLevels(item.entries, item.input);
      const mine = (level: number) => records.find((r) => r.dataset === item.dataset && r.sampleId === item.sampleId && r.level === level)!;
      expect(mine(6)).toMatchObject({ strategy: 'restate', prompt: want.restate.prompt, steps: '0', helperCalls: [] });
      expect(mine(7)).toMatchObject({ strategy: 'critique-revise', prompt: want.critique.prompt, steps: '2' });
      expect(mine(7).helperCalls.map((c) => [c.purpose, c.seq, c.prompt])).toEqual(want.critique.helpers.map((p, i) => ['intermediate', i, p]));
      expect(judgeUsers).toContain(`${want.critique.prompt}\nAnswer: ${item.gold}\nMulti-step prompts: 2`);
      expect(judgeUsers).toContain(`${want.restate.prompt}\nAnswer: ${item.gold}\nMulti-step prompts: 0`);
    }
    // the one-pass fill keeps r3's literal {pred}; the revision holds both trimmed helper outputs
    const r3 = records.find((r) => r.sampleId === 'r3' && r.level === 7)!;
    expect(r3.prompt).toContain('Is {pred} a placeholder');
    expect(r3.prompt).toMatch(/\nDraft: draft-or-critique [0-9a-f]+ \{pred\}\nCritique: draft-or-critique [0-9a-f]+ \{pred\}\n/);
    // helper calls: one user message each, the judge's helper settings; level 7 makes 2 per item
    const level7 = helper.requests.filter((q) => q.context?.level === 7);
    expect(level7).toHaveLength(items.length * 2);
    expect(helper.requests.every((q) => q.messages.length === 1 && q.messages[0]!.role === 'user' && q.temperature === 0.6 && q.topP === 0.9)).toBe(true);
  });

  it('the judged level-7 prompt is the graded message a run of the level sends', async () => {
    const [level7] = (await judgeLadder(registry, container, 'hpf7')).slice(6);
    const source = await resolveDatasetSource(registry, container, 'riddles');
    let sample: Sample | undefined;
    for await (const s of judgeSamples(source, load, 1)) sample = s;
    const records: JudgeRecord[] = [];
    const helper = scripted((r) => helperText(r.messages[0]!.content));
    await runJudge({ datasets: [{ id: 'riddles', pack: source.pack, samples: [sample!] }], levels: [level7!], judge: new JudgeClient(scripted(() => 'score1: 1 score2: 1 score3: 1 score4: 1')), helper, concurrency: 1, onRecord: (r) => void records.push(r) });
    // the same level in a strict run (what `hpt-bench run` sends): the generic pack's steps and answer cue are empty
    const model = scripted((r) => (r.context!.purpose === 'graded' ? 'yes' : helperText(r.messages[0]!.content)));
    const never: Scorer = { id: 'never', score: () => ({ solved: false, score: 0, extracted: null }) };
    const engine = new LadderEngine({ levels: [{ level: 7, strategyId: level7!.strategy, strategy: level7!.instance }], model, knowledgeModel: model, scorer: never, scorerOptions: {}, pack: source.pack, hpiDataset: 2, compat: 'strict', generation: { temperature: 0, topP: 1, maxTokens: 64 }, seed: 0 });
    const attempt = await engine.attempt(sample!, engine.levels[0]!);
    const graded = attempt.calls.find((c) => c.purpose === 'graded')!;
    expect(graded.messages[1]).toEqual({ role: 'user', content: records[0]!.prompt });
    expect(attempt.calls.filter((c) => c.purpose === 'intermediate').map((c) => c.messages[0]!.content)).toEqual(records[0]!.helperCalls.map((c) => c.prompt));
  });

  it('without the plugin’s pack entries the new levels cannot be judged: a clear error before any call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-seventh-nopacks-'));
    cpSync(FIXTURE, dir, { recursive: true });
    const pj = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { 'hpt-bench': { contributes: Record<string, unknown> } };
    delete pj['hpt-bench'].contributes.packs;
    writeFileSync(join(dir, 'package.json'), JSON.stringify(pj));
    const reg = discoverPlugins([...BUILTINS, { root: dir, origin: 'local' }]);
    const c = createRunContainer(reg);
    const source = await resolveDatasetSource(reg, c, 'riddles');
    const m = scripted(() => 'x');
    await expect(
      runJudge({ datasets: [{ id: 'riddles', pack: source.pack, samples: judgeSamples(source, load) }], levels: await judgeLadder(reg, c, 'hpf7'), judge: new JudgeClient(m), helper: m, concurrency: 1 }),
    ).rejects.toThrow(/^dataset riddles, level 6 \(restate\): the judge cannot build the level's prompt: prompt pack 'generic' has no template for strategy 'restate'/);
    expect(m.requests).toHaveLength(0);
  });
});

describe('hpt-bench judge --ladder hpf7 with the plugin (e2e, built CLI)', () => {
  let server: TestServer;
  let dir: string;
  const rule = (req: ReceivedRequest): Reply => {
    if (req.messages[0]!.role === 'system' && req.messages[0]!.content === JUDGE_PROMPT) {
      const h = fnv(req.messages[1]!.content);
      return { text: JSON.stringify({ score1: (h % 5) + 1, score2: ((h >>> 3) % 5) + 1, score3: ((h >>> 6) % 5) + 1, score4: ((h >>> 9) % 5) + 1 }) };
    }
    return { text: helperText(req.messages.map((m) => m.content).join('\n')) };
  };
  beforeAll(async () => {
    server = await startOpenAIServer(rule);
    dir = mkdtempSync(join(tmpdir(), 'hpt-judge-hpf7-'));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('rates seven levels; the new levels get the prompts their strategies build, from the merged generic pack and the BoolQ addition', async () => {
    const out = join(dir, 'judge.jsonl');
    const r = await runCli(['judge', '--plugin', FIXTURE, '-m', 'openai:judge', '--base-url', server.url, '--ladder', 'hpf7', '--dataset', 'riddles,boolq', '--data', RIDDLES, '--data', BOOLQ, '--limit', '2', '--json', '--out', out, '--store', join(dir, 's.db')]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { items: number; levels: { level: number; strategy: string; n: number }[] };
    expect(summary.items).toBe(4);
    expect(summary.levels.map((l) => [l.level, l.strategy, l.n])).toEqual(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge', 'restate', 'critique-revise'].map((s, i) => [i + 1, s, 4]));
    const judgeUsers = server.requests.filter((q) => q.messages[0]?.content === JUDGE_PROMPT).map((q) => q.messages[1]!.content);
    expect(judgeUsers).toHaveLength(4 * 7);
    const items = [
      ...riddles.slice(0, 2).map((x) => ({ input: genericInput(x.question), entries: packJson('generic-levels.json'), gold: x.answer ? 'True' : 'False' })),
      ...boolqRecords.map((x) => ({ input: { passage: x.passage, question: x.question }, entries: packJson('boolq-levels.json'), gold: x.answer })),
    ];
    const helperPrompts = server.requests.filter((q) => q.messages[0]?.content !== JUDGE_PROMPT).map((q) => q.messages[0]!.content);
    for (const item of items) {
      const want = expectedLevels(item.entries, item.input);
      expect(judgeUsers).toContain(`${want.restate.prompt}\nAnswer: ${item.gold}\nMulti-step prompts: 0`);
      expect(judgeUsers).toContain(`${want.critique.prompt}\nAnswer: ${item.gold}\nMulti-step prompts: 2`);
      for (const p of want.critique.helpers) expect(helperPrompts).toContain(p);
    }
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as JudgeRecord);
    expect(lines.filter((l) => l.level === 7).every((l) => l.helperCalls.length === 2 && l.steps === '2')).toBe(true);
  });
});
