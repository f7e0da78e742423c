/**
 * The openai plugin's Batch API client (`OpenAIChatModel.batch`) through the real openai SDK against the local fake of
 * the Files + Batches API: upload, create, find by input file, poll, read output and error files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHptError, isModelCallError } from '@hpt-bench/core';
import { OpenAIChatModel } from '../../plugins/openai/src/openai.js';
import { type BatchServer, startOpenAIBatchServer } from '../helpers/openai-batch-server.js';

let s: BatchServer;
beforeAll(async () => {
  s = await startOpenAIBatchServer({ answer: (req) => ({ text: `echo ${req.messages.at(-1)!.content}` }), completeAfterMs: 400, failLine: (id) => id === 'bad' });
});
afterAll(async () => s.stop());

const REQ = (content: string) => ({ messages: [{ role: 'user' as const, content }], temperature: 0, topP: 1, maxTokens: 8 });

describe('OpenAIBatch', () => {
  it('uploads a file, creates a 24 h batch, finds it by its file, polls it to completed and reads output and error lines', async () => {
    const model = new OpenAIChatModel('m', { baseUrl: s.url });
    const b = model.batch;
    const fileId = await b.upload([b.encode({ customId: 'a', request: REQ('one') }), b.encode({ customId: 'bad', request: REQ('two') })]);
    expect(s.state.files[fileId]!.split('\n').filter(Boolean)).toHaveLength(2);
    expect(await b.find(fileId)).toBeUndefined();
    const id = await b.create(fileId);
    expect(await b.find(fileId)).toBe(id);
    expect(await b.status(id)).toEqual({ state: 'pending' });
    await new Promise((r) => setTimeout(r, 450));
    const status = await b.status(id);
    expect(status.state).toBe('completed');
    const results = await b.results(status);
    expect(results.find((r) => r.customId === 'a')).toMatchObject({ response: { text: 'echo one', finishReason: 'stop' } });
    const bad = results.find((r) => r.customId === 'bad')!;
    expect('error' in bad && [bad.error.kind, bad.error.retryable]).toEqual(['server', true]);
    expect(s.state.submissions).toEqual({ a: 1, bad: 1 });
  });

  it('a batch the endpoint does not know (any more) is a client error with status 404, not the end of the run', async () => {
    const model = new OpenAIChatModel('m', { baseUrl: s.url });
    let caught: unknown;
    try {
      await model.batch.status('batch-404');
    } catch (e) {
      caught = e;
    }
    expect(isModelCallError(caught) && [caught.kind, caught.status, caught.retryable]).toEqual(['client', 404, false]);
    expect((caught as Error).message).toBe(`${s.url} has no batch batch-404 (HTTP 404): it is gone there (e.g. a gateway restarted without its state)`);
  });

  it('garbled and duplicated output lines: every readable line is returned, a cut line as a failed line of its call, noise left out', async () => {
    const g = await startOpenAIBatchServer({
      answer: (req) => ({ text: `echo ${req.messages.at(-1)!.content}` }),
      completeAfterMs: 0,
      garbleLine: (id) => (id === 'cut' ? 'truncated' : id === 'noise' ? 'noise' : undefined),
      duplicateLine: (id) => (id === 'twice' ? 'identical' : id === 'other' ? 'conflicting' : undefined),
    });
    try {
      const b = new OpenAIChatModel('m', { baseUrl: g.url }).batch;
      const ids = ['ok', 'cut', 'noise', 'twice', 'other'];
      const status = await b.status(await b.create(await b.upload(ids.map((id) => b.encode({ customId: id, request: REQ(id) })))));
      const results = await b.results(status);
      expect(results.map((r) => [r.customId, 'response' in r ? r.response.text : r.error.kind])).toEqual([
        ['ok', 'echo ok'],
        ['cut', 'server'],
        ['twice', 'echo twice'],
        ['twice', 'echo twice'],
        ['other', 'echo other'],
        ['other', 'conflicting answer'],
      ]);
    } finally {
      await g.stop();
    }
  });

  it('an endpoint without the Batch API (404) ends the run with E_ENDPOINT naming --batch', async () => {
    const model = new OpenAIChatModel('m', { baseUrl: `${s.url}/nowhere` });
    let caught: unknown;
    try {
      await model.batch.status('batch-1');
    } catch (e) {
      caught = e;
    }
    expect(isHptError(caught) && caught.code).toBe('E_ENDPOINT');
    expect((caught as Error).message).toMatch(/no OpenAI Batch API.*without --batch/);
  });
});
