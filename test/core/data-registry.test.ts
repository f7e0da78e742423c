import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertTarget, DeclarativeDataset, didYouMean, discoverPlugins, forEachConcurrent, readRecords, Registry, type Sample } from '@hpt-bench/core';
import { ROOT, SHARED } from '../helpers/cli.js';

const builtins = ['hpt-datasets', 'hpf-strategies', 'openai', 'baselines', 'metrics'].map((p) => ({ root: join(ROOT, 'plugins', p), origin: 'builtin' as const }));

async function collect(ds: DeclarativeDataset, data: string, onInvalid: 'fail' | 'skip' = 'fail', warnings: string[] = []): Promise<Sample[]> {
  const out: Sample[] = [];
  for await (const s of ds.load({ data, onInvalid, cacheDir: tmpdir(), warn: (m) => warnings.push(m) })) out.push(s);
  return out;
}

describe('convertTarget', () => {
  it.each([
    [true, 'boolean', undefined, true],
    ['False', 'boolean', undefined, false],
    [2, 'letter', undefined, 'C'],
    [' b ', 'letter', undefined, 'B'],
    ['Natalia sold 48/2 = 24 clips.\n#### 1,234', 'number', '####', 1234],
    ['-7.5', 'number', undefined, -7.5],
  ])('%j as %s -> %j', (raw, type, after, value) => {
    expect(convertTarget(raw, type as never, after)).toEqual({ value });
  });
  it.each([
    ['maybe', 'boolean'],
    ['AB', 'letter'],
    ['no marker', 'number'],
  ])('rejects %j as %s', (raw, type) => {
    expect('error' in convertTarget(raw, type as never, type === 'number' ? '####' : undefined)).toBe(true);
  });
});

describe('HPT datasets (declarative) on real samples', () => {
  const registry = discoverPlugins(builtins);
  const ds = (id: string) => {
    const c = registry.get('datasets', id);
    return new DeclarativeDataset(c.decl, c.plugin.root);
  };
  it('BoolQ representative layout ("True"/"False" strings) and HF layout (booleans) give the same samples', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-ds-'));
    const rep = await collect(ds('boolq'), join(SHARED, 'data/hpt-representative/boolq.json'));
    expect(rep.length).toBe(163);
    expect(rep.filter((s) => s.target === true).length).toBe(98);
    const hf = join(dir, 'boolq.jsonl');
    writeFileSync(hf, rep.slice(0, 3).map((s) => JSON.stringify({ question: s.input.question, passage: s.input.passage, answer: s.target })).join('\n'));
    const back = await collect(ds('boolq'), hf);
    expect(back.map((s) => [s.input, s.target])).toEqual(rep.slice(0, 3).map((s) => [s.input, s.target]));
    expect(back.map((s) => s.id)).toEqual(['0', '1', '2']);
  });
  it('MMLU answer letters (representative) and indices (HF) both become letters; CSQA keeps its record ids', async () => {
    const mmlu = await collect(ds('mmlu'), join(SHARED, 'data/hpt-representative/mmlu.json'));
    expect(mmlu.length).toBe(681);
    const counts = { A: 0, B: 0, C: 0, D: 0 } as Record<string, number>;
    for (const s of mmlu) counts[s.target as string]!++;
    expect(counts).toEqual({ A: 166, B: 174, C: 150, D: 191 });
    expect(Object.keys(mmlu[0]!.input).sort()).toEqual(['question', 'text1', 'text2', 'text3', 'text4']);
    const csqa = await collect(ds('csqa'), join(SHARED, 'data/hpt-representative/csqa.json'));
    expect(csqa[0]!.id).toBe('bdcfbe2132295d437e4c5701085f19c0');
    expect(csqa[0]!.input.text2).toBe('hasten');
    const dir = mkdtempSync(join(tmpdir(), 'hpt-ds-'));
    writeFileSync(join(dir, 'm.jsonl'), JSON.stringify({ question: 'q', subject: 's', choices: ['a', 'b', 'c', 'd'], answer: 3 }));
    expect((await collect(ds('mmlu'), join(dir, 'm.jsonl')))[0]!.target).toBe('D');
  });
  it('GSM8K targets are the number after ####, commas removed', async () => {
    const g = await collect(ds('gsm8k'), join(SHARED, 'data/hpt-representative/gsm8k.json'));
    expect(g.length).toBe(65);
    expect(g[0]!.target).toBe(109);
    expect(g.every((s) => typeof s.target === 'number' && Number.isFinite(s.target))).toBe(true);
  });
  it('a record missing a field fails naming its line (from 1) and the field, or is skipped with a warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-ds-'));
    const f = join(dir, 'b.jsonl');
    writeFileSync(f, [{ question: 'a', passage: 'p', answer: true }, { question: 'b', answer: false }, { question: 'c', passage: 'p', answer: 'yes' }].map((r) => JSON.stringify(r)).join('\n'));
    await expect(collect(ds('boolq'), f)).rejects.toThrow(/b\.jsonl: line 2: missing field 'passage'/);
    const warnings: string[] = [];
    const ok = await collect(ds('boolq'), f, 'skip', warnings);
    expect(ok.map((s) => s.id)).toEqual(['0']);
    expect(warnings).toEqual([expect.stringMatching(/: line 2: missing field 'passage'/), expect.stringMatching(/: line 3: field 'answer': expected a boolean/)]);
  });
  it('the mini splits ship with every HPT dataset', async () => {
    for (const id of ['boolq', 'csqa', 'mmlu', 'gsm8k']) {
      const out: Sample[] = [];
      for await (const s of ds(id).load({ split: 'mini', onInvalid: 'fail', cacheDir: tmpdir(), warn: () => undefined })) out.push(s);
      expect(out.length).toBeGreaterThanOrEqual(6);
    }
  });
});

