/**
 * The Code scenario's records (specs/hibench.md §1.1, §3.5, §5.1): every program × {SpaceComplexity, TimeComplexity} ×
 * {zero, one, few}-shot, in data order (program → task → ICL mode), built from the source items (../lib/program/source.ts). Nothing
 * is random: the seed is only recorded. The record's `preset` is the program's language (python / cpp), so a
 * configuration (spec §4.4) is task × language × ICL mode: the paper's 12 sub-tasks.
 */
import { HptError, type CompatMode, type Json } from '@hpt-bench/sdk';
import { selectValues } from '../filter.js';
import type { HibenchRecord, IclMode, Selection, SuiteFilter } from '../types.js';
import { CODE_ICL_MODES, CODE_TASKS, codeRecord, type CodeTask } from '../lib/program/complexity.js';
import type { CodeItem } from '../lib/program/source.js';
import { CODE_LANGUAGES, type CodeLanguage } from '../lib/program/syntax.js';

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
