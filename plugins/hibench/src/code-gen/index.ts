/**
 * The code-gen scenario (issue 15), beyond HiBench's six: seeded Python and C++ programs whose space and time
 * complexity are known by construction (./construct.ts), asked exactly like the Code scenario (specs/hibench.md §3.5;
 * ../lib/program/complexity.ts); generated on the fly from the run's seed, or read back from a file written by
 * `hpt-bench generate hibench/code-gen` (`--data`, validated against the plugin's record schema). Filters: `--task`,
 * `--preset` (easy, medium, hard), `--language` (python, cpp), `--icl`. See ./suite.ts for the records.
 */
import { HIBENCH_HPI_DATASET, HibenchDataset } from '../dataset.js';
import { AR } from '../dimensions.js';
import { filterDecl, iclFilter, type Scenario } from '../scenario.js';
import { CODE_TASKS, PROGRAM_PROMPT, PROGRAM_RECORD_PART } from '../lib/program/complexity.js';
import { CODE_LANGUAGES } from '../lib/program/syntax.js';
import { CODE_GEN_PRESETS } from './generate.js';
import { generateCodeGen, resolveCodeGenFilter } from './suite.js';

export { analyse, bigOLabel, RECURSION_KINDS, type Analysis, type Bound, type Complexity, type Construction, type LoopKind, type RecursionKind, type SizeVar, type Stmt } from './construct.js';
export { renderProgram, PY_ENTRY, type ProgramNames } from './program.js';
export { CODE_GEN_PRESETS, PRESETS as CODE_GEN_PRESET_SPECS, drawProgram, type CodeGenPreset, type DrawnProgram } from './generate.js';
export { CODE_GEN_PER_PRESET, generateCodeGen, resolveCodeGenFilter, type CodeGenSelection } from './suite.js';

/**
 * HiBench Code generator: SpaceComplexity and TimeComplexity of seeded Python and C++ programs whose bounds are known
 * by construction; 50 programs per preset × 3 presets × 2 languages × 2 tasks × 3 ICL modes = 1,800 queries by default.
 */
export class CodeGenDataset extends HibenchDataset {
  constructor() {
    super(CODE_GEN_SCENARIO);
  }
}

/** The code-gen scenario: generated programs, their exact bounds as targets; an extension reported after Avg. */
export const CODE_GEN_SCENARIO: Scenario = {
  name: 'code-gen',
  manifest: {
    description:
      'HiBench Code generator (seeded): space and time complexity of generated Python and C++ programs whose bounds are known by construction (loop nests, recursions, allocations over n and m); presets easy/medium/hard; 1,800 queries by default',
    module: './dist/index.js',
    export: 'CodeGenDataset',
    scorer: 'hierarchy',
    hpiDataset: HIBENCH_HPI_DATASET,
    filters: [
      filterDecl('task', 'only these tasks (specs/hibench.md §3.5)', CODE_TASKS),
      filterDecl('preset', 'only these difficulties: easy, medium, hard (loop-nesting depth, number of blocks, constructions allowed)', CODE_GEN_PRESETS),
      filterDecl('language', 'only programs in these languages (each construction is rendered in both)', CODE_LANGUAGES),
      iclFilter(),
    ],
  },
  dataset: CodeGenDataset,
  prompt: PROGRAM_PROMPT,
  tasks: CODE_TASKS,
  matchers: ['string'],
  select: resolveCodeGenFilter,
  generate: generateCodeGen,
  record: PROGRAM_RECORD_PART,
  dimensions: { SpaceComplexity: AR, TimeComplexity: AR },
  report: {
    label: 'Code (generated)',
    extension: true,
    presets: [
      { id: 'easy', level: 'easy' },
      { id: 'medium', level: 'medium' },
      { id: 'hard', level: 'hard' },
    ],
  },
};
