/**
 * Unit tests of the LLM-as-a-judge core (specs/hpt.md §5.3, §5.4, §9 #22): the prompt each level is
 * judged on, obtained by running the level's strategy (BoolQ and CSQA packs; expected strings derived here from the
 * pack JSON with this file's own one-pass fill, plus literal spot checks from the spec), the judge message and gold,
 * reading scores from structured / free-text / invalid replies, the per-level aggregation, the structured-output
 * fallback, and failed ratings.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  aggregateJudge,
  buildJudgedPrompt,
  JUDGE_RESPONSE_FORMAT,
  JUDGE_SYSTEM_PROMPT,
  JudgeClient,
  judgeGold,
  judgeStepsLabel,
  judgeUserMessage,
  ModelCallError,
  parseJudgeScores,
  runJudge,
  SingleCallStrategy,
  type JudgedLevel,
  type JudgeHelperPurpose,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type PromptPack,
  type Sample,
} from '@hpt-bench/core';
import { ROOT, SHARED } from '../helpers/cli.js';
import { hpfLevels } from '../helpers/ladder.js';

interface PackStep {
  template: string;
  pred: number | null;
}
interface PackJson {
  strategies: Record<string, { template?: string; steps?: PackStep[]; knowledge?: string }>;
}

const pack = (name: string): PackJson & PromptPack => JSON.parse(readFileSync(join(ROOT, 'plugins/hpt-datasets/packs', `${name}.json`), 'utf8'));

/** This test's own one-pass `{name}` substitution (a value's braces are never re-scanned). */
function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    if (!(name in vars)) throw new Error(`test fill: no value for {${name}}`);
    return vars[name]!;
  });
}

/** A scripted helper: the completion names the call, so the wiring can be checked; every call is recorded. */
function scriptedHelper() {
  const calls: { prompt: string; purpose: string; seq: number }[] = [];
  const helper = async (prompt: string, call: { purpose: JudgeHelperPurpose; seq: number }) => {
    calls.push({ prompt, ...call });
    return `<${call.purpose} ${call.seq} of ${prompt.length} chars {pred}>`;
  };
  return { calls, helper, output: (c: { prompt: string; purpose: string; seq: number }) => `<${c.purpose} ${c.seq} of ${c.prompt.length} chars {pred}>` };
}

/** Expected prompt and helper prompts of a pack entry, computed from the pack JSON alone. */
function expectedFor(entry: PackJson['strategies'][string], input: Record<string, string>, out: (c: { prompt: string; purpose: string; seq: number }) => string) {
  if (entry.steps) {
    const outputs: string[] = [];
    const helperPrompts: string[] = [];
    entry.steps.slice(0, -1).forEach((s, i) => {
      const prompt = fill(s.template, { ...input, pred: s.pred === null ? '' : outputs[s.pred - 1]! });
      helperPrompts.push(prompt);
      outputs.push(out({ prompt, purpose: 'intermediate', seq: i }));
    });
    const last = entry.steps[entry.steps.length - 1]!;
    return { prompt: fill(last.template, { ...input, pred: last.pred === null ? '' : outputs[last.pred - 1]! }), helperPrompts, steps: String(entry.steps.length - 1) };
  }
  if (entry.knowledge) {
    const k = fill(entry.knowledge, input);
    return { prompt: fill(entry.template!, { ...input, pred: out({ prompt: k, purpose: 'knowledge', seq: 0 }) }), helperPrompts: [k], steps: '1 (for external knowledge)' };
  }
  return { prompt: fill(entry.template!, input), helperPrompts: [], steps: '0' };
}

const LEVELS = ['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge'];

/** The five HPF levels with their strategy instances, as the judge rates them. */
const judgedLevels = (): JudgedLevel[] => hpfLevels().map((l) => ({ level: l.level, strategy: l.strategyId, instance: l.strategy }));
const level = (strategy: string) => judgedLevels().find((l) => l.strategy === strategy)!;
const sampleOf = (input: Record<string, string>): Sample => ({ id: 's', index: 0, input, target: true });

