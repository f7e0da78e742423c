/**
 * The `code-structure` task family (plugins/hibench/README.md "Code structure"): hierarchy questions over the Code
 * scenario's programs (specs/hibench.md §3.5 data), with targets computed from the tree-sitter tree (./targets.ts).
 * Tasks: `class_methods`, `loop_depth`, `enclosing_blocks`, `callees`; languages python / cpp (the record's preset);
 * ICL modes zero / one / few. The wording follows the toolkit's Code prompts ("Given a code snippet <CODE>, …"), the
 * prompt is assembled as for Code (§2: no separators). Items where a question is not defined are skipped (see
 * `structureQuestions`). Seeded choices (the line of `enclosing_blocks`, the function of `callees`) come from
 * `rngFor(seed, 'code-structure', <task>, <program id>)`, so filters never change them.
 */
import { HptError, type CompatMode, type Json } from '@hpt-bench/sdk';
import type { CodeItem } from '../lib/program/source.js';
import { PROGRAM_PROMPT } from '../lib/program/complexity.js';
import { CODE_LANGUAGES, type CodeLanguage, type CodeSyntax, type SyntaxReport } from '../lib/program/syntax.js';
import { selectValues } from '../filter.js';
import { answerJson, assembleQuery } from '../prompt.js';
import { rngFor } from '../rng.js';
import type { Exemplar, HibenchRecord, IclMode, MatcherSpec, Selection, SuiteFilter } from '../types.js';
import { blockLines, classMethods, functionCallees, loopDepth, topLevelFunctions, type BlockLine, type ClassInfo, type FunctionInfo } from './targets.js';

export type CodeStructureTask = 'class_methods' | 'loop_depth' | 'enclosing_blocks' | 'callees';
export const CODE_STRUCTURE_TASKS: readonly CodeStructureTask[] = ['class_methods', 'loop_depth', 'enclosing_blocks', 'callees'];
export const CODE_STRUCTURE_ICL_MODES: readonly IclMode[] = ['zero', 'one', 'few'];

/** The resolved selection (`presets` = languages). */
export type CodeStructureSelection = Selection & { tasks: CodeStructureTask[]; presets: CodeLanguage[]; icl: IclMode[] };

/**
 * Validates a code-structure filter: `task`, `icl`, `language` (alias `preset`; `c++` = `cpp`).
 * @throws HptError `E_CONFIG` for an unknown value (with "did you mean") or a filter the family does not have.
 */
export function resolveCodeStructureFilter(filter: SuiteFilter): CodeStructureSelection {
  if (filter.representations?.length) throw new HptError('E_CONFIG', 'code-structure: --representation applies to the tree scenarios only');
  if (filter.semantics?.length) throw new HptError('E_CONFIG', 'code-structure: --semantics applies to the json scenario only');
  const wantedLanguages = [...(filter.languages ?? []), ...(filter.presets ?? [])].map((l) => (l === 'c++' ? 'cpp' : l));
  return {
    tasks: selectValues('code-structure', '--task', CODE_STRUCTURE_TASKS, filter.tasks),
    presets: selectValues('code-structure', '--language', CODE_LANGUAGES, wantedLanguages),
    icl: selectValues('code-structure', '--icl', CODE_STRUCTURE_ICL_MODES, filter.icl),
  };
}

/** Everything the questions need from one program's tree (./targets.ts). */
export interface ProgramAnalysis {
  classes: ClassInfo[];
  topLevel: string[];
  loopDepth: number;
  lines: BlockLine[];
  functions: FunctionInfo[];
}

