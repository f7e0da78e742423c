/**
 * The JSON scenario suite (specs/hibench.md §1.1, §3.3, §5.1; §7 recs 13-17, 20, 27): documents × semantics ×
 * sub-types × questions × ICL modes, as a lazy deterministic stream of {@link HibenchRecord}s.
 *
 * Randomness (rec. 27): the document of a preset comes from `rngFor(seed, 'json', preset, ...)`, the questions of a
 * (preset, sub-type) from `rngFor(seed, 'json', preset, task, 'questions')` (drawn once on the skeleton and named
 * for each semantics), the strict ICL exemplars of a sub-type from `rngFor(seed, 'json-icl', task, attempt, ...)`.
 * No stream depends on the filter, so a filtered suite is exactly the corresponding subset of the full one.
 */
import { HptError, type CompatMode } from '@hpt-bench/sdk';
import { rngFor } from '../rng.js';
import { selectValues } from '../filter.js';
import { answerJson, assembleQuery, HIERARCHY_SYSTEM_PROMPT, type PromptStyle } from '../prompt.js';
import type { Exemplar, GenerateOptions, HibenchRecord, IclMode, Selection, SuiteFilter } from '../types.js';
import { JSON_COMPAT_EXAMPLES } from './compat-examples.js';
import { buildDocument, generateDocumentPair, JSON_PRESET_PARAMS, type DocumentPair, type JsonPreset } from './document.js';
import { JSON_TASKS, matcherFor, outputTemplate, renderQuestion, sampleQuestions, taskText, type AbstractQuestion, type JsonTask } from './qa.js';
import { jsonDumps, pyRepr } from './render.js';

export { JSON_TASKS, type JsonTask } from './qa.js';
export { JSON_PRESET_PARAMS, type JsonPreset } from './document.js';

/** The JSON scenario's prompt (§2): the hierarchical-structure system prompt, newline separators, two spaces before "and". */
export const JSON_PROMPT: PromptStyle = { system: HIERARCHY_SYSTEM_PROMPT, separator: '\n', formatGap: '  ' };

/** The preset ids in canonical order (§3.3 / paper Table 7); depth and width in {@link JSON_PRESET_PARAMS}. */
export const JSON_PRESETS: readonly JsonPreset[] = ['small', 'medium-1', 'medium-2', 'large-1', 'large-2'];

/** The two semantics (§3.3 "Normal vs nonsense"), paired on the same skeleton. */
export const JSON_SEMANTICS = ['normal', 'nonsense'] as const;

/** A JSON semantics. */
export type JsonSemantics = (typeof JSON_SEMANTICS)[number];

/**
 * Paper task (leaderboard column, §1.1) → sub-types. The ids double as `--task` values: a sub-type id selects that
 * sub-type, `path_finding` selects the three path sub-types and `nearest_ancestor` the two shared-ancestor ones.
 */
export const JSON_TASK_GROUPS: Readonly<Record<string, readonly string[]>> = {
  child_count: ['child_count'],
  node_depth: ['node_depth'],
  level_count: ['level_count'],
  node_attribute: ['node_attribute'],
  level_nodes: ['level_nodes'],
  path_finding: ['path_between_nodes', 'path_down_to_up', 'path_up_to_down'],
  nearest_ancestor: ['shared_ancestor_same_level', 'shared_ancestor_diff_level'],
};

const ICL_MODES: readonly IclMode[] = ['zero', 'one', 'few'];

/** Every value `--task` accepts: the ten sub-type ids, then the two group ids. */
const TASK_VALUES: readonly string[] = [...JSON_TASKS, 'path_finding', 'nearest_ancestor'];

/** Size of the documents the strict ICL exemplars are drawn from (the small preset, §7 rec. 20 "easy settings"). */
const ICL_DOCUMENT = JSON_PRESET_PARAMS.small;

/** Attempts at drawing an exemplar document that admits three distinct questions. */
const ICL_DOCUMENT_ATTEMPTS = 50;

/** Render a document for the prompt: strict `json.dumps`, compat Python repr (§3.3). */
function renderDocument(doc: ReturnType<typeof buildDocument>, compat: CompatMode): string {
  return compat === 'reference' ? pyRepr(doc) : jsonDumps(doc);
}

/**
 * The strict ICL exemplars of a sub-type (§7 rec. 20): three questions of the same sub-type on a small document fixed
 * per (seed, task) — the first document of `rngFor(seed, 'json-icl', task, attempt, ...)`, attempt = 0, 1, ..., that
 * admits three distinct questions — named in the record's semantics; input = the filled task text, answer =
 * `answerJson(target)`.
 * @throws Error when no such document is found in 50 attempts (does not happen for the small preset).
 */
export function strictJsonExemplars(seed: number, task: JsonTask): Record<JsonSemantics, Exemplar[]> {
  for (let attempt = 0; attempt < ICL_DOCUMENT_ATTEMPTS; attempt++) {
    const keys = ['json-icl', task, attempt];
    const pair = generateDocumentPair(seed, keys, ICL_DOCUMENT.depth, ICL_DOCUMENT.width);
    const qs = sampleQuestions(pair.skeleton, pair.normal, task, rngFor(seed, ...keys, 'questions'), 'strict', 3);
    if (qs.length < 3) continue;
    const forNames = (names: string[]): Exemplar[] => {
      const text = renderDocument(buildDocument(pair.skeleton, names), 'strict');
      return qs.map((q) => {
        const r = renderQuestion(q, names);
        return { input: taskText(text, r.text, 'strict'), answer: answerJson(r.target) };
      });
    };
    return { normal: forNames(pair.normal), nonsense: forNames(pair.nonsense) };
  }
  throw new Error(`json: no ICL document with three ${task} questions in ${ICL_DOCUMENT_ATTEMPTS} attempts (seed ${seed})`);
}

