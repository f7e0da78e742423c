/**
 * Canonical big-O forms for the Code scenario's strict matcher (specs/hibench.md §3.5, §7 rec. 19).
 *
 * A big-O text is read as a chain of `O(...)` groups joined by `=`, `~`, `~=` or `≈` (the labels' ranges and
 * equalities: `O(m + n) ~ O(m * n)`, `O(n^2) = O(1)`); the chain stops at the first thing that is not such a group
 * (comments such as `, r = max(nums)` or `~= sum of Catalan numbers`). Each group's inner expression is tokenised by
 * hand (glued annotations such as `nlogn`, `klogk`, `logr`, `|V|`, `n²`, implicit products `n log n`), parsed with
 * mathjs and printed in a canonical form:
 * - parentheses dropped, `+` and `*` flattened and their operands sorted (commutativity), `a - b` = `a + (-b)`;
 * - equal factors merged into powers with rational exponents (`n*n` = `n^2` = `n²`, `n^2*n` = `n^3`, `n * sqrt(n)` =
 *   `n^1.5` = `n^(3/2)`); a constant exponent is read as the fraction it writes (`0.5` = `1/2`, `0.33` is not `1/3`);
 *   a power of a product is the product of the powers (`(n*m)^2` = `n^2 * m^2`, `sqrt(n*m)` = `sqrt(n) * sqrt(m)`) and
 *   a quotient a product with negative exponents (`n^2 / n` = `n`, `n / log n` = `n * (log n)^-1`); sums are not
 *   expanded (`(n + m)^2` is not `n^2 + m^2`) — all of this holds for the positive quantities complexities are;
 * - `log n` = `logn` = `log(n)` = `ln n` = `lg n` = `log2(n)` (the base does not matter in big-O); `sqrt(x)` = `√x` =
 *   `x^(1/2)` = `x^0.5`;
 * - `|V|` = `V` (a set size); factorials `n!`; `C(n, k)` (a one-letter function with several arguments) kept as a call;
 * - constants are kept as written (`O(9^2)` is not `O(81)`, `O(4 * n)` is not `O(n)`): the label is compared as annotated;
 * - variable names as given (no renaming: `O(m)` is not `O(n)`); letter case ignored everywhere, function names
 *   included (`O(N LOG N)` = `O(nlogn)`; the toolkit lower-cases too).
 * Nothing here throws on bad input: an unreadable group yields null.
 */
import { parse, type MathNode } from 'mathjs';

/** Functions recognised inside a glued letter run, longest first (`nlogn` = n * log(n)). */
const FUNCTIONS = ['sqrt', 'log', 'max', 'min', 'exp', 'ln', 'lg', 'pi'] as const;
/** Function names meaning a logarithm (any base). */
const LOG_NAMES = new Set(['log', 'ln', 'lg', 'log2', 'log10']);
/** Prefix functions whose argument may be written without parentheses (`log n`, `√n`). */
const PREFIX = new Set(['log', 'ln', 'lg', 'sqrt']);

type Tok = { k: 'num' | 'var' | 'fn' | 'op' | 'open' | 'close' | 'comma'; v: string };

const SUPERSCRIPTS: Record<string, string> = { '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9' };

function preclean(s: string): string {
  return s
    .replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹]+/g, (m) => `^${[...m].map((c) => SUPERSCRIPTS[c]).join('')}`)
    .replace(/[×·⋅∗]/g, '*')
    .replace(/[−–]/g, '-')
    .replace(/√/g, ' sqrt ')
    .replace(/\*\*/g, '^')
    .replace(/log_?\{?(\d+)\}?(?=\s*[(a-zA-Z])/g, 'log ')
    .replace(/[₀-₉]/g, '');
}

/** Splits a letter run into function names and one-letter variables (`nlogn` → n, log, n). */
function splitLetters(run: string, out: Tok[]): void {
  let i = 0;
  while (i < run.length) {
    const name = FUNCTIONS.find((f) => run.startsWith(f, i));
    if (name !== undefined) {
      out.push({ k: 'fn', v: name });
      i += name.length;
    } else {
      out.push({ k: 'var', v: run[i]! });
      i++;
    }
  }
}

