import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { HptError } from './errors.js';

/** Directory of the JSON Schemas (the repository's `schemas/`), the single source of truth for declared shapes. */
export const SCHEMA_DIR = fileURLToPath(new URL('../../../schemas/', import.meta.url));

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

/** The shared ajv instance (draft 2020-12, all errors, formats). */
export function getAjv(): Ajv2020 {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats(ajv);
  }
  return ajv;
}

/**
 * The validator of `schemas/<name>.schema.json`, compiled once.
 * @param name e.g. `plugin-manifest`, `prompt-pack`.
 */
export function schemaValidator(name: string): ValidateFunction {
  let v = compiled.get(name);
  if (!v) {
    const schema = JSON.parse(readFileSync(`${SCHEMA_DIR}${name}.schema.json`, 'utf8')) as object;
    v = getAjv().compile(schema);
    compiled.set(name, v);
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
 * Validate `value` against an inline JSON Schema (a contribution's declared `options`).
 * @throws HptError `E_OPTIONS` naming `what` and the failing fields.
 */
export function assertValidAgainst<T>(schema: object, value: unknown, what: string): T {
  const v = getAjv().compile(schema);
  if (!v(value)) throw new HptError('E_OPTIONS', `${what} are invalid: ${formatAjvErrors(v.errors)}`);
  return value as T;
}
