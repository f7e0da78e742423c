/**
 * Manual-ladder cases that the mutation run of ladder/engine.ts showed untested: `solved` of an
 * unsolved sample, calls that complete out of order, the per-replicate seed offset, the request context and call
 * record, the system template, sample meta, notes/iteration on attempts, `meanTokenProb` and `sumUsage`.
 * Expected values follow hpt.md §2.1-2.2 (Algorithm 1), §6 (message assembly), §9 #10 (mean token probability) and
 * the documented contracts, computed by hand.
 */
import { describe, expect, it } from 'vitest';
import {
  LadderEngine,
  meanTokenProb,
  sumUsage,
  type CallPurpose,
  type GenerationSettings,
  type GradedOutput,
  type LadderLevel,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type PromptPack,
  type Sample,
  type Scorer,
  type Strategy,
  type StrategyContext,
} from '@hpt-bench/core';

const GEN: GenerationSettings = { temperature: 0.6, topP: 0.9, maxTokens: 1024 };

/** A scorer: solved iff the completion is "RIGHT"; extracted = the completion upper-cased (to tell it apart). */
const scorer: Scorer & { seen: { output: GradedOutput; ctx: unknown }[] } = {
  id: 'right',
  seen: [],
  score(_s: Sample, o: GradedOutput, ctx) {
    this.seen.push({ output: o, ctx });
    return { solved: o.completion === 'RIGHT', score: o.completion === 'RIGHT' ? 1 : 0.25, extracted: o.completion.toUpperCase() };
  },
};

/** A one-call strategy: sends `{q}` filled as a graded call with the pack's cue. */
function single(id: string, purpose: CallPurpose = 'graded'): Strategy {
  return {
    id,
    async run(ctx: StrategyContext) {
      const text = ctx.fill('{q}');
      const r = await ctx.call(purpose, text, ctx.pack.cue);
      return { graded: { promptText: r.promptText, completion: r.text, cue: ctx.pack.cue } };
    },
  };
}

const pack = (extra: Partial<PromptPack> = {}): PromptPack => ({ id: 'p', cue: 'Answer:', strategies: { a: { template: '{q}' }, b: { template: '{q}' }, c: { template: '{q}' } }, ...extra });
const levels = (n = 3): LadderLevel[] => ['a', 'b', 'c'].slice(0, n).map((id, i) => ({ level: i + 1, strategyId: id, strategy: single(id) }));

/** A model answering by a function of the request; records every request. Optional per-call delay in ms. */
function model(reply: (r: ModelRequest, i: number) => string | Partial<ModelResponse>, delay?: (r: ModelRequest, i: number) => number): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'mock-model',
    requests,
    async generate(r) {
      const i = requests.length;
      requests.push(r);
      const d = delay?.(r, i) ?? 0;
      if (d > 0) await new Promise((ok) => setTimeout(ok, d));
      const out = reply(r, i);
      const o = typeof out === 'string' ? { text: out } : out;
      return { text: '', usage: { promptTokens: 2, completionTokens: 3 }, finishReason: 'stop', ...o };
    },
  };
}

function engine(m: Model, opts: { levels?: LadderLevel[]; pack?: PromptPack; generation?: GenerationSettings; compat?: 'strict' | 'reference'; knowledgeModel?: Model } = {}) {
  return new LadderEngine({
    levels: opts.levels ?? levels(),
    model: m,
    knowledgeModel: opts.knowledgeModel ?? m,
    scorer,
    scorerOptions: { threshold: 0.5 },
    pack: opts.pack ?? pack(),
    hpiDataset: 2.52,
    compat: opts.compat ?? 'strict',
    generation: opts.generation ?? GEN,
    seed: 7,
  });
}

const sample: Sample = { id: 's1', index: 4, input: { q: 'What?' }, target: 'RIGHT' };

