/**
 * Hugging Face Hub model-repo evaluation results: `.eval_results/*.yaml` (huggingface/hub-docs `eval_results.yaml`,
 * the annotated spec, and `docs/hub/eval-results.md`; no JSON Schema: the Hub validates at push time). A file is a YAML
 * list of results; each has the required `dataset.id` (a Hub dataset with the "Benchmark" tag), `dataset.task_id` (a
 * task of that dataset's eval.yaml) and `value`, and the optional `dataset.revision`, `verifyToken`, `date` (ISO-8601
 * string), `source{url,name,user,org}` (url required when given) and `notes`.
 *
 * hpt-bench writes one file per run, `<model>/.eval_results/<dataset>_<run id>.yaml` (`<model>` stands for the model
 * repository; `baseline:random` → `baseline__random`), with two results: the HPI (`task_id` `hpt-hpi` by default) and
 * the accuracy (`hpt-accuracy`). `dataset.id` is the Hub dataset the run read (`hub:` source) or `hpt-bench/<dataset>`;
 * `date` the run's creation time; no `source` (there is no URL to give) and no `verifyToken`. The format has no
 * per-sample data: the HPT facts go into `notes`, one line of `key=value` fields separated by `; ` (`hptNotes`): run,
 * metric, lower_is_better, n, samples, m, hpi_dataset, hpi, accuracy, levels (`1:5,2:0,…,unsolved:0`), ladder,
 * prompt hashes (`prompts=role:sha256:…,…`) and the fingerprint hash.
 */
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { writeFileAtomic } from '../io/atomic-file.js';
import { hubDataset, safeName, type ExportRun, type ExportWriteOptions } from './common.js';

/** One item of a `.eval_results/*.yaml` list (eval_results.yaml). */
export interface HfEvalResult {
  dataset: { id: string; task_id: string; revision?: string };
  value: number;
  verifyToken?: string;
  date?: string;
  source?: { url: string; name?: string; user?: string; org?: string };
  notes?: string;
}

/** Options of `toHfEvalResults`: the Hub dataset id and task ids to report under (defaults in the module comment). */
export interface HfOptions {
  datasetId?: string;
  hpiTaskId?: string;
  accuracyTaskId?: string;
}

/** The model directory name of run `r` (the model spec with `:` and `/` as `__`, then `safeName`). */
export function hfModelDir(r: ExportRun): string {
  return safeName(r.report.model.replace(/[:/]/g, '__'));
}

/** The file `writeHfEvalResults` writes for run `r`: `<outDir>/<model>/.eval_results/<dataset>_<run id>.yaml`. */
export function hfEvalResultsPaths(r: ExportRun, outDir: string): string[] {
  return [join(resolve(outDir), hfModelDir(r), '.eval_results', `${safeName(r.report.dataset)}_${safeName(r.run.id)}.yaml`)];
}

/**
 * The `notes` text of one result: `hpt-bench; run=<id>; metric=<hpi|accuracy>; lower_is_better=<bool>; n=…; samples=…;
 * m=…; hpi_dataset=…; hpi=…; accuracy=…; levels=1:a,2:b,…,unsolved:u; ladder=s1>s2>…; prompts=s1:sha256:…,…;
 * fingerprint=sha256:…` (pure; fields without a value are left out).
 */
export function hptNotes(r: ExportRun, metric: 'hpi' | 'accuracy'): string {
  const rep = r.report;
  const levels = [...Array.from({ length: r.m }, (_, i) => `${i + 1}:${rep.levelCounts[String(i + 1)] ?? 0}`), `unsolved:${rep.levelCounts.unsolved ?? 0}`].join(',');
  const fields: [string, string | number | boolean | null][] = [
    ['run', r.run.id],
    ['metric', metric],
    ['lower_is_better', metric === 'hpi'],
    ['mode', rep.mode],
    ['n', rep.n],
    ['samples', rep.samples],
    ['m', r.m],
    ['hpi_dataset', r.hpiDataset],
    ['hpi', rep.hpi],
    ['accuracy', rep.accuracy],
    ['levels', levels],
    ['ladder', rep.ladder.join('>')],
    ['prompts', r.fingerprint ? Object.entries(r.fingerprint.prompts).map(([s, h]) => `${s}:${h}`).join(',') : null],
    ['fingerprint', r.fingerprintHash],
  ];
  return ['hpt-bench', ...fields.filter(([, v]) => v !== null && v !== '').map(([k, v]) => `${k}=${String(v)}`)].join('; ');
}

/** The two results of run `r` (HPI, then accuracy) as `.eval_results` list items (pure). */
export function toHfEvalResults(r: ExportRun, options: HfOptions = {}): HfEvalResult[] {
  const hub = hubDataset(r.fingerprint);
  const id = options.datasetId ?? hub?.repo ?? `hpt-bench/${r.report.dataset}`;
  const date = r.run.createdAt;
  return [
    { dataset: { id, task_id: options.hpiTaskId ?? 'hpt-hpi' }, value: r.report.hpi, date, notes: hptNotes(r, 'hpi') },
    { dataset: { id, task_id: options.accuracyTaskId ?? 'hpt-accuracy' }, value: r.report.accuracy, date, notes: hptNotes(r, 'accuracy') },
  ];
}

/** The YAML text of `results` (the `yaml` package; `date` and `notes` as quoted strings, as the spec asks). */
export function hfEvalResultsYaml(results: readonly HfEvalResult[]): string {
  return stringify(results, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0 });
}

/**
 * Write run `r`'s `.eval_results` file under `outDir` (`hfEvalResultsPaths`); `options.hfDatasetId` / `datasetId` set
 * `dataset.id`.
 * @returns the file written. @throws HptError `E_CONFIG` when it cannot be written.
 */
export function writeHfEvalResults(r: ExportRun, outDir: string, options: ExportWriteOptions & HfOptions = {}): string[] {
  const [path] = hfEvalResultsPaths(r, outDir) as [string];
  writeFileAtomic(path, hfEvalResultsYaml(toHfEvalResults(r, { ...options, ...(options.hfDatasetId ? { datasetId: options.hfDatasetId } : {}) })));
  return [path];
}
