/**
 * tree-sitter parsing of the Code scenario's programs (Python and C++), through the WASM binding (web-tree-sitter
 * 0.27) and the `.wasm` grammars shipped inside tree-sitter-python and tree-sitter-cpp (specs/deps.md: the native
 * bindings are not built). Nothing is fetched: the files are resolved from node_modules. Kept apart from the dataset
 * so that later work (code-structure questions, a code generator) can reuse it.
 */
import { createRequire } from 'node:module';
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter';

/** The languages of the Code scenario, as named in code.jsonl. */
export type CodeLanguage = 'python' | 'cpp';
export const CODE_LANGUAGES: readonly CodeLanguage[] = ['python', 'cpp'];

const require = createRequire(import.meta.url);

/** The `.wasm` grammar file of a language (inside its npm package). */
export function grammarPath(language: CodeLanguage): string {
  return language === 'python' ? require.resolve('tree-sitter-python/tree-sitter-python.wasm') : require.resolve('tree-sitter-cpp/tree-sitter-cpp.wasm');
}

let initialised: Promise<void> | undefined;
const languages = new Map<CodeLanguage, Promise<Language>>();

/** Loads (once per process) the tree-sitter runtime and a grammar. */
async function loadLanguage(language: CodeLanguage): Promise<Language> {
  initialised ??= Parser.init();
  await initialised;
  let l = languages.get(language);
  if (l === undefined) {
    l = Language.load(grammarPath(language));
    languages.set(language, l);
  }
  return l;
}

/** A place where a program does not parse: an ERROR node or a MISSING token, 1-based line and column. */
export interface SyntaxIssue {
  kind: 'error' | 'missing';
  line: number;
  column: number;
  /** the node's text (first 40 characters) or, for a missing token, its type */
  text: string;
}

/** The syntax check of one program: `ok` iff the tree has no ERROR or MISSING node. */
export interface SyntaxReport {
  ok: boolean;
  issues: SyntaxIssue[];
  /** nodes in the tree, anonymous ones included (a size measure) */
  nodes: number;
}

function collect(node: Node, issues: SyntaxIssue[]): void {
  if (node.type === 'ERROR' || node.isMissing) {
    issues.push({
      kind: node.isMissing ? 'missing' : 'error',
      line: node.startPosition.row + 1,
      column: node.startPosition.column + 1,
      text: node.isMissing ? node.type : node.text.slice(0, 40),
    });
  }
  // descend only where an error is below (hasError covers ERROR and MISSING descendants)
  if (node.type !== 'ERROR' && !node.hasError) return;
  for (const child of node.children) if (child) collect(child, issues);
}

/**
 * Parsers for the two languages, created once (`await CodeSyntax.create()`) and freed with `delete()`.
 * Every tree made by `parse` is deleted after the callback returns.
 */
export class CodeSyntax {
  private constructor(private readonly parsers: Map<CodeLanguage, Parser>) {}

  /** Loads the runtime and both grammars (no network: the .wasm files of the installed packages). */
  static async create(langs: readonly CodeLanguage[] = CODE_LANGUAGES): Promise<CodeSyntax> {
    const parsers = new Map<CodeLanguage, Parser>();
    for (const l of langs) {
      const lang = await loadLanguage(l);
      const p = new Parser();
      p.setLanguage(lang);
      parsers.set(l, p);
    }
    return new CodeSyntax(parsers);
  }

  /** Parses `code` and hands the tree to `use`; the tree is deleted afterwards. @throws Error for an unloaded language. */
  parse<T>(language: CodeLanguage, code: string, use: (tree: Tree) => T): T {
    const p = this.parsers.get(language);
    if (p === undefined) throw new Error(`no tree-sitter parser for ${language}`);
    const tree = p.parse(code);
    if (tree === null) throw new Error(`tree-sitter returned no tree for a ${language} program`);
    try {
      return use(tree);
    } finally {
      tree.delete();
    }
  }

  /** The ERROR and MISSING nodes of a program. */
  check(language: CodeLanguage, code: string): SyntaxReport {
    return this.parse(language, code, (tree) => {
      const issues: SyntaxIssue[] = [];
      collect(tree.rootNode, issues);
      return { ok: issues.length === 0, issues, nodes: tree.rootNode.descendantCount };
    });
  }

  /** Frees the parsers. */
  delete(): void {
    for (const p of this.parsers.values()) p.delete();
    this.parsers.clear();
  }
}
