/**
 * The common shape of a HiBench scenario (issue 26, item 3): each scenario is one folder `src/<name>/` whose
 * `index.ts` exports one `Scenario` object — its generator or record source, its prompts, its matcher choices, its part
 * of the record schema, its capability dimensions and its report configuration — and ./scenarios.ts lists the
 * folders. The dataset layer (./dataset.ts), the record schema (./record-schema.ts), the aggregation
 * (./match/aggregate.ts), the scorer (./match/scorer.ts) and the report view (./report.ts) read the list and name no
 * scenario. plugins/hibench/README.md "Adding a scenario" is the walk-through.
 */
import type { Dataset, DatasetDecl, FilterDecl, Json } from '@hpt-bench/sdk';
import type { Dimension } from './dimensions.js';
import type { PromptStyle } from './prompt.js';
import type { MatcherSpec, ScenarioGenerator, Selection, SuiteFilter } from './types.js';

/**
 * A JSON Schema object (draft 2020-12) as plain JSON, e.g. `{ "type": "string" }`.
 */
export type JsonSchema = { readonly [key: string]: Json };

/**
 * A scenario's part of the HiBench record schema (./record-schema.ts merges the parts of the listed scenarios into one
 * schema, `additionalProperties: false`):
 * - `representations`: the values of the record field `representation` its records take (`null`: none), e.g.
 *   `['edge', 'hierarchy']` for the tree scenarios;
 * - `properties`: the record fields only some scenarios write, as JSON Schema, e.g. `{ formula: {...} }`. A field two
 *   scenarios declare must have the same schema in both (else `recordSchema` throws);
 * - `$defs`: definitions its properties refer to as `#/$defs/<name>` (same rule).
 */
export interface RecordSchemaPart {
  readonly representations: readonly (string | null)[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly $defs?: Readonly<Record<string, JsonSchema>>;
}

/**
 * One preset in the report's preset order (the "HPI by preset" chart, ./report.ts `PRESET_ORDER`): its id and, when it
 * is a difficulty, the level. The report shows every scenario's presets with a level first (easy, then medium, then
 * hard), then those without one, each group in list order; a preset id declared by several scenarios appears once, at
 * its first place. Presets no scenario declares come last, by name.
 */
export interface ReportPreset {
  readonly id: string;
  readonly level?: 'easy' | 'medium' | 'hard';
}

/**
 * A scenario's report configuration (./report.ts, the `hibench` report view):
 * - `label`: its column and table label (the manifest's report `labels` entry must be the same);
 * - `extension`: true for a scenario beyond HiBench's six (§1.1): the leaderboard shows it after Avg, outside the
 *   overall score and the capability-dimension table;
 * - `presets`: its presets in display order (see `ReportPreset`); absent: its presets sort by name after the declared ones;
 * - `note`: a leaderboard note shown when some model has a run of the scenario.
 */
export interface ScenarioReport {
  readonly label: string;
  readonly extension?: boolean;
  readonly presets?: readonly ReportPreset[];
  readonly note?: string;
}

/**
 * A HiBench scenario (specs/hibench.md §1.1, §3): everything the plugin's generic code needs to know about it.
 * - `name`: the dataset id (`hibench/<name>`), the record field `scenario`, the first segment of its record ids and the
 *   first key of its random streams; also the name of its folder (`src/<name>/`).
 * - `manifest`: its dataset entry in the plugin manifest (package.json `hpt-bench.contributes.datasets`), without the
 *   `id` (= `name`). The manifest is written by hand; test/hibench/scenarios.test.ts fails unless it holds exactly
 *   these entries.
 * - `dataset`: its `Dataset` class, the manifest entry's `export`.
 * - `prompt`: its system prompt and separators (§2).
 * - `tasks`: its task ids in stream order (the `--task` values that are not task groups).
 * - `matchers`: the match types its records use (§4.3; `MatcherSpec.type`), its matcher choices.
 * - `select`: validates a filter and resolves it to the values its records carry (what a `--data` file is filtered by,
 *   so it keeps exactly what the generator would generate). @throws HptError `E_CONFIG` for an unknown value.
 * - `generate`: its record stream when it is drawn at random from the seed (absent: built from `--data` only).
 * - `record`: its part of the record schema.
 * - `dimensions`: task id → capability dimension (§1.3), for the tasks that have one.
 * - `taskGroups`: sub-task id → leaderboard column, for sub-tasks averaged into one column (§1.1, the JSON row).
 * - `report`: its report configuration.
 */
export interface Scenario {
  readonly name: string;
  readonly manifest: Readonly<Omit<DatasetDecl, 'id'>>;
  readonly dataset: new (...args: never[]) => Dataset;
  readonly prompt: PromptStyle;
  readonly tasks: readonly string[];
  readonly matchers: readonly MatcherSpec['type'][];
  select(filter: SuiteFilter): Selection;
  readonly generate?: ScenarioGenerator;
  readonly record: RecordSchemaPart;
  readonly dimensions: Readonly<Record<string, Dimension>>;
  readonly taskGroups?: Readonly<Record<string, string>>;
  readonly report: ScenarioReport;
}

/** The `icl` filter declaration every scenario's manifest entry has (specs/hibench.md §5.1), a fresh object per call. */
export function iclFilter(): FilterDecl {
  return { name: 'icl', description: 'only these in-context-example modes: zero, one and/or few (specs/hibench.md §5.1)', values: ['zero', 'one', 'few'] };
}

/**
 * A filter declaration of a manifest entry: `{ name, description, values }` with the values copied (e.g. a scenario's
 * task list, so the manifest test compares the manifest with the constants the generator uses).
 */
export function filterDecl(name: string, description: string, values?: readonly string[]): FilterDecl {
  return values === undefined ? { name, description } : { name, description, values: [...values] };
}
