import { existsSync } from 'node:fs';
import * as Flags from '@oclif/core/flags';
import type * as Interfaces from '@oclif/core/interfaces';
import {
  annotationRow,
  calibrateFromAnnotations,
  calibrateWithJudge,
  checkAnnotationColumns,
  HptError,
  parseAnnotationsJsonl,
  readJsonText,
  saveHpiDataset,
  storeLabel,
  type AnnotationRow,
  type CalibrateSpec,
  type CalibrationResult,
  type Json,
} from '@hpt-bench/core';
import { endpointFlags, HptCommand, judgeCallSettingsFrom, numberFlag, TerminalTable } from '../base.js';
import { storeFlag } from '../store-flag.js';
import { seedFlag } from '../seed-flag.js';

/** `hpt-bench calibrate`: compute a dataset's HPI_Dataset from rule scores (hpt.md §2.4, §9 #21). */
export default class Calibrate extends HptCommand {
  static override summary = "Compute a dataset's HPI_Dataset from human rule scores, or estimate it with an LLM judge.";
  static override description = `HPI_Dataset is the penalty an unsolved sample adds to m (hpt.md §2.4): each sample of a representative set gets a score 1-5 on each of the four HPT rules, the sample's value is the mean of its four scores, and HPI_Dataset is the mean over the samples (not rounded).

--annotations FILE reads human scores: a CSV with a header row, or JSONL with one object per line, each with the fields id, rule1, rule2, rule3, rule4 (other fields are ignored).

--judge MODEL estimates them instead: it draws a seeded representative sample of the dataset (--fraction, default 5%, at least 1; --limit caps it) and asks the judge to rate each sample's plain task text with its gold answer.

--save stores the value as the dataset's HPI_Dataset in --store for later runs.`;
  static override examples = [
    '<%= config.bin %> calibrate --annotations annotations.csv',
    '<%= config.bin %> calibrate --annotations scores.jsonl --dataset my-dataset --save --json',
    '<%= config.bin %> calibrate --judge openai:gpt-4o --dataset my-dataset --data samples.jsonl --fraction 0.05 --seed 1 --save',
  ];

  static override flags = {
    annotations: Flags.string({ description: 'human rule scores: a .csv (header row) or .jsonl file with id,rule1,rule2,rule3,rule4' }),
    judge: Flags.string({ description: 'estimate with this judge model instead (e.g. openai:gpt-4o); needs --dataset' }),
    dataset: Flags.string({ char: 'd', description: 'dataset id: the dataset to sample (--judge) and the one --save calibrates' }),
    save: Flags.boolean({ description: "save the value as the dataset's HPI_Dataset in --store, for later runs", default: false }),
    store: storeFlag('(the saved calibration and the model-call cache)'),
    data: Flags.string({ description: '--judge: read the samples from this .json/.jsonl file' }),
    split: Flags.string({ description: "--judge: split, a shipped one such as 'mini' or a Hugging Face split (default: the paper's)" }),
    fraction: Flags.string({ description: '--judge: share of the dataset to rate, in (0, 1]', default: '0.05' }),
    limit: Flags.integer({ char: 'n', description: '--judge: rate at most N samples', min: 1 }),
    seed: seedFlag('--judge: seed of the representative sample (an integer up to 2^53 - 1)', 0),
    ladder: Flags.string({ description: "--judge: ladder whose first level's template is rated when the prompt pack has no task text", default: 'hpf' }),
    temperature: Flags.string({ description: 'sampling temperature of the judge', default: '0' }),
    'max-tokens': Flags.integer({ description: 'maximum completion tokens of a judge reply', default: 1024, min: 1 }),
    concurrency: Flags.integer({ char: 'c', description: 'samples rated at once', default: 4, min: 1, max: 1024 }),
    ...endpointFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Calibrate);
    if (!flags.annotations && !flags.judge) throw new HptError('E_CONFIG', 'calibrate needs --annotations FILE (human rule scores) or --judge MODEL --dataset ID');
    if (flags.annotations && flags.judge) throw new HptError('E_CONFIG', 'give either --annotations FILE or --judge MODEL, not both');
    if (flags.save && !flags.dataset) throw new HptError('E_CONFIG', '--save needs --dataset: the dataset whose HPI_Dataset is saved');
    if (flags.judge && !flags.dataset) throw new HptError('E_CONFIG', '--judge needs --dataset: the dataset to sample');

    let result: CalibrationResult & { source?: string };
    let extra: Record<string, Json> = {};
    let datasetId: string | undefined;
    if (flags.annotations) {
      const rows = await readAnnotations(flags.annotations);
      result = calibrateFromAnnotations(rows, flags.annotations);
      if (flags.dataset) {
        // resolve the id as `hpt-bench run` will (aliases, qualified ids), so the saved value is found again
        const { registry } = this.discover(flags.plugin);
        datasetId = registry.get('datasets', flags.dataset).id;
      }
    } else {
      const r = await this.judgeCalibration(flags);
      datasetId = r.datasetId;
      result = r.result;
      extra = r.extra;
    }

