/**
 * The parts of ladder/engine.ts the mutation run found untested by unit tests (they were covered only end to end): the
 * opt-in extractor model (`run --extractor`, issue #23: asked only in strict mode when the scorer's rules read no
 * answer; its call recorded with purpose `extract`; its reply read by the same scorer), `replyOf` (issue #24: thinking
 * set apart in strict mode, the provider's reasoning field kept in both) and `callRecordOf` (the stored call).
 * Expected values follow the documented contracts, written out by hand.
 */
import { describe, expect, it } from 'vitest';
import {
  callRecordOf,
  LadderEngine,
  replyOf,
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
  type Verdict,
} from '@hpt-bench/core';
import { EXTRACTOR_SYSTEM } from '../../packages/core/src/ladder/extractor.js';

const GEN: GenerationSettings = { temperature: 0.6, topP: 0.9, maxTokens: 1024, reasoningEffort: 'high', maxCompletionTokens: 4096 };

/** Reads an option letter A-D standing alone; else rule none. Solved iff the letter is the target. */
const letters: Scorer = {
  id: 'letters',
  score(s: Sample, o: GradedOutput): Verdict {
    const m = /^\s*([A-D])\s*$/.exec(o.completion);
    if (!m) return { solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } };
    return { solved: m[1] === s.target, score: m[1] === s.target ? 1 : 0, extracted: m[1]!, extraction: { rule: 'letter', span: [0, 1] } };
  },
  extract(_s: Sample, o: GradedOutput) {
    const m = /^\s*([A-D])\s*$/.exec(o.completion);
    return m ? { value: m[1]!, rule: 'letter', span: [0, 1] as [number, number] } : null;
  },
};

/** One graded call of `{q}`. */
const single: Strategy = {
  id: 'a',
  async run(ctx: StrategyContext) {
    const r = await ctx.call('graded', ctx.fill('{q}'), ctx.pack.cue);
    return { graded: { promptText: r.promptText, completion: r.text, cue: ctx.pack.cue } };
  },
};

const PACK: PromptPack = { id: 'p', cue: 'Answer:', strategies: { a: { template: '{q}' } } };
const LEVELS: LadderLevel[] = [{ level: 1, strategyId: 'a', strategy: single }];
const sample: Sample = { id: 's1', index: 0, input: { q: 'Which letter?' }, target: 'B' };

/** A model answering `reply(request)`, recording the requests. */
function model(id: string, reply: (r: ModelRequest) => string | Partial<ModelResponse>): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id,
    requests,
    async generate(r) {
      requests.push(r);
      const out = reply(r);
      return { text: '', usage: { promptTokens: 3, completionTokens: 1 }, finishReason: 'stop', latencyMs: 5, ...(typeof out === 'string' ? { text: out } : out) };
    },
  };
}

function engine(evaluated: Model, options: { extractor?: Model; compat?: 'strict' | 'reference'; scorer?: Scorer } = {}) {
  return new LadderEngine({
    levels: LEVELS,
    model: evaluated,
    knowledgeModel: evaluated,
    ...(options.extractor ? { extractor: options.extractor } : {}),
    scorer: options.scorer ?? letters,
    scorerOptions: { k: 1 },
    pack: PACK,
    hpiDataset: 1,
    compat: options.compat ?? 'strict',
    generation: GEN,
    seed: 11,
  });
}

describe('the extractor model (run --extractor)', () => {
  it('asked when the strict rules read nothing: its call is recorded (purpose extract, next seq) and its answer scored', async () => {
    const evaluated = model('m', () => 'After some thought, I would go with the second option.');
    const extractor = model('x', () => ' B \n');
    const attempt = await engine(evaluated, { extractor }).attempt(sample, LEVELS[0]!);
    expect(attempt).toMatchObject({ solved: true, score: 1, extracted: 'B', extraction: { rule: 'model', span: null, by: 'x' } });
    expect(attempt.calls.map((c) => [c.seq, c.purpose, c.model, c.output])).toEqual([
      [0, 'graded', 'm', 'After some thought, I would go with the second option.'],
      [1, 'extract', 'x', ' B \n'],
    ]);
    const [req] = extractor.requests;
    // temperature 0, the evaluated model's reasoning settings left out, the rest of the generation settings kept
    expect(req).toMatchObject({ temperature: 0, topP: 0.9, maxTokens: 1024 });
    expect(req).not.toHaveProperty('reasoningEffort');
    expect(req).not.toHaveProperty('maxCompletionTokens');
    expect(req!.messages[0]).toEqual({ role: 'system', content: EXTRACTOR_SYSTEM });
    expect(req!.messages[1]!.content).toBe('Question:\nWhich letter?\nAnswer:\n\nReply:\nAfter some thought, I would go with the second option.\n\nFinal answer given by the reply:');
    expect(req!.context).toMatchObject({ sample, level: 1, strategy: 'a', purpose: 'extract', seq: 1, scorer: letters, scoreContext: { compat: 'strict', options: { k: 1 } }, seed: 11 });
    expect(req!.context).not.toHaveProperty('iteration');
    expect(attempt.calls[1]!.messages).toEqual(req!.messages);
  });

  it('passes the iteration of an adaptive attempt on to the extractor call', async () => {
    const extractor = model('x', () => 'C');
    await engine(model('m', () => 'hmm'), { extractor }).attempt(sample, LEVELS[0]!, 2);
    expect(extractor.requests[0]!.context).toMatchObject({ iteration: 2 });
  });

  it('an extractor that says NONE (or nothing) leaves the verdict, marked as asked', async () => {
    for (const reply of ['NONE', '', 'n/a']) {
      const attempt = await engine(model('m', () => 'no idea'), { extractor: model('x', () => reply) }).attempt(sample, LEVELS[0]!);
      expect(attempt).toMatchObject({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null, by: 'x' } });
      expect(attempt.calls.map((c) => c.purpose)).toEqual(['graded', 'extract']);
    }
  });

  it('an extractor reply the scorer cannot read either leaves the verdict, marked as asked', async () => {
    const attempt = await engine(model('m', () => 'no idea'), { extractor: model('x', () => 'the second one') }).attempt(sample, LEVELS[0]!);
    expect(attempt).toMatchObject({ solved: false, extracted: null, extraction: { rule: 'none', span: null, by: 'x' } });
  });

  it('a wrong extracted answer is scored as wrong (the extractor reads, it does not grade)', async () => {
    const attempt = await engine(model('m', () => 'no idea'), { extractor: model('x', () => 'D') }).attempt(sample, LEVELS[0]!);
    expect(attempt).toMatchObject({ solved: false, score: 0, extracted: 'D', extraction: { rule: 'model', span: null, by: 'x' } });
  });

  it('not asked when the rules read an answer, in reference mode, or for a scorer without extract', async () => {
    const cases: [string, { compat?: 'strict' | 'reference'; scorer?: Scorer }, string][] = [
      ['the rules read one', {}, 'A'],
      ['reference mode', { compat: 'reference' }, 'no idea'],
      ['no extract', { scorer: { id: 'plain', score: letters.score } }, 'no idea'],
    ];
    for (const [why, options, reply] of cases) {
      const extractor = model('x', () => 'B');
      const attempt = await engine(model('m', () => reply), { extractor, ...options }).attempt(sample, LEVELS[0]!);
      expect(extractor.requests, why).toHaveLength(0);
      expect(attempt.calls.map((c) => c.purpose), why).toEqual(['graded']);
      expect(attempt.extraction?.rule, why).not.toBe('model');
    }
  });
});