describe('readRecords', () => {
  it('names the JSONL line that is not JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-rr-'));
    const f = join(dir, 'x.jsonl');
    writeFileSync(f, '{"a":1}\n\n{"a":\n');
    const it = readRecords(f);
    expect((await it.next()).value).toEqual({ a: 1 });
    await expect(it.next()).rejects.toThrow(/x\.jsonl:3 is not valid JSON/);
  });
});

describe('Registry', () => {
  it('suggests close ids, lists known ones, and resolves aliases and qualified ids', () => {
    const r = discoverPlugins(builtins);
    expect(() => r.get('datasets', 'gsm8')).toThrow(/unknown dataset 'gsm8'\. Did you mean 'gsm8k'\?/);
    expect(() => r.get('models', 'opnai')).toThrow(/Did you mean 'openai'/);
    expect(r.get('datasets', 'commonsense_qa').id).toBe('csqa');
    expect(r.get('strategies', 'hpf-strategies/role').id).toBe('role');
    expect(didYouMean('zzzz', ['boolq', 'csqa'])).toEqual([]);
  });
  it('an id contributed twice is ambiguous and reachable by its qualified id', () => {
    const base = discoverPlugins(builtins);
    const r = new Registry();
    for (const p of base.plugins) r.add(p);
    r.add({ ...base.plugins.find((p) => p.namespace === 'baselines')!, name: 'other-baselines', namespace: 'other-baselines', root: '/elsewhere' });
    expect(() => r.get('models', 'baseline')).toThrow(/contributed by several plugins; use one of: baselines\/baseline, other-baselines\/baseline/);
    expect(r.get('models', 'other-baselines/baseline').plugin.root).toBe('/elsewhere');
  });
});

describe('forEachConcurrent', () => {
  it('keeps at most N items in flight and pulls lazily', async () => {
    let inFlight = 0;
    let peak = 0;
    let pulled = 0;
    async function* gen() {
      for (let i = 0; i < 50; i++) {
        pulled++;
        yield i;
      }
    }
    const seen: number[] = [];
    await forEachConcurrent(gen(), 4, async (i) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      expect(pulled - seen.length).toBeLessThanOrEqual(4);
      await new Promise((r) => setTimeout(r, 1 + (i % 3)));
      seen.push(i);
      inFlight--;
    });
    expect(peak).toBe(4);
    expect(seen.sort((a, b) => a - b)).toEqual([...Array(50).keys()]);
  });
  it('stops pulling after an error and rethrows it', async () => {
    let pulled = 0;
    async function* gen() {
      for (let i = 0; i < 1000; i++) {
        pulled++;
        yield i;
      }
    }
    await expect(forEachConcurrent(gen(), 2, async (i) => {
      if (i === 5) throw new Error('boom');
    })).rejects.toThrow('boom');
    expect(pulled).toBeLessThan(10);
  });
});
