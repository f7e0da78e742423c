/**
 * lm-evaluation-harness output (EleutherAI/lm-evaluation-harness `lm_eval/result_schema.py`: the TypedDicts
 * `EvalResults`, `_TaskMetrics`, `_SampleCount`, `_EvalConfig`, `SampleResult`; no JSON Schema exists) in its
 * `--output_path` layout: `<model_name_sanitized>/results_<stamp>.json` and `samples_<task>_<stamp>.jsonl`, the stamp
 * the run's creation time (`YYYY-MM-DDTHH-MM-SS.ffffff`, UTC). The task is `hpt_<dataset>`.
 *
 * Mapping: `results[task]` holds `name`, `alias`, `sample_len` and the metric keys `hpi,none`, `hpi_stderr,none`,
 * `acc,none`, `acc_stderr,none` (stderr: clustered by sample id); `higher_is_better` says hpi false, acc true;
 * `n-samples` original = effective = the distinct samples; `configs[task]` is a task config (dataset_path = the
 * run's data source, output_type `generate_until`, `metric_list`, `generation_kwargs`, `repeats` = replicates) whose
 * `metadata.hpt` holds the HPT facts (`HptRunFacts`: ladder, m, HPI_Dataset, level counts, prompt hashes, fingerprint
 * and its hash); `task_hashes[task]` is the fingerprint hash; `config` the model and seeds (`_EvalConfig`).
 *
 * A samples line (`SampleResult`) per done sample (replicates: one line each, the same `doc_id`): `arguments` has one
 * request per level tried (`gen_args_<i>`: `arg_0` = the graded call's messages as JSON, lm-eval's form for chat APIs;
 * `arg_1` = the generation kwargs), `resps` each level's completion, `filtered_resps` each level's extracted answer;
 * `doc` = `{sample_id, replicate, target, meta, hpt}` where `hpt` holds the sample's HPT facts (`HptSampleFacts`);
 * the per-sample metric keys (floats, as the TypedDict's extra items) are `hpi` (level, or m + HPI_Dataset), `acc`
 * (1.0 solved, else 0.0) and, for a solved sample only, `hpt_level`.
 */
import { join, resolve } from 'node:path';
import type { Json } from '@hpt-bench/sdk';
import { AtomicFile, writeFileAtomic } from '../io/atomic-file.js';
import { fileStamp, gradedCall, hptRunFacts, hptSampleFacts, jsonText, modelPath, safeName, sha256Hex, type ExportRun, type ExportSample, type ExportWriteOptions } from './common.js';

/** An lm-eval results object or samples line as JSON. */
export type LmEvalObject = Record<string, Json>;

/** The lm-eval task name of run `r`: `hpt_<dataset>` (path-safe). */
export function lmEvalTask(r: ExportRun): string {
  return `hpt_${safeName(r.report.dataset)}`;
}

