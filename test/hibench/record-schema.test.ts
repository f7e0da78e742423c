/**
 * The HiBench record schema belongs to the plugin (issue 26, item 3): assembled from the common fields and the listed
 * scenarios' parts (plugins/hibench/src/record-schema.ts), written by the build to
 * plugins/hibench/schemas/hibench-record.schema.json (shipped with the plugin, precompiled with the repository's
 * schemas), and matching the plugin's `HibenchRecord` type. The plugin validates `--data` records against it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { isHptError, PRECOMPILED_SCHEMAS_FILE, schemaKey, validatorFor, type Json } from '@hpt-bench/sdk';
import { assertRecord, hibenchRecordSchema, RECORD_SCHEMA_FILE_NAME, recordSchema } from '../../plugins/hibench/src/record-schema.js';
import { SCENARIOS } from '../../plugins/hibench/src/scenarios.js';
import type { Scenario } from '../../plugins/hibench/src/scenario.js';
import { generateJson } from '../../plugins/hibench/src/json/index.js';
import { ROOT } from '../helpers/cli.js';

type Schema = { properties: Record<string, { enum?: Json[] } & Record<string, Json>>; required: string[]; $defs?: Record<string, Json> };
const schema = hibenchRecordSchema() as unknown as Schema;
const BUILT = join(ROOT, 'plugins/hibench/schemas', RECORD_SCHEMA_FILE_NAME);

/** Property names of the plugin's `HibenchRecord` type, each with whether it is optional (read with the TypeScript compiler). */
function recordTypeShape(): Map<string, boolean> {
  const entry = join(ROOT, 'plugins/hibench/src/types.ts');
  const program = ts.createProgram([entry], { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, skipLibCheck: true, types: ['node'] });
  const checker = program.getTypeChecker();
  const sym = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!).find((s) => s.name === 'HibenchRecord')!;
  const type = checker.getDeclaredTypeOfSymbol(sym);
  return new Map(checker.getPropertiesOfType(type).map((p) => [p.name, (p.flags & ts.SymbolFlags.Optional) !== 0]));
}

/** A minimal scenario for `recordSchema`: only `name` and `record` are read. */
const part = (name: string, record: Scenario['record']): Scenario => ({ name, record }) as unknown as Scenario;

