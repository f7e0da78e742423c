import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeSyntax, grammarPath, type CodeLanguage } from '../../plugins/hibench/src/lib/program/syntax.js';

const SHARED = new URL('../../../shared/data/hibench-code/code.jsonl', import.meta.url);

describe('CodeSyntax (web-tree-sitter WASM, Python and C++ grammars)', () => {
  let syntax: CodeSyntax;
  beforeAll(async () => {
    syntax = await CodeSyntax.create();
  });
  afterAll(() => syntax.delete());

  it('resolves the grammars from the installed packages', () => {
    expect(grammarPath('python')).toMatch(/tree-sitter-python[\\/]tree-sitter-python\.wasm$/);
    expect(grammarPath('cpp')).toMatch(/tree-sitter-cpp[\\/]tree-sitter-cpp\.wasm$/);
  });

  it('parses valid programs without ERROR nodes', () => {
    expect(syntax.check('python', 'def f(n):\n    return [i * i for i in range(n)]\n').ok).toBe(true);
    expect(syntax.check('cpp', 'int f(int n) { int s = 0; for (int i = 0; i < n; ++i) s += i; return s; }\n').ok).toBe(true);
    expect(syntax.parse('python', 'x = 1\n', (t) => t.rootNode.type)).toBe('module');
    expect(syntax.parse('cpp', 'int x;\n', (t) => t.rootNode.type)).toBe('translation_unit');
  });

  it('reports ERROR and MISSING nodes with their line', () => {
    const py = syntax.check('python', 'def f(:\n    return 1\n');
    expect(py.ok).toBe(false);
    expect(py.issues[0]).toMatchObject({ line: 1 });
    const cpp = syntax.check('cpp', 'int f() {\n  return 1\n}\n');
    expect(cpp.ok).toBe(false);
    expect(cpp.issues.map((i) => i.kind)).toContain('missing');
  });

  it('parses all 189 programs of the shared code.jsonl: lists those with ERROR nodes', () => {
    const records = readFileSync(SHARED, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; language: CodeLanguage; code: string });
    expect(records).toHaveLength(189);
    const t0 = performance.now();
    const bad = records.filter((r) => !syntax.check(r.language, r.code).ok).map((r) => r.id);
    const ms = performance.now() - t0;
    console.log(`parsed ${records.length} programs in ${ms.toFixed(0)} ms; with ERROR/MISSING nodes: ${JSON.stringify(bad)}`);
    expect(bad).toEqual([]);
  });
});