describe('LadderEngine.climb: the recorded outcome (hpt.md §2.1-2.2)', () => {
  it('an unsolved sample is not solved: level null, solved false, hpi m + HPI_Dataset, the last level’s prediction', async () => {
    const m = model((r) => `wrong ${r.context!.level}`);
    const res = await engine(m).climb(sample);
    expect(res.solved).toBe(false);
    expect(res.level).toBeNull();
    expect(res.hpi).toBeCloseTo(3 + 2.52, 12);
    expect(res.prediction).toBe('WRONG 3');
    expect(res.attempts.map((a) => [a.level, a.solved, a.score])).toEqual([
      [1, false, 0.25],
      [2, false, 0.25],
      [3, false, 0.25],
    ]);
    expect(res).toMatchObject({ sampleId: 's1', index: 4, target: 'RIGHT' });
  });

  it('a solved sample is solved at the first solving level, with that level’s prediction', async () => {
    const res = await engine(model((r) => (r.context!.level >= 2 ? 'RIGHT' : 'no'))).climb(sample);
    expect(res).toMatchObject({ solved: true, level: 2, hpi: 2, prediction: 'RIGHT', sampleId: 's1', index: 4, target: 'RIGHT' });
    expect(res.attempts.map((a) => a.solved)).toEqual([false, true]);
  });

  it('an empty ladder (m = 0) scores HPI_Dataset with a null prediction and no attempt', async () => {
    const e = engine(model(() => 'x'), { levels: [] });
    expect(e.levels).toEqual([]);
    expect(e.unsolvedHpi).toBe(2.52);
    const res = await e.climb(sample);
    expect(res).toMatchObject({ solved: false, level: null, hpi: 2.52, prediction: null, attempts: [] });
  });

  it('the sample meta goes with the result, solved or not; no meta key without one', async () => {
    const meta = { scenario: 'x', replicate: 0 };
    expect((await engine(model(() => 'RIGHT')).climb({ ...sample, meta })).meta).toEqual(meta);
    expect((await engine(model(() => 'no')).climb({ ...sample, meta })).meta).toEqual(meta);
    expect('meta' in (await engine(model(() => 'no')).climb(sample))).toBe(false);
    expect('meta' in (await engine(model(() => 'RIGHT')).climb(sample))).toBe(false);
  });

  it('levels and unsolvedHpi follow the setup (m = number of levels)', () => {
    const e = engine(model(() => 'x'), { levels: levels(2) });
    expect(e.levels.map((l) => l.level)).toEqual([1, 2]);
    expect(e.unsolvedHpi).toBeCloseTo(2 + 2.52, 12);
  });
});

