/**
 * The record stream of a tree scenario (specs/hibench.md §1.1 counts, §3.0 sampling, §3.1/§3.2 tasks, §5.1 ICL modes),
 * for the `TreeKind` its folder declares.
 */
import { HptError, type FilterDecl, type Json } from '@hpt-bench/sdk';
import { selectValues } from '../../filter.js';
import { filterDecl, iclFilter, type JsonSchema, type RecordSchemaPart } from '../../scenario.js';
import { rngFor } from '../../rng.js';
import type { Exemplar, GenerateOptions, HibenchRecord, IclMode, Representation, Selection, SuiteFilter } from '../../types.js';
import { buildRecord, compatExemplars, drawTask, instantiateTask, strictExemplars, tasksOf, type TaskInstance, type TreeKind, type TreeTask } from './tasks.js';
import { sampleStructures, treeToStructure, type TreePreset } from './tree.js';

/** The representations in stream order (§3.0.1). */
export const REPRESENTATIONS: readonly Representation[] = ['edge', 'hierarchy'];
/** The ICL modes in stream order (§5.1). */
export const ICL_MODES: readonly IclMode[] = ['zero', 'one', 'few'];

/** The preset definitions of a tree scenario (§3.1, §3.2; `kind.presets`). */
export function presetsOf(kind: TreeKind): readonly TreePreset[] {
  return kind.presets;
}

/**
 * A tree scenario's suite: validates the filter eagerly (so a bad flag fails at the call, not at the first record),
 * then streams preset → structure → task → representation → ICL mode. Structures come from `rngFor(seed, kind.name,
 * preset, ...)` and question arguments from `rngFor(seed, kind.name, preset, 'question', index, task)`, so a filtered
 * suite yields exactly the matching records of the full suite; one draw per (structure, task) is shared by both
 * representations and all ICL modes (paired design).
 * @throws HptError `E_CONFIG` for an unknown task / preset / representation / ICL mode (with "did you mean"), or
 *   when a `semantics` filter is given (JSON only).
 */
export function generateTreeSuite(kind: TreeKind, options: GenerateOptions): Generator<HibenchRecord> {
  const { filter, seed, compat } = options;
  const sel = resolveTreeFilter(kind, filter);
  const presets = presetsOf(kind).filter((p) => sel.presets.includes(p.id));
  return stream(kind, seed, compat, presets, sel.tasks, sel.representations, sel.icl);
}

/**
 * Validate a tree scenario's filter and resolve it to the values records carry (all values where a list is empty).
 * @throws HptError `E_CONFIG` for an unknown task / preset / representation / ICL mode (with "did you mean"), or
 *   when a `semantics` filter is given (JSON only).
 */
export function resolveTreeFilter(kind: TreeKind, filter: SuiteFilter): Selection & { tasks: TreeTask[]; representations: Representation[]; icl: IclMode[] } {
  const scenario = kind.name;
  if (filter.semantics && filter.semantics.length > 0) {
    throw new HptError('E_CONFIG', `${scenario}: --semantics applies to the json scenario only`);
  }
  return {
    tasks: selectValues(scenario, '--task', tasksOf(kind), filter.tasks),
    presets: selectValues(
      scenario,
      '--preset',
      presetsOf(kind).map((p) => p.id),
      filter.presets,
    ),
    representations: selectValues(scenario, '--representation', REPRESENTATIONS, filter.representations),
    icl: selectValues(scenario, '--icl', ICL_MODES, filter.icl),
  };
}

function* stream(
  kind: TreeKind,
  seed: number,
  compat: GenerateOptions['compat'],
  presets: readonly TreePreset[],
  tasks: readonly TreeTask[],
  reps: readonly Representation[],
  icls: readonly IclMode[],
): Generator<HibenchRecord> {
  const scenario = kind.name;
  const binary = kind.binary;
  const exemplarCache = new Map<string, Exemplar[]>();
  const exemplarsFor = (task: TreeTask, rep: Representation): Exemplar[] => {
    const key = `${task}|${rep}`;
    let ex = exemplarCache.get(key);
    if (!ex) {
      ex = compat === 'reference' ? compatExemplars(task) : strictExemplars(seed, kind, task, rep);
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
          const instance: TaskInstance = instantiateTask(kind, task, s.tree, draw, representation, compat);
          for (const icl of icls) {
            yield buildRecord({
              kind,
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

/** The tree of a record (`structure`, `structure2`) as JSON Schema: the record part's `#/$defs/tree`. */
export const TREE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['root', 'children'],
  additionalProperties: false,
  properties: {
    root: { type: 'integer', minimum: 0 },
    children: { type: 'object', additionalProperties: { type: 'array', items: { type: 'integer', minimum: 0 } } },
    side: { type: 'object', additionalProperties: { enum: ['L', 'R'] } },
  },
};

/**
 * The record schema part of a tree scenario (`Scenario.record`): representations edge / hierarchy, the input tree
 * `structure` and, with `second` (the isomorphic task), the second tree `structure2`.
 */
export function treeRecordPart(second: boolean): RecordSchemaPart {
  const ref = { $ref: '#/$defs/tree' };
  return {
    representations: [...REPRESENTATIONS],
    properties: second ? { structure: ref, structure2: ref } : { structure: ref },
    $defs: { tree: TREE_SCHEMA },
  };
}

/** The manifest filters of a tree scenario: task, preset, representation, icl (specs/hibench.md §3, §3.0.1, §5.1). */
export function treeFilters(kind: TreeKind): FilterDecl[] {
  return [
    filterDecl('task', 'only these tasks (specs/hibench.md §3)', kind.tasks),
    filterDecl('preset', 'only these presets (structure sizes or complexity cells, specs/hibench.md §3)', kind.presets.map((p) => p.id)),
    filterDecl('representation', 'only these structure representations: edge list and/or hierarchy text (specs/hibench.md §3.0.1)', REPRESENTATIONS),
    iclFilter(),
  ];
}
