import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LadderEngine, loadPromptPack, type GradedOutput, type Model, type ModelRequest, type Sample, type Scorer } from '@hpt-bench/core';
import { GeneratedKnowledge, LeastToMost } from '../../plugins/hpf-strategies/src/index.js';
import { hpfLevels } from '../helpers/ladder.js';
import { ROOT } from '../helpers/cli.js';

const pack = (id: string) => loadPromptPack(join(ROOT, 'plugins/hpt-datasets/packs', `${id}.json`));

/** A scorer that accepts a completion equal to "RIGHT". */
const exact: Scorer = {
  id: 'exact',
  score: (_s: Sample, o: GradedOutput) => ({ solved: o.completion === 'RIGHT', score: o.completion === 'RIGHT' ? 1 : 0, extracted: o.completion }),
};

/** A model scripted by a function of the request; records every request. */
function scripted(reply: (r: ModelRequest, i: number) => string | { text: string; logprobs?: number[] }): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'scripted',
    requests,
    async generate(r) {
      requests.push(r);
      const out = reply(r, requests.length - 1);
      const o = typeof out === 'string' ? { text: out } : out;
      return { ...o, usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop' };
    },
  };
}

const csqaSample: Sample = { id: 'q1', index: 0, input: { question: 'Where is milk kept?', text1: 'oven', text2: 'fridge', text3: 'shelf', text4: 'garage', text5: 'box' }, target: 'B' };

function engine(model: Model, packId: string, compat: 'strict' | 'reference' = 'strict', hpiDataset = 2.52) {
  return new LadderEngine({
    levels: hpfLevels(),
    model,
    knowledgeModel: model,
    scorer: exact,
    scorerOptions: {},
    pack: pack(packId),
    hpiDataset,
    compat,
    generation: { temperature: 0.6, topP: 0.9, maxTokens: 1024 },
    seed: 0,
  });
}

