/**
 * The Formula generator of HiBench (specs/hibench.md §1.1, §3.4, §5.1, §7 recs. 11, 12, 20, 27): the suite (this
 * file: 3 tasks, 18 notation variants, 27 complexity cells, 13 items per cell, 3 ICL modes = 18,954 records) on top of
 * the formula drawing of `draw.ts` (levels, value sets, the infix algorithm, reference values; re-exported here).
 */
import { HptError, type CompatMode, type Json } from '@hpt-bench/sdk';
import { selectValues } from '../filter.js';
import { answerJson, assembleQuery, type PromptStyle } from '../prompt.js';
import { rngFor, type Rng } from '../rng.js';
import type { Exemplar, GenerateOptions, HibenchRecord, IclMode, MatcherSpec, Notation } from '../types.js';
import { COMPAT_EXAMPLES } from './compat-examples.js';
import { drawBaseFormula, LENGTHS, LEVELS, perturbFormula, SYMBOL_SETS, valueSet, type BaseFormula, type Level } from './draw.js';
import { NOTATIONS, render } from '../lib/notation.js';

export * from './draw.js';

/** The Formula scenario's prompt (§2, toolkit strings): its system prompt, no separators, two spaces before "and". */
export const FORMULA_PROMPT: PromptStyle = {
  system: 'As an AI agent, you are tasked with performing mathematical reasoning to assist in solving complex mathematical problems.',
  separator: '',
  formatGap: '  ',
};

/** The three Formula tasks (toolkit sub-task ids, §1.1). */
export const FORMULA_TASKS = ['calculate', 'convert', 'equivalent'] as const;

/** A Formula task id. */
export type FormulaTask = (typeof FORMULA_TASKS)[number];

/** A complexity cell (§3.4): one level per axis, named like the toolkit files `symbol_{s}_value_{v}_length_{l}`. */
export interface FormulaCell {
  name: string;
  symbol: Level;
  value: Level;
  length: Level;
}

/** The 27 cells in the toolkit's loop order (symbol, then value, then length). */
export const FORMULA_CELLS: readonly FormulaCell[] = LEVELS.flatMap((symbol) =>
  LEVELS.flatMap((value) => LEVELS.map((length) => ({ name: `symbol_${symbol}_value_${value}_length_${length}`, symbol, value, length }))),
);

/** The preset names: the 27 cell names (§3.4 dataset layout). */
export const FORMULA_PRESETS: readonly string[] = FORMULA_CELLS.map((c) => c.name);

/** Preset shortcuts accepted by the `--preset` filter: `easy`/`medium`/`hard` = the cell with all three axes at that level. */
export const FORMULA_PRESET_SHORTCUTS: readonly Level[] = LEVELS;

/** Items per (variant, cell) (§1.1: 18,954 = 18 × 27 × 13 × 3). */
export const FORMULA_ITEMS_PER_CELL = 13;

/** The ICL modes (§5.1), in stream order. */
const ICL_MODES: readonly IclMode[] = ['zero', 'one', 'few'];

/**
 * A notation variant of a task (§3.4, toolkit file prefixes): calculate `infix`/`prefix`/`postfix` (format1 only),
 * convert `{f1}2{f2}` (6 ordered distinct pairs), equivalent `{f1}Eq2{f2}` (9 ordered pairs, same-format included).
 */
export interface FormulaVariant {
  task: FormulaTask;
  name: string;
  format1: Notation;
  format2: Notation | null;
}

/** The 18 variants in stream order: calculate ×3, convert ×6, equivalent ×9. */
export const FORMULA_VARIANTS: readonly FormulaVariant[] = [
  ...NOTATIONS.map((f): FormulaVariant => ({ task: 'calculate', name: f, format1: f, format2: null })),
  ...NOTATIONS.flatMap((f1) => NOTATIONS.filter((f2) => f2 !== f1).map((f2): FormulaVariant => ({ task: 'convert', name: `${f1}2${f2}`, format1: f1, format2: f2 }))),
  ...NOTATIONS.flatMap((f1) => NOTATIONS.map((f2): FormulaVariant => ({ task: 'equivalent', name: `${f1}Eq2${f2}`, format1: f1, format2: f2 }))),
];

