import { HptError, Tokens, type Json, type Strategy, type StrategyContext, type StrategyOutput, inject, injectable } from '@hpt-bench/sdk';

/** Special tokens that a knowledge model may leave in its decoded text (Llama-3, GPT, Gemma, Phi-3, Mistral). */
const SPECIAL_TOKENS = /<\|(?:eot_id|end_of_text|endoftext|end|begin_of_text|start_header_id|end_header_id|im_end|im_start)\|>|<\/s>|<s>|<eos>|<bos>|<end_of_turn>|<start_of_turn>/g;

/** Remove chat special tokens from generated knowledge (strict mode, hpt.md §9 #10) and trim. */
export function stripSpecialTokens(text: string): string {
  return text.replace(SPECIAL_TOKENS, '').trim();
}

/**
 * Index of the best knowledge candidate: the highest mean token probability, the first on a tie (hpt.md §1.3 step 4).
 * @returns -1 when any candidate has no probability (logprobs unavailable).
 */
export function bestCandidate(probs: (number | null | undefined)[]): number {
  if (probs.length === 0 || probs.some((p) => typeof p !== 'number')) return -1;
  let best = 0;
  for (let i = 1; i < probs.length; i++) if ((probs[i] as number) > (probs[best] as number)) best = i;
  return best;
}

/**
 * Level 5 of the HPF, generated-knowledge prompting (hpt.md §1.3): `candidates` (default 3) knowledge calls in sequence
 * to the knowledge model with the pack's `knowledge` template, asking for logprobs; the candidate with the highest mean
 * token probability is substituted as `{pred}` into the pack's inference `template`, and one graded call is made.
 * When the endpoint returns no logprobs the first candidate is taken and the attempt's notes record it.
 * Strict mode strips special tokens from the chosen knowledge; reference mode keeps them (hpt.md §9 #10).
 */
@injectable()
export class GeneratedKnowledge implements Strategy {
  readonly id = 'generated-knowledge';
  private readonly candidates: number;

  constructor(@inject(Tokens.Options) options: Record<string, Json>) {
    this.candidates = typeof options.candidates === 'number' ? options.candidates : 3;
  }

  /** @throws HptError `E_PACK` when the pack entry lacks `knowledge` or `template`. */
  async run(ctx: StrategyContext): Promise<StrategyOutput> {
    const e = ctx.entry;
    if (!e?.knowledge || !e.template) throw new HptError('E_PACK', `prompt pack '${ctx.pack.id}' needs 'knowledge' and 'template' for strategy '${ctx.strategyId}'`);
    const prompt = ctx.fill(e.knowledge);
    const texts: string[] = [];
    const probs: (number | null)[] = [];
    for (let k = 0; k < this.candidates; k++) {
      const r = await ctx.call('knowledge', prompt, '', { logprobs: true });
      texts.push(r.text);
      probs.push(r.record.meanTokenProb ?? null);
    }
    const best = bestCandidate(probs);
    const chosen = best < 0 ? 0 : best;
    const knowledge = ctx.compat === 'strict' ? stripSpecialTokens(texts[chosen]!) : texts[chosen]!;
    const r = await ctx.call('graded', ctx.fill(e.template, { pred: knowledge }), ctx.pack.cue);
    return {
      graded: { promptText: r.promptText, completion: r.text, cue: ctx.pack.cue },
      notes: { knowledgeSelection: best < 0 ? 'first (logprobs unavailable)' : 'max mean token probability', chosenCandidate: chosen, candidateProbs: probs },
    };
  }
}
