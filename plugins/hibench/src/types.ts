/**
 * Shared shapes of the HiBench generators and matchers (specs/hibench.md). The scenarios themselves are the folders
 * registered in ./scenarios.ts (each a `Scenario`, ./scenario.ts); nothing here names one.
 */
import type { CompatMode, Json } from '@hpt-bench/sdk';

/** Tree renderings (specs/hibench.md §3.0.1): an edge list or an ASCII text tree. */
export type Representation = 'edge' | 'hierarchy';

/** In-context-learning modes (specs/hibench.md §5.1). */
export type IclMode = 'zero' | 'one' | 'few';

/** The formula notations (specs/hibench.md §3.4). */
export type Notation = 'infix' | 'prefix' | 'postfix';

/**
 * A tree as stored in a record: `children` maps a node id (as a string key) to its ordered child
 * list (rendering order = creation order, §3.0); leaves may be absent from `children`. `side` (binary trees only) maps a
 * non-root node to the side of the edge from its parent, `L` or `R`.
 * Example: `{"root": 3, "children": {"3": [2, 1], "2": [0]}, "side": {"2": "L", "1": "R", "0": "R"}}`.
 */
export interface TreeStructure {
  root: number;
  children: Record<string, number[]>;
  side?: Record<string, 'L' | 'R'>;
}

/**
 * How a record is scored (specs/hibench.md §4.3; strict refinements §7 recs 5-9, 15).
 * - `number`: compat = exact string equality after normalisation; strict = the whole answer one number (a second
 *   number or words make it wrong), |a - b| <= `tolerance` (0.01).
 * - `string`: compat = normalised containment (target ⊂ answer) after deleting `skip` (a regex source) from both;
 *   strict = exact: integers by value, booleans/labels by normalised equality; `path: true` splits on arrows and
 *   compares the name lists; `notation` set (formula conversion) compares parsed expressions.
 * - `list`: compat = sorted, zip-truncated comparison of items split on `sep`; strict = `ordered` ? exact sequence :
 *   multiset equality; `none` is the literal target meaning "empty" (compared as a string).
 * - `structure`: a tree in `representation`; compat = edge: list match on ",", hierarchy: digit sequence; strict =
 *   parsed structural equality (binary: same parent and side; multi-tree: same parent, child order ignored);
 *   `empty` is the literal for an edgeless result ("No edges"); `emptyNode` the one node left then (strict: the only
 *   bare node accepted besides the literal).
 * - `hit-rate`: recall of `sep`-separated reference items (Paper; fractional score); strict mode scores with `metric`
 *   instead when it is set (Paper, §7 rec. 18: `answer-f1`, `outline-f1`, `section-set`; lib/answer-metrics.ts).
 * - `bigo` (with `string`, the Code scenario): compat = all whitespace removed from the raw output and target, then the
 *   toolkit's containment; strict = canonical big-O equality (./lib/program/bigo.ts).
 */
export interface MatcherSpec {
  type: 'number' | 'string' | 'list' | 'structure' | 'hit-rate';
  sep?: string;
  skip?: string;
  ordered?: boolean;
  none?: string;
  path?: boolean;
  notation?: Notation;
  representation?: Representation;
  binary?: boolean;
  empty?: string;
  /**
   * Strict `structure` with an `empty` target (Remove Node on a two-node tree): the one node left, the only bare node
   * answer accepted besides the literal (issue 25).
   */
  emptyNode?: number;
  tolerance?: number;
  bigo?: boolean;
  metric?: 'answer-f1' | 'outline-f1' | 'section-set';
}

/**
 * A worked example (ICL and the ladder's three-shot level): the example's filled task text and its answer as shown to
 * the model (strict: `{"answer": ...}` JSON; compat: the toolkit's bare answer string).
 */
export interface Exemplar {
  input: string;
  answer: string;
}