/** Prompt and output-format templates per task (§3.4 table, verbatim; the conversion template's "(sic)" kept). */
export const FORMULA_TEMPLATES: Readonly<Record<FormulaTask, { prompt: string; output: string }>> = {
  calculate: { prompt: 'Given a mathematical formula <FORMULA>, calculate its result.', output: '{"answer": 1}' },
  convert: {
    prompt: 'Given a mathematical <FORMAT1> formula <FORMULA>, convert it to <FORMAT2> notation.',
    output: '{"answer": 319 * 924.20 * ( ( 460 + 352.48 ) + 98 )}',
  },
  equivalent: { prompt: 'Given two mathematical formulas <FORMULA1> and <FORMULA2>, determine if they are equivalent.', output: '{"answer": "True"}' },
};

/** Fill `<KEY>` placeholders (no `$` replacement patterns). */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(/<([A-Z0-9]+)>/g, (m, key: string) => values[key] ?? m);
}

/** One question of a variant about one formula (§3.4 table): the filled task text, the reference, the matcher and the args. */
export interface FormulaQuestion {
  question: string;
  /** calculate: Python-repr string ("11", "4360.0"); convert: the format2 rendering; equivalent: "True"/"False" */
  target: string;
  matcher: MatcherSpec;
  args: Record<string, Json>;
}

/**
 * Build the question of `variant` about `base` (§3.4 prompts, references and matchers). For equivalence the
 * perturbation is drawn from `rng` with the cell's symbol and value sets (`perturbFormula`; `force` overrides its coin
 * flip); other tasks draw nothing.
 * Matchers: calculate `{type: 'number', tolerance: 0.01}`; convert `{type: 'string', skip: "[\s'\"]", notation:
 * format2}`; equivalent `{type: 'string'}`.
 */
export function formulaQuestion(variant: FormulaVariant, base: BaseFormula, cell: FormulaCell, compat: CompatMode, rng: Rng, force?: boolean): FormulaQuestion {
  const t = FORMULA_TEMPLATES[variant.task];
  const f1 = render(base.tokens, variant.format1);
  if (variant.task === 'calculate') {
    return {
      question: fill(t.prompt, { FORMULA: f1 }),
      target: base.result,
      matcher: { type: 'number', tolerance: 0.01 },
      args: { format: variant.format1, formula: f1 },
    };
  }
  const format2 = variant.format2!;
  const f2 = render(base.tokens, format2);
  if (variant.task === 'convert') {
    return {
      question: fill(t.prompt, { FORMAT1: variant.format1, FORMULA: f1, FORMAT2: format2 }),
      target: f2,
      matcher: { type: 'string', skip: '[\\s\'"]', notation: format2 },
      args: { format1: variant.format1, formula1: f1, format2, formula2: f2 },
    };
  }
  const p = perturbFormula(base, variant.format1, SYMBOL_SETS[cell.symbol], valueSet(cell.value, compat), compat, rng, force);
  return {
    question: fill(t.prompt, { FORMULA1: p.text, FORMULA2: f2 }),
    target: p.equivalent ? 'True' : 'False',
    matcher: { type: 'string' },
    args: { format1: variant.format1, formula1: p.text, format2, formula2: f2, perturbed: p.perturbed },
  };
}

/** The base formula of item `index` of `cell` (§3.4), drawn from `rngFor(seed, 'formula', 'base', cell, index)`. */
export function cellFormula(seed: number, cell: FormulaCell, index: number, compat: CompatMode): BaseFormula {
  return drawBaseFormula(SYMBOL_SETS[cell.symbol], valueSet(cell.value, compat), LENGTHS[cell.length], rngFor(seed, 'formula', 'base', cell.name, index));
}

