/**
 * An exact step counter for hibench/code-gen constructions, independent of the complexity algebra: the number the
 * instrumented Python rendering (`renderProgram(..., { instrument: true })`) leaves in `_steps[0]` — one per loop-body
 * run and per helper call, plus the size of each top-level allocation — computed from the loops' iteration counts
 * (closed forms where the body does not depend on the index) and memoised recurrences, so it also works at sizes far
 * beyond what Python could run (test/hibench/code-gen-run.test.ts checks it against Python at small sizes).
 */
import { evaluate, type Bound, type Complexity, type Construction, type RecursionKind, type Stmt } from '../../plugins/hibench/src/code-gen/construct.js';

const bitlen = (x: number): number => (x <= 0 ? 0 : Math.floor(x).toString(2).length);
function isqrt(x: number): number {
  let r = Math.floor(Math.sqrt(x));
  while (r * r > x) r--;
  while ((r + 1) * (r + 1) <= x) r++;
  return r;
}

function size(b: Bound, n: number, m: number): number {
  return b === 'n' ? n : b === 'm' ? m : b === 'nm' ? n * m : n * n;
}

/** Steps of one helper call on size k (binary kinds: hi - lo = k). */
export function helperSteps(rec: RecursionKind, k: number, memo = new Map<string, number>()): number {
  const key = `${rec}:${k}`;
  const hit = memo.get(key);
  if (hit !== undefined) return hit;
  let v: number;
  switch (rec) {
    case 'linear':
      v = Math.max(k, 0) + 1;
      break;
    case 'linear-loop':
      v = k <= 0 ? 1 : 1 + k + (k * (k + 1)) / 2;
      break;
    case 'halving':
      v = k <= 1 ? 1 : 1 + helperSteps(rec, Math.floor(k / 2), memo);
      break;
    case 'halving-loop':
      v = k <= 1 ? 1 : 1 + k + helperSteps(rec, Math.floor(k / 2), memo);
      break;
    case 'binary':
    case 'binary-loop':
    case 'binary-alloc': {
      if (k <= 1) v = 1;
      else {
        const left = Math.floor(k / 2);
        v = 1 + (rec === 'binary' ? 0 : k) + helperSteps(rec, left, memo) + helperSteps(rec, k - left, memo);
      }
      break;
    }
    case 'exponential':
      v = k <= 0 ? 1 : 1 + 2 * helperSteps(rec, k - 1, memo);
      break;
  }
  memo.set(key, v);
  return v;
}

/** The index values of a loop (only iterated when a child depends on the index). */
function* indexValues(s: Extract<Stmt, { kind: 'loop' }>, B: number): Generator<number> {
  if (s.loop === 'linear') for (let i = 0; i < B; i++) yield i;
  else if (s.loop === 'step') for (let i = 0; i < B; i += s.step ?? 2) yield i;
  else throw new Error(`code-gen steps: a ${s.loop} loop has no dependent children`);
}

function iterations(s: Extract<Stmt, { kind: 'loop' }>, B: number, parentIndex: number): number {
  switch (s.loop) {
    case 'linear':
      return Math.max(B, 0);
    case 'step':
      return Math.max(Math.ceil(B / (s.step ?? 2)), 0);
    case 'halving':
      return bitlen(B);
    case 'doubling':
      return B <= 1 ? 0 : bitlen(B - 1);
    case 'sqrt':
      return isqrt(B);
    case 'dependent':
      return parentIndex;
    case 'dependent-halving':
      return bitlen(parentIndex);
  }
}

