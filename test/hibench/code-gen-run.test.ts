/**
 * hibench/code-gen programs really run and really cost what their labels say (issue 15):
 * - a sample of 20 generated Python programs (all loop kinds, recursions and allocations among them) runs in the
 *   HumanEval sandbox (`@hpt-bench/sandbox`, through the core's bound) at small n, m, and the same programs compiled
 *   as C++ (when g++ is installed) return the same values; so do all 300 programs of seeds 0 and 1 at tiny sizes;
 * - the instrumented Python rendering counts exactly the steps of the independent step counter
 *   (test/helpers/code-gen-steps.ts) at several sizes, so every loop iterates as its kind says;
 * - at large sizes the step counts grow as the time label: the label fits them, while the label times n, m, log n or
 *   log m does not; and hand-made constructions are told apart from the bounds a wrong rule would give;
 * - the peak memory of hand-made constructions (tracemalloc, with a profile function set so that CPython 3.11 makes
 *   a traced frame object for every call of a recursion) grows as their space label, not as the bound of a wrong rule.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedCodeSandbox } from '@hpt-bench/core';
import { add, analyse, bigOLabel, evaluate, linear, logOf, mul, ONE, power, type Complexity, type Construction, type Stmt } from '../../plugins/hibench/src/code-gen/construct.js';
import { CODE_GEN_PRESETS, drawProgram, type DrawnProgram } from '../../plugins/hibench/src/code-gen/generate.js';
import { renderProgram } from '../../plugins/hibench/src/code-gen/program.js';
import { constructionSteps, fitError, growthPoints } from '../helpers/code-gen-steps.js';

/** The code sandbox a scorer receives (the core's: at most 8 programs at once). */
const sandbox = sharedCodeSandbox();
const runPython: typeof sandbox.run = (program, options) => sandbox.run(program, options);
const sandboxIsolation: typeof sandbox.isolation = (options) => sandbox.isolation(options);

/** The features of a construction (loop kinds, recursions, allocation sizes, appends). */
function features(stmts: readonly Stmt[], out = new Set<string>()): Set<string> {
  for (const s of stmts) {
    if (s.kind === 'loop') {
      out.add(`loop:${s.loop}`);
      out.add(`bound:${s.bound}`);
      features(s.body, out);
    } else if (s.kind === 'call') out.add(`call:${s.rec}`);
    else if (s.kind === 'alloc') out.add(`alloc:${s.size}`);
    else if (s.kind === 'append') out.add('append');
  }
  return out;
}

/** 20 programs of seed 11: greedily those adding a feature not yet covered, then the first ones of each preset. */
function sample(): DrawnProgram[] {
  const pool = CODE_GEN_PRESETS.flatMap((preset) => Array.from({ length: 50 }, (_, i) => drawProgram(11, preset, i)));
  const chosen: DrawnProgram[] = [];
  const covered = new Set<string>();
  for (const p of pool) {
    const f = features(p.construction.body);
    if ([...f].some((x) => !covered.has(x))) {
      chosen.push(p);
      f.forEach((x) => covered.add(x));
    }
  }
  for (const p of pool) if (chosen.length < 20 && !chosen.includes(p)) chosen.push(p);
  return chosen.slice(0, 20);
}