describe('judged prompt per level (hpt.md §5.4, paper behaviour)', () => {
  // braces in the sample text must be inserted verbatim (one-pass substitution, hpt.md §0)
  const boolqInput = { passage: 'The {question} placeholder is literal text here. Ethanol is made from corn.', question: 'is ethanol made from corn' };
  const records = JSON.parse(readFileSync(join(SHARED, 'data/hpt-representative/csqa.json'), 'utf8')) as { question: string; choices: { text: string[] } }[];
  const csqaInput: Record<string, string> = { question: records[0]!.question, ...Object.fromEntries(records[0]!.choices.text.map((t, i) => [`text${i + 1}`, t])) };

  for (const [name, input] of [['boolq', boolqInput], ['csqa', csqaInput]] as const) {
    const p = pack(name);
    for (const strategy of LEVELS) {
      it(`${name} ${strategy}`, async () => {
        const entry = p.strategies[strategy]!;
        const h = scriptedHelper();
        const built = await buildJudgedPrompt(level(strategy), sampleOf(input), p, h.helper);
        const want = expectedFor(entry, input, h.output);
        expect(built.prompt).toBe(want.prompt);
        expect(built.steps).toBe(want.steps);
        expect(judgeStepsLabel(built.helperCalls)).toBe(want.steps);
        expect(h.calls.map((c) => c.prompt)).toEqual(want.helperPrompts);
        expect(built.helperCalls.map((c) => c.prompt)).toEqual(want.helperPrompts);
        expect(built.helperCalls.map((c) => c.output)).toEqual(h.calls.map(h.output));
        // the judged prompt is never executed: only the k-1 chain steps / the one knowledge call go to the helper
        expect(h.calls.length).toBe(strategy === 'least-to-most' ? 3 : strategy === 'generated-knowledge' ? 1 : 0);
        expect(h.calls.every((c) => c.purpose === (strategy === 'generated-knowledge' ? 'knowledge' : 'intermediate'))).toBe(true);
      });
    }
  }

  it('literal spot checks against specs/hpt.md §5.1 (BoolQ)', async () => {
    const h = scriptedHelper();
    const role = await buildJudgedPrompt(level('role'), sampleOf(boolqInput), pack('boolq'), h.helper);
    expect(role.prompt).toBe(`Based on the passage:'${boolqInput.passage}'\nAnswer True/False to the question: '${boolqInput.question}' as an Omniscent person.`);
    const ltm = await buildJudgedPrompt(level('least-to-most'), sampleOf(boolqInput), pack('boolq'), h.helper);
    // step 4 gets step 3's output (the passage part relevant to the question), hpt.md §1.3
    const step3 = `Find the part of the passage that relates to this question: '${boolqInput.question}'\nPassage: '${boolqInput.passage}'`;
    expect(h.calls[2]!.prompt).toBe(step3);
    expect(ltm.prompt).toBe(`Based on the passage, what is the answer to this question: '${boolqInput.question}'\nRelevant Information: '${h.output(h.calls[2]!)}'`);
    expect(ltm.steps).toBe('3');
    const gkp = await buildJudgedPrompt(level('generated-knowledge'), sampleOf(boolqInput), pack('boolq'), h.helper);
    expect(h.calls[3]!.prompt).toBe(`Generate Knowledge about the passage: ${boolqInput.passage}`);
    expect(gkp.prompt).toBe(`Based on the passage:'${boolqInput.passage}'\nAnswer True/False to the question: '${boolqInput.question}' using knowledge of the passage:${h.output(h.calls[3]!)}.`);
    expect(gkp.steps).toBe('1 (for external knowledge)');
  });

  it('CSQA least-to-most: step 3 gets step 2, the judged step 4 holds only the options', async () => {
    const h = scriptedHelper();
    const ltm = await buildJudgedPrompt(level('least-to-most'), sampleOf(csqaInput), pack('csqa'), h.helper);
    expect(h.calls[2]!.prompt).toContain(`Based on the analysis : '${h.output(h.calls[1]!)}'`);
    expect(ltm.prompt).toBe(`Choose the correct answer from the options: A ${csqaInput.text1}\nB ${csqaInput.text2}\nC ${csqaInput.text3}\nD ${csqaInput.text4}\nE ${csqaInput.text5}`);
  });
});

