/**
 * Every Eval Ever (EEE) records, schema 0.3.0 (evaleval/every_eval_ever: `every_eval_ever/schemas/eval.schema.json`,
 * the aggregate record, and `instance_level_eval.schema.json`, one JSONL line per sample; JSON Schema draft-07 with
 * `additionalProperties: false`). Layout (the EEE datastore's): `data/<benchmark>/<developer>/<model>/<uuid>.json` and
 * `<uuid>_samples.jsonl` beside it; the uuid is a version-4-shaped id derived from the run id (the same run gives the
 * same names).
 *
 * Where the HPT data go (EEE's extension fields are string maps, so numbers and lists are written as text / JSON):
 * - aggregate: two `evaluation_results`, `<dataset>.hpt.hpi` (HPI, `lower_is_better`, range 1..m + HPI_Dataset;
 *   `metric_parameters` m, hpi_dataset, mode, compat) and `<dataset>.hpt.accuracy`; each `score_details.uncertainty`
 *   holds the clustered standard error and the report's 95% interval; `score_details.details` the level counts;
 *   `metric_config.additional_details` (HPI result) the ladder, the prompt hash of each level (`prompt_hash.<strategy>`),
 *   `fingerprint_sha256` and the whole `fingerprint` (JSON); `generation_config.generation_args.max_attempts` = m;
 * - instance records point at the HPI result (`evaluation_result_id`): `evaluation.score` = the sample's HPI,
 *   `is_correct` = solved; `output.raw` = each level's graded completion in ladder order, `answer_attribution` one entry
 *   per level tried (`is_terminal` on the last); `metadata` (strings): `hpt_level` (the solving level, `none` when
 *   unsolved), `hpt_hpi`, `hpt_replicate`, `hpt_attempts` (JSON), `hpt_prediction` (JSON) and the sample's meta as
 *   `meta.<key>`.
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Json } from '@hpt-bench/sdk';
import { AtomicFile, writeFileAtomic } from '../io/atomic-file.js';
import { gradedCall, hubDataset, jsonText, modelPath, safeName, sampleUsage, sha256Hex, type ExportRun, type ExportSample, type ExportWriteOptions, userText } from './common.js';

/** The EEE schema version these records follow. */
export const EEE_SCHEMA_VERSION = '0.3.0';

type Strings = Record<string, string>;
/** An EEE aggregate record (eval.schema.json); only the fields hpt-bench fills are typed. */
export type EeeAggregate = Record<string, Json>;
/** One EEE instance-level record (instance_level_eval.schema.json). */
export type EeeInstance = Record<string, Json>;