describe('LadderEngine (manual HPF, hpt.md §2.1)', () => {
  it('stops at the first solved level and makes no call above it', async () => {
    const m = scripted((r) => (r.context!.level === 2 ? 'RIGHT' : 'wrong'));
    const res = await engine(m, 'csqa').climb(csqaSample);
    expect(res).toMatchObject({ level: 2, hpi: 2, solved: true, prediction: 'RIGHT', sampleId: 'q1' });
    expect(res.attempts.map((a) => a.level)).toEqual([1, 2]);
    expect(m.requests.map((r) => r.context!.level)).toEqual([1, 2]);
  });

  it('scores an unsolved sample m + HPI_Dataset and predicts the last level’s answer', async () => {
    const m = scripted((r) => `wrong at ${r.context!.level}`);
    const res = await engine(m, 'csqa', 'strict', 2.52).climb(csqaSample);
    expect(res.level).toBeNull();
    expect(res.hpi).toBeCloseTo(7.52, 12);
    expect(res.prediction).toBe('wrong at 5');
    // 1 + 1 + 1 + 4 (chain) + 3 knowledge + 1 graded
    expect(m.requests.length).toBe(11);
  });

  it('least-to-most: 4 single-turn calls with the reference {pred} wiring (CSQA: step 2 -> step 3; step 4 has only the options)', async () => {
    const m = scripted((r) => (r.context!.level === 4 ? `out${r.context!.seq + 1}` : 'wrong'));
    const res = await engine(m, 'csqa').climb(csqaSample);
    const chain = m.requests.filter((r) => r.context!.level === 4);
    expect(chain.map((r) => r.context!.purpose)).toEqual(['intermediate', 'intermediate', 'intermediate', 'graded']);
    const users = chain.map((r) => r.messages.at(-1)!.content);
    expect(users[0]).toBe("Analyze this question: 'Where is milk kept?'\nAnswer:");
    expect(users[2]).toContain("Based on the analysis : 'out2', Discard wrong answers");
    expect(users[3]).toBe('Choose the correct answer from the options: A oven\nB fridge\nC shelf\nD garage\nE box\nAnswer:');
    expect(chain.map((r) => r.messages.length)).toEqual([1, 1, 1, 2]); // only the graded step has the system prompt
    expect(res.attempts[3]!.calls.map((c) => c.seq)).toEqual([0, 1, 2, 3]);
  });

  it('least-to-most: BoolQ step 4 gets step 3 output; IWSLT intermediate steps have no cue', async () => {
    const m = scripted((r) => `s${r.context!.seq + 1}`);
    const boolq: Sample = { id: '0', index: 0, input: { passage: 'P.', question: 'is it?' }, target: true };
    const res = await engine(m, 'boolq').attempt(boolq, { level: 4, strategyId: 'least-to-most', strategy: new LeastToMost() });
    expect(res.graded.promptText).toBe("Based on the passage, what is the answer to this question: 'is it?'\nRelevant Information: 's3'\nAnswer:");
    const m2 = scripted((r) => `s${r.context!.seq + 1}`);
    const iw: Sample = { id: '0', index: 0, input: { eng_text: 'Hello.' }, target: 'Bonjour.' };
    await engine(m2, 'iwslt').attempt(iw, { level: 4, strategyId: 'least-to-most', strategy: new LeastToMost() });
    const u = m2.requests.map((r) => r.messages.at(-1)!.content);
    expect(u[1]).toBe("Identify and list the key phrases or terms in this text: 'Hello.'");
    expect(u[2]).toBe("Translate the following key phrases into french: 's2'");
    expect(u[3]).toBe("Translate 'Hello.' into french, incorporating the translations of the key phrases: 's3'\nFrench:");
  });

  it('generated knowledge: 3 candidates, the highest mean token probability wins (first on ties), special tokens stripped in strict', async () => {
    const lps = [[-2, -2], [-0.1, -0.3], [-0.1, -0.3]];
    const m = scripted((r) => (r.context!.purpose === 'knowledge' ? { text: `K${r.context!.seq}<|eot_id|>`, logprobs: lps[r.context!.seq]! } : 'x'));
    const res = await engine(m, 'csqa').attempt(csqaSample, { level: 5, strategyId: 'generated-knowledge', strategy: new GeneratedKnowledge({}) });
    expect(m.requests.filter((r) => r.logprobs).length).toBe(3);
    expect(res.graded.promptText).toContain('using knowledge of the question:K1\nAnswer:');
    expect(res.notes).toMatchObject({ knowledgeSelection: 'max mean token probability', chosenCandidate: 1 });
    expect(res.calls[1]!.meanTokenProb).toBeCloseTo((Math.exp(-0.1) + Math.exp(-0.3)) / 2, 12);
  });

  it('generated knowledge without logprobs takes the first candidate and records it; reference keeps special tokens', async () => {
    const m = scripted((r) => (r.context!.purpose === 'knowledge' ? `K${r.context!.seq}<|eot_id|>` : 'x'));
    const res = await engine(m, 'csqa', 'reference').attempt(csqaSample, { level: 5, strategyId: 'generated-knowledge', strategy: new GeneratedKnowledge({}) });
    expect(res.notes).toMatchObject({ knowledgeSelection: 'first (logprobs unavailable)', chosenCandidate: 0 });
    expect(res.graded.promptText).toContain('using knowledge of the question:K0<|eot_id|><|endoftext|>\nAnswer:');
    // knowledge calls go out in the Llama-3 wrapper, without a cue (hpt.md §1.3)
    expect(m.requests[0]!.messages).toEqual([{ role: 'user', content: '<|start_header_id|>user<|end_header_id|>\nGenerate Knowledge about the question: Where is milk kept?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n' }]);
  });

  it('routes knowledge calls to the knowledge model', async () => {
    const main = scripted(() => 'wrong');
    const know = scripted(() => ({ text: 'facts', logprobs: [-0.5] }));
    const e = engine(main, 'csqa');
    (e as unknown as { setup: { knowledgeModel: Model } }).setup.knowledgeModel = know;
    await e.attempt(csqaSample, { level: 5, strategyId: 'generated-knowledge', strategy: new GeneratedKnowledge({}) });
    expect(know.requests.length).toBe(3);
    expect(main.requests.length).toBe(1);
    expect(main.requests[0]!.messages.at(-1)!.content).toContain(':facts\nAnswer:');
  });
});
