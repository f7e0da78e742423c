/**
 * Rendering of a hibench/code-gen construction (./construct.ts) as a Python or C++ program (issue 15): a function
 * `solve(n, m)` (C++: `long long solve(int n, int m)`, with `#include <vector>`) preceded by its recursive helpers.
 * Every loop really iterates as its kind says (./construct.ts `LoopKind`), accumulators are kept modulo 1000003 (no
 * big integers, no overflow), and every allocation and appended list is used in the returned value. Programs assume
 * n, m ≥ 1. The Python text is also callable: `solve(n, m)` is the entry point (`PY_ENTRY`).
 *
 * `instrument: true` (Python only; tests) adds a module-level step counter `_steps = [0]`, incremented at the start of
 * every loop body and helper call and by the size of every top-level allocation, so `_steps[0]` grows as the time
 * label.
 */
import type { CodeLanguage } from '../lib/program/syntax.js';
import type { Bound, Construction, LoopKind, RecursionKind, Stmt } from './construct.js';

/** The function a generated program defines and the test harness calls. */
export const PY_ENTRY = 'solve';
/** The modulus that keeps accumulators small. */
export const MOD = 1000003;

/** The identifiers of one program (drawn by the generator, the same for both languages). */
export interface ProgramNames {
  /** the accumulator */
  acc: string;
  /** loop index per nesting depth (0 = outermost), distinct */
  index: string[];
  /** allocation names, in order of the top-level allocations */
  arrays: string[];
  /** the appended list */
  out: string;
  /** each helper's name */
  helper: Partial<Record<RecursionKind, string>>;
}

/** How a program is rendered: `instrument` (Python only; tests) adds the step counter `_steps` of the module comment (loop bodies, helper calls, allocations). */
export interface RenderOptions {
  instrument?: boolean;
}

const IND = '    ';

function boundText(b: Bound, lang: CodeLanguage): string {
  if (b === 'nm') return lang === 'python' ? 'n * m' : '(long long)n * m';
  if (b === 'nn') return lang === 'python' ? 'n * n' : '(long long)n * n';
  return b;
}

/** The helpers a construction calls, in first-call order. */
export function helpersOf(stmts: readonly Stmt[], out: RecursionKind[] = []): RecursionKind[] {
  for (const s of stmts) {
    if (s.kind === 'call' && !out.includes(s.rec)) out.push(s.rec);
    if (s.kind === 'loop') helpersOf(s.body, out);
  }
  return out;
}

function isBinary(rec: RecursionKind): boolean {
  return rec.startsWith('binary');
}

// ---------------------------------------------------------------------------------------------------------------------
// Python

function pyHelper(rec: RecursionKind, name: string, step: string | undefined): string[] {
  const st = step ? [`${IND}${step}`] : [];
  const loop = (range: string): string[] => [`${IND}s = 0`, `${IND}for t in range(${range}):`, ...(step ? [`${IND}${IND}${step}`] : []), `${IND}${IND}s = (s + t) % ${MOD}`];
  switch (rec) {
    case 'linear':
      return [`def ${name}(k):`, ...st, `${IND}if k <= 0:`, `${IND}${IND}return 0`, `${IND}return (${name}(k - 1) + k) % ${MOD}`];
    case 'linear-loop':
      return [`def ${name}(k):`, ...st, `${IND}if k <= 0:`, `${IND}${IND}return 0`, ...loop('k'), `${IND}return (s + ${name}(k - 1)) % ${MOD}`];
    case 'halving':
      return [`def ${name}(k):`, ...st, `${IND}if k <= 1:`, `${IND}${IND}return 1`, `${IND}return ${name}(k // 2) + 1`];
    case 'halving-loop':
      return [`def ${name}(k):`, ...st, `${IND}if k <= 1:`, `${IND}${IND}return 1`, ...loop('k'), `${IND}return (s + ${name}(k // 2)) % ${MOD}`];
    case 'binary':
      return [`def ${name}(lo, hi):`, ...st, `${IND}if hi - lo <= 1:`, `${IND}${IND}return 1`, `${IND}mid = (lo + hi) // 2`, `${IND}return (${name}(lo, mid) + ${name}(mid, hi)) % ${MOD}`];
    case 'binary-loop':
      return [
        `def ${name}(lo, hi):`,
        ...st,
        `${IND}if hi - lo <= 1:`,
        `${IND}${IND}return 1`,
        `${IND}mid = (lo + hi) // 2`,
        ...loop('lo, hi'),
        `${IND}return (s + ${name}(lo, mid) + ${name}(mid, hi)) % ${MOD}`,
      ];
    case 'binary-alloc':
      return [
        `def ${name}(lo, hi):`,
        ...st,
        `${IND}if hi - lo <= 1:`,
        `${IND}${IND}return 1`,
        `${IND}mid = (lo + hi) // 2`,
        `${IND}left = ${name}(lo, mid)`,
        `${IND}right = ${name}(mid, hi)`,
        `${IND}merged = [0] * (hi - lo)`,
        `${IND}for t in range(hi - lo):`,
        ...(step ? [`${IND}${IND}${step}`] : []),
        `${IND}${IND}merged[t] = (left + right + t) % ${MOD}`,
        `${IND}return merged[-1]`,
      ];
    case 'exponential':
      return [`def ${name}(k):`, ...st, `${IND}if k <= 0:`, `${IND}${IND}return 1`, `${IND}return (${name}(k - 1) + ${name}(k - 1)) % ${MOD}`];
  }
}

