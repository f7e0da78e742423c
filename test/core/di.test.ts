import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRngFactory, createRunContainer, discoverPlugins, resolveModel, Tokens, type Contribution, type Logger } from '@hpt-bench/core';
import { ROOT } from '../helpers/cli.js';

const FIXTURE = join(ROOT, 'test/fixtures/di-plugin');

describe('code contributions through tsyringe', () => {
  it('receive core services, their validated options and model name by injection; each run has its own child container', async () => {
    const registry = discoverPlugins([{ root: FIXTURE, origin: 'local' }]);
    const logs: string[] = [];
    const logger: Logger = { info: (m) => logs.push(m), warn: (m) => logs.push(m), debug: () => undefined };
    const runA = createRunContainer(registry);
    runA.register(Tokens.Logger, { useValue: logger });
    runA.register(Tokens.Rng, { useValue: createRngFactory(7) });
    const runB = createRunContainer(registry);
    runB.register(Tokens.Logger, { useValue: logger });
    runB.register(Tokens.Rng, { useValue: createRngFactory(8) });

    const a = await resolveModel(registry, runA, 'echo:one', { prefix: '> ', baseUrl: 'ignored: not declared by echo' });
    const b = await resolveModel(registry, runB, 'echo:two', {});
    expect(a.id).toBe('echo:one');
    expect(logs).toEqual(['built echo:one', 'built echo:two']);
    const ra = await a.generate({ messages: [{ role: 'user', content: 'hi' }], temperature: 0, topP: 1, maxTokens: 1 });
    const rb = await b.generate({ messages: [{ role: 'user', content: 'hi' }], temperature: 0, topP: 1, maxTokens: 1 });
    expect(ra.text).toBe(`> hi|${createRngFactory(7).create('echo')()}`);
    expect(rb.text).toBe(`hi|${createRngFactory(8).create('echo')()}`);
    expect(runA.resolveAll<Contribution>(Tokens.ModelContribution).map((c) => c.qualifiedId)).toEqual(['hpt-bench-plugin-di-fixture/echo']);
  });

  it('options that break the declared schema fail naming the plugin and the field', async () => {
    const registry = discoverPlugins([{ root: FIXTURE, origin: 'local' }]);
    const c = createRunContainer(registry);
    c.register(Tokens.Logger, { useValue: { info: () => undefined, warn: () => undefined, debug: () => undefined } });
    c.register(Tokens.Rng, { useValue: createRngFactory(1) });
    await expect(resolveModel(registry, c, 'echo:x', { prefix: 3 })).rejects.toThrow(/options of model 'echo' \(plugin hpt-bench-plugin-di-fixture\) are invalid: at \/prefix: must be string/);
  });
});
