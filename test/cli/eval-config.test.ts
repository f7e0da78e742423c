import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HptError } from '@hpt-bench/core';
import { cellFlags, expandEvalFile, explicitFlags, outPath, readEvalFile, validateEvalFile, type EvalCell } from '../../packages/cli/src/eval-config.js';
import { checkDistinctOut } from '../../packages/cli/src/matrix.js';

const FLAGS = {
  limit: { type: 'option', char: 'n' },
  concurrency: { type: 'option', char: 'c' },
  seed: { type: 'option' },
  json: { type: 'boolean' },
  cache: { type: 'boolean', allowNo: true },
  model: { type: 'option', char: 'm' },
  config: { type: 'option' },
};

describe('explicitFlags: the flags a raw command line gives', () => {
  it('reads long, --name=value, --no-name and short forms, and skips option values', () => {
    expect([...explicitFlags(['--config', 'e.yaml', '--limit', '3', '--seed=7', '--no-cache', '--json'], FLAGS)].sort()).toEqual(['cache', 'config', 'json', 'limit', 'seed']);
    expect([...explicitFlags(['-n', '3', '-c8', '-m=baseline:random'], FLAGS)].sort()).toEqual(['concurrency', 'limit', 'model']);
  });

  it('does not read a value, an unknown flag or anything after -- as a given flag', () => {
    // '--json' is the value of --config here, not the flag
    expect([...explicitFlags(['--config', '--json', '--nope', '3', '--', '--limit', '2'], FLAGS)]).toEqual(['config']);
    expect(explicitFlags(['--no-json'], FLAGS).size).toBe(0); // json has no --no- form
  });
});

