/** HiBench aggregation (specs/hibench.md §4.4–4.6) and the capability-dimension table (§1.3). */
import { describe, it, expect } from 'vitest';
import {
  CAPABILITY_DIMENSIONS,
  DIMENSIONS,
  TASK_GROUPS,
  aggregateScores,
  dimensionOf,
  taskGroupOf,
  type ScoreRow,
} from '../../plugins/hibench/src/match/aggregate.js';

function rows(scenario: string, task: string, config: string, scores: number[], extra: Partial<ScoreRow> = {}): ScoreRow[] {
  return scores.map((score) => ({ scenario, task, config, score, ...extra }));
}

/**
 * Hand-computed example (fractions):
 * binary-tree: balance c1 [1, 0] → 0.5, c2 [1] → 1 ⇒ task 0.75 (pooled would be 2/3); prefix_traversal c3 [0,0,1,1]
 *   → 0.5 ⇒ scenario (0.75 + 0.5) / 2 = 0.625.
 * json: path_down_to_up c4 [1] → 1, path_between_nodes c5 [0] → 0 ⇒ path_finding 0.5; level_count c6 [1, 0] → 0.5
 *   ⇒ scenario 0.5. Overall (0.625 + 0.5) / 2 = 0.5625.
 * Filtered out by default: c7 (one-shot, [1]) and c8 (nonsense, [1]), both json/level_count.
 * Dimensions: GSU = mean(binary (0.75 + 0.5) / 2 = 0.625, json 0.5) = 0.5625 (task-weighted would be 0.5833);
 *   LRA = json (1 + 0) / 2 = 0.5.
 * Unfiltered: level_count = mean(0.5, 1, 1) = 0.8333 ⇒ json (0.5 + 0.8333) / 2 = 0.6667.
 */
const EXAMPLE: ScoreRow[] = [
  ...rows('binary-tree', 'balance', 'c1', [1, 0], { icl: 'zero' }),
  ...rows('binary-tree', 'balance', 'c2', [1], { icl: 'zero' }),
  ...rows('binary-tree', 'prefix_traversal', 'c3', [0, 0, 1, 1], { icl: 'zero' }),
  ...rows('json', 'path_down_to_up', 'c4', [1], { icl: 'zero', semantics: 'normal' }),
  ...rows('json', 'path_between_nodes', 'c5', [0], { icl: 'zero', semantics: 'normal' }),
  ...rows('json', 'level_count', 'c6', [1, 0], { semantics: 'normal' }),
  ...rows('json', 'level_count', 'c7', [1], { icl: 'one', semantics: 'normal' }),
  ...rows('json', 'level_count', 'c8', [1], { icl: 'zero', semantics: 'nonsense' }),
];

