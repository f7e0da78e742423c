/**
 * The targets of the `code-structure` task family (plugins/hibench/README.md "Code structure"), computed exactly from
 * the tree-sitter syntax tree of a program (../lib/program/syntax.ts), never from the text by regular expressions:
 * - `classMethods`: the methods written in each class body, in source order;
 * - `topLevelFunctions`: the functions outside any class or function (programs without a class);
 * - `loopDepth`: the maximum nesting depth of loops;
 * - `blockLines` / `enclosingBlocks`: the chain of blocks (class → function → loop → branch …) around a line;
 * - `functionCallees`: which functions and methods defined in the program each function calls.
 * Every function is pure over the tree (no state, no randomness) and throws only on a language it does not know.
 */
import type { Node } from 'web-tree-sitter';
import type { CodeLanguage } from '../lib/program/syntax.js';

/** A class (Python `class`, C++ `class` / `struct` / `union` with a body) and the names of its methods. */
export interface ClassInfo {
  /** `class`, `struct` or `union` (Python: always `class`) */
  kind: 'class' | 'struct' | 'union';
  name: string;
  /** 1-based line of the class name */
  line: number;
  /** distinct method names, in the order of their first definition or declaration in the class body */
  methods: string[];
}

/** A function definition and the program's functions it calls. */
export interface FunctionInfo {
  /** the unqualified name (`reduce` for C++ `Fraction::reduce`; `operator+`, `~Fraction` as written) */
  name: string;
  /** 1-based line of the name */
  line: number;
  /** defined in a class body (or, in C++, an out-of-class `X::f` definition) */
  method: boolean;
  /** distinct callee names in the order of their first call (see `functionCallees`) */
  callees: string[];
}

/** A line that starts a simple statement, with the chain of blocks enclosing it (outermost first). */
export interface BlockLine {
  /** 1-based line number */
  line: number;
  /** the line's text without its indentation and trailing spaces */
  text: string;
  chain: string[];
}

const eq = (a: Node | null | undefined, b: Node | null | undefined): boolean => a != null && b != null && a.equals(b);

/** 1-based line of a node. */
const lineOf = (n: Node): number => n.startPosition.row + 1;

function field(n: Node, name: string): Node | null {
  return n.childForFieldName(name);
}

function assertLanguage(language: CodeLanguage): void {
  if (language !== 'python' && language !== 'cpp') throw new Error(`code-structure: unknown language ${JSON.stringify(language)}`);
}

// ---------------------------------------------------------------------------------------------------------------------
// Names

const CPP_CLASS_KINDS: Readonly<Record<string, ClassInfo['kind']>> = { class_specifier: 'class', struct_specifier: 'struct', union_specifier: 'union' };

/** Is `n` a class node with a body (a definition, not a forward declaration or an elaborated type)? */
function isClassNode(n: Node, language: CodeLanguage): boolean {
  if (language === 'python') return n.type === 'class_definition';
  return n.type in CPP_CLASS_KINDS && field(n, 'body') !== null;
}

/** The name of a class node ('' when anonymous). */
function className(n: Node): string {
  return field(n, 'name')?.text ?? '';
}

/** The innermost name node of a C++ declarator (through pointer, reference, function, qualified and template declarators). */
function cppDeclaratorNameNode(d: Node | null): Node | null {
  let cur = d;
  for (let guard = 0; cur !== null && guard < 50; guard++) {
    switch (cur.type) {
      case 'identifier':
      case 'field_identifier':
      case 'type_identifier':
      case 'destructor_name':
      case 'operator_name':
        return cur;
      case 'qualified_identifier':
      case 'template_function':
      case 'template_method':
        cur = field(cur, 'name');
        break;
      default: {
        const inner = field(cur, 'declarator');
        cur = inner ?? cur.namedChildren.find((c) => c !== null && /declarator|identifier|_name$/.test(c.type)) ?? null;
      }
    }
  }
  return null;
}

/** The function_declarator of a C++ declarator, or null when the declarator declares no function. */
function cppFunctionDeclarator(d: Node | null): Node | null {
  let cur = d;
  for (let guard = 0; cur !== null && guard < 50; guard++) {
    // a conversion operator (`operator bool() const`) is its own declarator
    if (cur.type === 'operator_cast') return cur;
    if (cur.type === 'function_declarator') {
      // `int (*fp)(int)` declares a pointer, not a function
      return field(cur, 'declarator')?.type === 'parenthesized_declarator' ? null : cur;
    }
    if (!/declarator$/.test(cur.type)) return null;
    cur = field(cur, 'declarator') ?? cur.namedChildren.find((c) => c !== null && /declarator$/.test(c.type)) ?? null;
  }
  return null;
}

