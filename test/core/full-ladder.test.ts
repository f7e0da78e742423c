/**
 * `--full-ladder` (issue 28, item 4) in the core: the manual engine runs every level and keeps the early-exit result
 * (hpt.md §2.1–2.2), the option is part of the run's identity and refused in adaptive mode, and
 * `RunStore.ladderVerdictRows` reads one verdict per stored attempt on SQLite and PostgreSQL.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRunConfig, configHash, HptError, LadderEngine, loadPromptPack, runConfig, RunStore, type AttemptRecord, type GradedOutput, type Model, type ModelRequest, type Sample, type SampleResult, type Scorer } from '@hpt-bench/core';
import { ROOT } from '../helpers/cli.js';
import { hpfLevels } from '../helpers/ladder.js';
import { POSTGRES_MISSING, startPostgres, warnIfPostgresMissing, type TestPostgres } from '../helpers/postgres.js';

warnIfPostgresMissing('full-ladder');

const pack = loadPromptPack(join(ROOT, 'plugins/hpt-datasets/packs/csqa.json'));
const HPI_DATASET = 2.52;

/** A scorer that accepts a completion starting with "RIGHT"; the extracted answer is the whole completion. */
const right: Scorer = {
  id: 'right',
  score: (_s: Sample, o: GradedOutput) => ({ solved: o.completion.startsWith('RIGHT'), score: o.completion.startsWith('RIGHT') ? 1 : 0, extracted: o.completion }),
};

/** A model whose graded replies are "RIGHT@<level>" at the levels of `solving`, else "wrong@<level>"; records requests. */
function scripted(solving: (sample: string, level: number) => boolean): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'scripted',
    requests,
    async generate(r) {
      requests.push(r);
      const { level, purpose, sample } = r.context!;
      const text = purpose === 'graded' ? `${solving(sample.id, level) ? 'RIGHT' : 'wrong'}@${level}` : `notes@${level}`;
      return { text, ...(purpose === 'knowledge' ? { logprobs: [-0.1] } : {}), usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop' };
    },
  };
}

const engine = (model: Model, fullLadder?: boolean) =>
  new LadderEngine({ levels: hpfLevels(), model, knowledgeModel: model, scorer: right, scorerOptions: {}, pack, hpiDataset: HPI_DATASET, compat: 'strict', generation: { temperature: 0, topP: 1, maxTokens: 64 }, seed: 0, ...(fullLadder !== undefined ? { fullLadder } : {}) });

const sample = (id: string, index: number, meta?: Sample['meta']): Sample => ({ id, index, input: { question: `Where is ${id} kept?`, text1: 'oven', text2: 'fridge', text3: 'shelf', text4: 'garage', text5: 'box' }, target: 'B', ...(meta ? { meta } : {}) });

/** Calls per HPF level on the CSQA pack: 1, 1, 1, 4 (least-to-most chain), 4 (3 knowledge + graded). */
const CALLS = [1, 1, 1, 4, 4];
/** An attempt without its calls' wall-clock latencies (the only part two identical climbs differ in). */
const withoutLatency = (a: AttemptRecord) => ({ ...a, calls: a.calls.map(({ latencyMs: _l, ...c }) => c) });
const levelsOf = (m: { requests: ModelRequest[] }) => m.requests.map((r) => r.context!.level);

describe('LadderEngine with fullLadder (issue 28)', () => {
  it('levels 2 and 4 solve: the full ladder makes every attempt and every call, the result is level 2; early exit makes 2 attempts', async () => {
    const solving = (_: string, level: number) => level === 2 || level === 4;
    const full = scripted(solving);
    const res = await engine(full, true).climb(sample('q', 0));
    expect(res).toMatchObject({ sampleId: 'q', level: 2, hpi: 2, solved: true, prediction: 'RIGHT@2' });
    expect(res.attempts.map((a) => [a.level, a.solved, a.extracted])).toEqual([[1, false, 'wrong@1'], [2, true, 'RIGHT@2'], [3, false, 'wrong@3'], [4, true, 'RIGHT@4'], [5, false, 'wrong@5']]);
    expect(levelsOf(full)).toEqual(CALLS.flatMap((n, i) => Array<number>(n).fill(i + 1)));
    expect(res.attempts.map((a) => a.calls.length)).toEqual(CALLS);

    const early = scripted(solving);
    const e = await engine(early).climb(sample('q', 0));
    expect(e).toMatchObject({ level: 2, hpi: 2, solved: true, prediction: 'RIGHT@2' });
    expect(e.attempts.map((a) => a.level)).toEqual([1, 2]);
    expect(levelsOf(early)).toEqual([1, 2]);
    // the attempts both ladders make are the same requests (same messages and context: the same cache keys)
    expect(full.requests.slice(0, 2)).toEqual(early.requests);
    expect(res.attempts.slice(0, 2).map(withoutLatency)).toEqual(e.attempts.map(withoutLatency));
    // fullLadder: false is the early-exit ladder
    const off = scripted(solving);
    const o = await engine(off, false).climb(sample('q', 0));
    expect({ ...o, attempts: o.attempts.map(withoutLatency) }).toEqual({ ...e, attempts: e.attempts.map(withoutLatency) });
  });

  it('keeps the early-exit result in every case: solved at 1, only at 5, never (m + HPI_Dataset, the last prediction)', async () => {
    const table: Record<string, number[]> = { a: [1, 3], b: [5], c: [] };
    const solving = (id: string, level: number) => table[id]!.includes(level);
    for (const [id, levels] of Object.entries(table)) {
      const full = await engine(scripted(solving), true).climb(sample(id, 0, { replicate: 1 }));
      const early = await engine(scripted(solving)).climb(sample(id, 0, { replicate: 1 }));
      const { attempts: fa, ...fr } = full;
      const { attempts: ea, ...er } = early;
      expect(fr, id).toEqual(er);
      expect(fa.slice(0, ea.length).map(withoutLatency), id).toEqual(ea.map(withoutLatency));
      expect(fa.map((a) => a.level), id).toEqual([1, 2, 3, 4, 5]);
      expect(fa.map((a) => a.solved), id).toEqual([1, 2, 3, 4, 5].map((l) => levels.includes(l)));
      expect(ea.length, id).toBe(levels.length ? levels[0] : 5);
    }
    const never = await engine(scripted(() => false), true).climb(sample('c', 0));
    expect(never).toMatchObject({ level: null, solved: false, prediction: 'wrong@5' });
    expect(never.attempts.map((a) => a.level)).toEqual([1, 2, 3, 4, 5]);
    expect(never.hpi).toBeCloseTo(5 + HPI_DATASET, 12);
  });
});

