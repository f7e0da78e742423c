/**
 * End-to-end (issue #24, part 1–2): reasoning models' replies through the built CLI against an OpenAI-compatible server
 * on 127.0.0.1 (the real openai SDK), in each shape the providers document:
 * - thinking in `message.reasoning_content` (DeepSeek API, "Reasoning Model (deepseek-reasoner)": the chain of thought
 *   at the same level as `content`; older vLLM reasoning parsers) or `message.reasoning` (newer vLLM, OpenRouter);
 * - thinking inline as `<think>…</think>` before the answer (Qwen3, DeepSeek-R1 distills served without a reasoning
 *   parser), also after a preamble;
 * - a reply cut off inside an unclosed `<think>` with `finish_reason: length`;
 * - `usage.completion_tokens_details.reasoning_tokens` (OpenAI chat completions usage; counted in completion_tokens).
 * The thinking of every reply first names the wrong answer, then the right one: a run must score exactly what the
 * same replies without thinking score (the same HPI), store the thinking with the call, and never read it.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';
import { ROOT, runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-reasoning-'));
const BOOLQ = readFileSync(join(ROOT, 'plugins/hpt-datasets/data/boolq-mini.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { question: string; answer: boolean });

/**
 * The model's decision for one request, the same in every shape: right when a hash of the request's text says so
 * (about half the calls), so samples are solved at several levels and some not at all.
 */
function decide(req: ReceivedRequest): { answer: string; wrong: string; graded: boolean } {
  const user = req.messages.map((m) => m.content).join('\n');
  const item = BOOLQ.find((b) => user.includes(b.question));
  const right = createHash('md5').update(user).digest()[0]! % 2 === 0;
  const gold = item?.answer ?? true;
  const value = right ? gold : !gold;
  return { answer: value ? 'True' : 'False', wrong: value ? 'False' : 'True', graded: item !== undefined };
}

/** The reply of each shape (the model name the run asks for picks the shape). */
function reply(req: ReceivedRequest): Reply {
  const d = decide(req);
  const thinking = `Hmm, at first sight the answer is ${d.wrong}. Let me re-read the passage. No: it says the opposite, so ${d.answer}.`;
  switch (req.model) {
    case 'plain':
      return { text: d.answer };
    case 'field-reasoning-content':
      return { text: d.answer, reasoning: { field: 'reasoning_content', text: thinking }, reasoningTokens: 40 };
    case 'field-reasoning':
      return { text: d.answer, reasoning: { field: 'reasoning', text: thinking }, reasoningTokens: 40 };
    case 'inline':
      return { text: `<think>\n${thinking}\n</think>\n\n${d.answer}` };
    case 'inline-after-preamble':
      return { text: `Okay, let me work through this.\n<think>${thinking}</think>\n${d.answer}` };
    case 'template-opened':
      // the chat template opened the block in the prompt (DeepSeek-R1): the reply holds only its end
      return { text: `${thinking}\n</think>\n\n${d.answer}` };
    case 'effort': {
      // a model that needs less prompting the more it may think: right at every level with high effort, else as decided
      const high = req.reasoningEffort === 'high';
      return { text: high && d.graded ? (BOOLQ.find((b) => req.messages.some((m) => m.content.includes(b.question)))!.answer ? 'True' : 'False') : d.answer, reasoningTokens: high ? 200 : 20 };
    }
    case 'no-effort':
      // an endpoint whose model takes no reasoning_effort, answering as OpenAI's API does for such a model
      if (req.reasoningEffort !== undefined) {
        return { status: 400, body: { error: { message: 'Unrecognized request argument supplied: reasoning_effort', type: 'invalid_request_error', param: 'reasoning_effort', code: null } } };
      }
      return { text: d.answer };
    case 'unclosed':
      return { text: `<think>\n${thinking} But wait, maybe`, finishReason: 'length', reasoningTokens: 64 };
    default:
      return { text: 'unknown model' };
  }
}