describe('LadderEngine.attempt: calls and records', () => {
  /** A strategy making two calls at once (an intermediate and the graded one), grading the second. */
  const parallel: Strategy = {
    id: 'par',
    async run(ctx) {
      const [first, second] = await Promise.all([ctx.call('intermediate', 'first', ''), ctx.call('graded', 'second', 'Answer:')]);
      return { graded: { promptText: second.promptText, completion: `${first.text}+${second.text}`, cue: 'Answer:' } };
    },
  };

  it('calls that complete out of order are recorded in the order they were made (seq)', async () => {
    // the first call answers after the second
    const m = model((r) => `out${r.context!.seq}`, (r) => (r.context!.seq === 0 ? 40 : 0));
    const a = await engine(m).attempt(sample, { level: 1, strategyId: 'par', strategy: parallel });
    expect(a.calls.map((c) => [c.seq, c.purpose, c.output])).toEqual([
      [0, 'intermediate', 'out0'],
      [1, 'graded', 'out1'],
    ]);
    expect(a.graded.completion).toBe('out0+out1');
    expect(m.requests.map((r) => r.context!.seq)).toEqual([0, 1]);
  });

  it('the request carries the generation settings and the full context (sample, level, strategy, purpose, seq, scorer, seed)', async () => {
    const m = model(() => 'RIGHT');
    await engine(m).attempt(sample, { level: 2, strategyId: 'b', strategy: single('b') });
    const r = m.requests[0]!;
    expect(r).toMatchObject({ temperature: 0.6, topP: 0.9, maxTokens: 1024 });
    expect(r.context).toEqual({
      sample,
      level: 2,
      strategy: 'b',
      purpose: 'graded',
      seq: 0,
      scorer,
      scoreContext: { compat: 'strict', options: { threshold: 0.5 } },
      seed: 7,
    });
    expect('iteration' in r.context!).toBe(false);
    expect(r.logprobs).toBeUndefined();
    // hpt.md §6, strict: system message on graded calls, then the filled template, a newline and the cue
    expect(r.messages).toEqual([
      { role: 'system', content: 'Provide the answer at the start of first sentence' },
      { role: 'user', content: 'What?\nAnswer:' },
    ]);
  });

  it('an adaptive iteration is recorded on the attempt and passed in the context', async () => {
    const m = model(() => 'RIGHT');
    const a = await engine(m).attempt(sample, { level: 1, strategyId: 'a', strategy: single('a') }, 3);
    expect(a.iteration).toBe(3);
    expect(m.requests[0]!.context!.iteration).toBe(3);
    const b = await engine(m).attempt(sample, { level: 1, strategyId: 'a', strategy: single('a') });
    expect('iteration' in b).toBe(false);
  });

  it('the attempt: level, strategy id, the verdict, the graded output; the scorer gets compat and options', async () => {
    scorer.seen.length = 0;
    const m = model(() => 'RIGHT');
    const a = await engine(m, { compat: 'strict' }).attempt(sample, { level: 2, strategyId: 'b', strategy: single('b') });
    expect(a).toMatchObject({ level: 2, strategy: 'b', solved: true, score: 1, extracted: 'RIGHT', graded: { promptText: 'What?\nAnswer:', completion: 'RIGHT', cue: 'Answer:' } });
    expect('notes' in a).toBe(false);
    expect(scorer.seen[0]!.ctx).toEqual({ compat: 'strict', options: { threshold: 0.5 } });
  });

  it('notes of the strategy are kept on the attempt', async () => {
    const noted: Strategy = {
      id: 'noted',
      async run(ctx) {
        const r = await ctx.call('graded', 'x', '');
        return { graded: { promptText: r.promptText, completion: r.text, cue: '' }, notes: { why: 'because' } };
      },
    };
    const a = await engine(model(() => 'no')).attempt(sample, { level: 1, strategyId: 'noted', strategy: noted });
    expect(a.notes).toEqual({ why: 'because' });
  });

  it('the call record: seq, purpose, model id, messages, output, usage, finish reason; latency measured or taken from the response', async () => {
    const m = model(() => ({ text: 'RIGHT', finishReason: 'length', usage: { promptTokens: 11, completionTokens: 13 } }), () => 25);
    const t0 = performance.now();
    const a = await engine(m).attempt(sample, { level: 1, strategyId: 'a', strategy: single('a') });
    const elapsed = performance.now() - t0;
    const c = a.calls[0]!;
    expect(c).toMatchObject({ seq: 0, purpose: 'graded', model: 'mock-model', output: 'RIGHT', usage: { promptTokens: 11, completionTokens: 13 }, finishReason: 'length' });
    expect(c.messages).toEqual(m.requests[0]!.messages);
    expect(c.latencyMs).toBeGreaterThanOrEqual(20);
    expect(c.latencyMs).toBeLessThanOrEqual(elapsed);
    expect('cached' in c).toBe(false);
    expect('meanTokenProb' in c).toBe(false);
    const fixed = await engine(model(() => ({ text: 'RIGHT', latencyMs: 321, cached: true }))).attempt(sample, { level: 1, strategyId: 'a', strategy: single('a') });
    expect(fixed.calls[0]).toMatchObject({ latencyMs: 321, cached: true });
  });

  it('ctx.call returns the completion, the prompt text, the raw response and the record', async () => {
    let got: Awaited<ReturnType<StrategyContext['call']>> | undefined;
    const probe: Strategy = {
      id: 'probe',
      async run(ctx) {
        got = await ctx.call('graded', 'T', 'Answer:');
        return { graded: { promptText: got.promptText, completion: got.text, cue: 'Answer:' } };
      },
    };
    const a = await engine(model(() => ({ text: 'RIGHT', finishReason: 'stop' }))).attempt(sample, { level: 1, strategyId: 'probe', strategy: probe });
    expect(got!.text).toBe('RIGHT');
    expect(got!.promptText).toBe('T\nAnswer:');
    expect(got!.response).toMatchObject({ text: 'RIGHT', finishReason: 'stop' });
    expect(got!.record).toBe(a.calls[0]);
  });

  it('logprobs: requested only when asked; the record then holds the mean token probability (hpt.md §9 #10)', async () => {
    const lp: Strategy = {
      id: 'lp',
      async run(ctx) {
        const k = await ctx.call('knowledge', 'K', '', { logprobs: true });
        const g = await ctx.call('graded', 'G', 'Answer:', { logprobs: false });
        return { graded: { promptText: g.promptText, completion: k.text, cue: 'Answer:' } };
      },
    };
    const m = model((r) => (r.logprobs ? { text: 'k', logprobs: [Math.log(0.5), Math.log(0.25)] } : 'g'));
    const a = await engine(m).attempt(sample, { level: 1, strategyId: 'lp', strategy: lp });
    expect(m.requests.map((r) => r.logprobs)).toEqual([true, false]);
    // (0.5 + 0.25) / 2
    expect(a.calls[0]!.meanTokenProb).toBeCloseTo(0.375, 12);
    expect('meanTokenProb' in a.calls[1]!).toBe(false);
    // asked for but none returned: null
    const none = await engine(model(() => 'k')).attempt(sample, { level: 1, strategyId: 'lp', strategy: lp });
    expect(none.calls[0]!.meanTokenProb).toBeNull();
  });

  it('knowledge calls go to the knowledge model, the others to the evaluated model, as given at construction', async () => {
    const lp: Strategy = {
      id: 'k',
      async run(ctx) {
        await ctx.call('knowledge', 'K', '');
        const g = await ctx.call('graded', 'G', 'Answer:');
        return { graded: { promptText: g.promptText, completion: g.text, cue: 'Answer:' } };
      },
    };
    const main = model(() => 'main');
    const know = { ...model(() => 'know'), id: 'know-model' };
    const e = engine(main, { knowledgeModel: know });
    const a = await e.attempt(sample, { level: 1, strategyId: 'k', strategy: lp });
    expect(a.calls.map((c) => [c.purpose, c.model, c.output])).toEqual([
      ['knowledge', 'know-model', 'know'],
      ['graded', 'mock-model', 'main'],
    ]);
    const main2 = model(() => 'main2');
    const know2 = model(() => 'know2');
    const b = await engine(main2, { knowledgeModel: know2 }).attempt(sample, { level: 1, strategyId: 'k', strategy: lp });
    expect(b.calls.map((c) => c.output)).toEqual(['know2', 'main2']);
    expect(main.requests.length).toBe(1);
    expect(know.requests.length).toBe(1);
  });

  it('ctx: the pack entry, pack, compat, level and id; fill reads the sample input, overridden by the given vars', async () => {
    let seen: StrategyContext | undefined;
    let filled = '';
    const probe: Strategy = {
      id: 'probe',
      async run(ctx) {
        seen = ctx;
        filled = ctx.fill('{q} / {a} / {b}', { b: 'B' });
        const g = await ctx.call('graded', filled, '');
        return { graded: { promptText: g.promptText, completion: g.text, cue: '' } };
      },
    };
    const p = pack({ strategies: { probe: { template: 'T' } } });
    await engine(model(() => 'x'), { pack: p, compat: 'reference' }).attempt({ ...sample, input: { q: 'Q', a: 'A', b: 'from input' } }, { level: 3, strategyId: 'probe', strategy: probe });
    expect(filled).toBe('Q / A / B');
    expect(seen!.entry).toEqual({ template: 'T' });
    expect(seen!.pack).toBe(p);
    expect(seen!.compat).toBe('reference');
    expect([seen!.level, seen!.strategyId, seen!.sample.id]).toEqual([3, 'probe', 's1']);
  });

  it('a pack system template is filled from the sample input and replaces the default system message of graded calls', async () => {
    const m = model(() => 'x');
    await engine(m, { pack: pack({ system: 'You are {role}.' }) }).attempt({ ...sample, input: { q: 'Q', role: 'a judge' } }, { level: 1, strategyId: 'a', strategy: single('a') });
    expect(m.requests[0]!.messages).toEqual([
      { role: 'system', content: 'You are a judge.' },
      { role: 'user', content: 'Q\nAnswer:' },
    ]);
  });
});