describe('the judged prompt comes from the strategy (issue 26, item 2)', () => {
  const boolqInput = { passage: 'Ethanol is made from corn.', question: 'is ethanol made from corn' };

  it('"Multi-step prompts" counts the helper calls the strategy made', () => {
    const c = (purpose: JudgeHelperPurpose) => ({ purpose });
    expect(judgeStepsLabel([])).toBe('0');
    expect(judgeStepsLabel([c('intermediate'), c('intermediate'), c('intermediate')])).toBe('3');
    expect(judgeStepsLabel([c('knowledge')])).toBe('1 (for external knowledge)');
    expect(judgeStepsLabel([c('intermediate'), c('knowledge'), c('intermediate')])).toBe('2 + 1 (for external knowledge)');
  });

  it('a helper reply reaches later prompts verbatim (blanks, thinking blocks, special tokens), as the judge always used it', async () => {
    const raw = '  <think>hmm</think>\nEthanol facts <|eot_id|>\n';
    const helper = async () => raw;
    const gk = await buildJudgedPrompt(level('generated-knowledge'), sampleOf(boolqInput), pack('boolq'), helper);
    expect(gk.prompt).toBe(fill(pack('boolq').strategies['generated-knowledge']!.template!, { ...boolqInput, pred: raw }));
    const ltm = await buildJudgedPrompt(level('least-to-most'), sampleOf(boolqInput), pack('boolq'), helper);
    expect(ltm.prompt).toContain(`Relevant Information: '${raw}'`);
  });

  it('identical helper calls of a level are asked once; distinct ones each', async () => {
    const asked: string[] = [];
    const gk = await buildJudgedPrompt(level('generated-knowledge'), sampleOf(boolqInput), pack('boolq'), async (p) => (asked.push(p), 'k'));
    // the three knowledge candidates of the strategy are one prompt: one helper call, counted once
    expect(asked).toHaveLength(1);
    expect(gk.helperCalls.map((x) => [x.purpose, x.seq])).toEqual([['knowledge', 0]]);
    // a strategy asking two different things gets two calls, numbered in order
    const twice: JudgedLevel = {
      level: 1,
      strategy: 'twice',
      instance: {
        id: 'twice',
        async run(ctx) {
          const a = await ctx.call('intermediate', 'first {x}', 'C:');
          const b = await ctx.call('intermediate', `second ${a.text}`, '');
          const again = await ctx.call('intermediate', 'first {x}', 'C:');
          const r = await ctx.call('graded', `final ${b.text} ${again.text}`, ctx.pack.cue);
          return { graded: { promptText: r.promptText, completion: r.text, cue: ctx.pack.cue } };
        },
      },
    };
    const built = await buildJudgedPrompt(twice, sampleOf({}), pack('boolq'), async (p, call) => `<${call.seq}:${p}>`);
    // no cue and no wrapper on any call; the graded call is not executed and is the judged prompt
    expect(built.helperCalls.map((x) => [x.seq, x.prompt, x.output])).toEqual([
      [0, 'first {x}', '<0:first {x}>'],
      [1, 'second <0:first {x}>', '<1:second <0:first {x}>>'],
    ]);
    expect(built.prompt).toBe('final <1:second <0:first {x}>> <0:first {x}>');
    expect(built.steps).toBe('2');
  });

  it('a strategy that makes no graded call cannot be judged', async () => {
    const silent: JudgedLevel = { level: 2, strategy: 'silent', instance: { id: 'silent', run: async () => ({ graded: { promptText: '', completion: '', cue: '' } }) } };
    await expect(buildJudgedPrompt(silent, sampleOf({}), pack('boolq'), async () => '')).rejects.toThrow("strategy 'silent' (level 2) made no graded call, so the judge has no prompt to rate");
  });
});

