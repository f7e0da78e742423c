import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CallCache, RunStore } from '@hpt-bench/core';
import { ladderResult as result } from '../helpers/sample-result.js';


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
    const bad = result(1, 2);
    bad.attempts[1]!.calls.push({ ...bad.attempts[1]!.calls[0]! }); // duplicate (run, idx, level, seq): fails mid-transaction
    s.saveSample('r', result(0, 1));
    s.saveSample('r', bad);
    s.saveSample('r', result(2, 3));
    // the writes are grouped: the failure surfaces at the commit, and the group's good samples are kept whole
    expect(() => s.flush()).toThrow(/UNIQUE/);
    expect(s.aggregate('r')).toMatchObject({ n: 2, calls: 1 + 3 });
    expect([...s.iterSamples('r')].map((r) => r.index)).toEqual([0, 2]);
    expect(s.db.prepare('SELECT COUNT(*) AS c FROM attempts WHERE idx = 1').get()).toEqual({ c: 0 });
    expect(s.db.prepare('SELECT COUNT(*) AS c FROM calls WHERE idx = 1').get()).toEqual({ c: 0 });
    s.failRun('r', 'boom');
    expect(s.getRun('r')).toMatchObject({ status: 'failed', error: 'boom' });
  });

  it("stores graded.promptText once: dropped when it is the graded call's user message, restored on read", () => {
    const s = new RunStore(join(mkdtempSync(join(tmpdir(), 'hpt-store-')), 'x.db'));
    s.createRun({ id: 'r', dataset: 'd', model: 'm', mode: 'manual', config: {} });
    const same = result(0, 2);
    // a two-call attempt (knowledge, then graded with a system message): promptText is the last graded user message
    same.attempts[1]!.graded = { promptText: 'Q?\nAnswer:', completion: 'A', cue: 'Answer:' };
    same.attempts[1]!.calls = [
      { ...same.attempts[1]!.calls[0]!, seq: 0, purpose: 'knowledge', messages: [{ role: 'user', content: 'facts' }], meanTokenProb: null },
      { ...same.attempts[1]!.calls[0]!, seq: 1, purpose: 'graded', messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'Q?\nAnswer:' }] },
    ];
    const other = result(1, 1);
    other.attempts[0]!.graded = { promptText: 'not the call text', completion: 'A', cue: 'Answer:' };
    s.saveSample('r', same);
    s.saveSample('r', other);
    s.flush();
    const raw = (idx: number, attempt: number) =>
      JSON.parse((s.db.prepare('SELECT graded FROM attempts WHERE idx = ? AND attempt = ?').get(idx, attempt) as { graded: string }).graded) as Record<string, unknown>;
    expect(raw(0, 1)).toEqual({ completion: 'A', cue: 'Answer:' });
    expect(raw(1, 0)).toEqual({ promptText: 'not the call text', completion: 'A', cue: 'Answer:' });
    // a row written before the dedupe (promptText inside) reads unchanged
    s.db.prepare('UPDATE attempts SET graded = ? WHERE idx = 0 AND attempt = 0').run(JSON.stringify({ promptText: 'old', completion: 'B', cue: 'Answer:' }));
    const back = [...s.iterSamples('r')];
    expect(back[0]!.attempts[1]).toEqual(same.attempts[1]);
    expect(Object.keys(back[0]!.attempts[1]!.graded)).toEqual(['promptText', 'completion', 'cue']); // --out keeps the field order
    expect(back[0]!.attempts[0]!.graded).toEqual({ promptText: 'old', completion: 'B', cue: 'Answer:' });
    expect(back[1]).toEqual(other);
    s.close();
  });

  it('refuses a file that is not a store, with a clear error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-store-'));
    expect(() => new RunStore(dir)).toThrow(/cannot open store/);
  });

  it("a reasoning selector's call keeps its thinking, reasoning tokens and truncation (issue #24), summed apart in selectorUsage", () => {
    const s = new RunStore(join(mkdtempSync(join(tmpdir(), 'hpt-store-')), 'x.db'));
    s.createRun({ id: 'r', dataset: 'd', model: 'm', mode: 'adaptive', config: {} });
    const r = result(0, 2);
    const call = { seq: 0, purpose: 'selector' as const, model: 'sel', messages: [{ role: 'user' as const, content: 'pick a level' }], output: '2', latencyMs: 5, finishReason: 'stop' };
    r.selections = [
      { iteration: 1, level: 2, valid: true, raw: '2', solved: true, call: { ...call, usage: { promptTokens: 7, completionTokens: 30, reasoningTokens: 28 }, reasoning: 'Level 1 is too weak here; 2.' } },
      { iteration: 2, level: null, valid: false, raw: '', call: { ...call, output: '', usage: { promptTokens: 7, completionTokens: 64, reasoningTokens: 64 }, finishReason: 'length', reasoning: 'Hmm, maybe', truncatedThinking: true } },
    ];
    s.saveSample('r', r);
    const back = [...s.iterSamples('r')][0]!;
    expect(back.selections).toEqual(r.selections);
    expect(s.aggregate('r').selectorUsage).toEqual([{ model: 'sel', cached: false, batched: false, calls: 2, promptTokens: 14, completionTokens: 94, reasoningTokens: 92 }]);
  });
});

