/**
 * The HiBench record schema (a line of `hpt-bench generate hibench/<scenario>`; specs/hibench.md §2-§4): the part every
 * record shares, written here, merged with the parts of the listed scenarios (`Scenario.record`, in each folder): the
 * `scenario` enum is the list's names, the `representation` enum the union of their representations, and the
 * scenario-specific fields (trees, documents, formulas, programs) their `properties`. The plugin validates `--data`
 * records against it (./dataset.ts `loadRecordsFile`); `npm run build` writes it to
 * plugins/hibench/schemas/hibench-record.schema.json (scripts/write-record-schema.mjs), which the package ships and
 * scripts/precompile-schemas.mjs precompiles. The SDK does not ship it.
 */
import { formatAjvErrors, HptError, validatorFor, type Json } from '@hpt-bench/sdk';
import type { JsonSchema, Scenario } from './scenario.js';
import { SCENARIOS } from './scenarios.js';
import type { AnyHibenchRecord } from './types.js';

/** The file name the build writes the schema to, under plugins/hibench/schemas/. */
export const RECORD_SCHEMA_FILE_NAME = 'hibench-record.schema.json';

/** The common record fields, in schema order (before the scenarios' own fields). */
const COMMON_PROPERTIES = (scenarios: readonly string[], representations: readonly (string | null)[]): Record<string, Json> => ({
  id: { type: 'string', minLength: 1 },
  scenario: { enum: [...scenarios] },
  task: { type: 'string', minLength: 1, description: "the toolkit's sub-task id, e.g. prefix_traversal, remove_node, path_down_to_up, calculate" },
  preset: { type: 'string', minLength: 1 },
  representation: { enum: [...representations] },
  icl: { enum: ['zero', 'one', 'few'] },
  compat: { enum: ['strict', 'reference'] },
  system: { type: 'string' },
  prompt: { type: 'string', minLength: 1, description: 'the user message: ICL prefix + task text + answer-format sentence (spec §2)' },
  question: { type: 'string', minLength: 1, description: 'the filled task template alone' },
  format: { type: 'string' },
  formatCot: { type: 'string' },
  exemplars: {
    type: 'array',
    items: {
      type: 'object',
      required: ['input', 'answer'],
      additionalProperties: false,
      properties: { input: { type: 'string' }, answer: { type: 'string' } },
    },
  },
  target: { description: 'the reference answer (boolean, number, string or list)' },
  matcher: {
    type: 'object',
    required: ['type'],
    additionalProperties: false,
    properties: {
      type: { enum: ['number', 'string', 'list', 'structure', 'hit-rate'] },
      sep: { type: 'string' },
      skip: { type: 'string' },
      ordered: { type: 'boolean' },
      none: { type: 'string' },
      path: { type: 'boolean' },
      notation: { enum: ['infix', 'prefix', 'postfix'] },
      representation: { enum: ['edge', 'hierarchy'] },
      binary: { type: 'boolean' },
      empty: { type: 'string' },
      emptyNode: {
        type: 'integer',
        description: 'Remove Node on a two-node tree (target "No edges"): the one node left; strict mode accepts it (and no other bare node) besides the literal (issue 25)',
      },
      tolerance: { type: 'number', minimum: 0 },
      bigo: { type: 'boolean', description: 'Code scenario: compat = whitespace-free containment, strict = canonical big-O equality (specs/hibench.md §3.5, §7 rec. 19)' },
      metric: { enum: ['answer-f1', 'outline-f1', 'section-set'], description: 'Paper, strict mode: the score used instead of the hit rate (specs/hibench.md §7 rec. 18)' },
    },
  },
  seed: { type: 'integer' },
  params: { type: 'object' },
  args: { type: 'object' },
});

/** The record fields every record has (the scenarios' own fields are optional). */
const REQUIRED = ['id', 'scenario', 'task', 'preset', 'representation', 'icl', 'compat', 'system', 'prompt', 'question', 'format', 'formatCot', 'exemplars', 'target', 'matcher', 'seed', 'params', 'args'];

/** Adds `part` entries to `into`; an entry already there must be the same schema. @throws Error naming both places. */
function mergeInto(into: Record<string, JsonSchema>, owner: Map<string, string>, part: Readonly<Record<string, JsonSchema>> | undefined, scenario: string, what: string): void {
  for (const [key, schema] of Object.entries(part ?? {})) {
    if (key in into) {
      if (JSON.stringify(into[key]) !== JSON.stringify(schema)) throw new Error(`record schema: ${what} '${key}' of ${scenario} differs from the one of ${owner.get(key)}`);
      continue;
    }
    if (REQUIRED.includes(key)) throw new Error(`record schema: ${scenario} redeclares the common field '${key}'`);
    into[key] = schema;
    owner.set(key, scenario);
  }
}

/**
 * The record schema of `scenarios` (JSON Schema draft 2020-12, `additionalProperties: false`): the common fields, then
 * each scenario's own fields in list order (a field several scenarios share, once); `scenario` is the list's names,
 * `representation` the union of the scenarios' representations (strings in first-seen order, then `null` when some
 * scenario has none).
 * @throws Error when two scenarios declare the same field or definition differently, a scenario redeclares a common
 *   field, or two scenarios have the same name (the list is wrong, not the input).
 */
export function recordSchema(scenarios: readonly Scenario[]): JsonSchema {
  const names = scenarios.map((s) => s.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup !== undefined) throw new Error(`record schema: two scenarios are named '${dup}'`);
  const reps = scenarios.flatMap((s) => s.record.representations);
  const representations = [...new Set(reps.filter((r): r is string => r !== null)), ...(reps.includes(null) ? [null] : [])];
  const own: Record<string, JsonSchema> = {};
  const defs: Record<string, JsonSchema> = {};
  const owners = new Map<string, string>();
  const defOwners = new Map<string, string>();
  for (const s of scenarios) {
    mergeInto(own, owners, s.record.properties, s.name, 'field');
    mergeInto(defs, defOwners, s.record.$defs, s.name, 'definition');
  }
  const schema: Record<string, Json> = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://hpt-bench.dev/schemas/hibench-record.schema.json',
    title: 'HiBench generated record',
    description:
      'One line of `hpt-bench generate hibench/<scenario>` (issue #4 item 3; specs/hibench.md): a self-describing query with its prompt, reference answer, matcher and every generator parameter.',
    type: 'object',
    required: [...REQUIRED],
    additionalProperties: false,
    properties: { ...COMMON_PROPERTIES(names, representations), ...own },
  };
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  return schema;
}

let cached: JsonSchema | undefined;

/** The record schema of the plugin's scenario list (`recordSchema(SCENARIOS)`), built once. */
export function hibenchRecordSchema(): JsonSchema {
  cached ??= recordSchema(SCENARIOS);
  return cached;
}

/**
 * Validates one record against `hibenchRecordSchema()` (the precompiled validator when the build made one for this
 * content, else compiled once at runtime: the SDK's `validatorFor`).
 * @param what names the record in the error, e.g. `data.jsonl line 3`.
 * @throws HptError `E_DATA`: `<what> is invalid: at /path: reason; ...` (at most five reasons, the SDK's wording).
 */
export function assertRecord(value: unknown, what: string): AnyHibenchRecord {
  const v = validatorFor(hibenchRecordSchema());
  if (!v(value)) throw new HptError('E_DATA', `${what} is invalid: ${formatAjvErrors(v.errors)}`);
  return value as AnyHibenchRecord;
}
