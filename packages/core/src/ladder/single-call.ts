import { HptError, type Strategy, type StrategyContext, type StrategyOutput } from '@hpt-bench/sdk';

/**
 * The declarative strategy kind `single-call`: one graded call with the dataset's prompt-pack template for this
 * strategy (or the manifest's fallback `template`). Levels 1-3 of the HPF (role, zero-shot CoT, three-shot CoT) are
 * this kind (hpt.md §1.3: `prefix + template(sample) + suffix + cue`, graded in full-text mode).
 */
export class SingleCallStrategy implements Strategy {
  constructor(
    readonly id: string,
    private readonly fallbackTemplate?: string,
  ) {}

  /** @throws HptError `E_PACK` when neither the pack nor the manifest gives a template for this strategy. */
  async run(ctx: StrategyContext): Promise<StrategyOutput> {
    const template = ctx.entry?.template ?? this.fallbackTemplate;
    if (template === undefined) {
      throw new HptError('E_PACK', `prompt pack '${ctx.pack.id}' has no template for strategy '${this.id}', and the strategy declares no fallback template`);
    }
    const call = await ctx.call('graded', ctx.fill(template), ctx.pack.cue);
    return { graded: { promptText: call.promptText, completion: call.text, cue: ctx.pack.cue } };
  }
}
