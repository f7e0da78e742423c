/**
 * Formula drawing of HiBench (specs/hibench.md §3.4, §7 rec. 11): complexity levels, value sets, the toolkit's
 * infix generation algorithm, the reference value (mathjs, Python `round` and `repr`) and the equivalence
 * perturbation.
 */
import type { CompatMode } from '@hpt-bench/sdk';
import { evaluate } from 'mathjs';
import type { Rng } from '../rng.js';
import type { Notation } from '../types.js';
import { evaluateExactInt, evaluateExpr, isNumberToken, isOperator, parseExpression, renderTokens, toInfix, toPostfix, toPrefix, type Expr } from '../lib/notation.js';

/** A complexity level of one axis (§3.4 Table 9). */
export type Level = 'easy' | 'medium' | 'hard';

/** The levels in order (§3.4). */
export const LEVELS: readonly Level[] = ['easy', 'medium', 'hard'];

/** Symbol sets per symbol level (§3.4): easy `+ - * /`, medium adds `( )`, hard adds `^`. */
export const SYMBOL_SETS: Readonly<Record<Level, readonly string[]>> = {
  easy: ['+', '-', '*', '/'],
  medium: ['+', '-', '*', '/', '(', ')'],
  hard: ['+', '-', '*', '/', '(', ')', '^'],
};

/** Number of operands per length level (§3.4): 3 / 6 / 9. */
export const LENGTHS: Readonly<Record<Level, number>> = { easy: 3, medium: 6, hard: 9 };

/**
 * The numbers a value level draws from (§3.4 Table 9, §7 rec. 11).
 * - strict: easy ints 1–10, medium ints −50…50, hard floats with 2 decimals in −100…100 (k/100, rendered as Python
 *   `repr`, e.g. "-90.02", "35.2", "46.0");
 * - compat (`reference`): the toolkit's latest int sets: easy 1–9, medium −50…49, hard −100…99.
 * `draw` returns the literal text; all values are equally likely.
 */
export interface ValueSet {
  level: Level;
  kind: 'int' | 'float';
  /** smallest and largest value */
  min: number;
  max: number;
  draw(rng: Rng): string;
}

/** The value set of a level in a compat mode (§3.4, §7 rec. 11; see `ValueSet`). */
export function valueSet(level: Level, compat: CompatMode): ValueSet {
  if (compat === 'reference') {
    const [min, max] = level === 'easy' ? [1, 9] : level === 'medium' ? [-50, 49] : [-100, 99];
    return { level, kind: 'int', min, max, draw: (rng) => String(rng.int(min, max)) };
  }
  if (level === 'hard') return { level, kind: 'float', min: -100, max: 100, draw: (rng) => pyRepr(rng.int(-10000, 10000) / 100, true) };
  const [min, max] = level === 'easy' ? [1, 10] : [-50, 50];
  return { level, kind: 'int', min, max, draw: (rng) => String(rng.int(min, max)) };
}

/**
 * Python's `round(x, 2)` for a float (§3.4 reference value): the decimal nearest to the *exact* binary value of `x`
 * (so `round(2.675, 2)` = 2.67, `round(1.005, 2)` = 1.0), exact ties (x·100 exactly half-way, which for doubles means
 * 8x is an odd integer, e.g. 0.125) go to the even hundredth (0.12, 0.38 for 0.375, −0.12 for −0.125); the sign of
 * zero is kept (−0.001 → −0.0). Non-finite input is returned unchanged.
 */
export function pyRound2(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const eight = 8 * x; // exact (power-of-two scaling)
  if (Number.isInteger(eight) && Math.abs(eight) % 2 === 1) {
    const h = Math.abs(x) * 100; // exact: x = j/8 with |x| < 2^50
    const lo = Math.floor(h);
    const n = lo % 2 === 0 ? lo : lo + 1;
    const r = n / 100;
    return x < 0 ? -r : r;
  }
  // toFixed rounds the exact binary value (ties cannot occur here); the sign of a zero result is kept ("-0.00").
  return Number(x.toFixed(2));
}

/**
 * Python's `repr` of a number (§3.4 reference strings): `float` false → the integer ("11", "-3"); `float` true → the
 * shortest round-trip float repr with ".0" for integral values ("3.0", "-54.31", "-0.0", "1e+16", "1.5e-05",
 * "inf", "nan").
 */
export function pyRepr(x: number, float: boolean): string {
  if (!float) return Number.isInteger(x) ? String(x) : pyRepr(x, true);
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e16 || abs < 1e-4) {
    const [mant, exp] = x.toExponential().split('e') as [string, string];
    const sign = exp.startsWith('-') ? '-' : '+';
    const digits = exp.replace(/^[+-]/, '');
    return `${mant}e${sign}${digits.padStart(2, '0')}`;
  }
  const s = String(x);
  return s.includes('.') ? s : `${s}.0`;
}

