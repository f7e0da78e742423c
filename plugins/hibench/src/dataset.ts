import { readFileSync } from 'node:fs';
import {
  assertValid,
  HptError,
  inject,
  injectable,
  isHptError,
  readPlacedRecords,
  Tokens,
  type Dataset,
  type DatasetLoadOptions,
  type CompatMode,
  type GenerateOptions,
  type Json,
  type Logger,
  type Sample,
} from '@hpt-bench/sdk';
import { isDirectory, isSourceEntry, readCodeSource, type CodeItem } from './code/source.js';
import { generateCode, resolveCodeFilter } from './code/suite.js';
import { CodeSyntax } from './code/syntax.js';
import { resolveCodeStructureFilter } from './code-structure/suite.js';
import { generateCodeGen, resolveCodeGenFilter } from './code-gen/suite.js';
import { paperQuestions, qasperTree, readQasperPaper } from './paper/qasper.js';
import { DEMO_PAPERS_FILE, readPaperInput } from './paper/sources.js';
import { generatePaperRecords, noRecordsError, resolvePaperFilter, toolkitPaperRecords, type SwapReport } from './paper/suite.js';
import { generateFormula, resolveFormulaFilter } from './formula/generate.js';
import { generateJson, resolveJsonFilter } from './json/suite.js';
import { generateBinaryTree } from './tree/binary.js';
import { generateMultipleTree } from './tree/multiple.js';
import { resolveTreeFilter } from './tree/suite.js';
import { selects, type Exemplar, type AnyHibenchRecord, type IclMode, type Representation, type Scenario, type ScenarioGenerator, type Selection, type SuiteFilter } from './types.js';

/**
 * HPI_Dataset of the generated HiBench datasets: 2.60, the mean of the seven published HPT constants (hpt.md §2.4:
 * 3.03, 2.14, 4.68, 1.71, 2.52, 1.92, 2.23), rounded to two decimals. HiBench has no human-annotated penalty; override it
 * with `hpt-bench run --hpi-dataset X` (hpt.md rec. 21 asks for a user-supplied constant for new datasets).
 */
export const HIBENCH_HPI_DATASET = 2.6;

/**
 * The records of hibench/paper without a file (`run` without --data, `generate`): generated from the papers of the
 * `source` filter (one path: toolkit file or QASPER JSON/JSONL), else from the embedded demo papers.
 */
function generatePaper(options: { seed: number; compat: GenerateOptions['compat']; filter: SuiteFilter & { source?: string[] } }): Generator<AnyHibenchRecord> {
  const sel = resolvePaperFilter(options.filter);
  const sources = options.filter.source ?? [];
  if (sources.length > 1) throw new HptError('E_CONFIG', `paper: --filter source takes one file, got ${sources.length}`);
  const path = sources[0] ?? DEMO_PAPERS_FILE;
  const input = readPaperInput(path);
  if (input.kind === 'toolkit') return toolkitPaperRecords(input.records, options.seed, options.compat, sel);
  if (input.kind === 'papers') return generatePaperRecords(input.papers, options.seed, options.compat, sel);
  throw new HptError('E_CONFIG', `paper: ${path} holds generated records already; use it with run --data`);
}

/** The procedurally generated scenarios (Code is built from curated data, see CodeDataset). */
type GeneratedScenario = Exclude<Scenario, 'code' | 'code-structure'>;

const GENERATORS: Record<GeneratedScenario, ScenarioGenerator> = {
  'binary-tree': generateBinaryTree,
  'multiple-tree': generateMultipleTree,
  json: generateJson,
  formula: generateFormula,
  paper: (o) => generatePaper(o),
  'code-gen': generateCodeGen,
};

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
 * presets carry the balance: `easy-balanced`), the language when it is not the preset (hibench/code-gen), notation
 * variant, representation, semantics and ICL mode — everything but the item.
 */
