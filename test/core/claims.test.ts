/**
 * Claims of several workers on one run (store/claims.ts, run/share.ts) on the real SQLite store: two connections to
 * one file, and two processes racing for the same blocks, never hold one block together; a lease that is not renewed
 * expires and the block is taken over (naming the worker it was taken from); a renewed lease holds; a done block is
 * never taken again; released claims are taken at once; a worker whose process died on this host loses its blocks
 * without waiting for the lease.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { blockOf, blockRange, CLAIM_BLOCK, RunShare, RunStore, type SampleResult } from '@hpt-bench/core';
import { ROOT } from '../helpers/cli.js';

const newPath = () => join(mkdtempSync(join(tmpdir(), 'hpt-claims-')), 's.db');
const create = (store: RunStore, id = 'r') => store.createRun({ id, dataset: 'd', model: 'm', mode: 'manual', config: {} });
const result = (index: number): SampleResult => ({
  sampleId: `s${index}`, index, level: 1, hpi: 1, solved: true, prediction: true, target: true,
  attempts: [{ level: 1, strategy: 'role', solved: true, score: 1, extracted: true, graded: { promptText: '', completion: 'True', cue: '' }, calls: [] }],
});

describe('claims on one SQLite file', () => {
  it('blocks are cut by index; two connections never hold one block; the holder renews, the other waits for the lease', () => {
    expect(CLAIM_BLOCK).toBe(32);
    expect([blockOf(0), blockOf(31), blockOf(32), blockOf(999)]).toEqual([0, 0, 1, 31]);
    expect(blockRange(2)).toEqual([64, 95]);
    const path = newPath();
    const a = new RunStore(path);
    const b = new RunStore(path);
    create(a);
    const t = 1_000_000;
    // interleaved: each block goes to the first, the second is refused
    for (let block = 0; block < 10; block++) {
      const [first, second] = block % 2 ? [b, a] : [a, b];
      const [fw, sw] = block % 2 ? ['B', 'A'] : ['A', 'B'];
      expect(first.claimBlock('r', block, fw, t, 100)).toBe(true);
      expect(second.claimBlock('r', block, sw, t, 100)).toBe(false);
    }
    expect(a.openClaims('r').map((c) => c.worker)).toEqual(['A', 'B', 'A', 'B', 'A', 'B', 'A', 'B', 'A', 'B']);
    // renewal: A renews at t + 90 (its leases now run to t + 190); B cannot take block 0 at t + 150
    expect(a.renewClaims('r', 'A', t + 90, 100)).toEqual([0, 2, 4, 6, 8]);
    expect(b.claimBlock('r', 0, 'B', t + 150, 100)).toBe(false);
    // B did not renew: its block 1 expired at t + 100, A takes it at t + 150, naming B
    expect(a.claimBlock('r', 1, 'A', t + 150, 100)).toBe(true);
    expect(b.openClaims('r').find((c) => c.block === 1)).toEqual({ block: 1, worker: 'A', leaseUntil: t + 250, done: false, takenFrom: 'B' });
    expect(b.renewClaims('r', 'B', t + 160, 100)).toEqual([3, 5, 7, 9]);
    // the holder claiming its own block again renews it (no take-over recorded)
    expect(a.claimBlock('r', 1, 'A', t + 200, 100)).toBe(true);
    expect(a.openClaims('r').find((c) => c.block === 1)).toMatchObject({ worker: 'A', leaseUntil: t + 300, takenFrom: 'B' });
    expect(a.claimCounts('r')).toEqual({ blocks: 10, done: 0, takenOver: 1 });
    a.close();
    b.close();
  });

  it('a done block is never taken again; released claims are taken at once; claims are per run', () => {
    const path = newPath();
    const a = new RunStore(path);
    const b = new RunStore(path);
    create(a, 'r');
    create(a, 'other');
    const t = 5_000;
    expect(a.claimBlock('r', 0, 'A', t, 100)).toBe(true);
    expect(a.claimBlock('r', 1, 'A', t, 100)).toBe(true);
    // block 0 done, in the same group commit as its last sample
    a.saveSample('r', result(3));
    a.completeBlock('r', 0, 'A');
    expect(b.openClaims('r').map((c) => c.block)).toEqual([0, 1]); // not committed yet: b reads the file
    a.flush();
    expect(b.openClaims('r').map((c) => c.block)).toEqual([1]);
    expect(b.doneIndices('r', 0, 31)).toEqual(new Set([3]));
    expect(b.claimBlock('r', 0, 'B', t + 10_000, 100)).toBe(false); // done: even long after the lease
    // a worker that stops releases its open blocks: taken at once, before the lease ends
    expect(b.claimBlock('r', 1, 'B', t + 1, 100)).toBe(false);
    expect(a.releaseClaims('r', 'A')).toBe(1);
    expect(b.claimBlock('r', 1, 'B', t + 1, 100)).toBe(true);
    // another run's block 0 is another claim
    expect(b.claimBlock('other', 0, 'B', t, 100)).toBe(true);
    expect(a.claimCounts('other')).toEqual({ blocks: 1, done: 0, takenOver: 0 });
    a.resetClaims('r');
    expect(a.openClaims('r')).toEqual([]);
    expect(a.claimCounts('other').blocks).toBe(1);
    a.close();
    b.close();
  });

  it('two processes racing for the same 300 blocks: each block is won by exactly one', async () => {
    const path = newPath();
    const s = new RunStore(path);
    create(s);
    s.close();
    const core = pathToFileURL(join(ROOT, 'packages/core/dist/index.js')).href;
    const script = `import { RunStore } from ${JSON.stringify(core)};
      const s = new RunStore(${JSON.stringify(path)});
      const won = [];
      for (let b = 0; b < 300; b++) if (s.claimBlock('r', b, process.argv[1])) won.push(b);
      s.close();
      process.stdout.write(JSON.stringify(won));`;
    const race = (name: string) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, name], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      return once(child, 'close').then(([code]) => {
        expect(code).toBe(0);
        return JSON.parse(out) as number[];
      });
    };
    const [x, y] = await Promise.all([race('X'), race('Y')]);
    expect(x.length + y.length).toBe(300);
    expect(new Set([...x, ...y]).size).toBe(300);
    const check = new RunStore(path);
    const rows = check.openClaims('r');
    expect(rows.filter((r) => r.worker === 'X').map((r) => r.block)).toEqual(x);
    expect(rows.filter((r) => r.worker === 'Y').map((r) => r.block)).toEqual(y);
    check.close();
  });

  it('a sample recorded by two workers (a lease lost by a frozen worker) keeps the first record; neither write fails', () => {
    const path = newPath();
    const a = new RunStore(path);
    const b = new RunStore(path);
    create(a);
    b.saveSample('r', { ...result(5), hpi: 2, level: 2 });
    b.flush();
    a.saveSample('r', result(5));
    a.saveErrored('r', { id: 's5', index: 5, target: true }, 'HTTP 500');
    a.saveSample('r', result(6));
    a.flush();
    expect(a.failure).toBeUndefined();
    expect(a.aggregate('r')).toMatchObject({ samples: 2, errored: 0, hpiSum: 3 });
    expect(a.db.prepare('SELECT COUNT(*) AS c FROM attempts WHERE run_id = ? AND idx = 5').get('r')).toEqual({ c: 1 });
    a.close();
    b.close();
  });

  it('workers are listed with their state and figures', () => {
    const s = new RunStore(newPath());
    create(s);
    s.registerWorker('r', 'h:1');
    s.registerWorker('r', 'h:2');
    s.updateWorker('r', 'h:1', { samples: 40, claims: 2 });
    s.updateWorker('r', 'h:2', { state: 'left' });
    expect(s.listWorkers('r').map(({ worker, state, samples, claims }) => ({ worker, state, samples, claims }))).toEqual([
      { worker: 'h:1', state: 'running', samples: 40, claims: 2 },
      { worker: 'h:2', state: 'left', samples: 0, claims: 0 },
    ]);
    s.registerWorker('r', 'h:1'); // the same host:pid again: a new start
    expect(s.listWorkers('r').find((w) => w.worker === 'h:1')).toMatchObject({ state: 'running', samples: 0 });
    s.close();
  });
});

describe('RunShare (one worker of a shared run)', () => {
  it('evaluates only the unrecorded samples of blocks it claims, marks a block done once the stream moved past it, and skips blocks another worker holds', () => {
    const path = newPath();
    const s1 = new RunStore(path);
    const s2 = new RunStore(path);
    create(s1);
    const a = new RunShare(s1, 'r', 'A', 4);
    const b = new RunShare(s2, 'r', 'B', 4);
    // A streams 0..5: block 0 (0..3) claimed, index 1 recorded before this invocation (skipped)
    const admittedA = [0, 1, 2, 3, 4, 5].filter((i) => a.admit(i, i === 1));
    expect(admittedA).toEqual([0, 2, 3, 4, 5]);
    // B streams everything: blocks 0 and 1 are A's; it takes block 2 (8..11)
    s2.saveSample('r', result(9));
    s2.flush();
    const admittedB = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].filter((i) => b.admit(i, false));
    expect(admittedB).toEqual([8, 10, 11]); // 9 is recorded
    expect(b.shared).toBe(true);
    // block 0 is closed (A's stream moved to block 1) but 3 is still pending: not done
    for (const i of [0, 2]) {
      s1.saveSample('r', result(i));
      a.finish(i);
    }
    s1.flush();
    expect(s2.openClaims('r').map((c) => c.block)).toEqual([0, 1, 2]);
    s1.saveSample('r', result(3));
    a.finish(3);
    s1.flush();
    expect(s2.openClaims('r').map((c) => c.block)).toEqual([1, 2]);
    // block 1 is done only at the end of A's stream
    for (const i of [4, 5]) {
      s1.saveSample('r', result(i));
      a.finish(i);
    }
    s1.flush();
    expect(s2.openClaims('r').map((c) => c.block)).toEqual([1, 2]);
    a.endPass();
    expect(a.openBlocks()).toBe(1);
    expect(a.claims).toBe(2);
    s1.close();
    s2.close();
  });

  it('a worker that missed its lease is told once, and does not mark the block it lost as done', () => {
    const path = newPath();
    const s1 = new RunStore(path);
    const s2 = new RunStore(path);
    create(s1);
    const a = new RunShare(s1, 'r', 'A', 4);
    expect(a.admit(0, false)).toBe(true);
    expect(a.admit(1, false)).toBe(true);
    // B takes the block after A's lease ran out (A was frozen)
    expect(s2.claimBlock('r', 0, 'B', Date.now() + 31_000)).toBe(true);
    const warnings: string[] = [];
    const logger = { debug: () => undefined, info: () => undefined, warn: (m: string) => void warnings.push(m) };
    a.heartbeat(logger);
    a.heartbeat(logger);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/block 0 of run r was taken over by another worker/);
    for (const i of [0, 1]) {
      s1.saveSample('r', result(i));
      a.finish(i);
    }
    a.endPass();
    expect(s2.openClaims('r')).toEqual([expect.objectContaining({ block: 0, worker: 'B', done: false, takenFrom: 'A' })]);
    s1.close();
    s2.close();
  });

  it('takes over at once the blocks of a worker whose process died on this host, and leaves a live one alone', async () => {
    const path = newPath();
    const s = new RunStore(path);
    create(s);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    const dead = `${hostname()}:${child.pid}`;
    try {
      expect(s.claimBlock('r', 0, dead)).toBe(true);
      expect(s.claimBlock('r', 1, 'elsewhere:7')).toBe(true); // another host, fresh lease
      const me = new RunShare(s, 'r', 'me');
      expect(me.takeOver()).toEqual(new Set()); // both alive
      child.kill('SIGKILL');
      await once(child, 'exit');
      expect(me.takeOver()).toEqual(new Set([0]));
      expect(s.openClaims('r')).toEqual([expect.objectContaining({ block: 0, worker: 'me', takenFrom: dead }), expect.objectContaining({ block: 1, worker: 'elsewhere:7' })]);
      // the other host's lease runs out: taken over too
      expect(me.takeOver(Date.now() + 31_000)).toEqual(new Set([1]));
      expect(me.takenOver).toBe(2);
      expect(me.claims).toBe(2);
      // the take-over pass evaluates the blocks' samples without claiming again; they are done at its end
      const statements = me.claimAttempts;
      expect([0, 1, 2, 31, 32, 33, 64].filter((i) => me.admit(i, false, new Set([0, 1])))).toEqual([0, 1, 2, 31, 32, 33]);
      expect(me.claimAttempts).toBe(statements);
      for (const i of [0, 1, 2, 31, 32, 33]) me.finish(i);
      me.endPass();
      expect(me.openBlocks()).toBe(0);
    } finally {
      child.kill('SIGKILL');
      s.close();
    }
  });
});
