/**
 * LLM-as-a-judge (specs/hpt.md §5.3, §5.4, §9 #22): rate the prompt each ladder level builds for a sample
 * on the four HPT rules (§1.1), as the paper describes it — every item is judged with its level's own strategy and its
 * correct gold answer (none of the reference code's bugs: no level-4 loop-variable mix-up, no "always False" BoolQ gold).
 *
 * The judge knows no strategy (issue 26, item 2): each level's prompt is obtained by running the level's strategy
 * through the ladder engine against a recording model (`buildJudgedPrompt`). Its graded call is recorded, not
 * executed, and is the judged prompt; its other calls (chained steps, knowledge generation, whatever the strategy
 * makes) go to the helper model, and their answers flow back into the strategy.
 *
 * No chat wrapper and no answer cue are used anywhere in the judge pipeline: every call is one user message holding the
 * strategy's filled template (`judgeAssembly`); the judge gets the code's system prompt and one user message
 * `<prompt>\nAnswer: <gold>\nMulti-step prompts: <k>`.
 */
import { type CallContext, type CallPurpose, type GenerationSettings, HptError, isHptError, isModelCallError, type Json, type Model, type ModelRequest, type ModelResponse, type PromptPack, type Sample, type Scorer, type Strategy } from '@hpt-bench/sdk';
import { OutageBreaker } from '../exec/breaker.js';
import { forEachConcurrent } from '../exec/pool.js';
import { cacheKey } from '../exec/cache-key.js';
import { ModelClient } from '../exec/client.js';
import type { CallCache } from '../store/cache.js';
import { LadderEngine } from '../ladder/engine.js';
import type { AssembledPrompt } from '../prompt/assemble.js';

/**
 * The judge's system prompt, verbatim from the reference code (`prompt_complexity.py`; specs/hpt.md §5.3,
 * hpt-templates.json › judge), typos ("muilt-step", "it's effect") included.
 */
export const JUDGE_SYSTEM_PROMPT =
  "you are a judge evaluating different prompting strategies and you need to score these prompting strategies based on a pre-defined criteria. Different prompting strategies leverage varied amount of intelligence from the model to achieve the required answer. So, assign the scores very carefully based on your analysis of the prompt and it's effect on your intelligence to achieve the given answer as well as the number of muilt-step prompts which increases the complexity of execution.\n score1: Basic Recall and Reproduction; Definition:The need of the model to remember and reproduce factual information without interpretation or analysis to answer the prompt; Range: 1-5\nscore2:Understanding and Interpretation; Definition: The need of the model to comprehend and explain the meaning of information, summarizing or clarifying content to answer the prompt; Range: 1-5\nscore3: Analysis and Reasoning; Definition: The need of the model to break down complex information, understand relationships, and solve problems using logical reasoning to answer the prompt; Range: 1-5\nscore4: Application of Knowledge and Execution; Definition: The need of the model to apply knowledge in practical situations, execute multi-step processes, and solve complex tasks to answer the prompt; Range: 1-5\n";

/**
 * Structured output asked of the judge (hpt.md §5.4: the reference uses OpenAI structured output with four integers):
 * a JSON object `{score1, score2, score3, score4}` of integers, nothing else.
 */
export const JUDGE_RESPONSE_FORMAT: NonNullable<ModelRequest['responseFormat']> = {
  name: 'hpt_judge_scores',
  schema: {
    type: 'object',
    properties: { score1: { type: 'integer' }, score2: { type: 'integer' }, score3: { type: 'integer' }, score4: { type: 'integer' } },
    required: ['score1', 'score2', 'score3', 'score4'],
    additionalProperties: false,
  },
};

/** Default generation settings of judge calls: greedy (temperature 0), top-p 1, at most 1024 completion tokens. */
export const JUDGE_GENERATION: Readonly<GenerationSettings> = Object.freeze({ temperature: 0, topP: 1, maxTokens: 1024 });