export function configKey(r: AnyHibenchRecord): string {
  const a = r.args as Record<string, Json>;
  const variant = typeof a.format1 === 'string' && typeof a.format2 === 'string' ? `${a.format1}2${a.format2}` : typeof a.format === 'string' ? a.format : undefined;
  // hibench/code-gen: the language is not the preset (hibench/code's preset is its language)
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

/** Each scenario's filter resolver (validation included), used to select records read from a file. */
const SELECTIONS: Record<Scenario, (filter: SuiteFilter) => Selection> = {
  code: resolveCodeFilter,
  'binary-tree': (f) => resolveTreeFilter('binary-tree', f),
  'multiple-tree': (f) => resolveTreeFilter('multiple-tree', f),
  json: resolveJsonFilter,
  formula: (f) => {
    const r = resolveFormulaFilter({ seed: 0, compat: 'strict', filter: f });
    return { tasks: r.tasks, presets: r.cells.map((c) => c.name), icl: r.icl };
  },
  paper: resolvePaperFilter,
  'code-structure': resolveCodeStructureFilter,
  'code-gen': resolveCodeGenFilter,
};

/**
 * A HiBench scenario as an hpt-bench dataset (DESIGN.md "generated"): `generate` streams the scenario's records;
 * `load` streams them as ladder samples, generated on the fly from the run's seed, compat mode and filters, or read back
 * from a file written by `hpt-bench generate` (`--data`), each line validated against schemas/hibench-record.schema.json.
 */
export abstract class HibenchDataset implements Dataset {
  abstract readonly id: GeneratedScenario;

  /** Reads `--data` records that are not `hpt-bench generate` output (hibench/paper: toolkit and QASPER files). */
  protected loadOther(_path: string, _options: DatasetLoadOptions): Iterable<AnyHibenchRecord> | undefined {
    return undefined;
  }

  /**
   * The scenario's records, drawn from `options.seed` (hibench/paper: see `PaperDataset.generate`).
   * @throws HptError `E_CONFIG` on an unknown filter value (from the scenario generator), or when `options.data` is given:
   *   these scenarios are drawn at random and read no file, so a `--data` would be silently ignored.
   */
  generate(options: GenerateOptions): Iterable<Record<string, Json>> {
    if (options.data !== undefined) {
      throw new HptError('E_CONFIG', `hibench/${this.id} is drawn at random from --seed and reads no file: drop --data (a file written by \`hpt-bench generate\` is evaluated with \`hpt-bench run --dataset hibench/${this.id} --data FILE\`)`);
    }
    return GENERATORS[this.id]({ seed: options.seed, compat: options.compat, filter: toSuiteFilter(options.filters) }) as Iterable<unknown> as Iterable<Record<string, Json>>;
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
      for (const r of GENERATORS[this.id]({ seed: options.seed ?? 0, compat: options.compat ?? 'strict', filter })) yield recordToSample(r, i++);
      return;
    }
    const other = this.loadOther(options.data, options);
    if (other !== undefined) {
      let i = 0;
      for (const r of other) yield recordToSample(r, i++);
      if (i === 0) throw noRecordsError(options.data);
      return;
    }
    yield* loadRecordsFile(this.id, options.data, filter, options);
  }
}

/**
 * The samples of a file written by `hpt-bench generate` (each record validated against hibench-record.schema.json),
 * selected by the scenario's own resolution of the filter (the same validation and the same records the generator
 * selects). Records are named by their place, counted from 1 (`line 3` of a JSONL file, `item 3` of a JSON array).
 * @param invalid the run's `--on-invalid` and warning sink: with `skip`, a record that is not a valid HiBench record is
 *   left out and `warn` told (`skipped <file> line 3 is invalid: ...`); default: it fails the load.
 * @throws HptError `E_CONFIG` for a record of another scenario; `E_DATA` for an invalid record (unless skipped) or a
 *   line that is not JSON.
 */
export async function* loadRecordsFile(scenario: Scenario, data: string, filter: SuiteFilter, invalid?: Pick<DatasetLoadOptions, 'onInvalid' | 'warn'>): AsyncGenerator<Sample> {
  const selection = SELECTIONS[scenario](filter);
  let i = 0;
  for await (const { record: raw, place } of readPlacedRecords(data)) {
    let r: AnyHibenchRecord;
    try {
      r = assertValid<AnyHibenchRecord>('hibench-record', raw, `${data} ${place}`, 'E_DATA');
    } catch (e) {
      if (invalid?.onInvalid !== 'skip' || !isHptError(e)) throw e;
      invalid.warn(`skipped ${e.message}`);
      continue;
    }
    if (r.scenario !== scenario) throw new HptError('E_CONFIG', `${data} ${place} is a ${r.scenario} record, not ${scenario}; use --dataset hibench/${r.scenario}`);
    if (selects(selection, r)) yield recordToSample(r, i++);
  }
}

/** HiBench Binary Tree (spec §3.1): 6 tasks, presets easy/medium/hard x balanced/unbalanced; 4,968 queries by default. */
export class BinaryTreeDataset extends HibenchDataset {
  readonly id = 'binary-tree' as const;
}

