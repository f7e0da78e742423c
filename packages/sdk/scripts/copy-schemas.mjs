#!/usr/bin/env node
// Part of the SDK's build (npm run build at the root, or `npm run build` / `npm pack` in packages/sdk): copies the
// repository's JSON Schemas (schemas/*.schema.json, the single source of truth; DESIGN.md "Layout") into
// packages/sdk/schemas/, so the package ships them and the engine reads them from the SDK. The copies are generated
// (gitignored); test/sdk/sdk-package.test.ts fails when they differ from the sources.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdk = fileURLToPath(new URL('..', import.meta.url));
const from = join(sdk, '..', '..', 'schemas');
const to = join(sdk, 'schemas');
rmSync(to, { recursive: true, force: true });
mkdirSync(to, { recursive: true });
const names = readdirSync(from).filter((n) => n.endsWith('.schema.json'));
for (const n of names) copyFileSync(join(from, n), join(to, n));
console.log(`sdk: ${names.length} schemas copied to ${to}`);
