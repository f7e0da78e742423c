import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { RunStore, type SampleResult } from '@hpt-bench/core';

function result(index: number, level: number | null): SampleResult {
  const attempts = Array.from({ length: level ?? 5 }, (_, i) => ({
    level: i + 1,
    strategy: `s${i + 1}`,
    solved: level === i + 1,
    score: level === i + 1 ? 1 : 0,
    extracted: level === i + 1 ? 'A' : 'B',
    graded: { promptText: 'p', completion: level === i + 1 ? 'A' : 'B', cue: 'Answer:' },
    calls: [{ seq: 0, purpose: 'graded' as const, model: 'm', messages: [{ role: 'user' as const, content: 'p' }], output: 'x', usage: { promptTokens: 10, completionTokens: 2 }, latencyMs: 5, finishReason: 'stop' }],
  }));
  return { sampleId: `id${index}`, index, level, hpi: level ?? 7.52, solved: level !== null, prediction: 'A', target: 'A', attempts };
}

describe('RunStore (real SQLite file)', () => {
  it('round-trips samples, aggregates them, and keeps input order', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hpt-store-')), 'deep', 'x.db');
    const s = new RunStore(path);
    s.createRun({ id: 'r1', dataset: 'csqa', model: 'm', mode: 'manual', config: { seed: 1 } });
    for (const [i, l] of [[2, 1], [0, 3], [1, null]] as const) s.saveSample('r1', result(i, l));
    const agg = s.aggregate('r1');
    expect(agg).toMatchObject({ n: 3, hpiSum: 1 + 3 + 7.52, solved: 2, levelCounts: { '1': 1, '3': 1 }, unsolved: 1, errored: 0, calls: 1 + 3 + 5, cachedCalls: 0, promptTokens: 90, completionTokens: 18 });
    // one call per attempt: level 1 is tried by all three samples, level 2-3 by two, levels 4-5 by the unsolved one
    expect(agg.usageByLevel.map((u) => [u.level, u.calls, u.promptTokens])).toEqual([[1, 3, 30], [2, 2, 20], [3, 2, 20], [4, 1, 10], [5, 1, 10]]);
    const back = [...s.iterSamples('r1')];
    expect(back.map((r) => r.index)).toEqual([0, 1, 2]);
    expect(back[1]).toEqual(result(1, null));
    expect(s.getRun('r1')!.status).toBe('running');
    s.finishRun('r1', { hpi: 3.84 });
    expect(s.getRun('r1')).toMatchObject({ status: 'completed', summary: { hpi: 3.84 } });
    s.close();
    // WAL mode is on
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('a sample is written whole or not at all', () => {
    const s = new RunStore(join(mkdtempSync(join(tmpdir(), 'hpt-store-')), 'x.db'));
    s.createRun({ id: 'r', dataset: 'd', model: 'm', mode: 'manual', config: {} });
    const bad = result(0, 2);
    bad.attempts[1]!.calls.push({ ...bad.attempts[1]!.calls[0]! }); // duplicate (run, idx, level, seq): fails mid-transaction
    expect(() => s.saveSample('r', bad)).toThrow(/UNIQUE/);
    expect(s.aggregate('r')).toMatchObject({ n: 0, calls: 0 });
    expect(s.db.prepare('SELECT COUNT(*) AS c FROM attempts').get()).toEqual({ c: 0 });
    s.failRun('r', 'boom');
    expect(s.getRun('r')).toMatchObject({ status: 'failed', error: 'boom' });
  });

  it('refuses a file that is not a store, with a clear error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-store-'));
    expect(() => new RunStore(dir)).toThrow(/cannot open store/);
  });
});