/**
 * Generation settings of the judge pipeline's helper calls (chained steps, knowledge): temperature 0.6, top-p 0.9,
 * 1024 max tokens (hpt.md §5.4; the reference's frequency penalty 1.15 has no field in `ModelRequest` and is not sent).
 */
export const JUDGE_HELPER_GENERATION: Readonly<GenerationSettings> = Object.freeze({ temperature: 0.6, topP: 0.9, maxTokens: 1024 });

/**
 * The four HPT rule scores of one rating, each an integer 1..5, in rule order (hpt.md §1.1): [1 Basic Recall and
 * Reproduction, 2 Understanding and Interpretation, 3 Analysis and Reasoning, 4 Application of Knowledge and Execution].
 */
export type RuleScores = [number, number, number, number];

/**
 * The gold answer as the judge sees it (hpt.md §5.4, §9 #22): a boolean as "True"/"False", a string as itself, a number
 * as `String(n)`, anything else as JSON. For the HPT datasets this is the MMLU/CSQA letter, the GSM8K number, HumanEval's
 * canonical_solution, the IWSLT French reference, the SamSum summary and BoolQ's True/False.
 */
export function judgeGold(target: Json): string {
  if (typeof target === 'boolean') return target ? 'True' : 'False';
  if (typeof target === 'string') return target;
  if (typeof target === 'number') return String(target);
  return JSON.stringify(target);
}

/**
 * The judge's user message (hpt.md §5.4; hpt-extras.json › judge.userMessage): `${prompt}\nAnswer: ${gold}\nMulti-step
 * prompts: ${steps}`.
 */
export function judgeUserMessage(prompt: string, gold: string, steps: string): string {
  return `${prompt}\nAnswer: ${gold}\nMulti-step prompts: ${steps}`;
}

/**
 * The "Multi-step prompts" value of a judged prompt (hpt.md §5.4), from the helper calls its strategy made
 * (`JudgeHelperCall`, repeated identical calls counted once): `0` without any; the number of calls that are not
 * knowledge generation (chain steps: `3` for the HPT least-to-most chains); `<n> (for external knowledge)` for `n`
 * knowledge calls (`1 (for external knowledge)` for generated knowledge); both joined by ` + ` when a strategy makes
 * both kinds (an extension: the paper's levels make one kind).
 */
export function judgeStepsLabel(calls: readonly { purpose: CallPurpose }[]): string {
  const knowledge = calls.filter((c) => c.purpose === 'knowledge').length;
  const steps = calls.length - knowledge;
  const parts = [...(steps ? [String(steps)] : []), ...(knowledge ? [`${knowledge} (for external knowledge)`] : [])];
  return parts.length ? parts.join(' + ') : '0';
}

/** The purpose of a helper call: any purpose a strategy gives a call but `graded` (e.g. `intermediate`, `knowledge`). */
export type JudgeHelperPurpose = Exclude<CallPurpose, 'graded'>;

/** One helper call made to build a judged prompt: a call of the strategy that is not graded, with its text. */
export interface JudgeHelperCall {
  /** the purpose the strategy gave the call (`intermediate` for chain steps, `knowledge` for knowledge generation) */
  purpose: JudgeHelperPurpose;
  /** 0-based index of the call among the level's helper calls */
  seq: number;
  /** the user message sent (the strategy's filled template; no wrapper, no cue) */
  prompt: string;
  /** the helper model's completion */
  output: string;
}

/** Makes one helper call: `prompt` is the single user message; resolves to the completion text. */
export type JudgeHelper = (prompt: string, call: { purpose: JudgeHelperPurpose; seq: number }) => Promise<string>;

/**
 * A level's judged prompt for one sample.
 * - `prompt`: the filled prompt the judge rates (the strategy's last graded call; never executed);
 * - `steps`: the "Multi-step prompts" value (`judgeStepsLabel` of `helperCalls`);
 * - `helperCalls`: the helper calls made to build it, in order.
 */
export interface JudgedPrompt {
  prompt: string;
  steps: string;
  helperCalls: JudgeHelperCall[];
}

