/**
 * Formula notations of HiBench (specs/hibench.md §3.4): tokenizer, parser of infix/prefix/postfix text into one
 * expression tree, the toolkit's shunting-yard renderers (with a proper numeric tokenizer, §3.4 / §7 rec. 11) and a
 * Python-semantics evaluator. Used by the formula generator and by the strict conversion matcher (§7 rec. 7).
 */
import type { Notation } from '../types.js';

/** The binary operators of the formula scenario (§3.4 Table 9 symbol sets, without the parentheses). */
export type BinaryOp = '+' | '-' | '*' | '/' | '^';

/** Operator precedence of the toolkit (§3.4): + - = 1, * / = 2, ^ = 3. */
export const PRECEDENCE: Readonly<Record<BinaryOp, number>> = { '+': 1, '-': 1, '*': 2, '/': 2, '^': 3 };

/** The three notations, in the toolkit's order (§3.4). */
export const NOTATIONS: readonly Notation[] = ['infix', 'prefix', 'postfix'];

/**
 * An expression tree (§3.4): a number literal (its numeric `value` and its source `text`, e.g. `-90.02`) or a binary
 * operation. Parentheses are not nodes (they only group).
 */
export type Expr =
  | { kind: 'num'; value: number; text: string }
  | { kind: 'bin'; op: BinaryOp; left: Expr; right: Expr };

const NUMBER_RE = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** True when `token` is a number literal (§3.4 proper numeric tokenizer): optional leading "-", digits, optional decimal part ("-5", "35.2", "0.0"). */
export function isNumberToken(token: string): boolean {
  return NUMBER_RE.test(token);
}

/** True when `token` is one of the five binary operators of §3.4. */
export function isOperator(token: string): token is BinaryOp {
  return token === '+' || token === '-' || token === '*' || token === '/' || token === '^';
}

/**
 * Split formula text into tokens (§3.4: negative numbers and decimals are single tokens). Whitespace is optional
 * between tokens. A "-" directly followed by a digit (or ".digit") is a sign, i.e. part of a number literal, when
 * - prefix/postfix: always (so "3 -5 +" holds the literal -5 and "3 5 - 2 +" a subtraction);
 * - infix: only where an operand is expected (start, after an operator or "("), so "3-5" is a subtraction and
 *   "3 * -5" / "3--5" hold the literal -5.
 * @returns the tokens, or null on any other character (letters, "**", unicode operators...) or empty input.
 */
export function tokenize(text: string, notation: Notation): string[] | null {
  const tokens: string[] = [];
  let i = 0;
  const n = text.length;
  const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
  while (i < n) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const startsNumber = isDigit(c) || (c === '.' && isDigit(text[i + 1]));
    let signed = false;
    if (c === '-' && (isDigit(text[i + 1]) || (text[i + 1] === '.' && isDigit(text[i + 2])))) {
      if (notation !== 'infix') signed = true;
      else {
        const prev = tokens[tokens.length - 1];
        signed = prev === undefined || prev === '(' || isOperator(prev);
      }
    }
    if (startsNumber || signed) {
      const m = /^-?(?:\d+(?:\.\d*)?|\.\d+)/.exec(text.slice(i));
      if (!m) return null;
      tokens.push(m[0]);
      i += m[0].length;
      continue;
    }
    if (c === '+' || c === '-' || c === '*' || c === '/' || c === '^' || c === '(' || c === ')') {
      if (c === '*' && text[i + 1] === '*') return null;
      tokens.push(c);
      i++;
      continue;
    }
    return null;
  }
  return tokens.length ? tokens : null;
}

function numberNode(text: string): Expr {
  return { kind: 'num', value: Number(text), text };
}

