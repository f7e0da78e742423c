import { createHash } from 'node:crypto';
import { isHptError } from '@hpt-bench/core';
import { assertRecord } from '../../plugins/hibench/src/record-schema.js';
import { evaluate } from 'mathjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMPAT_EXAMPLES } from '../../plugins/hibench/src/formula/compat-examples.js';
import {
  analyseInfix,
  FORMULA_CELLS,
  FORMULA_PRESETS,
  FORMULA_TASKS,
  FORMULA_VARIANTS,
  formulaExemplars,
  formulaQuestion,
  formulaRecord,
  generateFormula,
  LENGTHS,
} from '../../plugins/hibench/src/formula/generate.js';
import { evaluateExpr, exprEqual, isNumberToken, parseExpression, render, tokenize, type Expr } from '../../plugins/hibench/src/lib/notation.js';
import { rngFor } from '../../plugins/hibench/src/rng.js';
import type { HibenchRecord, Notation, SuiteFilter } from '../../plugins/hibench/src/types.js';

const suite = (seed: number, compat: 'strict' | 'reference' = 'strict', filter: SuiteFilter = {}) => [...generateFormula({ seed, compat, filter })];
const hash = (records: HibenchRecord[]) => {
  const h = createHash('sha256');
  for (const r of records) h.update(JSON.stringify(r) + '\n');
  return h.digest('hex');
};
const NOTATIONS: Notation[] = ['infix', 'prefix', 'postfix'];

let strict: HibenchRecord[];
let compat: HibenchRecord[];
let strictMs = 0;
beforeAll(() => {
  const t0 = performance.now();
  strict = suite(42);
  strictMs = performance.now() - t0;
  compat = suite(42, 'reference');
});

describe('worked example (§3.7)', () => {
  it('assembles the zero-shot calculation query of "3 + 4 * 2" exactly, reference "11"', () => {
    const base = analyseInfix(tokenize('3 + 4 * 2', 'infix')!)!;
    const variant = FORMULA_VARIANTS.find((v) => v.name === 'infix')!;
    const cell = FORMULA_CELLS[0]!;
    const question = formulaQuestion(variant, base, cell, 'strict', rngFor(0));
    const r = formulaRecord({ variant, cell, index: 0, base, question, icl: 'zero', seed: 0, compat: 'strict', exemplars: COMPAT_EXAMPLES.calculate });
    expect(r.system).toBe('As an AI agent, you are tasked with performing mathematical reasoning to assist in solving complex mathematical problems.');
    expect(r.prompt).toBe(
      'Given a mathematical formula 3 + 4 * 2, calculate its result.Please return the answer in JSON format directly like {"answer": 1}  and do not feedback the detailed process.',
    );
    expect(r.target).toBe('11');
    expect(r.matcher).toEqual({ type: 'number', tolerance: 0.01 });
    const one = formulaRecord({ variant, cell, index: 0, base, question, icl: 'one', seed: 0, compat: 'reference', exemplars: COMPAT_EXAMPLES.calculate });
    expect(one.prompt).toBe(
      'Here is one example.The input is Given a mathematical formula 3 + 4 * 2, calculate its result., the answer is 11.Given a mathematical formula 3 + 4 * 2, calculate its result.Please return the answer in JSON format directly like {"answer": 1}  and do not feedback the detailed process.',
    );
  });
  it('uses the §3.4 templates for conversion and equivalence', () => {
    const base = analyseInfix(tokenize('3 + 4 * 2', 'infix')!)!;
    const cell = FORMULA_CELLS[0]!;
    const conv = formulaQuestion(FORMULA_VARIANTS.find((v) => v.name === 'infix2postfix')!, base, cell, 'strict', rngFor(0));
    expect(conv.question).toBe('Given a mathematical infix formula 3 + 4 * 2, convert it to postfix notation.');
    expect(conv.target).toBe('3 4 2 * +');
    expect(conv.matcher).toEqual({ type: 'string', skip: '[\\s\'"]', notation: 'postfix' });
    const eq = formulaQuestion(FORMULA_VARIANTS.find((v) => v.name === 'prefixEq2postfix')!, base, cell, 'strict', rngFor(0));
    expect(eq.question).toMatch(/^Given two mathematical formulas .+ and 3 4 2 \* \+, determine if they are equivalent\.$/);
    expect(['True', 'False']).toContain(eq.target);
  });
});

