/**
 * The complexity algebra of hibench/code-gen (issue 15; specs/hibench.md §3.5): big-O expressions over the two input
 * sizes n and m, the constructions of the generator (loop nests, O(1) work, allocations, appends, recursive helpers
 * with known recurrences), and the exact time and space bounds of a construction.
 *
 * Expressions. A term (monomial) is a product, per variable v ∈ {n, m}, of `2^v` (optional), `v^p` (p a multiple of
 * 1/2) and `(log v)^k`; an expression is a sum of terms. Variables are taken to be ≥ 2 and to grow independently, so
 * a term is dropped from a sum iff another term bounds it in every variable (per variable, the triple
 * (exponential, power, log power) compared lexicographically). Incomparable terms are all kept: `n + m` stays
 * `O(m + n)`, `n^2 + m` stays `O(m + n^2)`, but `n + n*m` is `O(m * n)` and `1 + log n` is `O(logn)`. Constants never
 * appear. The printed label (`bigOLabel`) follows the style of the curated Code labels (`O(nlogn)`, `O(m * n)`,
 * `O(n^2)`, `O(sqrt(n))`, `O(n * (logn)^2)`, `O(2^n)`) and reads under ../lib/program/bigo.ts; equal expressions always
 * print the same text.
 */

/** The input sizes: the parameters of `solve(n, m)`. */
export type SizeVar = 'n' | 'm';
export const SIZE_VARS: readonly SizeVar[] = ['m', 'n'];

/** The growth of a term in one variable: `2^v` when `exp`, times `v^pow`, times `(log v)^log`. */
export interface Growth {
  exp: 0 | 1;
  /** a multiple of 1/2 (sqrt steps) */
  pow: number;
  log: number;
}

/** A term: its growth in m and in n. */
export type Term = Readonly<Record<SizeVar, Growth>>;

/** A big-O expression: a reduced sum of terms (no term bounded by another), sorted; [] never occurs (O(1) = [ONE]). */
export type Complexity = readonly Term[];

const G0: Growth = { exp: 0, pow: 0, log: 0 };
const ONE_TERM: Term = { m: G0, n: G0 };

/** O(1). */
export const ONE: Complexity = [ONE_TERM];

/** A single variable's term `2^v^exp * v^pow * (log v)^log`. */
export function power(v: SizeVar, pow: number, log = 0, exp: 0 | 1 = 0): Complexity {
  return [{ ...ONE_TERM, [v]: { exp, pow, log } }];
}

/** `v` (a linear loop over v). */
export const linear = (v: SizeVar): Complexity => power(v, 1);
/** `log v` (a halving or doubling loop over v). */
export const logOf = (v: SizeVar): Complexity => power(v, 0, 1);
/** `sqrt(v)` (a loop `i * i <= v`). */
export const sqrtOf = (v: SizeVar): Complexity => power(v, 0.5);

function cmpGrowth(a: Growth, b: Growth): number {
  return a.exp - b.exp || a.pow - b.pow || a.log - b.log;
}

/** Is term `a` = O(term `b`) for all n, m ≥ 2 (in every variable, a's growth is at most b's)? */
export function bounded(a: Term, b: Term): boolean {
  return SIZE_VARS.every((v) => cmpGrowth(a[v], b[v]) <= 0);
}

function termKey(t: Term): string {
  return SIZE_VARS.map((v) => `${t[v].exp},${t[v].pow},${t[v].log}`).join('|');
}

/** Drops every term bounded by another (keeps one of equal terms) and sorts by the printed form. */
export function reduce(terms: readonly Term[]): Complexity {
  const unique = new Map<string, Term>();
  for (const t of terms) unique.set(termKey(t), t);
  const list = [...unique.values()];
  const kept = list.filter((t, i) => !list.some((u, j) => j !== i && bounded(t, u)));
  if (kept.length === 0) return ONE;
  return kept.sort((a, b) => (termText(a) < termText(b) ? -1 : termText(a) > termText(b) ? 1 : 0));
}

/** a + b (sequential composition; the dominant terms, incomparable ones kept). */
export function add(...cs: readonly Complexity[]): Complexity {
  return reduce(cs.flat());
}

function mulTerm(a: Term, b: Term): Term {
  const g = (x: Growth, y: Growth): Growth => ({ exp: (x.exp || y.exp) as 0 | 1, pow: x.pow + y.pow, log: x.log + y.log });
  if (a.n.exp && b.n.exp) throw new RangeError('code-gen: 2^n * 2^n (4^n) is not a construction of the generator');
  if (a.m.exp && b.m.exp) throw new RangeError('code-gen: 2^m * 2^m (4^m) is not a construction of the generator');
  return { m: g(a.m, b.m), n: g(a.n, b.n) };
}

