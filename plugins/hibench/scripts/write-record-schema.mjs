#!/usr/bin/env node
// Part of the build (npm run build at the root, after tsc -b; or `npm run build` / `npm pack` in plugins/hibench):
// writes the HiBench record schema, assembled by the compiled plugin from its scenario list (dist/record-schema.js
// `hibenchRecordSchema()`: the common fields plus each scenario folder's part), to plugins/hibench/schemas/
// hibench-record.schema.json. The package ships that file; scripts/precompile-schemas.mjs precompiles it (same content,
// same key as the schema the plugin validates with at runtime). The file is generated (gitignored);
// test/hibench/record-schema.test.ts fails when it differs from the assembled schema (run the build again).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const plugin = fileURLToPath(new URL('..', import.meta.url));
const { hibenchRecordSchema, RECORD_SCHEMA_FILE_NAME } = await import(pathToFileURL(join(plugin, 'dist/record-schema.js')).href);
const dir = join(plugin, 'schemas');
mkdirSync(dir, { recursive: true });
const file = join(dir, RECORD_SCHEMA_FILE_NAME);
writeFileSync(file, `${JSON.stringify(hibenchRecordSchema(), null, 2)}\n`);
console.log(`hibench: record schema written to ${file}`);
