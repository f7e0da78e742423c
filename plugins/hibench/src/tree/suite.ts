/**
 * The record stream shared by the two tree scenarios (specs/hibench.md §1.1 counts, §3.0 sampling, §3.1/§3.2 tasks,
 * §5.1 ICL modes).
 */
import { HptError, type Json } from '@hpt-bench/sdk';
import { selectValues } from '../filter.js';
import { rngFor } from '../rng.js';
import type { Exemplar, GenerateOptions, HibenchRecord, IclMode, Representation, Selection, SuiteFilter } from '../types.js';
import { buildRecord, compatExemplars, drawTask, instantiateTask, strictExemplars, tasksOf, type TaskInstance, type TreeScenario, type TreeTask } from './tasks.js';
import { BINARY_PRESET_DEFS, MULTIPLE_PRESET_DEFS, sampleStructures, treeToStructure, type TreePreset } from './tree.js';

/** The representations in stream order (§3.0.1). */
export const REPRESENTATIONS: readonly Representation[] = ['edge', 'hierarchy'];
/** The ICL modes in stream order (§5.1). */
export const ICL_MODES: readonly IclMode[] = ['zero', 'one', 'few'];

/** The preset definitions of a scenario (§3.1, §3.2). */
export function presetsOf(scenario: TreeScenario): readonly TreePreset[] {
  return scenario === 'binary-tree' ? BINARY_PRESET_DEFS : MULTIPLE_PRESET_DEFS;
}

/**
 * A tree scenario's suite: validates the filter eagerly (so a bad flag fails at the call, not at the first record),
 * then streams preset → structure → task → representation → ICL mode. Structures come from `rngFor(seed, scenario,
 * preset, ...)` and question arguments from `rngFor(seed, scenario, preset, 'question', index, task)`, so a filtered
 * suite yields exactly the matching records of the full suite; one draw per (structure, task) is shared by both
 * representations and all ICL modes (paired design).
 * @throws HptError `E_CONFIG` for an unknown task / preset / representation / ICL mode (with "did you mean"), or
 *   when a `semantics` filter is given (JSON only).
 */
export function generateTreeSuite(scenario: TreeScenario, options: GenerateOptions): Generator<HibenchRecord> {
  const { filter, seed, compat } = options;
  const sel = resolveTreeFilter(scenario, filter);
  const presets = presetsOf(scenario).filter((p) => sel.presets.includes(p.id));
  return stream(scenario, seed, compat, presets, sel.tasks, sel.representations, sel.icl);
}

/**
 * Validate a tree scenario's filter and resolve it to the values records carry (all values where a list is empty).
 * @throws HptError `E_CONFIG` for an unknown task / preset / representation / ICL mode (with "did you mean"), or
 *   when a `semantics` filter is given (JSON only).
 */
export function resolveTreeFilter(scenario: TreeScenario, filter: SuiteFilter): Selection & { tasks: TreeTask[]; representations: Representation[]; icl: IclMode[] } {
  if (filter.semantics && filter.semantics.length > 0) {
    throw new HptError('E_CONFIG', `${scenario}: --semantics applies to the json scenario only`);
  }
  return {
    tasks: selectValues(scenario, '--task', tasksOf(scenario), filter.tasks),
    presets: selectValues(
      scenario,
      '--preset',
      presetsOf(scenario).map((p) => p.id),
      filter.presets,
    ),
    representations: selectValues(scenario, '--representation', REPRESENTATIONS, filter.representations),
    icl: selectValues(scenario, '--icl', ICL_MODES, filter.icl),
  };
}

function* stream(
  scenario: TreeScenario,
  seed: number,
  compat: GenerateOptions['compat'],
  presets: readonly TreePreset[],
  tasks: readonly TreeTask[],
  reps: readonly Representation[],
  icls: readonly IclMode[],
): Generator<HibenchRecord> {
  const binary = scenario === 'binary-tree';
  const exemplarCache = new Map<string, Exemplar[]>();
  const exemplarsFor = (task: TreeTask, rep: Representation): Exemplar[] => {
    const key = `${task}|${rep}`;
    let ex = exemplarCache.get(key);
    if (!ex) {
      ex = compat === 'reference' ? compatExemplars(task) : strictExemplars(seed, scenario, task, rep);
      exemplarCache.set(key, ex);
    }
    return ex;
  };
  for (const preset of presets) {
    for (const s of sampleStructures(seed, scenario, preset, binary)) {
      const structure = treeToStructure(s.tree);
      const params: Record<string, Json> = { nodes: s.nodes, levels: s.levels, degree: s.degree, balanced: s.balanced, index: s.index };
      for (const task of tasks) {
        const draw = drawTask({ scenario, task, tree: s.tree, degree: s.degree, compat }, rngFor(seed, scenario, preset.id, 'question', s.index, task));
        for (const representation of reps) {
          const instance: TaskInstance = instantiateTask(scenario, task, s.tree, draw, representation, compat);
          for (const icl of icls) {
            yield buildRecord({
              scenario,
              task,
              preset: preset.id,
              index: s.index,
              representation,
              icl,
              compat,
              seed,
              params,
              args: draw.args,
              structure,
              instance,
              exemplars: exemplarsFor(task, representation),
            });
          }
        }
      }
    }
  }
}
