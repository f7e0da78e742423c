/**
 * Resume planning: which run an invocation writes to and which samples it may skip — by the configuration's identity
 * (`configHash`, with the data's content, not its path), the owner and workers of a running run (a live one is
 * joined as one more worker, a dead one's run taken over), and the check that a resumed run sees the same samples at
 * the same positions.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { HptError, type Json, type Sample } from '@hpt-bench/sdk';
import { type RunRecord, RunStore } from '../store/store.js';
import { storeExists, storeLabel } from '../store/location.js';
import { canonicalJson, configHashes, fromStoredConfig, type RunConfig, type RunPlan } from './config.js';

/**
 * A sample's content hash (hex, 32 characters of sha256 over its id, input, target and replicate): what a resumed
 * run compares with the row stored at the same position.
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
  return !processGone(run.owner);
}

/**
 * Whether the process named by `owner` (`<hostname>:<pid>`) is known to be gone: it ran on this host and no process
 * with its pid exists. An owner on another host is never known gone here (its heartbeat or lease tells).
 */
export function processGone(owner: string): boolean {
  const colon = owner.lastIndexOf(':');
  const host = owner.slice(0, colon);
  const pid = Number(owner.slice(colon + 1));
  if (host !== hostname() || !Number.isInteger(pid)) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

/** The other workers of run `runId` that are executing it now (state `running`, recent heartbeat, process alive). */
export function liveWorkers(store: RunStore, runId: string, self: string, now = Date.now()): string[] {
  return store
    .listWorkers(runId)
    .filter((w) => w.worker !== self && w.state === 'running' && ownerAlive({ owner: w.worker, heartbeatAt: w.heartbeatAt }, now))
    .map((w) => w.worker);
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
  /**
   * set when this invocation joined a run that live processes execute (several workers on one run, run/share.ts):
   * those workers (`<host>:<pid>`); absent otherwise
   */
  joined?: string[];
  /** positions already recorded (errored ones only when they are kept: `skipErrored`) */
  skip: Set<number>;
  /** every recorded row by position, to check the streamed samples against (`checkResumedSample`) */
  recorded: Map<number, RecordedSample>;
}

/**
 * Pick the run this invocation writes to and take it, atomically across processes (one IMMEDIATE transaction):
 * `--resume <id>`; else (unless `fresh`) the newest unfinished (`running` or `failed`) run with the same configuration
 * hash — with `retryErrors` the newest run in any state; else a new run `newId` created with `create` (its
 * fingerprint included: a continued run keeps the fingerprint it was created with). A continued run
 * redoes its errored samples (they are not finished); `skip` holds the positions recorded as done.
 *
 * Several workers: when live processes execute the run to continue (its running owner, or workers registered in
 * `run_workers`), this invocation joins it as one more worker (`joined` names them; the claims of the run stay, see
 * run/share.ts). When none does, it takes the run over and starts a new round of claims (the old ones are dropped, so
 * errored samples of blocks done in an earlier round are redone). Either way it is registered as a worker.
 * @throws HptError `E_CONFIG` when `--resume` names no run of this store or a run of another configuration or data.
 */
export function openRun(
  store: RunStore,
  config: RunConfig,
  plan: RunPlan,
  newId: string,
  owner: string,
  create: { dataset: string; model: string; mode: string; config: Record<string, Json>; fingerprint?: Record<string, Json> },
): OpenedRun {
  // the current hash, then the one earlier versions stored for the same configuration (`configHashes`)
  const [hash, legacy] = configHashes(config) as [string, string?];
  return store.exclusive(() => {
    let existing: RunRecord | undefined;
    if (plan.resume) {
      existing = store.getRun(plan.resume);
      if (!existing) throw new HptError('E_CONFIG', `no run ${plan.resume} in ${store.path}; see \`hpt-bench runs\``);
      const storedData = existing.config.dataHash;
      if (config.dataHash && typeof storedData === 'string' && storedData !== config.dataHash) {
        throw new HptError('E_CONFIG', `the data of run ${plan.resume} changed since it started (${String(existing.config.data ?? 'data')}: ${storedData.slice(0, 19)}… then, ${config.dataHash.slice(0, 19)}… now); start a new run without --resume`);
      }
      if (existing.configHash && existing.configHash !== hash && existing.configHash !== legacy) throw new HptError('E_CONFIG', `run ${plan.resume} has another configuration; resume it without changing dataset, model, ladder or generation flags`);
    } else if (!plan.fresh) {
      const find = (h: string) => (plan.retryErrors ? store.findLatest(h) : store.findUnfinished(h));
      existing = find(hash) ?? (legacy ? find(legacy) : undefined);
    }
    if (!existing) {
      store.createRun({ id: newId, ...create, configHash: hash, owner });
      store.registerWorker(newId, owner);
      return { runId: newId, resumed: false, skip: new Set<number>(), recorded: new Map<number, RecordedSample>() };
    }
    const ownerLive = existing.status === 'running' && !!existing.owner && existing.owner !== owner && ownerAlive(existing);
    const workers = liveWorkers(store, existing.id, owner);
    if (ownerLive && existing.owner && !workers.includes(existing.owner)) workers.unshift(existing.owner);
    if (!ownerLive) store.claimRun(existing.id, owner);
    // no live worker: a new round, whose claims start empty
    if (!workers.length) store.resetClaims(existing.id);
    store.registerWorker(existing.id, owner);
    const recorded = store.recordedSamples(existing.id);
    const skip = new Set<number>();
    for (const [idx, r] of recorded) if (!r.errored) skip.add(idx);
    return { runId: existing.id, resumed: true, skip, recorded, ...(workers.length ? { joined: workers } : {}) };
  });
}

/**
 * Check that a sample streamed at a position a continued run has recorded is the sample recorded there (same id, and
 * the same content when the row has a hash). Otherwise the data changed under the run: mixing would count some
 * samples twice and others never.
 * @throws HptError `E_DATA_CHANGED` naming the position, both ids and the way out (`--new`).
 */
export function checkResumedSample(runId: string, sample: Pick<Sample, 'id' | 'index'>, hash: string, recorded: RecordedSample | undefined): void {
  if (!recorded) return;
  const sameId = recorded.sampleId === sample.id;
  if (sameId && (recorded.hash === null || recorded.hash === hash)) return;
  const what = sameId ? `sample ${sample.id} has other content than when it was recorded` : `position ${sample.index} holds sample ${JSON.stringify(sample.id)} but run ${runId} recorded ${JSON.stringify(recorded.sampleId)} there`;
  throw new HptError('E_DATA_CHANGED', `the data changed since run ${runId} started: ${what}. Its recorded samples cannot be mixed with these; start a new run with --new (or restore the data)`);
}

/**
 * The stored configuration of run `runId` in the store at `storePath` (for `--resume`), read without keeping the store
 * open. A configuration stored before `replicates` was renamed reads the same (`fromStoredConfig`).
 * @throws HptError `E_CONFIG` when the store or the run does not exist.
 */
export function storedRunConfig(storePath: string, runId: string): RunConfig {
  if (!storeExists(storePath)) throw new HptError('E_CONFIG', `no store at ${storeLabel(storePath)} (give --store), so there is no run ${runId} to resume`);
  const store = new RunStore(storePath);
  try {
    const run = store.getRun(runId);
    if (!run) throw new HptError('E_CONFIG', `no run ${runId} in ${storeLabel(storePath)}; see \`hpt-bench runs --store ${storeLabel(storePath)}\``);
    return fromStoredConfig(run.config);
  } finally {
    store.close();
  }
}
