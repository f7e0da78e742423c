/**
 * Which run an invocation writes to, and which samples it may skip (issue #5 item 2; issue #13 items 6 and 8):
 * the configuration's identity (with the data's content, not its path), the owner of a running run, and the check
 * that a resumed run sees the same samples at the same positions.
 */
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { HptError, type Json, type Sample } from '@hpt-bench/sdk';
import type { RunRecord, RunStore } from '../store/store.js';
import type { RunConfig, RunPlan } from './run.js';
import { credentialFreeUrl } from './secrets.js';

/** Configuration fields that do not change results, left out of the resume hash. */
const NOT_IN_HASH = new Set(['concurrency', 'cacheDir', 'cache', 'maxRetries', 'prices', 'unsafeSandbox']);

/**
 * The identity of a run's configuration (sha256 hex over the result-relevant fields: dataset, data, split, limit,
 * models, model endpoint, ladder, compat, seed, generation settings, filters, samples, scorer options, HPI_Dataset);
 * runs with the same hash may continue each other. Concurrency, cache, retries, timeouts, prices and
 * `--unsafe-sandbox` do not count. When `config.dataHash` is set (the content of `--data`, see `dataFingerprint`), it
 * stands for the data instead of the file's path: the same content under another path is the same run, and a file
 * changed in place is another run (issue #13 item 6).
 */
export function configHash(config: RunConfig): string {
  const c: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) if (!NOT_IN_HASH.has(k) && v !== undefined) c[k] = v;
  if (config.dataHash) delete c.data;
  const baseUrl = config.modelOptions.baseUrl;
  c.modelOptions = { baseUrl: typeof baseUrl === 'string' ? credentialFreeUrl(baseUrl) : null };
  if (config.selectorBaseUrl) c.selectorBaseUrl = credentialFreeUrl(config.selectorBaseUrl);
  return createHash('sha256').update(canonicalJson(c)).digest('hex');
}

/** JSON with object keys sorted, so equal values hash equally. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v ?? null);
}

/**
 * The content hash of a data source (`--data`): `sha256:<hex>` over the file's bytes, or for a directory over each
 * regular file below it (sorted relative paths, each path and its bytes). Streams, so a large file costs read time
 * only (about 1 s per GB). Undefined when `path` does not exist (the dataset then reports the missing file).
 */
export async function dataFingerprint(path: string): Promise<string | undefined> {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    return undefined;
  }
  const hash = createHash('sha256');
  const files = isDir ? listFiles(path).map((rel) => ({ rel, full: join(path, rel) })) : [{ rel: '', full: path }];
  for (const f of files) {
    if (isDir) hash.update(`${f.rel}\0`);
    for await (const chunk of createReadStream(f.full)) hash.update(chunk as Buffer);
    if (isDir) hash.update('\0');
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Regular files below `dir`, as sorted relative paths (symbolic links are not followed). */
function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(dir, rel));
    else if (e.isFile()) out.push(rel);
  }
  return out.sort();
}

/**
 * A sample's content hash (hex, 32 characters of sha256 over its id, input, target and replicate): what a resumed
 * run compares with the row stored at the same position (issue #13 item 6).
 */
export function sampleHash(sample: Pick<Sample, 'id' | 'input' | 'target' | 'meta'>): string {
  const replicate = (sample.meta as Record<string, Json> | undefined)?.replicate ?? null;
  return createHash('sha256').update(canonicalJson({ id: sample.id, input: sample.input, target: sample.target, replicate })).digest('hex').slice(0, 32);
}

/** The owner string of this process: `<hostname>:<pid>` (see `RunRecord.owner`). */
export function currentOwner(): string {
  return `${hostname()}:${process.pid}`;
}

/** How often a running process refreshes its run's heartbeat (ms). */
export const HEARTBEAT_MS = 5_000;
/** A heartbeat older than this (ms) means its owner is gone, on any host. */
export const STALE_MS = 30_000;

/**
 * Whether the owner of a `running` run is still executing it: its heartbeat is recent (`STALE_MS`) and, when it runs
 * on this host, its process exists. A run without owner (written by an older version, or released) has none alive.
 */