    const output: Record<string, Json> = {
      hpiDataset: result.hpiDataset,
      n: result.n,
      ruleMeans: result.ruleMeans,
      ...(result.source ? { source: result.source } : {}),
      ...(datasetId ? { dataset: datasetId } : {}),
      ...extra,
    };
    if (flags.save) output.saved = saveHpiDataset(flags.store, { dataset: datasetId!, hpiDataset: result.hpiDataset, n: result.n, source: result.source ?? 'annotations' });
    if (flags.json) {
      this.printJson(output);
      return;
    }
    this.log(renderCalibration(result, datasetId, flags.save ? storeLabel(flags.store) : undefined));
  }

  /** `--judge`: sample the dataset, rate each sample's task text, and average (`calibrateWithJudge`). */
  private async judgeCalibration(flags: Interfaces.InferredFlags<typeof Calibrate.flags & typeof Calibrate.baseFlags>): Promise<{ datasetId: string; result: CalibrationResult & { source: string }; extra: Record<string, Json> }> {
    const fraction = numberFlag('--fraction', flags.fraction, Number.MIN_VALUE, 1);
    const spec: CalibrateSpec = {
      dataset: flags.dataset!,
      ...(flags.data ? { data: flags.data } : {}),
      ...(flags.split ? { split: flags.split } : {}),
      ladder: flags.ladder,
      model: flags.judge!,
      fraction,
      ...(flags.limit ? { limit: flags.limit } : {}),
      seed: flags.seed,
      temperature: numberFlag('--temperature', flags.temperature, 0, 2),
      maxTokens: flags['max-tokens'],
      cacheDir: flags['cache-dir'],
      ...judgeCallSettingsFrom(flags),
    };
    const { registry, container } = this.discover(flags.plugin);
    const r = await calibrateWithJudge(spec, { store: flags.store, plugins: { registry, container }, logger: this.logger });
    return {
      datasetId: r.datasetId,
      result: r.result,
      extra: { model: r.model, sampled: r.sampled, datasetSize: r.datasetSize, invalid: r.invalid, errored: r.errored, seed: flags.seed, fraction },
    };
  }
}


/**
 * Read an annotation file: `.jsonl` (one object per line) or CSV (anything else; header row required, parsed with
 * csv-parse). Rows are validated (`annotationRow`); errors name the file, the line and the field.
 * @throws HptError `E_DATA` for a missing or unreadable file, a missing column, a bad score, or malformed CSV.
 */
async function readAnnotations(file: string): Promise<AnnotationRow[]> {
  const name = file;
  if (!existsSync(file)) throw new HptError('E_DATA', `annotations file ${file} does not exist`);
  let text: string;
  try {
    text = readJsonText(file);
  } catch (e) {
    throw new HptError('E_DATA', `cannot read annotations file ${file}: ${(e as Error).message}`);
  }
  if (/\.jsonl$/i.test(file)) return parseAnnotationsJsonl(text, name);
  const { parse } = await import('csv-parse/sync');
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, info: true }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (e) {
    throw new HptError('E_DATA', `${name}: not valid CSV: ${(e as Error).message}`);
  }
  if (records.length === 0) throw new HptError('E_DATA', `${name}: the file is empty (expected a header row id,rule1,rule2,rule3,rule4 and one row per sample)`);
  const [header, ...rows] = records;
  const columns = header!.record.map((c) => c.trim().toLowerCase());
  checkAnnotationColumns(columns, name, header!.info.lines);
  return rows.map(({ record, info }) => {
    const values: Record<string, string> = {};
    columns.forEach((c, i) => {
      if (record[i] !== undefined && !(c in values)) values[c] = record[i]!;
    });
    return annotationRow(values, name, info.lines);
  });
}

/** The human-readable result: HPI_Dataset (full precision and rounded), n and the four rule means. */
function renderCalibration(r: CalibrationResult & { source?: string }, dataset: string | undefined, savedIn: string | undefined): string {
  const t = new TerminalTable({ head: ['', dataset ?? 'HPI_Dataset'] });
  t.push(['HPI_Dataset', `${r.hpiDataset} (${r.hpiDataset.toFixed(2)})`], ['samples (n)', String(r.n)]);
  const names = ['Basic Recall and Reproduction', 'Understanding and Interpretation', 'Analysis and Reasoning', 'Application of Knowledge and Execution'];
  r.ruleMeans.forEach((m, i) => t.push([`rule ${i + 1} mean (${names[i]})`, m.toFixed(4)]));
  t.push(['source', r.source ?? 'annotations']);
  return `${t.toString()}${savedIn ? `\nsaved as the HPI_Dataset of ${dataset} in ${savedIn}` : ''}`;
}
