/**
 * End-to-end (issue #23): replies written the way real models write them, scored through the built CLI — a run of the
 * embedded CSQA and GSM8K splits against an OpenAI-compatible server on 127.0.0.1 (the real openai SDK) whose replies
 * reason before they answer, and `hpt-bench score` on real MMLU-Pro replies (../shared/data/real-outputs/). Checks the
 * verdicts, the rule and span stored with every attempt (`--out`, `report --format json`, the HTML trace) and the
 * per-sample records of `score --per-sample --json`.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractChoice } from '@hpt-bench/sdk';
import { startOpenAIServer, type ReceivedRequest, type TestServer } from '../helpers/openai-server.js';
import { ROOT, runCli, SHARED } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-real-answers-'));

interface CsqaItem {
  id: string;
  question: string;
  choices: { label: string[]; text: string[] };
  answerKey: string;
}
interface Gsm8kItem {
  question: string;
  answer: string;
}
const lines = <T>(file: string): T[] => readFileSync(join(ROOT, 'plugins/hpt-datasets/data', file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);
const CSQA = lines<CsqaItem>('csqa-mini.jsonl');
const GSM8K = lines<Gsm8kItem>('gsm8k-mini.jsonl');

/**
 * CSQA replies in the styles the previous first-token parser misread: a chain of thought that starts with the article
 * "A", an answer stated mid-sentence, the answer named by its option text, a correction. Each names the gold option.
 */
function csqaReply(i: number, item: CsqaItem): { text: string; rule: string } {
  const gold = item.answerKey;
  const text = item.choices.text[item.choices.label.indexOf(gold)]!;
  switch (i % 4) {
    case 0:
      return { text: `A good way to decide is to think about what each place is for. So the answer is (${gold}).`, rule: 'answer-is' };
    case 1:
      return { text: `Let's think step by step. People do this every day, most likely ${gold}, ${text}.`, rule: 'final-sentence' };
    case 2:
      return { text: `A person would think about it first.\n\nThe answer is ${text}.`, rule: 'answer-is+option-text' };
    default:
      return { text: `The answer is (${gold === 'A' ? 'B' : 'A'}). Wait, that does not fit the question; the answer is (${gold}).`, rule: 'answer-is' };
  }
}

/** GSM8K replies with a recap after the answer (the previous last-number parser read the recap's "3"). */
function gsm8kReply(item: Gsm8kItem): string {
  const gold = /####\s*(-?[\d,.]+)/.exec(item.answer)![1]!;
  return `Let me work through it. ${item.answer.split('\n')[0]!.replace(/<<[^>]*>>/g, '')}\nSo the answer is ${gold}.\n\nThe key steps were:\n1. Read the question.\n2. Compute.\n3. Check.`;
}

/** A reply that names its answer only by describing it (no letter, no option text): the strict rules read none. */
const VAGUE = 'Think of the appliance in a kitchen that keeps food and drinks cold; that is where it goes.';

let server: TestServer;
beforeAll(async () => {
  server = await startOpenAIServer((req: ReceivedRequest) => {
    const user = req.messages.map((m) => m.content).join('\n');
    if (req.model === 'vague') return { text: VAGUE };
    if (req.model === 'reader') {
      // the extractor model: sees the question and the reply, never the target; names the option the reply describes
      const item = CSQA.find((it) => user.includes(it.question));
      return { text: item && user.includes(VAGUE) ? (item.question.includes('milk') ? 'B' : 'NONE') : 'NONE' };
    }
    const c = CSQA.findIndex((it) => user.includes(it.question));
    if (c >= 0) return { text: csqaReply(c, CSQA[c]!).text };
    const g = GSM8K.find((it) => user.includes(it.question));
    if (g) return { text: gsm8kReply(g) };
    return { text: 'I do not know.' };
  });
});
afterAll(async () => server?.close());

