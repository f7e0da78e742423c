/**
 * Adaptive HPF cases that the mutation run of ladder/adaptive.ts showed untested: reference mode
 * solved at iteration m with no earlier failure (hpt.md §2.3 (a), (c): there is no failed attempt to re-parse), the
 * selector's call record and context, the selection history handed to the selector, sample meta, `taskTemplate`'s
 * fallbacks and the error codes. Expected values follow hpt.md §2.3 and the documented contracts, computed by hand.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AdaptiveEngine,
  HptError,
  loadPromptPack,
  taskTemplate,
  type GradedOutput,
  type LadderLevel,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type PromptPack,
  type Sample,
  type Scorer,
  type Selection,
  type SelectionContext,
  type Selector,
} from '@hpt-bench/core';
import { hpfLevels } from '../helpers/ladder.js';
import { ROOT } from '../helpers/cli.js';

const boolqPack = () => loadPromptPack(join(ROOT, 'plugins/hpt-datasets/packs', 'boolq.json'));
const exact: Scorer = {
  id: 'exact',
  score: (_s: Sample, o: GradedOutput) => ({ solved: o.completion === 'RIGHT', score: o.completion === 'RIGHT' ? 1 : 0, extracted: o.completion }),
};
const sample: Sample = { id: 'b1', index: 0, input: { passage: 'Milk is kept cold.', question: 'is milk kept cold' }, target: true };
const PENALTY = 5 + 1.71; // m + HPI_Dataset (BoolQ)

/** The evaluated model: "RIGHT" on the graded call of `level`, "wrong@<level>" on other graded calls. */
function evaluated(level: number): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'evaluated',
    requests,
    async generate(r) {
      requests.push(r);
      const c = r.context!;
      const text = c.purpose === 'graded' ? (c.level === level ? 'RIGHT' : `wrong@${c.level}`) : `notes ${c.purpose}`;
      return { text, usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop' };
    },
  };
}

/** A selector answering a script of levels; `raw` only when `withRaw`; records what it saw. */
function scripted(levels: (number | null)[], withRaw = true): Selector & { seen: SelectionContext[] } {
  const seen: SelectionContext[] = [];
  return {
    id: 'script',
    seen,
    async select(ctx): Promise<Selection> {
      seen.push(ctx);
      const level = levels[ctx.iteration - 1] ?? null;
      return withRaw ? { level, raw: `pick ${level}` } : { level };
    },
  };
}

/** A selector that asks its model once per iteration and picks the level the model names. */
function asking(): Selector {
  return {
    id: 'asker',
    async select(ctx): Promise<Selection> {
      const { text } = await ctx.call(`choose for: ${ctx.task}`, 'Level:');
      return { level: Number(text), raw: text };
    },
  };
}

function engine(opts: { model?: Model; selector: Selector; compat?: 'strict' | 'reference'; selectorModel?: Model; pack?: PromptPack; levels?: ReturnType<typeof hpfLevels> }) {
  const model = opts.model ?? evaluated(6);
  return new AdaptiveEngine({
    levels: opts.levels ?? hpfLevels(),
    model,
    knowledgeModel: model,
    scorer: exact,
    scorerOptions: { k: 1 },
    pack: opts.pack ?? boolqPack(),
    hpiDataset: 1.71,
    compat: opts.compat ?? 'strict',
    generation: { temperature: 0.6, topP: 0.9, maxTokens: 1024 },
    seed: 42,
    selector: opts.selector,
    ...(opts.selectorModel ? { selectorModel: opts.selectorModel } : {}),
  });
}

/** A selector model replying with the given texts in turn; optional latency / cache flag on the responses. */
function selectorModel(replies: string[], extra: Partial<ModelResponse> = {}, delayMs = 0): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'sel-model',
    requests,
    async generate(r) {
      requests.push(r);
      if (delayMs > 0) await new Promise((ok) => setTimeout(ok, delayMs));
      return { text: replies[requests.length - 1] ?? '0', usage: { promptTokens: 7, completionTokens: 1 }, finishReason: 'stop', ...extra };
    },
  };
}