describe('RunStore group commit', () => {
  const fresh = (groupCommit?: { maxWrites: number; maxDelayMs: number }) => {
    const path = join(mkdtempSync(join(tmpdir(), 'hpt-store-')), 'x.db');
    const s = new RunStore(path, groupCommit ? { groupCommit } : {});
    s.createRun({ id: 'r', dataset: 'd', model: 'm', mode: 'manual', config: {} });
    return { s, path };
  };
  // what another process sees: a second connection to the file
  const committed = (path: string) => {
    const db = new Database(path, { readonly: true });
    try {
      return (db.prepare('SELECT COUNT(*) AS c FROM samples').get() as { c: number }).c;
    } finally {
      db.close();
    }
  };

  it('commits maxWrites samples together, and reads its own queued writes', () => {
    const { s, path } = fresh({ maxWrites: 3, maxDelayMs: 60_000 });
    s.saveSample('r', result(0, 1));
    s.saveSample('r', result(1, 2));
    expect(committed(path)).toBe(0);
    s.saveSample('r', result(2, null));
    expect(committed(path)).toBe(3);
    s.saveSample('r', result(3, 1));
    expect(committed(path)).toBe(3);
    // a read of this store commits the queue first
    expect(s.aggregate('r')).toMatchObject({ samples: 4, n: 4 });
    expect(committed(path)).toBe(4);
    s.close();
  });

  it('commits a partial group after maxDelayMs, and on close', async () => {
    const { s, path } = fresh({ maxWrites: 1000, maxDelayMs: 20 });
    s.saveSample('r', result(0, 1));
    expect(committed(path)).toBe(0);
    await new Promise((r) => setTimeout(r, 80));
    expect(committed(path)).toBe(1);
    s.saveSample('r', result(1, 1));
    s.close();
    expect(committed(path)).toBe(2);
  });

  it('commits the queue when the process exits without closing the store', () => {
    const { s, path } = fresh();
    s.close();
    const core = new URL('../../packages/core/dist/store/store.js', import.meta.url).href;
    const script = `
      const { RunStore } = await import(${JSON.stringify(core)});
      const s = new RunStore(${JSON.stringify(path)}, { groupCommit: { maxWrites: 1000, maxDelayMs: 60000 } });
      const r = (i) => ({ sampleId: 'id' + i, index: i, level: 1, hpi: 1, solved: true, prediction: 'A', target: 'A', attempts: [] });
      for (let i = 0; i < 5; i++) s.saveSample('r', r(i));
      process.exit(0);`;
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    expect(committed(path)).toBe(5);
  });

  it('a commit that fails on its timer breaks the store: every later write throws (nothing is dropped silently), reads still work', async () => {
    const { s, path } = fresh({ maxWrites: 1000, maxDelayMs: 10 });
    const bad = result(0, 2);
    bad.attempts[1]!.calls.push({ ...bad.attempts[1]!.calls[0]! });
    s.saveSample('r', bad);
    await new Promise((r) => setTimeout(r, 60));
    const message = new RegExp(`cannot write to the store ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: UNIQUE.*1 of 1 queued writes lost`);
    expect(() => s.saveSample('r', result(1, 1))).toThrow(message);
    // not reported once and forgotten: the next writes fail the same way, with code E_STORE and exit code 1
    let second: unknown;
    try {
      s.saveSample('r', result(2, 1));
    } catch (e) {
      second = e;
    }
    expect(second).toMatchObject({ code: 'E_STORE', exitCode: 1 });
    expect(() => new CallCache(s.db, s).put('k', 'm', undefined, { text: 'x', usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop', latencyMs: 0 })).toThrow(message);
    expect(s.failure?.message).toMatch(message);
    expect(s.aggregate('r')).toMatchObject({ samples: 0 });
    // the run's state can still be recorded, and closing does not throw the error again
    expect(s.failRun('r', 'store failed')).toBe(true);
    expect(s.getRun('r')).toMatchObject({ status: 'failed', error: 'store failed' });
    expect(() => s.close()).not.toThrow();
  });

  it('rejects a group commit of no writes', () => {
    expect(() => new RunStore(':memory:', { groupCommit: { maxWrites: 0, maxDelayMs: 10 } })).toThrow(/invalid group commit/);
  });

  it('the call cache serves queued entries before they are committed, and counts hits in the group', () => {
    const { s, path } = fresh({ maxWrites: 1000, maxDelayMs: 60_000 });
    const cache = new CallCache(s.db, s);
    const response = { text: 'yes', usage: { promptTokens: 3, completionTokens: 1 }, finishReason: 'stop', latencyMs: 1 };
    cache.put('k1', 'openai:m', 'http://127.0.0.1:1/v1', response);
    cache.put('k1', 'openai:m', 'http://127.0.0.1:1/v1', { ...response, text: 'second' }); // first writer wins
    expect(cache.get('k1')).toEqual({ text: 'yes', usage: { promptTokens: 3, completionTokens: 1 }, finishReason: 'stop' });
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS c FROM call_cache').get()).toEqual({ c: 0 });
    expect(cache.stats()).toMatchObject({ entries: 1, hits: 1 }); // stats commits the queue first
    expect(db.prepare('SELECT response, hits FROM call_cache WHERE key = ?').get('k1')).toEqual({ response: JSON.stringify({ text: 'yes', usage: { promptTokens: 3, completionTokens: 1 }, finishReason: 'stop' }), hits: 1 });
    expect(cache.get('k2')).toBeUndefined();
    db.close();
    s.close();
  });
});