/** HiBench Multiple Tree (spec §3.2): 9 tasks, presets easy, medium-1, medium-2, hard-1, hard-2; 9,558 queries. */
export class MultipleTreeDataset extends HibenchDataset {
  readonly id = 'multiple-tree' as const;
}

/** HiBench JSON (spec §3.3): 10 question sub-types over procedurally generated university documents. */
export class JsonDataset extends HibenchDataset {
  readonly id = 'json' as const;
}

/** HiBench Formula (spec §3.4): calculation, conversion, equivalence over 27 complexity cells; 18,954 queries. */
export class FormulaDataset extends HibenchDataset {
  readonly id = 'formula' as const;
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

/**
 * The programs of a curated-code dataset (hibench/code, hibench/code-structure) at `data`: a code.jsonl-like file or
 * the toolkit's folder layout (`readCodeSource`; `warn` gets its notes, `skip` — given under `--on-invalid skip` — the
 * entries left out for missing fields or labels). @throws HptError `E_CONFIG` without `--data`; `E_DATA` for
 * unreadable data, or an invalid entry without `skip`.
 */
export function curatedPrograms(scenario: 'code' | 'code-structure', data: string | undefined, warn: (m: string) => void, skip?: (m: string) => void): CodeItem[] {
  if (!data) throw new HptError('E_CONFIG', `hibench/${scenario} is built from curated programs: give --data (a code.jsonl file, or a folder with c++Selected/ and pythonSelected/)`);
  return readCodeSource(data, warn, skip);
}

/**
 * What `load` of a curated-code dataset reads: `records` when `--data` is a file written by `hpt-bench generate`
 * (stream it with `loadRecordsFile`), else the `programs` (`curatedPrograms`) with the warning sink of the load (the
 * injected Logger, else the load's `warn`). `checkFilter` (the scenario's filter validation) runs after the split check
 * and before any file is read, so errors come in that order.
 * @throws HptError `E_CONFIG` with `--split` (these datasets have none), from `checkFilter`, or without `--data`;
 *   `E_DATA` for unreadable data.
 */
export function codeInput(
  scenario: 'code' | 'code-structure',
  options: DatasetLoadOptions,
  log: Logger | undefined,
  checkFilter: () => void,
): { kind: 'records'; data: string } | { kind: 'programs'; items: CodeItem[]; warn: (m: string) => void } {
  if (options.split) throw new HptError('E_CONFIG', `hibench/${scenario} has no splits (got --split ${options.split}); use --task, --language, --icl`);
  checkFilter();
  const data = options.data;
  if (data && !isDirectory(data) && !isSourceEntry(firstObject(data) ?? {})) return { kind: 'records', data };
  const warn = (m: string): void => {
    if (log) log.warn(m);
    else options.warn(m);
  };
  // --on-invalid skip: an entry without its labels is left out and counted as skipped by the run (the load's `warn`)
  return { kind: 'programs', items: curatedPrograms(scenario, data, warn, options.onInvalid === 'skip' ? options.warn : undefined), warn };
}

/**
 * HiBench Code (spec §3.5): SpaceComplexity and TimeComplexity of LeetCode solutions (Python and C++), zero/one/few-shot;
 * 189 programs x 2 tasks x 3 ICL modes = 1,134 queries with the shared code.jsonl. The data is curated, not generated,
 * so `--data` is required: a code.jsonl-like file, the toolkit's folder layout (`c++Selected/`, `pythonSelected/` with
 * `answer.json`), or a file of records written by `hpt-bench generate hibench/code`.
 *
 * `load` parses every program with tree-sitter (./code/syntax.ts) before the first sample; a program whose tree has
 * ERROR or MISSING nodes is reported as a warning through the injected Logger (it is still asked: its labels are
 * valid, and the toolkit asks it too), with the time the parse took logged at debug level.
 */
@injectable()
export class CodeDataset implements Dataset {
  readonly id = 'code' as const;

  constructor(@inject(Tokens.Logger) private readonly log?: Logger) {}



  /** The records for `options.data` (a code.jsonl file or the toolkit folder). @throws HptError E_CONFIG / E_DATA. */
  generate(options: GenerateOptions & { data?: string }): Iterable<Record<string, Json>> {
    const filter = toSuiteFilter(options.filters);
    resolveCodeFilter(filter);
    const items = curatedPrograms('code', options.data, (m) => this.log?.warn(m));
    return generateCode(items, { seed: options.seed, compat: options.compat, filter }) as Iterable<unknown> as Iterable<Record<string, Json>>;
  }

