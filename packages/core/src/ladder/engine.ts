import { type AttemptRecord, type CallPurpose, type CallRecord, type CompatMode, fillTemplate, type GenerationSettings, type GradedOutput, type Json, type Model, type ModelResponse, type PromptPack, type Sample, type SampleResult, type Scorer, type Strategy, splitThinking, type StrategyContext, type StrategyOutput, type Usage, type Verdict } from '@hpt-bench/sdk';
import { type AssembledPrompt, assemblePrompt } from '../prompt/assemble.js';
import { extractorMessages, isNoAnswer } from './extractor.js';

/** One rung: its 1-based level and the strategy that runs it. */
export interface LadderLevel {
  level: number;
  strategyId: string;
  strategy: Strategy;
  /**
   * the prompt-pack entry the level reads (`StrategyContext.entry`), when not the one of `strategyId`: the strategy
   * declaration's `packEntry` (a level reusing another level's wording)
   */
  packEntry?: string;
}

/**
 * Everything the ladder needs for a run, given when the engine is constructed. `model` answers the ladder's calls and
 * `knowledgeModel` the calls of purpose `knowledge` (a run passes its session's clients: cache, limiter, retries).
 */
export interface LadderSetup {
  levels: LadderLevel[];
  model: Model;
  knowledgeModel: Model;
  /**
   * the extractor model (`--extractor`, opt-in): asked for the answer when the scorer's strict rules read none
   * (ladder/extractor.ts); strict mode and scorers with `extract` only
   */
  extractor?: Model;
  scorer: Scorer;
  scorerOptions: Record<string, Json>;
  pack: PromptPack;
  hpiDataset: number;
  compat: CompatMode;
  generation: GenerationSettings;
  seed: number;
  /**
   * How a call's messages are built from the strategy's text and cue. Default: `assemblePrompt` under `compat`, with
   * the pack's `system` template (filled from the sample) on graded calls. The judge passes its own (judge/judge.ts
   * `judgeAssembly`: one user message holding the text, no wrapper, no cue, no system message; hpt.md §5.4).
   */
  assemble?: (purpose: CallPurpose, text: string, cue: string) => AssembledPrompt;
  /**
   * `--full-ladder` (issue 28; `RunConfig.fullLadder`): `climb` runs every level 1..m instead of stopping at the first
   * solved one. The result is the early-exit ladder's (first solved level, its HPI and prediction, else m +
   * HPI_Dataset; hpt.md §2.1–2.2); `attempts` holds all m levels. Manual ladder only (the adaptive engine ignores it;
   * `checkRunConfig` refuses it with `mode: 'adaptive'`).
   */
  fullLadder?: boolean;
}

/**
 * The manual HPF engine (hpt.md §2.1, Algorithm 1): try levels 1..m in order, stop at the first solved one, make no
 * call above it. HPI of the sample = the solving level, else m + HPI_Dataset (m = number of levels). With
 * `LadderSetup.fullLadder` every level runs (no early exit) and the result is still that of the first solved level.
 */
export class LadderEngine {
  constructor(protected readonly setup: LadderSetup) {}

  /** The ladder's levels, level 1 first (m = `levels.length`). */
  get levels(): readonly LadderLevel[] {
    return this.setup.levels;
  }

  /** The penalty of an unsolved sample: m + HPI_Dataset. */
  get unsolvedHpi(): number {
    return this.setup.levels.length + this.setup.hpiDataset;
  }

  /**
   * Climb the ladder for one sample: levels in order up to the first solved one, or every level with `fullLadder`
   * (the result is the first solved level's either way; `attempts` holds every level tried, level 1 first). Model
   * errors propagate (the run decides what to do with them).
   */
  async climb(sample: Sample): Promise<SampleResult> {
    const attempts: AttemptRecord[] = [];
    const meta = sample.meta ? { meta: sample.meta } : {};
    let first: { rung: LadderLevel; attempt: AttemptRecord } | undefined;
    for (const rung of this.setup.levels) {
      const attempt = await this.attempt(sample, rung);
      attempts.push(attempt);
      if (attempt.solved && !first) {
        first = { rung, attempt };
        if (!this.setup.fullLadder) break;
      }
    }
    if (first) {
      return { sampleId: sample.id, index: sample.index, level: first.rung.level, hpi: first.rung.level, solved: true, prediction: first.attempt.extracted, target: sample.target, attempts, ...meta };
    }
    const last = attempts[attempts.length - 1];
    return { sampleId: sample.id, index: sample.index, level: null, hpi: this.unsolvedHpi, solved: false, prediction: last ? last.extracted : null, target: sample.target, attempts, ...meta };
  }