interface Ctx {
  names: ProgramNames;
  arrays: { name: string; size: Bound }[];
  step?: string;
  hasOut: boolean;
  /** C++: the variables declared in the current block (a second `while` loop on the same index assigns it) */
  declared?: Set<string>;
}

function workPy(shape: number, acc: string, scope: readonly string[]): string[] {
  const last = scope[scope.length - 1];
  const prev = scope[scope.length - 2];
  if (shape === 1 && last) return [`${acc} = (${acc} + ${last}) % ${MOD}`];
  if (shape === 2 && last && prev) return [`${acc} = (${acc} + ${prev} * ${last}) % ${MOD}`];
  if (shape === 3 && last) return [`if (${last} + ${acc}) % 3 == 0:`, `${IND}${acc} += 2`];
  return [`${acc} += 1`];
}

function workCpp(shape: number, acc: string, scope: readonly string[]): string[] {
  const last = scope[scope.length - 1];
  const prev = scope[scope.length - 2];
  if (shape === 1 && last) return [`${acc} = (${acc} + ${last}) % ${MOD};`];
  if (shape === 2 && last && prev) return [`${acc} = (${acc} + ${prev} * ${last}) % ${MOD};`];
  if (shape === 3 && last) return [`if ((${last} + ${acc}) % 3 == 0) ${acc} += 2;`];
  return [`${acc}++;`];
}

function callArgs(rec: RecursionKind, v: string): string {
  return isBinary(rec) ? `0, ${v}` : v;
}

function indent(lines: readonly string[], by = IND): string[] {
  return lines.map((l) => by + l);
}

function pyStmts(stmts: readonly Stmt[], ctx: Ctx, scope: string[]): string[] {
  const out: string[] = [];
  for (const s of stmts) out.push(...pyStmt(s, ctx, scope));
  return out;
}

function pyStmt(s: Stmt, ctx: Ctx, scope: string[]): string[] {
  const { names } = ctx;
  const acc = names.acc;
  switch (s.kind) {
    case 'work':
      return workPy(s.shape, acc, scope);
    case 'append':
      return [`${names.out}.append(${scope[scope.length - 1] ?? acc})`];
    case 'alloc': {
      const name = names.arrays[ctx.arrays.length]!;
      ctx.arrays.push({ name, size: s.size });
      const line =
        s.size === 'nm' ? `${name} = [[0] * m for _ in range(n)]` : s.size === 'nn' ? `${name} = [[0] * n for _ in range(n)]` : `${name} = [0] * ${s.size}`;
      return ctx.step ? [line, `_steps[0] += ${boundText(s.size, 'python')}`] : [line];
    }
    case 'call':
      return [`${acc} = (${acc} + ${names.helper[s.rec]!}(${callArgs(s.rec, s.over)})) % ${MOD}`];
    case 'loop': {
      const i = names.index[scope.length]!;
      const parent = scope[scope.length - 1];
      const body = [...(ctx.step ? [ctx.step] : []), ...pyStmts(s.body, ctx, [...scope, i])];
      const b = boundText(s.bound, 'python');
      return pyLoop(s.loop, s.shape, i, b, parent, s.step ?? 2, body);
    }
  }
}