/**
 * How the judge pipeline assembles a strategy's call (hpt.md §5.4; `LadderSetup.assemble`): one user message holding
 * the strategy's filled text, whatever the purpose — no chat wrapper, no answer cue, no system message.
 */
export function judgeAssembly(_purpose: CallPurpose, text: string): AssembledPrompt {
  return { messages: [{ role: 'user', content: text }], promptText: text };
}

/**
 * Build the prompt a level is judged on by running the level's strategy (hpt.md §5.4 as the paper describes it, §9 #22;
 * issue 26, item 2): the strategy runs once through the ladder engine (`LadderEngine.runLevel`) on `sample` with `pack`,
 * calls assembled by `judgeAssembly`, against a recording model:
 * - a `graded` call is recorded and answered with an empty text, never executed; the last one is the judged prompt;
 * - every other call goes to `helper` as its one user message, and the helper's text is the answer the strategy gets
 *   (so a chain's `{pred}` wiring, or a knowledge text, is the strategy's own). A call with the same purpose and text
 *   as an earlier one of the level (e.g. the repeated candidates of a best-of-n knowledge selection) is not sent
 *   again: it gets the earlier answer, without logprobs, and counts once.
 * The strategy runs with `compat: 'reference'`, so a helper's completion reaches later prompts exactly as the model
 * returned it (no thinking-block split, no special-token clean-up), as the judge pipeline always used it.
 * Placeholders are filled in one pass from the sample's input (`StrategyContext.fill`).
 * @param seed the run seed in the calls' context.
 * @throws HptError `E_PLUGIN` when the strategy makes no graded call; what the strategy throws (`E_PACK` for a pack
 *   without the entry it needs, `E_TEMPLATE` when a placeholder has no value); whatever `helper` throws.
 */
export async function buildJudgedPrompt(level: JudgedLevel, sample: Sample, pack: PromptPack, helper: JudgeHelper, seed = 0): Promise<JudgedPrompt> {
  const helperCalls: JudgeHelperCall[] = [];
  const answers = new Map<string, Promise<string>>();
  let nextSeq = 0;
  let graded: string | undefined;
  const recorder: Model = {
    id: 'judge-recorder',
    generate: async (request: ModelRequest): Promise<ModelResponse> => {
      const purpose = request.context?.purpose ?? 'graded';
      const prompt = request.messages.map((m) => m.content).join('\n');
      let text = '';
      if (purpose === 'graded') graded = prompt;
      else {
        const key = `${purpose}\0${prompt}`;
        let answer = answers.get(key);
        if (answer === undefined) {
          const call = { purpose, seq: nextSeq++ };
          answer = helper(prompt, call).then((output) => {
            helperCalls.push({ ...call, prompt, output });
            return output;
          });
          answers.set(key, answer);
        }
        text = await answer;
      }
      return { text, usage: { promptTokens: 0, completionTokens: 0 }, finishReason: 'stop' };
    },
  };
  const rung = { level: level.level, strategyId: level.strategy, strategy: level.instance, ...(level.packEntry !== undefined ? { packEntry: level.packEntry } : {}) };
  const engine = new LadderEngine({
    levels: [rung],
    model: recorder,
    knowledgeModel: recorder,
    scorer: JUDGE_CONTEXT_SCORER,
    scorerOptions: {},
    pack,
    hpiDataset: 0,
    compat: 'reference',
    generation: JUDGE_HELPER_GENERATION,
    seed,
    assemble: judgeAssembly,
  });
  await engine.runLevel(sample, rung);
  if (graded === undefined) throw new HptError('E_PLUGIN', `strategy '${level.strategy}' (level ${level.level}) made no graded call, so the judge has no prompt to rate`);
  helperCalls.sort((a, b) => a.seq - b.seq);
  return { prompt: graded, steps: judgeStepsLabel(helperCalls), helperCalls };
}

const SCORE_KEYS = ['score1', 'score2', 'score3', 'score4'] as const;

