/**
 * The SDK's TypeScript types are checked against the JSON Schemas they describe (schemas/ is the source of truth): for
 * each pair, the schema's properties and the type's properties are the same names, and a property is required in the
 * schema exactly when it is not optional in the type. The types are read with the TypeScript compiler from the SDK's
 * sources (packages/sdk/src), as a plugin author's editor sees them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

type SchemaObject = { properties?: Record<string, unknown>; required?: string[]; items?: SchemaObject; $defs?: Record<string, SchemaObject> };
const schema = (name: string) => JSON.parse(readFileSync(join(ROOT, 'schemas', `${name}.schema.json`), 'utf8')) as SchemaObject;

const entry = join(ROOT, 'packages/sdk/src/index.ts');
const program = ts.createProgram([entry], { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, experimentalDecorators: true, skipLibCheck: true, types: ['node'] });
const checker = program.getTypeChecker();
const exported = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!).map((s) => [s.name, s]));

/** Property names of an exported SDK type (or of one of its properties' types, by path), each with whether it is optional. */
function typeShape(name: string, ...path: string[]): Map<string, boolean> {
  const sym = exported.get(name);
  if (!sym) throw new Error(`@hpt-bench/sdk exports no ${name}`);
  let type = checker.getDeclaredTypeOfSymbol(sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym);
  for (const p of path) {
    const prop = type.getProperty(p);
    if (!prop) throw new Error(`${name} has no property ${p}`);
    type = checker.getNonNullableType(checker.getTypeOfSymbol(prop));
    if (checker.isArrayType(type)) type = checker.getTypeArguments(type as ts.TypeReference)[0]!;
  }
  return new Map(checker.getPropertiesOfType(type).map((p) => [p.name, (p.flags & ts.SymbolFlags.Optional) !== 0]));
}

/** Property names of a schema object, each with whether it is optional (not in `required`). */
function schemaShape(s: SchemaObject): Map<string, boolean> {
  const required = new Set(s.required ?? []);
  return new Map(Object.keys(s.properties ?? {}).filter((k) => k !== '$schema').map((k) => [k, !required.has(k)]));
}

const sorted = (m: Map<string, boolean>) => [...m].sort(([a], [b]) => a.localeCompare(b)).map(([k, optional]) => `${k}${optional ? '?' : ''}`);

const manifest = schema('plugin-manifest');
const defs = manifest.$defs!;
const PAIRS: [what: string, schema: SchemaObject, type: () => Map<string, boolean>][] = [
  ['run summary (RunSummary)', schema('run-summary'), () => typeShape('RunSummary')],
  ['--out record (SampleRecord)', schema('sample-record'), () => typeShape('SampleRecord')],
  ['--out attempt (AttemptRecord)', schema('sample-record').properties!.attempts as SchemaObject, () => typeShape('AttemptRecord')].map((x, i) => (i === 1 ? (x as SchemaObject).items! : x)) as [string, SchemaObject, () => Map<string, boolean>],
  ['manifest (PluginManifest)', manifest, () => typeShape('PluginManifest')],
  ['manifest contributes', manifest.properties!.contributes as SchemaObject, () => typeShape('PluginManifest', 'contributes')],
  ['dataset (DatasetDecl)', defs.dataset!, () => typeShape('DatasetDecl')],
  ['strategy (StrategyDecl)', defs.strategy!, () => typeShape('StrategyDecl')],
  ['ladder (LadderDecl)', defs.ladder!, () => typeShape('LadderDecl')],
  ['code contribution (CodeDecl)', defs.codeContribution!, () => typeShape('CodeDecl')],
  ['scorer (ScorerDecl)', defs.scorer!, () => typeShape('ScorerDecl')],
  // the manifest's entry has no id: the registry gives each pack contribution its dataset's id
  ['pack (PackDecl without id)', defs.pack!, () => new Map([...typeShape('PackDecl')].filter(([k]) => k !== 'id'))],
  ['report view (ReportViewDecl)', defs.reportView!, () => typeShape('ReportViewDecl')],
];

describe('SDK types match the JSON Schemas', () => {
  it('the comparison can fail: a schema with one property more, or one more required, differs', () => {
    const t = typeShape('LadderDecl');
    const s = schemaShape(defs.ladder!);
    expect(sorted(t)).toEqual(sorted(s));
    expect(sorted(schemaShape({ ...defs.ladder!, properties: { ...defs.ladder!.properties, extra: {} } }))).not.toEqual(sorted(t));
    expect(sorted(schemaShape({ ...defs.ladder!, required: [...(defs.ladder!.required ?? []), 'description'] }))).not.toEqual(sorted(t));
  });

  it.each(PAIRS)('%s', (_what, s, type) => {
    expect(sorted(type()).join(' ')).toBe(sorted(schemaShape(s)).join(' '));
  });
});