describe('LadderEngine: per-replicate endpoint seed (--replicates n)', () => {
  const seeded = { ...GEN, seed: 100 };
  const run = async (meta: Sample['meta'], generation: GenerationSettings) => {
    const m = model(() => 'x');
    await engine(m, { generation }).attempt({ ...sample, ...(meta ? { meta } : {}) }, { level: 1, strategyId: 'a', strategy: single('a') });
    return m.requests[0]!;
  };

  it('replicate r of a sample is sent seed + r, so replicates are different draws', async () => {
    expect((await run({ replicate: 1 }, seeded)).seed).toBe(101);
    expect((await run({ replicate: 3 }, seeded)).seed).toBe(103);
  });

  it('replicate 0, no replicate and a non-numeric replicate keep the configured seed', async () => {
    expect((await run({ replicate: 0 }, seeded)).seed).toBe(100);
    expect((await run(undefined, seeded)).seed).toBe(100);
    expect((await run({ replicate: '2' }, seeded)).seed).toBe(100);
  });

  it('without a configured seed no seed is sent, whatever the replicate', async () => {
    expect('seed' in (await run({ replicate: 2 }, GEN))).toBe(false);
    expect('seed' in (await run(undefined, GEN))).toBe(false);
  });
});

describe('meanTokenProb and sumUsage', () => {
  it('meanTokenProb: mean of exp(logprob); null without logprobs', () => {
    expect(meanTokenProb(undefined)).toBeNull();
    expect(meanTokenProb([])).toBeNull();
    expect(meanTokenProb([0])).toBe(1);
    expect(meanTokenProb([Math.log(0.2), Math.log(0.4), Math.log(0.9)])).toBeCloseTo(0.5, 12);
  });

  it('sumUsage adds prompt and completion tokens over calls', () => {
    expect(sumUsage([])).toEqual({ promptTokens: 0, completionTokens: 0 });
    expect(
      sumUsage([
        { usage: { promptTokens: 3, completionTokens: 5 } },
        { usage: { promptTokens: 10, completionTokens: 1 } },
      ]),
    ).toEqual({ promptTokens: 13, completionTokens: 6 });
  });
});

