/**
 * `dataIdentity` / `dataDifferences` (issue 25 item 8): when two runs are on different data, so `compare` refuses
 * them and the reports pair no samples between them. Pure functions over hand-made fingerprints and stored configs;
 * the CLI behaviour is in test/e2e/compare-data.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { dataDifferences, dataIdentity, dataNotes, type Json } from '@hpt-bench/core';

type Data = { dataset?: string; source?: string; split?: string | null; contentHash?: string | null };
const fp = (data: Data, extra: Record<string, Json> = {}): Record<string, Json> => ({
  data: { dataset: 'boolq', source: 'hub:google/boolq@validation', split: null, contentHash: null, ...data },
  model: 'baseline:oracle',
  seed: 0,
  compat: 'strict',
  ...extra,
});
const run = (fingerprint: Record<string, Json> | null, config: Record<string, Json> = {}, dataset = 'boolq') => ({ dataset, config, fingerprint });
const fields = (a: ReturnType<typeof run>, b: ReturnType<typeof run>) => dataDifferences(dataIdentity(a), dataIdentity(b)).map((d) => d.field);

describe('dataDifferences', () => {
  it('the same data: other models, seeds, compat, paths of the same content, the default split named or not', () => {
    expect(fields(run(fp({})), run(fp({}, { model: 'openai:x', seed: 3, compat: 'reference' })))).toEqual([]);
    expect(fields(run(fp({ source: '/a/x.jsonl', contentHash: 'sha256:1' })), run(fp({ source: '/b/y.jsonl', contentHash: 'sha256:1', split: 'test' })))).toEqual([]);
    // the hub source names the split: --split validation (the default) is the same data as no --split
    expect(fields(run(fp({})), run(fp({ split: 'validation' })))).toEqual([]);
  });

  it('different data: dataset, content hash, source (with the split when it differs too), a generated seed or compat', () => {
    expect(fields(run(fp({})), run(fp({ dataset: 'csqa' }), {}, 'csqa'))).toEqual(['data.dataset']);
    expect(fields(run(fp({ source: '/a.jsonl', contentHash: 'sha256:1' })), run(fp({ source: '/a.jsonl', contentHash: 'sha256:2' })))).toEqual(['data.contentHash']);
    expect(fields(run(fp({ source: '@hpt-bench/hpt-datasets:./data/boolq-mini.jsonl', split: 'mini' })), run(fp({})))).toEqual(['data.source', 'data.split']);
    const gen = (seed: number, compat: string, split: string | null = null) => run(fp({ dataset: 'hibench/multiple-tree', source: 'generated', split }, { seed, compat }), {}, 'multiple-tree');
    expect(fields(gen(1, 'strict'), gen(1, 'strict'))).toEqual([]);
    expect(fields(gen(1, 'strict'), gen(2, 'strict'))).toEqual(['seed']);
    expect(fields(gen(1, 'strict'), gen(1, 'reference'))).toEqual(['compat']);
    expect(fields(gen(1, 'strict', 'test'), gen(1, 'strict'))).toEqual(['data.split']);
    // seed and compat are not data for a file: same content, other seed/compat → same data
    expect(fields(run(fp({ source: '/a.jsonl', contentHash: 'sha256:1' }, { seed: 1 })), run(fp({ source: '/a.jsonl', contentHash: 'sha256:1' }, { seed: 2, compat: 'reference' })))).toEqual([]);
  });

  it('runs without fingerprint are read from their stored config (data hash, --data path, split)', () => {
    expect(fields(run(null, { dataHash: 'sha256:1', data: '/a.jsonl' }), run(fp({ source: '/b.jsonl', contentHash: 'sha256:1' })))).toEqual([]);
    expect(fields(run(null, { dataHash: 'sha256:1' }), run(null, { dataHash: 'sha256:2' }))).toEqual(['data.contentHash']);
    expect(fields(run(null, { split: 'mini' }), run(null, {}))).toEqual(['data.split']);
    expect(fields(run(null, {}), run(null, {}))).toEqual([]);
  });

  it('dataNotes: one note per dataset with several data, naming the fields and the runs grouped by data', () => {
    const mini = fp({ source: '@hpt-bench/hpt-datasets:./data/boolq-mini.jsonl', split: 'mini' });
    const notes = dataNotes([
      { id: 'r1', ...run(mini) },
      { id: 'r2', ...run(fp({})) },
      { id: 'r3', ...run(mini) },
      { id: 'c1', ...run(fp({ dataset: 'csqa' }), {}, 'csqa') },
    ]);
    expect(notes).toEqual([
      'Runs of boolq are on different data (data.source, data.split), grouped by data: r1, r3 | r2. Runs of different data are not paired: no level transitions are drawn between them, and `hpt-bench compare` refuses them without --force.',
    ]);
    expect(dataNotes([{ id: 'r1', ...run(mini) }, { id: 'r3', ...run(mini) }])).toEqual([]);
  });
});
