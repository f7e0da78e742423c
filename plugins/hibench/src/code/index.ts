/**
 * Scenario 5 — Code (specs/hibench.md §3.5): SpaceComplexity and TimeComplexity of curated LeetCode solutions (Python
 * and C++), zero/one/few-shot; the records are built from `--data` (./suite.ts), the prompts and examples are the
 * program machinery's (../lib/program/complexity.ts).
 */
import {
  inject,
  injectable,
  Tokens,
  type Dataset,
  type DatasetLoadOptions,
  type GenerateOptions,
  type Json,
  type Logger,
  type Sample,
} from '@hpt-bench/sdk';
import { HIBENCH_HPI_DATASET, loadRecordsFile, recordToSample, toSuiteFilter } from '../dataset.js';
import { AR } from '../dimensions.js';
import { filterDecl, iclFilter, type Scenario } from '../scenario.js';
import { CODE_TASKS, PROGRAM_PROMPT, PROGRAM_RECORD_PART } from '../lib/program/complexity.js';
import { codeInput, curatedPrograms } from '../lib/program/curated.js';
import type { CodeItem } from '../lib/program/source.js';
import { CODE_LANGUAGES, CodeSyntax } from '../lib/program/syntax.js';
import { generateCode, resolveCodeFilter } from './suite.js';

export { buildCodeRecord, generateCode, resolveCodeFilter, type CodeSelection } from './suite.js';

/**
 * HiBench Code (spec §3.5): SpaceComplexity and TimeComplexity of LeetCode solutions (Python and C++), zero/one/few-shot;
 * 189 programs x 2 tasks x 3 ICL modes = 1,134 queries with the shared code.jsonl. The data is curated, not generated,
 * so `--data` is required: a code.jsonl-like file, the toolkit's folder layout (`c++Selected/`, `pythonSelected/` with
 * `answer.json`), or a file of records written by `hpt-bench generate hibench/code`.
 *
 * `load` parses every program with tree-sitter (../lib/program/syntax.ts) before the first sample; a program whose tree
 * has ERROR or MISSING nodes is reported as a warning through the injected Logger (it is still asked: its labels are
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
    const items = curatedPrograms(this.id, options.data, (m) => this.log?.warn(m));
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
    const input = codeInput(this.id, options, this.log, () => resolveCodeFilter(filter));
    if (input.kind === 'records') {
      yield* loadRecordsFile(CODE_SCENARIO, input.data, filter, options);
      return;
    }
    const { items, warn } = input;
    await this.checkSyntax(items, warn);
    let i = 0;
    for (const r of generateCode(items, { seed: options.seed ?? 0, compat: options.compat ?? 'strict', filter })) yield recordToSample(r, i++);
  }
}

/** The Code scenario (specs/hibench.md §3.5): records built from curated programs (`--data`), no generator. */
export const CODE_SCENARIO: Scenario = {
  name: 'code',
  manifest: {
    description: 'HiBench Code (curated LeetCode solutions, --data): space and time complexity of Python and C++ programs, zero/one/few-shot; 1,134 queries with the 189 programs of code.jsonl',
    module: './dist/index.js',
    export: 'CodeDataset',
    scorer: 'hierarchy',
    hpiDataset: HIBENCH_HPI_DATASET,
    filters: [
      filterDecl('task', 'only these tasks (specs/hibench.md §3.5)', CODE_TASKS),
      filterDecl('language', 'only programs in these languages (specs/hibench.md §3.5)', CODE_LANGUAGES),
      iclFilter(),
    ],
  },
  dataset: CodeDataset,
  prompt: PROGRAM_PROMPT,
  tasks: CODE_TASKS,
  matchers: ['string'],
  select: resolveCodeFilter,
  record: PROGRAM_RECORD_PART,
  dimensions: { SpaceComplexity: AR, TimeComplexity: AR },
  report: { label: 'Code' },
};
