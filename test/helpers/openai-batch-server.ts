/**
 * A local fake of the OpenAI Files + Batches API (and of chat completions, for the online run it is compared with), on
 * 127.0.0.1, for `run --batch` tests:
 * - `POST /v1/files` (multipart, `purpose` + `file`), `GET /v1/files/:id/content`;
 * - `POST /v1/batches` (`input_file_id`, `endpoint`, `completion_window`), `GET /v1/batches` (newest first, one
 *   page), `GET /v1/batches/:id`: a batch is
 *   `in_progress` until `completeAfterMs` after its creation, then `completed` — each line answered by the same `answer`
 *   rule as a chat completion (output file), or failed with HTTP 500 when `failLine(customId, submission)` says so
 *   (error file);
 * - `POST /v1/chat/completions`: answered by `answer` at once.
 * It counts submissions per custom_id, and keeps its state (files, batches, counts) in `statePath` when given, so it can
 * be stopped and started again (`restart`) without losing a batch.
 *
 * Faults a real provider or gateway shows, scripted per custom_id and submission (issue 25):
 * - `restart({ idsFromStart: true })`: a gateway restarted without its state: its files and batches are gone and its ids
 *   start again (`file-in-1`, `batch-2`, ...), so new batches get the ids of earlier ones (submission counts are kept);
 * - `garbleLine`: the line of a custom_id in the output file is `truncated` (cut in the middle: not JSON, its custom_id
 *   still readable) or `noise` (bytes that are not JSON and name no custom_id);
 * - `duplicateLine`: the output file holds the line of a custom_id twice: `identical` (the same line again) or
 *   `conflicting` (a second line with another answer, `conflictingAnswer`, after the first).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { receivedRequest, type ReceivedRequest } from './openai-server.js';

/** What `answer` gives for one request: a completion text, or an HTTP error. */
export type BatchReply = { text: string } | { status: number; message?: string };

/** Options of the fake (see the module comment). */
export interface BatchServerOptions {
  answer(req: ReceivedRequest): BatchReply;
  /** ms from a batch's creation until it completes (default 50) */
  completeAfterMs?: number;
  /** whether the `submission`-th (1-based) submission of `customId` fails (HTTP 500 in the error file) */
  failLine?(customId: string, submission: number): boolean;
  /** keep the state in this JSON file (read on start when it exists) */
  statePath?: string;
  /** whether (and how) the output line of the `submission`-th submission of `customId` is garbled (module comment) */
  garbleLine?(customId: string, submission: number): 'truncated' | 'noise' | undefined;
  /** whether the output line of the `submission`-th submission of `customId` comes twice, and how (module comment) */
  duplicateLine?(customId: string, submission: number): 'identical' | 'conflicting' | undefined;
  /** the text of a `conflicting` duplicate (default `conflicting answer`) */
  conflictingAnswer?(req: ReceivedRequest): string;
}

interface FakeBatch {
  id: string;
  input_file_id: string;
  status: 'in_progress' | 'completed';
  created_ms: number;
  output_file_id?: string;
  error_file_id?: string;
}

/** The fake's state (also the JSON of `statePath`). */
export interface BatchServerState {
  next: number;
  files: Record<string, string>;
  batches: Record<string, FakeBatch>;
  /** submissions (lines in created batches) per custom_id */
  submissions: Record<string, number>;
  /** chat completions answered online */
  chatRequests: number;
  /** batches created */
  batchesCreated: number;
}

/** A running fake. */
export interface BatchServer {
  url: string;
  state: BatchServerState;
  /** stop listening (state kept) */
  stop(): Promise<void>;
  /**
   * listen again on the same port, state read back from `statePath` when given; with `idsFromStart` the files and
   * batches are forgotten and ids start again from 1 (a gateway restarted without its state), counts kept
   */
  restart(options?: { idsFromStart?: boolean }): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));


/** A chat completion of `text` for `req` (token counts as test/helpers/openai-server.ts computes them). */
function completion(req: ReceivedRequest, text: string, id: string) {
  const prompt = req.messages.map((m) => m.content).join('\n');
  const completionTokens = Math.max(1, Math.ceil(text.length / 4));
  return {
    id,
    object: 'chat.completion',
    created: 0,
    model: req.model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: completionTokens, total_tokens: Math.ceil(prompt.length / 4) + completionTokens },
  };
}

