/**
 * Inspect AI eval logs, `.json` form (UKGovernmentBEIS/inspect_ai `src/inspect_ai/_view/inspect-openapi.json`,
 * `#/components/schemas/EvalLog`, log version 2), openable by `inspect view`. One file per run:
 * `<created stamp>_hpt-<dataset>_<run id>.json` (Inspect names logs `<time>_<task>_<id>.json`).
 *
 * Mapping: the task is `hpt-bench/<dataset>`; the plan's steps are the ladder's levels (solver = strategy id, params:
 * level and prompt hash); replicates are Inspect epochs (`epoch` = replicate + 1, `config.epochs` = replicates); each
 * sample's `messages` are the conversation of its last graded call (the solving level's, else the last level's) and
 * its `events` hold one `model` event per recorded call (every level, every chain step), with the level, strategy and
 * purpose in the event's `metadata`. Results: one score `hpt` with metrics `hpi`, `accuracy` and their clustered
 * standard errors `hpi_stderr`, `accuracy_stderr`.
 *
 * HPT fields: `metadata.hpt` of the log and of `eval` (`HptRunFacts`: run id, ladder, m, HPI_Dataset, HPI, accuracy,
 * level counts, prompt hashes, fingerprint hash and the whole fingerprint); per sample `metadata.hpt`
 * (`HptSampleFacts`: level — null when unsolved —, HPI, solved, replicate, each attempt) and the score `hpt` with value
 * `{hpi, solved, level}` (level null when unsolved) and the same facts in its `metadata`.
 */
import { join, resolve } from 'node:path';
import type { CallRecord, Json } from '@hpt-bench/sdk';
import { AtomicFile } from '../io/atomic-file.js';
import { fileStamp, gradedCall, hptRunFacts, hptSampleFacts, jsonText, modelPath, safeName, sampleUsage, type ExportRun, type ExportSample, type ExportWriteOptions, userText } from './common.js';

/** An Inspect `EvalLog` (or one of its parts) as JSON; only what hpt-bench fills. */
export type InspectObject = Record<string, Json>;

/** The log file `writeInspectLog` writes for run `r` under `outDir`. */
export function inspectLogPaths(r: ExportRun, outDir: string): string[] {
  return [join(resolve(outDir), `${fileStamp(r.run.createdAt)}_hpt-${safeName(r.report.dataset)}_${safeName(r.run.id)}.json`)];
}

/** Inspect's `stop_reason` for a call's finish reason (`stop`, `length` → `max_tokens`, else `unknown`). */
function stopReason(finish: string): string {
  if (finish === 'stop') return 'stop';
  if (finish === 'length') return 'max_tokens';
  if (finish === 'content_filter') return 'content_filter';
  return 'unknown';
}

/** `ModelOutput` of one call. */
function modelOutput(c: CallRecord): InspectObject {
  return {
    model: modelPath(c.model),
    choices: [{ message: { role: 'assistant', content: c.output, source: 'generate', model: modelPath(c.model) }, stop_reason: stopReason(c.finishReason) }],
    completion: c.output,
    usage: { input_tokens: c.usage.promptTokens, output_tokens: c.usage.completionTokens, total_tokens: c.usage.promptTokens + c.usage.completionTokens, ...(typeof c.usage.reasoningTokens === 'number' ? { reasoning_tokens: c.usage.reasoningTokens } : {}) },
    time: c.latencyMs / 1000,
  };
}

/** Chat messages in Inspect's form (`ChatMessageSystem` / `User` / `Assistant`). */
function chatMessages(messages: readonly { role: string; content: string }[]): InspectObject[] {
  return messages.map((m) => ({ role: m.role, content: m.content, source: m.role === 'assistant' ? 'generate' : 'input' }));
}