function tokenize(text: string): Tok[] | null {
  const s = preclean(text);
  const out: Tok[] = [];
  let absOpen = false;
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^\d+(?:\.\d+)?/.exec(s.slice(i));
    if (num) {
      out.push({ k: 'num', v: num[0] });
      i += num[0].length;
      continue;
    }
    const letters = /^[A-Za-z]+/.exec(s.slice(i));
    if (letters) {
      // letter case never matters (`O(LOGN)` = `O(logn)`, `O(N)` = `O(n)`): function names are found in lower case
      splitLetters(letters[0].toLowerCase(), out);
      i += letters[0].length;
      continue;
    }
    if (c === '|') {
      out.push({ k: absOpen ? 'close' : 'open', v: absOpen ? ')' : '(' });
      absOpen = !absOpen;
    } else if (c === '(' || c === '[' || c === '{') out.push({ k: 'open', v: '(' });
    else if (c === ')' || c === ']' || c === '}') out.push({ k: 'close', v: ')' });
    else if (c === ',') out.push({ k: 'comma', v: ',' });
    else if ('+-*/^!'.includes(c)) out.push({ k: 'op', v: c });
    else return null;
    i++;
  }
  return absOpen ? null : out;
}

/** Does the group opening at `open` hold a top-level comma (a call with several arguments)? */
function groupHasComma(toks: readonly Tok[], open: number): boolean {
  let depth = 0;
  for (let j = open; j < toks.length; j++) {
    const t = toks[j]!;
    if (t.k === 'open') depth++;
    else if (t.k === 'close' && --depth === 0) return false;
    else if (t.k === 'comma' && depth === 1) return true;
  }
  return false;
}

/** The index just past the atom starting at `i` (a number, a variable, a parenthesised group, a call), with `!`s. */
function atomEnd(toks: readonly Tok[], i: number): number {
  let j = i;
  if (toks[j]?.k === 'fn') {
    j++;
    if (toks[j]?.k !== 'open') return atomEnd(toks, j);
  }
  if (toks[j]?.k === 'open') {
    let depth = 0;
    for (; j < toks.length; j++) {
      if (toks[j]!.k === 'open') depth++;
      else if (toks[j]!.k === 'close' && --depth === 0) break;
    }
    j++;
  } else j++;
  while (toks[j]?.k === 'op' && toks[j]!.v === '!') j++;
  return j;
}

/** Tokens → a mathjs expression text: prefix functions get parentheses, implicit products get `*`. */
function toMathText(toks: Tok[]): string | null {
  // `log n`, `sqrt n`: wrap the following atom (and an immediately following `^k` stays outside: log n^2 is rare)
  const t: Tok[] = [];
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i]!;
    if (tok.k === 'fn' && PREFIX.has(tok.v) && toks[i + 1] !== undefined && toks[i + 1]!.k !== 'open') {
      // log^2 n: the power applies to the log
      let power: Tok[] = [];
      let j = i + 1;
      if (toks[j]?.k === 'op' && toks[j]!.v === '^' && toks[j + 1]?.k === 'num') {
        power = [toks[j]!, toks[j + 1]!];
        j += 2;
      }
      const end = atomEnd(toks, j);
      if (end <= j || end > toks.length) return null;
      const inner = toMathText(toks.slice(j, end));
      if (inner === null) return null;
      t.push({ k: 'var', v: `${tok.v}(${inner})${power.map((p) => p.v).join('')}` });
      i = end - 1;
      continue;
    }
    t.push(tok);
  }
  let out = '';
  let prev: Tok | undefined;
  for (let i = 0; i < t.length; i++) {
    const tok = t[i]!;
    const endsOperand = prev !== undefined && (prev.k === 'num' || prev.k === 'var' || prev.k === 'close' || (prev.k === 'op' && prev.v === '!'));
    const startsOperand = tok.k === 'num' || tok.k === 'var' || tok.k === 'fn' || tok.k === 'open';
    if (endsOperand && startsOperand) out += '*';
    if (tok.k === 'var' && tok.v.length === 1 && t[i + 1]?.k === 'open' && groupHasComma(t, i + 1)) {
      out += `f_${tok.v.toUpperCase()}`; // C(n, k): a one-letter function with several arguments
      prev = { k: 'fn', v: tok.v };
      continue;
    }
    out += tok.k === 'var' && tok.v.length === 1 ? tok.v.toLowerCase() : tok.v;
    prev = tok;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------------
// Canonical printing of a mathjs tree.

/** A rational number `[numerator, denominator]`, reduced, denominator > 0 (exponents: `1/2`, `-3/2`, `2`). */
type Rational = [number, number];

function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a || 1;
}

