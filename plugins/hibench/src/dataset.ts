/**
 * The dataset layer of every HiBench scenario (specs/hibench.md §1.1, §5.1): records as ladder samples
 * (`recordToSample`), the configuration key (§4.4), the generic `HibenchDataset` of the scenarios drawn at random from
 * the seed, and the reader of files written by `hpt-bench generate` (`loadRecordsFile`). Everything scenario-specific
 * comes from the `Scenario` object a dataset is built with (./scenario.ts); nothing here names a scenario.
 */
import { readFileSync } from 'node:fs';
import {
  HptError,
  isHptError,
  readPlacedRecords,
  type Dataset,
  type DatasetLoadOptions,
  type GenerateOptions,
  type Json,
  type Sample,
} from '@hpt-bench/sdk';
import type { Scenario } from './scenario.js';
import { selects, type Exemplar, type AnyHibenchRecord, type IclMode, type Representation, type SuiteFilter } from './types.js';

/**
 * HPI_Dataset of the generated HiBench datasets: 2.60, the mean of the seven published HPT constants (hpt.md §2.4:
 * 3.03, 2.14, 4.68, 1.71, 2.52, 1.92, 2.23), rounded to two decimals. HiBench has no human-annotated penalty; override it
 * with `hpt-bench run --hpi-dataset X` (hpt.md rec. 21 asks for a user-supplied constant for new datasets).
 */
export const HIBENCH_HPI_DATASET = 2.6;

/** Core's filter map (flag name -> values) as a scenario generator's `SuiteFilter`. */
export function toSuiteFilter(filters: Record<string, string[]> | undefined): SuiteFilter {
  const f = filters ?? {};
  const out: SuiteFilter = {};
  if (f.task?.length) out.tasks = f.task;
  if (f.preset?.length) out.presets = f.preset;
  if (f.representation?.length) out.representations = f.representation as Representation[];
  if (f.icl?.length) out.icl = f.icl as IclMode[];
  if (f.semantics?.length) out.semantics = f.semantics as ('normal' | 'nonsense')[];
  if (f.language?.length) out.languages = f.language as ('python' | 'cpp')[];
  if (f.source?.length) (out as SuiteFilter & { source?: string[] }).source = f.source;
  return out;
}

/** The three worked examples as the generic pack's `{exemplars}` text (level 3 of the HPF ladder). */
export function renderExemplars(exemplars: readonly Exemplar[]): string {
  const parts = exemplars.map((e, i) => `Example ${i + 1}:\n${e.input}\nAnswer: ${e.answer}`);
  return parts.length ? `Here are ${parts.length} solved examples.\n\n${parts.join('\n\n')}` : '';
}

/**
 * The configuration a record belongs to (one result file of the toolkit, spec §4.4): scenario, task, preset (binary
 * presets carry the balance: `easy-balanced`), the language when it is not the preset (a program scenario whose preset
 * is a difficulty), notation
 * variant, representation, semantics and ICL mode — everything but the item.
 */
export function configKey(r: AnyHibenchRecord): string {
  const a = r.args as Record<string, Json>;
  const variant = typeof a.format1 === 'string' && typeof a.format2 === 'string' ? `${a.format1}2${a.format2}` : typeof a.format === 'string' ? a.format : undefined;
  // the language, when it is not the preset (the curated-program scenarios' preset is their language)
  const language = r.language !== undefined && r.language !== r.preset ? r.language : undefined;
  return [r.scenario, r.task, r.preset, language, variant, r.representation, r.semantics, r.icl].filter((x) => x !== undefined && x !== null).join('/');
}

/**
 * A record as a ladder sample. Input fields for the generic prompt pack: `question` = the task text
 * with its ICL prefix (the user prompt without the answer-format sentence), `format`, `format_cot`, `exemplars`,
 * `system` (the scenario's system prompt), plus `prompt` (the exact HiBench user message). `meta` keeps what the
 * matchers and the per-configuration aggregation need.
 */
export function recordToSample(r: AnyHibenchRecord, index: number): Sample {
  let question = r.prompt.endsWith(r.format) ? r.prompt.slice(0, r.prompt.length - r.format.length) : r.prompt;
  question = question.replace(/\n$/, '');
  const meta: Record<string, Json> = {
    scenario: r.scenario,
    task: r.task,
    preset: r.preset,
    representation: r.representation,
    icl: r.icl,
    matcher: r.matcher as unknown as Json,
    config: configKey(r),
  };
  if (r.semantics) meta.semantics = r.semantics;
  if (r.language) meta.language = r.language;
  return {
    id: r.id,
    index,
    input: { prompt: r.prompt, question, format: r.format, format_cot: r.formatCot, exemplars: renderExemplars(r.exemplars), system: r.system },
    target: r.target,
    meta,
  };
}

/**
 * A HiBench scenario drawn at random from the seed as an hpt-bench dataset (DESIGN.md "generated"), for the
 * `Scenario` given to the constructor (its `generate` is required): `generate` streams the scenario's records; `load`
 * streams them as ladder samples, generated on the fly from the run's seed, compat mode and filters, or read back from
 * a file written by `hpt-bench generate` (`--data`; `loadFile`, each record validated against the plugin's record
 * schema, ./record-schema.ts). A scenario folder subclasses it with a no-argument constructor:
 * `class XDataset extends HibenchDataset { constructor() { super(X_SCENARIO); } }`.
 */