  /** Parses every program; warns (Logger and the load's `warn`) about those with ERROR/MISSING nodes. */
  async checkSyntax(items: readonly CodeItem[], warn: (m: string) => void): Promise<{ bad: string[]; ms: number }> {
    const t0 = performance.now();
    const syntax = await CodeSyntax.create();
    const bad: string[] = [];
    try {
      for (const item of items) {
        const report = syntax.check(item.language, item.code);
        if (!report.ok) {
          bad.push(item.id);
          const first = report.issues[0]!;
          warn(`hibench/code: ${item.id} does not parse as ${item.language} (${report.issues.length} ERROR/MISSING node(s), first at line ${first.line}:${first.column}: ${JSON.stringify(first.text)}); asked anyway`);
        }
      }
    } finally {
      syntax.delete();
    }
    const ms = performance.now() - t0;
    this.log?.debug(`hibench/code: parsed ${items.length} programs with tree-sitter in ${ms.toFixed(0)} ms (${bad.length} with errors)`);
    return { bad, ms };
  }

  /**
   * @throws HptError `E_CONFIG` without --data, with --split, or for an unknown filter value; `E_DATA` for unreadable data.
   */
  async *load(options: DatasetLoadOptions): AsyncGenerator<Sample> {
    const filter = toSuiteFilter(options.filters);
    const input = codeInput('code', options, this.log, () => resolveCodeFilter(filter));
    if (input.kind === 'records') {
      yield* loadRecordsFile('code', input.data, filter, options);
      return;
    }
    const { items, warn } = input;
    await this.checkSyntax(items, warn);
    let i = 0;
    for (const r of generateCode(items, { seed: options.seed ?? 0, compat: options.compat ?? 'strict', filter })) yield recordToSample(r, i++);
  }
}

/** QASPER on the Hugging Face hub (specs/hibench.md §3.6: the Paper scenario's source). */
export const QASPER_HUB = { dataset: 'allenai/qasper', config: 'qasper' } as const;
const QASPER_SPLITS = ['train', 'validation', 'test'];

/**
 * HiBench Paper (spec §3.6): contextual QA, disordered section, outline extraction over QASPER papers. `--data` takes
 * the toolkit's released `dataset/Paper/<task>/{dev,test}.json` (as released; strict mode swaps the named sections of
 * disordered-section contexts that do not show their swap, and logs how many), QASPER JSON/JSONL (converted; structure
 * tasks generated with the run seed), or `hpt-bench generate` output. `--split`: QASPER from the hub. Without either: the
 * `source` filter's file, else the embedded demo papers.
 */
export class PaperDataset extends HibenchDataset {
  readonly id = 'paper' as const;
  static inject = [Tokens.Logger];

  constructor(private readonly logger?: Logger) {
    super();
  }

  /**
   * The records of `hpt-bench generate hibench/paper`: with `options.data` (`--data`), those of that file — the toolkit's
   * released records, or QASPER papers with the structure tasks generated from `options.seed` — exactly as `run
   * --dataset hibench/paper --data FILE` reads them; otherwise those of the `source` filter's file, else of the
   * embedded demo papers.
   * @throws HptError `E_CONFIG` when `--data` and the `source` filter are both given, for a file of generated records
   *   (evaluate it with `run --data`), or on an unknown filter value; `E_DATA` for an unreadable file.
   */
  override generate(options: GenerateOptions): Iterable<Record<string, Json>> {
    const filter = toSuiteFilter(options.filters) as SuiteFilter & { source?: string[] };
    checkPaperSources({ data: options.data, source: filter.source });
    if (options.data === undefined) return super.generate(options);
    const records = this.fileRecords(options.data, options.seed, options.compat, resolvePaperFilter(filter));
    if (records === undefined) throw new HptError('E_CONFIG', `hibench/paper: ${options.data} holds generated records already; evaluate it with \`hpt-bench run --dataset hibench/paper --data ${options.data}\``);
    return records as Iterable<unknown> as Iterable<Record<string, Json>>;
  }