  /**
   * Run one level on one sample and grade it. `iteration` (adaptive HPF) is recorded on the attempt and passed to the
   * model calls' context, so repeated draws of a level at later iterations are not collapsed by the call cache.
   */
  async attempt(sample: Sample, rung: LadderLevel, iteration?: number): Promise<AttemptRecord> {
    const s = this.setup;
    const { out, calls } = await this.runLevel(sample, rung, iteration);
    let verdict = await s.scorer.score(sample, out.graded, { compat: s.compat, options: s.scorerOptions });
    if (s.extractor && s.compat === 'strict' && s.scorer.extract && verdict.extraction?.rule === 'none') {
      verdict = await this.extractWithModel(sample, rung, out.graded, verdict, calls, iteration);
    }
    return {
      level: rung.level,
      strategy: rung.strategyId,
      solved: verdict.solved,
      score: verdict.score,
      extracted: verdict.extracted,
      ...(verdict.extraction ? { extraction: verdict.extraction } : {}),
      graded: out.graded,
      calls,
      ...(out.notes ? { notes: out.notes } : {}),
      ...(iteration !== undefined ? { iteration } : {}),
    };
  }

  /**
   * Ask the extractor model for the answer of a reply the strict rules read none from (ladder/extractor.ts), and score
   * its short reply with the run's scorer. The call is appended to `calls` (purpose `extract`, the next `seq`). Returns
   * the new verdict with `extraction: { rule: 'model', span: null, by }` when the scorer reads an answer from the
   * extractor's reply, else `verdict` with `by` set (the model was asked and read none). Model errors propagate.
   */
  private async extractWithModel(sample: Sample, rung: LadderLevel, graded: GradedOutput, verdict: Verdict, calls: CallRecord[], iteration?: number): Promise<Verdict> {
    const s = this.setup;
    const model = s.extractor as Model;
    const messages = extractorMessages(graded);
    const seq = calls.reduce((m, c) => Math.max(m, c.seq + 1), 0);
    const started = performance.now();
    // the evaluated model's reasoning settings are not the extractor's (another model, reading a short answer)
    const { reasoningEffort: _effort, maxCompletionTokens: _budget, ...generation } = s.generation;
    const response = await model.generate({
      ...generation,
      temperature: 0,
      messages,
      context: {
        sample,
        level: rung.level,
        strategy: rung.strategyId,
        purpose: 'extract',
        seq,
        scorer: s.scorer,
        scoreContext: { compat: s.compat, options: s.scorerOptions },
        seed: s.seed,
        ...(iteration !== undefined ? { iteration } : {}),
      },
    });
    const { record, answer } = callRecordOf({ seq, purpose: 'extract', model: model.id, messages }, response, 'strict', started);
    calls.push(record);
    const by = { rule: 'none', span: null, by: model.id };
    if (isNoAnswer(answer)) return { ...verdict, extraction: by };
    const read = await s.scorer.score(sample, { promptText: '', completion: answer.trim(), cue: '' }, { compat: 'strict', options: s.scorerOptions });
    if (read.extraction?.rule === 'none' || read.extracted === null) return { ...verdict, extraction: by };
    return { ...read, extraction: { rule: 'model', span: null, by: model.id } };
  }