/** The cell of a name (§3.4 dataset layout). @throws HptError `E_CONFIG` on an unknown name (with a suggestion). */
export function formulaCell(name: string): FormulaCell {
  const [valid] = selectValues('formula', '--preset', FORMULA_PRESETS, [name]);
  return FORMULA_CELLS.find((c) => c.name === valid)!;
}

/** The all-easy cell, where strict exemplars are drawn (§7 rec. 20). */
const EXEMPLAR_CELL = formulaCell('symbol_easy_value_easy_length_easy');

/**
 * The strict exemplar answer: `{"answer": <target>}`; calculation results are written as a bare JSON number like the
 * output template `{"answer": 1}` (e.g. `{"answer": 3.0}`), the others via `answerJson` (`{"answer": "True"}`).
 */
function strictAnswer(task: FormulaTask, target: string): string {
  return task === 'calculate' ? `{"answer": ${target}}` : answerJson(target);
}

/**
 * The three worked examples of a variant (§5.1, §7 rec. 20).
 * - strict: generated at the all-easy cell from `rngFor(seed, 'formula', 'icl', variant, k)`, distinct from each
 *   other and from the all-easy cell's suite items; input = the filled task text, answer = JSON (`strictAnswer`).
 *   Equivalence: the second exemplar is perturbed iff the first is not, so few-shot shows both cases (a neutral
 *   perturbation can still be labelled True).
 * - compat: the toolkit's fixed examples of the task (`COMPAT_EXAMPLES`).
 */
export function formulaExemplars(seed: number, variant: FormulaVariant, compat: CompatMode): Exemplar[] {
  if (compat === 'reference') return COMPAT_EXAMPLES[variant.task].map((e) => ({ ...e }));
  const cell = EXEMPLAR_CELL;
  const avoid = new Set<string>();
  for (let i = 0; i < FORMULA_ITEMS_PER_CELL; i++) avoid.add(cellFormula(seed, cell, i, compat).infix);
  const out: Exemplar[] = [];
  let firstPerturbed: boolean | undefined;
  for (let k = 0; k < 3; k++) {
    const rng = rngFor(seed, 'formula', 'icl', variant.name, k);
    const base = drawBaseFormula(SYMBOL_SETS[cell.symbol], valueSet(cell.value, compat), LENGTHS[cell.length], rng, avoid);
    avoid.add(base.infix);
    const q = formulaQuestion(variant, base, cell, compat, rng, k === 1 && firstPerturbed !== undefined ? !firstPerturbed : undefined);
    if (k === 0 && typeof q.args.perturbed === 'boolean') firstPerturbed = q.args.perturbed;
    out.push({ input: q.question, answer: strictAnswer(variant.task, q.target) });
  }
  return out;
}

/** Everything one record is made of (§3.4; `formulaRecord`). */
export interface FormulaRecordInput {
  variant: FormulaVariant;
  cell: FormulaCell;
  index: number;
  base: BaseFormula;
  question: FormulaQuestion;
  icl: IclMode;
  seed: number;
  compat: CompatMode;
  exemplars: readonly Exemplar[];
}

/**
 * Assemble one record (§2, §3.4; `HibenchRecord`): id `formula/<task>/<variant>/<cell>/<index>/<icl>`, the formula
 * system prompt, the user prompt (ICL prefix + task text + format sentence, no separators), representation null,
 * `formula` = the base formula's three renderings, params {symbol, value, length, index}.
 */