describe('judge message, gold and system prompt', () => {
  it('the system prompt is the code version, verbatim (hpt.md §5.3)', () => {
    const templates = JSON.parse(readFileSync(join(SHARED, 'specs/hpt-templates.json'), 'utf8')) as { judge: string };
    expect(JUDGE_SYSTEM_PROMPT).toBe(templates.judge);
    expect(JUDGE_SYSTEM_PROMPT).toContain('muilt-step');
  });

  it('gold rendering: BoolQ True/False (no "always False" bug), letters, numbers, strings, other JSON', () => {
    expect(judgeGold(true)).toBe('True');
    expect(judgeGold(false)).toBe('False');
    expect(judgeGold('B')).toBe('B');
    expect(judgeGold(1234)).toBe('1234');
    expect(judgeGold(-2.5)).toBe('-2.5');
    expect(judgeGold('    return x + 1\n')).toBe('    return x + 1\n');
    expect(judgeGold({ a: [1, 'x'] })).toBe('{"a":[1,"x"]}');
    expect(judgeGold(null)).toBe('null');
  });

  it('user message format `prompt\\nAnswer: gold\\nMulti-step prompts: k`', () => {
    expect(judgeUserMessage('P', 'False', '0')).toBe('P\nAnswer: False\nMulti-step prompts: 0');
    expect(judgeUserMessage('Q\nR', '42', '1 (for external knowledge)')).toBe('Q\nR\nAnswer: 42\nMulti-step prompts: 1 (for external knowledge)');
  });

  it('structured output schema: four required integers, nothing else', () => {
    expect(JUDGE_RESPONSE_FORMAT).toEqual({
      name: 'hpt_judge_scores',
      schema: {
        type: 'object',
        properties: { score1: { type: 'integer' }, score2: { type: 'integer' }, score3: { type: 'integer' }, score4: { type: 'integer' } },
        required: ['score1', 'score2', 'score3', 'score4'],
        additionalProperties: false,
      },
    });
  });
});

describe('parseJudgeScores', () => {
  it('structured replies', () => {
    expect(parseJudgeScores('{"score1":3,"score2":4,"score3":2,"score4":1}')).toEqual([3, 4, 2, 1]);
    expect(parseJudgeScores(' {"score4": 5, "score3": 4, "score2": 3, "score1": 2} ')).toEqual([2, 3, 4, 5]);
    expect(parseJudgeScores('{"score1":"4","score2":"3","score3":"2","score4":"1"}')).toEqual([4, 3, 2, 1]);
  });

  it('JSON inside prose, fences and wrappers', () => {
    expect(parseJudgeScores('Here are my scores:\n```json\n{"score1": 1, "score2": 2, "score3": 3, "score4": 4}\n```\nThanks.')).toEqual([1, 2, 3, 4]);
    expect(parseJudgeScores('{"scores": {"Score1": 5, "Score2": 5, "Score3": 4, "Score4": 2}, "note": "a {brace} in text"}')).toEqual([5, 5, 4, 2]);
    expect(parseJudgeScores('not json {oops} then {"score1": 2, "score2": 2, "score3": 2, "score4": 3}')).toEqual([2, 2, 2, 3]);
  });

  it('free-text replies', () => {
    expect(parseJudgeScores('score1: 4\nscore2: 3\nscore3: 2\nscore4: 1')).toEqual([4, 3, 2, 1]);
    expect(parseJudgeScores('Score 1 (Basic Recall and Reproduction): 2/5\nScore 2 (Understanding and Interpretation): 3/5\nScore 3 (Analysis and Reasoning): 5/5\nScore 4 (Application of Knowledge and Execution): 1/5')).toEqual([2, 3, 5, 1]);
    expect(parseJudgeScores("{'score1': 3, 'score2': 4, 'score3': 4, 'score4': 2}")).toEqual([3, 4, 4, 2]);
    expect(parseJudgeScores('**Score1** = 5. **Score2** = 4. **Score3** = 3. **Score4** = 2.')).toEqual([5, 4, 3, 2]);
  });

  it('invalid replies are null, never guessed', () => {
    expect(parseJudgeScores('I cannot rate this prompt.')).toBeNull();
    expect(parseJudgeScores('{"score1":6,"score2":4,"score3":2,"score4":1}')).toBeNull();
    expect(parseJudgeScores('{"score1":3.5,"score2":4,"score3":2,"score4":1}')).toBeNull();
    expect(parseJudgeScores('{"score1":0,"score2":4,"score3":2,"score4":1}')).toBeNull();
    expect(parseJudgeScores('{"score1":3,"score2":4,"score3":2}')).toBeNull();
    // a structured object with a bad value is not rescued by the free-text fallback
    expect(parseJudgeScores('{"score1":9,"score2":4,"score3":2,"score4":1} score1: 3')).toBeNull();
    expect(parseJudgeScores('score1: 10\nscore2: 3\nscore3: 2\nscore4: 1')).toBeNull();
    expect(parseJudgeScores('score1: 3.5\nscore2: 3\nscore3: 2\nscore4: 1')).toBeNull();
    expect(parseJudgeScores('score1: N/A\nscore2: 3\nscore3: 2\nscore4: 1')).toBeNull();
    expect(parseJudgeScores('score1: 4\nscore2: 3\nscore3: 2')).toBeNull();
  });
});

