/**
 * The records of hibench/code-gen (issue 15; specs/hibench.md §3.5 for the prompts, §7 rec. 19 for the matcher):
 * `CODE_GEN_PER_PRESET` programs per preset, each rendered in Python and C++, × {SpaceComplexity, TimeComplexity} ×
 * {zero, one, few}-shot, in the order preset → program → language → task → ICL mode. The prompt texts are exactly
 * hibench/code's (../lib/program/complexity.ts `codeRecord`); the matcher is `{type: 'string', bigo: true}`; the target is the
 * construction's exact bound (./construct.ts). `preset` is the difficulty, `language` its own field and filter.
 */
import { HptError, type CompatMode, type Json } from '@hpt-bench/sdk';
import { selectValues } from '../filter.js';
import type { HibenchRecord, IclMode, Selection, SuiteFilter } from '../types.js';
import { CODE_ICL_MODES, CODE_TASKS, codeRecord, type CodeTask } from '../lib/program/complexity.js';
import { CODE_LANGUAGES, type CodeLanguage } from '../lib/program/syntax.js';
import { bigOLabel } from './construct.js';
import { CODE_GEN_PRESETS, drawProgram, type CodeGenPreset, type DrawnProgram } from './generate.js';
import { renderProgram } from './program.js';

/** Programs per preset (each in both languages): 50 × 3 presets × 2 languages × 2 tasks × 3 ICL modes = 1,800 queries. */
export const CODE_GEN_PER_PRESET = 50;

/** The resolved selection of hibench/code-gen. */
export type CodeGenSelection = Selection & { tasks: CodeTask[]; presets: CodeGenPreset[]; languages: CodeLanguage[]; icl: IclMode[] };

/**
 * Validates a code-gen filter: `task`, `preset` (easy, medium, hard), `language` (python, cpp; `c++` = cpp), `icl`.
 * @throws HptError `E_CONFIG` for an unknown value (with "did you mean") or a filter the scenario does not have.
 */
export function resolveCodeGenFilter(filter: SuiteFilter): CodeGenSelection {
  if (filter.representations?.length) throw new HptError('E_CONFIG', 'code-gen: --representation applies to the tree scenarios only');
  if (filter.semantics?.length) throw new HptError('E_CONFIG', 'code-gen: --semantics applies to the json scenario only');
  return {
    tasks: selectValues('code-gen', '--task', CODE_TASKS, filter.tasks),
    presets: selectValues('code-gen', '--preset', CODE_GEN_PRESETS, filter.presets),
    languages: selectValues('code-gen', '--language', CODE_LANGUAGES, filter.languages?.map((l) => ((l as string) === 'c++' ? 'cpp' : l))),
    icl: selectValues('code-gen', '--icl', CODE_ICL_MODES, filter.icl),
  };
}

/** The labels of a drawn program. */
export function labels(p: DrawnProgram): { time: string; space: string } {
  return { time: bigOLabel(p.analysis.time), space: bigOLabel(p.analysis.space) };
}

/** One record of program `index` of `preset`. */
export function buildCodeGenRecord(p: DrawnProgram, preset: CodeGenPreset, index: number, language: CodeLanguage, code: string, task: CodeTask, icl: IclMode, compat: CompatMode, seed: number): HibenchRecord {
  const l = labels(p);
  const params: Record<string, Json> = {
    index,
    depth: p.depth,
    blocks: p.blocks,
    time: l.time,
    space: l.space,
    construction: p.construction as unknown as Json,
  };
  return codeRecord({ id: `code-gen/${task}/${preset}/${language}/${index}/${icl}`, scenario: 'code-gen', task, preset, icl, compat, seed, params, language, code, labels: l });
}

/**
 * The records of the selected part (a lazy, deterministic stream: same seed → same records, byte for byte; a filter
 * only drops records, it never changes the ones kept). `perPreset` defaults to `CODE_GEN_PER_PRESET`.
 * @throws HptError `E_CONFIG` (see resolveCodeGenFilter).
 */
export function generateCodeGen(options: { seed: number; compat: CompatMode; filter: SuiteFilter; perPreset?: number }): Generator<HibenchRecord> {
  const sel = resolveCodeGenFilter(options.filter);
  const count = options.perPreset ?? CODE_GEN_PER_PRESET;
  return (function* () {
    for (const preset of sel.presets) {
      for (let index = 0; index < count; index++) {
        const p = drawProgram(options.seed, preset, index);
        for (const language of sel.languages) {
          const code = renderProgram(p.construction, p.names, language);
          for (const task of sel.tasks) for (const icl of sel.icl) yield buildCodeGenRecord(p, preset, index, language, code, task, icl, options.compat, options.seed);
        }
      }
    }
  })();
}