function pyLoop(loop: LoopKind, shape: number, i: string, b: string, parent: string | undefined, step: number, body: string[]): string[] {
  switch (loop) {
    case 'linear':
      return [`for ${i} in range(${b}):`, ...indent(body)];
    case 'step':
      return [`for ${i} in range(0, ${b}, ${step}):`, ...indent(body)];
    case 'dependent':
      return [`for ${i} in range(${parent!}):`, ...indent(body)];
    case 'halving':
    case 'dependent-halving': {
      const start = loop === 'halving' ? b : parent!;
      return shape % 2 === 0
        ? [`${i} = ${start}`, `while ${i} > 0:`, ...indent(body), `${IND}${i} //= 2`]
        : [`${i} = ${start}`, `while ${i} >= 1:`, ...indent(body), `${IND}${i} = ${i} // 2`];
    }
    case 'doubling':
      return [`${i} = 1`, `while ${i} < ${b}:`, ...indent(body), `${IND}${i} *= 2`];
    case 'sqrt':
      return shape % 2 === 0 ? [`${i} = 1`, `while ${i} * ${i} <= ${b}:`, ...indent(body), `${IND}${i} += 1`] : [`${i} = 1`, `while ${i} <= ${b} // ${i}:`, ...indent(body), `${IND}${i} += 1`];
  }
}

function renderPython(c: Construction, names: ProgramNames, opts: RenderOptions): string {
  const step = opts.instrument ? '_steps[0] += 1' : undefined;
  const ctx: Ctx = { names, arrays: [], step, hasOut: hasAppend(c.body) };
  const parts: string[] = [];
  if (opts.instrument) parts.push('_steps = [0]\n');
  for (const rec of helpersOf(c.body)) parts.push(`${pyHelper(rec, names.helper[rec]!, step).join('\n')}\n`);
  const body = [`${names.acc} = 0`];
  if (ctx.hasOut) body.push(`${names.out} = []`);
  body.push(...pyStmts(c.body, ctx, []));
  const sizes = [...ctx.arrays.map((a) => `len(${a.name})`), ...(ctx.hasOut ? [`len(${names.out})`] : [])];
  body.push(`return ${sizes.length ? `(${[names.acc, ...sizes].join(' + ')}) % ${MOD}` : names.acc}`);
  parts.push([`def ${PY_ENTRY}(n, m):`, ...indent(body)].join('\n') + '\n');
  return parts.join('\n');
}

function hasAppend(stmts: readonly Stmt[]): boolean {
  return stmts.some((s) => s.kind === 'append' || (s.kind === 'loop' && hasAppend(s.body)));
}

// ---------------------------------------------------------------------------------------------------------------------
// C++

function cppHelper(rec: RecursionKind, name: string): string[] {
  const loop = (from: string, to: string): string[] => [`${IND}long long s = 0;`, `${IND}for (long long t = ${from}; t < ${to}; t++) {`, `${IND}${IND}s = (s + t) % ${MOD};`, `${IND}}`];
  switch (rec) {
    case 'linear':
      return [`long long ${name}(long long k) {`, `${IND}if (k <= 0) return 0;`, `${IND}return (${name}(k - 1) + k) % ${MOD};`, '}'];
    case 'linear-loop':
      return [`long long ${name}(long long k) {`, `${IND}if (k <= 0) return 0;`, ...loop('0', 'k'), `${IND}return (s + ${name}(k - 1)) % ${MOD};`, '}'];
    case 'halving':
      return [`long long ${name}(long long k) {`, `${IND}if (k <= 1) return 1;`, `${IND}return ${name}(k / 2) + 1;`, '}'];
    case 'halving-loop':
      return [`long long ${name}(long long k) {`, `${IND}if (k <= 1) return 1;`, ...loop('0', 'k'), `${IND}return (s + ${name}(k / 2)) % ${MOD};`, '}'];
    case 'binary':
      return [
        `long long ${name}(long long lo, long long hi) {`,
        `${IND}if (hi - lo <= 1) return 1;`,
        `${IND}long long mid = (lo + hi) / 2;`,
        `${IND}return (${name}(lo, mid) + ${name}(mid, hi)) % ${MOD};`,
        '}',
      ];
    case 'binary-loop':
      return [
        `long long ${name}(long long lo, long long hi) {`,
        `${IND}if (hi - lo <= 1) return 1;`,
        `${IND}long long mid = (lo + hi) / 2;`,
        ...loop('lo', 'hi'),
        `${IND}return (s + ${name}(lo, mid) + ${name}(mid, hi)) % ${MOD};`,
        '}',
      ];
    case 'binary-alloc':
      return [
        `long long ${name}(long long lo, long long hi) {`,
        `${IND}if (hi - lo <= 1) return 1;`,
        `${IND}long long mid = (lo + hi) / 2;`,
        `${IND}long long left = ${name}(lo, mid);`,
        `${IND}long long right = ${name}(mid, hi);`,
        `${IND}std::vector<long long> merged(hi - lo);`,
        `${IND}for (long long t = 0; t < hi - lo; t++) {`,
        `${IND}${IND}merged[t] = (left + right + t) % ${MOD};`,
        `${IND}}`,
        `${IND}return merged.back();`,
        '}',
      ];
    case 'exponential':
      return [`long long ${name}(long long k) {`, `${IND}if (k <= 0) return 1;`, `${IND}return (${name}(k - 1) + ${name}(k - 1)) % ${MOD};`, '}'];
  }
}

