#!/usr/bin/env node
// Writes packages/sdk/dist/schemas.precompiled.cjs after `tsc -b` (part of `npm run build`): every JSON Schema that ships
// in the repository, compiled ahead of time with ajv's standalone code generation (DESIGN "schemas"). Compiling with
// ajv at runtime costs a CLI start ~55 ms of CPU (meta-schema compile, validateSchema, then each schema) plus ~20 ms to
// load ajv's ~86 CommonJS modules; with this module `hpt-bench run` never loads ajv's compiler (the generated code
// requires only ajv's small runtime helpers, e.g. ucs2length, and ajv-formats' format functions).
//
// Covered: each schemas/*.schema.json, each bundled plugin's own schemas (plugins/*/schemas/*.schema.json, e.g. the
// HiBench record schema, which the plugin's build writes before this script runs), and every contribution `options`
// schema declared in the manifests of the bundled plugins (the `hpt-bench` field of plugins/*/package.json, or the JSON
// file it names). A schema's key is the sha256
// hex of `JSON.stringify(schema)` of the parsed schema, the same key packages/sdk/src/schema.ts computes: whitespace in
// a file does not matter, and a schema edited after the build simply has no entry (it is compiled at runtime). The
// module exports `{ [key]: validate }`; the validate functions behave exactly like `getAjv().compile(schema)` (same
// options: allErrors, strict, strictRequired false, allowUnionTypes, ajv-formats) and set `.errors` the same way.
//
// The file is generated (dist/ is gitignored), so it cannot drift from the schemas as long as the build runs this script.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'packages/sdk/dist/schemas.precompiled.cjs');
// The compiled SDK (tsc -b ran first) provides the ajv configuration and the key function, so they cannot differ
// from the runtime path; ajv itself is resolved exactly as packages/sdk resolves it.
const core = join(root, 'packages/sdk/dist/schema.js');
if (!existsSync(core)) throw new Error(`precompile-schemas: ${core} is missing; run tsc -b first (npm run build)`);
const { createAjv, schemaKey } = await import(pathToFileURL(core).href);
const coreRequire = createRequire(join(root, 'packages/sdk/package.json'));
const { default: standaloneCode } = coreRequire('ajv/dist/standalone');
const { _ } = coreRequire('ajv/dist/2020.js');

/** @type {{ label: string, schema: object }[]} */
const found = [];
const schemaDir = join(root, 'schemas');
for (const f of readdirSync(schemaDir).filter((n) => n.endsWith('.schema.json')).sort()) {
  found.push({ label: `schemas/${f}`, schema: JSON.parse(readFileSync(join(schemaDir, f), 'utf8')) });
}
const pluginsDir = join(root, 'plugins');
for (const dir of readdirSync(pluginsDir).sort()) {
  const pjPath = join(pluginsDir, dir, 'package.json');
  if (!existsSync(pjPath)) continue;
  let manifest = JSON.parse(readFileSync(pjPath, 'utf8'))['hpt-bench'];
  if (manifest === undefined) continue;
  if (typeof manifest === 'string') manifest = JSON.parse(readFileSync(join(pluginsDir, dir, manifest), 'utf8'));
  const ownSchemas = join(pluginsDir, dir, 'schemas');
  if (existsSync(ownSchemas)) {
    for (const f of readdirSync(ownSchemas).filter((n) => n.endsWith('.schema.json')).sort()) {
      found.push({ label: `plugins/${dir}/schemas/${f}`, schema: JSON.parse(readFileSync(join(ownSchemas, f), 'utf8')) });
    }
  }
  for (const [kind, decls] of Object.entries(manifest.contributes ?? {})) {
    for (const decl of Array.isArray(decls) ? decls : []) {
      // a contribution's own `options` is its options schema; a dataset's `scorer.options` are option values, not a schema
      if (decl && typeof decl.options === 'object' && decl.options !== null) {
        found.push({ label: `plugins/${dir} ${kind}/${decl.id} options`, schema: decl.options });
      }
    }
  }
}

// getAjv()'s configuration (AJV_OPTIONS + ajv-formats) plus code generation. `code.formats` is how the generated code
// reaches the format functions (ajv-formats sets this very value when it is absent; spelled out to be explicit).
const ajv = createAjv({ code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` } });

/** @type {Record<string, string>} export name (key) -> ajv schema key */
const refs = {};
/** @type {Map<string, string[]>} key -> labels */
const labels = new Map();
for (const { label, schema } of found) {
  const key = schemaKey(schema);
  if (!labels.has(key)) {
    labels.set(key, []);
    try {
      ajv.addSchema(schema, key);
      if (!ajv.getSchema(key)) throw new Error('not compiled');
    } catch (e) {
      throw new Error(`precompile-schemas: ${label}: ${e.message}`);
    }
    refs[key] = key;
  }
  labels.get(key).push(label);
}
const validators = standaloneCode(ajv, refs);

const list = [...labels].map(([key, ls]) => `//   ${key}  ${ls.join(', ')}`).join('\n');
// The generated code requires ajv's small runtime helpers (e.g. ajv/dist/runtime/ucs2length for minLength) and, for
// `format`, ajv-formats/dist/formats: single files, resolved from packages/core/dist like core's own imports. ajv's
// compiler is never loaded.
const code = `// Generated by scripts/precompile-schemas.mjs (npm run build). Do not edit: dist/ is rebuilt, never committed.
// ajv ${coreRequire('ajv/package.json').version} standalone validators of ${labels.size} JSON Schemas, keyed by sha256(JSON.stringify(schema)):
${list}
${validators}
`;
rmSync(out, { force: true });
writeFileSync(out, code);

// sanity check: the module loads on its own and exports one function per schema
const loaded = createRequire(import.meta.url)(out);
const keys = Object.keys(loaded);
if (keys.length !== labels.size || keys.some((k) => typeof loaded[k] !== 'function' || !labels.has(k))) {
  throw new Error(`precompile-schemas: ${out} exports ${keys.length} validators, expected ${labels.size}`);
}
process.stdout.write(`schemas.precompiled.cjs: ${labels.size} schemas (${found.length} declared, ${(Buffer.byteLength(code) / 1024).toFixed(0)} KiB)\n`);