describe('evaluation files: validation and expansion', () => {
  const file = {
    seed: 3,
    limit: 10,
    concurrency: 2,
    generation: { temperature: 0.2 },
    store: 'db/s.db',
    out: 'res/{model}-{dataset}.jsonl',
    prices: '/abs/prices.json',
    datasets: [{ id: 'boolq', split: 'mini' }, { id: 'code', name: 'code-calc', limit: 4, data: 'd.jsonl', filters: { task: ['calculate', 'convert'], preset: 'small' }, threshold: 0.15 }],
    models: [{ id: 'baseline:oracle' }, { id: 'openai:llama3', baseUrl: 'http://127.0.0.1:1/v1', apiKeyEnv: 'MY_KEY', concurrency: 8, generation: { temperature: 0.9, topP: 0.5, maxTokens: 64 } }],
  };

  it('expands models × datasets, entries over top-level values, paths against the base directory', () => {
    const cells = expandEvalFile(validateEvalFile(file, 'e.yaml'), '/base');
    expect(cells.map((c) => `${c.model}|${c.dataset}`)).toEqual(['baseline:oracle|boolq', 'baseline:oracle|code-calc', 'openai:llama3|boolq', 'openai:llama3|code-calc']);
    expect(cells[0]!.values).toEqual({ model: 'baseline:oracle', dataset: 'boolq', split: 'mini', seed: 3, limit: 10, concurrency: 2, temperature: '0.2', store: '/base/db/s.db', out: '/base/res/{model}-{dataset}.jsonl', prices: '/abs/prices.json' });
    expect(cells[3]!.values).toMatchObject({ model: 'openai:llama3', dataset: 'code', 'base-url': ['http://127.0.0.1:1/v1'], 'api-key-env': 'MY_KEY', concurrency: 8, temperature: '0.9', 'top-p': '0.5', 'max-tokens': 64, limit: 4, data: '/base/d.jsonl', filter: ['task=calculate,convert', 'preset=small'], threshold: '0.15' });
  });

  it('a list of base URLs (replicas) becomes --base-url given once per URL; cacheKeyEndpoint --cache-key-endpoint; a model entry over the top level', () => {
    const replicas = { datasets: [{ id: 'boolq' }], baseUrl: 'http://top/v1', cacheKeyEndpoint: true, models: [{ id: 'openai:a', baseUrl: ['http://r1/v1', 'http://r2/v1'] }, { id: 'openai:b' }, { id: 'openai:c', cacheKeyEndpoint: false }] };
    const cells = expandEvalFile(validateEvalFile(replicas, 'e.yaml'), '/base');
    expect(cells.map((c) => [c.values['base-url'], c.values['cache-key-endpoint']])).toEqual([
      [['http://r1/v1', 'http://r2/v1'], true],
      [['http://top/v1'], true],
      [['http://top/v1'], false],
    ]);
    for (const bad of [[], [''], ['http://r1/v1', 'http://r1/v1'], [3]]) {
      expect(() => validateEvalFile({ datasets: [{ id: 'boolq' }], models: [{ id: 'openai:a', baseUrl: bad }] }, 'e.yaml'), JSON.stringify(bad)).toThrow(/e\.yaml: \/models\/0\/baseUrl/);
    }
  });

  it('lets command-line flags override the file, and file values override flag defaults', () => {
    const cell: EvalCell = { model: 'm', dataset: 'd', values: { limit: 10, seed: 3, model: 'baseline:oracle' } };
    const parsed = { limit: 3, seed: undefined, concurrency: 4, model: undefined };
    expect(cellFlags(parsed, new Set(['limit']), cell)).toEqual({ limit: 3, seed: 3, concurrency: 4, model: 'baseline:oracle' });
    expect(cellFlags(parsed, new Set(), cell)).toEqual({ limit: 10, seed: 3, concurrency: 4, model: 'baseline:oracle' });
  });

  it('names the file and the failing JSON paths', () => {
    const bad = { datasets: [{ id: 'boolq', limt: 3 }], models: [{ id: 'a' }, { id: 'b', concurrency: 0 }], compat: 'loose' };
    let err: unknown;
    try {
      validateEvalFile(bad, 'eval.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HptError);
    expect((err as HptError).code).toBe('E_CONFIG');
    expect((err as HptError).exitCode).toBe(2);
    const m = (err as Error).message;
    expect(m.startsWith('eval.yaml: ')).toBe(true);
    expect(m).toContain('/models/1/concurrency must be >= 1');
    expect(m).toContain("/datasets/0 has an unknown property 'limt'");
    expect(m).toContain('/compat must be equal to one of the allowed values (strict, reference)');
    expect(() => validateEvalFile({ datasets: [{ id: 'boolq' }], models: [] }, 'e.json')).toThrow('e.json: /models must NOT have fewer than 1 items');
    expect(() => validateEvalFile({ datasets: [{ id: 'boolq' }], models: [{ id: 'a' }, { id: 'a' }] }, 'e.json')).toThrow("e.json: /models names 'a' twice");
  });

  it('reads YAML and JSON, and reports a YAML syntax error with its line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-eval-'));
    writeFileSync(join(dir, 'a.yaml'), '\uFEFF# comment\ndatasets:\n  - id: boolq\nmodels: [{ id: baseline:random }]\n');
    writeFileSync(join(dir, 'a.json'), JSON.stringify({ datasets: [{ id: 'boolq' }], models: [{ id: 'baseline:random' }] }));
    expect(readEvalFile(join(dir, 'a.yaml'))).toEqual(readEvalFile(join(dir, 'a.json')));
    writeFileSync(join(dir, 'b.yaml'), 'datasets:\n  - id: boolq\n  - id: boolq\n models: []\n');
    expect(() => readEvalFile(join(dir, 'b.yaml'))).toThrow(/b\.yaml: line 4, column \d+: /);
    writeFileSync(join(dir, 'c.yaml'), 'seed: 1\nseed: 2\n');
    expect(() => readEvalFile(join(dir, 'c.yaml'))).toThrow(/c\.yaml: line 2, column 1: Map keys must be unique/);
    expect(() => readEvalFile(join(dir, 'missing.yaml'))).toThrow('cannot read evaluation file');
  });

  it('fills out templates with file-safe labels and refuses two cells writing one file', () => {
    expect(outPath('/r/{model}-{dataset}.jsonl', { model: 'openai:meta/llama', dataset: 'boolq' })).toBe('/r/openai_meta_llama-boolq.jsonl');
    expect(() => checkDistinctOut(['/r/a.jsonl', undefined, '/r/b.jsonl'])).not.toThrow();
    expect(() => checkDistinctOut(['/r/a.jsonl', '/r/a.jsonl'])).toThrow('put {model} and {dataset} in it');
  });
});