/**
 * Generate the JSON suite (§3.3; default = 5 presets × 2 semantics × 10 sub-types × ≤ 13 questions × 3 ICL modes).
 * Stream order: preset → semantics → sub-type → question → ICL mode. Record id:
 * `json/<task>/<preset>/<semantics>/<question index>/<icl>`. Each document is rendered once per (preset, semantics).
 *
 * Filter: `tasks` (sub-type ids or the group ids `path_finding`, `nearest_ancestor`), `presets`, `icl`, `semantics`.
 * Validation is eager (at the call, before the first record).
 * @throws HptError `E_CONFIG` for an unknown task/preset/ICL mode/semantics (with a "did you mean" hint) and for any
 *   `representations` filter (the JSON scenario has no representations).
 */
export function generateJson(options: GenerateOptions): Generator<HibenchRecord> {
  const { seed, compat, filter } = options;
  const sel = resolveJsonFilter(filter);
  return records(seed, compat, sel.presets, sel.tasks, sel.icl, sel.semantics);
}

/**
 * Validate a JSON-scenario filter and resolve it to the values records carry (task groups expanded to sub-types).
 * @throws HptError `E_CONFIG` as `generateJson`.
 */
export function resolveJsonFilter(filter: SuiteFilter): Selection & { tasks: JsonTask[]; presets: JsonPreset[]; icl: IclMode[]; semantics: JsonSemantics[] } {
  if (filter.representations && filter.representations.length > 0) {
    throw new HptError('E_CONFIG', `json: --representation does not apply to the JSON scenario (got '${filter.representations.join("', '")}')`);
  }
  const wanted = selectValues('json', '--task', TASK_VALUES, filter.tasks);
  return {
    presets: selectValues('json', '--preset', JSON_PRESETS, filter.presets),
    tasks: JSON_TASKS.filter((t) => wanted.some((w) => (JSON_TASK_GROUPS[w] ?? [w]).includes(t))),
    icl: selectValues('json', '--icl', ICL_MODES, filter.icl),
    semantics: selectValues('json', '--semantics', JSON_SEMANTICS, filter.semantics),
  };
}

function* records(
  seed: number,
  compat: CompatMode,
  presets: readonly JsonPreset[],
  tasks: readonly JsonTask[],
  icls: readonly IclMode[],
  semantics: readonly JsonSemantics[],
): Generator<HibenchRecord> {
  const system = JSON_PROMPT.system;
  const strictExemplars = new Map<JsonTask, Record<JsonSemantics, Exemplar[]>>();
  const exemplarsFor = (task: JsonTask, sem: JsonSemantics): Exemplar[] => {
    if (compat === 'reference') return JSON_COMPAT_EXAMPLES[task].map((e) => ({ ...e }));
    if (!strictExemplars.has(task)) strictExemplars.set(task, strictJsonExemplars(seed, task));
    return strictExemplars.get(task)![sem].map((e) => ({ ...e }));
  };
  for (const preset of presets) {
    const { depth, width } = JSON_PRESET_PARAMS[preset];
    const pair: DocumentPair = generateDocumentPair(seed, ['json', preset], depth, width);
    const questions = new Map<JsonTask, AbstractQuestion[]>();
    const questionsFor = (task: JsonTask): AbstractQuestion[] => {
      if (!questions.has(task)) questions.set(task, sampleQuestions(pair.skeleton, pair.normal, task, rngFor(seed, 'json', preset, task, 'questions'), compat));
      return questions.get(task)!;
    };
    for (const sem of semantics) {
      const names = pair[sem];
      const document = buildDocument(pair.skeleton, names);
      const documentText = renderDocument(document, compat);
      for (const task of tasks) {
        const template = outputTemplate(task, compat);
        const exemplars = exemplarsFor(task, sem);
        const qs = questionsFor(task);
        for (let qi = 0; qi < qs.length; qi++) {
          const r = renderQuestion(qs[qi]!, names);
          const question = taskText(documentText, r.text, compat);
          for (const icl of icls) {
            const { prompt, format, formatCot } = assembleQuery(JSON_PROMPT, question, template, icl, exemplars);
            yield {
              id: `json/${task}/${preset}/${sem}/${qi}/${icl}`,
              scenario: 'json',
              task,
              preset,
              representation: null,
              icl,
              compat,
              system,
              prompt,
              question,
              format,
              formatCot,
              exemplars: exemplars.map((e) => ({ ...e })),
              target: Array.isArray(r.target) ? [...r.target] : r.target,
              matcher: matcherFor(task),
              seed,
              params: { preset, depth, width, semantics: sem },
              args: { ...r.args },
              document,
              semantics: sem,
            };
          }
        }
      }
    }
  }
}
