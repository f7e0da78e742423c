/**
 * Scenario 6 — Paper (specs/hibench.md §3.6): contextual QA, disordered section and outline extraction over QASPER
 * papers as section trees (./suite.ts), from the toolkit's released files, QASPER (JSON/JSONL, or the hub with
 * `--split`) or the embedded demo papers (./sources.ts). Scored by `hierarchy-paper` (../match/scorer.ts): fractional
 * scores, solved at `--threshold`.
 */
import { HptError, Tokens, type CompatMode, type DatasetLoadOptions, type GenerateOptions, type Json, type Logger, type Sample } from '@hpt-bench/sdk';
import { HIBENCH_HPI_DATASET, HibenchDataset, recordToSample, toSuiteFilter } from '../dataset.js';
import { TR } from '../dimensions.js';
import { filterDecl, iclFilter, type Scenario } from '../scenario.js';
import type { AnyHibenchRecord, SuiteFilter } from '../types.js';
import { PAPER_REPRESENTATIONS } from './document.js';
import { paperQuestions, qasperTree, readQasperPaper } from './qasper.js';
import { DEMO_PAPERS_FILE, readPaperInput } from './sources.js';
import { generatePaperRecords, noRecordsError, PAPER_PRESETS, PAPER_PROMPT, PAPER_TASKS, resolvePaperFilter, toolkitPaperRecords, type SwapReport } from './suite.js';

/** QASPER on the Hugging Face hub (specs/hibench.md §3.6: the Paper scenario's source). */
export const QASPER_HUB = { dataset: 'allenai/qasper', config: 'qasper' } as const;
const QASPER_SPLITS = ['train', 'validation', 'test'];

/**
 * The records of hibench/paper without a file (`run` without --data, `generate`): generated from the papers of the
 * `source` filter (one path: toolkit file or QASPER JSON/JSONL), else from the embedded demo papers.
 * @throws HptError `E_CONFIG` for more than one `source`, a file of generated records, or an unknown filter value;
 *   `E_DATA` for an unreadable file.
 */
export function generatePaper(options: { seed: number; compat: CompatMode; filter: SuiteFilter & { source?: string[] } }): Generator<AnyHibenchRecord> {
  const sel = resolvePaperFilter(options.filter);
  const sources = options.filter.source ?? [];
  if (sources.length > 1) throw new HptError('E_CONFIG', `paper: --filter source takes one file, got ${sources.length}`);
  const path = sources[0] ?? DEMO_PAPERS_FILE;
  const input = readPaperInput(path);
  if (input.kind === 'toolkit') return toolkitPaperRecords(input.records, options.seed, options.compat, sel);
  if (input.kind === 'papers') return generatePaperRecords(input.papers, options.seed, options.compat, sel);
  throw new HptError('E_CONFIG', `paper: ${path} holds generated records already; use it with run --data`);
}

/**
 * HiBench Paper (spec §3.6): contextual QA, disordered section, outline extraction over QASPER papers. `--data` takes
 * the toolkit's released `dataset/Paper/<task>/{dev,test}.json` (as released; strict mode swaps the named sections of
 * disordered-section contexts that do not show their swap, and logs how many), QASPER JSON/JSONL (converted; structure
 * tasks generated with the run seed), or `hpt-bench generate` output. `--split`: QASPER from the hub. Without either: the
 * `source` filter's file, else the embedded demo papers.
 */
export class PaperDataset extends HibenchDataset {
  static inject = [Tokens.Logger];

  constructor(private readonly logger?: Logger) {
    super(PAPER_SCENARIO);
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

  /**
   * `--data`: the toolkit's records or QASPER papers (`fileRecords`; none is an error), else a file written by
   * `hpt-bench generate` (the default reader).
   * @throws HptError `E_DATA` when the file yields no Paper record, or as `loadRecordsFile`.
   */
  protected override async *loadFile(data: string, filter: SuiteFilter, options: DatasetLoadOptions): AsyncGenerator<Sample> {
    const other = this.fileRecords(data, options.seed ?? 0, options.compat ?? 'strict', resolvePaperFilter(filter), options.onInvalid === 'skip' ? options.warn : undefined);
    if (other === undefined) {
      yield* super.loadFile(data, filter, options);
      return;
    }
    let i = 0;
    for (const r of other) yield recordToSample(r, i++);
    if (i === 0) throw noRecordsError(data);
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

/** The Paper scenario (specs/hibench.md §3.6). */
export const PAPER_SCENARIO: Scenario = {
  name: 'paper',
  manifest: {
    description: 'HiBench Paper (QASPER papers as section trees): contextual QA, disordered section, outline extraction; --data takes the toolkit\'s dataset/Paper files, QASPER JSON/JSONL or generate output; strict mode needs --threshold',
    module: './dist/index.js',
    export: 'PaperDataset',
    scorer: 'hierarchy-paper',
    hpiDataset: HIBENCH_HPI_DATASET,
    filters: [
      filterDecl('task', 'only these tasks (specs/hibench.md §3.6)', PAPER_TASKS),
      filterDecl('preset', 'only records of this source: released (the toolkit\'s files as released) or generated (from paper trees)', PAPER_PRESETS),
      filterDecl('representation', 'paper rendering: structured (<<<Section>>> markers, the default) and/or plain (title lines; specs/hibench.md §7 rec. 18)', PAPER_REPRESENTATIONS),
      iclFilter(),
      filterDecl('source', 'without --data (e.g. for generate): the papers to use, one file (toolkit dataset/Paper JSON, QASPER JSON or allenai/qasper rows JSONL); default: the embedded demo papers'),
    ],
  },
  dataset: PaperDataset,
  prompt: PAPER_PROMPT,
  tasks: PAPER_TASKS,
  matchers: ['hit-rate'],
  select: resolvePaperFilter,
  generate: generatePaper,
  // `document`: the paper tree the record was made from (paper/document.ts `paperToJson`)
  record: { representations: [...PAPER_REPRESENTATIONS], properties: { document: { type: 'object' } } },
  dimensions: { contextual_qa: TR, disordered_section: TR, outline_extraction: TR },
  report: {
    label: 'Paper',
    presets: PAPER_PRESETS.map((id) => ({ id })),
    note: 'Paper: the mean per-query score (hit rate in compat mode; answer-F1, outline LCS-F1 and section-set match in strict mode), whatever the solve threshold.',
  },
};