/** Start the fake (see the module comment). */
export async function startOpenAIBatchServer(options: BatchServerOptions): Promise<BatchServer> {
  const load = (): BatchServerState =>
    options.statePath && existsSync(options.statePath)
      ? (JSON.parse(readFileSync(options.statePath, 'utf8')) as BatchServerState)
      : { next: 0, files: {}, batches: {}, submissions: {}, chatRequests: 0, batchesCreated: 0 };
  const api: BatchServer = { url: '', state: load(), stop: async () => undefined, restart: async () => undefined };
  const save = () => {
    if (options.statePath) writeFileSync(options.statePath, JSON.stringify(api.state));
  };
  const newId = (prefix: string) => `${prefix}-${++api.state.next}`;
  const delay = options.completeAfterMs ?? 50;

  /** Run a batch whose time has come: answer every line into an output and an error file. */
  const finish = (b: FakeBatch) => {
    const out: string[] = [];
    const err: string[] = [];
    for (const line of (api.state.files[b.input_file_id] ?? '').split('\n').filter(Boolean)) {
      const l = JSON.parse(line) as { custom_id: string; body: Record<string, unknown> };
      const req = receivedRequest(l.body, undefined);
      const nth = api.state.submissions[l.custom_id] ?? 1;
      const reply: BatchReply = options.failLine?.(l.custom_id, nth) ? { status: 500, message: 'scripted line failure' } : options.answer(req);
      const rid = `req-${++api.state.next}`;
      if ('text' in reply) {
        const line = JSON.stringify({ id: `line-${rid}`, custom_id: l.custom_id, response: { status_code: 200, request_id: rid, body: completion(req, reply.text, `chatcmpl-${rid}`) }, error: null });
        const garble = options.garbleLine?.(l.custom_id, nth);
        out.push(garble === 'truncated' ? line.slice(0, Math.floor(line.length / 2)) : garble === 'noise' ? '\u0000\u0001 <html>502 Bad Gateway</html> \u00ff' : line);
        const duplicate = options.duplicateLine?.(l.custom_id, nth);
        if (duplicate === 'identical') out.push(line);
        if (duplicate === 'conflicting') {
          const other = options.conflictingAnswer?.(req) ?? 'conflicting answer';
          const did = `req-${++api.state.next}`;
          out.push(JSON.stringify({ id: `line-${did}`, custom_id: l.custom_id, response: { status_code: 200, request_id: did, body: completion(req, other, `chatcmpl-${did}`) }, error: null }));
        }
      } else err.push(JSON.stringify({ id: `line-${rid}`, custom_id: l.custom_id, response: { status_code: reply.status, request_id: rid, body: { error: { message: reply.message ?? `HTTP ${reply.status}` } } }, error: null }));
    }
    b.status = 'completed';
    if (out.length) api.state.files[(b.output_file_id = newId('file-out'))] = `${out.join('\n')}\n`;
    if (err.length) api.state.files[(b.error_file_id = newId('file-err'))] = `${err.join('\n')}\n`;
  };

  const view = (b: FakeBatch) => ({
    id: b.id,
    object: 'batch',
    endpoint: '/v1/chat/completions',
    input_file_id: b.input_file_id,
    completion_window: '24h',
    status: b.status,
    created_at: Math.floor(b.created_ms / 1000),
    ...(b.output_file_id ? { output_file_id: b.output_file_id } : {}),
    ...(b.error_file_id ? { error_file_id: b.error_file_id } : {}),
  });

  const handle = async (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname.replace(/^\/v1/, '');
    if (req.method === 'POST' && path === '/chat/completions') {
      const r = receivedRequest(JSON.parse(body.toString('utf8')) as Record<string, unknown>, req.headers.authorization);
      api.state.chatRequests++;
      const reply = options.answer(r);
      save();
      if ('text' in reply) return json(res, 200, completion(r, reply.text, `chatcmpl-${api.state.chatRequests}`));
      return json(res, reply.status, { error: { message: reply.message ?? `HTTP ${reply.status}` } });
    }
    if (req.method === 'POST' && path === '/files') {
      const form = await new Request('http://127.0.0.1/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '' }, body }).formData();
      const file = form.get('file');
      if (form.get('purpose') !== 'batch' || !file || typeof file === 'string') return json(res, 400, { error: { message: 'purpose batch and a file are required' } });
      const id = newId('file-in');
      api.state.files[id] = await file.text();
      save();
      return json(res, 200, { id, object: 'file', bytes: file.size, created_at: 0, filename: file.name, purpose: 'batch', status: 'processed' });
    }
    const content = /^\/files\/([^/]+)\/content$/.exec(path);
    if (req.method === 'GET' && content) {
      const text = api.state.files[content[1]!];
      if (text === undefined) return json(res, 404, { error: { message: 'no such file' } });
      return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(text);
    }
    if (req.method === 'POST' && path === '/batches') {
      const b = JSON.parse(body.toString('utf8')) as { input_file_id: string; endpoint: string; completion_window: string };
      const input = api.state.files[b.input_file_id];
      if (input === undefined || b.endpoint !== '/v1/chat/completions' || b.completion_window !== '24h') return json(res, 400, { error: { message: 'bad batch request' } });
      for (const line of input.split('\n').filter(Boolean)) {
        const id = (JSON.parse(line) as { custom_id: string }).custom_id;
        api.state.submissions[id] = (api.state.submissions[id] ?? 0) + 1;
      }
      const batch: FakeBatch = { id: newId('batch'), input_file_id: b.input_file_id, status: 'in_progress', created_ms: Date.now() };
      api.state.batches[batch.id] = batch;
      api.state.batchesCreated++;
      save();
      return json(res, 200, view(batch));
    }
    if (req.method === 'GET' && path === '/batches') {
      const all = Object.values(api.state.batches).reverse().map(view);
      return json(res, 200, { object: 'list', data: all, first_id: all[0]?.id ?? null, last_id: all.at(-1)?.id ?? null, has_more: false });
    }
    const one = /^\/batches\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && one) {
      const b = api.state.batches[one[1]!];
      if (!b) return json(res, 404, { error: { message: 'no such batch' } });
      if (b.status === 'in_progress' && Date.now() - b.created_ms >= delay) {
        finish(b);
        save();
      }
      return json(res, 200, view(b));
    }
    return json(res, 404, { error: { message: `not found: ${req.method} ${path}` } });
  };

  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        handle(req, Buffer.concat(chunks), res).catch((e: Error) => json(res, 500, { error: { message: `fake failed: ${e.message}` } }));
      });
    });
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    api.url = `http://127.0.0.1:${port}/v1`;
  };
  api.stop = () =>
    new Promise<void>((r) => {
      if (!server) return r();
      server.closeAllConnections();
      server.close(() => r());
      server = undefined;
    });
  api.restart = async (how = {}) => {
    await api.stop();
    if (options.statePath) api.state = load();
    if (how.idsFromStart) {
      api.state = { ...api.state, next: 0, files: {}, batches: {} };
      save();
    }
    await listen();
  };
  await listen();
  return api;
}