/** A score read as an integer 1..5: an integer number, or a string holding one (`"4"`, `" 4.0 "`); else undefined. */
function scoreValue(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 1 && v <= 5 ? v : undefined;
  if (typeof v === 'string' && /^\s*[1-5](?:\.0*)?\s*$/.test(v)) return Math.trunc(Number(v));
  return undefined;
}

/**
 * The scores of a parsed JSON value: `undefined` when no object in it has all four keys `score1..score4` (matched
 * case-insensitively; nested objects are searched, outermost first), `null` when the first such object has a value that
 * is not an integer 1..5.
 */
function scoresOfJson(value: unknown): RuleScores | null | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (!Array.isArray(value)) {
    const byKey = new Map(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k.trim().toLowerCase(), v]));
    if (SCORE_KEYS.every((k) => byKey.has(k))) {
      const scores = SCORE_KEYS.map((k) => scoreValue(byKey.get(k)));
      return scores.every((s) => s !== undefined) ? (scores as RuleScores) : null;
    }
  }
  for (const v of Object.values(value as Record<string, unknown>)) {
    const r = scoresOfJson(v);
    if (r !== undefined) return r;
  }
  return undefined;
}

/** The balanced `{...}` spans of `text` (string literals respected), in order of their opening brace. */
function* jsonObjectSpans(text: string): Generator<string> {
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        yield text.slice(start, i + 1);
        break;
      }
    }
  }
}

/** `score<i>` (or `rule <i>`), then up to 60 characters that are neither digits nor another label, then the score 1..5. */
const SCORE_PATTERNS = [1, 2, 3, 4].map(
  (i) => new RegExp(String.raw`\b(?:score|rule)[\s_-]*${i}(?!\d)(?:(?!score|rule)\D){0,60}?(?<![A-Za-z])([1-5])(?!\d|\.\d)`, 'i'),
);

/**
 * Read the four rule scores from a judge reply (hpt.md §5.4).
 * 1. JSON: the first object in the text (the whole reply, a fenced block, or an object inside prose; nested objects are
 *    searched) that has the keys `score1..score4`; its values must be integers 1..5 (numbers, or strings holding one).
 * 2. Otherwise free text: for each rule i the first `score i` / `score<i>` / `rule i` label followed, within 60
 *    non-digit characters, by a digit 1..5 that is not part of a longer number (`score1: 4`, `Score 2 (Understanding): 3/5`).
 * @returns the four scores, or null when they cannot all be read as integers 1..5 (never guessed): such a reply counts
 *   as `invalid` and is left out of the means.
 */
export function parseJudgeScores(text: string): RuleScores | null {
  for (const span of jsonObjectSpans(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(span);
    } catch {
      continue;
    }
    const r = scoresOfJson(parsed);
    if (r !== undefined) return r;
  }
  const scores: number[] = [];
  for (const re of SCORE_PATTERNS) {
    const m = re.exec(text);
    if (!m) return null;
    scores.push(Number(m[1]));
  }
  return scores as RuleScores;
}

/** One rating for aggregation: its level (1-based ladder position), strategy id, and scores (null = invalid reply). */
export interface JudgeRow {
  level: number;
  strategy: string;
  scores: RuleScores | null;
}

/**
 * Per-level result of the judge (the `levels` array of `hpt-bench judge --json`; hpt.md §5.4 "Aggregate per level"):
 * `score1..score4` = the mean of each rule score over the valid ratings of the level, `total` = the mean of the four
 * means, `n` = valid ratings, `invalid` = replies whose scores could not be read. Means are null when n = 0. Full
 * precision (round for display only, §9 #20).
 */
export interface JudgeLevelResult {
  level: number;
  strategy: string;
  score1: number | null;
  score2: number | null;
  score3: number | null;
  score4: number | null;
  total: number | null;
  n: number;
  invalid: number;
}

