/**
 * End-to-end (issue 15): all six HiBench scenarios through the HPF ladder against a local OpenAI-compatible server
 * that answers every sample right (the target as the scorer renders it), with the real OpenAI SDK path of the CLI:
 * each scenario is solved at level 1 (HPI 1.0), and the report's leaderboard has the six scenario columns at 100% and
 * the overall Avg, the mean of the six, then this plugin's code-structure and code-gen scenarios outside it.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sample } from '@hpt-bench/core';
import { HierarchyPaperScorer, HierarchyScorer, recordToSample, type AnyHibenchRecord } from '@hpt-bench/hibench';
import { startOpenAIServer, type TestServer } from '../helpers/openai-server.js';
import { runCli, SHARED } from '../helpers/cli.js';
import { jsonLines } from '../helpers/files.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-hibench-six-'));
const CODE = join(SHARED, 'data/hibench-code/code.jsonl');
const store = join(dir, 'six.db');
const lines = jsonLines;

/** The six scenarios (hibench.md §1.1): how to generate them and score them. */
const SCENARIOS: { id: string; data?: string; threshold?: number }[] = [
  { id: 'binary-tree' },
  { id: 'multiple-tree' },
  { id: 'json' },
  { id: 'code', data: CODE },
  { id: 'formula' },
  { id: 'paper', threshold: 0.5 },
];
/** This plugin's scenarios beyond the six: shown after Avg, outside it. */
const EXTENSIONS: { id: string; data?: string; threshold?: number }[] = [{ id: 'code-structure', data: CODE }, { id: 'code-gen' }];
const LIMIT = 24;

/** Every generated sample with the answer the scorer accepts, for the server to look up by question text. */
const answers: { question: string; answer: string }[] = [];
const files = new Map<string, string>();
let server: TestServer;

beforeAll(async () => {
  for (const sc of [...SCENARIOS, ...EXTENSIONS]) {
    const file = join(dir, `${sc.id}.jsonl`);
    const g = await runCli(['generate', `hibench/${sc.id}`, '--seed', '3', '--limit', String(LIMIT), '--out', file, ...(sc.data ? ['--data', sc.data] : [])]);
    expect(g.code, g.stderr).toBe(0);
    files.set(sc.id, file);
    const scorer = sc.id === 'paper' ? new HierarchyPaperScorer() : new HierarchyScorer();
    const options: Record<string, number> = sc.threshold === undefined ? {} : { threshold: sc.threshold };
    const ctx = { compat: 'strict' as const, options };
    lines(readFileSync(file, 'utf8')).forEach((r, i) => {
      const sample: Sample = recordToSample(r as unknown as AnyHibenchRecord, i);
      answers.push({ question: sample.input.question as string, answer: `Let me work through it.\n${scorer.renderTarget(sample, ctx)}` });
    });
  }
  // the longest question a prompt contains is its sample's (a zero-shot question is part of its one-shot prompt)
  answers.sort((a, b) => b.question.length - a.question.length);
  server = await startOpenAIServer((req) => {
    const user = req.messages.at(-1)!.content;
    const hit = answers.find((a) => user.includes(a.question));
    return { text: hit ? hit.answer : '{"answer": "no such sample"}' };
  });
}, 120_000);
afterAll(async () => server?.close());

describe('the six HiBench scenarios against a scripted OpenAI-compatible server', () => {
  it('each is solved at level 1 (HPI 1.0) through the real client', async () => {
    for (const sc of [...SCENARIOS, ...EXTENSIONS]) {
      const args = ['run', '--dataset', `hibench/${sc.id}`, '--data', files.get(sc.id)!, '--model', 'openai:test', '--base-url', `${server.url}/v1`, '--store', store, '--json'];
      if (sc.threshold !== undefined) args.push('--threshold', String(sc.threshold));
      const r = await runCli(args, { env: { OPENAI_API_KEY: 'sk-test' } });
      expect(r.code, `${sc.id}: ${r.stderr}`).toBe(0);
      const s = JSON.parse(r.stdout) as { n: number; hpi: number; levelCounts: Record<string, number>; calls: number };
      expect(s, sc.id).toMatchObject({ n: LIMIT, hpi: 1, levelCounts: { '1': LIMIT } });
      expect(s.calls, sc.id).toBe(LIMIT);
    }
    expect(server.requests).toHaveLength((SCENARIOS.length + EXTENSIONS.length) * LIMIT);
  }, 240_000);

  it('the leaderboard shows the six scenarios and their mean, then the extensions outside it', async () => {
    const r = await runCli(['report', '--store', store, '--format', 'md']);
    expect(r.code, r.stderr).toBe(0);
    const md = r.stdout.split('\n');
    expect(md).toContain('| Model | Binary | Multiple | JSON | Code | Formula | Paper | Avg | Code structure | Code (generated) |');
    expect(md).toContain(`| openai:test |${' 100.00 |'.repeat(9)}`);
    // one task table per scenario
    for (const label of ['Binary', 'Multiple', 'JSON', 'Code', 'Formula', 'Paper']) expect(r.stdout).toContain(`HiBench ${label}: accuracy (%) per task`);
  }, 60_000);
});