/** A version-4-shaped UUID derived from `runId` (sha256 of `hpt-bench:<runId>`, version and variant bits set). */
export function eeeUuid(runId: string): string {
  const h = createHash('sha256').update(`hpt-bench:${runId}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The three path components below `data/`: benchmark (dataset id), developer (model kind) and model name. */
function eeeDirParts(r: ExportRun): [string, string, string] {
  const [dev, ...rest] = modelPath(r.report.model).split('/');
  return [safeName(r.report.dataset), safeName(rest.length ? dev! : 'unknown'), safeName(rest.length ? rest.join('_') : dev!)];
}

/** The repository-relative path of the samples file (`data/<benchmark>/<developer>/<model>/<uuid>_samples.jsonl`). */
export function eeeSamplesRelPath(r: ExportRun): string {
  return ['data', ...eeeDirParts(r), `${eeeUuid(r.run.id)}_samples.jsonl`].join('/');
}

/** The files `writeEveryEvalEver` writes for run `r` under `outDir`: the aggregate JSON and the samples JSONL. */
export function everyEvalEverPaths(r: ExportRun, outDir: string): string[] {
  const dir = resolve(outDir, 'data', ...eeeDirParts(r));
  const uuid = eeeUuid(r.run.id);
  return [join(dir, `${uuid}.json`), join(dir, `${uuid}_samples.jsonl`)];
}

/** `evaluation_id` of run `r`: `<dataset>/<developer>_<model>/<run id>`. */
export function eeeEvaluationId(r: ExportRun): string {
  const [b, d, m] = eeeDirParts(r);
  return `${b}/${d}_${m}/${r.run.id}`;
}

/** The `evaluation_result_id` of the HPI result and of the accuracy result. */
export function eeeResultIds(r: ExportRun): { hpi: string; accuracy: string } {
  return { hpi: `${r.report.dataset}.hpt.hpi`, accuracy: `${r.report.dataset}.hpt.accuracy` };
}

/**
 * The EEE aggregate record of run `r` (pure). `samplesFile` describes the instance file when there is one (`checksum`:
 * hex sha256 of its bytes, `rows`: its lines); `now` (ms) is the record's `retrieved_timestamp` (Unix seconds, as text).
 */
export function toEeeAggregate(r: ExportRun, options: { samplesFile?: { checksum: string; rows: number }; now?: number } = {}): EeeAggregate {
  const rep = r.report;
  const f = r.fingerprint;
  const ids = eeeResultIds(r);
  const hub = hubDataset(f);
  const distinct = [...new Set(r.units.map((u) => u.sampleId))];
  const sourceData: Record<string, Json> = hub
    ? { dataset_name: rep.dataset, source_type: 'hf_dataset', hf_repo: hub.repo, ...(hub.split ? { hf_split: hub.split } : {}), samples_number: distinct.length, sample_ids: distinct }
    : {
        dataset_name: rep.dataset,
        source_type: 'other',
        additional_details: strings({ source: f?.data?.source ?? null, split: f?.data?.split ?? null, content_hash: f?.data?.contentHash ?? null, samples_number: distinct.length }),
      };
  const g = f?.generation;
  const generation: Record<string, Json> = {
    generation_args: {
      ...(g ? { temperature: g.temperature, top_p: g.topP } : {}),
      ...(g && Number.isInteger(g.maxTokens) && g.maxTokens >= 1 ? { max_tokens: g.maxTokens } : {}),
      // the core knows no strategy's prompting: reasoning is said only when the run shows it (a reasoning effort sent,
      // or reasoning tokens reported), else left out (unknown)
      ...(g?.reasoningEffort || Object.values(rep.levels).some((u) => (u.reasoningTokens ?? 0) > 0) ? { reasoning: true } : {}),
      max_attempts: Math.max(1, r.m),
    },
    additional_details: strings({
      ladder: rep.ladder.join(','),
      mode: rep.mode,
      seed: rep.seed,
      ...(g?.seed !== undefined && g.seed !== null ? { generation_seed: g.seed } : {}),
      ...(g?.reasoningEffort ? { reasoning_effort: g.reasoningEffort } : {}),
      ...(f?.knowledgeModel ? { knowledge_model: f.knowledgeModel } : {}),
      ...(f?.selector ? { selector: f.selector } : {}),
    }),
  };
  const uncertainty = (se: number | null, ci: [number, number] | null): Record<string, Json> => ({
    ...(se !== null ? { standard_error: { value: se, method: 'clustered by sample id (Miller 2024, eq. 4)' } } : {}),
    ...(ci ? { confidence_interval: { lower: ci[0], upper: ci[1], confidence_level: 0.95, method: rep.interval === 'clustered' ? 'clustered normal interval (replicates)' : 'bootstrap percentile over samples' } } : {}),
    num_samples: rep.samples,
    ...(rep.interval !== 'clustered' && ci ? { num_bootstrap_samples: r.bootstrap.resamples } : {}),
  });
  const levelDetails = strings(Object.fromEntries(Object.entries(rep.levelCounts).map(([k, v]) => [k === 'unsolved' ? 'unsolved' : `level_${k}`, v])));
  const hptDetails = strings({
    run_id: r.run.id,
    ladder: rep.ladder.join(','),
    m: r.m,
    hpi_dataset: r.hpiDataset,
    n: rep.n,
    level_counts: JSON.stringify(rep.levelCounts),
    ...Object.fromEntries(Object.entries(f?.prompts ?? {}).map(([s, h]) => [`prompt_hash.${s}`, h])),
    ...(r.fingerprintHash ? { fingerprint_sha256: r.fingerprintHash } : {}),
    ...(f ? { fingerprint: JSON.stringify(f) } : {}),
  });
  const created = Date.parse(r.run.createdAt);
  return {
    schema_version: EEE_SCHEMA_VERSION,
    evaluation_id: eeeEvaluationId(r),
    evaluation_timestamp: String(Math.floor((Number.isNaN(created) ? 0 : created) / 1000)),
    retrieved_timestamp: String(Math.floor((options.now ?? Date.now()) / 1000)),
    source_metadata: { source_name: 'hpt-bench', source_type: 'evaluation_run', source_organization_name: 'unknown', evaluator_relationship: 'other', additional_details: { tool: 'hpt-bench', run_id: r.run.id } },
    eval_library: {
      name: 'hpt-bench',
      version: r.version,
      additional_details: strings({ taxonomy: 'Hierarchical Prompting Taxonomy (HPT)', ...(f ? { plugins: f.plugins.map((p) => `${p.name}@${p.version}`).join(',') } : {}) }),
    },
    model_info: {
      name: rep.model,
      id: modelPath(rep.model),
      developer: modelPath(rep.model).split('/')[0]!,
      ...(f?.endpoints.length ? { inference_platform: f.endpoints.join(',') } : {}),
      additional_details: { deployment_type: 'unknown', model_availability: 'unknown', hpt_bench_model: rep.model },
    },
    evaluation_results: [
      {
        evaluation_result_id: ids.hpi,
        evaluation_name: ids.hpi,
        source_data: sourceData,
        evaluation_timestamp: r.run.createdAt,
        metric_config: {
          evaluation_description: `HPI (Hierarchical Prompting Index) over ${rep.samples} sample(s): per sample the first of ${r.m} ladder levels that solves it, or m + HPI_Dataset = ${r.m + r.hpiDataset} when none does; mean over recorded scores; lower is better`,
          metric_id: 'hpt.hpi',
          metric_name: 'HPI',
          metric_kind: 'hpi',
          metric_unit: 'levels',
          metric_parameters: { m: r.m, hpi_dataset: r.hpiDataset, mode: rep.mode, compat: rep.compat },
          lower_is_better: true,
          score_type: 'continuous',
          min_score: 1,
          max_score: r.m + r.hpiDataset,
          additional_details: hptDetails,
        },
        score_details: { score: rep.hpi, details: levelDetails, uncertainty: uncertainty(r.stderr.hpi, rep.hpiCi95) },
        generation_config: generation,
      },
      {
        evaluation_result_id: ids.accuracy,
        evaluation_name: ids.accuracy,
        source_data: sourceData,
        evaluation_timestamp: r.run.createdAt,
        metric_config: {
          evaluation_description: `share of samples solved at some level of the ${r.m}-level HPT ladder`,
          metric_id: 'accuracy',
          metric_name: 'accuracy',
          metric_kind: 'accuracy',
          metric_unit: 'proportion',
          lower_is_better: false,
          score_type: 'continuous',
          min_score: 0,
          max_score: 1,
        },
        score_details: { score: rep.accuracy, details: levelDetails, uncertainty: uncertainty(r.stderr.accuracy, rep.accuracyCi95) },
        generation_config: generation,
      },
    ],
    ...(options.samplesFile
      ? { detailed_evaluation_results: { format: 'jsonl', file_path: eeeSamplesRelPath(r), hash_algorithm: 'sha256', checksum: options.samplesFile.checksum, total_rows: options.samplesFile.rows } }
      : {}),
  };
}

/** The EEE instance-level record of one sample of run `r` (pure; see the module comment for the HPT fields). */
export function toEeeInstance(r: ExportRun, s: ExportSample): EeeInstance {
  const first = gradedCall(s.attempts[0]?.calls ?? []);
  const raw = first ? userText(first.messages) : '';
  const reference = [jsonText(s.target)];
  const outputs = s.attempts.map((a) => gradedCall(a.calls)?.output ?? '');
  const reasoning = s.attempts.map((a) => gradedCall(a.calls)?.reasoning).filter((x): x is string => typeof x === 'string');
  const u = sampleUsage(s);
  const meta: Strings = {
    hpt_level: s.level === null ? 'none' : String(s.level),
    hpt_hpi: String(s.hpi),
    hpt_solved: String(s.solved),
    hpt_replicate: String(s.replicate),
    hpt_attempts: JSON.stringify(s.attempts.map((a) => ({ level: a.level, strategy: a.strategy, solved: a.solved, score: a.score }))),
    hpt_prediction: JSON.stringify(s.prediction),
    ...(s.iteration !== undefined ? { hpt_iteration: String(s.iteration) } : {}),
  };
  for (const [k, v] of Object.entries(s.meta ?? {})) if (k !== 'replicate') meta[`meta.${k}`] = jsonText(v);
  return {
    schema_version: EEE_SCHEMA_VERSION,
    evaluation_id: eeeEvaluationId(r),
    model_id: modelPath(r.report.model),
    evaluation_name: eeeResultIds(r).hpi,
    evaluation_result_id: eeeResultIds(r).hpi,
    sample_id: s.sampleId,
    sample_hash: sha256Hex(raw + JSON.stringify(reference)),
    interaction_type: 'single_turn',
    input: { raw, formatted: first ? JSON.stringify(first.messages) : null, reference },
    output: { raw: outputs, ...(reasoning.length ? { reasoning_trace: reasoning } : {}) },
    messages: null,
    answer_attribution: s.attempts.map((a, i) => ({
      turn_idx: 0,
      source: `output.raw[${i}]`,
      extracted_value: jsonText(a.extracted),
      extraction_method: a.extraction?.rule ? `${a.strategy}: ${a.extraction.rule}` : `${a.strategy}: scorer`,
      is_terminal: i === s.attempts.length - 1,
    })),
    evaluation: { score: s.hpi, is_correct: s.solved, num_turns: Math.max(1, s.attempts.length) },
    token_usage: { input_tokens: u.input, output_tokens: u.output, total_tokens: u.input + u.output, ...(u.reasoning !== null ? { reasoning_tokens: u.reasoning } : {}) },
    performance: { latency_ms: Math.max(0, u.latencyMs) },
    metadata: meta,
  };
}

/**
 * Write run `r` as EEE records under `outDir` (`everyEvalEverPaths`): the instance JSONL first (streamed, one line per
 * done sample in input order), then the aggregate JSON with the samples file's sha256 and row count.
 * @returns the files written (aggregate, samples). @throws the fs error when a file cannot be written.
 */
export async function writeEveryEvalEver(r: ExportRun, outDir: string, options: ExportWriteOptions = {}): Promise<string[]> {
  const [aggPath, samplesPath] = everyEvalEverPaths(r, outDir) as [string, string];
  const file = AtomicFile.open(samplesPath);
  const hash = createHash('sha256');
  let rows = 0;
  try {
    for (const s of r.samples()) {
      const line = `${JSON.stringify(toEeeInstance(r, s))}\n`;
      hash.update(line);
      rows++;
      await file.write(line);
    }
    await file.commit();
  } catch (e) {
    file.abort();
    throw e;
  }
  writeFileAtomic(aggPath, `${JSON.stringify(toEeeAggregate(r, { samplesFile: { checksum: hash.digest('hex'), rows }, ...(options.now !== undefined ? { now: options.now } : {}) }), null, 2)}\n`);
  return [aggPath, samplesPath];
}

/** A string map (EEE `additional_details`): each value as text (`jsonText`), null values left out. */
function strings(o: Record<string, Json | undefined>): Strings {
  const out: Strings = {};
  for (const [k, v] of Object.entries(o)) if (v !== null && v !== undefined) out[k] = jsonText(v);
  return out;
}