  /**
   * Run one level's strategy on one sample without grading it: its output and its calls in `seq` order. The model
   * requests are exactly those `attempt` makes (`hpt-bench plan` runs it with stand-in models to see them without
   * calling any endpoint). Model errors propagate.
   */
  async runLevel(sample: Sample, rung: LadderLevel, iteration?: number): Promise<{ out: StrategyOutput; calls: CallRecord[] }> {
    const s = this.setup;
    const calls: CallRecord[] = [];
    let seq = 0;
    const ctx: StrategyContext = {
      sample,
      level: rung.level,
      strategyId: rung.strategyId,
      entry: s.pack.strategies[rung.packEntry ?? rung.strategyId],
      pack: s.pack,
      compat: s.compat,
      fill: (template, vars) => fillTemplate(template, { ...sample.input, ...vars }),
      extract: (completion, cue) =>
        s.scorer.extract?.(sample, { promptText: '', completion, cue: cue ?? s.pack.cue }, { compat: 'strict', options: s.scorerOptions }) ?? null,
      score: async (completion, cue) => s.scorer.score(sample, { promptText: '', completion, cue: cue ?? s.pack.cue }, { compat: s.compat, options: s.scorerOptions }),
      entryOf: (strategyId) => (Object.hasOwn(s.pack.strategies, strategyId) ? s.pack.strategies[strategyId] : undefined),
      call: async (purpose: CallPurpose, text: string, cue: string, options?: { logprobs?: boolean }) => {
        const model = purpose === 'knowledge' ? s.knowledgeModel : s.model;
        const { messages, promptText } = s.assemble
          ? s.assemble(purpose, text, cue)
          : assemblePrompt(purpose, text, cue, s.compat, undefined, s.pack.system !== undefined ? fillTemplate(s.pack.system, sample.input) : undefined);
        const mySeq = seq++;
        const started = performance.now();
        const replicate = typeof sample.meta?.replicate === 'number' ? sample.meta.replicate : 0;
        const response: ModelResponse = await model.generate({
          ...s.generation,
          // replicates of a sample (--replicates n) must not share an endpoint seed, or they would be identical draws
          ...(s.generation.seed !== undefined && replicate ? { seed: s.generation.seed + replicate } : {}),
          messages,
          logprobs: options?.logprobs,
          context: {
            sample,
            level: rung.level,
            strategy: rung.strategyId,
            purpose,
            seq: mySeq,
            scorer: s.scorer,
            scoreContext: { compat: s.compat, options: s.scorerOptions },
            seed: s.seed,
            ...(iteration !== undefined ? { iteration } : {}),
          },
        });
        const { record, answer } = callRecordOf({ seq: mySeq, purpose, model: model.id, messages }, response, s.compat, started, options?.logprobs === true);
        calls.push(record);
        return { text: answer, promptText, response, record };
      },
    };
    const out = await rung.strategy.run(ctx);
    return { out, calls: calls.sort((a, b) => a.seq - b.seq) };
  }
}

/**
 * The record of one call (what the store and `--out` keep): the request's `seq`, purpose, model and messages, and the
 * response as the ladder reads it (`replyOf`: the answer as `output`, the thinking as `reasoning`), its usage, latency
 * (the response's, else the wall time since `started`), finish reason, the mean token probability when `logprobs`
 * were asked for, and cache / batch flags.
 */
export function callRecordOf(
  call: Pick<CallRecord, 'seq' | 'purpose' | 'model' | 'messages'>,
  response: ModelResponse,
  compat: CompatMode,
  started: number,
  logprobs = false,
): { record: CallRecord; answer: string } {
  const reply = replyOf(response, compat);
  const record: CallRecord = {
    ...call,
    output: reply.answer,
    usage: response.usage,
    latencyMs: response.latencyMs ?? performance.now() - started,
    finishReason: response.finishReason,
    ...(logprobs ? { meanTokenProb: meanTokenProb(response.logprobs) } : {}),
    ...(response.cached ? { cached: true } : {}),
    ...(response.batched ? { batched: true } : {}),
    ...reply.extra,
  };
  return { record, answer: reply.answer };
}

/**
 * A reply as the ladder reads it (issue #24): in strict mode the inline thinking blocks (`splitThinking`) are removed
 * from the answer and kept, with the provider's reasoning field, as the call's `reasoning`; a reply that ended inside a
 * block has the answer `''` and is marked `truncatedThinking`. In reference mode the whole text is the answer (the
 * authors' parsers read it all), and only the provider's reasoning field is kept.
 */
export function replyOf(response: ModelResponse, compat: CompatMode): { answer: string; extra: Pick<CallRecord, 'reasoning' | 'truncatedThinking'> } {
  const split = compat === 'strict' ? splitThinking(response.text) : { answer: response.text, thinking: null, truncated: false };
  const reasoning = [response.reasoning, split.thinking].filter((t): t is string => typeof t === 'string' && t.trim() !== '').join('\n\n');
  return { answer: split.answer, extra: { ...(reasoning ? { reasoning } : {}), ...(split.truncated ? { truncatedThinking: true } : {}) } };
}

/**
 * Mean token probability of a completion: mean of exp(logprob) over its tokens (hpt.md §9 #10, the API stand-in for the
 * reference's mean sampled-token probability). @returns null when no logprobs were returned.
 */
export function meanTokenProb(logprobs: number[] | undefined): number | null {
  if (!logprobs || logprobs.length === 0) return null;
  let sum = 0;
  for (const lp of logprobs) sum += Math.exp(lp);
  return sum / logprobs.length;
}

/** Sum token usage over calls. */
export function sumUsage(calls: Iterable<{ usage: Usage }>): Usage {
  const u = { promptTokens: 0, completionTokens: 0 };
  for (const c of calls) {
    u.promptTokens += c.usage.promptTokens;
    u.completionTokens += c.usage.completionTokens;
  }
  return u;
}