  /**
   * `--split train|validation|test` (`dev` = validation) without `--data`: QASPER itself, `allenai/qasper` (config
   * `qasper`) through the host's hub loader (`options.hubRows`; cached under `--cache-dir`), converted and generated
   * with the run seed; otherwise as the other HiBench datasets (`--data`, or the `source` filter / demo papers).
   * `--data`, `--split` and the `source` filter are three sources of papers: one at a time.
   * @throws HptError `E_CONFIG` for another split, for two sources at once, or when the host provides no hub loader.
   */
  override async *load(options: DatasetLoadOptions): AsyncGenerator<Sample> {
    checkPaperSources({ data: options.data, split: options.split, source: options.filters?.source });
    if (!options.split) {
      yield* super.load(options);
      return;
    }
    const split = options.split === 'dev' ? 'validation' : options.split;
    if (!QASPER_SPLITS.includes(split)) throw new HptError('E_CONFIG', `hibench/paper: unknown --split '${options.split}' (QASPER splits: ${QASPER_SPLITS.join(', ')}; dev = validation)`);
    if (!options.hubRows) throw new HptError('E_CONFIG', 'hibench/paper: this host cannot load Hugging Face datasets; pass a local QASPER file with --data');
    const sel = resolvePaperFilter(toSuiteFilter(options.filters));
    const papers = [];
    let row = 0;
    for await (const r of options.hubRows({ ...QASPER_HUB, split })) {
      // rows are named from 1, as every place in a data error
      const p = readQasperPaper(r as Json, `hf:${QASPER_HUB.dataset} ${split} row ${++row}`);
      papers.push({ id: p.id, tree: qasperTree(p), questions: paperQuestions(p) });
    }
    let i = 0;
    for (const r of generatePaperRecords(papers, options.seed ?? 0, options.compat ?? 'strict', sel)) yield recordToSample(r, i++);
    if (i === 0) throw noRecordsError(`hf:${QASPER_HUB.dataset} ${split}`);
  }

  protected override loadOther(path: string, options: DatasetLoadOptions): Iterable<AnyHibenchRecord> | undefined {
    return this.fileRecords(path, options.seed ?? 0, options.compat ?? 'strict', resolvePaperFilter(toSuiteFilter(options.filters)), options.onInvalid === 'skip' ? options.warn : undefined);
  }

  /**
   * The records of a Paper file (`readPaperInput`): the toolkit's records as released (strict mode swaps the named
   * sections of disordered-section contexts that do not show their swap, and says how many on the logger once the
   * stream is read), or QASPER papers with the structure tasks generated from `seed`; undefined for a file of records
   * `hpt-bench generate` wrote (read by `loadRecordsFile`).
   * @param skip `--on-invalid skip`: records that cannot be read are left out and reported here.
   */
  private fileRecords(path: string, seed: number, compat: CompatMode, sel: ReturnType<typeof resolvePaperFilter>, skip?: (message: string) => void): Iterable<AnyHibenchRecord> | undefined {
    const input = readPaperInput(path, skip);
    if (input.kind === 'papers') return generatePaperRecords(input.papers, seed, compat, sel);
    if (input.kind === 'hibench') return undefined;
    const report: SwapReport = { total: 0, unswapped: 0, unknown: 0, repaired: 0 };
    const logger = this.logger;
    return (function* () {
      yield* toolkitPaperRecords(input.records, seed, compat, sel, report);
      if (compat !== 'reference' && report.total > 0 && report.unswapped + report.unknown > 0) {
        const msg =
          `hibench/paper: ${report.unswapped} of ${report.total} disordered_section contexts in ${path} do not show the swap their reference names ` +
          `(${report.unknown} undetermined; the released data's defect, specs/hibench.md §3.6); strict mode swapped the named sections in ${report.repaired} of them. ` +
          'Use --compat reference to score the released texts as they are, or generate the task from QASPER papers.';
        if (logger) logger.warn(msg);
        else process.emitWarning(msg);
      }
    })();
  }
}

/**
 * hibench/paper reads its papers from one source: `--data FILE`, `--split` (QASPER from the hub) or the `source` filter
 * (`--source FILE`); with two, one would be silently ignored.
 * @throws HptError `E_CONFIG` naming the two given.
 */
export function checkPaperSources(given: { data?: string | undefined; split?: string | undefined; source?: readonly string[] | undefined }): void {
  const named = [given.data !== undefined ? '--data' : undefined, given.split ? '--split' : undefined, given.source?.length ? '--source' : undefined].filter((x): x is string => x !== undefined);
  if (named.length > 1) throw new HptError('E_CONFIG', `hibench/paper: ${named.join(' and ')} are two sources of papers; give one (--data FILE, --split train|validation|test, or --source FILE)`);
}