describe('suite shape', () => {
  it('has 18,954 records (18 variants x 27 cells x 13 items x 3 ICL) with unique ids, in both modes', () => {
    expect(FORMULA_VARIANTS).toHaveLength(18);
    expect(FORMULA_PRESETS).toHaveLength(27);
    for (const rs of [strict, compat]) {
      expect(rs).toHaveLength(18_954);
      expect(new Set(rs.map((r) => r.id)).size).toBe(18_954);
      const per = Object.fromEntries(FORMULA_TASKS.map((t) => [t, rs.filter((r) => r.task === t).length]));
      expect(per).toEqual({ calculate: 3 * 27 * 13 * 3, convert: 6 * 27 * 13 * 3, equivalent: 9 * 27 * 13 * 3 });
    }
    expect(strict[0]!.id).toBe('formula/calculate/infix/symbol_easy_value_easy_length_easy/0/zero');
    expect(new Set(strict.map((r) => r.id.split('/')[2])).size).toBe(18);
  });
  it("validates against the plugin's record schema", () => {
    for (const r of [...strict.filter((_, i) => i % 37 === 0), ...compat.filter((_, i) => i % 53 === 0)]) assertRecord(r, r.id);
  });
  it('shares one base formula per (cell, item) across all variants (paired design)', () => {
    const byItem = new Map<string, string>();
    for (const r of strict) {
      const key = `${r.preset}/${r.params.index}`;
      const f = JSON.stringify(r.formula);
      if (!byItem.has(key)) byItem.set(key, f);
      expect(f).toBe(byItem.get(key));
    }
    expect(byItem.size).toBe(27 * 13);
  });
  it('is byte-identical for the same seed and differs for another seed', () => {
    const h = hash(strict);
    expect(hash(suite(42))).toBe(h);
    expect(hash(suite(43))).not.toBe(h);
    expect(hash(compat)).not.toBe(h);
  });
  it('generates fast', () => {
    expect(strictMs).toBeLessThan(3000);
  });
});

/** The distinct base formulas of a suite, with the cell of each. */
function bases(records: HibenchRecord[]) {
  const seen = new Map<string, { infix: string; prefix: string; postfix: string; length: number; target?: string }>();
  for (const r of records) {
    const key = `${r.preset}/${r.params.index}`;
    if (!seen.has(key)) seen.set(key, { ...r.formula!, length: LENGTHS[r.params.length as 'easy'] });
    if (r.task === 'calculate') seen.get(key)!.target = r.target as string;
  }
  return [...seen.values()];
}

describe('properties of every generated formula', () => {
  let items: ReturnType<typeof bases> = [];
  const all = () => items;
  beforeAll(() => {
    items = [...bases(strict), ...bases(compat), ...bases(suite(7)), ...bases(suite(7, 'reference'))];
  });
  it('infix (mathjs) = prefix = postfix (own evaluator); all three parse to the same tree and round-trip', () => {
    expect(all().length).toBe(4 * 351);
    for (const f of all()) {
      const v = evaluate(f.infix) as number;
      const trees: Expr[] = NOTATIONS.map((n) => parseExpression(f[n], n)!);
      for (const [i, n] of NOTATIONS.entries()) {
        expect(trees[i], `${n}: ${f[n]}`).not.toBeNull();
        expect(evaluateExpr(trees[i]!), `${n}: ${f[n]}`).toBe(v);
        expect(exprEqual(trees[i]!, trees[0]!), `${n} tree of ${f.infix}`).toBe(true);
        // render(x, n) parses back to the same tree
        expect(exprEqual(parseExpression(render(f.infix.split(' '), n), n)!, trees[0]!)).toBe(true);
      }
      expect(render(f.infix.split(' '), 'prefix')).toBe(f.prefix);
      expect(render(f.infix.split(' '), 'postfix')).toBe(f.postfix);
    }
  });
  it('has `length` operands, no 0 after "/", exponents 1 or 2, no negative base of "^", |v| < 10^6', () => {
    for (const f of all()) {
      const t = f.infix.split(' ');
      expect(t.filter(isNumberToken).length, f.infix).toBe(f.length);
      t.forEach((x, k) => {
        if (x === '/') expect(Number(t.slice(k + 1).find((y) => y !== '(')), f.infix).not.toBe(0);
        if (x === '^') {
          expect(['1', '2'], f.infix).toContain(t[k + 1]);
          expect(t[k - 1]!.startsWith('-'), f.infix).toBe(false);
        }
      });
      expect(Math.abs(evaluate(f.infix) as number)).toBeLessThan(1e6);
    }
  });
  it('has Python-repr targets: int iff no "/" and no float literal, equal to round(v, 2)', () => {
    for (const f of all()) {
      const v = evaluate(f.infix) as number;
      const isFloat = f.infix.split(' ').some((x) => x === '/' || (isNumberToken(x) && x.includes('.')));
      expect(f.target, f.infix).toMatch(isFloat ? /^-?\d+\.\d{1,2}$/ : /^-?\d+$/);
      expect(Math.abs(Number(f.target) - v), f.infix).toBeLessThanOrEqual(0.005 + 1e-9);
    }
  });
  it('uses the value sets of the mode: strict hard floats, compat ints only', () => {
    const hasFloatLiteral = (rs: HibenchRecord[]) => bases(rs).some((f) => f.infix.split(' ').some((x) => isNumberToken(x) && x.includes('.')));
    expect(hasFloatLiteral(strict.filter((r) => r.params.value === 'hard'))).toBe(true);
    expect(hasFloatLiteral(strict.filter((r) => r.params.value !== 'hard'))).toBe(false);
    expect(hasFloatLiteral(compat)).toBe(false);
  });
});

