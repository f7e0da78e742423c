/**
 * Loading one split of a Hugging Face hub dataset, with a local JSONL cache.
 *
 * Sources: the dataset viewer API ("datasets-server"), documented at https://huggingface.co/docs/dataset-viewer —
 * `GET /rows` (paged JSON rows, at most 100 per page) and `GET /parquet` (the list of the split's auto-converted
 * parquet files, which live on the hub under `refs/convert/parquet`). Parquet files are read with `hyparquet`.
 *
 * Cache layout: `<cacheDir>/<dataset>/<config>/<split>.jsonl`, one JSON object per line (UTF-8, `\n`-terminated),
 * rows in the hub's order. A cache file only ever appears by renaming a fully written and fsynced temp file, so its
 * existence means it is complete; a failed download removes its temp files.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { setTimeout as sleep } from 'node:timers/promises';
import { HptError } from '@hpt-bench/sdk';

/** One split of a hub dataset, e.g. `{ dataset: 'google/boolq', config: 'default', split: 'validation' }`. */
export interface HubSource {
  /** Repository id, `name` or `owner/name` (letters, digits, `_`, `.`, `-`). */
  dataset: string;
  /** Config (subset) name; default `'default'`, the name the hub gives the only config of a dataset without named ones. */
  config?: string;
  /** Split name, e.g. `train`, `validation`, `test`. */
  split: string;
}

/** How and where {@link loadHubRows} fetches and caches a split. */
export interface HubOptions {
  /** Cache root; rows are cached under `cacheDir/<dataset>/<config>/<split>.jsonl` (complete files only). */
  cacheDir: string;
  /**
   * Hub base URL; default `process.env.HF_ENDPOINT ?? 'https://huggingface.co'`. Parquet file URLs the datasets server
   * returns on `https://huggingface.co` are fetched from this host instead (for mirrors).
   */
  endpoint?: string;
  /** Dataset viewer API base URL; default `process.env.HPT_BENCH_HF_DATASETS_SERVER ?? 'https://datasets-server.huggingface.co'`. */
  datasetsServer?: string;
  /**
   * Access token; default `process.env.HF_TOKEN`. Sent as `Authorization: Bearer <token>` only to the datasets server
   * and the hub endpoint (fetch drops it on cross-origin redirects); never written to disk or into error messages.
   */
  token?: string;
  /** `rows`: the paged rows API; `parquet`: the converted parquet files; `auto` (default): parquet, else rows. */
  method?: 'auto' | 'rows' | 'parquet';
  /** Rows per rows-API request, an integer in 1..100 (100, the API maximum, by default). */
  pageSize?: number;
  /** Injectable fetch (tests); default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /**
   * Called while downloading (not when reading the cache) with the number of rows fetched so far and, for the rows
   * method, the split's total row count (`undefined` for parquet, whose total is only known file by file).
   */
  onProgress?: (done: number, total?: number) => void;
}

const DEFAULT_ENDPOINT = 'https://huggingface.co';
const DEFAULT_DATASETS_SERVER = 'https://datasets-server.huggingface.co';
/** Rows-API page length limit (the API rejects `length` > 100). */
const MAX_PAGE = 100;
/** Retries of a 429 / 5xx response, after the first attempt. */
const MAX_RETRIES = 3;
/** First backoff wait, doubled per retry; waits (including Retry-After) are capped at {@link MAX_WAIT_MS}. */
const BASE_WAIT_MS = 500;
const MAX_WAIT_MS = 10_000;

/**
 * Yields the rows of one split as plain JSON objects, in the hub's order.
 *
 * Lazy: nothing happens until iteration starts. If `<cacheDir>/<dataset>/<config>/<split>.jsonl` exists it is
 * streamed line by line and no request is made. Otherwise the whole split is first downloaded into that file (at
 * most one rows page or one parquet row group in memory; one parquet file on disk besides the cache) and then
 * streamed from it, so a failed download never yields a partial split.
 *
 * Parquet values are made JSON-safe: BigInt → number (a decimal string beyond ±2^53), Date → ISO string,
 * bytes → base64 string, undefined → null. Rows-API rows are kept as the API returns them.
 *
 * @throws {HptError} code `E_HUB`, one line naming the dataset, config and split, when the hub is not reachable,
 *   refuses access (401/403: set HF_TOKEN), does not know the dataset/config/split (404), keeps failing (429/5xx after
 *   retries), returns a malformed response, a parquet file cannot be read, a download is interrupted, or the cache
 *   file is corrupt.
 */
