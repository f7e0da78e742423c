/**
 * Batch files of `run --batch`: splitting a round's JSONL lines within the per-file limits (core), and the OpenAI
 * plugin's request lines and output / error file parsing, against the real openai SDK's Batch API shapes.
 */
import { describe, expect, it } from 'vitest';
import { type ModelRequest, splitBatchLines } from '@hpt-bench/core';
import { batchRequestLine, OPENAI_BATCH_FILE_LIMITS, parseBatchFile, parseBatchLine, salvageCustomId } from '../../plugins/openai/src/batch.js';
import { chatRequestBody } from '../../plugins/openai/src/request.js';

const REQ: ModelRequest = { messages: [{ role: 'user', content: 'Is the sky blue?' }], temperature: 0.6, topP: 0.9, maxTokens: 16 };
const CTX = { endpoint: 'http://127.0.0.1:1/v1', model: 'm', maxResponseBytes: 1000 };

describe('splitBatchLines', () => {
  it('keeps one file when within both limits', () => {
    expect(splitBatchLines(['a', 'b', 'c'], { maxRequests: 3, maxBytes: 6 })).toEqual({ chunks: [[0, 1, 2]], tooLarge: [] });
  });

  it('splits at the request limit (the 50,000 of the API, here 2)', () => {
    expect(splitBatchLines(['a', 'b', 'c', 'd', 'e'], { maxRequests: 2, maxBytes: 1e9 }).chunks).toEqual([[0, 1], [2, 3], [4]]);
  });

  it('splits at the byte limit (the 200 MB of the API, here 10), counting UTF-8 bytes and the newline', () => {
    // 'aaaa' = 5 bytes with its newline; 'é' is 2 bytes in UTF-8: 'ééé' = 7 bytes
    expect(splitBatchLines(['aaaa', 'aaaa', 'aaaa'], { maxRequests: 100, maxBytes: 10 }).chunks).toEqual([[0, 1], [2]]);
    expect(splitBatchLines(['ééé', 'aa'], { maxRequests: 100, maxBytes: 10 }).chunks).toEqual([[0, 1]]);
    expect(splitBatchLines(['ééé', 'aaa'], { maxRequests: 100, maxBytes: 10 }).chunks).toEqual([[0], [1]]);
  });

  it('sets aside a line larger than a whole file instead of sending an oversized file', () => {
    expect(splitBatchLines(['a', 'x'.repeat(20), 'b'], { maxRequests: 100, maxBytes: 10 })).toEqual({ chunks: [[0, 2]], tooLarge: [1] });
  });

  it('splits 120,001 lines at the real limits into 50,000 + 50,000 + 20,001', () => {
    const lines = Array.from({ length: 120_001 }, (_, i) => `{"custom_id":"${i}"}`);
    expect(splitBatchLines(lines, OPENAI_BATCH_FILE_LIMITS).chunks.map((c) => c.length)).toEqual([50_000, 50_000, 20_001]);
  });
});

describe('OpenAI batch lines', () => {
  it('a request line is the chat-completions body of an online call, on /v1/chat/completions', () => {
    const line = JSON.parse(batchRequestLine('gpt-x', 'key-1', { ...REQ, seed: 3, logprobs: true })) as Record<string, unknown>;
    expect(line).toEqual({ custom_id: 'key-1', method: 'POST', url: '/v1/chat/completions', body: chatRequestBody('gpt-x', { ...REQ, seed: 3, logprobs: true }) });
    expect(line.body).toEqual({ model: 'gpt-x', messages: REQ.messages, temperature: 0.6, top_p: 0.9, max_tokens: 16, seed: 3, logprobs: true });
  });

  it('parses a successful output line like an online completion', () => {
    const body = { choices: [{ message: { content: 'True' }, finish_reason: 'stop' }], usage: { prompt_tokens: 7, completion_tokens: 1 } };
    expect(parseBatchLine(JSON.stringify({ id: 'l1', custom_id: 'k', response: { status_code: 200, body }, error: null }), CTX)).toEqual({
      customId: 'k',
      response: { text: 'True', usage: { promptTokens: 7, completionTokens: 1 }, finishReason: 'stop' },
    });
  });

  it('maps failed lines to retryable or final errors by status, and an expired line to a retryable timeout', () => {
    const line = (status: number) => JSON.stringify({ custom_id: `s${status}`, response: { status_code: status, body: { error: { message: 'nope' } } }, error: null });
    const kind = (status: number) => {
      const r = parseBatchLine(line(status), CTX)!;
      return 'error' in r ? [r.error.kind, r.error.retryable] : 'ok';
    };
    expect(kind(429)).toEqual(['rate-limit', true]);
    expect(kind(500)).toEqual(['server', true]);
    expect(kind(408)).toEqual(['timeout', true]);
    expect(kind(400)).toEqual(['client', false]);
    const expired = parseBatchLine(JSON.stringify({ custom_id: 'e', response: null, error: { code: 'batch_expired', message: 'not run in time' } }), CTX)!;
    expect('error' in expired && expired.error.kind).toBe('timeout');
    expect('error' in expired && expired.error.message).toMatch(/batch_expired/);
  });

  it('a completion over the size cap fails its line only (not retried)', () => {
    const body = { choices: [{ message: { content: 'x'.repeat(2000) }, finish_reason: 'stop' }] };
    const r = parseBatchLine(JSON.stringify({ custom_id: 'big', response: { status_code: 200, body } }), CTX)!;
    expect('error' in r && r.error.kind).toBe('client');
  });

  it('a file: blank lines skipped; a garbled line is a retryable failed line of the call it names, and left out when it names none', () => {
    const ok = JSON.stringify({ custom_id: 'a', response: { status_code: 200, body: { choices: [{ message: { content: 'x' } }] } } });
    const cut = ok.replace('"a"', '"c"').slice(0, 40);
    const results = parseBatchFile(`${ok}\n\n${cut}\n\u0000<html>502</html>\n{"response": {}}\n${ok.replace('"a"', '"b"')}\n`, CTX);
    expect(results.map((r) => r.customId)).toEqual(['a', 'c', 'b']);
    const garbled = results[1]!;
    expect('error' in garbled && [garbled.error.kind, garbled.error.retryable]).toEqual(['server', true]);
    expect('error' in garbled && garbled.error.message).toMatch(/batch result line that is not JSON for call c: \{"custom_id":"c"/);
    // JSON, but not an object with a string custom_id: named when a custom_id can still be read, else left out
    const noId = parseBatchLine('{"custom_id": 7, "response": {"custom_id": "d"}}', CTX)!;
    expect('error' in noId && [noId.customId, noId.error.kind, noId.error.message]).toEqual(['d', 'server', expect.stringMatching(/line without a custom_id for call d/)]);
    for (const bad of ['{not json', '[1, 2]', '"custom_id"', '{"custom_id": 7}']) expect(parseBatchLine(bad, CTX)).toBeUndefined();
  });

  it('salvageCustomId reads the custom_id of a line cut short, escapes included, and nothing from a line without one', () => {
    expect(salvageCustomId('{"id":"l1","custom_id" : "k\\"ey\\u00e9","response":{"status_co')).toBe('k"eyé');
    expect(salvageCustomId('{"id":"l1","custom_id":"unterminated')).toBeUndefined();
    expect(salvageCustomId('<html>502 Bad Gateway</html>')).toBeUndefined();
  });
});