describe('LadderEngine: ctx.score, ctx.entryOf and a level’s packEntry (issue 27, item 4)', () => {
  it('ctx.score grades a candidate with the run’s scorer (compat, options, pack cue by default) and records nothing', async () => {
    scorer.seen.length = 0;
    const verdicts: unknown[] = [];
    const verify: Strategy = {
      id: 'verify',
      async run(ctx) {
        const first = await ctx.call('graded', ctx.fill('{q}'), ctx.pack.cue);
        verdicts.push(await ctx.score('RIGHT'), await ctx.score('nope', 'Level:'));
        return { graded: { promptText: first.promptText, completion: first.text, cue: ctx.pack.cue } };
      },
    };
    const m = model(() => 'wrong');
    const a = await engine(m, { compat: 'reference' }).attempt(sample, { level: 1, strategyId: 'a', strategy: verify });
    expect(verdicts).toEqual([
      { solved: true, score: 1, extracted: 'RIGHT' },
      { solved: false, score: 0.25, extracted: 'NOPE' },
    ]);
    // the two ctx.score calls, then the attempt's own grading; only the model call is recorded
    expect(scorer.seen.map((s) => s.output)).toEqual([
      { promptText: '', completion: 'RIGHT', cue: 'Answer:' },
      { promptText: '', completion: 'nope', cue: 'Level:' },
      { promptText: expect.any(String), completion: 'wrong', cue: 'Answer:' },
    ]);
    expect(scorer.seen[0]!.ctx).toEqual({ compat: 'reference', options: { threshold: 0.5 } });
    expect(a.calls).toHaveLength(1);
    expect(a.solved).toBe(false);
    expect(m.requests).toHaveLength(1);
  });

  it('ctx.entryOf reads another strategy’s entry; unknown ids and Object.prototype names are undefined', async () => {
    let got: unknown[] = [];
    const probe: Strategy = {
      id: 'probe',
      async run(ctx) {
        got = [ctx.entryOf('b'), ctx.entryOf('zz'), ctx.entryOf('constructor'), ctx.entryOf('toString')];
        const r = await ctx.call('graded', 'x', '');
        return { graded: { promptText: r.promptText, completion: r.text, cue: '' } };
      },
    };
    const p = pack({ strategies: { probe: { template: 'P' }, b: { template: 'B {q}' } } });
    await engine(model(() => 'x'), { pack: p }).attempt(sample, { level: 1, strategyId: 'probe', strategy: probe });
    expect(got).toEqual([{ template: 'B {q}' }, undefined, undefined, undefined]);
  });

  it('a level with packEntry reads that entry as ctx.entry; without it, its own; the requests follow the entry', async () => {
    const seen: unknown[] = [];
    const byEntry: Strategy = {
      id: 'again',
      async run(ctx) {
        seen.push(ctx.entry);
        const r = await ctx.call('graded', ctx.fill(ctx.entry?.template ?? 'none'), ctx.pack.cue);
        return { graded: { promptText: r.promptText, completion: r.text, cue: ctx.pack.cue } };
      },
    };
    const p = pack({ strategies: { a: { template: 'A {q}' }, again: { template: 'OWN {q}' } } });
    const m = model(() => 'x');
    const e = engine(m, { pack: p });
    await e.attempt(sample, { level: 2, strategyId: 'again', strategy: byEntry, packEntry: 'a' });
    await e.attempt(sample, { level: 2, strategyId: 'again', strategy: byEntry });
    expect(seen).toEqual([{ template: 'A {q}' }, { template: 'OWN {q}' }]);
    expect(m.requests.map((r) => r.messages.at(-1)!.content)).toEqual(['A What?\nAnswer:', 'OWN What?\nAnswer:']);
    // the level's own id stays the strategy id (records, context)
    expect(m.requests[0]!.context!.strategy).toBe('again');
  });
});
