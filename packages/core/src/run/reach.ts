/**
 * The reachability check of a run's endpoints before its first sample (issue #25 item 9: "an unreachable endpoint takes
 * 23 s to fail ... probe once, fail in about a second when nothing has ever answered"). Without it, a run against a
 * closed port opens a run row, sends every call of its first samples through the retries with backoff, and ends as a
 * `failed` run. One TCP connection per endpoint tells a refused port or an unknown host at once, without a request
 * (nothing is sent, cached, stored or costed).
 */
import { connect } from 'node:net';
import { HptError, type Logger, type Model } from '@hpt-bench/sdk';

/** How long one connection attempt may take before the check gives up on it and lets the run go on (ms). */
export const REACH_TIMEOUT_MS = 3_000;

/**
 * Connection errors that say nothing is there to answer: a refused port, an unknown or unresolvable host, no route.
 * Anything else (a timeout, a reset) is not conclusive: the run's own calls, retries and outage breaker handle it.
 */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** One model of the run whose endpoints are checked, and the flag that sets its endpoint (for the message). */
export interface ReachTarget {
  model: Model;
  /** e.g. `--base-url`, `--selector-base-url` */
  flag: string;
}

/** The outcome of one endpoint's connection attempt: `ok`, `unknown` (timed out or inconclusive), or the error. */
export type ReachOutcome = { state: 'ok' } | { state: 'unknown' } | { state: 'unreachable'; reason: string };

/**
 * The endpoints a model sends its requests to: `endpoints` of a model spread over several (`EndpointSpread`), else its
 * `endpoint`; only http(s) URLs (a plugin model's endpoint may name something else, which is not checked).
 */
export function httpEndpoints(model: Model): string[] {
  const all = (model as { endpoints?: readonly string[] }).endpoints ?? (model.endpoint !== undefined ? [model.endpoint] : []);
  return all.filter((e) => {
    try {
      const u = new URL(e);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
    } catch {
      return false;
    }
  });
}

/**
 * Open (and close at once) one TCP connection to an http(s) URL's host and port (80/443 when the URL names none).
 * @param timeoutMs how long to wait for the connection (default `REACH_TIMEOUT_MS`).
 * @returns `ok` when it connected; `unreachable` with the system's reason (`connect ECONNREFUSED 127.0.0.1:9`,
 *   `getaddrinfo ENOTFOUND host`) for the `UNREACHABLE` codes; `unknown` for a timeout or any other error.
 */
export function reach(url: string, timeoutMs = REACH_TIMEOUT_MS): Promise<ReachOutcome> {
  const u = new URL(url);
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return new Promise((resolve) => {
    const socket = connect({ host, port, autoSelectFamily: true });
    const done = (outcome: ReachOutcome): void => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => done({ state: 'unknown' }), timeoutMs);
    timer.unref();
    socket.once('connect', () => done({ state: 'ok' }));
    socket.once('error', (e: NodeJS.ErrnoException) => {
      // with several addresses (autoSelectFamily) Node reports an AggregateError whose parts carry the codes
      const parts = (e as unknown as { errors?: NodeJS.ErrnoException[] }).errors ?? [e];
      const codes = parts.map((p) => p.code ?? '');
      if (codes.length && codes.every((c) => UNREACHABLE.has(c))) done({ state: 'unreachable', reason: parts.map((p) => p.message).join('; ') });
      else done({ state: 'unknown' });
    });
  });
}

/**
 * Check, before the run's first sample and before any run row exists, that every model with an http(s) endpoint has at
 * least one endpoint something listens on: one TCP connection per distinct endpoint, all at once (no HTTP request is
 * sent). A model whose endpoints are all unreachable (`reach`: refused, unknown host, no route) ends the run here; an
 * endpoint of several (`--base-url` given several times) that is unreachable while another answers is reported with a
 * warning on `logger` (the spread drains it). A connection that neither succeeds nor fails within `timeoutMs` lets the
 * run go on (its calls' own timeouts and retries apply). Models without an http(s) endpoint (baselines) are skipped.
 * @param targets the run's models (evaluated, knowledge, extractor, selector), each with the flag that sets its endpoint.
 * @throws HptError `E_ENDPOINT` (exit 1) naming the endpoint, the system's reason and the flag to check.
 */
export async function checkEndpointsReachable(targets: readonly ReachTarget[], logger?: Logger, timeoutMs = REACH_TIMEOUT_MS): Promise<void> {
  const urls = [...new Set(targets.flatMap((t) => httpEndpoints(t.model)))];
  if (!urls.length) return;
  const outcomes = new Map(await Promise.all(urls.map(async (u) => [u, await reach(u, timeoutMs)] as const)));
  const warned = new Set<string>();
  for (const { model, flag } of targets) {
    const own = httpEndpoints(model);
    const down = own.filter((u) => outcomes.get(u)!.state === 'unreachable');
    if (!down.length) continue;
    if (down.length === own.length) {
      const u = down[0]!;
      const reason = (outcomes.get(u) as { reason: string }).reason;
      const which = own.length > 1 ? `none of the ${own.length} endpoints of ${model.id} can be reached (${u}: ${reason})` : `cannot reach ${u} (${reason})`;
      throw new HptError('E_ENDPOINT', `${which}: nothing answers there; check ${flag}${flag === '--base-url' ? ' / OPENAI_BASE_URL' : ''} and that the server is running (no run was started)`, { exitCode: 1 });
    }
    for (const u of down) {
      if (warned.has(u)) continue;
      warned.add(u);
      logger?.warn(`cannot reach ${u} (${(outcomes.get(u) as { reason: string }).reason}); the calls of ${model.id} go to its other endpoints`);
    }
  }
}