describe('RunConfig.fullLadder', () => {
  const base = runConfig({ dataset: 'boolq', model: 'openai:m' });

  it('is part of the run identity when true; false hashes as absent (early-exit hashes are unchanged)', () => {
    expect(configHash({ ...base, fullLadder: true })).not.toBe(configHash(base));
    expect(configHash({ ...base, fullLadder: false })).toBe(configHash(base));
    expect(configHash({ ...base, fullLadder: true })).toBe(configHash({ ...base, fullLadder: true, concurrency: 99 }));
  });

  it('is refused in adaptive mode (E_CONFIG), accepted in manual mode', () => {
    expect(() => checkRunConfig({ ...base, fullLadder: true })).not.toThrow();
    expect(() => checkRunConfig({ ...base, mode: 'adaptive', selector: 'fixed:2', fullLadder: false })).not.toThrow();
    let err: unknown;
    try {
      checkRunConfig({ ...base, mode: 'adaptive', selector: 'fixed:2', fullLadder: true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HptError);
    expect(err).toMatchObject({ code: 'E_CONFIG' });
    expect((err as Error).message).toMatch(/--full-ladder applies to the manual ladder only/);
  });
});

let server: TestPostgres | undefined;
const backends = [
  { name: 'sqlite', fresh: async () => join(mkdtempSync(join(tmpdir(), 'hpt-fl-')), 'x.db') },
  { name: 'postgres', fresh: () => server!.createDatabase() },
] as const;

for (const backend of backends) {
  describe.skipIf(backend.name === 'postgres' && POSTGRES_MISSING)(`RunStore.ladderVerdictRows: ${backend.name}`, () => {
    beforeAll(async () => {
      if (backend.name === 'postgres') server = await startPostgres();
    });
    afterAll(() => {
      if (backend.name === 'postgres') server?.stop();
    });

    it('one row per stored attempt of each done sample, by index then attempt; replicates named; errored samples and adaptive runs left out', async () => {
      const s = new RunStore(await backend.fresh());
      try {
        s.createRun({ id: 'full', dataset: 'd', model: 'm', mode: 'manual', config: { fullLadder: true } });
        s.createRun({ id: 'early', dataset: 'd', model: 'm', mode: 'manual', config: {} });
        s.createRun({ id: 'adaptive', dataset: 'd', model: 'm', mode: 'adaptive', config: {} });
        const table: Record<string, number[]> = { a: [2, 4], b: [], c: [1] };
        const solving = (id: string, level: number) => table[id]!.includes(level);
        const results = async (full: boolean): Promise<SampleResult[]> => {
          const out: SampleResult[] = [];
          // written out of order: the read orders by index; replicates 0 and 1 of sample a at indices 0 and 1
          for (const [id, index, meta] of [['c', 3, undefined], ['a', 1, { replicate: 1 }], ['b', 2, undefined], ['a', 0, { replicate: 0 }]] as const) {
            out.push(await engine(scripted(solving), full).climb(sample(id, index, meta)));
          }
          return out;
        };
        for (const r of await results(true)) s.saveSample('full', r);
        for (const r of await results(false)) s.saveSample('early', r);
        s.saveErrored('full', { id: 'e', index: 4, target: 'B' }, 'endpoint down');
        const early = await results(false);
        s.saveSample('adaptive', early[0]!);

        const rows = s.ladderVerdictRows('full');
        const expected = [['a', 0, 0], ['a', 1, 1], ['b', 2, undefined], ['c', 3, undefined]].flatMap(([id, index, replicate]) =>
          [1, 2, 3, 4, 5].map((level) => ({ sampleId: id, index, ...(replicate !== undefined ? { replicate } : {}), level, solved: solving(id as string, level) })),
        );
        expect(rows).toEqual(expected);
        expect(rows.filter((r) => r.replicate === undefined).every((r) => !('replicate' in r))).toBe(true);
        // the early-exit run stored levels 1..first solved (or m)
        expect(s.ladderVerdictRows('early').map((r) => [r.index, r.level, r.solved])).toEqual([
          [0, 1, false], [0, 2, true], [1, 1, false], [1, 2, true], [2, 1, false], [2, 2, false], [2, 3, false], [2, 4, false], [2, 5, false], [3, 1, true],
        ]);
        expect(s.ladderVerdictRows('adaptive')).toEqual([]);
        expect(s.ladderVerdictRows('nope')).toEqual([]);
        for (const r of rows) for (const v of [r.index, r.level]) expect(typeof v).toBe('number');
      } finally {
        s.close();
      }
    });
  });
}