interface Summary {
  hpi: number;
  accuracy: number;
  n: number;
  calls: number;
  levels: Record<string, { calls: number; completionTokens: number; reasoningTokens?: number; truncatedThinking?: number }>;
}
interface Call {
  purpose: string;
  output: string;
  reasoning?: string;
  truncatedThinking?: boolean;
  usage: { completionTokens: number; reasoningTokens?: number };
}
interface SampleRecord {
  sampleId: string;
  level: number | null;
  attempts: { graded: { completion: string }; calls: Call[] }[];
}

let server: TestServer;
beforeAll(async () => {
  server = await startOpenAIServer(reply);
});
afterAll(async () => server?.close());

async function run(model: string, extra: string[] = []): Promise<{ summary: Summary; records: SampleRecord[]; store: string; stderr: string }> {
  const store = join(dir, `${model}.db`);
  const out = join(dir, `${model}.jsonl`);
  const r = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', `openai:${model}`, '--base-url', server.url, '--store', store, '--out', out, '--json', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  const records = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as SampleRecord);
  return { summary: JSON.parse(r.stdout) as Summary, records, store, stderr: r.stderr };
}

describe('reasoning models: the thinking is kept apart from the answer', () => {
  let plain: Summary;
  beforeAll(async () => {
    plain = (await run('plain')).summary;
    // the decision function must give a ladder with several outcomes, or equal HPIs would prove little
    expect(plain.hpi).toBeGreaterThan(1);
    expect(plain.accuracy).toBeGreaterThan(0);
  });

  it.each(['field-reasoning-content', 'field-reasoning', 'inline', 'inline-after-preamble', 'template-opened'])('%s: the exact HPI of the same replies without thinking; the thinking stored, never scored', async (model) => {
    const { summary, records } = await run(model);
    expect(summary.hpi).toBe(plain.hpi);
    expect(summary.accuracy).toBe(plain.accuracy);
    expect(summary.calls).toBe(plain.calls);
    for (const rec of records) {
      for (const a of rec.attempts) {
        // the answer is the text around the thinking (a preamble stays), never the thinking itself
        expect(a.graded.completion).toMatch(/(?:^|\n)(True|False)$/);
        expect(a.graded.completion).not.toContain('re-read');
        for (const c of a.calls) {
          expect(c.output).not.toContain('think>');
          expect(c.reasoning).toContain('Let me re-read the passage');
          expect(c.truncatedThinking).toBeUndefined();
        }
      }
    }
  });

  it('reasoning tokens are read from usage.completion_tokens_details, stored per call and summed per level', async () => {
    const { summary, records } = await run('field-reasoning-content');
    for (const rec of records) for (const a of rec.attempts) for (const c of a.calls) expect(c.usage.reasoningTokens).toBe(40);
    let calls = 0;
    for (const [, u] of Object.entries(summary.levels)) {
      expect(u.reasoningTokens).toBe(u.calls * 40);
      expect(u.completionTokens).toBeGreaterThan(u.reasoningTokens!);
      calls += u.calls;
    }
    expect(calls).toBe(summary.calls);
    // without reported reasoning tokens, the summary shows none
    expect(Object.values(plain.levels).every((u) => u.reasoningTokens === undefined)).toBe(true);
  });

  it('a reply cut off while thinking has no answer: every sample unsolved, the truncations counted per level', async () => {
    const { summary, records, store } = await run('unclosed');
    expect(summary.accuracy).toBe(0);
    expect(summary.hpi).toBeCloseTo(5 + 1.71, 12);
    let truncated = 0;
    for (const [, u] of Object.entries(summary.levels)) {
      expect(u.truncatedThinking).toBe(u.calls);
      truncated += u.truncatedThinking!;
    }
    expect(truncated).toBe(summary.calls);
    for (const rec of records) {
      expect(rec.level).toBeNull();
      for (const a of rec.attempts) {
        expect(a.graded.completion).toBe('');
        for (const c of a.calls) expect(c).toMatchObject({ output: '', truncatedThinking: true });
      }
    }
    // the report's trace shows the thinking folded under the reply and the truncation
    const html = join(dir, 'unclosed.html');
    const rep = await runCli(['report', '--store', store, '--format', 'html', '--out', html]);
    expect(rep.code, rep.stderr).toBe(0);
    const block = /<script type="application\/octet-stream" id="trace-0">([^<]*)<\/script>/.exec(readFileSync(html, 'utf8'))![1]!;
    const trace = gunzipSync(Buffer.from(block, 'base64')).toString('utf8');
    expect(trace).toContain('truncated while thinking (no answer)');
    expect(trace).toMatch(/thinking \(\d+ characters; never scored\)/);
  });

  it('--compat reference keeps the authors\' behaviour: the whole reply, thinking included, goes to their parsers', async () => {
    const { records, stderr } = await run('inline', ['--compat', 'reference']);
    const first = records[0]!.attempts[0]!;
    expect(first.graded.completion).toContain('<think>');
    expect(first.calls[0]!.reasoning).toBeUndefined();
    // and says so, once per run
    expect(stderr.match(/--compat reference: the replies hold thinking blocks .* scored with their thinking/g)).toHaveLength(1);
    expect((await run('inline')).stderr).not.toContain('--compat reference');
    expect((await run('plain', ['--compat', 'reference'])).stderr).not.toContain('thinking blocks');
  });
});

