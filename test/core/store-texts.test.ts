import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { decodeMessages, encodeContent, encodeMessages, RunStore, SHARED_CHUNK_MIN, textHash, type SampleResult } from '@hpt-bench/core';

/** A paper-like input: `paragraphs` lines of about 900 characters, distinct per `seed`. */
function paper(seed: number, paragraphs = 30): string {
  const lines = ['<<<Title>>>', `Paper ${seed}`];
  for (let p = 0; p < paragraphs; p++) lines.push(`<<<Section ${p}>>>`, `${seed}:${p} ` + 'lorem ipsum dolor sit amet '.repeat(33));
  return lines.join('\n');
}

/** A sample whose ladder climbs `levels` levels, each prompt wrapping the same paper in different text. */
function result(index: number, doc: string, levels: number): SampleResult {
  const attempts = Array.from({ length: levels }, (_, i) => {
    const prompt = i % 2 ? `Read the paper, then answer step by step.\n${doc}\nQuestion: what is section ${i}?` : `${doc}\n\nLet's think. Level ${i + 1}.`;
    return {
      level: i + 1,
      strategy: `s${i + 1}`,
      solved: i === levels - 1,
      score: i === levels - 1 ? 1 : 0,
      extracted: 'x',
      graded: { promptText: prompt, completion: 'x', cue: 'Answer:' },
      calls: [{ seq: 0, purpose: 'graded' as const, model: 'm', messages: [{ role: 'system' as const, content: 'You are a reader.' }, { role: 'user' as const, content: prompt }], output: 'x', usage: { promptTokens: 10, completionTokens: 2 }, latencyMs: 5, finishReason: 'stop' }],
    };
  });
  return { sampleId: `id${index}`, index, level: levels, hpi: levels, solved: true, prediction: 'x', target: 'x', attempts };
}