/** Precedence-climbing parse of infix tokens; `^` right-associative, the others left-associative. */
function parseInfixTokens(tokens: readonly string[]): Expr | null {
  let pos = 0;
  const primary = (): Expr | null => {
    const t = tokens[pos];
    if (t === undefined) return null;
    if (isNumberToken(t)) {
      pos++;
      return numberNode(t);
    }
    if (t === '(') {
      pos++;
      const inner = binary(1);
      if (!inner || tokens[pos] !== ')') return null;
      pos++;
      return inner;
    }
    return null;
  };
  const binary = (minPrec: number): Expr | null => {
    let left = primary();
    if (!left) return null;
    for (;;) {
      const t = tokens[pos];
      if (t === undefined || !isOperator(t) || PRECEDENCE[t] < minPrec) return left;
      pos++;
      const right = binary(t === '^' ? PRECEDENCE[t] : PRECEDENCE[t] + 1);
      if (!right) return null;
      left = { kind: 'bin', op: t, left, right };
    }
  };
  const e = binary(1);
  return e && pos === tokens.length ? e : null;
}

function parsePrefixTokens(tokens: readonly string[]): Expr | null {
  let pos = 0;
  const node = (): Expr | null => {
    const t = tokens[pos++];
    if (t === undefined) return null;
    if (isNumberToken(t)) return numberNode(t);
    if (!isOperator(t)) return null;
    const left = node();
    if (!left) return null;
    const right = node();
    if (!right) return null;
    return { kind: 'bin', op: t, left, right };
  };
  const e = node();
  return e && pos === tokens.length ? e : null;
}

function parsePostfixTokens(tokens: readonly string[]): Expr | null {
  const stack: Expr[] = [];
  for (const t of tokens) {
    if (isNumberToken(t)) stack.push(numberNode(t));
    else if (isOperator(t)) {
      const right = stack.pop();
      const left = stack.pop();
      if (!left || !right) return null;
      stack.push({ kind: 'bin', op: t, left, right });
    } else return null;
  }
  return stack.length === 1 ? stack[0]! : null;
}

/**
 * Parse formula text in the given notation into an expression tree (§3.4; strict conversion matching, §7 rec. 7).
 * Infix: precedence + - = 1, * / = 2, ^ = 3, `^` right-associative, the others left-associative, parentheses group
 * (redundant ones allowed). Prefix/postfix: operators and numbers only (parentheses are invalid there).
 * Whitespace between tokens is optional (see `tokenize` for how "-" is read).
 * @returns the tree, or null on anything invalid (unknown characters, unbalanced parentheses, missing or extra
 * operands, empty text). Never throws.
 */
export function parseExpression(text: string, notation: Notation): Expr | null {
  const tokens = tokenize(text, notation);
  if (!tokens) return null;
  if (notation === 'infix') return parseInfixTokens(tokens);
  if (tokens.includes('(') || tokens.includes(')')) return null;
  return notation === 'prefix' ? parsePrefixTokens(tokens) : parsePostfixTokens(tokens);
}

/** Structural equality of two trees (§3.4): same operators in the same places, number literals compared by value ("5" = "5.0"). */
export function exprEqual(a: Expr, b: Expr): boolean {
  if (a.kind === 'num') return b.kind === 'num' && a.value === b.value;
  return b.kind === 'bin' && a.op === b.op && exprEqual(a.left, b.left) && exprEqual(a.right, b.right);
}

/**
 * Evaluate a tree with Python semantics (§3.4): true division, `^` = `**`. Where Python raises (division by zero) or
 * gives a complex number (negative base, fractional exponent) the result is a non-finite number (±Infinity / NaN),
 * which callers treat as "discard". Integers are IEEE doubles (exact below 2^53).
 */
export function evaluateExpr(e: Expr): number {
  if (e.kind === 'num') return e.value;
  const l = evaluateExpr(e.left);
  const r = evaluateExpr(e.right);
  switch (e.op) {
    case '+':
      return l + r;
    case '-':
      return l - r;
    case '*':
      return l * r;
    case '/':
      return l / r;
    case '^':
      return l ** r;
  }
}