describe('AdaptiveEngine, reference mode: solved at iteration m', () => {
  it('with no earlier failed attempt, the penalty record has no prediction (null), and nothing crashes', async () => {
    // iterations 1-4 select nothing valid (0, 9, 7, 6), iteration 5 picks level 2, which solves
    const r = await engine({ model: evaluated(2), selector: scripted([0, 9, 7, 6, 2]), compat: 'reference' }).climb(sample);
    expect(r.attempts.length).toBe(1);
    expect(r).toMatchObject({ level: 2, iteration: 5, solved: true, prediction: 'RIGHT' });
    // (a): x + i = 2 + 5 = 7, then m + HPI_Dataset = 6.71 with a re-parse of the last failure, of which there is none
    expect(r.records).toEqual([
      { hpi: 7, solved: true, prediction: 'RIGHT' },
      { hpi: PENALTY, solved: false, prediction: null },
    ]);
    expect(r.hpi).toBeCloseTo(7 + PENALTY, 12);
  });

  it('with several earlier failures, the penalty record re-parses the latest one', async () => {
    const r = await engine({ model: evaluated(2), selector: scripted([3, 1, 4, 0, 2]), compat: 'reference' }).climb(sample);
    expect(r.attempts.map((a) => a.level)).toEqual([3, 1, 4, 2]);
    expect(r.records).toEqual([
      { hpi: 7, solved: true, prediction: 'RIGHT' },
      { hpi: PENALTY, solved: false, prediction: 'wrong@4' },
    ]);
  });
});

describe('AdaptiveEngine: what the selector sees and what is recorded', () => {
  it('each iteration gets the selections made before it (a snapshot, not the live list)', async () => {
    const sel = scripted([7, 2, 0, 3]);
    await engine({ model: evaluated(3), selector: sel }).climb(sample);
    expect(sel.seen.map((c) => c.history.length)).toEqual([0, 1, 2, 3]);
    expect(sel.seen[0]!.history).toEqual([]);
    expect(sel.seen[2]!.history.map((h) => [h.iteration, h.level, h.valid])).toEqual([
      [1, 7, false],
      [2, 2, true],
    ]);
    expect(sel.seen.map((c) => c.iteration)).toEqual([1, 2, 3, 4]);
    expect(sel.seen.every((c) => c.compat === 'strict' && c.sample === sample)).toBe(true);
    expect(sel.seen[0]!.levels).toEqual([
      { level: 1, strategy: 'role' },
      { level: 2, strategy: 'zero-shot-cot' },
      { level: 3, strategy: 'three-shot-cot' },
      { level: 4, strategy: 'least-to-most' },
      { level: 5, strategy: 'generated-knowledge' },
    ]);
  });

  it('a selection without a raw reply and without a model call records neither key', async () => {
    const r = await engine({ model: evaluated(1), selector: scripted([4, 1], false) }).climb(sample);
    for (const s of r.selections!) {
      expect(Object.keys(s).sort()).toEqual(['iteration', 'level', 'solved', 'valid']);
    }
    const withRaw = await engine({ model: evaluated(1), selector: scripted([1]) }).climb(sample);
    expect(withRaw.selections![0]).toEqual({ iteration: 1, level: 1, valid: true, raw: 'pick 1', solved: true });
  });

  it('the selector call: its request context, and its record (model id, output, usage, measured latency)', async () => {
    const sm = selectorModel(['9', '1'], {}, 25);
    const before = performance.now();
    const r = await engine({ model: evaluated(1), selector: asking(), selectorModel: sm }).climb(sample);
    const elapsed = performance.now() - before;
    expect(r).toMatchObject({ level: 1, iteration: 2, hpi: 3 });
    expect(sm.requests.map((q) => q.context)).toMatchObject([
      { sample, level: 0, strategy: 'selector:asker', purpose: 'selector', seq: 0, seed: 42, iteration: 1, scoreContext: { compat: 'strict', options: { k: 1 } } },
      { sample, level: 0, strategy: 'selector:asker', purpose: 'selector', seq: 0, seed: 42, iteration: 2 },
    ]);
    expect(sm.requests[0]!.context!.scorer).toBe(exact);
    // the generation settings go with the selector request
    expect(sm.requests[0]).toMatchObject({ temperature: 0.6, topP: 0.9, maxTokens: 1024 });
    const call = r.selections![0]!.call!;
    expect(call).toMatchObject({ seq: 0, purpose: 'selector', model: 'sel-model', output: '9', usage: { promptTokens: 7, completionTokens: 1 }, finishReason: 'stop' });
    expect(call.messages).toEqual(sm.requests[0]!.messages);
    expect('cached' in call).toBe(false);
    // no latency in the response: measured around the request (>= the model's 25 ms delay, within the climb)
    expect(call.latencyMs).toBeGreaterThanOrEqual(20);
    expect(call.latencyMs).toBeLessThanOrEqual(elapsed);
  });

  it('a response latency and a cache hit are recorded as the response gives them', async () => {
    const sm = selectorModel(['1'], { latencyMs: 123, cached: true });
    const r = await engine({ model: evaluated(1), selector: asking(), selectorModel: sm }).climb(sample);
    expect(r.selections![0]!.call).toMatchObject({ latencyMs: 123, cached: true });
  });

  it('the selector calls go to the selector model given at construction', async () => {
    const first = selectorModel(['1']);
    const second = selectorModel(['1']);
    const e = engine({ model: evaluated(1), selector: asking(), selectorModel: second });
    expect(e.selectorModel).toBe(second);
    await e.climb(sample);
    expect(first.requests.length).toBe(0);
    expect(second.requests.length).toBe(1);
  });

  it('a selector that asks for a model when none is configured fails with E_CONFIG, naming the selector', async () => {
    const e = engine({ selector: asking() });
    const err = await e.climb(sample).then(
      () => null,
      (x: unknown) => x,
    );
    expect(err).toBeInstanceOf(HptError);
    expect((err as HptError).code).toBe('E_CONFIG');
    expect((err as HptError).message).toBe('selector asker asked a model, but none was configured (--selector llm:<model-id>)');
  });

  it('the sample meta is carried to the result, solved or not', async () => {
    const meta = { scenario: 'x', replicate: 0 };
    const solved = await engine({ model: evaluated(1), selector: scripted([1]) }).climb({ ...sample, meta });
    expect(solved.meta).toEqual(meta);
    const unsolved = await engine({ selector: scripted([1, 2, 3, 4, 5]) }).climb({ ...sample, meta });
    expect(unsolved.meta).toEqual(meta);
    const none = await engine({ selector: scripted([1, 2, 3, 4, 5]) }).climb(sample);
    expect('meta' in none).toBe(false);
  });

  it('an empty ladder (m = 0) makes no selection and scores the penalty 0 + HPI_Dataset, in both modes', async () => {
    for (const compat of ['strict', 'reference'] as const) {
      const sel = scripted([1]);
      const r = await engine({ selector: sel, compat, levels: [] }).climb(sample);
      expect(sel.seen.length).toBe(0);
      expect(r).toMatchObject({ level: null, hpi: 1.71, solved: false, prediction: null, attempts: [], selections: [] });
      expect(r.records).toBeUndefined();
    }
  });
});

