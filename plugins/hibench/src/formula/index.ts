/**
 * Scenario 4 — Formula (specs/hibench.md §3.4): calculation, notation conversion and equivalence of generated formulas
 * over 27 complexity cells (./generate.ts: the suite; ./draw.ts: the formulas; the notations are the shared
 * ../lib/notation.ts, which the matchers also use).
 */
import { HIBENCH_HPI_DATASET, HibenchDataset } from '../dataset.js';
import { AR } from '../dimensions.js';
import { filterDecl, iclFilter, type Scenario } from '../scenario.js';
import { FORMULA_PRESET_SHORTCUTS, FORMULA_PRESETS, FORMULA_PROMPT, FORMULA_TASKS, generateFormula, resolveFormulaFilter } from './generate.js';

export {
  FORMULA_CELLS,
  FORMULA_ITEMS_PER_CELL,
  FORMULA_PRESET_SHORTCUTS,
  FORMULA_PRESETS,
  FORMULA_PROMPT,
  FORMULA_TASKS,
  FORMULA_TEMPLATES,
  FORMULA_VARIANTS,
  generateFormula,
  resolveFormulaFilter,
  type FormulaCell,
  type FormulaTask,
  type FormulaVariant,
} from './generate.js';

/** HiBench Formula (spec §3.4): calculation, conversion, equivalence over 27 complexity cells; 18,954 queries. */
export class FormulaDataset extends HibenchDataset {
  constructor() {
    super(FORMULA_SCENARIO);
  }
}

/** The Formula scenario (specs/hibench.md §3.4). */
export const FORMULA_SCENARIO: Scenario = {
  name: 'formula',
  manifest: {
    description: 'HiBench Formula (generated): calculation, notation conversion, equivalence over 27 complexity cells; 18,954 queries by default',
    module: './dist/index.js',
    export: 'FormulaDataset',
    scorer: 'hierarchy',
    hpiDataset: HIBENCH_HPI_DATASET,
    filters: [
      filterDecl('task', 'only these tasks (specs/hibench.md §3)', FORMULA_TASKS),
      filterDecl('preset', 'only these presets (structure sizes or complexity cells, specs/hibench.md §3)', [...FORMULA_PRESETS, ...FORMULA_PRESET_SHORTCUTS]),
      iclFilter(),
    ],
  },
  dataset: FormulaDataset,
  prompt: FORMULA_PROMPT,
  tasks: FORMULA_TASKS,
  matchers: ['number', 'string'],
  // the records carry cell names: the preset shortcuts (easy, medium, hard) select the cells they stand for
  select: (filter) => {
    const r = resolveFormulaFilter({ seed: 0, compat: 'strict', filter });
    return { tasks: r.tasks, presets: r.cells.map((c) => c.name), icl: r.icl };
  },
  generate: generateFormula,
  record: {
    representations: [null],
    properties: {
      formula: {
        type: 'object',
        required: ['infix', 'prefix', 'postfix'],
        additionalProperties: false,
        properties: { infix: { type: 'string' }, prefix: { type: 'string' }, postfix: { type: 'string' } },
      },
    },
  },
  dimensions: { calculate: AR, convert: AR, equivalent: AR },
  report: { label: 'Formula' },
};