describe('task records', () => {
  it('calculate: target is the base result, args hold the rendering', () => {
    for (const r of strict.filter((r) => r.task === 'calculate')) {
      const a = r.args as { format: Notation; formula: string };
      expect(a.formula).toBe(r.formula![a.format]);
      expect(r.question).toBe(`Given a mathematical formula ${a.formula}, calculate its result.`);
    }
  });
  it('convert: target is the format2 rendering of the same tree, matcher names the notation', () => {
    for (const r of strict.filter((r) => r.task === 'convert')) {
      const a = r.args as { format1: Notation; formula1: string; format2: Notation; formula2: string };
      expect(a.format1).not.toBe(a.format2);
      expect(r.target).toBe(r.formula![a.format2]);
      expect(a.formula1).toBe(r.formula![a.format1]);
      expect(r.matcher.notation).toBe(a.format2);
      expect(exprEqual(parseExpression(a.formula1, a.format1)!, parseExpression(r.target as string, a.format2)!)).toBe(true);
      expect(r.question).toBe(`Given a mathematical ${a.format1} formula ${a.formula1}, convert it to ${a.format2} notation.`);
    }
  });
  it('equivalent (strict): labels agree with evaluation; about half perturbed; formula2 never perturbed', () => {
    const eq = strict.filter((r) => r.task === 'equivalent' && r.icl === 'zero');
    expect(eq).toHaveLength(9 * 351);
    let perturbed = 0;
    let neutral = 0;
    for (const r of eq) {
      const a = r.args as { format1: Notation; formula1: string; format2: Notation; formula2: string; perturbed: boolean };
      expect(a.formula2).toBe(r.formula![a.format2]);
      const v1 = evaluateExpr(parseExpression(a.formula1, a.format1)!);
      const v2 = evaluateExpr(parseExpression(a.formula2, a.format2)!);
      expect(Number.isFinite(v1), a.formula1).toBe(true);
      expect(r.target).toBe(Math.abs(v1 - v2) < 1e-9 ? 'True' : 'False');
      if (a.perturbed) perturbed++;
      else expect(a.formula1).toBe(r.formula![a.format1]);
      if (a.perturbed && r.target === 'True') neutral++;
    }
    expect(perturbed / eq.length).toBeGreaterThan(0.45);
    expect(perturbed / eq.length).toBeLessThan(0.55);
    expect(neutral).toBeLessThan(perturbed / 5);
  });
  it('equivalent (compat): False exactly when perturbed', () => {
    for (const r of compat.filter((r) => r.task === 'equivalent')) expect(r.target).toBe(r.args.perturbed ? 'False' : 'True');
  });
  it('gives every record of a variant the same three exemplars; strict ones are valid all-easy worked examples', () => {
    for (const v of FORMULA_VARIANTS) {
      const recs = strict.filter((r) => r.id.split('/')[2] === v.name);
      const ex = formulaExemplars(42, v, 'strict');
      expect(ex).toHaveLength(3);
      for (const r of recs) expect(r.exemplars).toEqual(ex);
      const easyItems = new Set(strict.filter((r) => r.preset === 'symbol_easy_value_easy_length_easy').map((r) => r.formula!.infix));
      for (const e of ex) {
        const answer = (JSON.parse(e.answer) as { answer: unknown }).answer;
        if (v.task === 'calculate') {
          const formula = /formula (.+), calculate/.exec(e.input)![1]!;
          const tree = parseExpression(formula, v.format1)!;
          expect(Math.abs((answer as number) - evaluateExpr(tree))).toBeLessThanOrEqual(0.005);
          const nums = formula.split(' ').filter(isNumberToken).map(Number);
          expect(nums).toHaveLength(3);
          for (const n of nums) expect(n >= 1 && n <= 10).toBe(true);
        } else if (v.task === 'convert') {
          const formula = /formula (.+), convert/.exec(e.input)![1]!;
          expect(exprEqual(parseExpression(formula, v.format1)!, parseExpression(answer as string, v.format2!)!)).toBe(true);
        } else expect(['True', 'False']).toContain(answer);
        if (v.format1 === 'infix' && v.task !== 'equivalent') {
          const formula = /formula (.+), (calculate|convert)/.exec(e.input)![1]!;
          expect(easyItems.has(formula)).toBe(false);
        }
      }
    }
    const bothLabels = FORMULA_VARIANTS.filter((v) => v.task === 'equivalent').filter((v) => {
      const labels = new Set(formulaExemplars(42, v, 'strict').map((e) => e.answer));
      return labels.size === 2;
    });
    expect(bothLabels.length).toBeGreaterThanOrEqual(8);
  });
  it('uses the toolkit examples in compat mode, verbatim where consistent', () => {
    const r = compat.find((r) => r.task === 'calculate' && r.icl === 'few')!;
    expect(r.exemplars.map((e) => e.answer)).toEqual(['11', '14', '18']);
    expect(r.prompt.startsWith('Here are a few examples. The input is Given a mathematical formula 3 + 4 * 2, calculate its result., the answer is 11. ')).toBe(true);
    const e = compat.find((r) => r.task === 'equivalent')!;
    expect(e.exemplars[0]).toEqual({ input: 'Given two mathematical formulas 3 + 4 * 2 and 3 4 2 * +, determine if they are equivalent.', answer: 'true' });
    // the reconstructed conversion answers are what the converter produces
    for (const ex of COMPAT_EXAMPLES.convert) {
      const [, f1, formula, f2] = /mathematical (\w+) formula (.+), convert it to (\w+) notation/.exec(ex.input)!;
      expect(exprEqual(parseExpression(formula!, f1 as Notation)!, parseExpression(ex.answer, f2 as Notation)!)).toBe(true);
      if (f1 === 'infix') expect(render(formula!.split(' '), f2 as Notation)).toBe(ex.answer);
    }
  });
});

