/**
 * End-to-end: `hpt-bench plan` (issue 16) with the built CLI as a process against a local OpenAI-compatible server
 * that records requests: before any run (nothing stored or cached, the upper bound of every level climbed), after an
 * unfinished run (stored and cached samples, a smaller remaining bound, the run it would continue), an evaluation
 * file (one row per cell), `--json`, `--prices`, and an estimate from an earlier completed run. Every plan leaves the
 * server without a request.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunPlanEstimate } from '@hpt-bench/core';
import { runCli } from '../helpers/cli.js';
import { startOpenAIServer, type ReceivedRequest, type TestServer } from '../helpers/openai-server.js';

/** One cell of `plan --json`: the core's estimate plus the CLI's row labels. */
type PlanCell = RunPlanEstimate & { modelLabel: string; datasetLabel: string };

const tmp = () => mkdtempSync(join(tmpdir(), 'hpt-plan-'));
/** The HPF ladder's calls per level (levels 4 and 5 make 4 calls each: README "The output"). */
const HPF_CALLS = [1, 1, 1, 4, 4];
const HPF_MAX = 11;

/** A BoolQ file (Hugging Face layout) of `n` questions `is <tag> question <i> true`. */
function boolqData(path: string, n: number, tag = 'plan'): void {
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ question: `is ${tag} question ${i} true`, passage: `passage ${tag} ${i}`, answer: i % 2 === 1 }));
  writeFileSync(path, `${lines.join('\n')}\n`);
}

const questionOf = (r: ReceivedRequest) => /question (\d+)/.exec(r.messages.map((m) => m.content).join('\n'))?.[1];
const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function server(rule: Parameters<typeof startOpenAIServer>[0]): Promise<TestServer> {
  const s = await startOpenAIServer(rule);
  servers.push(s);
  return s;
}