/** Parses a program once and computes every target. @throws Error for a language the syntax has no parser for. */
export function analyzeProgram(syntax: CodeSyntax, language: CodeLanguage, code: string): ProgramAnalysis {
  return syntax.parse(language, code, (tree) => {
    const root = tree.rootNode;
    return {
      classes: classMethods(root, language),
      topLevel: topLevelFunctions(root, language),
      loopDepth: loopDepth(root, language),
      lines: blockLines(root, code, language),
      functions: functionCallees(root, language),
    };
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// Wording

const LOOP_WORDS: Readonly<Record<CodeLanguage, string>> = {
  python: 'Loops are the for and while statements (comprehensions and generator expressions are not loops).',
  cpp: 'Loops are the for, range-based for, while and do-while statements.',
};

const BLOCK_WORDS: Readonly<Record<CodeLanguage, string>> = {
  python: 'class NAME, function NAME (functions and methods), for, while, if, elif, else, try, except, finally, with, match, case',
  cpp: 'class NAME, struct NAME, union NAME, function NAME (functions and methods), lambda, for, while, do, if, else if, else, switch, case, default, try, catch, namespace NAME',
};

const METHOD_WORDS: Readonly<Record<CodeLanguage, string>> = {
  python: 'decorated methods and __init__ included; functions nested inside methods and methods of nested classes excluded',
  cpp: 'constructors, destructors, operators and methods only declared there included; methods of nested classes and definitions written outside the class body excluded',
};

/** The question of `class_methods` for a class (`kind` class / struct / union) of a program. */
export function classMethodsQuestion(code: string, language: CodeLanguage, kind: string, name: string): string {
  return (
    `Given a code snippet ${code}, list the methods of the ${kind} ${name} in the order they appear in its body. ` +
    `A method is a function whose definition or declaration is written directly in the body of the ${kind} ${name} (${METHOD_WORDS[language]}); name each method once.`
  );
}

/** The question of `class_methods` for a program without a class: its top-level functions. */
export function topLevelQuestion(code: string): string {
  return `Given a code snippet ${code}, list the functions defined at the top level of the code (outside any class or function) in the order they appear; name each function once.`;
}

/** The question of `loop_depth`. */
export function loopDepthQuestion(code: string, language: CodeLanguage): string {
  return (
    `Given a code snippet ${code}, calculate the maximum nesting depth of its loops. ${LOOP_WORDS[language]} ` +
    'A loop that is not inside the body of another loop has depth 1, and a loop inside the body of a loop of depth d has depth d + 1 ' +
    '(also when an if, a nested function or a lambda lies between them); the answer is 0 when there is no loop.'
  );
}

/** The question of `enclosing_blocks` for line `line` (1-based) whose trimmed text is `text`. */
export function enclosingBlocksQuestion(code: string, language: CodeLanguage, line: number, text: string): string {
  return (
    `Given a code snippet ${code}, list the blocks that enclose line ${line} (\`${text}\`), from the outermost to the innermost; the lines are numbered from 1. ` +
    `Name each block by its keyword: ${BLOCK_WORDS[language]}. A branch is named by its own keyword: a line in the else branch of an if is enclosed by else, not by if.`
  );
}

/** The question of `callees` for the function `name` whose name is on line `line`. */
export function calleesQuestion(code: string, name: string, line: number): string {
  return (
    `Given a code snippet ${code}, list the functions defined in this code snippet that the function ${name} (defined on line ${line}) calls. ` +
    `Count only calls written in the body of ${name} itself (calls inside its lambdas count, calls inside functions defined within it do not), including ${name} itself if it is recursive; ` +
    'built-in and library functions, constructors and operators do not count. Name each function once.'
  );
}

/** The output-format templates (the `<template>` of the §2 format sentence), in the style of the tree scenarios. */
export const STRUCTURE_OUTPUT_TEMPLATES: Readonly<Record<CodeStructureTask | 'top_level', string>> = {
  class_methods: '{"answer": "method1, method2"}, where method1 and method2 are the method names in order and split by comma,',
  top_level: '{"answer": "function1, function2"}, where function1 and function2 are the function names in order and split by comma,',
  loop_depth: '{"answer": 2}, where 2 is the maximum loop nesting depth,',
  enclosing_blocks: '{"answer": "class Solution, function solve, for, if"}, where the blocks are listed from the outermost to the innermost and split by comma,',
  callees: '{"answer": "function1, function2"}, where function1 and function2 are the names of the called functions and split by comma,',
};

/** The matcher per task: loop depth a number; methods and blocks ordered lists; callees a set. */
export const STRUCTURE_MATCHERS: Readonly<Record<CodeStructureTask, MatcherSpec>> = {
  class_methods: { type: 'list', ordered: true },
  loop_depth: { type: 'number' },
  enclosing_blocks: { type: 'list', ordered: true },
  callees: { type: 'list' },
};

// ---------------------------------------------------------------------------------------------------------------------
// Questions of a program

/** One question: its id part, text, output template, target and arguments. */
export interface StructureQuestion {
  key: string;
  question: string;
  template: string;
  target: Json;
  args: Record<string, Json>;
}

/** Names usable in a comma-separated answer (no comma, not empty). */
const listable = (names: readonly string[]): boolean => names.every((n) => n !== '' && !n.includes(','));

/** How the line of `enclosing_blocks` and the function of `callees` are chosen among the candidates (never empty). */
export interface Pickers {
  line(candidates: readonly BlockLine[]): BlockLine;
  fn(candidates: readonly FunctionInfo[]): FunctionInfo;
}

/** Seeded pickers: one stream per (seed, task, program), `rngFor(seed, 'code-structure', task, itemId)`. */
export function seededPickers(seed: number, task: CodeStructureTask, itemId: string): Pickers {
  const rng = rngFor(seed, 'code-structure', task, itemId);
  return { line: (c) => rng.pick(c), fn: (c) => rng.pick(c) };
}

/**
 * The questions of one task over one analysed program. `pick` chooses the line / function (seeded in the suite,
 * deterministic for exemplars). Not defined (→ no question):
 * - `class_methods`: a class without a name or without methods, a class whose name is used by another class of the
 *   program, a method name with a comma; a program without a class asks for its top-level functions (none → skipped);
 * - `enclosing_blocks`: no line inside at least two blocks;
 * - `callees`: no function that calls a function of the program.
 * `loop_depth` is always defined (0 without loops).
 */
export function structureQuestions(
  task: CodeStructureTask,
  code: string,
  language: CodeLanguage,
  a: ProgramAnalysis,
  pick: Pickers,
): StructureQuestion[] {
  switch (task) {
    case 'class_methods': {
      if (a.classes.length === 0) {
        if (a.topLevel.length === 0 || !listable(a.topLevel)) return [];
        return [{ key: 'top-level', question: topLevelQuestion(code), template: STRUCTURE_OUTPUT_TEMPLATES.top_level, target: [...a.topLevel], args: { scope: 'top-level' } }];
      }
      const counts = new Map<string, number>();
      for (const c of a.classes) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
      return a.classes
        .filter((c) => c.name !== '' && counts.get(c.name) === 1 && c.methods.length > 0 && listable(c.methods))
        .map((c) => ({
          key: c.name,
          question: classMethodsQuestion(code, language, c.kind, c.name),
          template: STRUCTURE_OUTPUT_TEMPLATES.class_methods,
          target: [...c.methods],
          args: { class: c.name, kind: c.kind, line: c.line },
        }));
    }
    case 'loop_depth':
      return [{ key: 'program', question: loopDepthQuestion(code, language), template: STRUCTURE_OUTPUT_TEMPLATES.loop_depth, target: a.loopDepth, args: {} }];
    case 'enclosing_blocks': {
      const candidates = a.lines.filter((l) => l.chain.length >= 2 && listable(l.chain));
      if (candidates.length === 0) return [];
      const l = pick.line(candidates);
      return [
        {
          key: `line-${l.line}`,
          question: enclosingBlocksQuestion(code, language, l.line, l.text),
          template: STRUCTURE_OUTPUT_TEMPLATES.enclosing_blocks,
          target: [...l.chain],
          args: { line: l.line, text: l.text, candidates: candidates.length },
        },
      ];
    }
    case 'callees': {
      const candidates = a.functions.filter((f) => f.name !== '' && f.callees.length > 0 && listable(f.callees));
      if (candidates.length === 0) return [];
      const f = pick.fn(candidates);
      return [
        {
          key: `${f.name}-${f.line}`,
          question: calleesQuestion(code, f.name, f.line),
          template: STRUCTURE_OUTPUT_TEMPLATES.callees,
          target: [...f.callees],
          args: { function: f.name, line: f.line, candidates: candidates.length },
        },
      ];
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Worked examples

/**
 * Three small programs per language written for this project (not items of the data, so no test item is shown as an
 * example); each has a class, loops and a call between its functions, so every task has three examples.
 */
export const STRUCTURE_EXAMPLE_PROGRAMS: Readonly<Record<CodeLanguage, readonly string[]>> = {
  python: [
    'class Counter:\n    def __init__(self):\n        self.total = 0\n\n    def add(self, values):\n        for v in values:\n            if v > 0:\n                self.total += self.clip(v)\n        return self.total\n\n    def clip(self, v):\n        return min(v, 100)\n',
    'def count_pairs(nums, target):\n    count = 0\n    for i in range(len(nums)):\n        for j in range(i + 1, len(nums)):\n            if nums[i] + nums[j] == target:\n                count += 1\n            elif nums[i] > target:\n                break\n    return count\n\n\nclass Solution:\n    def solve(self, nums):\n        best = 0\n        while nums:\n            best = max(best, count_pairs(nums, 10))\n            nums = nums[1:]\n        return best\n',
    'class Tree:\n    def __init__(self, children):\n        self.children = children\n\n    def depth(self):\n        if not self.children:\n            return 1\n        else:\n            return 1 + max(c.depth() for c in self.children)\n\n    def size(self):\n        total = 1\n        for c in self.children:\n            total += c.size()\n        return total\n',
  ],
  cpp: [
    'class Counter {\npublic:\n    int add(const std::vector<int>& values) {\n        for (int v : values) {\n            if (v > 0) {\n                total += clip(v);\n            }\n        }\n        return total;\n    }\n\nprivate:\n    int clip(int v) { return std::min(v, 100); }\n    int total = 0;\n};\n',
    'int countPairs(const std::vector<int>& nums, int target) {\n    int count = 0;\n    for (size_t i = 0; i < nums.size(); ++i) {\n        for (size_t j = i + 1; j < nums.size(); ++j) {\n            if (nums[i] + nums[j] == target) {\n                ++count;\n            } else if (nums[i] > target) {\n                break;\n            }\n        }\n    }\n    return count;\n}\n\nclass Solution {\npublic:\n    int solve(std::vector<int> nums) {\n        int best = 0;\n        while (!nums.empty()) {\n            best = std::max(best, countPairs(nums, 10));\n            nums.pop_back();\n        }\n        return best;\n    }\n};\n',
    'struct Node {\n    std::vector<Node*> children;\n    int depth() const {\n        int best = 0;\n        for (const Node* c : children) best = std::max(best, c->depth());\n        return best + 1;\n    }\n    int size() const;\n};\n\nint Node::size() const {\n    int total = 1;\n    std::for_each(children.begin(), children.end(), [&](const Node* c) {\n        total += c->size();\n    });\n    return total;\n}\n',
  ],
};

/**
 * The deterministic choice of the examples: the line with the longest chain (the last one on ties, so the examples
 * show the deepest, latest line) and the function with the most callees (the first one on ties).
 */
const EXAMPLE_PICKERS: Pickers = {
  line: (c) => c.reduce((best, l) => (l.chain.length >= best.chain.length ? l : best)),
  fn: (c) => c.reduce((best, f) => (f.callees.length > best.callees.length ? f : best)),
};

/**
 * The three worked examples of a task in a language: the first question of each example program (phrased like the
 * real query, `EXAMPLE_PICKERS`), answered as `{"answer": …}` JSON (lists joined by ", "). The same examples serve
 * both compat modes (the toolkit has none for these tasks). @throws Error when an example program yields no question
 * (a bug: tested).
 */
export function structureExemplars(syntax: CodeSyntax, task: CodeStructureTask, language: CodeLanguage): Exemplar[] {
  return STRUCTURE_EXAMPLE_PROGRAMS[language].map((code, i) => {
    const q = structureQuestions(task, code, language, analyzeProgram(syntax, language, code), EXAMPLE_PICKERS)[0];
    if (q === undefined) throw new Error(`code-structure: example ${i + 1} (${language}) has no ${task} question`);
    return { input: q.question, answer: answerJson(q.target) };
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// Records

/** Options of `generateCodeStructure`: the run seed, compat mode, filter and the loaded parsers. */
export interface CodeStructureOptions {
  seed: number;
  compat: CompatMode;
  filter: SuiteFilter;
  syntax: CodeSyntax;
  /** called once per (program, task) without a question */
  skipped?: (itemId: string, task: CodeStructureTask) => void;
  /** called once per program left out because its tree has ERROR or MISSING nodes (its targets would not be exact) */
  unparsable?: (item: CodeItem, report: SyntaxReport) => void;
}

/**
 * One record (§2: the Code system prompt, task text and format sentence concatenated without separators); id
 * `code-structure/<task>/<language>/<question_no>/<key>/<icl>`, preset = language.
 */
export function buildCodeStructureRecord(item: CodeItem, task: CodeStructureTask, q: StructureQuestion, icl: IclMode, compat: CompatMode, seed: number, exemplars: Exemplar[]): HibenchRecord {
  const assembled = assembleQuery(PROGRAM_PROMPT, q.question, q.template, icl, exemplars);
  const params: Record<string, Json> = { question_no: item.questionNo, source_id: item.id };
  if (item.source !== undefined) params.source = item.source;
  if (item.commit !== undefined) params.commit = item.commit;
  return {
    id: `code-structure/${task}/${item.id}/${q.key}/${icl}`,
    scenario: 'code-structure',
    task,
    preset: item.language,
    representation: null,
    icl,
    compat,
    system: PROGRAM_PROMPT.system,
    prompt: assembled.prompt,
    question: q.question,
    format: assembled.format,
    formatCot: assembled.formatCot,
    exemplars: exemplars.map((e) => ({ ...e })),
    target: q.target,
    matcher: { ...STRUCTURE_MATCHERS[task] },
    seed,
    params,
    args: q.args,
    language: item.language,
    code: item.code,
  };
}

/**
 * The records of the selected part, program (data order) → task → question → ICL mode; a program whose tree has ERROR
 * or MISSING nodes is left out (reported through `unparsable`). Deterministic: the same items,
 * seed, compat mode and filter give the same records, byte for byte. @throws HptError `E_CONFIG` (see
 * `resolveCodeStructureFilter`).
 */
export function generateCodeStructure(items: readonly CodeItem[], options: CodeStructureOptions): Generator<HibenchRecord> {
  const sel = resolveCodeStructureFilter(options.filter);
  const exemplarCache = new Map<string, Exemplar[]>();
  const exemplars = (task: CodeStructureTask, language: CodeLanguage): Exemplar[] => {
    const k = `${task}/${language}`;
    let e = exemplarCache.get(k);
    if (e === undefined) {
      e = structureExemplars(options.syntax, task, language);
      exemplarCache.set(k, e);
    }
    return e;
  };
  return (function* () {
    for (const item of items) {
      if (!sel.presets.includes(item.language)) continue;
      const report = options.syntax.check(item.language, item.code);
      if (!report.ok) {
        options.unparsable?.(item, report);
        continue;
      }
      const analysis = analyzeProgram(options.syntax, item.language, item.code);
      for (const task of sel.tasks) {
        const questions = structureQuestions(task, item.code, item.language, analysis, seededPickers(options.seed, task, item.id));
        if (questions.length === 0) options.skipped?.(item.id, task);
        for (const q of questions) for (const icl of sel.icl) yield buildCodeStructureRecord(item, task, q, icl, options.compat, options.seed, exemplars(task, item.language));
      }
    }
  })();
}