describe('the attempt record', () => {
  it('carries the verdict\'s extraction only when the scorer gives one', async () => {
    const bare: Scorer = { id: 'bare', score: (_s, o) => ({ solved: o.completion === 'B', score: 1, extracted: o.completion }) };
    const attempt = await engine(model('m', () => 'B'), { scorer: bare }).attempt(sample, LEVELS[0]!);
    expect(attempt).toMatchObject({ solved: true, extracted: 'B' });
    expect(attempt).not.toHaveProperty('extraction');
    expect((await engine(model('m', () => 'B')).attempt(sample, LEVELS[0]!)).extraction).toEqual({ rule: 'letter', span: [0, 1] });
  });
});

describe('replyOf (how the ladder reads a reply)', () => {
  const response = (over: Partial<ModelResponse>): ModelResponse => ({ text: '', usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop', ...over });

  it('strict: a <think> block is set apart as reasoning, after the provider reasoning field', () => {
    expect(replyOf(response({ text: '<think>count the legs</think>\nB', reasoning: 'field thoughts' }), 'strict')).toEqual({ answer: 'B', extra: { reasoning: 'field thoughts\n\ncount the legs' } });
    expect(replyOf(response({ text: '<think>only inline</think>B' }), 'strict')).toEqual({ answer: 'B', extra: { reasoning: 'only inline' } });
  });

  it('strict: a reply that ended inside its thinking has no answer and is marked truncated', () => {
    const r = replyOf(response({ text: '<think>still counting' }), 'strict');
    expect(r.answer).toBe('');
    expect(r.extra.truncatedThinking).toBe(true);
    expect(r.extra.reasoning).toBe('still counting');
  });

  it('reference: the whole text is the answer; only the provider field is kept as reasoning', () => {
    expect(replyOf(response({ text: '<think>x</think>B', reasoning: 'field' }), 'reference')).toEqual({ answer: '<think>x</think>B', extra: { reasoning: 'field' } });
    expect(replyOf(response({ text: '<think>x', reasoning: '  ' }), 'reference')).toEqual({ answer: '<think>x', extra: {} });
  });

  it('no reasoning anywhere: nothing extra', () => {
    expect(replyOf(response({ text: 'B' }), 'strict')).toEqual({ answer: 'B', extra: {} });
  });
});

describe('callRecordOf (the stored call)', () => {
  const call = { seq: 3, purpose: 'graded' as const, model: 'm', messages: [{ role: 'user' as const, content: 'q' }] };

  it('keeps the response latency, finish reason, usage and cache/batch flags; logprobs give the mean token probability', () => {
    const { record, answer } = callRecordOf(call, { text: 'B', usage: { promptTokens: 4, completionTokens: 2 }, finishReason: 'length', latencyMs: 42, cached: true, batched: true, logprobs: [Math.log(0.5), Math.log(1)] }, 'strict', 0, true);
    expect(answer).toBe('B');
    expect(record).toEqual({ ...call, output: 'B', usage: { promptTokens: 4, completionTokens: 2 }, latencyMs: 42, finishReason: 'length', meanTokenProb: 0.75, cached: true, batched: true });
  });

  it('without a response latency: the wall time since started; no flags when not cached or batched; no mean without logprobs asked', () => {
    const started = performance.now() - 1000;
    const { record } = callRecordOf(call, { text: '<think>t</think>B', usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop' }, 'strict', started);
    expect(record.latencyMs).toBeGreaterThanOrEqual(1000);
    expect(record.latencyMs).toBeLessThan(60_000);
    expect(record).not.toHaveProperty('cached');
    expect(record).not.toHaveProperty('batched');
    expect(record).not.toHaveProperty('meanTokenProb');
    expect(record).toMatchObject({ output: 'B', reasoning: 't' });
  });
});