describe('hpt-bench plan', () => {
  it('before any run: nothing stored or cached, the upper bound climbs every level; an interrupted run then shows stored and cached samples; nothing is called', async () => {
    const dir = tmp();
    const data = join(dir, 'boolq.jsonl');
    boolqData(data, 6);
    const store = join(dir, 'store.db');
    // questions 4 and 5: the first call (level 1) is answered, every later one fails (400: not retried), so the run
    // ends unfinished with those two samples errored and their level-1 calls in the cache
    const seen = new Map<string, number>();
    const s = await server((r) => {
      const q = questionOf(r) ?? '';
      const n = (seen.get(q) ?? 0) + 1;
      seen.set(q, n);
      if ((q === '4' || q === '5') && n > 1) return { status: 400, body: { error: { message: 'bad request' } } };
      return { text: 'I cannot tell.' };
    });
    const flags = ['--dataset', 'boolq', '--data', data, '--model', 'openai:m', '--base-url', s.url, '--store', store, '--concurrency', '1', '--max-retries', '0'];

    const before = await runCli(['plan', ...flags, '--json']);
    expect(before.stderr).toBe('');
    expect(before.code).toBe(0);
    const [p0] = JSON.parse(before.stdout) as PlanCell[];
    expect(p0).toMatchObject({ model: 'openai:m', dataset: 'boolq', samples: 6, stored: 0, remaining: 6, cached: 0, seed: 0 });
    expect(p0!.storedIn).toBeUndefined();
    expect(p0!.callsPerLevel).toEqual(HPF_CALLS);
    expect(p0!.maxCallsPerSample).toBe(HPF_MAX);
    expect(p0!.callsUpperBound).toBe(6 * HPF_MAX);
    expect(p0!.callsEstimate).toBe(6 * HPF_MAX);
    expect(s.requests).toHaveLength(0);
    expect(existsSync(store)).toBe(false); // the plan reads a store, never creates one

    const run = await runCli(['run', ...flags, '--json']);
    expect(run.code).toBe(1);
    const afterRun = s.requests.length;
    expect(afterRun).toBeGreaterThan(0);

    const after = await runCli(['plan', ...flags, '--json']);
    expect(after.code).toBe(0);
    const [p1] = JSON.parse(after.stdout) as PlanCell[];
    expect(p1).toMatchObject({ samples: 6, stored: 4, remaining: 2, cached: 2, callsUpperBound: 2 * HPF_MAX });
    expect(p1!.storedIn).toMatchObject({ status: 'failed', continued: true });
    expect(s.requests).toHaveLength(afterRun);

    // the table names the run it would continue
    const table = await runCli(['plan', ...flags]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(`4 (continues ${p1!.storedIn!.runId})`);
    expect(table.stdout).toMatch(/│ 22 \(11\/sample\)/);
    expect(s.requests).toHaveLength(afterRun);
  });

  it('an evaluation file gives one row per cell and totals; --prices adds a cost; an earlier completed run gives the estimate', async () => {
    const dir = tmp();
    boolqData(join(dir, 'a.jsonl'), 3, 'a');
    boolqData(join(dir, 'b.jsonl'), 2, 'b');
    const s = await server(() => ({ text: 'I cannot tell.' }));
    writeFileSync(join(dir, 'prices.json'), JSON.stringify({ 'openai:m1': { input: 1, output: 2 }, 'openai:m2': { input: 10, output: 20 } }));
    writeFileSync(
      join(dir, 'eval.yaml'),
      [
        'datasets:',
        '  - { id: boolq, data: a.jsonl, name: A }',
        '  - { id: boolq, data: b.jsonl, name: B }',
        'models:',
        `  - { id: openai:m1, baseUrl: ${s.url} }`,
        `  - { id: openai:m2, baseUrl: ${s.url}, name: second }`,
        'seed: 3',
        'store: store.db',
        '',
      ].join('\n'),
    );
    const file = join(dir, 'eval.yaml');

    const json = await runCli(['plan', '--config', file, '--json', '--prices', join(dir, 'prices.json')]);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const cells = JSON.parse(json.stdout) as PlanCell[];
    expect(cells.map((c) => `${c.modelLabel}|${c.datasetLabel}|${c.samples}`)).toEqual(['openai:m1|A|3', 'openai:m1|B|2', 'second|A|3', 'second|B|2']);
    for (const c of cells) {
      expect(c.seed).toBe(3);
      expect(c.callsUpperBound).toBe(c.samples * HPF_MAX);
      expect(c.cost).toBeGreaterThan(0);
    }
    // without an earlier run: prompt characters / 4 and max tokens (1024) per call at the model's price
    const m1a = cells[0]!;
    expect(m1a.tokens.completion).toBe(m1a.callsEstimate * 1024);
    expect(m1a.cost).toBeCloseTo((m1a.tokens.prompt * 1 + m1a.tokens.completion * 2) / 1e6, 9);
    expect(cells[2]!.cost).toBeCloseTo(10 * m1a.cost!, 9);

    const table = await runCli(['plan', '--config', file, '--prices', join(dir, 'prices.json')]);
    expect(table.code).toBe(0);
    const rows = table.stdout.split('\n').filter((l) => l.startsWith('│'));
    expect(rows).toHaveLength(1 + 4 + 1); // head, one row per cell, totals
    expect(rows.at(-1)).toContain('total');
    expect(rows.at(-1)).toContain(String(10 * HPF_MAX));
    expect(table.stdout).toContain('est. cost (USD)');
    expect(s.requests).toHaveLength(0);

    // one cell runs to the end: the other model's plan of that dataset estimates from it
    const run = await runCli(['run', '--config', file, '--model', 'openai:m1', '--dataset', 'B', '--json']);
    expect(run.code).toBe(0);
    const made = s.requests.length;
    expect(made).toBe(2 * HPF_MAX);
    const again = JSON.parse((await runCli(['plan', '--config', file, '--json', '--dataset', 'B'])).stdout) as PlanCell[];
    const [m1b, m2b] = again;
    // its own cell: the completed run of the same configuration holds every sample, and every level-1 call is cached
    expect(m1b).toMatchObject({ stored: 2, remaining: 2, cached: 2 });
    expect(m1b!.storedIn).toMatchObject({ status: 'completed', continued: false });
    expect(m2b).toMatchObject({ stored: 0, remaining: 2, cached: 0, callsEstimate: 2 * HPF_MAX });
    expect(m2b!.estimateFrom).toMatchObject({ model: 'openai:m1', callsPerSample: HPF_MAX });
    expect(s.requests).toHaveLength(made);
  });

  it('takes the flags of run: --help lists them', async () => {
    const help = await runCli(['plan', '--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--config', '--dataset', '--model', '--ladder', '--prices', '--replicates', '--mode']) expect(help.stdout).toContain(flag);
  });
});