function rational(n: number, d = 1): Rational | null {
  if (!Number.isSafeInteger(n) || !Number.isSafeInteger(d) || d === 0) return null;
  const g = gcd(n, d) * Math.sign(d);
  return [n / g, d / g];
}

const ratMul = (a: Rational, b: Rational): Rational | null => rational(a[0] * b[0], a[1] * b[1]);
const ratAdd = (a: Rational, b: Rational): Rational | null => rational(a[0] * b[1] + b[0] * a[1], a[1] * b[1]);
const ratText = (r: Rational): string => (r[1] === 1 ? String(r[0]) : `${r[0]}/${r[1]}`);

/** A decimal constant as the exact fraction it writes (`0.5` → 1/2, `1.5` → 3/2, `0.33` → 33/100), or null. */
function decimalRational(value: unknown): Rational | null {
  const text = String(value);
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (m === null || (m[2]?.length ?? 0) > 6) return null;
  const decimals = m[2] ?? '';
  return rational(Number(m[1]! + decimals), 10 ** decimals.length);
}

/**
 * The value of a constant exponent as a rational (`2`, `0.5`, `1/2`, `-1`, `(3/2)`), or null when the exponent is not
 * a constant (`2^n`) or not a fraction of small integers.
 */
function rationalOf(node: MathNode): Rational | null {
  const n = unparen(node);
  if (n.type === 'ConstantNode') return decimalRational((n as unknown as { value: unknown }).value);
  if (n.type !== 'OperatorNode') return null;
  const op = n as unknown as { fn: string; args: MathNode[] };
  const args = op.args.map(rationalOf);
  if (args.some((a) => a === null)) return null;
  const [a, b] = args as Rational[];
  switch (op.fn) {
    case 'unaryMinus':
      return rational(-a![0], a![1]);
    case 'unaryPlus':
      return a!;
    case 'divide':
      return b![0] === 0 ? null : ratMul(a!, [b![1], b![0]]);
    case 'multiply':
      return args.length === 2 ? ratMul(a!, b!) : null;
    case 'add':
      return args.length === 2 ? ratAdd(a!, b!) : null;
    case 'subtract':
      return ratAdd(a!, [-b![0], b![1]]);
    default:
      return null;
  }
}

interface Factor {
  base: string;
  /** rational exponent, or null when the exponent is not a constant (then `expText` holds it) */
  exp: Rational | null;
  expText?: string;
}

function wrap(s: string): string {
  return /^[a-z0-9_.]+$/i.test(s) || /^[a-z_0-9]+\(.*\)$/i.test(s) && balancedCall(s) ? s : `(${s})`;
}

/** Is `s` one call `name(...)` whose parentheses close at the end? */
function balancedCall(s: string): boolean {
  const open = s.indexOf('(');
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')' && --depth === 0) return i === s.length - 1;
  }
  return false;
}

function unparen(node: MathNode): MathNode {
  let n = node;
  while (n.type === 'ParenthesisNode') n = (n as unknown as { content: MathNode }).content;
  return n;
}

