/**
 * End-to-end: `hpt-bench run --full-ladder` (issue 28, item 4) with the built CLI against a scripted OpenAI-compatible
 * server whose replies depend only on the request's content (the question and the level's wording). A full-ladder run
 * and an early-exit run give the same per-sample levels and HPI (hpt.md §2.1–2.2); the full-ladder run stores all m
 * attempts of every sample (`RunStore.ladderVerdictRows`, `--out`), and the HPI recomputed from its stored verdicts is
 * the run's. The option is part of the run's identity (no resume across it), refused in adaptive mode, counted by
 * `plan`, and an evaluation file's `fullLadder` is the flag.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore, type RunPlanEstimate, type SampleResult } from '@hpt-bench/core';
import { runCli } from '../helpers/cli.js';
import { boolqGradedLevel } from '../helpers/boolq-levels.js';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-full-ladder-'));
/** BoolQ's HPI_Dataset (the hpt-datasets manifest) and the HPF ladder's calls per level on the BoolQ pack. */
const HPI_DATASET = 1.71;
const CALLS = [1, 1, 1, 4, 4];
const M = 5;

/** The levels whose graded answer is right, per question (written by hand: solves above the first one, none, all). */
const SOLVES: number[][] = [[2, 4], [], [1], [3, 5], [5], [1, 2, 3, 4, 5], [4], [2, 3]];
const ANSWERS = SOLVES.map((_, i) => i % 2 === 0);
/** The first solving level of question i (undefined: unsolved). */
const firstSolved = (i: number): number | undefined => SOLVES[i]![0];

/** A BoolQ file (Hugging Face layout): question i is `is fl question <i> true`, answer ANSWERS[i]. */
function boolqData(path: string): void {
  writeFileSync(path, `${SOLVES.map((_, i) => JSON.stringify({ question: `is fl question ${i} true`, passage: `passage fl ${i}`, answer: ANSWERS[i] })).join('\n')}\n`);
}


/** The reply to a request: a function of its content only (so cached and fresh answers agree). */
function reply(r: ReceivedRequest, fail?: (q: number, level: number | undefined) => boolean): Reply {
  const user = r.messages.filter((m) => m.role === 'user').at(-1)!.content;
  const q = Number(/\bfl (?:question )?(\d+)/.exec(user)?.[1]);
  const level = boolqGradedLevel(user);
  if (fail?.(q, level)) return { status: 400, body: { error: { message: 'bad request' } } };
  if (level === undefined) return { text: 'Some notes.', logprobs: [-0.1, -0.2] };
  const right = SOLVES[q]!.includes(level);
  return { text: String(right ? ANSWERS[q] : !ANSWERS[q]) === 'true' ? 'True' : 'False' };
}

interface Summary {
  runId: string;
  n: number;
  hpi: number;
  accuracy: number;
  levelCounts: Record<string, number>;
  calls: number;
  cachedCalls: number;
  complete: boolean;
}

type PlanCell = RunPlanEstimate & { modelLabel: string; datasetLabel: string };

let server: TestServer;
let failing: ((q: number, level: number | undefined) => boolean) | undefined;
const data = join(dir, 'boolq.jsonl');
beforeAll(async () => {
  boolqData(data);
  server = await startOpenAIServer((r) => reply(r, failing));
});
afterAll(async () => server?.close());