describe('shared prompt text (store/texts.ts)', () => {
  it('round-trips any content: short, long lines, line ends, empty lines, CRLF, lone surrogates and NUL kept inline', () => {
    const long = 'a'.repeat(SHARED_CHUNK_MIN);
    const cases = [
      '',
      'short',
      long,
      `${long}\n`,
      `\n${long}\n\n${long}x\n`,
      `head ${'b'.repeat(400)}\r\n${long}\r\ntail`,
      `${'c'.repeat(SHARED_CHUNK_MIN - 1)}\n${'d'.repeat(SHARED_CHUNK_MIN - 1)}`,
      `${'e'.repeat(300)}\uD800${'e'.repeat(10)}\n${long}`,
      `${'f'.repeat(300)}\0\n${long}`,
      `${'g'.repeat(300)}😀\n`,
    ];
    const texts = new Map<string, string>();
    for (const content of cases) {
      const json = encodeMessages([{ role: 'user', content }], (h, b) => texts.set(h, b));
      expect(decodeMessages(json, (h) => texts.get(h))).toEqual([{ role: 'user', content }]);
    }
    // a content shorter than SHARED_CHUNK_MIN, or whose chunks all are, stays a plain string (the form of every older row)
    expect(encodeContent('c'.repeat(SHARED_CHUNK_MIN - 1), () => undefined)).toBe('c'.repeat(SHARED_CHUNK_MIN - 1));
    // chunks with a lone surrogate or NUL are never shared (raw TEXT would change them)
    const put: string[] = [];
    encodeContent(`${'e'.repeat(300)}\uD800`, (h) => put.push(h));
    encodeContent(`${'f'.repeat(300)}\0`, (h) => put.push(h));
    expect(put).toEqual([]);
    // one long line is one shared chunk, stored exactly under its hash
    const stored = new Map<string, string>();
    expect(encodeContent(long, (h, b) => stored.set(h, b))).toEqual({ $parts: [{ $t: textHash(long) }] });
    expect(stored.get(textHash(long))).toBe(long);
  });

  it('chunks are cut by content: text put before and after an input leaves its inner chunks the same', () => {
    const doc = paper(3);
    const chunks = (content: string) => {
      const hashes: string[] = [];
      encodeContent(content, (h) => hashes.push(h));
      return hashes;
    };
    const alone = chunks(doc);
    const wrapped = chunks(`You are an expert reader.\nQuestion: what does section 4 say?\nContext: ${doc}\n\nAnswer in one line.`);
    const inner = alone.slice(1, -1);
    expect(inner.length).toBeGreaterThan(10);
    expect(wrapped.filter((h) => inner.includes(h))).toEqual(inner);
    // the chunks cover the input: a paper of 30 paragraphs is 30-ish references, not one per line
    expect(alone.length).toBeLessThan(31);
  });

  it('a missing shared text is a clear E_STORE error, not a wrong prompt', () => {
    const json = encodeMessages([{ role: 'user', content: 'z'.repeat(500) }], () => undefined);
    expect(() => decodeMessages(json, () => undefined)).toThrow(/lacks shared text [0-9a-f]{32}.*damaged/);
  });

  it('a real store keeps each paper line once across levels, samples and runs, and reads every prompt back exactly', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-texts-'));
    const store = new RunStore(join(dir, 'x.db'));
    const docs = [paper(1), paper(2)];
    // two runs (two models) over the same two papers, each sample asked about its paper at 5 levels; sample 2 repeats paper 1
    for (const run of ['r1', 'r2']) {
      store.createRun({ id: run, dataset: 'hibench/paper', model: run, mode: 'manual', config: {} });
      store.saveSample(run, result(0, docs[0]!, 5));
      store.saveSample(run, result(1, docs[1]!, 5));
      store.saveSample(run, result(2, docs[0]!, 3));
    }
    store.flush();
    // each paper's chunks are stored once (a few per paper differ by the text the level wraps around it), for 26 calls that each carry a whole paper
    const texts = (store.db.prepare('SELECT COUNT(*) AS n FROM texts').get() as { n: number }).n;
    expect(texts).toBeGreaterThan(2 * 10);
    expect(texts).toBeLessThan(2 * 31 + 10);
    const stored = store.db.prepare('SELECT SUM(LENGTH(messages)) AS b FROM calls').get() as { b: number };
    const carried = 2 * (5 * docs[0]!.length + 5 * docs[1]!.length + 3 * docs[0]!.length);
    expect(stored.b).toBeLessThan(carried / 10);
    for (const run of ['r1', 'r2']) {
      const back = [...store.iterSamples(run)];
      expect(back).toEqual([result(0, docs[0]!, 5), result(1, docs[1]!, 5), result(2, docs[0]!, 3)]);
    }
    store.close();
    expect(statSync(join(dir, 'x.db')).size).toBeLessThan(carried / 3);
  });

  it('a shared text whose transaction rolled back is written again by the next sample that uses it (no dangling reference)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-texts-'));
    const store = new RunStore(join(dir, 'x.db'), { groupCommit: { maxWrites: 100, maxDelayMs: 60_000 } });
    store.createRun({ id: 'r', dataset: 'd', model: 'm', mode: 'manual', config: {} });
    const doc = paper(7, 4);
    // sample 0 commits the paper's lines; then a group with sample 1 (the same lines) fails as a whole and is retried
    // one write at a time: sample 1 alone commits, the failing write is lost
    store.saveSample('r', result(0, doc, 2));
    store.flush();
    const committed = (store.db.prepare('SELECT COUNT(*) AS n FROM texts').get() as { n: number }).n;
    expect(committed).toBeGreaterThan(0);
    // a group whose texts are new (another paper), rolled back once: its retry must insert them again
    const other = paper(8, 4);
    store.saveSample('r', result(1, other, 2));
    store.defer(() => {
      throw new Error('disk full (simulated)');
    });
    expect(() => store.flush()).toThrow(/1 of 2 queued writes lost/);
    const back = new RunStore(join(dir, 'x.db'), { readonly: true });
    expect([...back.iterSamples('r')]).toEqual([result(0, doc, 2), result(1, other, 2)]);
    back.close();
    store.close();
  });

  it('rows written before shared texts existed (plain JSON messages) read as before, and such a store gains the table', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hpt-texts-')), 'old.db');
    const first = new RunStore(path);
    first.createRun({ id: 'r', dataset: 'd', model: 'm', mode: 'manual', config: {} });
    first.close();
    const db = new Database(path);
    db.exec('DROP TABLE texts');
    const content = `${'q'.repeat(700)}\nshort`;
    db.prepare("INSERT INTO samples (run_id, idx, sample_id, level, hpi, solved, prediction, target) VALUES ('r', 0, 'a', 1, 1, 1, '\"x\"', '\"x\"')").run();
    db.prepare("INSERT INTO attempts (run_id, idx, attempt, level, strategy, solved, score, extracted, graded) VALUES ('r', 0, 0, 1, 's1', 1, 1, '\"x\"', '{}')").run();
    db.prepare("INSERT INTO calls (run_id, idx, attempt, level, seq, purpose, model, messages, output, prompt_tokens, completion_tokens, latency_ms, finish_reason) VALUES ('r', 0, 0, 1, 0, 'graded', 'm', ?, 'x', 1, 1, 1, 'stop')").run(JSON.stringify([{ role: 'user', content }]));
    db.close();
    const ro = new RunStore(path, { readonly: true });
    expect([...ro.iterSamples('r')][0]!.attempts[0]!.calls[0]!.messages).toEqual([{ role: 'user', content }]);
    ro.close();
    const rw = new RunStore(path);
    expect(rw.db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'texts'").get()).toEqual({ n: 1 });
    rw.close();
  });
});