const SAMPLE = sample();
const SIZES: [number, number][] = [
  [1, 1],
  [2, 3],
  [5, 4],
  [7, 2],
  [3, 9],
];
const ALL_FEATURES = [
  ...['linear', 'step', 'halving', 'doubling', 'sqrt', 'dependent', 'dependent-halving'].map((k) => `loop:${k}`),
  ...['linear', 'linear-loop', 'halving', 'halving-loop', 'binary', 'binary-loop', 'binary-alloc', 'exponential'].map((k) => `call:${k}`),
  ...['n', 'm', 'nm', 'nn'].map((k) => `alloc:${k}`),
  'append',
];
const sandboxAvailable = sandboxIsolation().mode !== 'unavailable';
/** Is g++ installed? (the C++ checks are skipped without it) */
const gpp = ((): boolean => {
  try {
    execFileSync('g++', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('generated programs run', () => {
  it('the sample covers every construction', () => {
    const f = new Set(SAMPLE.flatMap((p) => [...features(p.construction.body)]));
    expect(ALL_FEATURES.filter((x) => !f.has(x))).toEqual([]);
    expect(SAMPLE).toHaveLength(20);
  });

  let pythonValues: string[] | undefined;
  it.skipIf(!sandboxAvailable)('20 Python programs run to their end in the sandbox at small n, m and print integers', async () => {
    const results = await Promise.all(
      SAMPLE.map((p) => runPython(`${renderProgram(p.construction, p.names, 'python')}\nfor n, m in ${JSON.stringify(SIZES)}:\n    print(solve(n, m))\n`, { timeoutMs: 20_000 })),
    );
    results.forEach((r, i) => {
      expect(r.status, `${bigOLabel(SAMPLE[i]!.analysis.time)}\n${r.stderr}`).toBe('passed');
      expect(r.stdout.trim().split('\n')).toHaveLength(SIZES.length);
      expect(r.stdout).toMatch(/^(\d+\n)+$/);
    });
    pythonValues = results.map((r) => r.stdout);
  }, 120_000);

  it.skipIf(!sandboxAvailable)('the instrumented Python programs count exactly the steps of the independent counter', async () => {
    const results = await Promise.all(
      SAMPLE.map((p) =>
        runPython(`${renderProgram(p.construction, p.names, 'python', { instrument: true })}\nfor n, m in ${JSON.stringify(SIZES)}:\n    _steps[0] = 0\n    solve(n, m)\n    print(_steps[0])\n`, { timeoutMs: 20_000 }),
      ),
    );
    results.forEach((r, i) => {
      expect(r.status, r.stderr).toBe('passed');
      const expected = SIZES.map(([n, m]) => constructionSteps(SAMPLE[i]!.construction, n, m));
      expect(r.stdout.trim().split('\n').map(Number), JSON.stringify(SAMPLE[i]!.construction)).toEqual(expected);
    });
    // and a count that is off is noticed: an instrumented program with one loop turned from halving into linear
    const p = SAMPLE.find((q) => JSON.stringify(q.construction).includes('"halving"') && !JSON.stringify(q.construction).includes('"call","rec":"halving'))!;
    const wrong = JSON.parse(JSON.stringify(p.construction).replace('"loop":"halving"', '"loop":"linear"')) as Construction;
    expect(SIZES.map(([n, m]) => constructionSteps(wrong, n, m))).not.toEqual(SIZES.map(([n, m]) => constructionSteps(p.construction, n, m)));
  }, 120_000);

  it.skipIf(!gpp || !sandboxAvailable)('the C++ renderings compile (g++ -std=c++17 -Wall -Werror) and return what the Python ones print', () => {
    expect(pythonValues, 'the Python test ran first').toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'hpt-code-gen-cpp-'));
    const units = SAMPLE.map((p, i) => `namespace p${i} {\n${renderProgram(p.construction, p.names, 'cpp').replace('#include <vector>\n', '')}}\n`);
    const calls = SAMPLE.map((_, i) => SIZES.map(([n, m]) => `    std::printf("%lld\\n", p${i}::solve(${n}, ${m}));`).join('\n') + '\n    std::printf("--\\n");').join('\n');
    writeFileSync(join(dir, 'main.cpp'), `#include <vector>\n#include <cstdio>\n${units.join('\n')}\nint main() {\n${calls}\n    return 0;\n}\n`);
    execFileSync('g++', ['-std=c++17', '-O1', '-Wall', '-Werror', '-o', join(dir, 'main'), join(dir, 'main.cpp')], { stdio: 'pipe' });
    const out = execFileSync(join(dir, 'main'), { encoding: 'utf8' }).split('--\n').slice(0, -1);
    expect(out).toEqual(pythonValues);
  }, 120_000);
});

describe('the whole default suite runs (seeds 0 and 1)', () => {
  const TINY: [number, number][] = [
    [1, 1],
    [3, 2],
    [5, 4],
  ];
  it.skipIf(!gpp || !sandboxAvailable)('every Python program runs in the sandbox, every C++ program compiles (-Wall -Werror) and returns the same values', async () => {
    for (const seed of [0, 1]) {
      const programs = CODE_GEN_PRESETS.flatMap((preset) => Array.from({ length: 50 }, (_, i) => drawProgram(seed, preset, i)));
      const py = programs.map((p) => renderProgram(p.construction, p.names, 'python'));
      const harness = `import json\nout = []\nfor code in json.loads(${JSON.stringify(JSON.stringify(py))}):\n    g = {}\n    exec(code, g)\n    out.append([g['solve'](n, m) for n, m in ${JSON.stringify(TINY)}])\nprint(json.dumps(out))\n`;
      const r = await runPython(harness, { timeoutMs: 60_000 });
      expect(r.status, r.stderr).toBe('passed');
      const pyValues = JSON.parse(r.stdout) as number[][];
      expect(pyValues).toHaveLength(150);
      const dir = mkdtempSync(join(tmpdir(), 'hpt-code-gen-all-'));
      const units = programs.map((p, i) => `namespace p${i} {\n${renderProgram(p.construction, p.names, 'cpp').replace('#include <vector>\n', '')}}\n`);
      const calls = programs.map((_, i) => `    std::printf("[%s]\\n", "${i}");\n` + TINY.map(([n, m]) => `    std::printf("%lld\\n", p${i}::solve(${n}, ${m}));`).join('\n')).join('\n');
      writeFileSync(join(dir, 'all.cpp'), `#include <vector>\n#include <cstdio>\n${units.join('\n')}\nint main() {\n${calls}\n    return 0;\n}\n`);
      execFileSync('g++', ['-std=c++17', '-O0', '-Wall', '-Werror', '-o', join(dir, 'all'), join(dir, 'all.cpp')], { stdio: 'pipe' });
      const cppValues = execFileSync(join(dir, 'all'), { encoding: 'utf8' })
        .split(/\[\d+\]\n/)
        .slice(1)
        .map((block) => block.trim().split('\n').map(Number));
      expect(cppValues).toEqual(pyValues);
    }
  }, 120_000);
});

describe('step counts grow as the time labels', () => {
  it('every program of seed 0: the label fits the counts at sizes up to 2^18; the label × n, × m, × log n, × log m do not', () => {
    const errors: number[] = [];
    let logTried = 0;
    let logCaught = 0;
    for (const preset of CODE_GEN_PRESETS) {
      for (let i = 0; i < 50; i++) {
        const p = drawProgram(0, preset, i);
        const T = p.analysis.time;
        const pts = growthPoints(T);
        const counts = pts.map(([n, m]) => constructionSteps(p.construction, n, m));
        const e0 = fitError(T, pts, counts);
        errors.push(e0);
        const what = `${preset} #${i} ${bigOLabel(T)}`;
        expect(e0, what).toBeLessThan(0.4);
        for (const v of ['n', 'm'] as const) {
          const e = fitError(mul(T, linear(v)), pts, counts);
          expect(e, `${what} × ${v}`).toBeGreaterThan(e0 + 0.2);
          const el = fitError(mul(T, logOf(v)), pts, counts);
          logTried++;
          if (el > Math.max(0.2, 2 * e0)) logCaught++;
        }
      }
    }
    errors.sort((a, b) => a - b);
    // most labels fit within 10 %; the rest have lower-order terms that still matter at 2^18 (n·sqrt(m)·log²m next to n·m)
    expect(errors[Math.floor(errors.length * 0.9)]).toBeLessThan(0.1);
    expect(logCaught / logTried).toBeGreaterThan(0.9);
  }, 120_000);

  it('hand-made constructions: the label fits, the bound of a wrong rule does not', () => {
    const w: Stmt = { kind: 'work', shape: 0 };
    const loop = (l: Extract<Stmt, { kind: 'loop' }>['loop'], bound: 'n' | 'm' | 'nm', ...body: Stmt[]): Stmt => ({ kind: 'loop', loop: l, bound, shape: 0, body: [w, ...body] });
    const call = (rec: Extract<Stmt, { kind: 'call' }>['rec']): Stmt => ({ kind: 'call', rec, over: 'n' });
    const cases: [string, Stmt[], Complexity[]][] = [
      ['O(nlogn)', [loop('linear', 'n', loop('halving', 'n'))], [linear('n'), power('n', 2)]],
      ['O(n^2)', [loop('linear', 'n', loop('dependent', 'n'))], [linear('n'), power('n', 1, 1)]],
      ['O(nlogn)', [loop('step', 'n', loop('dependent-halving', 'n'))], [linear('n'), power('n', 2)]],
      ['O(sqrt(n))', [loop('sqrt', 'n')], [linear('n'), logOf('n')]],
      ['O(logm * n)', [loop('linear', 'n', loop('doubling', 'm'))], [linear('n'), mul(linear('n'), linear('m'))]],
      ['O(m + n)', [loop('linear', 'n'), loop('linear', 'm')], [linear('n'), linear('m')]],
      ['O(n)', [call('binary')], [power('n', 1, 1), logOf('n')]],
      ['O(nlogn)', [call('binary-loop')], [linear('n'), power('n', 2)]],
      ['O(n)', [call('halving-loop')], [power('n', 1, 1), logOf('n')]],
      ['O(n^2)', [call('linear-loop')], [linear('n'), power('n', 1, 1)]],
      ['O(logn)', [call('halving')], [linear('n'), ONE]],
      ['O(2^n)', [call('exponential')], [power('n', 2), power('n', 4)]],
      ['O(m * n)', [loop('linear', 'nm')], [linear('n'), add(linear('n'), linear('m'))]],
    ];
    for (const [label, body, wrong] of cases) {
      const c: Construction = { body };
      const time = analyse(c).time;
      expect(bigOLabel(time)).toBe(label);
      const pts = growthPoints(time);
      const counts = pts.map(([n, m]) => constructionSteps(c, n, m));
      expect(fitError(time, pts, counts), label).toBeLessThan(0.05);
      for (const x of wrong) expect(fitError(x, pts, counts), `${label} vs ${bigOLabel(x)}`).toBeGreaterThan(0.25);
    }
  });
});

describe('memory grows as the space labels', () => {
  const NAMES = { acc: 'total', index: ['i', 'j', 'k', 'p'], arrays: ['buf', 'grid', 'seen'], out: 'out', helper: { linear: 'h1', 'linear-loop': 'h2', halving: 'h3', 'halving-loop': 'h4', binary: 'h5', 'binary-loop': 'h6', 'binary-alloc': 'h7', exponential: 'h8' } };
  const w: Stmt = { kind: 'work', shape: 1 };
  const loop = (l: 'linear' | 'halving', bound: 'n' | 'm', ...body: Stmt[]): Stmt => ({ kind: 'loop', loop: l, bound, shape: 0, body: [w, ...body] });
  const call = (rec: Extract<Stmt, { kind: 'call' }>['rec']): Stmt => ({ kind: 'call', rec, over: 'n' });
  const n = linear('n');
  const m = linear('m');
  /** construction, its space label, bounds of wrong rules */
  const CASES: [Stmt[], string, Complexity[]][] = [
    [[loop('linear', 'n', loop('linear', 'm'))], 'O(1)', []],
    [[{ kind: 'alloc', size: 'n' }, loop('linear', 'n', loop('linear', 'm'))], 'O(n)', [m, logOf('n'), mul(n, m)]],
    [[{ kind: 'alloc', size: 'nm' }], 'O(m * n)', [n, m, add(n, m)]],
    [[loop('linear', 'n', loop('halving', 'm', { kind: 'append' }))], 'O(logm * n)', [n, mul(n, m), add(n, logOf('m'))]],
    [[call('linear')], 'O(n)', [logOf('n'), power('n', 2)]],
    [[call('linear-loop')], 'O(n)', [logOf('n'), power('n', 2)]],
    [[call('halving')], 'O(logn)', [n]],
    [[call('halving-loop')], 'O(logn)', [n]],
    [[call('binary')], 'O(logn)', [n]],
    [[call('binary-loop')], 'O(logn)', [n, power('n', 1, 1)]],
    [[call('binary-alloc')], 'O(n)', [power('n', 1, 1), logOf('n')]],
    [[call('exponential')], 'O(n)', [power('n', 0, 0, 1)]],
    [[loop('linear', 'm', call('linear'))], 'O(n)', [mul(n, m), m]],
  ];
  const harness = (pts: [number, number][]): string => `
import sys, tracemalloc, json
sys.setrecursionlimit(100000)
def frames(frame, event, arg):
    pass
def measure(n, m):
    tracemalloc.start()
    sys.setprofile(frames)
    solve(n, m)
    sys.setprofile(None)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak
measure(1, 1)
base = measure(1, 1)
print(json.dumps([base] + [measure(n, m) for n, m in ${JSON.stringify(pts)}]))
`;
  const sizes = (c: Construction): [number, number][] => {
    const time = analyse(c).time;
    if (time.some((t) => t.n.exp)) return [4, 6, 8, 10, 12, 14, 16].map((x) => [x, 32]);
    // appended values stay within CPython's small-int cache (≤ 256), so every element costs the same 8 bytes
    const appends = JSON.stringify(c).includes('"append"');
    const xs = appends ? [4, 8, 16, 32, 64, 128, 256] : [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192];
    const fixed = appends ? 256 : 32;
    const pts: [number, number][] = [];
    for (const x of xs) for (const p of [[x, fixed], [fixed, x], [x, x]] as [number, number][]) if (evaluate(time, p[0], p[1]) <= 1e5) pts.push(p);
    return pts;
  };

  it.skipIf(!sandboxAvailable)('peak traced memory above the smallest run: the label fits it, the bound of a wrong rule does not', async () => {
    const runs = await Promise.all(
      CASES.map(async ([body]) => {
        const c: Construction = { body };
        const pts = sizes(c);
        const r = await runPython(renderProgram(c, NAMES, 'python') + harness(pts), { timeoutMs: 60_000 });
        expect(r.status, r.stderr).toBe('passed');
        const [base, ...peaks] = JSON.parse(r.stdout) as number[];
        return { c, pts, base: base!, peaks };
      }),
    );
    runs.forEach(({ c, pts, base, peaks }, i) => {
      const [, label, wrong] = CASES[i]!;
      const space = analyse(c).space;
      expect(bigOLabel(space)).toBe(label);
      if (label === 'O(1)') {
        expect(Math.max(...peaks) / Math.min(...peaks), JSON.stringify(peaks)).toBeLessThan(1.5);
        return;
      }
      // the memory above the (1, 1) run's: what the sizes add, the interpreter's baseline left out
      const above = peaks.map((p) => p - base);
      const e0 = fitError(space, pts, above);
      expect(e0, `${label}: ${JSON.stringify(above)}`).toBeLessThan(0.3);
      for (const x of wrong) expect(fitError(x, pts, above), `${label} vs ${bigOLabel(x)}: ${JSON.stringify(above)}`).toBeGreaterThan(0.4);
    });
  }, 180_000);
});