describe('reasoning effort as a setting and an axis of the matrix', () => {
  it('--reasoning-effort and --max-completion-tokens are sent (max_tokens is not), recorded, and make another run', async () => {
    const store = join(dir, 'effort-flags.db');
    const base = ['run', '--dataset', 'boolq', '--split', 'mini', '--limit', '2', '--model', 'openai:effort', '--base-url', server.url, '--store', store, '--json'];
    const n0 = server.requests.length;
    const low = await runCli([...base, '--reasoning-effort', 'low', '--max-completion-tokens', '4000']);
    expect(low.code, low.stderr).toBe(0);
    const [probe, ...sent] = server.requests.slice(n0);
    expect([probe!.reasoningEffort, probe!.maxCompletionTokens, probe!.max_tokens]).toEqual(['low', 16, undefined]);
    expect(sent.length).toBeGreaterThan(0);
    for (const q of sent) expect([q.reasoningEffort, q.maxCompletionTokens, q.max_tokens]).toEqual(['low', 4000, undefined]);
    // another effort is another run: nothing of the low-effort run is answered from the cache
    const n1 = server.requests.length;
    const high = await runCli([...base, '--reasoning-effort', 'high', '--max-completion-tokens', '4000']);
    expect(high.code, high.stderr).toBe(0);
    const highSummary = JSON.parse(high.stdout) as Summary & { runId: string };
    // the run's calls, and before them one probe of the settings (16 tokens, not part of the run)
    const highSent = server.requests.slice(n1);
    expect(highSent).toHaveLength(highSummary.calls + 1);
    expect(highSent[0]!.messages).toEqual([{ role: 'user', content: 'Reply with the word OK.' }]);
    expect([highSent[0]!.reasoningEffort, highSent[0]!.maxCompletionTokens]).toEqual(['high', 16]);
    expect(highSent.every((q) => q.reasoningEffort === 'high')).toBe(true);
    // without the flags nothing reasoning-specific is sent
    const n2 = server.requests.length;
    expect((await runCli(base)).code).toBe(0);
    expect(server.requests.slice(n2).every((q) => q.reasoningEffort === undefined && q.maxCompletionTokens === undefined && q.max_tokens === 1024)).toBe(true);
    // the stored fingerprint records the effort
    const shown = await runCli(['runs', 'show', highSummary.runId, '--store', store, '--json']);
    expect(shown.stdout).toContain('"reasoningEffort":"high"');
  });

  it('--reasoning-effort against an endpoint that refuses it: one line, exit 2, before the first sample', async () => {
    const store = join(dir, 'no-effort.db');
    const r = await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'openai:no-effort', '--base-url', server.url, '--store', store, '--reasoning-effort', 'high', '--concurrency', '8']);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/does not accept reasoning_effort .*run without --reasoning-effort/);
    // one request, the probe, whatever the concurrency: no sample was sent, and no run was opened
    const sent = server.requests.filter((q) => q.model === 'no-effort');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.messages).toEqual([{ role: 'user', content: 'Reply with the word OK.' }]);
    const runs = JSON.parse((await runCli(['runs', '--store', store, '--json'])).stdout) as { runs: { done: number }[] };
    expect(runs.runs).toEqual([]);
    // without the flag the same endpoint answers
    expect((await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'openai:no-effort', '--base-url', server.url, '--store', store])).code).toBe(0);
  });

  it('an eval file with two efforts of one model gives two labelled runs, and compare gives their level transitions', async () => {
    const file = join(dir, 'efforts.yaml');
    writeFileSync(file, [
      'datasets:',
      '  - { id: boolq, split: mini }',
      'models:',
      `  - { id: openai:effort, baseUrl: "${server.url}", generation: { reasoningEffort: [low, high] } }`,
      'store: efforts.db',
      '',
    ].join('\n'));
    const r = await runCli(['run', '--config', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const runs = JSON.parse(r.stdout) as (Summary & { runId: string; model: string })[];
    expect(runs).toHaveLength(2);
    const low = runs[0]!;
    const high = runs[1]!;
    // high effort answers right at level 1: HPI 1; low effort needs more prompting
    expect(high.hpi).toBe(1);
    expect(low.hpi).toBeGreaterThan(high.hpi);
    expect(Object.values(high.levels).reduce((n, u) => n + (u.reasoningTokens ?? 0), 0)).toBe(high.calls * 200);
    const text = await runCli(['run', '--config', file]);
    expect(text.stdout).toContain('openai:effort@low');
    expect(text.stdout).toContain('openai:effort@high');
    const cmp = await runCli(['compare', low.runId, high.runId, '--store', join(dir, 'efforts.db'), '--json']);
    expect(cmp.code, cmp.stderr).toBe(0);
    const c = JSON.parse(cmp.stdout) as { paired: number; hpiDiff: number; transitions: { rows: string[]; columns: string[]; counts: number[][] } };
    // rows: the level each sample reached at low effort; columns: at high effort — every sample moves to L1
    expect(c.paired).toBe(8);
    expect(c.transitions.columns[0]).toBe('L1');
    expect(c.transitions.counts.reduce((n, row) => n + row[0]!, 0)).toBe(8);
    expect(c.hpiDiff).toBeCloseTo(low.hpi - high.hpi, 10);
    // the comparison says what differs between the two runs
    expect(cmp.stderr).toContain('reasoningEffort');
    // the report keeps both (two groups), labels them by effort, and shows reasoning tokens per level
    const rep = await runCli(['report', '--store', join(dir, 'efforts.db'), '--format', 'md']);
    expect(rep.code, rep.stderr).toBe(0);
    expect(rep.stdout).toContain('openai:effort · effort low');
    expect(rep.stdout).toContain('openai:effort · effort high');
    expect(rep.stdout).toContain('| Reasoning tokens | Truncated while thinking |');
    // the HTML report draws the level transitions between the two efforts
    const html = join(dir, 'efforts.html');
    expect((await runCli(['report', '--store', join(dir, 'efforts.db'), '--out', html])).code).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<h2 id="transitions">Level transitions</h2>');
    expect(page).toContain('effort low');
    expect(page).toContain('effort high');
    // plan estimates reasoning tokens from the newest run of the same model and effort
    const plan = JSON.parse((await runCli(['plan', '--dataset', 'boolq', '--split', 'mini', '--model', 'openai:effort', '--base-url', server.url, '--store', join(dir, 'efforts.db'), '--reasoning-effort', 'high', '--json'])).stdout) as { callsEstimate: number; tokens: { reasoning?: number }; estimateFrom: { callsPerSample: number } }[];
    expect(plan[0]!.estimateFrom.callsPerSample).toBe(1);
    expect(plan[0]!.tokens.reasoning).toBe(plan[0]!.callsEstimate * 200);
    // (the second `run --config` made newer runs of both groups, answered from the cache: the report shows those)
    const json = JSON.parse((await runCli(['report', '--store', join(dir, 'efforts.db'), '--json'])).stdout) as { runs: { groupLabel: string; levels: Record<string, { reasoningTokens?: number; calls: number }> }[] };
    expect(json.runs).toHaveLength(2);
    const highRun = json.runs.find((x) => x.groupLabel.endsWith('effort high'))!;
    expect(Object.values(highRun.levels).reduce((n2, u) => n2 + (u.reasoningTokens ?? 0), 0)).toBe(high.calls * 200);
  });
});