/**
 * Exact evaluation of an integer-only tree with BigInt (Python int semantics for + - * and non-negative integer
 * powers). Used to check that double evaluation of integer formulas was exact.
 * @returns the exact value, or null when the tree has a non-integer literal, a division, or a negative exponent.
 */
export function evaluateExactInt(e: Expr): bigint | null {
  if (e.kind === 'num') return Number.isInteger(e.value) && !e.text.includes('.') ? BigInt(e.text) : null;
  const l = evaluateExactInt(e.left);
  const r = evaluateExactInt(e.right);
  if (l === null || r === null) return null;
  switch (e.op) {
    case '+':
      return l + r;
    case '-':
      return l - r;
    case '*':
      return l * r;
    case '^':
      return r < 0n ? null : l ** r;
    default:
      return null;
  }
}

/**
 * Shunting-yard core of the toolkit's converters (§3.4), with a proper numeric test (any number literal is an
 * operand). `open`/`close` are the grouping tokens (swapped for prefix); `popEqual` pops on equal precedence.
 */
function shuntingYard(tokens: readonly string[], open: string, close: string, popEqual: boolean): string[] {
  const stack: string[] = [];
  const output: string[] = [];
  for (const token of tokens) {
    if (isNumberToken(token)) output.push(token);
    else if (token === open) stack.push(token);
    else if (token === close) {
      while (stack.length && stack[stack.length - 1] !== open) output.push(stack.pop()!);
      stack.pop();
    } else {
      const p = isOperator(token) ? PRECEDENCE[token] : 0;
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined || top === open) break;
        const tp = isOperator(top) ? PRECEDENCE[top] : 0;
        if (popEqual ? tp >= p : tp > p) output.push(stack.pop()!);
        else break;
      }
      stack.push(token);
    }
  }
  while (stack.length) output.push(stack.pop()!);
  return output;
}

/** The infix rendering of infix tokens (§3.4): the tokens joined with single spaces, parentheses kept. */
export function toInfix(tokens: readonly string[]): string {
  return tokens.join(' ');
}

/**
 * Postfix rendering of infix tokens (§3.4, toolkit `infix_to_postfix`): shunting-yard, pop while the top's precedence
 * is ≥ the incoming operator's; parentheses dropped; space-separated. E.g. ["3","+","4","*","2"] → "3 4 2 * +".
 */
export function toPostfix(tokens: readonly string[]): string {
  return postfixTokens(tokens).join(' ');
}

/**
 * Prefix rendering of infix tokens (§3.4, toolkit `infix_to_prefix`): reverse the tokens, swap the roles of "(" and
 * ")", shunting-yard popping while the top's precedence is > the incoming one's, reverse the output; parentheses
 * dropped; space-separated. E.g. ["3","+","4","*","2"] → "+ 3 * 4 2".
 */
export function toPrefix(tokens: readonly string[]): string {
  return prefixTokens(tokens).join(' ');
}

/** Postfix token list of infix tokens (§3.4; see `toPostfix`). */
export function postfixTokens(tokens: readonly string[]): string[] {
  return shuntingYard(tokens, '(', ')', true);
}

/** Prefix token list of infix tokens (§3.4; see `toPrefix`). */
export function prefixTokens(tokens: readonly string[]): string[] {
  return shuntingYard([...tokens].reverse(), ')', '(', false).reverse();
}

/** Render infix tokens in the given notation (§3.4; `toInfix` / `toPrefix` / `toPostfix`). */
export function render(tokens: readonly string[], notation: Notation): string {
  return notation === 'infix' ? toInfix(tokens) : notation === 'prefix' ? toPrefix(tokens) : toPostfix(tokens);
}

/** Token list of infix tokens in the given notation (§3.4; infix: a copy). */
export function renderTokens(tokens: readonly string[], notation: Notation): string[] {
  return notation === 'infix' ? [...tokens] : notation === 'prefix' ? prefixTokens(tokens) : postfixTokens(tokens);
}
