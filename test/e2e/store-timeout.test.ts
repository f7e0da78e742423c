/**
 * End-to-end (issue #25, item 1): a PostgreSQL store whose connection goes silent. The built CLI runs against a real
 * throwaway PostgreSQL server reached through a TCP proxy on 127.0.0.1 that, on command, stops forwarding in both
 * directions while keeping every socket open (a network path that drops packets, a stuck middlebox): the client sees
 * no error, only silence. Every store request has a bound (`HPT_STORE_TIMEOUT`, seconds):
 * - the run ends within the bound with one `E_STORE` error and exit code 1, and the samples committed before are kept:
 *   the same command, once the path works again, completes the run with the HPI of a clean run, each sample once;
 * - a SIGTERM while the store is stuck ends the process at once (status 143), not after the bound.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_MISSING, startPostgres, warnIfPostgresMissing, type TestPostgres } from '../helpers/postgres.js';
import { startOpenAIServer, type Reply, type TestServer } from '../helpers/openai-server.js';
import { reportedError, runCli, startCli } from '../helpers/cli.js';

warnIfPostgresMissing('store-timeout');

const dir = mkdtempSync(join(tmpdir(), 'hpt-store-timeout-'));
const N = 400;
const dataFile = join(dir, 'boolq.jsonl');
writeFileSync(dataFile, Array.from({ length: N }, (_, i) => JSON.stringify({ id: `b${i}`, question: `is q${i} even?`, passage: `Passage ${i}.`, answer: i % 2 === 0 })).join('\n') + '\n');

/** A TCP proxy to PostgreSQL that can go silent (`stop`: data dropped, sockets kept) and recover (`reset`). */
interface SilentProxy {
  port: number;
  stop(): void;
  /** forward again; the connections of the silent spell are reset (the server then ends their sessions) */
  reset(): void;
  close(): Promise<void>;
}

async function startProxy(target: number): Promise<SilentProxy> {
  let forwarding = true;
  const pairs: [Socket, Socket][] = [];
  const server: Server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    pairs.push([client, upstream]);
    client.on('data', (d) => forwarding && upstream.write(d));
    upstream.on('data', (d) => forwarding && client.write(d));
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    stop: () => {
      forwarding = false;
    },
    reset: () => {
      for (const [a, b] of pairs.splice(0)) {
        a.destroy();
        b.destroy();
      }
      forwarding = true;
    },
    close: async () => {
      for (const [a, b] of pairs.splice(0)) {
        a.destroy();
        b.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let postgres: TestPostgres | undefined;
let proxy: SilentProxy | undefined;
let server: TestServer;
beforeAll(async () => {
  server = await startOpenAIServer((req): Reply => {
    const m = /is q(\d+) even\?|Passage (\d+)\./.exec(req.messages.map((x) => x.content).join('\n'));
    const i = Number(m?.[1] ?? m?.[2] ?? 0);
    const right = createHash('sha256').update(JSON.stringify(req.messages)).digest()[0]! % 3 !== 0;
    return { text: (i % 2 === 0) === right ? 'True' : 'False', delayMs: 15 };
  });
  if (POSTGRES_MISSING) return;
  postgres = await startPostgres();
  proxy = await startProxy(postgres.port);
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  postgres?.stop();
  await server?.close();
});

/** The database `url` of the server through the proxy. */
const viaProxy = (url: string) => url.replace(`:${postgres!.port}/`, `:${proxy!.port}/`);
const args = (store: string) => ['run', '--dataset', 'boolq', '--data', dataFile, '--model', 'openai:test', '--base-url', server.url, '--store', store, '--concurrency', '4', '--json'];

/** Samples stored so far in the database at `url` (asked directly, not through the proxy). */
async function storedSamples(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query('SELECT COUNT(*)::int AS n FROM samples').catch(() => ({ rows: [{ n: 0 }] }));
    return r.rows[0].n as number;
  } finally {
    await c.end();
  }
}

/** Resolves once the database holds at least `n` samples. */
async function untilStored(url: string, n: number): Promise<number> {
  for (;;) {
    const got = await storedSamples(url);
    if (got >= n) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(POSTGRES_MISSING)('a PostgreSQL store whose connection goes silent', () => {
  it('the run ends within HPT_STORE_TIMEOUT with one E_STORE line and exit 1; the same command then completes it, each sample once', async () => {
    const clean = await runCli(args(await postgres!.createDatabase()));
    expect(clean.code, clean.stderr).toBe(0);
    const reference = JSON.parse(clean.stdout) as { hpi: number; n: number };

    const url = await postgres!.createDatabase();
    const run = startCli(args(viaProxy(url)), { env: { HPT_STORE_TIMEOUT: '3' } });
    const before = await untilStored(url, 20);
    expect(before).toBeLessThan(N);
    proxy!.stop();
    const silentAt = Date.now();
    const r = await run.done;
    const tookMs = Date.now() - silentAt;
    // the bound (3 s) plus the group commit's delay and the exit: far from "forever"
    expect(tookMs).toBeLessThan(12_000);
    expect(r.code, r.stderr).toBe(1);
    expect(reportedError(r)).toMatch(/^Error: .*PostgreSQL store did not answer within 3 s.*same command continues the run/m);
    const kept = await storedSamples(url);
    expect(kept).toBeGreaterThanOrEqual(before);
    expect(kept).toBeLessThan(N);

    proxy!.reset();
    // a process of its own: the PostgreSQL store waits synchronously, which in this process would stall the proxy
    const again = await runCli(args(viaProxy(url)), { env: { HPT_STORE_TIMEOUT: '30' }, spawn: true });
    expect(again.code, again.stderr).toBe(0);
    const resumed = JSON.parse(again.stdout) as { hpi: number; n: number; complete: boolean };
    expect(resumed).toMatchObject({ n: N, complete: true, hpi: reference.hpi });
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const ids = await c.query('SELECT COUNT(*)::int AS n, COUNT(DISTINCT sample_id)::int AS d FROM samples');
      expect(ids.rows[0]).toEqual({ n: N, d: N });
    } finally {
      await c.end();
    }
  }, 120_000);

  it('a SIGTERM while the store is stuck ends the process at once with status 143', async () => {
    const url = await postgres!.createDatabase();
    const run = startCli(args(viaProxy(url)), { env: { HPT_STORE_TIMEOUT: '120' } });
    await untilStored(url, 20);
    proxy!.stop();
    // the store's next request blocks the process; after a second of waiting its signal listeners are set aside
    await new Promise((r) => setTimeout(r, 2500));
    const sentAt = Date.now();
    run.kill('SIGTERM');
    const r = await run.done;
    expect(Date.now() - sentAt).toBeLessThan(5000);
    // killed by the signal's default action: the shell's status 143 (128 + 15)
    expect(r.signal === 'SIGTERM' || r.code === 143, `code ${r.code}, signal ${r.signal}: ${r.stderr}`).toBe(true);
    proxy!.reset();
  }, 60_000);
});