export function loadHubRows(source: HubSource, options: HubOptions): AsyncIterable<Record<string, unknown>> {
  return generateRows(source, options);
}

type Reason = 'unreachable' | 'interrupted' | 'auth' | 'not-found' | 'http' | 'malformed' | 'unsupported' | 'partial' | 'cache' | 'usage';

/** Failures of the parquet path after which `method: 'auto'` tries the rows API. */
const FALLBACK_REASONS: ReadonlySet<Reason> = new Set<Reason>(['not-found', 'malformed', 'unsupported', 'partial']);

/** An `HptError` (code `E_HUB`) that also says why, so `auto` knows when to fall back. */
class HubError extends HptError {
  readonly reason: Reason;
  constructor(reason: Reason, message: string, cause?: unknown) {
    super('E_HUB', message, { cause });
    this.reason = reason;
  }
}

interface Ctx {
  dataset: string;
  config: string;
  split: string;
  label: string;
  dir: string;
  cacheFile: string;
  endpoint: string;
  datasetsServer: string;
  token: string | undefined;
  method: 'auto' | 'rows' | 'parquet';
  pageSize: number;
  fetch: typeof fetch;
  onProgress: ((done: number, total?: number) => void) | undefined;
}

async function* generateRows(source: HubSource, options: HubOptions): AsyncGenerator<Record<string, unknown>> {
  const ctx = context(source, options);
  if (!(await isFile(ctx.cacheFile))) {
    await mkdir(ctx.dir, { recursive: true });
    if (ctx.method === 'rows') await attempt(ctx, downloadRows);
    else if (ctx.method === 'parquet') await attempt(ctx, downloadParquet);
    else {
      try {
        await attempt(ctx, downloadParquet);
      } catch (e) {
        if (!(e instanceof HubError) || !FALLBACK_REASONS.has(e.reason)) throw e;
        await attempt(ctx, downloadRows);
      }
    }
  }
  yield* readCache(ctx);
}

function context(source: HubSource, options: HubOptions): Ctx {
  const config = source.config ?? 'default';
  const label = `${String(source.dataset)} (config ${String(config)}, split ${String(source.split)})`;
  const usage = (what: string): never => {
    throw new HubError('usage', `cannot load ${label}: ${what}`);
  };
  const parts = typeof source.dataset === 'string' ? source.dataset.split('/') : [];
  if (parts.length < 1 || parts.length > 2 || !parts.every((p) => /^[\w][\w.-]*$/.test(p) && !p.includes('..')))
    usage('the dataset id must be "name" or "owner/name" (letters, digits, _ . -)');
  for (const [what, v] of [['config', config], ['split', source.split]] as const)
    if (typeof v !== 'string' || !/^[^/\\\0.][^/\\\0]{0,199}$/.test(v)) usage(`the ${what} name is not a valid name`);
  const pageSize = options.pageSize ?? MAX_PAGE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE) usage(`pageSize must be an integer in 1..${MAX_PAGE}`);
  const method = options.method ?? 'auto';
  if (!['auto', 'rows', 'parquet'].includes(method)) usage('method must be auto, rows or parquet');
  if (!options.cacheDir) usage('no cache directory was given');
  const dir = path.join(options.cacheDir, ...parts, config);
  const token = options.token ?? process.env.HF_TOKEN;
  const fetchFn = options.fetch ?? ((input: Parameters<typeof fetch>[0], init?: RequestInit) => globalThis.fetch(input, init));
  return {
    dataset: source.dataset,
    config,
    split: source.split,
    label,
    dir,
    cacheFile: path.join(dir, `${source.split}.jsonl`),
    endpoint: trimSlash(options.endpoint ?? process.env.HF_ENDPOINT ?? DEFAULT_ENDPOINT),
    datasetsServer: trimSlash(options.datasetsServer ?? process.env.HPT_BENCH_HF_DATASETS_SERVER ?? DEFAULT_DATASETS_SERVER),
    token: token?.trim() ? token.trim() : undefined,
    method,
    pageSize,
    fetch: fetchFn as typeof fetch,
    onProgress: options.onProgress,
  };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- cache

/** Appends JSONL rows to a temp file next to the cache file; `commit` renames it into place, `abort` deletes it. */
class CacheWriter {
  private constructor(
    private readonly handle: FileHandle,
    private readonly tmp: string,
    private readonly target: string,
  ) {}