/**
 * Aggregate ratings per level (hpt.md §5.4): for each level of `levels` (in that order), the mean of each of the four
 * scores over its valid rows, `total` = mean of the four means, `n` valid rows, `invalid` rows with `scores: null`.
 * Sums run in the order of `rows`.
 * @throws RangeError when a row names a level not in `levels`.
 */
export function aggregateJudge(levels: readonly { level: number; strategy: string }[], rows: Iterable<JudgeRow>): JudgeLevelResult[] {
  const acc = new Map(levels.map((l) => [l.level, { sums: [0, 0, 0, 0], n: 0, invalid: 0 }]));
  for (const row of rows) {
    const a = acc.get(row.level);
    if (!a) throw new RangeError(`judge row for level ${row.level}, which is not in the ladder`);
    if (!row.scores) {
      a.invalid++;
      continue;
    }
    a.n++;
    row.scores.forEach((s, i) => (a.sums[i]! += s));
  }
  return levels.map((l) => {
    const a = acc.get(l.level)!;
    const means = a.sums.map((s) => (a.n ? s / a.n : null));
    const total = a.n ? (means as number[]).reduce((x, y) => x + y, 0) / 4 : null;
    return { level: l.level, strategy: l.strategy, score1: means[0]!, score2: means[1]!, score3: means[2]!, score4: means[3]!, total, n: a.n, invalid: a.invalid };
  });
}

/** A judge reply: its text, the scores read from it (null = invalid), whether structured output was asked, the response. */
export interface JudgeReply {
  text: string;
  scores: RuleScores | null;
  structured: boolean;
  response: ModelResponse;
}

/**
 * Options of a `JudgeClient`:
 * - `generation`: the judge's settings (default `JUDGE_GENERATION`);
 * - `structured`: ask for structured output first (default true); false = always parse free text;
 * - `cache`: the model-call cache the judge model's `ModelClient` uses: when structured support is not yet known, an
 *   earlier run's cached structured or plain reply decides it without a request (so a rerun makes no request even on an
 *   endpoint that rejects `response_format`);
 * - `onFallback`: told once when the endpoint rejected structured output and plain text is used from then on.
 */
export interface JudgeClientOptions {
  generation?: GenerationSettings;
  structured?: boolean;
  cache?: CallCache;
  onFallback?(message: string): void;
}

/**
 * Sends judge calls (hpt.md §5.3-5.4): system message `JUDGE_SYSTEM_PROMPT`, one user message, structured output
 * `JUDGE_RESPONSE_FORMAT`. When the endpoint rejects structured output with a `client` `ModelCallError` (HTTP 400/422),
 * the same request is sent without it and every later call of this client is plain text (read with `parseJudgeScores`).
 * While support is unknown only one call probes at a time (concurrent calls wait for its outcome), so a rejecting endpoint
 * sees one rejected request per client. If the plain retry fails too, the 400 was about the request, not the format:
 * support stays unknown and the error is rethrown.
 */
export class JudgeClient {
  private mode: 'unknown' | 'structured' | 'plain';
  private probing: Promise<void> | undefined;
  private readonly generation: GenerationSettings;

  /** @param model the judge model (normally a `ModelClient`: cache, limiter, retries). */
  constructor(
    readonly model: Model,
    private readonly options: JudgeClientOptions = {},
  ) {
    this.mode = options.structured === false ? 'plain' : 'unknown';
    this.generation = options.generation ?? JUDGE_GENERATION;
  }

  /** Whether structured output is in use: true/false once known, undefined before the first call. */
  get structuredOutput(): boolean | undefined {
    return this.mode === 'unknown' ? undefined : this.mode === 'structured';
  }

  /** The judge request for `userMessage` with or without structured output. */
  request(userMessage: string, structured: boolean, context?: CallContext): ModelRequest {
    return {
      ...this.generation,
      messages: [
        { role: 'system', content: JUDGE_SYSTEM_PROMPT },
        { role: 'user', content: userMessage },
      ],
      ...(structured ? { responseFormat: JUDGE_RESPONSE_FORMAT } : {}),
      ...(context ? { context } : {}),
    };
  }

