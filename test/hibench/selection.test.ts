import { describe, expect, it } from 'vitest';
import { resolveFormulaFilter, generateFormula } from '../../plugins/hibench/src/formula/generate.js';
import { generateJson, resolveJsonFilter } from '../../plugins/hibench/src/json/suite.js';
import { generateMultipleTree, MULTIPLE_TREE } from '../../plugins/hibench/src/multiple-tree/index.js';
import { resolveTreeFilter } from '../../plugins/hibench/src/lib/tree/suite.js';
import { selects, type GenerateOptions, type Selection, type SuiteFilter } from '../../plugins/hibench/src/types.js';

/** Records of the full suite that `selection` keeps, by id, and the ids the generator yields for `filter`. */
function compare(gen: (o: GenerateOptions) => Iterable<{ id: string }>, resolve: (f: SuiteFilter) => Selection, filter: SuiteFilter): { selected: string[]; generated: string[] } {
  const sel = resolve(filter);
  const selected: string[] = [];
  for (const r of gen({ seed: 3, compat: 'strict', filter: {} })) if (selects(sel, r as never)) selected.push(r.id);
  const generated = [...gen({ seed: 3, compat: 'strict', filter })].map((r) => r.id);
  return { selected, generated };
}

describe('filter selections (records read back with --data select what the generator generates)', () => {
  it('formula preset shortcuts', () => {
    const { selected, generated } = compare(generateFormula, (f) => {
      const r = resolveFormulaFilter({ seed: 0, compat: 'strict', filter: f });
      return { tasks: r.tasks, presets: r.cells.map((c) => c.name), icl: r.icl };
    }, { presets: ['easy', 'symbol_hard_value_easy_length_medium'], tasks: ['convert'], icl: ['few'] });
    expect(generated.length).toBe(2 * 6 * 13);
    expect(selected).toEqual(generated);
  });

  it('JSON task groups and semantics', () => {
    const { selected, generated } = compare(generateJson, resolveJsonFilter, { tasks: ['path_finding'], presets: ['small', 'large-2'], semantics: ['nonsense'] });
    expect(generated.length).toBeGreaterThan(0);
    expect(selected).toEqual(generated);
  });

  it('tree presets, representations and ICL modes; unknown values are rejected by the same resolver', () => {
    const { selected, generated } = compare(generateMultipleTree, (f) => resolveTreeFilter(MULTIPLE_TREE, f), { presets: ['hard-1'], representations: ['hierarchy'], icl: ['zero', 'one'], tasks: ['root', 'remove_node'] });
    expect(generated.length).toBe(36 * 2 * 2);
    expect(selected).toEqual(generated);
    expect(() => resolveTreeFilter(MULTIPLE_TREE, { semantics: ['normal'] })).toThrow(/--semantics applies to the json scenario only/);
    expect(() => resolveJsonFilter({ tasks: ['path'] })).toThrow(/unknown --task 'path'/);
  });
});
