/**
 * The build-time ajv standalone validators (scripts/precompile-schemas.mjs -> packages/sdk/dist/schemas.precompiled.cjs)
 * against validators compiled at runtime from the same schemas: same verdict, same ajv errors, same formatAjvErrors
 * message, on real inputs (the repository's plugin manifests, prompt packs, CLI run summaries, --out records, generated
 * HiBench records) and mutated copies of them. Also: lookups by content (a schema not in the build is compiled at runtime
 * and cached; an edited schema never meets a stale validator) and that precompiled lookups leave ajv unloaded.
 *
 * Assumes `npm run build` and the script ran (as in CI); a missing module fails the suite, it does not skip.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import {
  AJV_OPTIONS,
  assertValidAgainst,
  createAjv,
  formatAjvErrors,
  isHptError,
  PRECOMPILED_SCHEMAS_FILE,
  schemaKey,
  schemaValidator,
  validatorFor,
} from '@hpt-bench/core';
import { ROOT, runCli } from '../helpers/cli.js';
import { parse as parseYaml } from 'yaml';
import { exampleEvalFile } from '../../packages/cli/src/commands/init.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Json;

/** Every schema the script must cover, collected independently of it: label -> parsed schema. */
function shippedSchemas(): Map<string, object> {
  const out = new Map<string, object>();
  for (const f of readdirSync(join(ROOT, 'schemas')).filter((n) => n.endsWith('.schema.json')).sort()) out.set(f.replace('.schema.json', ''), readJson(join(ROOT, 'schemas', f)) as object);
  for (const [dir, manifest] of pluginManifests('plugins')) {
    // a bundled plugin's own schemas (its build writes them, e.g. plugins/hibench/schemas/hibench-record.schema.json)
    const own = join(ROOT, dir, 'schemas');
    if (existsSync(own)) for (const f of readdirSync(own).filter((n) => n.endsWith('.schema.json')).sort()) out.set(`${dir}/schemas/${f.replace('.schema.json', '')}`, readJson(join(own, f)) as object);
    for (const [kind, decls] of Object.entries((manifest as { contributes: Record<string, { id: string; options?: object }[]> }).contributes)) {
      for (const d of decls) if (d.options) out.set(`${dir} ${kind}/${d.id} options`, d.options);
    }
  }
  return out;
}

/** The `hpt-bench` manifests of the packages under `base` (plugins/ or test/fixtures/): dir -> manifest. */
function pluginManifests(base: string): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const dir of readdirSync(join(ROOT, base)).sort()) {
    const pj = join(ROOT, base, dir, 'package.json');
    if (!existsSync(pj)) continue;
    let m = (readJson(pj) as Record<string, Json>)['hpt-bench'];
    if (m === undefined) continue;
    if (typeof m === 'string') m = readJson(join(ROOT, base, dir, m));
    out.set(`${base}/${dir}`, m);
  }
  return out;
}

const jsonFiles = (dir: string) => readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.json')).sort().map((f) => readJson(join(ROOT, dir, f)));
const jsonLines = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as Json);

/**
 * Mutated copies of a valid value, each labelled by its path: at every object and array position (first two items of
 * arrays), delete the property, give it a wrong type, an empty string, a negative or fractional number, and add an
 * unknown property to every object. Most are invalid; the comparison does not care which.
 */