/**
 * Wrap every negative number literal that directly precedes "^" in parentheses: "-5 ^ 2" → "( -5 ) ^ 2" (§7 rec. 11),
 * so Python/mathjs (which read "-5 ** 2" as −25) and the prefix/postfix renderings (where -5 is one operand) agree.
 * @param tokens infix tokens; returns a new list.
 */
export function wrapNegativeBases(tokens: readonly string[]): string[] {
  const out: string[] = [];
  tokens.forEach((t, i) => {
    if (isNumberToken(t) && t.startsWith('-') && tokens[i + 1] === '^') out.push('(', t, ')');
    else out.push(t);
  });
  return out;
}

const isZero = (text: string): boolean => Number(text) === 0;

/**
 * The toolkit's infix generation (§3.4, `generate_formula`), one operand per step, left to right. At each step draw a
 * symbol and a value; a value after "/" is redrawn while 0 (and, as in the toolkit, a 0 after "*" inside a group that
 * follows a "/"); after "^" the value is 1 or 2 and the symbol is redrawn while it is "(", ")", "^", "/" or "*";
 * "(" emits "(" value and a fresh non-parenthesis operator; ")" closes an open group (value ")" fresh operator) or,
 * with no group open, becomes an operator; otherwise value and operator. No operator follows the last operand; open
 * groups are closed at the end. Negative bases of "^" are then wrapped (`wrapNegativeBases`).
 * @param symbols the symbol set; @param values the value set; @param length the number of operands (≥ 1).
 * @returns the infix tokens, e.g. ["3", "*", "(", "4", "+", "2", ")"].
 */
export function generateInfixTokens(symbols: readonly string[], values: ValueSet, length: number, rng: Rng): string[] {
  const out: string[] = [];
  const pick = (): string => rng.pick(symbols);
  const freshOperator = (): string => {
    let s = pick();
    while (s === '(' || s === ')') s = pick();
    return s;
  };
  let previous = '';
  let open = 0;
  let divide = false;
  for (let i = 0; i < length; i++) {
    const last = i === length - 1;
    let symbol = pick();
    let value = values.draw(rng);
    while (previous === '/' && isZero(value)) value = values.draw(rng);
    while (divide && open > 0 && isZero(value) && previous === '*') value = values.draw(rng);
    if (previous === '^') {
      value = String(rng.int(1, 2));
      while (symbol === '(' || symbol === ')' || symbol === '^' || symbol === '/' || symbol === '*') symbol = pick();
    }
    if (symbol === '(') {
      open++;
      out.push('(', value);
      const op = freshOperator();
      if (!last) {
        out.push(op);
        previous = op;
      }
    } else if (symbol === ')' && open > 0) {
      open--;
      if (open === 0) divide = false;
      out.push(value, ')');
      const op = freshOperator();
      if (!last) {
        out.push(op);
        previous = op;
      }
    } else {
      if (symbol === ')') symbol = freshOperator();
      else if (symbol === '/') divide = true;
      out.push(value);
      if (!last) {
        out.push(symbol);
        previous = symbol;
      }
    }
  }
  for (let k = 0; k < open; k++) out.push(')');
  return wrapNegativeBases(out);
}

/** A generated formula with its renderings and reference value (§3.4): e.g. infix "3 + 4 * 2", prefix "+ 3 * 4 2", postfix "3 4 2 * +", result "11". */
export interface BaseFormula {
  /** infix tokens (parentheses kept) */
  tokens: string[];
  infix: string;
  prefix: string;
  postfix: string;
  /** the parsed tree (same for all three renderings) */
  expr: Expr;
  /** the unrounded value (mathjs, number mode) */
  value: number;
  /** Python result type is float: the formula contains "/" or a float literal */
  float: boolean;
  /** the reference: Python `repr(round(value, 2))`, e.g. "11", "3.0", "-54.31", "-0.0" */
  result: string;
}

/** Discard threshold of the reference value (§3.4): |v| ≥ 10^6 is redrawn. */
export const MAX_ABS_VALUE = 1e6;

/**
 * Analyse infix tokens (§3.4 reference value): evaluate the infix string with mathjs (number mode), compute the
 * prefix/postfix renderings and the Python-repr reference. Integer formulas are re-checked exactly with BigInt.
 * @returns null when the sample must be discarded: evaluation error, non-finite or non-number value, |v| ≥ 10^6,
 * inexact integer arithmetic (an intermediate beyond 2^53), or tokens that do not parse.
 */