function terms(node: MathNode, sign: boolean, out: string[]): void {
  const n = unparen(node);
  if (n.type === 'OperatorNode') {
    const op = n as unknown as { fn: string; args: MathNode[] };
    if (op.fn === 'add') {
      for (const a of op.args) terms(a, sign, out);
      return;
    }
    if (op.fn === 'subtract') {
      terms(op.args[0]!, sign, out);
      terms(op.args[1]!, !sign, out);
      return;
    }
    if (op.fn === 'unaryMinus') {
      terms(op.args[0]!, !sign, out);
      return;
    }
    if (op.fn === 'unaryPlus') {
      terms(op.args[0]!, sign, out);
      return;
    }
  }
  const c = canon(n);
  out.push(sign ? c : `-${wrap(c)}`);
}

/**
 * The factors of a product, each raised to `k` (positive quantities, as complexities are): `a * b` → both; `a / b` →
 * a and b^-1; `x^e` with a constant e → the factors of x raised to k·e (so `(n*m)^2` = `n^2 * m^2`, `n^0.5` =
 * `sqrt(n)` = `n^(1/2)`); `sqrt(x)` → the factors of x raised to k/2; `x^e` with a non-constant e (`2^n`) → one
 * factor with its exponent as text; anything else (a sum, a call, a constant, a variable) one factor.
 */
function factors(node: MathNode, out: Factor[], k: Rational = [1, 1]): void {
  const n = unparen(node);
  if (n.type === 'OperatorNode') {
    const op = n as unknown as { fn: string; args: MathNode[] };
    if (op.fn === 'multiply') {
      for (const a of op.args) factors(a, out, k);
      return;
    }
    if (op.fn === 'divide') {
      factors(op.args[0]!, out, k);
      factors(op.args[1]!, out, [-k[0], k[1]]);
      return;
    }
    if (op.fn === 'pow') {
      const e = rationalOf(op.args[1]!);
      const ke = e === null ? null : ratMul(k, e);
      if (ke !== null) {
        factors(op.args[0]!, out, ke);
        return;
      }
      const p = { base: canon(op.args[0]!), exp: null, expText: canon(op.args[1]!) };
      if (k[0] === 1 && k[1] === 1) out.push(p);
      else out.push({ base: power(p.base, p.expText), exp: k });
      return;
    }
  }
  if (n.type === 'FunctionNode' && functionName(n) === 'sqrt') {
    const half = ratMul(k, [1, 2]);
    if (half !== null) {
      factors((n as unknown as { args: MathNode[] }).args[0]!, out, half);
      return;
    }
  }
  out.push({ base: canon(n), exp: k });
}

function functionName(n: MathNode): string {
  const fn = (n as unknown as { fn: { name?: string } | string }).fn;
  return typeof fn === 'string' ? fn : (fn.name ?? '');
}

function power(base: string, exp: string): string {
  return `${wrap(base)}^${wrap(exp)}`;
}

function canon(node: MathNode): string {
  const n = unparen(node);
  switch (n.type) {
    case 'ConstantNode':
      return String((n as unknown as { value: unknown }).value);
    case 'SymbolNode':
      return (n as unknown as { name: string }).name;
    case 'FunctionNode': {
      let name = functionName(n);
      const args = (n as unknown as { args: MathNode[] }).args;
      if (LOG_NAMES.has(name)) name = 'log';
      if (name === 'sqrt' || name === 'pow') return mul(n);
      if (name === 'factorial') return `${wrap(canon(args[0]!))}!`;
      const as = args.map(canon);
      if (name === 'max' || name === 'min') as.sort();
      return `${name}(${as.join(',')})`;
    }
    case 'OperatorNode': {
      const op = n as unknown as { fn: string; args: MathNode[] };
      switch (op.fn) {
        case 'add':
        case 'subtract':
        case 'unaryMinus':
        case 'unaryPlus': {
          const out: string[] = [];
          terms(n, true, out);
          if (out.length === 1) return out[0]!;
          return out.sort().join('+');
        }
        case 'multiply':
        case 'pow':
        case 'divide':
          return mul(n);
        case 'factorial':
          return `${wrap(canon(op.args[0]!))}!`;
        default:
          throw new Error(`unsupported operator ${op.fn}`);
      }
    }
    default:
      throw new Error(`unsupported node ${n.type}`);
  }
}