  /**
   * Rate one prompt: `userMessage` is `judgeUserMessage(...)`.
   * @throws the model's errors (`ModelCallError` after retries, `HptError` `E_AUTH`...), except the one rejection of
   *   structured output that switches to plain text.
   */
  async rate(userMessage: string, context?: CallContext): Promise<JudgeReply> {
    for (;;) {
      if (this.mode !== 'unknown') return this.send(userMessage, this.mode === 'structured', context);
      if (this.probing) {
        await this.probing;
        continue;
      }
      let done!: () => void;
      this.probing = new Promise<void>((resolve) => (done = resolve));
      try {
        return await this.probe(userMessage, context);
      } finally {
        this.probing = undefined;
        done();
      }
    }
  }

  /** The cache key of a request: the client's own (it knows `--cache-key-endpoint`), else the default key. */
  private keyOf(request: ModelRequest): string {
    return this.model instanceof ModelClient ? this.model.cacheKeyOf(request) : cacheKey(this.model, request);
  }

  private async probe(userMessage: string, context: CallContext | undefined): Promise<JudgeReply> {
    const cache = this.options.cache;
    if (cache) {
      if (cache.get(this.keyOf(this.request(userMessage, true, context)))) {
        this.mode = 'structured';
        return this.send(userMessage, true, context);
      }
      if (cache.get(this.keyOf(this.request(userMessage, false, context)))) {
        this.mode = 'plain';
        return this.send(userMessage, false, context);
      }
    }
    let rejection: Error;
    try {
      const reply = await this.send(userMessage, true, context);
      this.mode = 'structured';
      return reply;
    } catch (e) {
      if (!(isModelCallError(e) && e.kind === 'client')) throw e;
      rejection = e;
    }
    const reply = await this.send(userMessage, false, context);
    this.mode = 'plain';
    this.options.onFallback?.(`${this.model.id} rejected structured output (${rejection.message}); reading the scores from plain-text replies`);
    return reply;
  }

  private async send(userMessage: string, structured: boolean, context: CallContext | undefined): Promise<JudgeReply> {
    const response = await this.model.generate(this.request(userMessage, structured, context));
    return { text: response.text, scores: parseJudgeScores(response.text), structured, response };
  }
}

/**
 * The scorer placed in the call context of judge-pipeline calls: the judge grades nothing, but `CallContext` needs a
 * scorer (deterministic baselines read it for graded calls only).
 */
export const JUDGE_CONTEXT_SCORER: Scorer = Object.freeze({ id: 'judge', score: () => ({ solved: false, score: 0, extracted: null }) });

/** The call context of a judge-pipeline call (sample, level, strategy, purpose, seq, run seed). */
export function judgeCallContext(sample: Sample, level: number, strategy: string, purpose: CallPurpose, seq: number, seed: number): CallContext {
  return { sample, level, strategy, purpose, seq, scorer: JUDGE_CONTEXT_SCORER, scoreContext: { compat: 'strict', options: {} }, seed };
}

/** A dataset to judge: its id, its prompt pack, and its samples (already limited and, for the generic pack, mapped). */
export interface JudgeDatasetInput {
  id: string;
  pack: PromptPack;
  samples: AsyncIterable<Sample> | Iterable<Sample>;
}

/**
 * A ladder level as the judge names it: 1-based level, strategy id, and the strategy's own template when it is a
 * declarative single-call strategy (`calibrate --judge` rates it when the pack has no task text; `judgeTaskTemplate`).
 */
export interface JudgeLevel {
  level: number;
  strategy: string;
  fallbackTemplate?: string;
  /** the prompt-pack entry the level reads when not its strategy id's (the strategy's `packEntry`) */
  packEntry?: string;
}

/** A ladder level the judge rates: a `JudgeLevel` and the strategy instance that builds its prompt (as a run builds it). */
export interface JudgedLevel extends JudgeLevel {
  instance: Strategy;
}