function mutations(value: Json): [string, Json][] {
  const out: [string, Json][] = [['null', null], ['array', []], ['string', 'x'], ['empty object', {}]];
  const at = (path: (string | number)[], f: (parent: Record<string | number, Json>, key: string | number) => void): Json => {
    const copy = structuredClone(value);
    let parent = copy as Record<string | number, Json>;
    for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, Json>;
    f(parent, path[path.length - 1]!);
    return copy;
  };
  const wrong = (v: Json): Json[] => {
    if (typeof v === 'string') return [42, ''];
    if (typeof v === 'number') return ['7', -1, 1.5];
    if (typeof v === 'boolean') return ['true'];
    if (v === null) return [{}];
    return Array.isArray(v) ? [{}] : ['x'];
  };
  const walk = (v: Json, path: (string | number)[]) => {
    if (path.length > 6) return;
    if (Array.isArray(v)) {
      v.slice(0, 2).forEach((x, i) => {
        for (const w of wrong(x)) out.push([`/${[...path, i].join('/')} = ${JSON.stringify(w)}`, at([...path, i], (p, k) => (p[k] = w))]);
        walk(x, [...path, i]);
      });
    } else if (v && typeof v === 'object') {
      out.push([`/${path.join('/')} + unknown`, path.length ? at([...path, '__unknown'], (p, k) => (p[k] = 1)) : { ...v, __unknown: 1 }]);
      for (const [k, x] of Object.entries(v)) {
        out.push([`/${[...path, k].join('/')} deleted`, at([...path, k], (p, key) => delete p[key])]);
        for (const w of wrong(x)) out.push([`/${[...path, k].join('/')} = ${JSON.stringify(w)}`, at([...path, k], (p, key) => (p[key] = w))]);
        walk(x, [...path, k]);
      }
    }
  };
  walk(value, []);
  return out;
}

let precompiled: Record<string, ValidateFunction>;
const schemas = shippedSchemas();
/** real, valid inputs per schema label */
const valid = new Map<string, Json[]>();
/** extra hand-written (mostly invalid) inputs per schema label */
const extra = new Map<string, Json[]>();