describe('filters', () => {
  it('keep exactly the corresponding subset of the full suite', () => {
    const cases: { filter: SuiteFilter; keep: (r: HibenchRecord) => boolean }[] = [
      { filter: { tasks: ['equivalent'] }, keep: (r) => r.task === 'equivalent' },
      { filter: { icl: ['few', 'zero'] }, keep: (r) => r.icl !== 'one' },
      { filter: { presets: ['hard'] }, keep: (r) => r.preset === 'symbol_hard_value_hard_length_hard' },
      {
        filter: { tasks: ['convert', 'calculate'], presets: ['easy', 'symbol_medium_value_hard_length_easy'], icl: ['one'] },
        keep: (r) => r.task !== 'equivalent' && r.icl === 'one' && ['symbol_easy_value_easy_length_easy', 'symbol_medium_value_hard_length_easy'].includes(r.preset),
      },
    ];
    for (const { filter, keep } of cases) {
      const got = suite(42, 'strict', filter);
      const want = strict.filter(keep);
      expect(got.length).toBeGreaterThan(0);
      expect(got.length).toBe(want.length);
      expect(hash(got)).toBe(hash(want));
    }
  });
  it('reject unknown values with E_CONFIG and a suggestion, eagerly', () => {
    const err = (filter: SuiteFilter): Error => {
      try {
        generateFormula({ seed: 1, compat: 'strict', filter });
      } catch (e) {
        return e as Error;
      }
      throw new Error('no error');
    };
    const e1 = err({ presets: ['symbol_easy_value_easy_length_eazy'] });
    expect(isHptError(e1) && e1.code).toBe('E_CONFIG');
    expect(e1.message).toContain("did you mean 'symbol_easy_value_easy_length_easy'");
    const e2 = err({ presets: ['medum'] });
    expect(e2.message).toContain("did you mean 'medium'");
    const e3 = err({ tasks: ['calculation'] });
    expect(isHptError(e3) && e3.code).toBe('E_CONFIG');
    expect(e3.message).toContain("did you mean 'calculate'");
    expect(isHptError(err({ icl: ['two' as never] }))).toBe(true);
    const e4 = err({ representations: ['edge'] });
    expect(isHptError(e4) && e4.code).toBe('E_CONFIG');
    const e5 = err({ semantics: ['normal'] });
    expect(isHptError(e5) && e5.code).toBe('E_CONFIG');
  });
});