/**
 * One rating as written to `hpt-bench judge --out` (one JSON line per (level, item)): the dataset and sample, the level
 * and strategy, the judged prompt, the gold, the "Multi-step prompts" value, the scores (null = invalid or errored), the
 * judge's raw reply, whether structured output was used, the helper calls, and `error` when a model call failed after
 * its retries (then the rating is in neither `n` nor `invalid`).
 */
export interface JudgeRecord {
  dataset: string;
  sampleId: string;
  level: number;
  strategy: string;
  prompt: string | null;
  gold: string;
  steps: string | null;
  scores: RuleScores | null;
  raw: string | null;
  structured: boolean | null;
  cached: boolean;
  helperCalls: JudgeHelperCall[];
  error?: string;
}

/**
 * Options of `runJudge`:
 * - `datasets`, `levels`: what to judge (every level for every item of every dataset; each level with its strategy
 *   instance, `judgeLadder`);
 * - `judge`: the judge client; `helper`: the model of the strategies' other calls — chained steps, knowledge
 *   (normally a `ModelClient`);
 * - `helperGeneration`: default `JUDGE_HELPER_GENERATION`;
 * - `concurrency`: items judged at once (≥ 1); the levels of one item run in order;
 * - `seed`: recorded in call contexts (part of the cache key of stochastic helper calls); default 0;
 * - `onRecord`: each rating as it completes (awaited, e.g. to write `--out`); `onItem`: items finished so far;
 * - `onError`: a rating whose model calls failed after their retries (it is skipped, see `JudgeRunResult.errored`).
 */
export interface RunJudgeOptions {
  datasets: JudgeDatasetInput[];
  levels: JudgedLevel[];
  judge: JudgeClient;
  helper: Model;
  helperGeneration?: GenerationSettings;
  concurrency: number;
  seed?: number;
  onRecord?(record: JudgeRecord): void | Promise<void>;
  onItem?(done: number): void;
  onError?(message: string): void;
}

/**
 * The result of `runJudge`: per-level means (`aggregateJudge`), the number of items (samples over all datasets), and
 * `errored` = ratings whose model calls failed after every retry (in neither `n` nor `invalid` of their level).
 */
export interface JudgeRunResult {
  levels: JudgeLevelResult[];
  items: number;
  errored: number;
}

/**
 * Judge every level of `levels` on every item of `datasets` (hpt.md §5.4 as the paper describes it):
 * per item and level, `buildJudgedPrompt` (the level's strategy run against a recording model; its helper calls as
 * single user messages at `helperGeneration`), then one `judge.rate(judgeUserMessage(prompt, judgeGold(target),
 * steps))`. Items run under bounded concurrency; results are aggregated per level in input order (dataset order, then
 * sample order), so the means do not depend on timing.
 * Before any model call, every level's strategy runs once on the first sample of each dataset with empty answers, so a
 * level whose prompt cannot be built (a pack without the entry its strategy needs, a missing placeholder) fails first.
 * A rating whose model calls fail (a `ModelCallError` after retries) is reported via `onError` and skipped; when the
 * first `BREAKER_BEFORE_SUCCESS` ratings all fail that way, the error is rethrown (the endpoint is down: the run's
 * `OutageBreaker`, counting ratings; after a rating succeeded, failures are only counted and reported).
 * @throws HptError (before any call) what a strategy throws when it cannot build a level's prompt (`E_PACK`,
 *   `E_TEMPLATE`, `E_PLUGIN`; the message names the dataset, level and strategy); `E_TEMPLATE` when a later sample
 *   lacks a placeholder; what a dataset's `load` throws; any non-`ModelCallError` of the models (e.g. `E_AUTH`).
 */