/** a · b (nesting), distributed over the sums. @throws RangeError for 2^v · 2^v (not generated). */
export function mul(...cs: readonly Complexity[]): Complexity {
  let acc: Complexity = ONE;
  for (const c of cs) acc = reduce(acc.flatMap((a) => c.map((b) => mulTerm(a, b))));
  return acc;
}

/** Are two reduced expressions the same? */
export function sameComplexity(a: Complexity, b: Complexity): boolean {
  return a.length === b.length && a.every((t, i) => termKey(t) === termKey(b[i]!));
}

function varText(v: SizeVar, g: Growth): string[] {
  const parts: string[] = [];
  const logText = g.log === 0 ? '' : g.log === 1 ? `log${v}` : `(log${v})^${g.log}`;
  let powText = '';
  if (g.pow === 0.5) powText = `sqrt(${v})`;
  else if (g.pow === 1) powText = v;
  else if (Number.isInteger(g.pow) && g.pow > 1) powText = `${v}^${g.pow}`;
  else if (g.pow !== 0) powText = `${v}^(${g.pow * 2}/2)`;
  if (powText === v && g.log === 1) parts.push(`${v}log${v}`);
  else {
    if (powText) parts.push(powText);
    if (logText) parts.push(logText);
  }
  if (g.exp) parts.push(`2^${v}`);
  return parts;
}

/** One term in label style: `1`, `n`, `nlogn`, `m * n^2`, `sqrt(n) * logm`, `n * 2^n`. */
export function termText(t: Term): string {
  const parts = SIZE_VARS.flatMap((v) => varText(v, t[v]));
  // exponentials last, as in `n * 2^n`
  parts.sort((a, b) => Number(a.startsWith('2^')) - Number(b.startsWith('2^')));
  return parts.length ? parts.join(' * ') : '1';
}

/** The label of an expression: `O(<terms joined by " + ">)`, e.g. `O(m + nlogn)`, `O(1)`. */
export function bigOLabel(c: Complexity): string {
  return `O(${c.map(termText).join(' + ')})`;
}

/** Does the expression have a power of a variable that is a half-integer above 1/2 (`n * sqrt(n)`)? */
export function hasFractionalPower(c: Complexity): boolean {
  return c.some((t) => SIZE_VARS.some((v) => !Number.isInteger(t[v].pow) && t[v].pow !== 0.5));
}

/**
 * Numeric value of an expression at (n, m), for the growth tests: `log v` is `log2(v) + logOffset` (1 matches the
 * floor(log2 v) + 1 iterations of a halving loop at small sizes; the offset does not change the big-O).
 */
export function evaluate(c: Complexity, n: number, m: number, logOffset = 0): number {
  const at = (g: Growth, x: number): number => (g.exp ? 2 ** x : 1) * x ** g.pow * (Math.log2(x) + logOffset) ** g.log;
  return c.reduce((s, t) => s + at(t.n, n) * at(t.m, m), 0);
}

// ---------------------------------------------------------------------------------------------------------------------
// Constructions

/**
 * How a loop iterates, over its bound B:
 * - `linear`: `for i in range(B)` — B iterations; `step`: `range(0, B, s)` with s in 2..3 — B/s;
 * - `halving`: `i = B; while i > 0: i //= 2` — log B; `doubling`: `i = 1; while i < B: i *= 2` — log B;
 * - `sqrt`: `i = 1; while i * i <= B: i += 1` — sqrt B;
 * - `dependent`: `for j in range(i)` where i is the index of the enclosing linear/step loop over B — Σ i = Θ(B²), so
 *   a factor B on top of the parent's;
 * - `dependent-halving`: `j = i; while j > 0: j //= 2` under such a parent — Σ log i = Θ(B log B): a factor log B.
 */
export type LoopKind = 'linear' | 'step' | 'halving' | 'doubling' | 'sqrt' | 'dependent' | 'dependent-halving';

/** A loop bound: a variable, or the products n·m and n·n (linear loops only). */
export type Bound = SizeVar | 'nm' | 'nn';

/**
 * The recursive helpers, with their recurrences (T time, S stack depth; the helper is called on the size v):
 * - `linear`: T(v) = T(v-1) + O(1) → time v, space v;
 * - `linear-loop`: T(v) = T(v-1) + O(v) → time v², space v;
 * - `halving`: T(v) = T(v/2) + O(1) → time log v, space log v;
 * - `halving-loop`: T(v) = T(v/2) + O(v) → time v, space log v;
 * - `binary`: T(v) = 2T(v/2) + O(1) → time v, space log v;
 * - `binary-loop`: T(v) = 2T(v/2) + O(v) → time v log v, space log v;
 * - `binary-alloc`: T(v) = 2T(v/2) + O(v) with a list of the call's size → time v log v, space v (n + n/2 + ... live
 *   along one path);
 * - `exponential`: T(v) = 2T(v-1) + O(1) → time 2^v, space v.
 */
