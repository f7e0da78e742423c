import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterEach, describe, expect, it } from 'vitest';
import { loadHubRows, type HubOptions, type HubSource } from '../packages/core/src/data/hub.js';
import { HptError } from '@hpt-bench/sdk';
import { closedPort } from './helpers/net.js';

interface Row {
  idx: number;
  question: string;
  answer: boolean;
  passage: string;
}

const ROWS: Row[] = Array.from({ length: 250 }, (_, i) => ({
  idx: i,
  question: `Is statement ${i} true?`,
  answer: i % 3 === 0,
  passage: `Passage ${i} — café ${'lorem '.repeat(i % 7)}`.trim(),
}));

const DATASET = 'test/fixture';
const SOURCE: HubSource = { dataset: DATASET, config: 'default', split: 'validation' };
const FILE_PATH = '/api/datasets/test/fixture/parquet/default/validation';

function parquetOf(rows: Row[]): Buffer {
  const ab = parquetWriteBuffer({
    columnData: [
      { name: 'idx', data: rows.map((r) => BigInt(r.idx)), type: 'INT64' },
      { name: 'question', data: rows.map((r) => r.question), type: 'STRING' },
      { name: 'answer', data: rows.map((r) => r.answer), type: 'BOOLEAN' },
      { name: 'passage', data: rows.map((r) => r.passage), type: 'STRING' },
    ],
    rowGroupSize: 60,
  });
  return Buffer.from(ab);
}

/** Two files, 150 + 100 rows, row groups of 60. */
const PARQUET = { '0000.parquet': parquetOf(ROWS.slice(0, 150)), '0001.parquet': parquetOf(ROWS.slice(150)) } as Record<string, Buffer>;

interface FixtureOptions {
  parquetListing?: 'ok' | '404';
  requireToken?: string;
  /** Close the whole server when the rows page at this offset is requested. */
  dieAtOffset?: number;
  /** Send only half of 0001.parquet, then cut the connection. */
  truncateParquet?: boolean;
  /** Answer the first /rows request with 503 + Retry-After: 0. */
  first503?: boolean;
  /** Answer /rows with a body that lacks the rows array. */
  malformedRows?: boolean;
}

interface Fixture {
  url: string;
  /** Every request, as `pathname?query`. */
  requests: string[];
  urls: URL[];
  authHeaders: Array<string | undefined>;
  close(): Promise<void>;
}

const servers: Server[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function startFixture(opts: FixtureOptions = {}): Promise<Fixture> {
  const requests: string[] = [];
  const urls: URL[] = [];
  const authHeaders: Array<string | undefined> = [];
  let rowsCalls = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://fixture');
    requests.push(`${u.pathname}${u.search}`);
    urls.push(u);
    authHeaders.push(req.headers.authorization);
    if (opts.requireToken !== undefined && req.headers.authorization !== `Bearer ${opts.requireToken}`) {
      // Echo the header back, as a careless server might: the client must not repeat it.
      return json(res, 401, { error: `Unauthorized: bad credentials ${req.headers.authorization ?? 'none'}` });
    }
    if (u.pathname === '/rows') {
      rowsCalls++;
      if (opts.first503 && rowsCalls === 1) return json(res, 503, { error: 'busy' }, { 'retry-after': '0' });
      if (opts.malformedRows) return json(res, 200, { rows: 'nope', num_rows_total: 250 });
      const p = u.searchParams;
      if (p.get('dataset') !== DATASET || p.get('config') !== 'default' || p.get('split') !== 'validation')
        return json(res, 404, { error: 'Not found.' });
      const offset = Number(p.get('offset'));
      const length = Number(p.get('length'));
      if (opts.dieAtOffset !== undefined && offset === opts.dieAtOffset) {
        req.socket.destroy();
        server.close();
        server.closeAllConnections();
        return;
      }
      const page = ROWS.slice(offset, offset + length).map((row, i) => ({ row_idx: offset + i, row, truncated_cells: [] }));
      return json(res, 200, {
        features: [
          { feature_idx: 0, name: 'idx', type: { dtype: 'int64', _type: 'Value' } },
          { feature_idx: 1, name: 'question', type: { dtype: 'string', _type: 'Value' } },
          { feature_idx: 2, name: 'answer', type: { dtype: 'bool', _type: 'Value' } },
          { feature_idx: 3, name: 'passage', type: { dtype: 'string', _type: 'Value' } },
        ],
        rows: page,
        num_rows_total: ROWS.length,
        num_rows_per_page: 100,
        partial: false,
      });
    }
    if (u.pathname === '/parquet') {
      if (opts.parquetListing === '404' || u.searchParams.get('dataset') !== DATASET) return json(res, 404, { error: 'Not found.' });
      // Real listings point at huggingface.co; the client must move them onto the configured endpoint.
      const entry = (split: string, filename: string, size: number) => ({
        dataset: DATASET,
        config: 'default',
        split,
        url: `https://huggingface.co/api/datasets/${DATASET}/parquet/default/${split}/${filename}`,
        filename,
        size,
      });
      return json(res, 200, {
        // Deliberately out of order, with another split that must not be fetched.
        parquet_files: [entry('validation', '0001.parquet', PARQUET['0001.parquet']!.length), entry('train', '0000.parquet', 999), entry('validation', '0000.parquet', PARQUET['0000.parquet']!.length)],
        pending: [],
        failed: [],
        partial: false,
      });
    }
    const name = u.pathname.startsWith(`${FILE_PATH}/`) ? u.pathname.slice(FILE_PATH.length + 1) : '';
    const buf = PARQUET[name];
    if (buf) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(buf.length) });
      if (opts.truncateParquet && name === '0001.parquet') {
        res.write(buf.subarray(0, Math.floor(buf.length / 2)), () => res.destroy());
        return;
      }
      return res.end(buf);
    }
    json(res, 404, { error: 'Not found.' });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    urls,
    authHeaders,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), 'hpt-hub-'));
  dirs.push(d);
  return d;
}