/** `model_name_sanitized` of run `r` (lm-eval's rule: `/` → `__`; here also `:` → `__`, then `safeName`). */
export function lmEvalModelDir(r: ExportRun): string {
  return safeName(modelPath(r.report.model).replace(/\//g, '__'));
}

/** The files `writeLmEval` writes for run `r` under `outDir`: results JSON, samples JSONL. */
export function lmEvalPaths(r: ExportRun, outDir: string): string[] {
  const dir = join(resolve(outDir), lmEvalModelDir(r));
  const stamp = fileStamp(r.run.createdAt);
  return [join(dir, `results_${stamp}.json`), join(dir, `samples_${lmEvalTask(r)}_${stamp}.jsonl`)];
}

/** The run's generation kwargs as lm-eval writes them (`temperature`, `top_p`, `max_gen_toks`, `do_sample`). */
function genKwargs(r: ExportRun): Record<string, Json> {
  const g = r.fingerprint?.generation;
  if (!g) return {};
  return { temperature: g.temperature, top_p: g.topP, max_gen_toks: g.maxCompletionTokens ?? g.maxTokens, do_sample: g.temperature > 0, ...(typeof g.seed === 'number' ? { seed: g.seed } : {}) };
}

/** The `results_<stamp>.json` object of run `r` (pure; `EvalResults`). */
export function toLmEvalResults(r: ExportRun): LmEvalObject {
  const rep = r.report;
  const task = lmEvalTask(r);
  const f = r.fingerprint;
  const distinct = new Set(r.units.map((u) => u.sampleId)).size;
  const metrics: Record<string, Json> = { name: task, alias: task, sample_len: rep.samples, 'hpi,none': rep.hpi };
  if (r.stderr.hpi !== null) metrics['hpi_stderr,none'] = r.stderr.hpi;
  metrics['acc,none'] = rep.accuracy;
  if (r.stderr.accuracy !== null) metrics['acc_stderr,none'] = r.stderr.accuracy;
  const created = Date.parse(r.run.createdAt);
  const updated = Date.parse(r.run.updatedAt);
  const facts = JSON.parse(JSON.stringify(hptRunFacts(r))) as Json;
  return {
    results: { [task]: metrics },
    group_subtasks: { [task]: [] },
    configs: {
      [task]: {
        task,
        dataset_path: f?.data?.source ?? rep.dataset,
        ...(f?.data?.split ? { test_split: f.data.split } : {}),
        output_type: 'generate_until',
        num_fewshot: 0,
        metric_list: [
          { metric: 'hpi', aggregation: 'mean', higher_is_better: false },
          { metric: 'acc', aggregation: 'mean', higher_is_better: true },
        ],
        generation_kwargs: genKwargs(r),
        repeats: Math.max(1, f?.replicates ?? rep.replicates ?? 1),
        should_decontaminate: false,
        metadata: { version: 1.0, hpt: facts },
      },
    },
    versions: { [task]: 1.0 },
    'n-shot': { [task]: 0 },
    higher_is_better: { [task]: { hpi: false, acc: true } },
    'n-samples': { [task]: { original: distinct, effective: distinct } },
    config: {
      model: modelPath(rep.model).split('/')[0]!,
      model_args: `model=${rep.model}`,
      batch_size: null,
      batch_sizes: [],
      device: null,
      use_cache: null,
      limit: f?.limit ?? null,
      bootstrap_iters: r.bootstrap.resamples,
      gen_kwargs: genKwargs(r),
      random_seed: rep.seed,
      numpy_seed: rep.seed,
      torch_seed: rep.seed,
      fewshot_seed: rep.seed,
    },
    date: (Number.isNaN(created) ? 0 : created) / 1000,
    task_hashes: r.fingerprintHash ? { [task]: r.fingerprintHash.replace(/^sha256:/, '') } : {},
    model_source: modelPath(rep.model).split('/')[0]!,
    model_name: modelPath(rep.model),
    model_name_sanitized: lmEvalModelDir(r),
    system_instruction: null,
    system_instruction_sha: null,
    fewshot_as_multiturn: false,
    chat_template: null,
    chat_template_sha: null,
    total_evaluation_time_seconds: String(Number.isNaN(created) || Number.isNaN(updated) ? 0 : Math.max(0, (updated - created) / 1000)),
  };
}

/** One `samples_*.jsonl` line for sample `s` of run `r` (pure; `SampleResult`); `docId` is its 0-based document index. */
export function toLmEvalSample(r: ExportRun, s: ExportSample, docId: number): LmEvalObject {
  const target = jsonText(s.target);
  const args: Record<string, Json> = {};
  const resps: Json[] = [];
  const filtered: Json[] = [];
  s.attempts.forEach((a, i) => {
    const c = gradedCall(a.calls);
    args[`gen_args_${i}`] = { arg_0: JSON.stringify(c?.messages ?? []), arg_1: genKwargs(r) };
    resps.push([c?.output ?? '']);
    filtered.push(jsonText(a.extracted));
  });
  const doc: Record<string, Json> = { sample_id: s.sampleId, replicate: s.replicate, target: s.target, ...(s.meta ? { meta: s.meta } : {}), hpt: JSON.parse(JSON.stringify(hptSampleFacts(s))) as Json };
  const line: LmEvalObject = {
    doc_id: docId,
    doc,
    target,
    arguments: args,
    resps,
    filtered_resps: filtered,
    filter: 'none',
    metrics: s.solved ? ['hpi', 'acc', 'hpt_level'] : ['hpi', 'acc'],
    doc_hash: sha256Hex(JSON.stringify({ sample_id: s.sampleId, target: s.target })),
    prompt_hash: sha256Hex(JSON.stringify(Object.values(args).map((a) => (a as { arg_0: string }).arg_0))),
    target_hash: sha256Hex(target),
    hpi: s.hpi,
    acc: s.solved ? 1.0 : 0.0,
  };
  if (s.solved && s.level !== null) line.hpt_level = s.level;
  return line;
}

/**
 * Write run `r` in lm-eval's layout under `outDir` (`lmEvalPaths`): the samples JSONL (streamed; `doc_id` = the order
 * in which sample ids first appear), then the results JSON.
 * @returns the files written (results, samples). @throws the fs error / HptError `E_CONFIG` when a file cannot be written.
 */
export async function writeLmEval(r: ExportRun, outDir: string, _options: ExportWriteOptions = {}): Promise<string[]> {
  const [resultsPath, samplesPath] = lmEvalPaths(r, outDir) as [string, string];
  const file = AtomicFile.open(samplesPath);
  const docIds = new Map<string, number>();
  try {
    for (const s of r.samples()) {
      let id = docIds.get(s.sampleId);
      if (id === undefined) docIds.set(s.sampleId, (id = docIds.size));
      await file.write(`${JSON.stringify(toLmEvalSample(r, s, id))}\n`);
    }
    await file.commit();
  } catch (e) {
    file.abort();
    throw e;
  }
  writeFileAtomic(resultsPath, `${JSON.stringify(toLmEvalResults(r), null, 2)}\n`);
  return [resultsPath, samplesPath];
}
