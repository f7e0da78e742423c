/**
 * The code-structure targets (plugins/hibench/src/code-structure/targets.ts; README "Code structure") on small
 * hand-written Python and C++ programs whose answers were worked out by hand: methods per class (nested classes,
 * decorators, overloads, declarations, operators), top-level functions, loop nesting depth (comprehensions, for-else,
 * nested functions and lambdas, do-while), the chain of enclosing blocks of a line (elif / else if / else, try, with,
 * switch, lambdas, unbraced bodies) and the callees of each function (self./this->, objects, recursion, lambdas,
 * nested functions, builtins, constructors).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from 'web-tree-sitter';
import { CodeSyntax, type CodeLanguage } from '../../plugins/hibench/src/lib/program/syntax.js';
import { blockLines, classMethods, enclosingBlocks, functionCallees, loopDepth, topLevelFunctions } from '../../plugins/hibench/src/code-structure/targets.js';

let syntax: CodeSyntax;
beforeAll(async () => {
  syntax = await CodeSyntax.create();
});
afterAll(() => syntax.delete());

const on = <T>(language: CodeLanguage, code: string, f: (root: Node) => T): T => syntax.parse(language, code, (t) => f(t.rootNode));
const lines = (...l: string[]): string => `${l.join('\n')}\n`;

describe('class_methods', () => {
  it('Python: defs directly in the body, decorated ones included, nested functions and nested classes apart, a setter once', () => {
    const code = lines(
      'class Outer:',
      '    x = 1',
      '',
      '    def a(self):',
      '        def helper():',
      '            pass',
      '        return helper()',
      '',
      '    @staticmethod',
      '    def b():',
      '        return 2',
      '',
      '    class Inner:',
      '        def c(self):',
      '            return 3',
      '',
      '    @property',
      '    def d(self):',
      '        return 4',
      '',
      '    @d.setter',
      '    def d(self, v):',
      '        pass',
      '',
      '    f = lambda self: 5',
      '',
      '',
      'class Empty:',
      '    pass',
    );
    expect(on('python', code, (r) => classMethods(r, 'python'))).toEqual([
      { kind: 'class', name: 'Outer', line: 1, methods: ['a', 'b', 'd'] },
      { kind: 'class', name: 'Inner', line: 13, methods: ['c'] },
      { kind: 'class', name: 'Empty', line: 28, methods: [] },
    ]);
  });

  it('C++: constructors (overloads once), destructor, declared-only methods, operators, templates; a nested struct apart; no function-pointer field, no out-of-class definition', () => {
    const code = lines(
      'class Outer {',
      'public:',
      '    Outer() {}',
      '    Outer(int x) : v(x) {}',
      '    ~Outer() = default;',
      '    int get() const { return v; }',
      '    void set(int x);',
      '    bool operator<(const Outer& o) const { return v < o.v; }',
      '    template <typename T> T as() const { return T(v); }',
      '    struct Inner {',
      '        int twice(int x) { return 2 * x; }',
      '    };',
      'private:',
      '    int v = 0;',
      '    int (*fp)(int);',
      '};',
      'void Outer::set(int x) { v = x; }',
      'int helper() { return 1; }',
    );
    expect(on('cpp', code, (r) => classMethods(r, 'cpp'))).toEqual([
      { kind: 'class', name: 'Outer', line: 1, methods: ['Outer', '~Outer', 'get', 'set', 'operator<', 'as'] },
      { kind: 'struct', name: 'Inner', line: 10, methods: ['twice'] },
    ]);
  });

  it('C++: declarations only (a constructor, a conversion operator, a deleted copy, two methods in one declaration); friends are not members', () => {
    const code = lines(
      'class A {',
      'public:',
      '    A(int x);',
      '    A(const A&) = delete;',
      '    explicit operator bool() const;',
      '    virtual ~A();',
      '    static A make() { return A(1); }',
      '    friend bool operator==(const A&, const A&);',
      '    int g(int), h(int);',
      '};',
      'A::A(int x) { make(); }',
    );
    expect(on('cpp', code, (r) => classMethods(r, 'cpp'))).toEqual([{ kind: 'class', name: 'A', line: 1, methods: ['A', 'operator bool', '~A', 'make', 'g', 'h'] }]);
    expect(on('cpp', code, (r) => functionCallees(r, 'cpp')).map((f) => [f.name, f.line, f.callees])).toEqual([
      ['make', 7, []],
      ['A', 11, ['make']],
    ]);
  });

  it('top-level functions: outside any class or function, in order (Python nested defs and C++ namespaces)', () => {
    const py = lines('def f():', '    def g():', '        pass', '    return g()', '', 'class A:', '    def m(self):', '        pass', '', 'def h():', '    return f()');
    expect(on('python', py, (r) => topLevelFunctions(r, 'python'))).toEqual(['f', 'h']);
    const cpp = lines('int f() { return 1; }', 'namespace ns {', 'int g() {', '    auto l = []() { return 0; };', '    return l();', '}', '}', 'struct S { int m() { return 0; } };');
    expect(on('cpp', cpp, (r) => topLevelFunctions(r, 'cpp'))).toEqual(['f', 'g']);
  });
});

describe('loop_depth', () => {
  it('0 without a loop; comprehensions and generator expressions are not loops', () => {
    expect(on('python', lines('def f(x):', '    return [y for y in x if any(z for z in y)]'), (r) => loopDepth(r, 'python'))).toBe(0);
    expect(on('python', lines('for x in xs:', '    ys = [y for y in x]'), (r) => loopDepth(r, 'python'))).toBe(1);
    expect(on('cpp', lines('int f(int x) { return x > 0 ? x : -x; }'), (r) => loopDepth(r, 'cpp'))).toBe(0);
  });

  it('Python: through if, nested functions and lambdas; a loop in a for-else clause is not in the body', () => {
    const nested = lines(
      'def f(xs):',
      '    for x in xs:',
      '        if x:',
      '            def g():',
      '                while x:',
      '                    for y in x:',
      '                        pass',
      '            g()',
    );
    expect(on('python', nested, (r) => loopDepth(r, 'python'))).toBe(3);
    const forElse = lines('for x in xs:', '    pass', 'else:', '    while True:', '        break');
    expect(on('python', forElse, (r) => loopDepth(r, 'python'))).toBe(1);
    const siblings = lines('while a:', '    for b in c:', '        pass', '    for d in e:', '        while f:', '            for g in h:', '                pass');
    expect(on('python', siblings, (r) => loopDepth(r, 'python'))).toBe(4);
  });

  it('C++: for, range-for, while, do-while; unbraced bodies; a loop inside a lambda inside a loop', () => {
    const code = lines(
      'int f(vector<int>& v, int n) {',
      '    for (int i = 0; i < n; ++i) {',
      '        if (v[i]) {',
      '            while (n) {',
      '                do { --n; } while (n > 3);',
      '            }',
      '        }',
      '    }',
      '    for (int x : v)',
      '        for (int y : v) n += x * y;',
      '    for (int x : v) {',
      '        auto g = [&]() { for (int y : v) n += y; };',
      '        g();',
      '    }',
      '    return n;',
      '}',
    );
    expect(on('cpp', code, (r) => loopDepth(r, 'cpp'))).toBe(3);
    expect(on('cpp', lines('void f() {', '    while (a) {}', '    do {} while (b);', '}'), (r) => loopDepth(r, 'cpp'))).toBe(1);
  });
});

describe('enclosing_blocks', () => {
  const py = lines(
    'class A:',
    '    def f(self, xs):',
    '        """Doc."""',
    '        for x in xs:',
    '            if x > 0:',
    '                y = 1',
    '            elif x < 0:',
    '                y = 2',
    '            else:',
    '                y = 3',
    '        try:',
    '            z = 1',
    '        except ValueError:',
    '            z = 2',
    '        finally:',
    '            z = 3',
    '        with open("f") as fh:',
    '            z = 4',
    '        while xs:',
    '            xs.pop()',
    '        else:',
    '            z = 5',
    '        if z: return 1',
    '        return z',
  );

  it('Python: each branch named by its own keyword (if / elif / else, try / except / finally, while-else), with, outermost first', () => {
    const at = (line: number) => on('python', py, (r) => enclosingBlocks(r, py, 'python', line));
    const base = ['class A', 'function f'];
    expect(at(6)).toEqual([...base, 'for', 'if']);
    expect(at(8)).toEqual([...base, 'for', 'elif']);
    expect(at(10)).toEqual([...base, 'for', 'else']);
    expect(at(12)).toEqual([...base, 'try']);
    expect(at(14)).toEqual([...base, 'except']);
    expect(at(16)).toEqual([...base, 'finally']);
    expect(at(18)).toEqual([...base, 'with']);
    expect(at(20)).toEqual([...base, 'while']);
    expect(at(22)).toEqual([...base, 'else']);
    expect(at(24)).toEqual(base);
  });

  it('Python: only lines that start a simple statement are candidates (no headers, docstrings or one-line if bodies)', () => {
    const got = on('python', py, (r) => blockLines(r, py, 'python'));
    expect(got.map((l) => l.line)).toEqual([6, 8, 10, 12, 14, 16, 18, 20, 22, 24]);
    expect(got[0]).toEqual({ line: 6, text: 'y = 1', chain: ['class A', 'function f', 'for', 'if'] });
    expect(() => on('python', py, (r) => enclosingBlocks(r, py, 'python', 4))).toThrow(RangeError);
    expect(() => on('python', py, (r) => enclosingBlocks(r, py, 'python', 23))).toThrow(/no simple statement starts line 23/);
  });

  it('C++: an else-if chain gives `else if` and a final `else`; `else { if … }` gives else, if; unbraced loop bodies; switch / case / default inside a lambda', () => {
    const code = lines(
      'int f(int x) {',
      '    if (x > 0) {',
      '        return 1;',
      '    } else if (x < 0) {',
      '        return -1;',
      '    } else {',
      '        if (x == 0) {',
      '            return 0;',
      '        }',
      '    }',
      '    return 2;',
      '}',
      'int g(int n) {',
      '    int s = 0;',
      '    for (int i = 0; i < n; ++i)',
      '        s += i;',
      '    auto h = [&](int k) {',
      '        switch (k) {',
      '            case 1:',
      '                s += 1;',
      '                break;',
      '            default:',
      '                s = 0;',
      '        }',
      '        return s;',
      '    };',
      '    return h(n);',
      '}',
      'class S {',
      'public:',
      '    int m() {',
      '        while (true) {',
      '            break;',
      '        }',
      '        return 0;',
      '    }',
      '};',
    );
    const got = Object.fromEntries(on('cpp', code, (r) => blockLines(r, code, 'cpp')).map((l) => [l.line, l.chain]));
    expect(got).toEqual({
      3: ['function f', 'if'],
      5: ['function f', 'else if'],
      8: ['function f', 'else', 'if'],
      11: ['function f'],
      14: ['function g'],
      16: ['function g', 'for'],
      17: ['function g'],
      20: ['function g', 'lambda', 'switch', 'case'],
      21: ['function g', 'lambda', 'switch', 'case'],
      23: ['function g', 'lambda', 'switch', 'default'],
      25: ['function g', 'lambda'],
      27: ['function g'],
      33: ['class S', 'function m', 'while'],
      35: ['class S', 'function m'],
    });
  });

  it('C++: a three-way else-if chain and a struct; an out-of-class method is a function block only', () => {
    const code = lines(
      'struct T {',
      '    int k(int x) {',
      '        if (x == 1) {',
      '            x = 2;',
      '        } else if (x == 2) {',
      '            x = 3;',
      '        } else if (x == 3) {',
      '            x = 4;',
      '        } else {',
      '            x = 5;',
      '        }',
      '        return x;',
      '    }',
      '    void z();',
      '};',
      'void T::z() {',
      '    k(1);',
      '}',
    );
    const got = Object.fromEntries(on('cpp', code, (r) => blockLines(r, code, 'cpp')).map((l) => [l.line, l.chain.join(' > ')]));
    expect(got).toEqual({
      4: 'struct T > function k > if',
      6: 'struct T > function k > else if',
      8: 'struct T > function k > else if',
      10: 'struct T > function k > else',
      12: 'struct T > function k',
      17: 'function z',
    });
  });
});

describe('callees', () => {
  it('Python: bare calls in scope, self./objects to methods of the program, recursion, lambdas; not nested functions, builtins, constructors or functions passed as values', () => {
    const code = lines(
      'def helper(x):',
      '    return x + 1',
      '',
      '',
      'class Solution:',
      '    def solve(self, xs):',
      '        total = 0',
      '        for x in xs:',
      '            total += helper(x) + self.twice(x) + len(xs)',
      '        ys = sorted(xs, key=lambda v: self.score(v))',
      '        return self.solve(ys[1:]) if ys else total',
      '',
      '    def twice(self, x):',
      '        def inner(y):',
      '            return helper(y) * 2',
      '        return inner(x)',
      '',
      '    def score(self, v):',
      '        return max(v, 0)',
      '',
      '    def sum(self, xs):',
      '        return sum(xs)',
      '',
      '    def build(self):',
      '        node = Node()',
      '        node.attach(self)',
      '        return map(self.twice, [1, 2])',
      '',
      '',
      'class Node:',
      '    def __init__(self):',
      '        self.kids = []',
      '',
      '    def attach(self, s):',
      '        self.kids.append(s)',
      '        self.__init__()',
    );
    const got = on('python', code, (r) => functionCallees(r, 'python'));
    expect(got.map((f) => [f.name, f.line, f.method, f.callees])).toEqual([
      ['helper', 1, false, []],
      ['solve', 6, true, ['helper', 'twice', 'score', 'solve']],
      ['twice', 13, true, ['inner']],
      ['inner', 14, false, ['helper']],
      ['score', 18, true, []],
      ['sum', 21, true, []],
      ['build', 24, true, ['attach']],
      ['__init__', 31, true, []],
      ['attach', 34, true, []],
    ]);
  });

  it('C++: free functions, this->, X::f of a class of the program, bare calls to members of the enclosing class (also from an out-of-class definition), objects, lambdas; not std::, builtins or constructors', () => {
    const code = lines(
      'int square(int x) { return x * x; }',
      '',
      'class Solution {',
      'public:',
      '    Solution() { reset(); }',
      '    int solve(vector<int>& v) {',
      '        int s = 0;',
      '        for (int x : v) s += square(x) + this->twice(x) + max(x, 0);',
      '        sort(v.begin(), v.end(), [&](int a, int b) { return rank(a) < rank(b); });',
      '        Helper h;',
      '        h.run();',
      '        Solution other = Solution();',
      '        return s + Solution::twice(s) + std::abs(s) + solve(v);',
      '    }',
      '    int twice(int x) { return 2 * x; }',
      '    int rank(int x);',
      '    void reset() {}',
      'private:',
      '    struct Helper {',
      '        void run() { go(); }',
      '        void go() {}',
      '    };',
      '};',
      '',
      'int Solution::rank(int x) { return twice(x) - 1; }',
    );
    const got = on('cpp', code, (r) => functionCallees(r, 'cpp'));
    expect(got.map((f) => [f.name, f.line, f.method, f.callees])).toEqual([
      ['square', 1, false, []],
      ['Solution', 5, true, ['reset']],
      ['solve', 6, true, ['square', 'twice', 'rank', 'run', 'solve']],
      ['twice', 15, true, []],
      ['reset', 17, true, []],
      ['run', 20, true, ['go']],
      ['go', 21, true, []],
      ['rank', 25, true, ['twice']],
    ]);
  });

  it('unknown languages are an error', () => {
    expect(() => on('python', 'x = 1\n', (r) => loopDepth(r, 'java' as CodeLanguage))).toThrow(/unknown language/);
  });
});

describe('enclosing_blocks: the rest of the vocabulary', () => {
  it('C++: namespace, union, do, try / catch', () => {
    const code = lines(
      'namespace geo {',
      'union U {',
      '    int f() {',
      '        do {',
      '            try {',
      '                g();',
      '            } catch (const std::exception& e) {',
      '                h();',
      '            }',
      '        } while (false);',
      '        return 0;',
      '    }',
      '};',
      '}',
    );
    const got = Object.fromEntries(on('cpp', code, (r) => blockLines(r, code, 'cpp')).map((l) => [l.line, l.chain.join(' > ')]));
    expect(got).toEqual({
      6: 'namespace geo > union U > function f > do > try',
      8: 'namespace geo > union U > function f > do > catch',
      11: 'namespace geo > union U > function f',
    });
  });

  it('Python: match / case, async def, nested class in a function', () => {
    const code = lines(
      'async def f(x):',
      '    match x:',
      '        case 1:',
      '            y = 1',
      '        case _:',
      '            class K:',
      '                z = 2',
      '    return y',
    );
    const got = Object.fromEntries(on('python', code, (r) => blockLines(r, code, 'python')).map((l) => [l.line, l.chain.join(' > ')]));
    expect(got).toEqual({ 4: 'function f > match > case', 7: 'function f > match > case > class K', 8: 'function f' });
  });
});