export type RecursionKind = 'linear' | 'linear-loop' | 'halving' | 'halving-loop' | 'binary' | 'binary-loop' | 'binary-alloc' | 'exponential';
export const RECURSION_KINDS: readonly RecursionKind[] = ['linear', 'linear-loop', 'halving', 'halving-loop', 'binary', 'binary-loop', 'binary-alloc', 'exponential'];

/** A statement of a construction. Allocations are top-level only (live until `solve` returns). */
export type Stmt =
  | { kind: 'loop'; loop: LoopKind; bound: Bound; step?: number; shape: number; body: Stmt[] }
  | { kind: 'work'; shape: number }
  | { kind: 'alloc'; size: Bound }
  | { kind: 'append' }
  | { kind: 'call'; rec: RecursionKind; over: SizeVar };

/** A construction: the body of `solve(n, m)`. */
export interface Construction {
  body: Stmt[];
}

/** The size of a bound as an expression (n, m, n·m, n²). */
export function boundSize(b: Bound): Complexity {
  if (b === 'nm') return mul(linear('n'), linear('m'));
  if (b === 'nn') return power('n', 2);
  return linear(b);
}

function boundVar(b: Bound): SizeVar {
  if (b === 'n' || b === 'm') return b;
  throw new RangeError(`code-gen: a ${b} bound is only for linear loops`);
}

/** The number of iterations of a loop, as a factor of its parent's count. @throws RangeError for an impossible loop. */
export function loopFactor(loop: LoopKind, bound: Bound): Complexity {
  switch (loop) {
    case 'linear':
    case 'step':
    case 'dependent':
      return boundSize(bound);
    case 'halving':
    case 'doubling':
    case 'dependent-halving':
      return logOf(boundVar(bound));
    case 'sqrt':
      return sqrtOf(boundVar(bound));
  }
}

/** The time and stack depth of one call of a recursive helper on size v. */
export function recursionCost(rec: RecursionKind, v: SizeVar): { time: Complexity; space: Complexity } {
  switch (rec) {
    case 'linear':
      return { time: linear(v), space: linear(v) };
    case 'linear-loop':
      return { time: power(v, 2), space: linear(v) };
    case 'halving':
      return { time: logOf(v), space: logOf(v) };
    case 'halving-loop':
      return { time: linear(v), space: logOf(v) };
    case 'binary':
      return { time: linear(v), space: logOf(v) };
    case 'binary-loop':
      return { time: power(v, 1, 1), space: logOf(v) };
    case 'binary-alloc':
      return { time: power(v, 1, 1), space: linear(v) };
    case 'exponential':
      return { time: power(v, 0, 0, 1), space: linear(v) };
  }
}

/** The bounds of a construction: time, space (auxiliary: allocations + appended elements + deepest stack). */
export interface Analysis {
  time: Complexity;
  space: Complexity;
}

/**
 * The exact time and space of a construction:
 * - time: a block's statements add; a loop costs (its iteration factor) × (1 + its body); work and appends O(1); an
 *   allocation its size; a call its recurrence's solution;
 * - space: O(1) + every top-level allocation + for each append the number of times it runs (the product of its
 *   enclosing loops' factors) + each call's stack depth (transient, so never multiplied by a loop; the sum of the
 *   depths is the same big-O as their maximum).
 * @throws RangeError for a construction the generator does not make (an allocation inside a loop, a bad bound).
 */
export function analyse(c: Construction): Analysis {
  const space: Complexity[] = [ONE];
  const block = (stmts: readonly Stmt[], count: Complexity, top: boolean): Complexity => {
    const times: Complexity[] = [ONE];
    for (const s of stmts) {
      switch (s.kind) {
        case 'work':
          break;
        case 'append':
          space.push(count);
          break;
        case 'alloc':
          if (!top) throw new RangeError('code-gen: allocations are top-level statements');
          times.push(boundSize(s.size));
          space.push(boundSize(s.size));
          break;
        case 'call': {
          const r = recursionCost(s.rec, s.over);
          times.push(r.time);
          space.push(r.space);
          break;
        }
        case 'loop': {
          const f = loopFactor(s.loop, s.bound);
          times.push(mul(f, block(s.body, mul(count, f), false)));
          break;
        }
      }
    }
    return add(...times);
  };
  const time = block(c.body, ONE, true);
  return { time, space: add(...space) };
}

/** The deepest loop nesting of a construction (0 without loops). */
export function loopDepth(stmts: readonly Stmt[]): number {
  return Math.max(0, ...stmts.map((s) => (s.kind === 'loop' ? 1 + loopDepth(s.body) : 0)));
}
