/**
 * The HTML report's trace rows name each sample's question by its first words, after the template text every sample of
 * the run starts with (issue 16: rows of data without ids showed only indices).
 */
import { gunzipSync } from 'node:zlib';
import type { SampleResult } from '@hpt-bench/core';
import { describe, expect, it } from 'vitest';
import { commonPrefix, packTraceBodies, questionStart, sampleBody, type TraceNode } from '../../packages/cli/src/report/html.js';

describe('trace row question', () => {
  it('strips the shared template prefix at a word boundary and keeps about 12 words', () => {
    const prompts = ['You are an expert. Question: is the sky blue on a clear day at noon in summer?', 'You are an expert. Question: is water wet?', 'You are an expert. Question: isotopes of carbon'];
    const prefix = commonPrefix(prompts);
    expect(prefix).toBe('You are an expert. Question: ');
    expect(questionStart(prompts[0]!, prefix)).toBe('is the sky blue on a clear day at noon in summer?');
    expect(questionStart(`${prefix}one two three four five six seven eight nine ten eleven twelve thirteen`, prefix)).toBe('one two three four five six seven eight nine ten eleven twelve …');
    expect(questionStart(prompts[1]!, prefix)).toBe('is water wet?');
    expect(questionStart(prompts[2]!, prefix)).toBe('isotopes of carbon');
  });

  it('no prefix for one prompt, for identical prompts, or without a word boundary', () => {
    expect(commonPrefix(['only one'])).toBe('');
    expect(commonPrefix(['same text', 'same text'])).toBe('');
    expect(commonPrefix(['abcdef', 'abcxyz'])).toBe('');
    expect(questionStart('line one\n\n  line   two', '')).toBe('line one line two');
  });
});

describe('trace bodies (issue 16: lazy, compressed)', () => {
  const XSS = '<script>window.__xss = 1</script><img src=x onerror="x()">';
  const sample = {
    sampleId: 's1',
    target: true,
    prediction: XSS,
    hpi: 2,
    solved: true,
    level: 2,
    attempts: [
      { level: 1, strategy: 'role', solved: false, score: 0, extracted: XSS, calls: [{ seq: 1, purpose: 'answer', model: 'm', usage: { promptTokens: 3, completionTokens: 4 }, latencyMs: 5, messages: [{ role: 'user', content: `Q ${XSS}` }], output: XSS }] },
    ],
    selections: [{ iteration: 1, level: 1, valid: true, solved: false, raw: XSS }],
  } as unknown as SampleResult;

  const tags = (n: TraceNode, out: Set<string>): Set<string> => {
    if (typeof n !== 'string') {
      out.add(n[0]);
      for (const c of n.slice(2)) tags(c as TraceNode, out);
    }
    return out;
  };

  it('are trace nodes of the tags the page builds, model text only as text children; they round-trip through gzip + base64', () => {
    const body = sampleBody(sample, 8000);
    const used = new Set<string>();
    for (const n of body) tags(n, used);
    for (const t of used) expect(['div', 'pre', 'span', 'h5', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'details', 'summary', 'code']).toContain(t);
    expect(JSON.stringify(body)).toContain(JSON.stringify(XSS));
    const packed = packTraceBodies([body, JSON.stringify(body)]);
    expect(packed).toMatch(/^[A-Za-z0-9+/=]+$/);
    expect(JSON.parse(gunzipSync(Buffer.from(packed, 'base64')).toString('utf8'))).toEqual([body, body]);
  });

  it('cuts long texts at maxTextChars', () => {
    const long = { ...sample, prediction: 'x'.repeat(50) } as SampleResult;
    expect(JSON.stringify(sampleBody(long, 10))).toContain(`${'x'.repeat(10)}\\n… [40 more characters not shown]`);
  });
});
