/**
 * Options reach code contributions by injection (`Tokens.Options`): a ladder's per-level options reach its strategies
 * (validated against each strategy's declared schema), and a dataset's scorer options reach its scorer (validated when
 * the scorer declares a schema, else passed as they are, as through `prepare()`). Real plugin directories on disk,
 * real discovery and construction.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunContainer, discoverPlugins, HptError, instantiate, resolveLadder, type Registry } from '@hpt-bench/core';

const dir = mkdtempSync(join(tmpdir(), 'hpt-injected-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SDK = join(process.cwd(), 'packages/sdk/dist/index.js');
writeFileSync(
  join(dir, 'classes.js'),
  `import { Tokens } from ${JSON.stringify(SDK)};
export class Styled { static inject = [Tokens.Options]; constructor(o) { this.options = o; this.id = 'styled'; } async run() { throw new Error('not run'); } }
export class Tagged { static inject = [Tokens.Options]; constructor(o) { this.options = o; this.id = 'tagged'; } score() { return { solved: false, score: 0 }; } }
`,
);
writeFileSync(
  join(dir, 'package.json'),
  JSON.stringify({
    name: 'hpt-bench-plugin-options-fixture',
    version: '1.0.0',
    type: 'module',
    'hpt-bench': {
      apiVersion: 1,
      contributes: {
        strategies: [{ id: 'styled', module: './classes.js', export: 'Styled', options: { type: 'object', additionalProperties: false, properties: { style: { enum: ['terse', 'verbose'] } } } }],
        scorers: [{ id: 'tagged', module: './classes.js', export: 'Tagged' }],
        ladders: [{ id: 'styled-ladder', levels: ['role', 'styled'], options: { styled: { style: 'terse' } } }],
      },
    },
  }),
);

const registry: Registry = discoverPlugins([{ root: dir, origin: 'local' }]);
const container = createRunContainer(registry);

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return e instanceof HptError ? e.code : String(e);
  }
  return undefined;
}

describe('options by injection', () => {
  it("a ladder's options for a level are the strategy's injected Options, checked against its schema", async () => {
    const ladder = resolveLadder(registry, 'styled-ladder');
    expect(ladder.options).toEqual({ styled: { style: 'terse' } });
    const c = registry.get('strategies', 'styled');
    const s = await instantiate<{ options: unknown }>(container, c, ladder.options?.styled ?? {});
    expect(s.options).toEqual({ style: 'terse' });
    await expect(instantiate(container, c, { style: 'loud' })).rejects.toThrow(/options of strategy 'styled' \(plugin hpt-bench-plugin-options-fixture\) are invalid: at \/style/);
  });

  it('a ladder file may give options per level; anything but objects is refused', () => {
    const ok = join(dir, 'ok.json');
    writeFileSync(ok, JSON.stringify({ id: 'file-ladder', levels: ['styled'], options: { styled: { style: 'verbose' } } }));
    expect(resolveLadder(registry, ok)).toEqual({ id: 'file-ladder', levels: ['styled'], options: { styled: { style: 'verbose' } } });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ id: 'file-ladder', levels: ['styled'], options: { styled: 'verbose' } }));
    expect(() => resolveLadder(registry, bad)).toThrow(/"options" must map strategy ids to option objects/);
  });

  it("a scorer without an options schema receives the dataset's options as they are ('pass'); the default refuses them", async () => {
    const c = registry.get('scorers', 'tagged');
    const s = await instantiate<{ options: unknown }>(container, c, { tag: 'ANSWER' }, undefined, 'pass');
    expect(s.options).toEqual({ tag: 'ANSWER' });
    expect(await codeOf(instantiate(container, c, { tag: 'ANSWER' }))).toBe('E_OPTIONS');
  });
});