function options(fx: { url: string }, cacheDir: string, extra: Partial<HubOptions> = {}): HubOptions {
  // token '' keeps an HF_TOKEN in the environment out of the tests.
  return { cacheDir, endpoint: fx.url, datasetsServer: fx.url, token: '', ...extra };
}

async function collect(it: AsyncIterable<Record<string, unknown>>): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of it) out.push(r);
  return out;
}

/** Relative paths of all files under `dir`. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  await walk(dir);
  return out.sort();
}

async function rejection(p: Promise<unknown>): Promise<HptError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(HptError);
    return e as HptError;
  }
  throw new Error('expected a rejection');
}

const CACHE_FILE = path.join('test', 'fixture', 'default', 'validation.jsonl');

describe('loadHubRows — rows API', () => {
  it('pages through all rows in order and caches them as JSONL', async () => {
    const fx = await startFixture();
    const dir = await tempDir();
    const progress: Array<[number, number | undefined]> = [];
    const rows = await collect(loadHubRows(SOURCE, options(fx, dir, { method: 'rows', onProgress: (d, t) => progress.push([d, t]) })));
    expect(rows).toEqual(ROWS);
    expect(rows[0]).toEqual({ idx: 0, question: 'Is statement 0 true?', answer: true, passage: 'Passage 0 — café' });
    expect(fx.urls.map((u) => u.pathname)).toEqual(['/rows', '/rows', '/rows']);
    expect(fx.urls.map((u) => [u.searchParams.get('offset'), u.searchParams.get('length')])).toEqual([
      ['0', '100'],
      ['100', '100'],
      ['200', '50'],
    ]);
    expect(fx.urls.every((u) => u.searchParams.get('dataset') === DATASET && u.searchParams.get('config') === 'default' && u.searchParams.get('split') === 'validation')).toBe(true);
    expect(progress).toEqual([
      [100, 250],
      [200, 250],
      [250, 250],
    ]);
    expect(await filesUnder(dir)).toEqual([CACHE_FILE]);
    const lines = (await readFile(path.join(dir, CACHE_FILE), 'utf8')).split('\n');
    expect(lines.length).toBe(251);
    expect(lines[250]).toBe('');
    expect(JSON.parse(lines[249]!)).toEqual(ROWS[249]);
  });

  it('honours pageSize', async () => {
    const fx = await startFixture();
    const rows = await collect(loadHubRows(SOURCE, options(fx, await tempDir(), { method: 'rows', pageSize: 64 })));
    expect(rows.length).toBe(250);
    expect(rows[249]).toEqual(ROWS[249]);
    expect(fx.urls.map((u) => `${u.searchParams.get('offset')}+${u.searchParams.get('length')}`)).toEqual(['0+64', '64+64', '128+64', '192+58']);
  });

  it('serves a second load from the cache without any request', async () => {
    const fx = await startFixture();
    const dir = await tempDir();
    await collect(loadHubRows(SOURCE, options(fx, dir, { method: 'rows' })));
    expect(fx.requests.length).toBe(3);
    const again = await collect(loadHubRows(SOURCE, options(fx, dir, { method: 'rows' })));
    expect(again).toEqual(ROWS);
    expect(fx.requests.length).toBe(3);
    // Even with the hub unreachable, the cache answers.
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const offline = await collect(loadHubRows(SOURCE, { cacheDir: dir, endpoint: dead, datasetsServer: dead, token: '' }));
    expect(offline.length).toBe(250);
    expect(offline[123]).toEqual(ROWS[123]);
  });

  it('retries a 503 with Retry-After and then succeeds', async () => {
    const fx = await startFixture({ first503: true });
    const rows = await collect(loadHubRows(SOURCE, options(fx, await tempDir(), { method: 'rows' })));
    expect(rows).toEqual(ROWS);
    expect(fx.urls.map((u) => u.searchParams.get('offset'))).toEqual(['0', '0', '100', '200']);
  });
});

describe('loadHubRows — parquet', () => {
  it('gives the same rows (BigInt → number) and leaves only the JSONL cache behind', async () => {
    const fx = await startFixture();
    const dir = await tempDir();
    const progress: number[] = [];
    const rows = await collect(loadHubRows(SOURCE, options(fx, dir, { method: 'parquet', onProgress: (d) => progress.push(d) })));
    expect(rows).toEqual(ROWS);
    expect(typeof rows[200]!.idx).toBe('number');
    expect(fx.requests).toEqual([`/parquet?dataset=test%2Ffixture`, `${FILE_PATH}/0000.parquet`, `${FILE_PATH}/0001.parquet`]);
    // Row groups of 60: 60, 120, 150 from the first file, 210, 250 from the second.
    expect(progress).toEqual([60, 120, 150, 210, 250]);
    expect(await filesUnder(dir)).toEqual([CACHE_FILE]);

    // Byte-identical to the cache the rows API produces.
    const fx2 = await startFixture();
    const dir2 = await tempDir();
    await collect(loadHubRows(SOURCE, options(fx2, dir2, { method: 'rows' })));
    expect(await readFile(path.join(dir, CACHE_FILE), 'utf8')).toBe(await readFile(path.join(dir2, CACHE_FILE), 'utf8'));
  });

  it('auto uses parquet when it is listed', async () => {
    const fx = await startFixture();
    const rows = await collect(loadHubRows(SOURCE, options(fx, await tempDir())));
    expect(rows).toEqual(ROWS);
    expect(fx.urls.map((u) => u.pathname)).toEqual(['/parquet', `${FILE_PATH}/0000.parquet`, `${FILE_PATH}/0001.parquet`]);
  });

  it('auto falls back to the rows API when the parquet listing 404s', async () => {
    const fx = await startFixture({ parquetListing: '404' });
    const dir = await tempDir();
    const rows = await collect(loadHubRows(SOURCE, options(fx, dir, { method: 'auto' })));
    expect(rows).toEqual(ROWS);
    expect(fx.urls.map((u) => u.pathname)).toEqual(['/parquet', '/rows', '/rows', '/rows']);
    expect(await filesUnder(dir)).toEqual([CACHE_FILE]);
  });

  it('method parquet reports a 404 listing instead of falling back', async () => {
    const fx = await startFixture({ parquetListing: '404' });
    const dir = await tempDir();
    const err = await rejection(collect(loadHubRows(SOURCE, options(fx, dir, { method: 'parquet' }))));
    expect(err.code).toBe('E_HUB');
    expect(err.message).toContain('test/fixture (config default, split validation)');
    expect(err.message).toContain('HTTP 404');
    expect(fx.urls.map((u) => u.pathname)).toEqual(['/parquet']);
    expect(await filesUnder(dir)).toEqual([]);
  });
});

describe('loadHubRows — errors', () => {
  it('401: names HF_TOKEN and never repeats the token', async () => {
    const secret = 'hf_wrongSecretToken42';
    const fx = await startFixture({ requireToken: 'hf_rightToken' });
    const dir = await tempDir();
    const err = await rejection(collect(loadHubRows(SOURCE, options(fx, dir, { method: 'rows', token: secret }))));
    expect(err.code).toBe('E_HUB');
    expect(err.message).toContain('HF_TOKEN');
    expect(err.message).toContain('HTTP 401');
    expect(err.message).toContain('test/fixture (config default, split validation)');
    expect(err.message).not.toContain(secret);
    expect(err.message).not.toContain('\n');
    expect(fx.authHeaders).toEqual([`Bearer ${secret}`]);
    expect(await filesUnder(dir)).toEqual([]);

    // The right token works, and is not written to the cache.
    const rows = await collect(loadHubRows(SOURCE, options(fx, dir, { method: 'rows', token: 'hf_rightToken' })));
    expect(rows.length).toBe(250);
    expect(await readFile(path.join(dir, CACHE_FILE), 'utf8')).not.toContain('hf_rightToken');
  });

  it('404: names the unknown split', async () => {
    const fx = await startFixture();
    const err = await rejection(collect(loadHubRows({ ...SOURCE, split: 'nope' }, options(fx, await tempDir(), { method: 'rows' }))));
    expect(err.code).toBe('E_HUB');
    expect(err.message).toContain('test/fixture (config default, split nope)');
    expect(err.message).toContain('does not know this dataset, config or split');
    expect(err.message).toContain('Not found.');
  });

  it('an unreachable endpoint gives a clear error and no cache file', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const dir = await tempDir();
    const err = await rejection(collect(loadHubRows(SOURCE, { cacheDir: dir, endpoint: dead, datasetsServer: dead, token: '' })));
    expect(err.code).toBe('E_HUB');
    expect(err.message).toBe(
      `cannot load test/fixture (config default, split validation): the Hugging Face hub is not reachable (${new URL(dead).host}: ECONNREFUSED); download the split and pass --data FILE, or set HF_ENDPOINT`,
    );
    expect(await filesUnder(dir)).toEqual([]);
  });

  it('a malformed response is reported as such', async () => {
    const fx = await startFixture({ malformedRows: true });
    const err = await rejection(collect(loadHubRows(SOURCE, options(fx, await tempDir(), { method: 'rows' }))));
    expect(err.code).toBe('E_HUB');
    expect(err.message).toContain('malformed response');
    expect(err.message).toContain('no "rows" array');
  });

  it('a server that dies between rows pages leaves no cache file; a later run downloads everything', async () => {
    const fx = await startFixture({ dieAtOffset: 100 });
    const dir = await tempDir();
    const err = await rejection(collect(loadHubRows(SOURCE, options(fx, dir, { method: 'rows' }))));
    expect(err.code).toBe('E_HUB');
    expect(err.message).toContain('not reachable');
    expect(fx.urls.map((u) => u.searchParams.get('offset'))).toEqual(['0', '100']);
    expect(await filesUnder(dir)).toEqual([]);

    const fx2 = await startFixture();
    const rows = await collect(loadHubRows(SOURCE, options(fx2, dir, { method: 'rows' })));
    expect(rows).toEqual(ROWS);
    expect(fx2.requests.length).toBe(3);
  });

  it('a parquet download cut off mid-file leaves no cache or parquet file behind', async () => {
    const fx = await startFixture({ truncateParquet: true });
    const dir = await tempDir();
    const err = await rejection(collect(loadHubRows(SOURCE, options(fx, dir, { method: 'parquet' }))));
    expect(err.code).toBe('E_HUB');
    expect(err.message).toContain('0001.parquet');
    expect(err.message).toMatch(/interrupted|incomplete/);
    expect(fx.urls.map((u) => u.pathname)).toEqual(['/parquet', `${FILE_PATH}/0000.parquet`, `${FILE_PATH}/0001.parquet`]);
    expect(await filesUnder(dir)).toEqual([]);
    await expect(stat(path.join(dir, CACHE_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
