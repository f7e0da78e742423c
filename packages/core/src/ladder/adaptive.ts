import { type AttemptRecord, type CallRecord, fillTemplate, HptError, type Json, type Model, type ModelResponse, type Sample, type SampleResult, type SelectionContext, type SelectionRecord, type Selector } from '@hpt-bench/sdk';
import { assemblePrompt, LLAMA3_WRAPPER } from '../prompt/assemble.js';
import { callRecordOf, LadderEngine, type LadderSetup } from './engine.js';

/** The feedback sentence around the latest failed attempt (hpt.md §2.3; hpt-extras.json › selector.feedbackPrefix/Suffix). */
export const SELECTOR_FEEDBACK_PREFIX = 'The model was unable to solve the task at this level of prompting. The previous response was: ';
export const SELECTOR_FEEDBACK_SUFFIX = '\n';

/** What the adaptive engine adds to a ladder setup: the selector and the model it asks (if it asks one). */
export interface AdaptiveSetup extends LadderSetup {
  selector: Selector;
  selectorModel?: Model;
}

/**
 * The adaptive HPF engine (hpt.md §2.3, Algorithm 2; recommendations §9 #3-#5). For each sample, for
 * iteration i = 1..m (m = number of levels): the selector picks a level x; x outside 1..m consumes the iteration with no
 * attempt and leaves the feedback unchanged; otherwise level x runs exactly as in the manual ladder and, if it solves
 * the sample, the sample scores x + i and the loop stops. Unsolved after m iterations: m + HPI_Dataset, with the last
 * attempted level's parsed answer as prediction (null — "unparsed", wrong — when no level was attempted).
 *
 * Feedback `{prev_res}`: '' until an attempt fails; then `SELECTOR_FEEDBACK_PREFIX + completion + SUFFIX` of the latest
 * failed attempt's graded output (strict, §9 #5), or of its full text (prompt text + completion) under `reference`.
 *
 * Strict mode records exactly one score per sample. `reference` also reproduces the reference code's accounting
 * (§2.3 (a)-(c)): a sample solved at iteration m gets a second record m + HPI_Dataset; an unsolved sample whose last
 * selection was 0 gets no record (it leaves HPI and accuracy); an unsolved sample whose last selection was > m is
 * recorded with the penalty. The reference's stale prediction from a previous sample (c) is not reproduced: the
 * prediction is the sample's own last failed attempt, or null.
 */
export class AdaptiveEngine extends LadderEngine {
  constructor(protected override readonly setup: AdaptiveSetup) {
    super(setup);
  }

  /** The selector model, if the selector uses one. */
  get selectorModel(): Model | undefined {
    return this.setup.selectorModel;
  }

  /** Run the selector loop for one sample. Model errors propagate (the run records the sample as errored). */
  override async climb(sample: Sample): Promise<SampleResult> {
    const s = this.setup;
    const m = s.levels.length;
    const levels = s.levels.map((l) => ({ level: l.level, strategy: l.strategyId }));
    const task = fillTemplate(taskTemplate(s), sample.input);
    const meta = sample.meta ? { meta: sample.meta } : {};
    const attempts: AttemptRecord[] = [];
    const selections: SelectionRecord[] = [];
    let feedback = '';
    for (let i = 1; i <= m; i++) {
      let call: CallRecord | undefined;
      const ctx: SelectionContext = {
        sample,
        iteration: i,
        levels,
        task,
        feedback,
        history: selections.slice(),
        compat: s.compat,
        call: async (text: string, cue: string) => {
          const model = s.selectorModel;
          if (!model) throw new HptError('E_CONFIG', `selector ${s.selector.id} asked a model, but none was configured (--selector llm:<model-id>)`);
          const { messages, promptText } = assemblePrompt('selector', text, cue, s.compat, LLAMA3_WRAPPER);
          const started = performance.now();
          const response: ModelResponse = await model.generate({
            ...s.generation,
            messages,
            context: { sample, level: 0, strategy: `selector:${s.selector.id}`, purpose: 'selector', seq: 0, scorer: s.scorer, scoreContext: { compat: s.compat, options: s.scorerOptions }, seed: s.seed, iteration: i },
          });
          // a reasoning selector's thinking is not its choice (issue #24)
          const { record, answer } = callRecordOf({ seq: 0, purpose: 'selector', model: model.id, messages }, response, s.compat, started);
          call = record;
          return { text: answer, promptText, response, record };
        },
      };
      const choice = await s.selector.select(ctx);
      const x = choice.level;
      const valid = x !== null && Number.isInteger(x) && x >= 1 && x <= m;
      const selection: SelectionRecord = { iteration: i, level: x, valid, ...(choice.raw !== undefined ? { raw: choice.raw } : {}), ...(call ? { call } : {}) };
      selections.push(selection);
      if (!valid) continue;
      const attempt = await this.attempt(sample, s.levels[x! - 1]!, i);
      attempts.push(attempt);
      selection.solved = attempt.solved;
      if (attempt.solved) {
        const result: SampleResult = { sampleId: sample.id, index: sample.index, level: x, hpi: x! + i, solved: true, prediction: attempt.extracted, target: sample.target, attempts, ...meta, iteration: i, selections };
        // reference (a): solved at the last iteration also appends the penalty with a re-parse of the last failure
        if (s.compat === 'reference' && i === m) {
          const lastFailed = attempts.length > 1 ? attempts[attempts.length - 2]!.extracted : null;
          return withRecords(result, [
            { hpi: x! + i, solved: true, prediction: attempt.extracted },
            { hpi: this.unsolvedHpi, solved: false, prediction: lastFailed },
          ]);
        }
        return result;
      }
      const g = attempt.graded;
      feedback = SELECTOR_FEEDBACK_PREFIX + (s.compat === 'reference' ? g.promptText + g.completion : g.completion) + SELECTOR_FEEDBACK_SUFFIX;
    }
    const last = attempts[attempts.length - 1];
    const result: SampleResult = { sampleId: sample.id, index: sample.index, level: null, hpi: this.unsolvedHpi, solved: false, prediction: last ? last.extracted : null, target: sample.target, attempts, ...meta, selections };
    // reference (b): the loop ends with the last selection 0 -> nothing is recorded for the sample
    if (s.compat === 'reference' && selections[selections.length - 1]?.level === 0) return withRecords(result, []);
    return result;
  }
}

/** `result` carrying the reference's score records (their sum and solved count in `hpi` / `solved`). */
function withRecords(result: SampleResult, records: { hpi: number; solved: boolean; prediction: Json }[]): SampleResult {
  return { ...result, hpi: records.reduce((a, r) => a + r.hpi, 0), records };
}

/**
 * The plain task template of a setup's prompt pack: the pack's `task`, else the first level's template (or its first
 * chain step). @throws HptError `E_CONFIG` when the pack has neither.
 */
export function taskTemplate(setup: Pick<LadderSetup, 'pack' | 'levels'>): string {
  if (setup.pack.task !== undefined) return setup.pack.task;
  const first = setup.levels[0] ? setup.pack.strategies[setup.levels[0].strategyId] : undefined;
  const t = first?.template ?? first?.steps?.[0]?.template;
  if (t === undefined) throw new HptError('E_CONFIG', `prompt pack ${setup.pack.id} has no "task" template (the plain task text the selector sees) and no level-1 template to use instead`);
  return t;
}