/**
 * A product in canonical form: equal bases merged by adding their exponents (`n * n^(1/2)` = `n^(3/2)`), factors with
 * exponent 0 dropped, the rest sorted; `1` when nothing is left.
 */
function mul(node: MathNode): string {
  const fs: Factor[] = [];
  factors(node, fs);
  const merged = new Map<string, Rational>();
  const rest: string[] = [];
  for (const f of fs) {
    if (f.exp === null) {
      rest.push(power(f.base, f.expText!));
      continue;
    }
    const sum = ratAdd(merged.get(f.base) ?? [0, 1], f.exp);
    if (sum === null) throw new Error('exponent out of range');
    merged.set(f.base, sum);
  }
  for (const [base, e] of merged) {
    if (e[0] === 0) continue;
    rest.push(e[0] === 1 && e[1] === 1 ? base : power(base, ratText(e)));
  }
  if (rest.length === 0) return '1';
  if (rest.length === 1) return rest[0]!;
  return rest.map(wrap).sort().join('*');
}

/**
 * The canonical form of one big-O inner expression (`n log n`, `|V| + |E|`, `m * n^2`), or null when it cannot be read.
 * Never throws.
 */
export function canonicalExpression(inner: string): string | null {
  try {
    if (inner.trim() === '') return null;
    const toks = tokenize(inner);
    if (toks === null || toks.length === 0) return null;
    const text = toMathText(toks);
    if (text === null) return null;
    return canon(parse(text));
  } catch {
    return null;
  }
}

/** The index of the parenthesis closing the one at `open`, or -1. */
function closing(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

const GROUP_START = /^\s*["'`]?\s*[OoΟ𝑂]\s*\(/u;
const CHAIN_SEP = /^\s*(?:~=|≈|~|=|≃|≅)\s*/u;

/**
 * The inner texts of the chain of `O(...)` groups a big-O text starts with (`O(m + n) ~ O(m * n)` → ["m + n",
 * "m * n"]); [] when the text does not start with one.
 */
export function bigOGroups(text: string): string[] {
  const out: string[] = [];
  let rest = text;
  for (;;) {
    const m = GROUP_START.exec(rest);
    if (m === null) break;
    const open = m[0].length - 1;
    const close = closing(rest, open);
    if (close < 0) break;
    out.push(rest.slice(open + 1, close));
    rest = rest.slice(close + 1);
    const sep = CHAIN_SEP.exec(rest);
    if (sep === null) break;
    rest = rest.slice(sep[0].length);
  }
  return out;
}

/**
 * The canonical forms of a big-O text: one per group of its chain (a range or an equality label gives several), or
 * null when it has no group or a group cannot be read. Never throws.
 * @example canonicalBigO('O(n log n)') // ['log(n)*n']
 */
export function canonicalBigO(text: string): string[] | null {
  const groups = bigOGroups(text);
  if (groups.length === 0) return null;
  const out: string[] = [];
  for (const g of groups) {
    const c = canonicalExpression(g);
    if (c === null) return null;
    out.push(c);
  }
  return out;
}

/**
 * Strict big-O match (§7 rec. 19): every group of the answer's chain must equal (canonically) one of the label's
 * groups — so `O(m + n)` and `O(m * n)` are both right for `O(m + n) ~ O(m * n)`, and echoing the whole label is
 * right too. An answer that does not read as big-O is wrong.
 * @throws Error when the label itself cannot be read (a data error; the caller names the sample).
 */
export function bigOEqual(answer: string, label: string): boolean {
  const t = canonicalBigO(label);
  if (t === null) throw new Error(`not a big-O label: ${JSON.stringify(label)}`);
  const a = canonicalBigO(answer);
  if (a === null) return false;
  return a.every((x) => t.includes(x));
}