describe('aggregateJudge', () => {
  it('per-level rule means, total = mean of the four means, n and invalid', () => {
    const levels = [
      { level: 1, strategy: 'role' },
      { level: 2, strategy: 'zero-shot-cot' },
      { level: 3, strategy: 'three-shot-cot' },
    ];
    const r = aggregateJudge(levels, [
      { level: 1, strategy: 'role', scores: [1, 2, 3, 4] },
      { level: 2, strategy: 'zero-shot-cot', scores: null },
      { level: 1, strategy: 'role', scores: [3, 4, 5, 2] },
      { level: 1, strategy: 'role', scores: null },
      { level: 2, strategy: 'zero-shot-cot', scores: [5, 5, 5, 5] },
      { level: 1, strategy: 'role', scores: [2, 3, 1, 3] },
    ]);
    expect(r[0]).toEqual({ level: 1, strategy: 'role', score1: 2, score2: 3, score3: 3, score4: 3, total: 2.75, n: 3, invalid: 1 });
    expect(r[1]).toEqual({ level: 2, strategy: 'zero-shot-cot', score1: 5, score2: 5, score3: 5, score4: 5, total: 5, n: 1, invalid: 1 });
    expect(r[2]).toEqual({ level: 3, strategy: 'three-shot-cot', score1: null, score2: null, score3: null, score4: null, total: null, n: 0, invalid: 0 });
  });

  it('non-trivial means', () => {
    const r = aggregateJudge([{ level: 4, strategy: 'least-to-most' }], [
      { level: 4, strategy: 'least-to-most', scores: [1, 1, 2, 5] },
      { level: 4, strategy: 'least-to-most', scores: [2, 1, 2, 4] },
      { level: 4, strategy: 'least-to-most', scores: [2, 2, 3, 4] },
    ]);
    expect(r[0]!.score1).toBeCloseTo(5 / 3, 12);
    expect(r[0]!.score2).toBeCloseTo(4 / 3, 12);
    expect(r[0]!.score3).toBeCloseTo(7 / 3, 12);
    expect(r[0]!.score4).toBeCloseTo(13 / 3, 12);
    expect(r[0]!.total).toBeCloseTo((5 / 3 + 4 / 3 + 7 / 3 + 13 / 3) / 4, 12);
  });

  it('rejects a level outside the ladder', () => {
    expect(() => aggregateJudge([{ level: 1, strategy: 'role' }], [{ level: 2, strategy: 'x', scores: null }])).toThrow(RangeError);
  });
});

/** A fake model: `reply` decides per request; every request is recorded. */
function fakeModel(reply: (r: ModelRequest) => string | Error | Promise<string | Error>): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'fake:judge',
    endpoint: 'http://fake.invalid/v1',
    requests,
    async generate(r: ModelRequest): Promise<ModelResponse> {
      requests.push(r);
      const out = await reply(r);
      if (out instanceof Error) throw out;
      return { text: out, usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop' };
    },
  };
}