export function ownerAlive(run: Pick<RunRecord, 'owner' | 'heartbeatAt'>, now = Date.now()): boolean {
  if (!run.owner || !run.heartbeatAt) return false;
  if (now - Date.parse(run.heartbeatAt) > STALE_MS) return false;
  const colon = run.owner.lastIndexOf(':');
  const host = run.owner.slice(0, colon);
  const pid = Number(run.owner.slice(colon + 1));
  if (host !== hostname() || !Number.isInteger(pid)) return true;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What a recorded sample looked like (see `RunStore.recordedSamples`). */
export interface RecordedSample {
  sampleId: string;
  hash: string | null;
  errored: boolean;
}

/** The run an invocation writes to: its id, whether it continues an earlier run, and the samples recorded there. */
export interface OpenedRun {
  runId: string;
  resumed: boolean;
  /** positions already recorded (errored ones only when they are kept: `skipErrored`) */
  skip: Set<number>;
  /** every recorded row by position, to check the streamed samples against (`checkResumedSample`) */
  recorded: Map<number, RecordedSample>;
}

/**
 * Pick the run this invocation writes to and take it, atomically across processes (one IMMEDIATE transaction):
 * `--resume <id>`; else (unless `fresh`) the newest unfinished (`running` or `failed`) run with the same configuration
 * hash — with `retryErrors` the newest run in any state; else a new run `newId` created with `create`. A continued run
 * redoes its errored samples (they are not finished); `skip` holds the positions recorded as done.
 * @throws HptError `E_CONFIG` when `--resume` names no run of this store or a run of another configuration or data;
 *   `E_BUSY` (exit code 1) when the run to continue is being executed by a live process (named in the message).
 */
export function openRun(
  store: RunStore,
  config: RunConfig,
  plan: RunPlan,
  newId: string,
  owner: string,
  create: { dataset: string; model: string; mode: string; config: Record<string, Json> },
): OpenedRun {
  const hash = configHash(config);
  return store.exclusive(() => {
    let existing: RunRecord | undefined;
    if (plan.resume) {
      existing = store.getRun(plan.resume);
      if (!existing) throw new HptError('E_CONFIG', `no run ${plan.resume} in ${store.path}; see \`hpt-bench runs\``);
      const storedData = existing.config.dataHash;
      if (config.dataHash && typeof storedData === 'string' && storedData !== config.dataHash) {
        throw new HptError('E_CONFIG', `the data of run ${plan.resume} changed since it started (${String(existing.config.data ?? 'data')}: ${storedData.slice(0, 19)}… then, ${config.dataHash.slice(0, 19)}… now); start a new run without --resume`);
      }
      if (existing.configHash && existing.configHash !== hash) throw new HptError('E_CONFIG', `run ${plan.resume} has another configuration; resume it without changing dataset, model, ladder or generation flags`);
    } else if (!plan.fresh) {
      existing = plan.retryErrors ? store.findLatest(hash) : store.findUnfinished(hash);
    }
    if (!existing) {
      store.createRun({ id: newId, ...create, configHash: hash, owner });
      return { runId: newId, resumed: false, skip: new Set<number>(), recorded: new Map<number, RecordedSample>() };
    }
    if (existing.status === 'running' && existing.owner !== owner && ownerAlive(existing)) {
      throw new HptError(
        'E_BUSY',
        `run ${existing.id} (same configuration) is being executed by process ${existing.owner} (last seen ${existing.heartbeatAt}); wait for it to finish, stop it, or start a separate run with --new`,
        { exitCode: 1 },
      );
    }
    store.claimRun(existing.id, owner);
    const recorded = store.recordedSamples(existing.id);
    const skip = new Set<number>();
    for (const [idx, r] of recorded) if (!r.errored) skip.add(idx);
    return { runId: existing.id, resumed: true, skip, recorded };
  });
}

/**
 * Check that a sample streamed at a position a continued run has recorded is the sample recorded there (same id, and
 * the same content when the row has a hash). Otherwise the data changed under the run: mixing would count some
 * samples twice and others never (issue #13 item 6).
 * @throws HptError `E_DATA_CHANGED` naming the position, both ids and the way out (`--new`).
 */
export function checkResumedSample(runId: string, sample: Pick<Sample, 'id' | 'index'>, hash: string, recorded: RecordedSample | undefined): void {
  if (!recorded) return;
  const sameId = recorded.sampleId === sample.id;
  if (sameId && (recorded.hash === null || recorded.hash === hash)) return;
  const what = sameId ? `sample ${sample.id} has other content than when it was recorded` : `position ${sample.index} holds sample ${JSON.stringify(sample.id)} but run ${runId} recorded ${JSON.stringify(recorded.sampleId)} there`;
  throw new HptError('E_DATA_CHANGED', `the data changed since run ${runId} started: ${what}. Its recorded samples cannot be mixed with these; start a new run with --new (or restore the data)`);
}
