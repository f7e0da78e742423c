/**
 * The Code scenario's records (specs/hibench.md §1.1, §3.5, §5.1): every program × {SpaceComplexity, TimeComplexity} ×
 * {zero, one, few}-shot, in data order (program → task → ICL mode), built from the source items (./source.ts). Nothing
 * is random: the seed is only recorded. The record's `preset` is the program's language (python / cpp), so a
 * configuration (spec §4.4) is task × language × ICL mode: the paper's 12 sub-tasks.
 */
import { HptError, type CompatMode, type Json } from '@hpt-bench/sdk';
import { selectValues } from '../filter.js';
import { assembleQuery, SYSTEM_PROMPTS } from '../prompt.js';
import type { HibenchRecord, IclMode, Selection, SuiteFilter } from '../types.js';
import { CODE_TASKS, codeQuestion, COMPAT_EXAMPLES, OUTPUT_TEMPLATES, strictExamples, type CodeTask } from './compat-examples.js';
import type { CodeItem } from './source.js';
import { CODE_LANGUAGES, type CodeLanguage } from './syntax.js';

export const CODE_ICL_MODES: readonly IclMode[] = ['zero', 'one', 'few'];

/** The resolved selection of the Code scenario (`presets` = languages). */
export type CodeSelection = Selection & { tasks: CodeTask[]; presets: CodeLanguage[]; icl: IclMode[] };

/**
 * Validates a Code filter: `task`, `icl`, `language` (alias: `preset`). @throws HptError `E_CONFIG` for an unknown
 * value (with "did you mean") or a filter the scenario does not have (representation, semantics).
 */
export function resolveCodeFilter(filter: SuiteFilter): CodeSelection {
  if (filter.representations?.length) throw new HptError('E_CONFIG', 'code: --representation applies to the tree scenarios only');
  if (filter.semantics?.length) throw new HptError('E_CONFIG', 'code: --semantics applies to the json scenario only');
  const wantedLanguages = [...(filter.languages ?? []), ...(filter.presets ?? [])].map((l) => (l === 'c++' ? 'cpp' : l));
  return {
    tasks: selectValues('code', '--task', CODE_TASKS, filter.tasks),
    presets: selectValues('code', '--language', CODE_LANGUAGES, wantedLanguages),
    icl: selectValues('code', '--icl', CODE_ICL_MODES, filter.icl),
  };
}

/** The texts of a Code query: what hibench/code and hibench/code-gen records share. */
export type CodeQueryFields = Pick<HibenchRecord, 'system' | 'prompt' | 'question' | 'format' | 'formatCot' | 'exemplars'>;

/**
 * The prompt texts of one Code query (§2, §3.5, §5.1): the Code system prompt, the toolkit's task template over the
 * program, the output template of the task, and the ICL prefix (compat: the toolkit's examples; strict: this project's
 * examples in the program's language), concatenated without separators. Used by hibench/code and hibench/code-gen.
 */
export function codeQueryFields(task: CodeTask, code: string, language: CodeLanguage, icl: IclMode, compat: CompatMode): CodeQueryFields {
  const question = codeQuestion(task, code);
  const exemplars = compat === 'reference' ? COMPAT_EXAMPLES[task].map((e) => ({ ...e })) : strictExamples(task, language);
  const q = assembleQuery('code', question, OUTPUT_TEMPLATES[task], icl, exemplars);
  return { system: SYSTEM_PROMPTS.code, prompt: q.prompt, question, format: q.format, formatCot: q.formatCot, exemplars };
}

/**
 * A record asking `task` about `code` (§2, §3.5): the Code query's texts (`codeQueryFields`), the label of the task as
 * the target (`labels.space` or `labels.time`, a big-O string), the big-O matcher, no representation and no args. What
 * hibench/code and hibench/code-gen records share; each gives its own id, scenario, preset and params.
 */
export function codeRecord(r: {
  id: string;
  scenario: 'code' | 'code-gen';
  task: CodeTask;
  preset: string;
  icl: IclMode;
  compat: CompatMode;
  seed: number;
  params: Record<string, Json>;
  language: CodeLanguage;
  code: string;
  labels: { space: string; time: string };
}): HibenchRecord {
  const q = codeQueryFields(r.task, r.code, r.language, r.icl, r.compat);
  return {
    id: r.id,
    scenario: r.scenario,
    task: r.task,
    preset: r.preset,
    representation: null,
    icl: r.icl,
    compat: r.compat,
    system: q.system,
    prompt: q.prompt,
    question: q.question,
    format: q.format,
    formatCot: q.formatCot,
    exemplars: q.exemplars,
    target: r.task === 'SpaceComplexity' ? r.labels.space : r.labels.time,
    matcher: { type: 'string', bigo: true },
    seed: r.seed,
    params: r.params,
    args: {},
    language: r.language,
    code: r.code,
  };
}

/** One record (§2: Code system prompt, task text and format sentence concatenated without separators). */
export function buildCodeRecord(item: CodeItem, task: CodeTask, icl: IclMode, compat: CompatMode, seed: number): HibenchRecord {
  const params: Record<string, Json> = { question_no: item.questionNo, source_id: item.id };
  if (item.source !== undefined) params.source = item.source;
  if (item.commit !== undefined) params.commit = item.commit;
  return codeRecord({ id: `code/${task}/${item.id}/${icl}`, scenario: 'code', task, preset: item.language, icl, compat, seed, params, language: item.language, code: item.code, labels: item });
}

/** The records of the selected part, program → task → ICL mode. @throws HptError `E_CONFIG` (see resolveCodeFilter). */
export function generateCode(items: readonly CodeItem[], options: { seed: number; compat: CompatMode; filter: SuiteFilter }): Generator<HibenchRecord> {
  const sel = resolveCodeFilter(options.filter);
  return (function* () {
    for (const item of items) {
      if (!sel.presets.includes(item.language)) continue;
      for (const task of sel.tasks) for (const icl of sel.icl) yield buildCodeRecord(item, task, icl, options.compat, options.seed);
    }
  })();
}
