/**
 * Seeded drawing of hibench/code-gen constructions (issue 15): presets easy / medium / hard by loop-nesting depth,
 * number of top-level blocks (terms) and the constructions allowed, and the program's identifiers. Everything comes
 * from `rngFor(seed, 'code-gen', preset, index)` (../rng.ts), so a program depends only on the seed, its preset and
 * its index (filters never change it), and the same construction and names serve both languages.
 */
import { rngFor, type Rng } from '../rng.js';
import { analyse, hasFractionalPower, loopDepth, RECURSION_KINDS, type Analysis, type Bound, type Construction, type LoopKind, type RecursionKind, type Stmt } from './construct.js';
import type { ProgramNames } from './program.js';

export type CodeGenPreset = 'easy' | 'medium' | 'hard';
export const CODE_GEN_PRESETS: readonly CodeGenPreset[] = ['easy', 'medium', 'hard'];

/** What a preset draws from. */
export interface PresetSpec {
  /** top-level blocks (loop nests, calls, allocations): [min, max] */
  blocks: [number, number];
  /** depth of the deepest loop nest: [min, max] */
  depth: [number, number];
  loops: readonly LoopKind[];
  /** bounds of outermost linear/step loops (inner loops and other kinds use n or m) */
  bounds: readonly Bound[];
  recursions: readonly RecursionKind[];
  allocs: readonly Bound[];
  /** probability that a loop body also appends to the output list */
  append: number;
  /** probability that a top-level loop's body also calls a helper */
  callInLoop: number;
}

/**
 * The presets:
 * - easy: 1-2 blocks, nests of depth 1-2; linear, step, halving and doubling loops over n or m; linear, halving and
 *   binary recursion; arrays of size n or m;
 * - medium: 2-3 blocks, deepest nest 2-3; adds sqrt loops, loops dependent on the outer index (`range(i)`, halving
 *   from i), n·m bounds, recursions with a linear loop per call, n·m grids, appends, calls inside loops;
 * - hard: 3-4 blocks, deepest nest 3-4; adds n·n bounds and grids, the allocating divide-and-conquer and the
 *   exponential recursion T(n) = 2T(n-1) + O(1).
 */
export const PRESETS: Readonly<Record<CodeGenPreset, PresetSpec>> = {
  easy: {
    blocks: [1, 2],
    depth: [1, 2],
    loops: ['linear', 'step', 'halving', 'doubling'],
    bounds: ['n', 'm'],
    recursions: ['linear', 'halving', 'binary'],
    allocs: ['n', 'm'],
    append: 0,
    callInLoop: 0,
  },
  medium: {
    blocks: [2, 3],
    depth: [2, 3],
    loops: ['linear', 'step', 'halving', 'doubling', 'sqrt', 'dependent', 'dependent-halving'],
    bounds: ['n', 'm', 'nm'],
    recursions: ['linear', 'halving', 'binary', 'linear-loop', 'halving-loop', 'binary-loop'],
    allocs: ['n', 'm', 'nm'],
    append: 0.15,
    callInLoop: 0.15,
  },
  hard: {
    blocks: [3, 4],
    depth: [3, 4],
    loops: ['linear', 'step', 'halving', 'doubling', 'sqrt', 'dependent', 'dependent-halving'],
    bounds: ['n', 'm', 'nm', 'nn'],
    recursions: ['linear', 'halving', 'binary', 'linear-loop', 'halving-loop', 'binary-loop', 'binary-alloc', 'exponential'],
    allocs: ['n', 'm', 'nm', 'nn'],
    append: 0.2,
    callInLoop: 0.2,
  },
};

const ACCS = ['total', 'acc', 'res', 'count', 'result', 'score', 'tally', 'ans'];
const INDICES = ['i', 'j', 'k', 'p', 'q', 'r', 'a', 'b', 'x', 'y', 'u', 'v', 'w', 'c', 'd'];
const ARRAYS = ['buf', 'cache', 'seen', 'table', 'grid', 'memo', 'marks', 'dp', 'cells', 'store', 'slots', 'vals'];
const OUTS = ['out', 'items', 'collected', 'trace', 'log_list', 'history'];
const HELPERS = ['walk', 'descend', 'split', 'fold', 'count_down', 'explore', 'halve', 'visit', 'reduce_range', 'probe', 'scan', 'climb', 'branch', 'combine'];

