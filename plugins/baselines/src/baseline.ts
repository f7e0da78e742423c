import seedrandom from 'seedrandom';
import { HptError, Tokens, type Model, type ModelRequest, type ModelResponse, inject, injectable } from '@hpt-bench/sdk';

/** The deterministic baselines: `oracle` answers with the target, `random` with a seeded valid answer. */
export const BASELINES = ['oracle', 'random'] as const;

/** Rough token count for usage accounting of offline baselines: one token per 4 characters, at least 1. */
function approxTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/**
 * Deterministic baseline models, for smoke tests, demos and sanity bounds.
 * - `baseline:oracle`: every graded call answers with the target in the form the dataset's scorer accepts
 *   (`scorer.renderTarget`), so every sample is solved at level 1 in strict mode.
 * - `baseline:random`: every graded call answers with a valid random answer (`scorer.randomAnswer`) drawn from a
 *   seedrandom stream keyed by run seed, sample id, replicate, level and call index (and the iteration in adaptive runs):
 *   the same seed gives the same answers whatever the concurrency.
 * Chain steps and knowledge calls get a short fixed text (with logprobs when asked, all 0 = probability 1). As an
 * adaptive-HPF selector model (`--selector baseline:random`), oracle answers level 1 and random a seeded level 1..5.
 */
@injectable()
export class BaselineModel implements Model {
  readonly id: string;

  /** @throws HptError `E_UNKNOWN_ID` for a name other than oracle/random. */
  constructor(@inject(Tokens.ModelName) private readonly name: string) {
    if (!(BASELINES as readonly string[]).includes(name)) {
      throw new HptError('E_UNKNOWN_ID', `unknown baseline '${name || '(none)'}': use baseline:oracle or baseline:random`);
    }
    this.id = `baseline:${name}`;
  }

  /** @throws HptError `E_CONFIG` when called outside the ladder (no call context), or when the scorer cannot render answers. */
  async generate(request: ModelRequest): Promise<ModelResponse> {
    const ctx = request.context;
    if (!ctx) throw new HptError('E_CONFIG', `${this.id} only answers calls made by the ladder (it needs the sample and scorer)`);
    const prompt = request.messages.map((m) => m.content).join('\n');
    let text: string;
    const replicate = typeof ctx.sample.meta?.replicate === 'number' ? ctx.sample.meta.replicate : 0;
    // adaptive HPF: a level drawn again at a later iteration is a new draw (manual runs keep their seeds)
    const iteration = ctx.iteration !== undefined ? `:i${ctx.iteration}` : '';
    if (ctx.purpose === 'selector') {
      // as an adaptive-HPF selector: oracle always says level 1, random a seeded level 1..5
      text = this.name === 'oracle' ? '1' : String(1 + Math.floor(seedrandom(`${ctx.seed}:${ctx.sample.id}:${replicate}:selector${iteration}`)() * 5));
    } else if (ctx.purpose !== 'graded') {
      text = ctx.purpose === 'knowledge' ? `Background knowledge for sample ${ctx.sample.id}.` : `Step ${ctx.seq + 1} notes for sample ${ctx.sample.id}.`;
    } else if (this.name === 'oracle') {
      if (!ctx.scorer.renderTarget) throw new HptError('E_CONFIG', `scorer ${ctx.scorer.id} cannot render targets, so ${this.id} cannot answer`);
      text = ctx.scorer.renderTarget(ctx.sample, ctx.scoreContext);
    } else {
      if (!ctx.scorer.randomAnswer) throw new HptError('E_CONFIG', `scorer ${ctx.scorer.id} cannot draw random answers, so ${this.id} cannot answer`);
      const random = seedrandom(`${ctx.seed}:${ctx.sample.id}:${replicate}:${ctx.level}:${ctx.seq}${iteration}`);
      text = ctx.scorer.randomAnswer(ctx.sample, random, ctx.scoreContext);
    }
    const completionTokens = approxTokens(text);
    return {
      text,
      ...(request.logprobs ? { logprobs: new Array<number>(completionTokens).fill(0) } : {}),
      usage: { promptTokens: approxTokens(prompt), completionTokens },
      finishReason: 'stop',
      latencyMs: 0,
    };
  }
}
