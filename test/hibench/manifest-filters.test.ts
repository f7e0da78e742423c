/**
 * The filter values HiBench declares in its manifest (plugins/hibench/package.json, what `run`/`generate` check and
 * `--help` lists) are exactly the values its generators accept (specs/hibench.md §3, §5.1): the manifest cannot drift
 * from the code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FilterDecl, PluginManifest } from '@hpt-bench/sdk';
import { tasksOf } from '../../plugins/hibench/src/lib/tree/tasks.js';
import { BINARY_PRESET_DEFS, MULTIPLE_PRESET_DEFS } from '../../plugins/hibench/src/lib/tree/tree.js';
import { ICL_MODES, REPRESENTATIONS } from '../../plugins/hibench/src/lib/tree/suite.js';
import { JSON_PRESETS, JSON_SEMANTICS, JSON_TASK_GROUPS, JSON_TASKS } from '../../plugins/hibench/src/json/suite.js';
import { FORMULA_PRESET_SHORTCUTS, FORMULA_PRESETS, FORMULA_TASKS } from '../../plugins/hibench/src/formula/generate.js';
import { CODE_TASKS } from '../../plugins/hibench/src/lib/program/complexity.js';
import { CODE_ICL_MODES } from '../../plugins/hibench/src/lib/program/complexity.js';
import { CODE_LANGUAGES } from '../../plugins/hibench/src/lib/program/syntax.js';
import { BINARY_TREE } from '../../plugins/hibench/src/binary-tree/index.js';
import { MULTIPLE_TREE } from '../../plugins/hibench/src/multiple-tree/index.js';
import { ROOT } from '../helpers/cli.js';

const manifest = (JSON.parse(readFileSync(join(ROOT, 'plugins/hibench/package.json'), 'utf8')) as { 'hpt-bench': PluginManifest })['hpt-bench'];
const declared = (id: string): Record<string, string[] | undefined> =>
  Object.fromEntries((manifest.contributes.datasets!.find((d) => d.id === id)!.filters as FilterDecl[]).map((f) => [f.name, f.values]));

describe('HiBench manifest filters', () => {
  it('declare, per scenario, exactly the values the generators accept', () => {
    const groups = Object.keys(JSON_TASK_GROUPS).filter((g) => !(JSON_TASKS as readonly string[]).includes(g));
    expect(declared('binary-tree')).toEqual({ task: tasksOf(BINARY_TREE), preset: BINARY_PRESET_DEFS.map((p) => p.id), representation: [...REPRESENTATIONS], icl: [...ICL_MODES] });
    expect(declared('multiple-tree')).toEqual({ task: tasksOf(MULTIPLE_TREE), preset: MULTIPLE_PRESET_DEFS.map((p) => p.id), representation: [...REPRESENTATIONS], icl: [...ICL_MODES] });
    expect(declared('json')).toEqual({ task: [...JSON_TASKS, ...groups], preset: [...JSON_PRESETS], icl: [...ICL_MODES], semantics: [...JSON_SEMANTICS] });
    expect(declared('formula')).toEqual({ task: [...FORMULA_TASKS], preset: [...FORMULA_PRESETS, ...FORMULA_PRESET_SHORTCUTS], icl: [...ICL_MODES] });
    expect(declared('code')).toEqual({ task: [...CODE_TASKS], language: [...CODE_LANGUAGES], icl: [...CODE_ICL_MODES] });
  });
});