describe('a run on replies that reason before they answer', () => {
  it('CSQA: every sample is solved at level 1, with the rule that read it stored and shown', async () => {
    const store = join(dir, 'csqa.db');
    const out = join(dir, 'csqa.jsonl');
    const r = await runCli(['run', '--dataset', 'csqa', '--split', 'mini', '--model', 'openai:m', '--base-url', server.url, '--store', store, '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { hpi: number; accuracy: number; n: number };
    expect(summary.n).toBe(CSQA.length);
    expect(summary.accuracy).toBe(1);
    expect(summary.hpi).toBe(1);
    const records = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { sampleId: string; attempts: { extracted: string; extraction: { rule: string; span: [number, number] }; graded: { completion: string } }[] });
    for (const rec of records) {
      const a = rec.attempts[0]!;
      const i = CSQA.findIndex((it) => it.id === rec.sampleId);
      const item = CSQA[i]!;
      expect(a.extracted).toBe(item.answerKey);
      expect(a.extraction.rule).toBe(csqaReply(i, item).rule);
      // the span is where the answer stands in the reply: the letter, or the option text's sentence
      const read = a.graded.completion.slice(a.extraction.span[0], a.extraction.span[1]);
      expect(read === item.answerKey || read.includes(item.choices.text[item.choices.label.indexOf(item.answerKey)]!)).toBe(true);
    }
    const html = join(dir, 'csqa.html');
    const rep = await runCli(['report', '--store', store, '--format', 'html', '--out', html]);
    expect(rep.code, rep.stderr).toBe(0);
    // the trace (gzip + base64 JSON in a #trace-<n> block that the page's script renders) names each attempt's rule and
    // marks the span it read
    const block = /<script type="application\/octet-stream" id="trace-0">([^<]*)<\/script>/.exec(readFileSync(html, 'utf8'))![1]!;
    const trace = gunzipSync(Buffer.from(block, 'base64')).toString('utf8');
    for (const rule of ['answer-is', 'final-sentence', 'answer-is+option-text']) expect(trace).toContain(`rule ${rule} · read from `);
    expect(trace).toContain('["mark","","B"]');
  });

  it('GSM8K: a recap after "the answer is" does not override it', async () => {
    const out = join(dir, 'gsm8k.jsonl');
    const r = await runCli(['run', '--dataset', 'gsm8k', '--split', 'mini', '--model', 'openai:m', '--base-url', server.url, '--store', join(dir, 'gsm8k.db'), '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { hpi: number; accuracy: number };
    expect(summary.accuracy).toBe(1);
    expect(summary.hpi).toBe(1);
    const rules = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { attempts: { extraction: { rule: string } }[] }).attempts[0]!.extraction.rule);
    expect(new Set(rules)).toEqual(new Set(['answer-is']));
  });

  it('--compat reference keeps the authors\' parsers (no rule recorded)', async () => {
    const out = join(dir, 'csqa-ref.jsonl');
    const r = await runCli(['run', '--dataset', 'csqa', '--split', 'mini', '--model', 'openai:m', '--base-url', server.url, '--store', join(dir, 'csqa-ref.db'), '--out', out, '--compat', 'reference', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const first = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!) as { attempts: { extraction?: unknown }[] };
    expect(first.attempts.every((a) => a.extraction === undefined)).toBe(true);
  });
});

describe('--extractor: a second model reads the answer the rules do not', () => {
  it('asks the extractor only where no rule fires, records that a model extracted it, stores and counts its calls', async () => {
    const store = join(dir, 'extractor.db');
    const out = join(dir, 'extractor.jsonl');
    const args = ['run', '--dataset', 'csqa', '--split', 'mini', '--limit', '2', '--model', 'openai:vague', '--base-url', server.url, '--json'];
    const before = server.requests.length;
    const r = await runCli([...args, '--store', store, '--out', out, '--extractor', 'openai:reader']);
    expect(r.code, r.stderr).toBe(0);
    const recs = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { sampleId: string; level: number | null; attempts: { extracted: unknown; extraction: { rule: string; span: null; by?: string }; calls: { purpose: string; model: string }[] }[] });
    const milk = recs.find((x) => x.sampleId === 'mini-csqa-0')!;
    // the milk question: the reader names B at level 1
    expect(milk.level).toBe(1);
    expect(milk.attempts[0]!.extracted).toBe('B');
    expect(milk.attempts[0]!.extraction).toEqual({ rule: 'model', span: null, by: 'openai:reader' });
    expect(milk.attempts[0]!.calls.map((c) => [c.purpose, c.model])).toEqual([['graded', 'openai:vague'], ['extract', 'openai:reader']]);
    // the other question: the reader answers NONE at every level: unsolved, each attempt says the model read none
    const other = recs.find((x) => x.sampleId !== 'mini-csqa-0')!;
    expect(other.level).toBeNull();
    for (const a of other.attempts) expect(a.extraction).toEqual({ rule: 'none', span: null, by: 'openai:reader' });
    const asked = server.requests.slice(before).filter((q) => q.model === 'reader');
    expect(asked.length).toBe(1 + other.attempts.length);
    // the extractor sees the reply, never the target letter as an answer
    expect(asked[0]!.messages.at(-1)!.content).toContain(VAGUE);
    const summary = JSON.parse(r.stdout) as { calls: number };
    const stored = recs.reduce((n, x) => n + x.attempts.reduce((m, a) => m + a.calls.length, 0), 0);
    expect(summary.calls).toBe(stored);

    // the same command again answers from the cache: no request at all
    const again = server.requests.length;
    const r2 = await runCli([...args, '--store', store, '--extractor', 'openai:reader']);
    expect(r2.code, r2.stderr).toBe(0);
    expect(server.requests.length).toBe(again);

    // without --extractor (another run identity) the vague reply solves nothing
    const plain = await runCli([...args, '--store', store]);
    expect(plain.code, plain.stderr).toBe(0);
    expect((JSON.parse(plain.stdout) as { accuracy: number }).accuracy).toBe(0);
  });

  it('plan counts at most one extractor call per level in the upper bound', async () => {
    const base = ['plan', '--dataset', 'csqa', '--split', 'mini', '--model', 'openai:vague', '--base-url', server.url, '--store', join(dir, 'plan.db'), '--json'];
    const without = JSON.parse((await runCli(base)).stdout) as { callsPerLevel: number[]; maxCallsPerSample: number }[];
    const withIt = JSON.parse((await runCli([...base, '--extractor', 'openai:reader'])).stdout) as typeof without;
    expect(withIt[0]!.callsPerLevel).toEqual(without[0]!.callsPerLevel.map((n) => n + 1));
    expect(withIt[0]!.maxCallsPerSample).toBe(without[0]!.maxCallsPerSample + without[0]!.callsPerLevel.length);
  });

  it('refuses --extractor with --compat reference or a scorer without extraction, before any call', async () => {
    const n = server.requests.length;
    const r = await runCli(['run', '--dataset', 'csqa', '--split', 'mini', '--model', 'openai:vague', '--base-url', server.url, '--store', join(dir, 'bad.db'), '--compat', 'reference', '--extractor', 'openai:reader']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--extractor applies to --compat strict only/);
    // a scorer without a strict extraction (ROUGE reads the whole reply) has nothing for an extractor to complete
    const rouge = await runCli(['run', '--dataset', 'samsum', '--split', 'mini', '--threshold', '0.2', '--model', 'openai:vague', '--base-url', server.url, '--store', join(dir, 'bad.db'), '--extractor', 'openai:reader']);
    expect(rouge.code).toBe(2);
    expect(rouge.stderr).toMatch(/--extractor: scorer rouge has no strict extraction/);
    expect(server.requests.length).toBe(n);
  });
});

const MMLU_PRO = join(SHARED, 'data', 'real-outputs', 'mmlu-pro.jsonl');
describe.skipIf(!existsSync(MMLU_PRO))('hpt-bench score on real MMLU-Pro replies', () => {
  it('score choice -o letters=10 --per-sample --json: the verdicts and the rule of each reply', async () => {
    const rows = readFileSync(MMLU_PRO, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { model: string; completion: string; gold: string }).filter((r) => r.model.startsWith('Meta-Llama'));
    const preds = join(dir, 'mmlu-pro-pred.jsonl');
    const refs = join(dir, 'mmlu-pro-gold.jsonl');
    writeFileSync(preds, rows.map((r) => JSON.stringify(r.completion)).join('\n') + '\n');
    writeFileSync(refs, rows.map((r) => JSON.stringify(r.gold)).join('\n') + '\n');
    const r = await runCli(['score', 'choice', '--predictions', preds, '--references', refs, '-o', 'letters=10', '--per-sample', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { n: number; solved: number; scores: { solved: boolean; extracted: string | null; extraction: { rule: string; span: [number, number] | null } }[] };
    expect(out.n).toBe(rows.length);
    const expected = rows.map((row) => extractChoice(row.completion, { letters: 10 }));
    expect(out.solved).toBe(expected.filter((e, i) => e?.value === rows[i]!.gold).length);
    expect(out.scores).toHaveLength(rows.length);
    out.scores.forEach((v, i) => {
      expect(v.extracted).toBe(expected[i]?.value ?? null);
      expect(v.extraction.rule).toBe(expected[i]?.rule ?? 'none');
    });
    // most replies end in "The answer is (X)."
    expect(out.scores.filter((v) => v.extraction.rule === 'answer-is').length).toBeGreaterThan(rows.length * 0.8);
  });
});
