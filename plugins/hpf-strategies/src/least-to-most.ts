import { HptError, type Strategy, type StrategyContext, type StrategyOutput } from '@hpt-bench/sdk';

/**
 * Level 4 of the HPF, least-to-most prompting (hpt.md §1.3): a chain of single-turn calls with no conversation history.
 * Steps before the last are `intermediate` calls (completion only, no system prompt); step k's template gets `{pred}` =
 * the completion of the step its pack entry names (the reference `{pred}` wiring, hpt-extras.json › ltmPredSource),
 * and '' when none; each step ends with its own cue. The last step is the graded call. All steps are always made,
 * including the ones whose output is never used ("dead" calls, hpt.md §9 #12).
 */
export class LeastToMost implements Strategy {
  readonly id = 'least-to-most';

  /** @throws HptError `E_PACK` when the dataset's prompt pack has no `steps` for this strategy. */
  async run(ctx: StrategyContext): Promise<StrategyOutput> {
    const steps = ctx.entry?.steps;
    if (!steps?.length) throw new HptError('E_PACK', `prompt pack '${ctx.pack.id}' has no least-to-most steps for strategy '${ctx.strategyId}'`);
    const outputs: string[] = [];
    for (const [i, step] of steps.entries()) {
      const pred = step.pred === null ? '' : (outputs[step.pred - 1] ?? '');
      const last = i === steps.length - 1;
      const r = await ctx.call(last ? 'graded' : 'intermediate', ctx.fill(step.template, { pred }), step.cue);
      if (last) return { graded: { promptText: r.promptText, completion: r.text, cue: step.cue } };
      outputs.push(r.text);
    }
    throw new Error('unreachable');
  }
}