/** The name node of a C++ function declarator (`operator_cast`: the node itself). */
function cppNameNodeOf(f: Node | null): Node | null {
  if (f === null) return null;
  return f.type === 'operator_cast' ? f : cppDeclaratorNameNode(f);
}

/** The name of a C++ function declarator: whitespace removed (`operator ()` → `operator()`), `operator bool` for a conversion. */
function cppNameOf(f: Node | null): string {
  if (f?.type === 'operator_cast') return `operator ${(field(f, 'type')?.text ?? '').replace(/\s+/g, ' ')}`.trim();
  return (cppNameNodeOf(f)?.text ?? '').replace(/\s+/g, '');
}

/** The name node of a function definition (Python `def`, C++ function_definition). */
function functionNameNode(fn: Node, language: CodeLanguage): Node | null {
  if (language === 'python') return field(fn, 'name');
  return cppNameNodeOf(cppFunctionDeclarator(field(fn, 'declarator')));
}

/** A function's name ('' when it has none): Python as written; C++ see `cppNameOf`. */
function functionName(fn: Node, language: CodeLanguage): string {
  if (language === 'python') return field(fn, 'name')?.text ?? '';
  return cppNameOf(cppFunctionDeclarator(field(fn, 'declarator')));
}

/** C++ out-of-class definition `X::f`: the scope's text (`X`), else undefined. */
function cppQualifiedScope(fn: Node): string | undefined {
  let cur = cppFunctionDeclarator(field(fn, 'declarator'));
  cur = cur === null ? null : field(cur, 'declarator');
  if (cur?.type !== 'qualified_identifier') return undefined;
  const scope = field(cur, 'scope');
  return scope === null ? undefined : scope.text.replace(/<.*$/s, '');
}

// ---------------------------------------------------------------------------------------------------------------------
// Walking

function descendants(n: Node, pred: (n: Node) => boolean, out: Node[] = []): Node[] {
  for (const c of n.namedChildren) {
    if (c === null) continue;
    if (pred(c)) out.push(c);
    descendants(c, pred, out);
  }
  return out;
}

const FUNCTION_SCOPES = new Set(['function_definition', 'lambda', 'lambda_expression']);