/** The run's generate config (`GenerateConfig`) from its fingerprint. */
function generateConfig(r: ExportRun): InspectObject {
  const g = r.fingerprint?.generation;
  if (!g) return {};
  return {
    temperature: g.temperature,
    top_p: g.topP,
    max_tokens: g.maxCompletionTokens ?? g.maxTokens,
    ...(typeof g.seed === 'number' ? { seed: g.seed } : {}),
    ...(g.reasoningEffort ? { reasoning_effort: g.reasoningEffort } : {}),
  };
}

/** The HPT facts of the run as JSON (for `metadata.hpt`). */
function runFactsJson(r: ExportRun): Json {
  return JSON.parse(JSON.stringify(hptRunFacts(r))) as Json;
}

/** The `EvalSample` of one sample of run `r` (pure). */
export function toInspectSample(r: ExportRun, s: ExportSample): InspectObject {
  const first = gradedCall(s.attempts[0]?.calls ?? []);
  const last = gradedCall(s.attempts[s.attempts.length - 1]?.calls ?? []);
  const facts = JSON.parse(JSON.stringify(hptSampleFacts(s))) as Json;
  const u = sampleUsage(s);
  const model = modelPath(r.report.model);
  const events: InspectObject[] = [];
  for (const a of s.attempts)
    for (const c of a.calls)
      events.push({
        event: 'model',
        timestamp: r.run.createdAt,
        working_start: 0,
        model: modelPath(c.model),
        input: chatMessages(c.messages),
        tools: [],
        tool_choice: 'none',
        config: generateConfig(r),
        output: modelOutput(c),
        ...(c.cached ? { cache: 'read' } : {}),
        working_time: c.latencyMs / 1000,
        metadata: { hpt_level: a.level, strategy: a.strategy, purpose: c.purpose, seq: c.seq, solved: a.solved },
      });
  const usage = { input_tokens: u.input, output_tokens: u.output, total_tokens: u.input + u.output, ...(u.reasoning !== null ? { reasoning_tokens: u.reasoning } : {}) };
  return {
    id: s.sampleId,
    epoch: s.replicate + 1,
    input: first ? userText(first.messages) : '',
    target: jsonText(s.target),
    messages: last ? [...chatMessages(last.messages), { role: 'assistant', content: last.output, source: 'generate', model: modelPath(last.model) }] : [],
    output: last ? modelOutput(last) : { model, choices: [], completion: '' },
    scores: {
      hpt: {
        value: { hpi: s.hpi, solved: s.solved ? 1 : 0, level: s.level },
        answer: jsonText(s.prediction),
        explanation: s.solved ? `solved at level ${s.level} (${s.attempts.find((a) => a.level === s.level)?.strategy ?? '?'})` : `not solved by any of the ${r.m} levels: HPI = m + HPI_Dataset = ${s.hpi}`,
        history: [],
        metadata: { hpt: facts },
      },
    },
    metadata: { hpt: facts, ...(s.meta ? { sample_meta: s.meta } : {}) },
    store: {},
    events,
    model_usage: { [model]: usage },
    role_usage: {},
    attachments: {},
    total_time: u.latencyMs / 1000,
    working_time: u.latencyMs / 1000,
    uuid: `${r.run.id}-${s.index}`,
  };
}