/** A C++ block: its own set of declared variables. */
function cppStmts(stmts: readonly Stmt[], ctx: Ctx, scope: string[]): string[] {
  const inner: Ctx = { ...ctx, declared: new Set() };
  const out: string[] = [];
  for (const s of stmts) out.push(...cppStmt(s, inner, scope));
  return out;
}

function cppStmt(s: Stmt, ctx: Ctx, scope: string[]): string[] {
  const { names } = ctx;
  const acc = names.acc;
  switch (s.kind) {
    case 'work':
      return workCpp(s.shape, acc, scope);
    case 'append':
      return [`${names.out}.push_back(${scope[scope.length - 1] ?? acc});`];
    case 'alloc': {
      const name = names.arrays[ctx.arrays.length]!;
      ctx.arrays.push({ name, size: s.size });
      if (s.size === 'nm') return [`std::vector<std::vector<int>> ${name}(n, std::vector<int>(m));`];
      if (s.size === 'nn') return [`std::vector<std::vector<int>> ${name}(n, std::vector<int>(n));`];
      return [`std::vector<int> ${name}(${s.size});`];
    }
    case 'call':
      return [`${acc} = (${acc} + ${names.helper[s.rec]!}(${callArgs(s.rec, s.over)})) % ${MOD};`];
    case 'loop': {
      const i = names.index[scope.length]!;
      const parent = scope[scope.length - 1];
      const body = cppStmts(s.body, ctx, [...scope, i]);
      const b = boundText(s.bound, 'cpp');
      const inc = s.shape % 2 === 0 ? `${i}++` : `++${i}`;
      let head: string;
      switch (s.loop) {
        case 'linear':
          head = `for (long long ${i} = 0; ${i} < ${b}; ${inc})`;
          break;
        case 'step':
          head = `for (long long ${i} = 0; ${i} < ${b}; ${i} += ${s.step ?? 2})`;
          break;
        case 'dependent':
          head = `for (long long ${i} = 0; ${i} < ${parent!}; ${inc})`;
          break;
        case 'halving':
        case 'dependent-halving': {
          const start = s.loop === 'halving' ? b : parent!;
          if (s.shape % 2 === 1) {
            const init = ctx.declared!.has(i) ? `${i} = ${start};` : `long long ${i} = ${start};`;
            ctx.declared!.add(i);
            return [init, `while (${i} > 0) {`, ...indent(body), `${IND}${i} /= 2;`, '}'];
          }
          head = `for (long long ${i} = ${start}; ${i} > 0; ${i} /= 2)`;
          break;
        }
        case 'doubling':
          head = `for (long long ${i} = 1; ${i} < ${b}; ${i} *= 2)`;
          break;
        case 'sqrt':
          head = `for (long long ${i} = 1; ${i} * ${i} <= ${b}; ${inc})`;
          break;
      }
      return [`${head} {`, ...indent(body), '}'];
    }
  }
}

function renderCpp(c: Construction, names: ProgramNames): string {
  const ctx: Ctx = { names, arrays: [], hasOut: hasAppend(c.body) };
  const parts: string[] = ['#include <vector>\n'];
  for (const rec of helpersOf(c.body)) parts.push(`${cppHelper(rec, names.helper[rec]!).join('\n')}\n`);
  const body = [`long long ${names.acc} = 0;`];
  if (ctx.hasOut) body.push(`std::vector<long long> ${names.out};`);
  body.push(...cppStmts(c.body, ctx, []));
  const sizes = [...ctx.arrays.map((a) => `(long long)${a.name}.size()`), ...(ctx.hasOut ? [`(long long)${names.out}.size()`] : [])];
  body.push(`return ${sizes.length ? `(${[names.acc, ...sizes].join(' + ')}) % ${MOD}` : names.acc};`);
  parts.push([`long long ${PY_ENTRY}(int n, int m) {`, ...indent(body), '}'].join('\n') + '\n');
  return parts.join('\n');
}

/**
 * The program text of a construction in `language` (./construct.ts `Construction`; names from the generator).
 * @throws Error when `names` lacks a helper name or has too few index/array names for the construction.
 */
export function renderProgram(c: Construction, names: ProgramNames, language: CodeLanguage, opts: RenderOptions = {}): string {
  for (const rec of helpersOf(c.body)) if (!names.helper[rec]) throw new Error(`code-gen: no helper name for ${rec}`);
  return language === 'python' ? renderPython(c, names, opts) : renderCpp(c, names);
}