describe('taskTemplate (the plain task text of the selector)', () => {
  const levels = hpfLevels();
  const base = (strategies: PromptPack['strategies'], task?: string): PromptPack => ({ id: 'p', cue: 'Answer:', strategies, ...(task !== undefined ? { task } : {}) });

  it('the pack’s task wins over the level-1 template', () => {
    expect(taskTemplate({ pack: base({ role: { template: 'T1 {q}' } }, 'TASK {q}'), levels })).toBe('TASK {q}');
  });

  it('no task: the level-1 template, else the first step of its chain', () => {
    expect(taskTemplate({ pack: base({ role: { template: 'T1 {q}', steps: [{ template: 'S1', pred: null, cue: '' }] } }), levels })).toBe('T1 {q}');
    expect(taskTemplate({ pack: base({ role: { steps: [{ template: 'S1 {q}', pred: null, cue: '' }, { template: 'S2', pred: 1, cue: '' }] } }), levels })).toBe('S1 {q}');
  });

  it('neither: HptError E_CONFIG naming the pack (also for an empty chain or an empty ladder)', () => {
    const cases: [PromptPack, LadderLevel[]][] = [
      [base({ role: {} }), levels],
      [base({ role: { steps: [] } }), levels],
      [base({}), levels],
      [base({ role: { template: 'T' } }), []],
    ];
    for (const [pack, lv] of cases) {
      let err: unknown;
      try {
        taskTemplate({ pack, levels: lv });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(HptError);
      expect((err as HptError).code).toBe('E_CONFIG');
      expect((err as HptError).message).toBe('prompt pack p has no "task" template (the plain task text the selector sees) and no level-1 template to use instead');
    }
  });

  it('the climb fills the task template from the sample input (pack without task: the role template)', async () => {
    const pack: PromptPack = { ...boolqPack() };
    delete (pack as { task?: string }).task;
    const sel = scripted([1]);
    await engine({ model: evaluated(1), selector: sel, pack }).climb(sample);
    const roleTemplate = pack.strategies['role']!.template!;
    expect(sel.seen[0]!.task).toBe(roleTemplate.replace('{passage}', 'Milk is kept cold.').replace('{question}', 'is milk kept cold'));
  });
});
