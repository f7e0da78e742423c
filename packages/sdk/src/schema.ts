import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv2020, ErrorObject, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { HptError } from './errors.js';

/**
 * Directory of the JSON Schemas shipped in this package (`packages/sdk/schemas/`): copies of the repository's
 * top-level `schemas/` (the single source of truth), made by this package's build (`scripts/copy-schemas.mjs`).
 */
export const SCHEMA_DIR = fileURLToPath(new URL('../schemas/', import.meta.url));

/**
 * The module `scripts/precompile-schemas.mjs` writes at build time (`packages/sdk/dist/schemas.precompiled.cjs`,
 * generated, never committed): ajv standalone validators of every schema that ships in the repository (schemas/*.schema.json,
 * the bundled plugins' own plugins/<name>/schemas/*.schema.json and their contribution `options` schemas), exported as
 * `{ [schemaKey(schema)]: validate }`.
 * Resolved the same from `src/` (tests) and `dist/` (the CLI).
 */
export const PRECOMPILED_SCHEMAS_FILE = fileURLToPath(new URL('../dist/schemas.precompiled.cjs', import.meta.url));

/**
 * The ajv configuration of every validator, precompiled or runtime-compiled (draft 2020-12): all errors, strict schemas
 * (but `required` may name undeclared properties), union types, plus ajv-formats. The precompile script uses it too, so
 * both paths validate and word errors identically.
 */
export const AJV_OPTIONS: Readonly<Options> = Object.freeze({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });

// ajv (~86 CommonJS modules, ~20 ms) and the precompiled module are loaded on first use only, synchronously
const requireCjs = createRequire(import.meta.url);

let ajv: Ajv2020 | undefined;
/** undefined: not looked for yet; null: no module (not built) */
let precompiled: Readonly<Record<string, ValidateFunction>> | null | undefined;
/** validators by schema name (`schemaValidator`) */
const byName = new Map<string, ValidateFunction>();
/** runtime-compiled validators by `schemaKey` */
const byKey = new Map<string, ValidateFunction>();

/**
 * A new ajv instance with `AJV_OPTIONS` (and `extra` on top, e.g. `code: { source: true }` for standalone code) and
 * ajv-formats. Loads ajv on first call. Use `getAjv()` for the shared instance.
 */
export function createAjv(extra: Options = {}): Ajv2020 {
  const { Ajv2020: AjvClass } = requireCjs('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 };
  const formats = requireCjs('ajv-formats') as { default?: (a: Ajv2020) => unknown };
  const addFormats = (formats.default ?? formats) as (a: Ajv2020) => unknown;
  const instance = new AjvClass({ ...AJV_OPTIONS, ...extra });
  addFormats(instance);
  return instance;
}

/**
 * The shared ajv instance (draft 2020-12, all errors, formats: `AJV_OPTIONS`), created on first call. Only needed to
 * compile a schema that has no precompiled validator, so a normal run never loads ajv (startup; DESIGN "schemas").
 */
export function getAjv(): Ajv2020 {
  ajv ??= createAjv();
  return ajv;
}

/**
 * The lookup key of a parsed schema: sha256 hex of `JSON.stringify(schema)`. Whitespace and formatting of a schema file
 * do not matter; any change of content (or key order) gives another key, so an edited schema never meets a stale
 * precompiled validator.
 */
export function schemaKey(schema: object): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('hex');
}

/** The precompiled validators, loaded on first call; null when the module was not built. A broken module throws. */
function precompiledValidators(): Readonly<Record<string, ValidateFunction>> | null {
  if (precompiled === undefined) {
    precompiled = existsSync(PRECOMPILED_SCHEMAS_FILE) ? (requireCjs(PRECOMPILED_SCHEMAS_FILE) as Record<string, ValidateFunction>) : null;
  }
  return precompiled;
}

/**
 * The validator of a parsed schema: the precompiled one when the build generated one for exactly this content
 * (`schemaKey`), else compiled at runtime with `getAjv()` and cached by key. Both set `.errors` the same way (ajv
 * `ErrorObject`s, same messages); precompiled ones lack ajv's `schema`/`schemaEnv` properties.
 *
 * Precompiling exists for startup: compiling with ajv costs a CLI start ~55 ms of CPU plus ~20 ms to load ajv
 * (DESIGN "schemas"); schemas that are not in the build (community plugins' options, schemas edited since the build)
 * still work, at that price.
 * @throws Error from ajv when a runtime-compiled schema is itself invalid (strict mode, meta-schema).
 */
export function validatorFor(schema: object): ValidateFunction {
  const key = schemaKey(schema);
  const pre = precompiledValidators();
  if (pre && Object.hasOwn(pre, key)) return pre[key]!;
  let v = byKey.get(key);
  if (!v) {
    v = getAjv().compile(schema);
    byKey.set(key, v);
  }
  return v;
}

/**
 * The validator of `schemas/<name>.schema.json`, looked up once per name: precompiled when the file's content matches
 * the build, else compiled at runtime (see `validatorFor`).
 * @param name e.g. `plugin-manifest`, `prompt-pack`.
 * @throws Error when the file is missing or not JSON.
 */
export function schemaValidator(name: string): ValidateFunction {
  let v = byName.get(name);
  if (!v) {
    const schema = JSON.parse(readFileSync(`${SCHEMA_DIR}${name}.schema.json`, 'utf8')) as object;
    v = validatorFor(schema);
    byName.set(name, v);
  }
  return v;
}

/**
 * Render ajv errors as short `at /path: reason` clauses, most specific first, without duplicates. For `oneOf` failures
 * only the branch errors are kept, so the message names the field that is wrong.
 */
export function formatAjvErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return 'invalid';
  const useful = errors.filter((e) => !['oneOf', 'anyOf', 'not', 'if'].includes(e.keyword));
  const list = (useful.length ? useful : errors).map((e) => {
    const where = e.instancePath || '/';
    if (e.keyword === 'additionalProperties') return `at ${where}: unknown property '${String((e.params as { additionalProperty: string }).additionalProperty)}'`;
    if (e.keyword === 'enum') return `at ${where}: ${e.message} (${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')})`;
    return `at ${where}: ${e.message ?? e.keyword}`;
  });
  return [...new Set(list)].slice(0, 5).join('; ');
}

/**
 * Validate `value` against `schemas/<name>.schema.json`.
 * @param what names the input in the error, e.g. `manifest of plugin foo`.
 * @throws HptError `code` (default `E_SCHEMA`) with `what` and the failing fields.
 */
export function assertValid<T>(name: string, value: unknown, what: string, code = 'E_SCHEMA'): T {
  const v = schemaValidator(name);
  if (!v(value)) throw new HptError(code, `${what} is invalid: ${formatAjvErrors(v.errors)}`);
  return value as T;
}

/**
 * Validate `value` against an inline JSON Schema (a contribution's declared `options`): the precompiled validator of
 * a bundled plugin's schema, else one compiled at runtime once per distinct schema content (see `validatorFor`).
 * @throws HptError `E_OPTIONS` naming `what` and the failing fields.
 */
export function assertValidAgainst<T>(schema: object, value: unknown, what: string): T {
  const v = validatorFor(schema);
  if (!v(value)) throw new HptError('E_OPTIONS', `${what} are invalid: ${formatAjvErrors(v.errors)}`);
  return value as T;
}