  static async open(ctx: Ctx): Promise<CacheWriter> {
    const tmp = `${ctx.cacheFile}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    return new CacheWriter(await open(tmp, 'w'), tmp, ctx.cacheFile);
  }

  async write(rows: readonly unknown[]): Promise<void> {
    if (rows.length === 0) return;
    await this.handle.writeFile(rows.map((r) => JSON.stringify(r) + '\n').join(''), 'utf8');
  }

  async commit(): Promise<void> {
    await this.handle.sync();
    await this.handle.close();
    await rename(this.tmp, this.target);
  }

  async abort(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await rm(this.tmp, { force: true });
  }
}

/** Runs one download method into a fresh temp file and commits it; on any failure the temp file is removed. */
async function attempt(ctx: Ctx, method: (ctx: Ctx, out: CacheWriter) => Promise<void>): Promise<void> {
  const out = await CacheWriter.open(ctx);
  try {
    await method(ctx, out);
    await out.commit();
  } catch (e) {
    await out.abort();
    throw e;
  }
}

async function* readCache(ctx: Ctx): AsyncGenerator<Record<string, unknown>> {
  const input = createReadStream(ctx.cacheFile, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const line of lines) {
      n++;
      if (line.trim() === '') continue;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch {
        row = undefined;
      }
      if (!isObject(row))
        throw new HubError('cache', `cannot load ${ctx.label}: the cache file ${ctx.cacheFile} is corrupt at line ${n}; delete it to download the split again`);
      yield row;
    }
  } finally {
    lines.close();
    input.destroy();
  }
}

// ---------------------------------------------------------------- HTTP

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One-line, token-free text for a message. */
function clean(ctx: Ctx, text: string, max = 200): string {
  let t = text.replace(/\s+/g, ' ').trim();
  if (ctx.token) t = t.split(ctx.token).join('***');
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function fail(ctx: Ctx, reason: Reason, what: string, cause?: unknown): HubError {
  return new HubError(reason, clean(ctx, `cannot load ${ctx.label}: ${what}`, 1000), cause);
}

function errorDetail(e: unknown): string {
  const err = e as { message?: unknown; code?: unknown; cause?: { code?: unknown; message?: unknown; errors?: Array<{ code?: unknown }> } };
  const code = err?.cause?.code ?? err?.cause?.errors?.[0]?.code ?? err?.code;
  if (typeof code === 'string') return code;
  if (typeof err?.cause?.message === 'string' && err.cause.message) return err.cause.message;
  return typeof err?.message === 'string' ? err.message : String(e);
}

function waitMs(attemptNo: number, retryAfter: string | null): number {
  if (retryAfter !== null && retryAfter.trim() !== '') {
    const secs = Number(retryAfter);
    const ms = Number.isFinite(secs) ? secs * 1000 : Date.parse(retryAfter) - Date.now();
    if (Number.isFinite(ms)) return Math.min(Math.max(ms, 0), MAX_WAIT_MS);
  }
  return Math.min(BASE_WAIT_MS * 2 ** attemptNo, MAX_WAIT_MS);
}

/** GET `url`: retries 429/5xx with backoff, maps every other failure to a `HubError`. */
async function request(ctx: Ctx, url: string, accept: string): Promise<Response> {
  const headers: Record<string, string> = { accept, 'user-agent': 'hpt-bench' };
  const origin = safeOrigin(url);
  if (ctx.token && (origin === safeOrigin(ctx.datasetsServer) || origin === safeOrigin(ctx.endpoint)))
    headers.authorization = `Bearer ${ctx.token}`;
  const host = hostOf(url);
  for (let attemptNo = 0; ; attemptNo++) {
    let res: Response;
    try {
      res = await ctx.fetch(url, { headers });
    } catch (e) {
      throw fail(ctx, 'unreachable', `the Hugging Face hub is not reachable (${host}: ${errorDetail(e)}); download the split and pass --data FILE, or set HF_ENDPOINT`, e);
    }
    if (res.ok) return res;
    if ((res.status === 429 || res.status >= 500) && attemptNo < MAX_RETRIES) {
      await res.body?.cancel().catch(() => undefined);
      await sleep(waitMs(attemptNo, res.headers.get('retry-after')));
      continue;
    }
    const serverSays = await errorText(res);
    const status = `HTTP ${res.status} from ${host}${serverSays ? `: ${serverSays}` : ''}`;
    if (res.status === 401 || res.status === 403)
      throw fail(ctx, 'auth', `the Hugging Face hub refused access (${status}); set HF_TOKEN to a token that can read this dataset (accept its terms on the hub first if it is gated)`);
    if (res.status === 404)
      throw fail(ctx, 'not-found', `the hub does not know this dataset, config or split (${status}); check the names on the dataset's hub page, or set HF_TOKEN if it is private or gated`);
    throw fail(ctx, 'http', `the Hugging Face hub failed (${status}); retry later, or download the split and pass --data FILE`);
  }
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The `error` field of a JSON error body (the datasets server's format), else a short text body. */
async function errorText(res: Response): Promise<string> {
  let text: string;
  try {
    text = await res.text();
  } catch {
    return '';
  }
  try {
    const body: unknown = JSON.parse(text);
    if (isObject(body) && typeof body.error === 'string') return body.error;
  } catch {
    /* not JSON */
  }
  return text.length <= 200 && !/[<>]/.test(text) ? text : '';
}

async function readJson(ctx: Ctx, res: Response, url: string): Promise<unknown> {
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    throw fail(ctx, 'interrupted', `the download from ${hostOf(url)} was interrupted (${errorDetail(e)}); retry, or download the split and pass --data FILE`, e);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw fail(ctx, 'malformed', `the hub returned a malformed response (not JSON) for ${url}; retry later, or download the split and pass --data FILE`, e);
  }
}

function malformed(ctx: Ctx, url: string, what: string): HubError {
  return fail(ctx, 'malformed', `the hub returned a malformed response for ${url} (${what}); retry later, or download the split and pass --data FILE`);
}

// ---------------------------------------------------------------- rows API

/** Pages through `GET /rows` until `offset >= num_rows_total`, writing each page before requesting the next. */
async function downloadRows(ctx: Ctx, out: CacheWriter): Promise<void> {
  let offset = 0;
  let total: number | undefined;
  while (total === undefined || offset < total) {
    const length = total === undefined ? ctx.pageSize : Math.min(ctx.pageSize, total - offset);
    const query = new URLSearchParams({ dataset: ctx.dataset, config: ctx.config, split: ctx.split, offset: String(offset), length: String(length) });
    const url = `${ctx.datasetsServer}/rows?${query.toString()}`;
    const body = await readJson(ctx, await request(ctx, url, 'application/json'), url);
    if (!isObject(body) || !Array.isArray(body.rows)) throw malformed(ctx, url, 'no "rows" array');
    const n = body.num_rows_total;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw malformed(ctx, url, 'no valid "num_rows_total"');
    total = n;
    const rows: Record<string, unknown>[] = [];
    for (const [i, item] of (body.rows as unknown[]).entries()) {
      if (!isObject(item) || !isObject(item.row)) throw malformed(ctx, url, `rows[${i}] has no "row" object`);
      if (item.row_idx !== undefined && item.row_idx !== offset + i)
        throw malformed(ctx, url, `rows[${i}].row_idx is ${String(item.row_idx)}, expected ${offset + i}`);
      if (Array.isArray(item.truncated_cells) && item.truncated_cells.length > 0)
        throw fail(ctx, 'unsupported', `the rows API truncated cells ${clean(ctx, item.truncated_cells.join(', '), 100)} of row ${offset + i}; use method parquet, or download the split and pass --data FILE`);
      rows.push(item.row);
    }
    if (rows.length === 0 && offset < total) throw malformed(ctx, url, `no rows at offset ${offset} of ${total}`);
    await out.write(rows);
    offset += rows.length;
    ctx.onProgress?.(Math.min(offset, total), total);
  }
}

// ---------------------------------------------------------------- parquet

interface ParquetEntry {
  url: string;
  filename: string;
  size: number | undefined;
}

/** Lists the split's parquet files, then downloads, converts and deletes them one at a time. */
async function downloadParquet(ctx: Ctx, out: CacheWriter): Promise<void> {
  const files = await listParquet(ctx);
  let done = 0;
  for (const [i, entry] of files.entries()) {
    const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
    const part = path.join(ctx.dir, `${ctx.split}.${i}.parquet.${tag}.part`);
    const complete = path.join(ctx.dir, `${ctx.split}.${i}.parquet.${tag}`);
    try {
      await downloadFile(ctx, entry, part);
      await rename(part, complete);
      done = await convertParquet(ctx, entry, complete, out, done);
    } finally {
      await rm(part, { force: true });
      await rm(complete, { force: true });
    }
  }
}

async function listParquet(ctx: Ctx): Promise<ParquetEntry[]> {
  const url = `${ctx.datasetsServer}/parquet?${new URLSearchParams({ dataset: ctx.dataset }).toString()}`;
  const body = await readJson(ctx, await request(ctx, url, 'application/json'), url);
  if (!isObject(body) || !Array.isArray(body.parquet_files)) throw malformed(ctx, url, 'no "parquet_files" array');
  const available = new Set<string>();
  const files: ParquetEntry[] = [];
  for (const [i, f] of (body.parquet_files as unknown[]).entries()) {
    if (!isObject(f) || typeof f.config !== 'string' || typeof f.split !== 'string' || typeof f.url !== 'string')
      throw malformed(ctx, url, `parquet_files[${i}] lacks config, split or url`);
    available.add(`${f.config}/${f.split}`);
    if (f.config !== ctx.config || f.split !== ctx.split) continue;
    const filename = typeof f.filename === 'string' ? f.filename : (f.url.split('/').pop() ?? '');
    const size = typeof f.size === 'number' && Number.isInteger(f.size) && f.size >= 0 ? f.size : undefined;
    files.push({ url: rebase(ctx, f.url), filename, size });
  }
  if (files.length === 0) {
    const list = [...available].slice(0, 20).join(', ');
    throw fail(ctx, 'not-found', `the hub has no parquet files for this config and split (available: ${list || 'none'}); check the config and split names`);
  }
  if (files.some((f) => f.url.includes(`/partial-${ctx.split}/`)))
    throw fail(ctx, 'partial', 'the hub converted only part of this split to parquet; use method rows, or download the split and pass --data FILE');
  // The server lists files in order already; sort by filename (0000.parquet, 0001.parquet, ...) to be sure.
  return files.sort((a, b) => a.filename.localeCompare(b.filename, 'en', { numeric: true }));
}

/** Moves a `https://huggingface.co/...` file URL onto the configured hub endpoint (a mirror), else leaves it. */
function rebase(ctx: Ctx, url: string): string {
  return url.startsWith(`${DEFAULT_ENDPOINT}/`) ? ctx.endpoint + url.slice(DEFAULT_ENDPOINT.length) : url;
}

async function downloadFile(ctx: Ctx, entry: ParquetEntry, file: string): Promise<void> {
  const res = await request(ctx, entry.url, 'application/octet-stream');
  if (!res.body) throw malformed(ctx, entry.url, 'empty body');
  try {
    await pipeline(Readable.fromWeb(res.body as unknown as NodeReadableStream<Uint8Array>), createWriteStream(file));
  } catch (e) {
    throw fail(ctx, 'interrupted', `the download of ${entry.filename} from ${hostOf(entry.url)} was interrupted (${errorDetail(e)}); retry, or download the split and pass --data FILE`, e);
  }
  const size = (await stat(file)).size;
  if (entry.size !== undefined && size !== entry.size)
    throw fail(ctx, 'interrupted', `the download of ${entry.filename} from ${hostOf(entry.url)} is incomplete (${size} of ${entry.size} bytes); retry, or download the split and pass --data FILE`);
}

/** Appends the rows of one downloaded parquet file to `out`, one row group at a time; returns the new row count. */
async function convertParquet(ctx: Ctx, entry: ParquetEntry, file: string, out: CacheWriter, done: number): Promise<number> {
  const unreadable = (e: unknown) =>
    fail(ctx, 'unsupported', `cannot read parquet file ${entry.filename} (${e instanceof Error ? e.message : String(e)}); use method rows, or download the split and pass --data FILE`, e);
  // imported here, not at the top: the parquet reader (27 modules) is only needed when a split is converted, and a run
  // that reads a local or cached file should not pay for loading it at startup
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } = await import('hyparquet');
  let metadata: Awaited<ReturnType<typeof parquetMetadataAsync>>;
  const buffer = await asyncBufferFromFile(file);
  try {
    metadata = await parquetMetadataAsync(buffer);
  } catch (e) {
    throw unreadable(e);
  }
  let start = 0;
  for (const group of metadata.row_groups) {
    const end = start + Number(group.num_rows);
    let rows: Record<string, unknown>[];
    try {
      rows = await parquetReadObjects({ file: buffer, metadata, rowStart: start, rowEnd: end });
    } catch (e) {
      throw unreadable(e);
    }
    await out.write(rows.map((r) => toPlain(r) as Record<string, unknown>));
    done += rows.length;
    start = end;
    ctx.onProgress?.(done, undefined);
  }
  return done;
}

/** A JSON-safe copy of a value read from parquet (see {@link loadHubRows}). */
function toPlain(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(v as ArrayLike<unknown>, toPlain);
  if (typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = toPlain(x);
    return o;
  }
  return v;
}