/** The `EvalLog` of run `r` without its samples (pure): version, status, eval, plan, results, stats, tags, metadata. */
export function toInspectHeader(r: ExportRun): InspectObject {
  const rep = r.report;
  const f = r.fingerprint;
  const model = modelPath(rep.model);
  const distinct = [...new Set(r.units.map((u) => u.sampleId))];
  const packages: Record<string, string> = { 'hpt-bench': r.version };
  for (const p of f?.plugins ?? []) packages[p.name] = p.version;
  const metric = (name: string, value: number) => ({ name, value, params: {} });
  const metrics: Record<string, Json> = { hpi: metric('hpi', rep.hpi), accuracy: metric('accuracy', rep.accuracy) };
  if (r.stderr.hpi !== null) metrics.hpi_stderr = metric('hpi_stderr', r.stderr.hpi);
  if (r.stderr.accuracy !== null) metrics.accuracy_stderr = metric('accuracy_stderr', r.stderr.accuracy);
  let input = 0;
  let output = 0;
  for (const l of Object.values(rep.levels)) {
    input += l.promptTokens;
    output += l.completionTokens;
  }
  if (input === 0 && output === 0) {
    input = rep.usage.promptTokens;
    output = rep.usage.completionTokens;
  }
  const hpt = runFactsJson(r);
  return {
    version: 2,
    status: 'success',
    eval: {
      eval_id: r.run.id,
      run_id: r.run.id,
      created: r.run.createdAt,
      task: `hpt-bench/${rep.dataset}`,
      task_id: rep.dataset,
      task_version: 0,
      task_display_name: `${rep.dataset} (HPT ladder)`,
      task_attribs: {},
      task_args: { dataset: rep.dataset, ...(f?.data?.split ? { split: f.data.split } : {}) },
      task_args_passed: {},
      solver: 'hpt-ladder',
      dataset: { name: rep.dataset, ...(f?.data?.source ? { location: f.data.source } : {}), samples: distinct.length, sample_ids: distinct, shuffled: false },
      model,
      model_generate_config: generateConfig(r),
      model_args: {},
      config: { epochs: Math.max(1, f?.replicates ?? (rep.replicates ?? 1)), ...(typeof f?.limit === 'number' ? { limit: f.limit } : {}) },
      packages,
      scorers: [{ name: 'hpt', options: { hpi_dataset: r.hpiDataset, m: r.m }, metrics: [{ name: 'hpi' }, { name: 'accuracy' }, { name: 'stderr' }], metadata: { lower_is_better: { hpi: true, accuracy: false } } }],
      metadata: { hpt },
    },
    plan: {
      name: 'hpt-ladder',
      steps: rep.ladder.map((s, i) => ({ solver: s, params: { level: i + 1, ...(f?.prompts?.[s] ? { prompt_hash: f.prompts[s] } : {}) }, params_passed: {} })),
      config: generateConfig(r),
    },
    results: {
      total_samples: rep.samples,
      completed_samples: rep.samples,
      scores: [{ name: 'hpt', scorer: 'hpt', params: {}, metrics, scored_samples: rep.samples, unscored_samples: 0, metadata: { lower_is_better: { hpi: true, accuracy: false }, hpi_ci95: rep.hpiCi95, accuracy_ci95: rep.accuracyCi95, interval: rep.interval ?? 'bootstrap' } }],
      metadata: { hpt },
    },
    stats: {
      started_at: r.run.createdAt,
      completed_at: r.run.updatedAt,
      model_usage: { [model]: { input_tokens: input, output_tokens: output, total_tokens: input + output } },
      role_usage: {},
      connection_limit_history: [],
    },
    invalidated: false,
    tags: ['hpt-bench', 'hpt'],
    metadata: { hpt },
  };
}

/** The whole `EvalLog` of run `r` with its samples, in memory (pure apart from reading the samples; small runs, tests). */
export function toInspectLog(r: ExportRun): InspectObject {
  return { ...toInspectHeader(r), samples: [...r.samples()].map((s) => toInspectSample(r, s)) };
}

/**
 * Write run `r`'s Inspect log under `outDir` (`inspectLogPaths`), streaming the samples one by one (the header's keys,
 * then `samples`).
 * @returns the file written. @throws the fs error when it cannot be written.
 */
export async function writeInspectLog(r: ExportRun, outDir: string, _options: ExportWriteOptions = {}): Promise<string[]> {
  const [path] = inspectLogPaths(r, outDir) as [string];
  const file = AtomicFile.open(path);
  try {
    const header = toInspectHeader(r);
    await file.write(JSON.stringify(header).slice(0, -1));
    await file.write(',"samples":[');
    let first = true;
    for (const s of r.samples()) {
      await file.write(`${first ? '' : ','}${JSON.stringify(toInspectSample(r, s))}`);
      first = false;
    }
    await file.write(']}\n');
    await file.commit();
  } catch (e) {
    file.abort();
    throw e;
  }
  return [path];
}