describe('the HiBench record schema (plugins/hibench)', () => {
  it('is the common fields plus the scenarios\' parts: scenario = the list, representation = their union, their fields', () => {
    expect(schema.properties.scenario!.enum).toEqual(SCENARIOS.map((s) => s.name));
    expect(schema.properties.representation!.enum).toEqual(['edge', 'hierarchy', 'structured', 'plain', null]);
    const own = [...new Set(SCENARIOS.flatMap((s) => Object.keys(s.record.properties ?? {})))];
    expect(Object.keys(schema.properties)).toEqual([...schema.required, ...own]);
    expect(own.sort()).toEqual(['code', 'document', 'formula', 'language', 'semantics', 'structure', 'structure2']);
    expect(schema.$defs && Object.keys(schema.$defs)).toEqual(['tree']);
    expect((schema as unknown as { additionalProperties: boolean }).additionalProperties).toBe(false);
  });

  it("matches the plugin's HibenchRecord type: the same fields, required exactly when not optional", () => {
    const type = recordTypeShape();
    const fromSchema = new Map(Object.keys(schema.properties).map((k) => [k, !schema.required.includes(k)]));
    const show = (m: Map<string, boolean>) => [...m].map(([k, opt]) => `${k}${opt ? '?' : ''}`).sort();
    expect(show(type)).toEqual(show(fromSchema));
    expect(show(new Map([...fromSchema, ['extra', true]]))).not.toEqual(show(type)); // the comparison can fail
  });

  it('refuses a list whose parts disagree: a field or definition declared twice differently, a common field, a name twice', () => {
    const a = part('a', { representations: [null], properties: { x: { type: 'string' } }, $defs: { d: { type: 'object' } } });
    expect(() => recordSchema([a, part('b', { representations: [null], properties: { x: { type: 'integer' } } })])).toThrow("record schema: field 'x' of b differs from the one of a");
    expect(() => recordSchema([a, part('b', { representations: [null], $defs: { d: { type: 'array' } } })])).toThrow("record schema: definition 'd' of b differs from the one of a");
    expect(() => recordSchema([part('b', { representations: [null], properties: { task: { type: 'integer' } } })])).toThrow("record schema: b redeclares the common field 'task'");
    expect(() => recordSchema([a, a])).toThrow("record schema: two scenarios are named 'a'");
    // the same field twice, the same way, is declared once, at its first place
    const s = recordSchema([a, part('b', { representations: ['r', null], properties: { y: { type: 'number' }, x: { type: 'string' } } })]) as unknown as Schema;
    expect(Object.keys(s.properties).slice(-2)).toEqual(['x', 'y']);
    expect(s.properties.representation!.enum).toEqual(['r', null]);
    expect(s.properties.scenario!.enum).toEqual(['a', 'b']);
  });

  it('validates records: E_DATA naming the record and the failing fields, as the SDK words schema errors', () => {
    const [r] = generateJson({ seed: 1, compat: 'strict', filter: { presets: ['small'], tasks: ['child_count'], icl: ['zero'] } });
    expect(assertRecord(r, 'x')).toBe(r);
    const err = (value: unknown) => {
      try {
        assertRecord(value, 'data.jsonl line 3');
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const unknown = err({ ...r, scenario: 'nope' });
    expect(isHptError(unknown) && unknown.code).toBe('E_DATA');
    expect((unknown as Error).message).toBe(`data.jsonl line 3 is invalid: at /scenario: must be equal to one of the allowed values (${SCENARIOS.map((s) => s.name).join(', ')})`);
    expect((err({ ...r, icl: 'two', extra: 1 }) as Error).message).toBe(
      "data.jsonl line 3 is invalid: at /: unknown property 'extra'; at /icl: must be equal to one of the allowed values (zero, one, few)",
    );
  });

  it('the build writes it to plugins/hibench/schemas/ (the package ships that folder) and precompiles it', () => {
    expect(existsSync(BUILT), `${BUILT} is missing: run npm run build`).toBe(true);
    expect(readFileSync(BUILT, 'utf8'), 'the built schema differs from the scenario list: run npm run build').toBe(`${JSON.stringify(schema, null, 2)}\n`);
    const pj = JSON.parse(readFileSync(join(ROOT, 'plugins/hibench/package.json'), 'utf8')) as { files: string[] };
    expect(pj.files).toContain('schemas');
    expect(existsSync(join(ROOT, 'schemas', RECORD_SCHEMA_FILE_NAME))).toBe(false);
    const precompiled = createRequire(import.meta.url)(PRECOMPILED_SCHEMAS_FILE) as Record<string, unknown>;
    expect(validatorFor(schema)).toBe(precompiled[schemaKey(schema)]);
  });

  it("validates with the precompiled validator: the built plugin checks a record without loading ajv's compiler", () => {
    const script = `
      import { createRequire } from 'node:module';
      const { assertRecord, generateJson } = await import(${JSON.stringify(join(ROOT, 'plugins/hibench/dist/index.js'))});
      const [r] = generateJson({ seed: 1, compat: 'strict', filter: { presets: ['small'], tasks: ['child_count'], icl: ['zero'] } });
      assertRecord(r, 'r');
      let threw = '';
      try { assertRecord({ ...r, seed: 'x' }, 'r'); } catch (e) { threw = e.message; }
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => /node_modules[\\\\/]ajv[\\\\/]dist[\\\\/](core|2020|compile)/.test(k));
      process.stdout.write(JSON.stringify({ loaded, threw }));
    `;
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({ loaded: [], threw: 'r is invalid: at /seed: must be integer' });
  });
});