describe('aggregateScores (§4.4–4.6)', () => {
  it('configs → tasks (mean of config accuracies) → scenarios → overall, zero-shot and no nonsense by default', () => {
    const a = aggregateScores(EXAMPLE);
    expect(a.configs).toEqual({ c1: 0.5, c2: 1, c3: 0.5, c4: 1, c5: 0, c6: 0.5 });
    expect(a.tasks).toEqual({
      'binary-tree/balance': 0.75,
      'binary-tree/prefix_traversal': 0.5,
      'json/path_finding': 0.5,
      'json/level_count': 0.5,
    });
    expect(a.scenarios).toEqual({ 'binary-tree': 0.625, json: 0.5 });
    expect(a.overall).toBe(0.5625);
    expect(a.n).toBe(11);
  });
  it('dimensions: per scenario sub-task means, averaged within (scenario, dimension), then across scenarios', () => {
    const a = aggregateScores(EXAMPLE);
    expect(a.dimensions).toEqual({ 'Local Relationship Awareness': 0.5, 'Global Structural Understanding': 0.5625 });
  });
  it('zero-shot filter and nonsense filter can be switched off', () => {
    const all = aggregateScores(EXAMPLE, { zeroShotOnly: false, excludeNonsense: false });
    expect(all.tasks['json/level_count']).toBeCloseTo(5 / 6, 12);
    expect(all.scenarios['json']).toBeCloseTo((0.5 + 5 / 6) / 2, 12);
    expect(all.n).toBe(13);
    const withOneShot = aggregateScores(EXAMPLE, { zeroShotOnly: false });
    expect(withOneShot.tasks['json/level_count']).toBe(0.75);
    expect(withOneShot.configs['c8']).toBeUndefined();
    const withNonsense = aggregateScores(EXAMPLE, { excludeNonsense: false });
    expect(withNonsense.tasks['json/level_count']).toBe(0.75);
    expect(withNonsense.configs['c7']).toBeUndefined();
  });
  it('a config id shared by two tasks is kept apart and reported with its scenario/task', () => {
    const a = aggregateScores([...rows('formula', 'calculate', 'easy', [1]), ...rows('formula', 'convert', 'easy', [0])]);
    expect(a.configs).toEqual({ 'formula/calculate/easy': 1, 'formula/convert/easy': 0 });
    expect(a.scenarios).toEqual({ formula: 0.5 });
    expect(a.dimensions).toEqual({ 'Analytical Reasoning': 0.5 });
  });
  it('empty input gives zeros', () => {
    expect(aggregateScores([])).toEqual({ configs: {}, tasks: {}, scenarios: {}, overall: 0, dimensions: {}, n: 0 });
  });
  it('hit-rate fractions are averaged as scores', () => {
    const a = aggregateScores(rows('paper', 'contextual_qa', 'dev', [2 / 3, 1 / 3]));
    expect(a.overall).toBeCloseTo(0.5, 12);
    expect(a.dimensions['Textual Reasoning']).toBeCloseTo(0.5, 12);
  });
});

describe('capability dimensions (§1.3) and task groups', () => {
  it('maps the 32 sub-task ids of §1.3 exactly', () => {
    // the tasks this project adds (README "Code structure") are mapped too, but are not part of §1.3
    const added = ['class_methods', 'loop_depth', 'enclosing_blocks', 'callees'];
    const by = (d: string): string[] => Object.entries(CAPABILITY_DIMENSIONS).filter(([k, v]) => v === d && !added.includes(k)).map(([k]) => k).sort();
    expect(by('Local Relationship Awareness')).toEqual(
      [
        'all_ancestor', 'all_children', 'common_ancestor', 'node_depth', 'leaf', 'root', 'child_count', 'node_attribute',
        'path_down_to_up', 'path_up_to_down', 'shared_ancestor_same_level', 'shared_ancestor_diff_level', 'path_between_nodes',
      ].sort(),
    );
    expect(by('Global Structural Understanding')).toEqual(
      ['isomorphic', 'balance', 'prefix_traversal', 'infix_traversal', 'postfix_traversal', 'traversal_order_verification', 'level_count', 'level_nodes'].sort(),
    );
    expect(by('Structural Manipulation')).toEqual(['add_node', 'mirror_tree', 'remove_node']);
    expect(by('Analytical Reasoning')).toEqual(['SpaceComplexity', 'TimeComplexity', 'calculate', 'convert', 'equivalent'].sort());
    expect(by('Textual Reasoning')).toEqual(['contextual_qa', 'disordered_section', 'outline_extraction']);
    expect(DIMENSIONS).toHaveLength(5);
  });
  it('look-ups ignore case, "-" and "_"', () => {
    expect(dimensionOf('space-complexity')).toBe('Analytical Reasoning');
    expect(dimensionOf('Mirror-Tree')).toBe('Structural Manipulation');
    expect(dimensionOf('node_relationship')).toBeUndefined();
    expect(taskGroupOf('json', 'path-up-to-down')).toBe('path_finding');
    expect(taskGroupOf('json', 'shared_ancestor_diff_level')).toBe('nearest_ancestor');
    expect(taskGroupOf('multiple-tree', 'node_depth')).toBe('node_depth');
    expect(Object.keys(TASK_GROUPS['json']!)).toHaveLength(5);
  });
});