/** The steps of `solve(n, m)` for the instrumented Python program of `c`. */
export function constructionSteps(c: Construction, n: number, m: number): number {
  const memo = new Map<string, number>();
  const fixed = new Map<Stmt, number>();
  const stmt = (s: Stmt, parentIndex: number): number => {
    const usesIndex = s.kind === 'loop' && (s.loop === 'dependent' || s.loop === 'dependent-halving');
    if (!usesIndex) {
      const hit = fixed.get(s);
      if (hit !== undefined) return hit;
      const v = stmtSteps(s, parentIndex);
      fixed.set(s, v);
      return v;
    }
    return stmtSteps(s, parentIndex);
  };
  const stmtSteps = (s: Stmt, parentIndex: number): number => {
    switch (s.kind) {
      case 'work':
      case 'append':
        return 0;
      case 'alloc':
        return size(s.size, n, m);
      case 'call':
        return helperSteps(s.rec, s.over === 'n' ? n : m, memo);
      case 'loop': {
        const B = size(s.bound, n, m);
        const dependent = s.body.some((b) => b.kind === 'loop' && (b.loop === 'dependent' || b.loop === 'dependent-halving'));
        if (!dependent) return iterations(s, B, parentIndex) * (1 + s.body.reduce((t, b) => t + stmt(b, 0), 0));
        let total = 0;
        for (const i of indexValues(s, B)) total += 1 + s.body.reduce((t, b) => t + stmt(b, i), 0);
        return total;
      }
    }
  };
  return c.body.reduce((t, s) => t + stmt(s, 0), 0);
}

// ---------------------------------------------------------------------------------------------------------------------
// Growth fitting: does a label explain the step counts?


/** Least squares by the normal equations (k ≤ 5 unknowns); null when singular. */
function leastSquares(A: number[][], b: number[]): number[] | null {
  const k = A[0]!.length;
  const M = Array.from({ length: k }, () => Array<number>(k + 1).fill(0));
  A.forEach((row, i) => {
    for (let r = 0; r < k; r++) {
      for (let c = 0; c < k; c++) M[r]![c]! += row[r]! * row[c]!;
      M[r]![k]! += row[r]! * b[i]!;
    }
  });
  for (let c = 0; c < k; c++) {
    let p = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    [M[c], M[p]] = [M[p]!, M[c]!];
    if (Math.abs(M[c]![c]!) < 1e-12) return null;
    for (let r = 0; r < k; r++) {
      if (r === c) continue;
      const f = M[r]![c]! / M[c]![c]!;
      for (let j = c; j <= k; j++) M[r]![j]! -= f * M[c]![j]!;
    }
  }
  return M.map((row, i) => row[k]! / row[i]!);
}

/**
 * How badly a big-O expression explains counts: the smallest, over fits Σ c_t·t(n, m) with c_t > 0 (any subset of
 * the expression's terms; least squares on relative errors, `log v` = log2 v + 1), of the largest relative error at
 * the points. 0 = a perfect fit; a count growing a log factor faster than the expression gives ≈ 0.3-0.4 over
 * sizes 2^8..2^18, a polynomial factor ≈ 1.
 */
export function fitError(c: Complexity, points: readonly (readonly [number, number])[], counts: readonly number[]): number {
  let best = Infinity;
  for (let mask = 1; mask < 1 << c.length; mask++) {
    const terms = c.filter((_, j) => mask & (1 << j));
    const A = points.map(([n, m], i) => terms.map((t) => evaluate([t], n, m, 1) / counts[i]!));
    const w = leastSquares(A, points.map(() => 1));
    if (!w || w.some((x) => !(x > 0))) continue;
    best = Math.min(best, Math.max(...A.map((row) => Math.abs(row.reduce((s, a, j) => s + a * w[j]!, 0) - 1))));
  }
  return best;
}

/**
 * Sizes at which to compare counts with a label: each variable from 2^8 to 2^18 with the other fixed at 2^8 or 2^14,
 * and both together; for a label with 2^n, n from 16 to 64 instead (m as before, n fixed at 16 or 24).
 */
export function growthPoints(c: Complexity): [number, number][] {
  const xs = [8, 10, 12, 14, 16, 18].map((e) => 2 ** e);
  const fixed = [2 ** 8, 2 ** 14];
  const pts: [number, number][] = [];
  if (c.some((t) => t.n.exp)) {
    for (const n of [16, 24, 32, 40, 48, 56, 64]) for (const m of fixed) pts.push([n, m]);
    for (const m of xs) for (const n of [16, 24]) pts.push([n, m]);
    return pts;
  }
  for (const x of xs) {
    for (const f of fixed) pts.push([x, f], [f, x]);
    pts.push([x, x]);
  }
  return pts;
}
