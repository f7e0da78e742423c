import { readFileSync } from 'node:fs';
import {
  assertValid,
  HptError,
  inject,
  injectable,
  readRecords,
  Tokens,
  type Dataset,
  type DatasetLoadOptions,
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

  /** @throws HptError `E_CONFIG` on an unknown filter value (from the scenario generator). */
  generate(options: GenerateOptions): Iterable<Record<string, Json>> {
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
    yield* loadRecordsFile(this.id, options.data, filter);
  }
}

/**
 * The samples of a file written by `hpt-bench generate` (each line validated against hibench-record.schema.json),
 * selected by the scenario's own resolution of the filter (the same validation and the same records the generator
 * selects). @throws HptError `E_CONFIG` for a record of another scenario, `E_DATA` for an invalid line.
 */
export async function* loadRecordsFile(scenario: Scenario, data: string, filter: SuiteFilter): AsyncGenerator<Sample> {
  const selection = SELECTIONS[scenario](filter);
  let line = 0;
  let i = 0;
  for await (const raw of readRecords(data)) {
    line++;
    const r = assertValid<AnyHibenchRecord>('hibench-record', raw, `${data} record ${line}`, 'E_DATA');
    if (r.scenario !== scenario) throw new HptError('E_CONFIG', `${data} record ${line} is a ${r.scenario} record, not ${scenario}; use --dataset hibench/${r.scenario}`);
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
 * the toolkit's folder layout (`readCodeSource`). @throws HptError `E_CONFIG` without `--data`; `E_DATA` for unreadable data.
 */
export function curatedPrograms(scenario: 'code' | 'code-structure', data: string | undefined, warn: (m: string) => void): CodeItem[] {
  if (!data) throw new HptError('E_CONFIG', `hibench/${scenario} is built from curated programs: give --data (a code.jsonl file, or a folder with c++Selected/ and pythonSelected/)`);
  return readCodeSource(data, warn);
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
  return { kind: 'programs', items: curatedPrograms(scenario, data, warn), warn };
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
      yield* loadRecordsFile('code', input.data, filter);
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
   * `--split train|validation|test` (`dev` = validation) without `--data`: QASPER itself, `allenai/qasper` (config
   * `qasper`) through the host's hub loader (`options.hubRows`; cached under `--cache-dir`), converted and generated
   * with the run seed; otherwise as the other HiBench datasets (`--data`, or the `source` filter / demo papers).
   * @throws HptError `E_CONFIG` for another split, or when the host provides no hub loader.
   */
  override async *load(options: DatasetLoadOptions): AsyncGenerator<Sample> {
    if (!options.split || options.data) {
      yield* super.load({ ...options, split: undefined });
      return;
    }
    const split = options.split === 'dev' ? 'validation' : options.split;
    if (!QASPER_SPLITS.includes(split)) throw new HptError('E_CONFIG', `hibench/paper: unknown --split '${options.split}' (QASPER splits: ${QASPER_SPLITS.join(', ')}; dev = validation)`);
    if (!options.hubRows) throw new HptError('E_CONFIG', 'hibench/paper: this host cannot load Hugging Face datasets; pass a local QASPER file with --data');
    const sel = resolvePaperFilter(toSuiteFilter(options.filters));
    const papers = [];
    let row = 0;
    for await (const r of options.hubRows({ ...QASPER_HUB, split })) {
      const p = readQasperPaper(r as Json, `hf:${QASPER_HUB.dataset} ${split} row ${row++}`);
      papers.push({ id: p.id, tree: qasperTree(p), questions: paperQuestions(p) });
    }
    let i = 0;
    for (const r of generatePaperRecords(papers, options.seed ?? 0, options.compat ?? 'strict', sel)) yield recordToSample(r, i++);
    if (i === 0) throw noRecordsError(`hf:${QASPER_HUB.dataset} ${split}`);
  }

  protected override loadOther(path: string, options: DatasetLoadOptions): Iterable<AnyHibenchRecord> | undefined {
    const input = readPaperInput(path);
    const compat = options.compat ?? 'strict';
    const seed = options.seed ?? 0;
    const sel = resolvePaperFilter(toSuiteFilter(options.filters));
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