/** The nearest ancestor that is a function definition or a class (or null at the top level). */
function enclosingScope(n: Node, language: CodeLanguage): Node | null {
  for (let p = n.parent; p !== null; p = p.parent) {
    if (p.type === 'function_definition' || isClassNode(p, language)) return p;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------------
// (a) class methods, top-level functions

/** The member nodes directly in a class body (Python: the body's statements; C++: the field_declaration_list's children). */
function classMembers(cls: Node): Node[] {
  const body = field(cls, 'body');
  return body === null ? [] : body.namedChildren.filter((c): c is Node => c !== null);
}

/** The method names a class member defines or declares (none for fields, nested classes, access specifiers…). */
function memberMethodNames(m: Node, language: CodeLanguage): string[] {
  if (language === 'python') {
    const def = m.type === 'decorated_definition' ? field(m, 'definition') : m;
    return def?.type === 'function_definition' ? [functionName(def, language)].filter((n) => n !== '') : [];
  }
  const inner = m.type === 'template_declaration' ? m.namedChildren.find((c) => c !== null && ['function_definition', 'field_declaration', 'declaration'].includes(c.type)) : m;
  if (inner == null) return [];
  if (inner.type === 'function_definition') return [functionName(inner, language)].filter((n) => n !== '');
  if (inner.type === 'field_declaration' || inner.type === 'declaration') {
    // `int g(int), h(int);` declares two methods
    return inner
      .childrenForFieldName('declarator')
      .map(cppFunctionDeclarator)
      .filter((f): f is Node => f !== null)
      .map(cppNameOf)
      .filter((n) => n !== '');
  }
  return [];
}

/**
 * (a) Every class of the program with a body, in source order (nested classes included, each as its own entry), and
 * its methods: the functions whose definition (Python `def`, also decorated; C++ a function body) or declaration (C++
 * `int f();`) is written directly in the class body — constructors, destructors and operators included, functions of
 * nested classes and functions nested inside methods excluded; each name once, at its first appearance (overloads and
 * Python property setters do not repeat it). C++ out-of-class definitions (`void X::f() {…}`) are not part of the body.
 */
export function classMethods(root: Node, language: CodeLanguage): ClassInfo[] {
  assertLanguage(language);
  return descendants(root, (n) => isClassNode(n, language)).map((cls) => {
    const methods: string[] = [];
    for (const m of classMembers(cls)) for (const name of memberMethodNames(m, language)) if (!methods.includes(name)) methods.push(name);
    const nameNode = field(cls, 'name');
    return { kind: language === 'python' ? 'class' : CPP_CLASS_KINDS[cls.type]!, name: className(cls), line: lineOf(nameNode ?? cls), methods };
  });
}

/**
 * (a, programs without a class) The distinct names of the functions defined outside any class or function (module /
 * translation-unit level, also inside C++ namespaces and templates), in source order.
 */
export function topLevelFunctions(root: Node, language: CodeLanguage): string[] {
  assertLanguage(language);
  const out: string[] = [];
  for (const fn of descendants(root, (n) => n.type === 'function_definition')) {
    let nested = false;
    for (let p = fn.parent; p !== null && !nested; p = p.parent) nested = FUNCTION_SCOPES.has(p.type) || isClassNode(p, language);
    const name = functionName(fn, language);
    if (!nested && name !== '' && !out.includes(name)) out.push(name);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------------
// (b) loop depth

const LOOPS: Readonly<Record<CodeLanguage, ReadonlySet<string>>> = {
  python: new Set(['for_statement', 'while_statement']),
  cpp: new Set(['for_statement', 'for_range_loop', 'while_statement', 'do_statement']),
};

/**
 * (b) The maximum nesting depth of loops: 0 without a loop; a loop has depth 1 + the number of loops whose *body*
 * contains it (by position in the text, whatever lies between: if, else, try, a nested function or a lambda; a loop
 * in a loop's header or in a Python `for … else` / `while … else` clause is not inside that loop's body). Loops are
 * Python `for` (also `async for`) and `while` statements — comprehensions and generator expressions are not loops —
 * and C++ `for`, range-`for`, `while` and `do … while` statements. Calls never add depth.
 */
export function loopDepth(root: Node, language: CodeLanguage): number {
  assertLanguage(language);
  const loops = LOOPS[language];
  const walk = (n: Node, depth: number): number => {
    const isLoop = loops.has(n.type);
    const d = isLoop ? depth + 1 : depth;
    const body = isLoop ? field(n, 'body') : null;
    let best = d;
    for (const c of n.namedChildren) if (c !== null) best = Math.max(best, walk(c, isLoop && eq(c, body) ? d : depth));
    return best;
  };
  return walk(root, 0);
}

// ---------------------------------------------------------------------------------------------------------------------
// (c) enclosing blocks

const SIMPLE_STATEMENTS: Readonly<Record<CodeLanguage, ReadonlySet<string>>> = {
  python: new Set([
    'expression_statement', 'return_statement', 'pass_statement', 'break_statement', 'continue_statement', 'raise_statement',
    'assert_statement', 'delete_statement', 'global_statement', 'nonlocal_statement', 'import_statement', 'import_from_statement',
    'future_import_statement', 'print_statement', 'exec_statement', 'type_alias_statement',
  ]),
  cpp: new Set(['expression_statement', 'return_statement', 'break_statement', 'continue_statement', 'goto_statement', 'throw_statement', 'declaration', 'co_return_statement']),
};

/** Parents a statement may have to count as a line of a block (not, e.g., a C++ for-loop initializer). */
const STATEMENT_PARENTS: Readonly<Record<CodeLanguage, ReadonlySet<string>>> = {
  python: new Set(['module', 'block']),
  cpp: new Set(['translation_unit', 'compound_statement', 'case_statement', 'else_clause', 'if_statement', 'for_statement', 'for_range_loop', 'while_statement', 'do_statement', 'declaration_list']),
};

/**
 * The block a node opens for a descendant reached through its child `via`, or undefined when `node` opens none there
 * (the vocabulary of the README: `class NAME`, `struct NAME`, `function NAME`, `lambda`, `for`, `while`, `do`, `if`,
 * `elif`, `else if`, `else`, `switch`, `case`, `default`, `try`, `except`, `catch`, `finally`, `with`, `match`,
 * `namespace NAME`). A compound statement opens the block of its first keyword's body only: a line in the `else`
 * branch is enclosed by `else`, not by `if`.
 */
function blockName(node: Node, via: Node, language: CodeLanguage): string | undefined {
  const isBody = (f: string): boolean => eq(field(node, f), via);
  const named = (kw: string, name: string): string => (name === '' ? kw : `${kw} ${name}`);
  if (language === 'python') {
    switch (node.type) {
      case 'class_definition':
        return isBody('body') ? named('class', className(node)) : undefined;
      case 'function_definition':
        return isBody('body') ? named('function', functionName(node, language)) : undefined;
      case 'for_statement':
        return isBody('body') ? 'for' : undefined;
      case 'while_statement':
        return isBody('body') ? 'while' : undefined;
      case 'if_statement':
        return isBody('consequence') ? 'if' : undefined;
      case 'elif_clause':
        return isBody('consequence') ? 'elif' : undefined;
      case 'else_clause':
        return isBody('body') ? 'else' : undefined;
      case 'try_statement':
        return isBody('body') ? 'try' : undefined;
      case 'except_clause':
      case 'except_group_clause':
        return via.type === 'block' ? 'except' : undefined;
      case 'finally_clause':
        return via.type === 'block' ? 'finally' : undefined;
      case 'with_statement':
        return isBody('body') ? 'with' : undefined;
      case 'match_statement':
        return isBody('body') ? 'match' : undefined;
      case 'case_clause':
        return isBody('consequence') ? 'case' : undefined;
      default:
        return undefined;
    }
  }
  if (node.type in CPP_CLASS_KINDS) return isBody('body') ? named(CPP_CLASS_KINDS[node.type]!, className(node)) : undefined;
  switch (node.type) {
    case 'function_definition':
      return isBody('body') ? named('function', functionName(node, language)) : undefined;
    case 'lambda_expression':
      return isBody('body') ? 'lambda' : undefined;
    case 'for_statement':
    case 'for_range_loop':
      return isBody('body') ? 'for' : undefined;
    case 'while_statement':
      return isBody('body') ? 'while' : undefined;
    case 'do_statement':
      return isBody('body') ? 'do' : undefined;
    case 'if_statement':
      if (!isBody('consequence')) return undefined;
      return node.parent?.type === 'else_clause' ? 'else if' : 'if';
    case 'else_clause':
      // `else if`: the inner if names the branch
      return via.type === 'if_statement' ? undefined : 'else';
    case 'switch_statement':
      return isBody('body') ? 'switch' : undefined;
    case 'case_statement':
      if (eq(field(node, 'value'), via)) return undefined;
      return node.children[0]?.type === 'default' ? 'default' : 'case';
    case 'try_statement':
      return isBody('body') ? 'try' : undefined;
    case 'catch_clause':
      return isBody('body') ? 'catch' : undefined;
    case 'namespace_definition':
      return isBody('body') ? named('namespace', field(node, 'name')?.text ?? '') : undefined;
    default:
      return undefined;
  }
}

/** The chain of blocks enclosing a node, outermost first (see `blockName`). */
export function blockChain(n: Node, language: CodeLanguage): string[] {
  assertLanguage(language);
  const chain: string[] = [];
  let via = n;
  for (let p = n.parent; p !== null; via = p, p = p.parent) {
    const name = blockName(p, via, language);
    if (name !== undefined) chain.push(name);
  }
  return chain.reverse();
}

/** A Python statement that is only a string literal (a docstring). */
function isDocstring(n: Node): boolean {
  return n.type === 'expression_statement' && n.namedChildCount === 1 && ['string', 'concatenated_string'].includes(n.namedChildren[0]?.type ?? '');
}

/**
 * (c) The lines that start a simple statement — Python: expression (not a lone string such as a docstring),
 * `return`, `pass`, `break`, `continue`, `raise`, `assert`, `del`, `global`, `nonlocal`, `import`; C++: expression,
 * declaration, `return`, `break`, `continue`, `goto`, `throw` — at the line's first non-blank character (so a line
 * such as `if (x) return;`, `} else {` or the continuation of a long statement is never one), each with the chain of
 * blocks enclosing that statement, outermost first (`blockChain`). Sorted by line; one entry per line.
 */
export function blockLines(root: Node, code: string, language: CodeLanguage): BlockLine[] {
  assertLanguage(language);
  const lines: string[] = [];
  const starts: number[] = [];
  for (const m of code.matchAll(/[^\n]*(?:\n|$)/g)) {
    if (m[0] === '' && m.index === code.length && lines.length > 0) break;
    starts.push(m.index);
    lines.push(m[0].replace(/\r?\n$/, ''));
  }
  const simple = SIMPLE_STATEMENTS[language];
  const parents = STATEMENT_PARENTS[language];
  const byLine = new Map<number, BlockLine>();
  for (const s of descendants(root, (n) => simple.has(n.type))) {
    if (s.parent === null || !parents.has(s.parent.type) || isDocstring(s)) continue;
    const row = s.startPosition.row;
    const text = lines[row] ?? '';
    const indent = text.length - text.trimStart().length;
    // startIndex counts UTF-16 code units, as JS strings do
    if (s.startIndex !== (starts[row] ?? -1) + indent) continue;
    if (byLine.has(row + 1)) continue;
    byLine.set(row + 1, { line: row + 1, text: text.trim(), chain: blockChain(s, language) });
  }
  return [...byLine.values()].sort((a, b) => a.line - b.line);
}

/**
 * (c) The chain of blocks enclosing the simple statement that starts line `line` (1-based), outermost first.
 * @throws RangeError when no simple statement starts that line (see `blockLines`).
 */
export function enclosingBlocks(root: Node, code: string, language: CodeLanguage, line: number): string[] {
  const hit = blockLines(root, code, language).find((l) => l.line === line);
  if (hit === undefined) throw new RangeError(`code-structure: no simple statement starts line ${line}`);
  return hit.chain;
}

// ---------------------------------------------------------------------------------------------------------------------
// (d) callees

interface FnDef {
  node: Node;
  name: string;
  /** the class the function is a method of (body member or C++ `X::f`), by name */
  owner: string | undefined;
  /** Python lexical scope: the enclosing function, or null at module level (class bodies are skipped) */
  scope: Node | null;
}

/** Is `name` a constructor, destructor or operator (never counted as a callee)? */
function isSpecial(name: string, classNames: ReadonlySet<string>, language: CodeLanguage): boolean {
  if (language === 'python') return name === '__init__' || name === '__new__';
  return name.startsWith('~') || name.startsWith('operator') || classNames.has(name);
}

function collectFunctions(root: Node, language: CodeLanguage): FnDef[] {
  // `= default` / `= delete` definitions have no body: nothing to call, nothing to be called
  return descendants(root, (n) => n.type === 'function_definition' && field(n, 'body') !== null).map((node) => {
    const name = functionName(node, language);
    const enclosing = enclosingScope(node, language);
    let owner: string | undefined;
    if (enclosing !== null && isClassNode(enclosing, language)) owner = className(enclosing);
    if (language === 'cpp' && owner === undefined) owner = cppQualifiedScope(node);
    let scope: Node | null = null;
    for (let p = node.parent; p !== null; p = p.parent) {
      if (p.type === 'function_definition') {
        scope = p;
        break;
      }
    }
    return { node, name, owner, scope };
  });
}

/** The call nodes of a function's own body: inside its lambdas too, not inside nested functions or classes. */
function ownCalls(fn: Node, language: CodeLanguage): Node[] {
  const callType = language === 'python' ? 'call' : 'call_expression';
  const out: Node[] = [];
  const walk = (n: Node): void => {
    for (const c of n.namedChildren) {
      if (c === null || c.type === 'function_definition' || isClassNode(c, language)) continue;
      if (c.type === callType) out.push(c);
      walk(c);
    }
  };
  const body = field(fn, 'body');
  if (body !== null) walk(body);
  return out;
}

/** The called name and how it is reached: bare, through self/this, through a class name, or through another object. */
function calleeOf(call: Node, language: CodeLanguage): { name: string; via: 'bare' | 'self' | 'class' | 'object' | 'scope'; scope?: string } | undefined {
  let f = field(call, 'function');
  if (f === null) return undefined;
  if (language === 'python') {
    if (f.type === 'identifier') return { name: f.text, via: 'bare' };
    if (f.type === 'attribute') {
      const name = field(f, 'attribute')?.text;
      const obj = field(f, 'object');
      if (name === undefined || obj === null) return undefined;
      if (obj.type === 'identifier' && (obj.text === 'self' || obj.text === 'cls')) return { name, via: 'self' };
      if (obj.type === 'identifier') return { name, via: 'scope', scope: obj.text };
      return { name, via: 'object' };
    }
    return undefined;
  }
  if (f.type === 'template_function') f = field(f, 'name');
  if (f === null) return undefined;
  if (f.type === 'identifier') return { name: f.text, via: 'bare' };
  if (f.type === 'qualified_identifier') {
    const nameNode = cppDeclaratorNameNode(f);
    const scope = field(f, 'scope')?.text.replace(/<.*$/s, '');
    if (nameNode === null) return undefined;
    return { name: nameNode.text, via: 'scope', scope: scope ?? '' };
  }
  if (f.type === 'field_expression') {
    let fieldNode = field(f, 'field');
    if (fieldNode?.type === 'template_method') fieldNode = field(fieldNode, 'name');
    const arg = field(f, 'argument');
    if (fieldNode === null || arg === null) return undefined;
    const receiver = arg.text.replace(/\s+/g, '');
    return { name: fieldNode.text, via: receiver === 'this' || receiver === '(*this)' ? 'self' : 'object' };
  }
  return undefined;
}

/**
 * (d) Every function definition of the program (source order) with the distinct names of the program's functions it
 * calls, in the order of their first call. A call counts when it is written in the function's own body (calls inside
 * its lambdas count; calls inside functions or classes defined within it do not) and resolves, syntactically, to a
 * function defined (with a body) in the program — itself included (recursion):
 * - Python: `f(…)` → a `def f` in the lexical scope (an enclosing function or the module; class bodies are not
 *   scopes), `self.f(…)` / `cls.f(…)` / `C.f(…)` (C a class of the program) / `obj.f(…)` → a method `f` of a class of
 *   the program; `mod.f(…)` with `mod` not a class of the program counts like `obj.f(…)`;
 * - C++: `f(…)` → a method of an enclosing class (for `X::g`, of X) or a free function of the program;
 *   `this->f(…)`, `obj.f(…)`, `p->f(…)` → a method `f` of a class of the program; `X::f(…)` → when X is a class of
 *   the program, its method `f` (else, e.g. `std::max`, nothing);
 * - constructors, destructors and operators (Python `__init__`, `__new__`) are never callees; functions passed as
 *   values (`map(self.f, xs)`) are not calls; names are compared as written (no type inference: `q.push(x)` counts
 *   when a class of the program has a method `push`).
 */
export function functionCallees(root: Node, language: CodeLanguage): FunctionInfo[] {
  assertLanguage(language);
  const defs = collectFunctions(root, language);
  const classNames = new Set(descendants(root, (n) => isClassNode(n, language)).map(className).filter((n) => n !== ''));
  const methodNames = new Set(defs.filter((d) => d.owner !== undefined && !isSpecial(d.name, classNames, language)).map((d) => d.name));
  const methodsOf = (cls: string): Set<string> => new Set(defs.filter((d) => d.owner === cls && !isSpecial(d.name, classNames, language)).map((d) => d.name));
  const freeNames = new Set(defs.filter((d) => d.owner === undefined && !isSpecial(d.name, classNames, language)).map((d) => d.name));

  /** Python: is a `def name` visible from inside `fn` (its scope chain, then the module)? */
  const pythonVisible = (fn: Node, name: string): boolean => {
    const scopes: (Node | null)[] = [];
    for (let p: Node | null = fn; p !== null; p = p.parent) if (p.type === 'function_definition') scopes.push(p);
    scopes.push(null);
    return defs.some((d) => d.name === name && d.owner === undefined && scopes.some((s) => (s === null ? d.scope === null : eq(d.scope, s))));
  };
  /** C++: the classes whose members are visible by bare name from `fn` (enclosing classes, or X of `X::fn`). */
  const cppOwners = (fn: Node): string[] => {
    const owners: string[] = [];
    for (let p = fn.parent; p !== null; p = p.parent) if (isClassNode(p, language)) owners.push(className(p));
    const q = cppQualifiedScope(fn);
    if (q !== undefined) owners.push(q);
    return owners;
  };

  return defs.map((d) => {
    const callees: string[] = [];
    for (const call of ownCalls(d.node, language)) {
      const c = calleeOf(call, language);
      if (c === undefined || isSpecial(c.name, classNames, language)) continue;
      let counts: boolean;
      if (language === 'python') {
        if (c.via === 'bare') counts = pythonVisible(d.node, c.name);
        else counts = methodNames.has(c.name);
      } else if (c.via === 'bare') {
        counts = freeNames.has(c.name) || cppOwners(d.node).some((o) => methodsOf(o).has(c.name));
      } else if (c.via === 'scope') {
        counts = c.scope !== undefined && classNames.has(c.scope) && methodsOf(c.scope).has(c.name);
      } else {
        counts = methodNames.has(c.name);
      }
      if (counts && !callees.includes(c.name)) callees.push(c.name);
    }
    const nameNode = functionNameNode(d.node, language);
    return { name: d.name, line: lineOf(nameNode ?? d.node), method: d.owner !== undefined, callees };
  });
}