beforeAll(async () => {
  if (!existsSync(PRECOMPILED_SCHEMAS_FILE)) {
    throw new Error(`${PRECOMPILED_SCHEMAS_FILE} is missing: run \`npm run build\` and \`node scripts/precompile-schemas.mjs\` before this test`);
  }
  precompiled = createRequire(import.meta.url)(PRECOMPILED_SCHEMAS_FILE) as Record<string, ValidateFunction>;

  // real outputs of the built CLI: a manual and an adaptive run (summaries, --out records), generated HiBench records
  const dir = mkdtempSync(join(tmpdir(), 'hpt-precompiled-'));
  const prices = join(dir, 'prices.json');
  writeFileSync(prices, JSON.stringify({ 'baseline:random': { input: 0.15, output: 0.6 } }));
  const run = (name: string, more: string[]) =>
    runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--limit', '3', '--model', 'baseline:random', '--no-cache', '--json', '--store', join(dir, `${name}.db`), '--out', join(dir, `${name}.jsonl`), '--prices', prices, ...more]);
  const gen = (scenario: string) => runCli(['generate', `hibench/${scenario}`, '--limit', '2', '--out', '-']);
  const results = await Promise.all([run('manual', []), run('adaptive', ['--mode', 'adaptive', '--selector', 'fixed:2']), ...['binary-tree', 'multiple-tree', 'json', 'formula'].map(gen)]);
  for (const r of results) expect(r.code, r.stderr).toBe(0);
  const [manual, adaptive, ...generated] = results;
  valid.set('run-summary', [JSON.parse(manual!.stdout) as Json, JSON.parse(adaptive!.stdout) as Json]);
  valid.set('sample-record', [...jsonLines(readFileSync(join(dir, 'manual.jsonl'), 'utf8')).slice(0, 2), ...jsonLines(readFileSync(join(dir, 'adaptive.jsonl'), 'utf8')).slice(0, 1)]);
  valid.set('plugins/hibench/schemas/hibench-record', generated.flatMap((g) => jsonLines(g.stdout)));
  valid.set('plugin-manifest', [...pluginManifests('plugins').values(), ...pluginManifests('test/fixtures').values()]);
  valid.set('prompt-pack', [...jsonFiles('plugins/hpt-datasets/packs'), ...jsonFiles('plugins/hpf-strategies/packs'), ...jsonFiles('test/fixtures/sixth-level-plugin/packs')]);
  valid.set('prices', [readJson(prices), { 'openai:gpt-4o-mini': { input: 0.15, output: 0.6 }, 'openai:gpt-4o': { input: 2.5, output: 10 } }]);
  valid.set('plugins/openai models/openai options', [{}, { baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', timeoutMs: 30000, maxRetries: 0 }, { baseUrl: 'http://127.0.0.1:8080/v1' }]);
  valid.set('plugins/hpf-strategies strategies/generated-knowledge options', [{}, { candidates: 3 }, { candidates: 16 }]);
  extra.set('plugins/openai models/openai options', [{ baseUrl: 'not a uri' }, { baseUrl: 'http://exa mple.com/v1' }, { baseUrl: '/v1/chat' }, { baseUrl: 'https://ok.example/v1', apiKeyEnv: '1KEY' }]);
  extra.set('plugins/hpf-strategies strategies/generated-knowledge options', [{ candidates: 0 }, { candidates: 17 }]);
  extra.set('prices', [{}, { m: { input: -1, output: 0 } }]);
  // the example `hpt-bench init` writes, and one with every field
  const full = {
    datasets: [{ id: 'boolq', name: 'boolq-a', data: 'a.jsonl', split: 'validation', limit: 5, filters: { task: ['calculate'], preset: 'small' }, threshold: 0.15, hpiDataset: 1.5 }],
    models: [{ id: 'openai:llama3', name: 'llama3', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'MY_KEY', knowledgeModel: 'openai:gpt-4o', generation: { temperature: 0.6, topP: 0.9, maxTokens: 64 }, concurrency: 8, timeout: 30 }],
    mode: 'adaptive', selector: 'fixed:2', selectorBaseUrl: 'http://127.0.0.1:8001/v1', ladder: 'hpf', compat: 'reference', seed: 3, replicates: 2, limit: 10, concurrency: 4,
    generation: { maxTokens: 128 }, apiKeyEnv: 'OPENAI_API_KEY', baseUrl: 'http://127.0.0.1:8000/v1', timeout: 600, maxRetries: 0, cache: false, onInvalid: 'skip', prices: 'prices.json', store: 's.db', out: 'r/{model}-{dataset}.jsonl',
  };
  valid.set('eval-config', [parseYaml(exampleEvalFile({ mini: ['first', 'second'], generated: { id: 'gen', filter: 'task', value: 'one' } })) as Json, full]);
  extra.set('eval-config', [{ datasets: [], models: [{ id: 'm' }] }, { datasets: [{ id: 'd', filters: { task: [] } }], models: [{ id: 'm', apiKeyEnv: 'sk-123', concurrency: 0 }] }]);
  const manifest = pluginManifests('plugins').get('plugins/hpf-strategies') as { contributes: { strategies: Record<string, Json>[] } };
  const both = structuredClone(manifest);
  both.contributes.strategies[3]!.kind = 'single-call'; // module + export + kind: the strategy oneOf fails
  extra.set('plugin-manifest', [both, { apiVersion: 2, contributes: { scorers: [{ id: 'Bad Id', module: 'dist/x.js', export: '' }] } }]);
}, 120_000);

/** Validate with both, return the differences as readable strings (none expected). */
function compare(label: string, pre: ValidateFunction, fresh: ValidateFunction, inputs: [string, Json][]): { diffs: string[]; invalid: number; keywords: Set<string> } {
  const diffs: string[] = [];
  const keywords = new Set<string>();
  let invalid = 0;
  for (const [what, input] of inputs) {
    const a = pre(input);
    const b = fresh(input);
    const ma = a ? '' : formatAjvErrors(pre.errors);
    const mb = b ? '' : formatAjvErrors(fresh.errors);
    if (a !== b || ma !== mb || JSON.stringify(a ? null : pre.errors) !== JSON.stringify(b ? null : fresh.errors)) {
      diffs.push(`${label} ${what}: precompiled ${a} "${ma}" vs runtime ${b} "${mb}"`);
    }
    if (!b) {
      invalid++;
      for (const e of fresh.errors ?? []) keywords.add(e.keyword);
    }
  }
  return { diffs, invalid, keywords };
}

describe('precompiled schemas (scripts/precompile-schemas.mjs)', () => {
  it('covers exactly the shipped schemas, keyed by sha256 of JSON.stringify(schema)', () => {
    expect(schemas.size).toBeGreaterThanOrEqual(8);
    const want = [...schemas.values()].map(schemaKey).sort();
    const stale = [...schemas].filter(([, s]) => !Object.hasOwn(precompiled, schemaKey(s))).map(([l]) => l);
    expect(stale, `no precompiled validator (schema edited since the build? rerun the build): ${stale.join(', ')}`).toEqual([]);
    expect(Object.keys(precompiled).sort()).toEqual(want);
    expect(Object.values(precompiled).every((v) => typeof v === 'function')).toBe(true);
    expect(schemaKey({ a: 1 })).toBe('015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862'); // sha256('{"a":1}')
  });

  it('uses the ajv configuration of getAjv()', () => {
    expect(AJV_OPTIONS).toEqual({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  });

  it('gives the verdicts, errors and messages of runtime-compiled validators, on real inputs and mutated copies', () => {
    const all: string[] = [];
    for (const [label, schema] of schemas) {
      const inputs = valid.get(label);
      expect(inputs?.length, `no real inputs for ${label}`).toBeGreaterThan(0);
      const pre = precompiled[schemaKey(schema)]!;
      const fresh = createAjv().compile(schema); // a new instance per schema: nothing shared with the code under test
      for (const v of inputs!) expect(fresh(v), `${label}: ${formatAjvErrors(fresh.errors)}`).toBe(true);
      const cases: [string, Json][] = [...inputs!.map((v, i): [string, Json] => [`real #${i}`, v]), ...(extra.get(label) ?? []).map((v, i): [string, Json] => [`extra #${i}`, v]), ...inputs!.flatMap(mutations)];
      const { diffs, invalid, keywords } = compare(label, pre, fresh, cases);
      all.push(...diffs);
      expect(invalid, label).toBeGreaterThan(3);
      // the mutations reach the usual failures of an object schema
      for (const k of ['type', 'additionalProperties']) expect(keywords, `${label} ${k}`).toContain(k);
      if (label !== 'prices' && !label.endsWith(' options')) expect(keywords, label).toContain('required');
      if (label === 'plugins/openai models/openai options') for (const k of ['format', 'pattern', 'minimum']) expect(keywords).toContain(k);
      if (label === 'plugin-manifest') for (const k of ['oneOf', 'pattern', 'minLength', 'const']) expect(keywords).toContain(k);
    }
    expect(all).toEqual([]);
  });

  it('words a bad openai baseUrl the same way as ajv at runtime', () => {
    const schema = schemas.get('plugins/openai models/openai options')!;
    const what = "options of model 'openai' (plugin @hpt-bench/openai)";
    expect(validatorFor(schema)).toBe(precompiled[schemaKey(schema)]);
    const err = (() => {
      try {
        assertValidAgainst(schema, { baseUrl: 'not a uri', extra: 1 }, what);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isHptError(err) && err.code).toBe('E_OPTIONS');
    expect((err as Error).message).toBe(`${what} are invalid: at /: unknown property 'extra'; at /baseUrl: must match format "uri"`);
    expect(assertValidAgainst(schema, { baseUrl: 'https://api.openai.com/v1' }, what)).toEqual({ baseUrl: 'https://api.openai.com/v1' });
  });

  it('serves schemas/<name>.schema.json from the build', () => {
    for (const name of ['plugin-manifest', 'prompt-pack', 'prices', 'run-summary', 'sample-record', 'eval-config']) {
      expect(schemaValidator(name), name).toBe(precompiled[schemaKey(schemas.get(name)!)]);
    }
  });

  it('compiles a schema that is not in the build at runtime, once per content', () => {
    const schema = { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string', minLength: 2 }, homepage: { type: 'string', format: 'uri' } } };
    expect(Object.hasOwn(precompiled, schemaKey(schema))).toBe(false);
    const v = validatorFor(schema);
    expect(Object.values(precompiled)).not.toContain(v);
    expect(validatorFor(structuredClone(schema))).toBe(v); // cached by key, not by object
    expect(assertValidAgainst(schema, { name: 'ok', homepage: 'https://example.com' }, 'options of x')).toEqual({ name: 'ok', homepage: 'https://example.com' });
    expect(() => assertValidAgainst(schema, { name: 'a', homepage: 'nope', more: 1 }, 'options of x')).toThrow(
      `options of x are invalid: at /: unknown property 'more'; at /name: must NOT have fewer than 2 characters; at /homepage: must match format "uri"`,
    );
    expect(() => assertValidAgainst({}, {}, 'x')).not.toThrow();
    // a community schema with an $id, passed as two equal objects: compiled once (ajv alone would reject the second $id)
    const withId = { $id: 'https://example.com/community-options.json', type: 'object', properties: { n: { type: 'integer' } } };
    expect(() => assertValidAgainst(withId, { n: 1 }, 'a')).not.toThrow();
    expect(() => assertValidAgainst(structuredClone(withId), { n: 'one' }, 'b')).toThrow('b are invalid: at /n: must be integer');
  });

  it('never serves a changed schema with a stale precompiled validator', () => {
    const original = schemas.get('plugins/openai models/openai options') as { required?: string[] };
    const changed = { ...structuredClone(original), required: ['baseUrl'] };
    const stale = precompiled[schemaKey(original)]!;
    expect(stale({})).toBe(true);
    expect(validatorFor(changed)).not.toBe(stale);
    expect(() => assertValidAgainst(changed, {}, 'options')).toThrow("options are invalid: at /: must have required property 'baseUrl'");

    const pack = schemas.get('prompt-pack') as { required: string[] };
    const packChanged = { ...structuredClone(pack), required: [...pack.required, 'source'] };
    const noSource = structuredClone(valid.get('prompt-pack')![0]) as Record<string, Json>;
    delete noSource.source;
    expect(precompiled[schemaKey(pack)]!(noSource)).toBe(true);
    expect(validatorFor(packChanged)).not.toBe(precompiled[schemaKey(pack)]);
    expect(() => assertValidAgainst(packChanged, noSource, 'pack')).toThrow("pack are invalid: at /: must have required property 'source'");
    // whitespace and formatting of the file do not matter, only content
    expect(schemaKey(JSON.parse(JSON.stringify(pack, null, 4)) as object)).toBe(schemaKey(pack));
  });

  it("leaves ajv's compiler unloaded when every schema is precompiled (built core, as the CLI uses it)", () => {
    const script = `
      import { createRequire } from 'node:module';
      import { readFileSync } from 'node:fs';
      await import('reflect-metadata');
      const core = await import(${JSON.stringify(join(ROOT, 'packages/core/dist/index.js'))});
      for (const n of ['plugin-manifest', 'prompt-pack', 'prices', 'run-summary', 'sample-record', 'eval-config']) core.schemaValidator(n);
      const openai = JSON.parse(readFileSync(${JSON.stringify(join(ROOT, 'plugins/openai/package.json'))}, 'utf8'))['hpt-bench'].contributes.models[0].options;
      core.assertValidAgainst(openai, { baseUrl: 'https://example.com/v1' }, 'options');
      let threw = false;
      try { core.assertValid('prompt-pack', { id: 'x' }, 'pack'); } catch (e) { threw = e.message; }
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => /node_modules[\\\\/]ajv[\\\\/]dist[\\\\/](core|2020|compile)/.test(k));
      process.stdout.write(JSON.stringify({ loaded, threw }));
      const before = loaded.length;
      core.assertValidAgainst({ type: 'object', properties: { q: { type: 'string' } } }, {}, 'x');
      process.stdout.write('\\n' + (Object.keys(createRequire(import.meta.url).cache).filter((k) => /node_modules[\\\\/]ajv[\\\\/]dist[\\\\/](core|2020|compile)/.test(k)).length > before));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const [first, second] = r.stdout.split('\n');
    expect(JSON.parse(first!)).toEqual({ loaded: [], threw: "pack is invalid: at /: must have required property 'cue'; at /: must have required property 'strategies'" });
    expect(second).toBe('true'); // a schema outside the build loads ajv on demand
  });
});
