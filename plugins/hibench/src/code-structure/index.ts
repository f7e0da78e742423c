/**
 * The code-structure scenario (README "Code structure"), beyond HiBench's six: hierarchy questions over the programs of
 * hibench/code (`--data`: a code.jsonl-like file, the toolkit's folder layout, or a file written by
 * `hpt-bench generate hibench/code-structure`), targets computed from tree-sitter trees.
 *
 * tree-sitter loads asynchronously (WebAssembly), but `generate` is synchronous (the SDK contract): the parsers are
 * loaded once per process by `preloadCodeStructure()`, which the plugin's manifest entry (./entry.ts) awaits at import
 * time. `load` awaits it itself.
 */
import {
  HptError,
  Tokens,
  type Dataset,
  type DatasetLoadOptions,
  type GenerateOptions,
  type Json,
  type Logger,
  type Sample,
} from '@hpt-bench/sdk';
import type { CodeItem } from '../lib/program/source.js';
import { CODE_LANGUAGES, CodeSyntax, type SyntaxReport } from '../lib/program/syntax.js';
import { codeInput, curatedPrograms } from '../lib/program/curated.js';
import { HIBENCH_HPI_DATASET, loadRecordsFile, recordToSample, toSuiteFilter } from '../dataset.js';
import { GSU, LRA } from '../dimensions.js';
import { filterDecl, iclFilter, type Scenario } from '../scenario.js';
import { PROGRAM_PROMPT, PROGRAM_RECORD_PART } from '../lib/program/complexity.js';
import { CODE_STRUCTURE_TASKS, generateCodeStructure, resolveCodeStructureFilter, type CodeStructureTask } from './suite.js';

export * from './targets.js';
export * from './suite.js';

let shared: CodeSyntax | undefined;
let loading: Promise<CodeSyntax> | undefined;

/** Loads the Python and C++ parsers once per process (kept for the process' lifetime) and returns them. */
export async function preloadCodeStructure(): Promise<CodeSyntax> {
  loading ??= CodeSyntax.create().then((s) => (shared = s));
  return loading;
}

/** The preloaded parsers. @throws HptError `E_CONFIG` when `preloadCodeStructure()` has not completed. */
export function loadedCodeSyntax(): CodeSyntax {
  if (shared === undefined) {
    throw new HptError('E_CONFIG', 'hibench/code-structure: the tree-sitter parsers are not loaded; `await preloadCodeStructure()` before calling generate');
  }
  return shared;
}

/**
 * HiBench code-structure (README "Code structure"): tasks `class_methods`, `loop_depth`, `enclosing_blocks`, `callees`
 * over the Code programs (Python and C++), zero/one/few-shot; preset = language. `--data` is required.
 * Skipped questions (a program without a call between its functions, …) are counted and logged at debug level; a
 * program whose tree has ERROR or MISSING nodes is left out with a warning (Logger, else the load's `warn`).
 */
export class CodeStructureDataset implements Dataset {
  readonly id = 'code-structure' as const;
  static inject = [Tokens.Logger];

  constructor(private readonly log?: Logger) {}



  private skipLogger(warn: (m: string) => void): {
    skipped: (id: string, task: CodeStructureTask) => void;
    unparsable: (item: CodeItem, report: SyntaxReport) => void;
    report: () => void;
  } {
    const counts = new Map<CodeStructureTask, number>();
    return {
      skipped: (_id, task) => counts.set(task, (counts.get(task) ?? 0) + 1),
      unparsable: (item, report) => {
        const first = report.issues[0]!;
        warn(`hibench/code-structure: ${item.id} does not parse as ${item.language} (${report.issues.length} ERROR/MISSING node(s), first at line ${first.line}:${first.column}); left out, its structure targets would not be exact`);
      },
      report: () => {
        const parts = CODE_STRUCTURE_TASKS.filter((t) => counts.has(t)).map((t) => `${t} ${counts.get(t)}`);
        if (parts.length) this.log?.debug(`hibench/code-structure: programs without a question, per task: ${parts.join(', ')}`);
      },
    };
  }

  /**
   * The records for `options.data`. Needs `preloadCodeStructure()` (done by the manifest entry).
   * @throws HptError `E_CONFIG` (no --data, unknown filter value, parsers not loaded), `E_DATA` (unreadable data).
   */
  generate(options: GenerateOptions & { data?: string }): Iterable<Record<string, Json>> {
    const filter = toSuiteFilter(options.filters);
    resolveCodeStructureFilter(filter);
    const syntax = loadedCodeSyntax();
    const items = curatedPrograms(this.id, options.data, (m) => this.log?.warn(m));
    const skips = this.skipLogger((m) => this.log?.warn(m));
    const records = generateCodeStructure(items, { seed: options.seed, compat: options.compat, filter, syntax, skipped: skips.skipped, unparsable: skips.unparsable });
    return (function* () {
      yield* records as Iterable<unknown> as Iterable<Record<string, Json>>;
      skips.report();
    })();
  }

  /** @throws HptError `E_CONFIG` without --data, with --split, or for an unknown filter value; `E_DATA` for unreadable data. */
  async *load(options: DatasetLoadOptions): AsyncGenerator<Sample> {
    const filter = toSuiteFilter(options.filters);
    const input = codeInput(this.id, options, this.log, () => resolveCodeStructureFilter(filter));
    if (input.kind === 'records') {
      yield* loadRecordsFile(CODE_STRUCTURE_SCENARIO, input.data, filter, options);
      return;
    }
    const { items, warn } = input;
    const syntax = await preloadCodeStructure();
    const skips = this.skipLogger(warn);
    let i = 0;
    for (const r of generateCodeStructure(items, { seed: options.seed ?? 0, compat: options.compat ?? 'strict', filter, syntax, skipped: skips.skipped, unparsable: skips.unparsable })) {
      yield recordToSample(r, i++);
    }
    skips.report();
  }
}

/**
 * The code-structure scenario (README "Code structure"): records built from the Code programs (`--data`), targets from
 * their tree-sitter trees; an extension beyond HiBench's six (reported after Avg).
 */
export const CODE_STRUCTURE_SCENARIO: Scenario = {
  name: 'code-structure',
  manifest: {
    description: 'HiBench code structure (the Code programs, --data): methods per class, loop nesting depth, enclosing blocks of a line, callees of a function; targets from tree-sitter trees; zero/one/few-shot',
    module: './dist/code-structure/entry.js',
    export: 'CodeStructureDataset',
    scorer: 'hierarchy',
    hpiDataset: HIBENCH_HPI_DATASET,
    filters: [
      filterDecl('task', 'only these tasks (plugins/hibench/README.md "Code structure")', CODE_STRUCTURE_TASKS),
      filterDecl('language', 'only programs in these languages (specs/hibench.md §3.5)', CODE_LANGUAGES),
      iclFilter(),
    ],
  },
  dataset: CodeStructureDataset,
  prompt: PROGRAM_PROMPT,
  tasks: CODE_STRUCTURE_TASKS,
  matchers: ['list', 'number'],
  select: resolveCodeStructureFilter,
  record: PROGRAM_RECORD_PART,
  // not in the paper's table (README "Code structure"): parent-child, ancestor-chain and call-edge questions are local
  // relationships, the loop nesting depth a whole-program property
  dimensions: { class_methods: LRA, enclosing_blocks: LRA, callees: LRA, loop_depth: GSU },
  report: { label: 'Code structure', extension: true },
};