describe('JudgeClient structured output and fallback', () => {
  it('asks for structured output with the judge system prompt', async () => {
    const m = fakeModel(() => '{"score1":1,"score2":2,"score3":3,"score4":4}');
    const j = new JudgeClient(m);
    const r = await j.rate('U');
    expect(r.scores).toEqual([1, 2, 3, 4]);
    expect(r.structured).toBe(true);
    expect(j.structuredOutput).toBe(true);
    expect(m.requests[0]!.messages).toEqual([
      { role: 'system', content: JUDGE_SYSTEM_PROMPT },
      { role: 'user', content: 'U' },
    ]);
    expect(m.requests[0]!.responseFormat).toEqual(JUDGE_RESPONSE_FORMAT);
    expect(m.requests[0]!.temperature).toBe(0);
  });

  it('a 400 to structured output falls back to text for good; concurrent calls wait for the one probe', async () => {
    const m = fakeModel((r) => (r.responseFormat ? new ModelCallError('client', 'HTTP 400: response_format not supported', { status: 400 }) : 'score1: 2, score2: 3, score3: 4, score4: 5'));
    const fallbacks: string[] = [];
    const j = new JudgeClient(m, { onFallback: (x) => fallbacks.push(x) });
    const replies = await Promise.all([1, 2, 3, 4, 5].map((i) => j.rate(`U${i}`)));
    expect(replies.every((r) => r.structured === false && JSON.stringify(r.scores) === '[2,3,4,5]')).toBe(true);
    expect(m.requests.filter((r) => r.responseFormat).length).toBe(1);
    expect(m.requests.length).toBe(6);
    expect(fallbacks.length).toBe(1);
    expect(j.structuredOutput).toBe(false);
  });

  it('a 400 that is not about the format is rethrown and decides nothing', async () => {
    const m = fakeModel((r) => (r.messages[1]!.content === 'too long' ? new ModelCallError('client', 'HTTP 400: context length', { status: 400 }) : '{"score1":1,"score2":1,"score3":1,"score4":1}'));
    const j = new JudgeClient(m);
    await expect(j.rate('too long')).rejects.toThrow('context length');
    expect(j.structuredOutput).toBeUndefined();
    expect((await j.rate('ok')).structured).toBe(true);
  });
});

describe('runJudge with failing calls', () => {
  const boolq = pack('boolq');
  const samples: Sample[] = [0, 1, 2].map((i) => ({ id: `s${i}`, index: i, input: { passage: `passage ${i}`, question: `question ${i}` }, target: i % 2 === 0 }));
  const levels = judgedLevels();

  it('a rating whose helper call fails is left out of n and invalid, and reported', async () => {
    const helper = fakeModel((r) => (r.messages[0]!.content.includes('passage 1') && r.context?.purpose === 'knowledge' ? new ModelCallError('server', 'HTTP 500') : 'helper text'));
    const judge = new JudgeClient(fakeModel(() => '{"score1":2,"score2":2,"score3":2,"score4":2}'));
    const errors: string[] = [];
    const r = await runJudge({ datasets: [{ id: 'boolq', pack: boolq, samples }], levels, judge, helper, concurrency: 2, onError: (m) => errors.push(m) });
    expect(r.items).toBe(3);
    expect(r.errored).toBe(1);
    expect(errors[0]).toContain('sample s1, level 5');
    expect(r.levels.map((l) => [l.n, l.invalid])).toEqual([[3, 0], [3, 0], [3, 0], [3, 0], [2, 0]]);
    // helper calls carry no system message and the paper's helper settings
    expect(helper.requests.every((q) => q.messages.length === 1 && q.messages[0]!.role === 'user' && q.temperature === 0.6 && q.topP === 0.9 && q.maxTokens === 1024)).toBe(true);
  });

  it('an endpoint that fails every call ends the run', async () => {
    const down = fakeModel(() => new ModelCallError('connection', 'cannot reach'));
    await expect(runJudge({ datasets: [{ id: 'boolq', pack: boolq, samples }], levels, judge: new JudgeClient(down), helper: down, concurrency: 1 })).rejects.toThrow('cannot reach');
  });

  it('a pack without an entry for a level fails before any call', async () => {
    const m = fakeModel(() => 'x');
    await expect(
      runJudge({ datasets: [{ id: 'boolq', pack: boolq, samples }], levels: [...levels, { level: 6, strategy: 'self-consistency', instance: new SingleCallStrategy('self-consistency') }], judge: new JudgeClient(m), helper: m, concurrency: 1 }),
    ).rejects.toThrow(/^dataset boolq, level 6 \(self-consistency\): the judge cannot build the level's prompt: prompt pack 'boolq' has no template for strategy 'self-consistency'/);
    expect(m.requests.length).toBe(0);
  });
});