export function analyseInfix(tokens: readonly string[]): BaseFormula | null {
  const infix = toInfix(tokens);
  const expr = parseExpression(infix, 'infix');
  if (!expr) return null;
  let value: unknown;
  try {
    value = evaluate(infix);
  } catch {
    return null;
  }
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) >= MAX_ABS_VALUE) return null;
  const float = tokens.some((t) => t === '/' || (isNumberToken(t) && t.includes('.')));
  if (!float) {
    const exact = evaluateExactInt(expr);
    if (exact === null || !Number.isInteger(value) || exact !== BigInt(value)) return null;
  }
  return {
    tokens: [...tokens],
    infix,
    prefix: toPrefix(tokens),
    postfix: toPostfix(tokens),
    expr,
    value,
    float,
    result: float ? pyRepr(pyRound2(value), true) : pyRepr(value, false),
  };
}

/** Cap on redraws of one formula; reaching it means a broken configuration. */
const MAX_DRAWS = 100_000;

/**
 * Draw one valid formula (§3.4): generate, analyse, redraw on discard (and while its infix string is in `avoid`).
 * @throws Error when no valid formula is found in 100,000 draws (cannot happen with the Table 9 levels).
 */
export function drawBaseFormula(symbols: readonly string[], values: ValueSet, length: number, rng: Rng, avoid?: ReadonlySet<string>): BaseFormula {
  for (let attempt = 0; attempt < MAX_DRAWS; attempt++) {
    const base = analyseInfix(generateInfixTokens(symbols, values, length, rng));
    if (base && !avoid?.has(base.infix)) return base;
  }
  throw new Error(`formula: no valid formula after ${MAX_DRAWS} draws`);
}

/** The first formula of an equivalence pair (§3.4): the format1 rendering, possibly perturbed, and its label. */
export interface Perturbation {
  /** the format1 expression shown to the model */
  text: string;
  /** whether a token was changed */
  perturbed: boolean;
  /** the label: strict = by evaluation; compat = not perturbed */
  equivalent: boolean;
}

/** Strict perturbations are redrawn (same stream) while the perturbed formula is invalid (non-finite, |v| ≥ 10^6). */
const MAX_PERTURB_TRIES = 100;

/**
 * The equivalence perturbation (§3.4 "Equivalence pairs", §7 rec. 11): with probability 0.5 change one
 * non-parenthesis token of the format1 rendering — a number to a value of the value set, an operator to a different
 * operator of the symbol set — else leave it.
 * - strict: the new number really differs in value; in infix a negative base of "^" is wrapped; the perturbed formula
 *   must evaluate to a finite value below 10^6 (else another perturbation is drawn, up to 100 times); the label is
 *   `|a − b| < 1e−9` of the two evaluations, so a neutral change ("0 * 3" → "0 * 5") is labelled equivalent.
 * - compat: the toolkit's behaviour: one draw, the new number may equal the old one (its string-vs-number bug), and
 *   any perturbation is labelled not equivalent.
 * @param force when given, overrides the coin flip (the flip is still drawn, so the stream is the same); used to give
 *   the strict few-shot exemplars both labels.
 */
export function perturbFormula(
  base: BaseFormula,
  format1: Notation,
  symbols: readonly string[],
  values: ValueSet,
  compat: CompatMode,
  rng: Rng,
  force?: boolean,
): Perturbation {
  const tokens = renderTokens(base.tokens, format1);
  const perturb = rng.bool(0.5);
  if (!(force ?? perturb)) return { text: tokens.join(' '), perturbed: false, equivalent: true };
  const positions = tokens.flatMap((t, i) => (t === '(' || t === ')' ? [] : [i]));
  const operators = symbols.filter((s) => s !== '(' && s !== ')');
  const strict = compat === 'strict';
  const reference = evaluateExpr(base.expr);
  let text = '';
  let value = NaN;
  for (let attempt = 0; attempt < (strict ? MAX_PERTURB_TRIES : 1); attempt++) {
    const at = rng.pick(positions);
    const old = tokens[at]!;
    let replacement: string;
    if (isOperator(old)) {
      replacement = rng.pick(operators);
      while (replacement === old) replacement = rng.pick(operators);
    } else {
      replacement = values.draw(rng);
      if (strict) while (Number(replacement) === Number(old)) replacement = values.draw(rng);
    }
    let changed = tokens.slice();
    changed[at] = replacement;
    if (format1 === 'infix') changed = wrapNegativeBases(changed);
    text = changed.join(' ');
    if (!strict) return { text, perturbed: true, equivalent: false };
    const expr = parseExpression(text, format1);
    value = expr ? evaluateExpr(expr) : NaN;
    if (Number.isFinite(value) && Math.abs(value) < MAX_ABS_VALUE) break;
  }
  return { text, perturbed: true, equivalent: Math.abs(value - reference) < 1e-9 };
}