export async function runJudge(options: RunJudgeOptions): Promise<JudgeRunResult> {
  const helperGeneration = options.helperGeneration ?? JUDGE_HELPER_GENERATION;
  const seed = options.seed ?? 0;
  const rows: (JudgeRow & { d: number; pos: number })[] = [];
  let items = 0;
  let errored = 0;
  let ratings = 0;
  const breaker = new OutageBreaker(options.concurrency);

  // the first sample of each dataset, read ahead: every level's prompt must be buildable before any call
  const iterators = options.datasets.map((ds) => asyncSamples(ds.samples)[Symbol.asyncIterator]());
  const firsts: IteratorResult<Sample>[] = [];
  for (const it of iterators) firsts.push(await it.next());
  for (const [d, first] of firsts.entries()) {
    if (first.done) continue;
    const dataset = options.datasets[d]!;
    for (const level of options.levels) {
      try {
        await buildJudgedPrompt(level, first.value, dataset.pack, async () => '', seed);
      } catch (e) {
        if (!isHptError(e)) throw e;
        throw new HptError(e.code, `dataset ${dataset.id}, level ${level.level} (${level.strategy}): the judge cannot build the level's prompt: ${e.message}`, { cause: e, ...(e.hint ? { hint: e.hint } : {}) });
      }
    }
  }

  async function* stream(): AsyncGenerator<{ d: number; pos: number; sample: Sample }> {
    for (const [d, it] of iterators.entries()) {
      let pos = 0;
      for (let r = firsts[d]!; !r.done; r = await it.next()) yield { d, pos: pos++, sample: r.value };
    }
  }

  await forEachConcurrent(stream(), options.concurrency, async ({ d, pos, sample }) => {
    const dataset = options.datasets[d]!;
    const gold = judgeGold(sample.target);
    for (const level of options.levels) {
      const ctx = (purpose: CallPurpose, seq: number) => judgeCallContext(sample, level.level, level.strategy, purpose, seq, seed);
      const calls: JudgeHelperCall[] = [];
      let built: JudgedPrompt | undefined;
      try {
        built = await buildJudgedPrompt(
          level,
          sample,
          dataset.pack,
          async (prompt, call) => {
            const r = await options.helper.generate({ ...helperGeneration, messages: [{ role: 'user', content: prompt }], context: ctx(call.purpose, call.seq) });
            calls.push({ ...call, prompt, output: r.text });
            return r.text;
          },
          seed,
        );
        const reply = await options.judge.rate(judgeUserMessage(built.prompt, gold, built.steps), ctx('judge', built.helperCalls.length));
        breaker.success();
        rows.push({ d, pos, level: level.level, strategy: level.strategy, scores: reply.scores });
        await options.onRecord?.({
          dataset: dataset.id,
          sampleId: sample.id,
          level: level.level,
          strategy: level.strategy,
          prompt: built.prompt,
          gold,
          steps: built.steps,
          scores: reply.scores,
          raw: reply.text,
          structured: reply.structured,
          cached: reply.response.cached === true,
          helperCalls: built.helperCalls,
        });
      } catch (e) {
        if (!isModelCallError(e)) throw e;
        if (breaker.failure(ratings++) && !breaker.anySuccess) throw e;
        errored++;
        const message = `${dataset.id} sample ${sample.id}, level ${level.level} (${level.strategy}): ${e.message}`;
        options.onError?.(message);
        await options.onRecord?.({
          dataset: dataset.id,
          sampleId: sample.id,
          level: level.level,
          strategy: level.strategy,
          prompt: built?.prompt ?? null,
          gold,
          steps: built?.steps ?? null,
          scores: null,
          raw: null,
          structured: null,
          cached: false,
          helperCalls: built?.helperCalls ?? calls,
          error: e.message,
        });
      }
    }
    items++;
    options.onItem?.(items);
  });
  rows.sort((a, b) => a.d - b.d || a.pos - b.pos || a.level - b.level);
  return { levels: aggregateJudge(options.levels, rows), items, errored };
}

/** `samples` as an async iterable (a dataset's stream, or an array). */
async function* asyncSamples(samples: AsyncIterable<Sample> | Iterable<Sample>): AsyncGenerator<Sample> {
  for await (const sample of samples) yield sample;
}