export abstract class HibenchDataset implements Dataset {
  /** @param scenario the scenario; the dataset id is its `name`. */
  constructor(protected readonly scenario: Scenario) {}

  /** The dataset id: the scenario's name. */
  get id(): string {
    return this.scenario.name;
  }

  /** The scenario's generator. @throws HptError `E_INTERNAL` for a scenario without one (a programming error). */
  private generator(): NonNullable<Scenario['generate']> {
    const g = this.scenario.generate;
    if (g === undefined) throw new HptError('E_INTERNAL', `hibench/${this.id} has no generator: its dataset class must not extend HibenchDataset`);
    return g;
  }

  /**
   * The scenario's records, drawn from `options.seed`.
   * @throws HptError `E_CONFIG` on an unknown filter value (from the scenario generator), or when `options.data` is given:
   *   these scenarios are drawn at random and read no file, so a `--data` would be silently ignored.
   */
  generate(options: GenerateOptions): Iterable<Record<string, Json>> {
    if (options.data !== undefined) {
      throw new HptError('E_CONFIG', `hibench/${this.id} is drawn at random from --seed and reads no file: drop --data (a file written by \`hpt-bench generate\` is evaluated with \`hpt-bench run --dataset hibench/${this.id} --data FILE\`)`);
    }
    return this.generator()({ seed: options.seed, compat: options.compat, filter: toSuiteFilter(options.filters) }) as Iterable<unknown> as Iterable<Record<string, Json>>;
  }

  /**
   * @throws HptError `E_CONFIG` when a split is asked for (generated datasets have none) or a file record belongs to
   *   another scenario; `E_DATA` when a file line is not a HiBench record (naming the line).
   */
  async *load(options: DatasetLoadOptions): AsyncGenerator<Sample> {
    if (options.split) throw new HptError('E_CONFIG', `hibench/${this.id} is generated and has no splits (got --split ${options.split}); use the generator filters or --data FILE.jsonl`);
    const filter = toSuiteFilter(options.filters);
    if (!options.data) {
      let i = 0;
      for (const r of this.generator()({ seed: options.seed ?? 0, compat: options.compat ?? 'strict', filter })) yield recordToSample(r, i++);
      return;
    }
    yield* this.loadFile(options.data, filter, options);
  }

  /**
   * The samples of `--data` (`load` with a file): by default a file written by `hpt-bench generate`
   * (`loadRecordsFile`); a scenario that reads other files too (its source data) overrides it.
   */
  protected loadFile(data: string, filter: SuiteFilter, options: DatasetLoadOptions): AsyncGenerator<Sample> {
    return loadRecordsFile(this.scenario, data, filter, options);
  }
}

/**
 * The samples of a file written by `hpt-bench generate` (each record validated against the plugin's record schema,
 * ./record-schema.ts), selected by the scenario's own resolution of the filter (`scenario.select`: the same validation
 * and the same records the generator selects). Records are named by their place, counted from 1 (`line 3` of a JSONL
 * file, `item 3` of a JSON array).
 * @param invalid the run's `--on-invalid` and warning sink: with `skip`, a record that is not a valid HiBench record is
 *   left out and `warn` told (`skipped <file> line 3 is invalid: ...`); default: it fails the load.
 * @throws HptError `E_CONFIG` for a record of another scenario or an unknown filter value; `E_DATA` for an invalid
 *   record (unless skipped) or a line that is not JSON.
 */
export async function* loadRecordsFile(scenario: Scenario, data: string, filter: SuiteFilter, invalid?: Pick<DatasetLoadOptions, 'onInvalid' | 'warn'>): AsyncGenerator<Sample> {
  const selection = scenario.select(filter);
  // imported here, not at the top: the record schema is assembled from the scenario list, whose folders import this
  // module (their dataset classes extend HibenchDataset), so a static import would be a cycle
  const { assertRecord } = await import('./record-schema.js');
  let i = 0;
  for await (const { record: raw, place } of readPlacedRecords(data)) {
    let r: AnyHibenchRecord;
    try {
      r = assertRecord(raw, `${data} ${place}`);
    } catch (e) {
      if (invalid?.onInvalid !== 'skip' || !isHptError(e)) throw e;
      invalid.warn(`skipped ${e.message}`);
      continue;
    }
    if (r.scenario !== scenario.name) throw new HptError('E_CONFIG', `${data} ${place} is a ${r.scenario} record, not ${scenario.name}; use --dataset hibench/${r.scenario}`);
    if (selects(selection, r)) yield recordToSample(r, i++);
  }
}

/** The first non-empty line of a JSONL file parsed, or undefined (not JSON, empty file). */
export function firstObject(path: string): Record<string, Json> | undefined {
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '');
  if (line === undefined) return undefined;
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, Json>) : undefined;
  } catch {
    return undefined;
  }
}