const flags = (store: string, ...more: string[]) => ['--dataset', 'boolq', '--data', data, '--model', 'openai:m', '--base-url', server.url, '--store', store, '--concurrency', '2', '--max-retries', '0', ...more];
const summaryOf = (r: { code: number | null; stdout: string; stderr: string }): Summary => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Summary;
};
const planOf = async (store: string, ...more: string[]): Promise<PlanCell> => {
  const r = await runCli(['plan', ...flags(store, ...more), '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as PlanCell[])[0]!;
};
const outOf = (path: string): SampleResult[] => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as SampleResult);

describe('run --full-ladder', () => {
  it('gives the early-exit levels and HPI, stores every level of every sample, recomputes its HPI from the stored verdicts; plan counts it', async () => {
    const store = join(dir, 'same.db');
    const earlyOut = join(dir, 'early.jsonl');
    const fullOut = join(dir, 'full.jsonl');
    const early = summaryOf(await runCli(['run', ...flags(store, '--out', earlyOut, '--json')]));
    const earlyRequests = server.requests.length;

    // plan: the full-ladder estimate is the upper bound (an early-exit run's calls per sample undercount it); the
    // early-exit plan takes its estimate from the early-exit run
    const planFull = await planOf(store, '--full-ladder');
    expect(planFull).toMatchObject({ samples: 8, remaining: 8, maxCallsPerSample: 11, callsPerLevel: CALLS, callsUpperBound: 88, callsEstimate: 88 });
    expect(planFull.estimateFrom).toBeUndefined();
    expect(planFull.storedIn).toBeUndefined();
    const planEarly = await planOf(store);
    expect(planEarly.estimateFrom).toMatchObject({ runId: early.runId, callsPerSample: early.calls / 8 });
    expect(planEarly.callsEstimate).toBe(early.calls);
    expect(planFull.configHash).not.toBe(planEarly.configHash);
    expect(server.requests.length).toBe(earlyRequests);

    const full = summaryOf(await runCli(['run', ...flags(store, '--full-ladder', '--out', fullOut, '--json')]));
    expect(full.runId).not.toBe(early.runId);

    // the expected result, from the script (first solving level, else m + HPI_Dataset)
    const levels = SOLVES.map((_, i) => firstSolved(i) ?? null);
    const hpi = levels.reduce<number>((a, l) => a + (l ?? M + HPI_DATASET), 0) / SOLVES.length;
    for (const s of [early, full]) {
      expect(s).toMatchObject({ n: 8, complete: true, accuracy: levels.filter((l) => l !== null).length / 8 });
      expect(s.hpi).toBeCloseTo(hpi, 12);
      expect(s.levelCounts).toEqual({ '1': 2, '2': 2, '3': 1, '4': 1, '5': 1, unsolved: 1 });
    }
    expect(full.hpi).toBe(early.hpi);
    // calls: every level of every sample; those up to the early-exit stop were the same requests (answered from the cache)
    expect(full.calls).toBe(8 * 11);
    expect(full.cachedCalls).toBe(early.calls);
    const above = SOLVES.reduce((a, _, i) => a + CALLS.slice(firstSolved(i) ?? M).reduce((x, y) => x + y, 0), 0);
    expect(server.requests.length - earlyRequests).toBe(above);
    expect(early.calls + above).toBe(88);

    // per sample: the same level, HPI, prediction; the full-ladder records hold all m attempts
    const eo = outOf(earlyOut);
    const fo = outOf(fullOut);
    expect(fo.map((r) => [r.sampleId, r.level, r.hpi, r.solved, r.prediction])).toEqual(eo.map((r) => [r.sampleId, r.level, r.hpi, r.solved, r.prediction]));
    expect(fo.map((r) => r.level)).toEqual(levels);
    expect(fo.map((r) => r.attempts.map((a) => a.level))).toEqual(fo.map(() => [1, 2, 3, 4, 5]));
    expect(eo.map((r) => r.attempts.length)).toEqual(levels.map((l) => l ?? M));

    // the stored verdicts: m per sample in the full-ladder run, the script's verdicts; HPI recomputed from them
    const db = new RunStore(store, { readonly: true });
    try {
      const rows = db.ladderVerdictRows(full.runId);
      expect(rows).toHaveLength(8 * M);
      expect(rows.map((r) => [r.index, r.level])).toEqual(SOLVES.flatMap((_, i) => [1, 2, 3, 4, 5].map((l) => [i, l])));
      expect(rows.map((r) => r.solved)).toEqual(SOLVES.flatMap((s) => [1, 2, 3, 4, 5].map((l) => s.includes(l))));
      const bySample = new Map<number, boolean[]>();
      for (const r of rows) bySample.set(r.index, [...(bySample.get(r.index) ?? []), r.solved]);
      const recomputed = [...bySample.values()].reduce((a, v) => a + (v.indexOf(true) >= 0 ? v.indexOf(true) + 1 : M + HPI_DATASET), 0) / bySample.size;
      expect(recomputed).toBeCloseTo(full.hpi, 12);
      expect(db.ladderVerdictRows(early.runId)).toHaveLength(levels.reduce<number>((a, l) => a + (l ?? M), 0));

      // the run records that it is full-ladder: its stored configuration and its fingerprint
      const fr = db.getRun(full.runId)!;
      const er = db.getRun(early.runId)!;
      expect(fr.config.fullLadder).toBe(true);
      expect(fr.fingerprint?.fullLadder).toBe(true);
      expect(er.config.fullLadder).toBeUndefined();
      expect(er.fingerprint).not.toHaveProperty('fullLadder');
      expect(fr.configHash).toBe(planFull.configHash);
      expect(er.configHash).toBe(planEarly.configHash);
    } finally {
      db.close();
    }

    // a later full-ladder plan takes its estimate from the full-ladder run (every level's calls per sample)
    const after = await planOf(store, '--full-ladder');
    expect(after.estimateFrom).toMatchObject({ runId: full.runId, callsPerSample: 11 });
    expect(after.callsEstimate).toBe(88);
    const requests = server.requests.length;

    // an evaluation file's fullLadder is the flag: the same run identity
    writeFileSync(join(dir, 'eval.yaml'), [`datasets: [{ id: boolq, data: ${data} }]`, `models: [{ id: 'openai:m', baseUrl: '${server.url}' }]`, 'fullLadder: true', 'maxRetries: 0', ''].join('\n'));
    const file = await runCli(['plan', '--config', join(dir, 'eval.yaml'), '--store', store, '--json']);
    expect(file.code, file.stderr).toBe(0);
    expect((JSON.parse(file.stdout) as PlanCell[])[0]!.configHash).toBe(planFull.configHash);
    expect(server.requests.length).toBe(requests);
  });

  it('is part of the run identity: a full-ladder run does not continue an unfinished early-exit run, which an early-exit run then continues', async () => {
    const store = join(dir, 'resume.db');
    // question 6's level-1 call fails (400, not retried): its sample is errored and the early-exit run left failed
    failing = (q, level) => q === 6 && level === 1;
    const first = await runCli(['run', ...flags(store, '--json')]);
    failing = undefined;
    expect(first.code, first.stderr).toBe(1);
    const db = () => new RunStore(store, { readonly: true });
    const s1 = db();
    const [failed] = s1.listRuns();
    s1.close();
    expect(failed).toMatchObject({ status: 'failed' });

    const full = summaryOf(await runCli(['run', ...flags(store, '--full-ladder', '--json')]));
    expect(full.runId).not.toBe(failed!.id);
    expect(full.n).toBe(8);
    const again = summaryOf(await runCli(['run', ...flags(store, '--json')]));
    expect(again.runId).toBe(failed!.id); // the early-exit run was unfinished and continuable all along
    expect(again.hpi).toBe(full.hpi);
    const s2 = db();
    try {
      const runs = s2.listRuns();
      expect(runs).toHaveLength(2);
      expect(new Set(runs.map((r) => r.configHash)).size).toBe(2);
      expect(runs.every((r) => r.status === 'completed')).toBe(true);
    } finally {
      s2.close();
    }
  });

  it('is refused in adaptive mode before anything is called or stored (exit 2, E_CONFIG)', async () => {
    const store = join(dir, 'adaptive.db');
    const requests = server.requests.length;
    const r = await runCli(['run', ...flags(store, '--mode', 'adaptive', '--selector', 'fixed:2', '--full-ladder')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Error: --full-ladder applies to the manual ladder only: in adaptive mode the selector picks the levels');
    const json = await runCli(['run', ...flags(store, '--mode', 'adaptive', '--selector', 'fixed:2', '--full-ladder', '--json')]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'E_CONFIG' } });
    const plan = await runCli(['plan', ...flags(store, '--mode', 'adaptive', '--selector', 'fixed:2', '--full-ladder')]);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain('--full-ladder applies to the manual ladder only');
    expect(server.requests.length).toBe(requests);
    if (existsSync(store)) {
      const s = new RunStore(store, { readonly: true });
      try {
        expect(s.listRuns()).toEqual([]);
      } finally {
        s.close();
      }
    }
  });

  it('run --help and plan --help show the flag', async () => {
    for (const cmd of ['run', 'plan']) {
      const r = await runCli([cmd, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/--full-ladder\s+run every level on every sample \(no early exit/);
    }
  });
});