/**
 * One generated query: one line of `hpt-bench generate`. Self-describing: the prompt the model sees,
 * the reference answer, how to score it, and every parameter needed to regenerate it.
 * - `id`: unique within a suite, stable for a given seed (`<scenario>/<task>/<preset>/.../<representation>/<icl>`).
 * - `system` / `prompt`: the system and user messages of specs/hibench.md §2 (ICL prefix included in `prompt`).
 * - `question`: the filled task template without ICL prefix and answer-format sentence; `format`: the answer-format
 *   sentence; `formatCot`: its chain-of-thought variant (§5.2 recommendation); `exemplars`: three worked examples of
 *   the same task (strict: generated at easy settings; compat: the toolkit's fixed examples) — the generic prompt
 *   pack of the HPF ladder uses these four fields.
 * - `target`: the reference answer (JSON: boolean, number, string, or list); structure-producing tasks give the
 *   rendered structure in the input's representation; formula calculation gives the Python-repr string ("11", "3.0").
 * - `params`: the generator parameters of the structure/document/formula; `args`: the question's parameters.
 */
export interface HibenchRecord<R extends string | null = Representation | null> {
  id: string;
  /** the name of the scenario that made the record (`Scenario.name`; specs/hibench.md §1.1) */
  scenario: string;
  task: string;
  preset: string;
  /** tree scenarios: `edge` / `hierarchy` (others null); Paper records (`PaperRecord`): `structured` / `plain` */
  representation: R;
  icl: IclMode;
  compat: CompatMode;
  system: string;
  prompt: string;
  question: string;
  format: string;
  formatCot: string;
  exemplars: Exemplar[];
  target: Json;
  matcher: MatcherSpec;
  seed: number;
  params: Record<string, Json>;
  args: Record<string, Json>;
  // the fields below are scenario-specific: each is declared in the JSON Schema by the record part of the scenarios
  // that write it (`Scenario.record`; the tree scenarios, JSON, Formula and the program scenarios)
  structure?: TreeStructure;
  /** Isomorphic task: the second structure. */
  structure2?: TreeStructure;
  formula?: { infix: string; prefix: string; postfix: string };
  document?: Json;
  semantics?: 'normal' | 'nonsense';
  /** the program scenarios (Code and those built on its programs): the program's language and text. */
  language?: 'python' | 'cpp';
  code?: string;
}

/** A Paper record: its representation is the paper rendering, `structured` or `plain` (paper/document.ts). */
export type PaperRecord = HibenchRecord<'structured' | 'plain'>;

/** A record of any scenario (what the dataset layer reads, selects and turns into samples). */
export type AnyHibenchRecord = HibenchRecord<Representation | 'structured' | 'plain' | null>;

/**
 * Which part of a suite to generate. Every list is a filter (undefined or empty = all); values are validated by the
 * scenario and unknown values are an `E_CONFIG` error naming the valid ones.
 */
export interface SuiteFilter {
  tasks?: string[];
  presets?: string[];
  representations?: Representation[];
  icl?: IclMode[];
  semantics?: ('normal' | 'nonsense')[];
  /** Code scenario: python and/or cpp (the records' preset). */
  languages?: ('python' | 'cpp')[];
}

/**
 * A validated filter in the values records carry (`--task`, `--preset`, ... of `run --data FILE` select
 * exactly what the generator would generate): formula preset shortcuts and JSON task groups already expanded.
 * An absent `representations`/`semantics` means the scenario has none.
 */
export interface Selection {
  tasks: readonly string[];
  presets: readonly string[];
  representations?: readonly (Representation | 'structured' | 'plain')[];
  icl: readonly IclMode[];
  semantics?: readonly ('normal' | 'nonsense')[];
  /** hibench/code-gen: the program languages (absent: the scenario has no language filter beside its preset) */
  languages?: readonly ('python' | 'cpp')[];
}

/** Does a record fall in a selection? */
export function selects(sel: Selection, r: AnyHibenchRecord): boolean {
  return (
    sel.tasks.includes(r.task) &&
    sel.presets.includes(r.preset) &&
    sel.icl.includes(r.icl) &&
    (!sel.representations || sel.representations.includes(r.representation as Representation | 'structured' | 'plain')) &&
    (!sel.semantics || sel.semantics.includes(r.semantics as 'normal' | 'nonsense')) &&
    (!sel.languages || sel.languages.includes(r.language as 'python' | 'cpp'))
  );
}

/** Options of a scenario generator: the run seed (recorded in every record), the compat mode and the filter. */
export interface GenerateOptions {
  seed: number;
  compat: CompatMode;
  filter: SuiteFilter;
}

/** A scenario generator: a lazy, deterministic stream of records (same options => same records, byte for byte). */
export type ScenarioGenerator = (options: GenerateOptions) => Generator<AnyHibenchRecord>;