/** Draws the identifiers (all distinct within a program). */
export function drawNames(rng: Rng): ProgramNames {
  const helpers = rng.sample(HELPERS, 8);
  return {
    acc: rng.pick(ACCS),
    index: rng.sample(INDICES, 6),
    arrays: rng.sample(ARRAYS, 6),
    out: rng.pick(OUTS),
    helper: Object.fromEntries(RECURSION_KINDS.map((k, i) => [k, helpers[i]!])),
  };
}

function work(rng: Rng): Stmt {
  return { kind: 'work', shape: rng.int(0, 3) };
}

/**
 * A loop nest of exactly `depth` loops (one chain, each body also holding O(1) work, maybe an append). `parent` is the
 * enclosing loop (dependent kinds need a linear/step parent over n or m); an outermost loop (no parent) is the only
 * place for n·m / n·n bounds and for calls.
 */
function drawLoop(rng: Rng, spec: PresetSpec, depth: number, parent: Extract<Stmt, { kind: 'loop' }> | undefined): Stmt {
  const dependentOk = parent !== undefined && (parent.loop === 'linear' || parent.loop === 'step') && (parent.bound === 'n' || parent.bound === 'm');
  const kinds = spec.loops.filter((k) => dependentOk || (k !== 'dependent' && k !== 'dependent-halving'));
  const loop = rng.pick(kinds);
  let bound: Bound;
  if (loop === 'dependent' || loop === 'dependent-halving') bound = parent!.bound;
  else if ((loop === 'linear' || loop === 'step') && parent === undefined) bound = rng.pick(spec.bounds);
  else bound = rng.pick(['n', 'm'] as const);
  const s: Extract<Stmt, { kind: 'loop' }> = { kind: 'loop', loop, bound, shape: rng.int(0, 3), body: [] };
  if (loop === 'step') s.step = rng.int(2, 3);
  const body: Stmt[] = [];
  if (depth > 1) body.push(drawLoop(rng, spec, depth - 1, s));
  body.splice(rng.int(0, body.length), 0, work(rng));
  if (rng.bool(spec.append)) body.push({ kind: 'append' });
  if (parent === undefined && rng.bool(spec.callInLoop)) body.push(drawCall(rng, spec, false));
  s.body = body;
  return s;
}

function drawCall(rng: Rng, spec: PresetSpec, allowExponential: boolean): Stmt {
  const recs = spec.recursions.filter((r) => allowExponential || r !== 'exponential');
  const rec = rng.pick(recs);
  return { kind: 'call', rec, over: rec === 'exponential' ? 'n' : rng.pick(['n', 'm'] as const) };
}

/** One construction of a preset, before the label check. */
function drawOnce(rng: Rng, spec: PresetSpec): Construction {
  const blocks = rng.int(spec.blocks[0], spec.blocks[1]);
  const deepest = rng.int(spec.depth[0], spec.depth[1]);
  const body: Stmt[] = [drawLoop(rng, spec, deepest, undefined)];
  while (body.length < blocks) {
    const r = rng.next();
    if (r < 0.5) body.push(drawLoop(rng, spec, rng.int(1, deepest), undefined));
    else if (r < 0.75) body.push(drawCall(rng, spec, true));
    else body.push({ kind: 'alloc', size: rng.pick(spec.allocs) });
  }
  return { body: rng.shuffle(body) };
}

/** A drawn program: its construction, names and exact bounds. */
export interface DrawnProgram {
  construction: Construction;
  names: ProgramNames;
  analysis: Analysis;
  depth: number;
  blocks: number;
}

/**
 * The construction of program `index` of `preset` for `seed`. Constructions whose label would contain a power such
 * as n^(3/2) (a sqrt loop nested in a loop over the same variable) are redrawn from the same stream: the strict matcher
 * compares powers as written (`n * sqrt(n)` ≠ `n^1.5`), so such a label would be unfair.
 * @throws Error when no acceptable construction comes in 100 draws (not observed).
 */
export function drawProgram(seed: number, preset: CodeGenPreset, index: number): DrawnProgram {
  const rng = rngFor(seed, 'code-gen', preset, index);
  const spec = PRESETS[preset];
  for (let attempt = 0; attempt < 100; attempt++) {
    const construction = drawOnce(rng, spec);
    const analysis = analyse(construction);
    if (hasFractionalPower(analysis.time) || hasFractionalPower(analysis.space)) continue;
    const names = drawNames(rng);
    return { construction, names, analysis, depth: loopDepth(construction.body), blocks: construction.body.length };
  }
  throw new Error(`code-gen: no construction for ${preset} #${index} (seed ${seed}) in 100 draws`);
}
