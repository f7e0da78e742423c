/**
 * `@hpt-bench/sdk` as a package (DESIGN.md "Layout"): `npm pack` gives a tarball with the JavaScript, the `.d.ts`
 * types, the JSON Schemas and a README, and nothing generated for this repository only; the schemas it ships are exactly
 * the repository's top-level `schemas/` (the source of truth), and the engine reads them from the SDK.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_DIR } from '@hpt-bench/sdk';
import { ROOT } from '../helpers/cli.js';

const SDK = join(ROOT, 'packages/sdk');

describe('@hpt-bench/sdk package', () => {
  it('npm pack ships the code with its types, the schemas and the README, and no precompiled validators', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: SDK, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [pack] = JSON.parse(out) as [{ name: string; files: { path: string }[] }];
    const files = pack.files.map((f) => f.path).sort();
    expect(pack.name).toBe('@hpt-bench/sdk');
    for (const f of ['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/injection.d.ts', 'dist/contracts.d.ts']) expect(files).toContain(f);
    const schemas = readdirSync(join(ROOT, 'schemas')).filter((n) => n.endsWith('.schema.json'));
    expect(schemas.length).toBeGreaterThan(0);
    for (const s of schemas) expect(files).toContain(`schemas/${s}`);
    expect(files.filter((f) => /precompiled|\.map$|\.tsbuildinfo$|^src\//.test(f))).toEqual([]);
  });

  it('ships exactly the top-level schemas (rebuild after editing one), and the engine reads them from there', () => {
    const names = readdirSync(join(ROOT, 'schemas')).filter((n) => n.endsWith('.schema.json')).sort();
    expect(readdirSync(join(SDK, 'schemas')).sort()).toEqual(names);
    for (const n of names) expect(readFileSync(join(SDK, 'schemas', n), 'utf8'), `${n}: run npm run build`).toBe(readFileSync(join(ROOT, 'schemas', n), 'utf8'));
    // a plugin's own schemas (plugins/<name>/schemas/, e.g. the HiBench record schema) ship with the plugin, not the SDK
    const pluginSchemas = readdirSync(join(ROOT, 'plugins')).flatMap((p) => (existsSync(join(ROOT, 'plugins', p, 'schemas')) ? readdirSync(join(ROOT, 'plugins', p, 'schemas')) : []));
    expect(pluginSchemas.length).toBeGreaterThan(0);
    for (const n of pluginSchemas) expect(names).not.toContain(n);
    expect(SCHEMA_DIR.replace(/\/$/, '')).toBe(join(SDK, 'schemas'));
  });
});