export function formulaRecord(input: FormulaRecordInput): HibenchRecord {
  const { variant, cell, index, base, question, icl, seed, compat, exemplars } = input;
  const q = assembleQuery(FORMULA_PROMPT, question.question, FORMULA_TEMPLATES[variant.task].output, icl, exemplars);
  return {
    id: `formula/${variant.task}/${variant.name}/${cell.name}/${index}/${icl}`,
    scenario: 'formula',
    task: variant.task,
    preset: cell.name,
    representation: null,
    icl,
    compat,
    system: FORMULA_PROMPT.system,
    prompt: q.prompt,
    question: question.question,
    format: q.format,
    formatCot: q.formatCot,
    exemplars: exemplars.map((e) => ({ ...e })),
    target: question.target,
    matcher: { ...question.matcher },
    seed,
    params: { symbol: cell.symbol, value: cell.value, length: cell.length, index },
    args: { ...question.args },
    formula: { infix: base.infix, prefix: base.prefix, postfix: base.postfix },
  };
}

/**
 * Resolve the suite filter (§7 rec. 22 breakdowns): tasks and ICL modes via `selectValues`; presets = cell names or
 * the shortcuts `easy`/`medium`/`hard`. @throws HptError `E_CONFIG` on an unknown value ("did you mean ...") or when a
 * representation or semantics filter is given (Formula has neither).
 */
export function resolveFormulaFilter(options: GenerateOptions): { tasks: FormulaTask[]; cells: FormulaCell[]; icl: IclMode[] } {
  const f = options.filter ?? {};
  if (f.representations?.length) throw new HptError('E_CONFIG', `formula: --representation does not apply (formulas have no representation); got ${f.representations.join(', ')}`);
  if (f.semantics?.length) throw new HptError('E_CONFIG', `formula: --semantics does not apply (only JSON has normal/nonsense semantics); got ${f.semantics.join(', ')}`);
  const tasks = selectValues('formula', '--task', FORMULA_TASKS, f.tasks);
  const icl = selectValues('formula', '--icl', ICL_MODES, f.icl);
  const presets = selectValues<string>('formula', '--preset', [...FORMULA_PRESETS, ...FORMULA_PRESET_SHORTCUTS], f.presets);
  const cells = FORMULA_CELLS.filter(
    (c) => presets.includes(c.name) || presets.some((p) => p === c.symbol && p === c.value && p === c.length),
  );
  return { tasks, cells, icl };
}

/**
 * The Formula suite (§3.4): a lazy, deterministic stream of records, order cell → item → variant → ICL mode. Each
 * cell's 13 base formulas are shared by all 18 variants (paired design); every random draw comes from `rngFor` keyed
 * by what is drawn (base: cell and item; perturbation: variant, cell and item; exemplars: variant), so filters never
 * change the records kept. Default suite: 18 × 27 × 13 × 3 = 18,954 records.
 * The filter is validated eagerly (before the first record).
 * @throws HptError `E_CONFIG` from `resolveFormulaFilter`.
 */
export function generateFormula(options: GenerateOptions): Generator<HibenchRecord> {
  const { tasks, cells, icl } = resolveFormulaFilter(options);
  const variants = FORMULA_VARIANTS.filter((v) => tasks.includes(v.task));
  const { seed, compat } = options;
  return (function* (): Generator<HibenchRecord> {
    const exemplars = new Map<string, Exemplar[]>();
    const exemplarsOf = (v: FormulaVariant): Exemplar[] => {
      let e = exemplars.get(v.name);
      if (!e) exemplars.set(v.name, (e = formulaExemplars(seed, v, compat)));
      return e;
    };
    for (const cell of cells) {
      for (let index = 0; index < FORMULA_ITEMS_PER_CELL; index++) {
        const base = cellFormula(seed, cell, index, compat);
        for (const variant of variants) {
          const rng = rngFor(seed, 'formula', 'perturb', variant.name, cell.name, index);
          const question = formulaQuestion(variant, base, cell, compat, rng);
          const ex = exemplarsOf(variant);
          for (const mode of icl) yield formulaRecord({ variant, cell, index, base, question, icl: mode, seed, compat, exemplars: ex });
        }
      }
    }
  })();
}
