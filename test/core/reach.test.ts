/**
 * The reachability check of a run's endpoints (packages/core/src/run/reach.ts, issue #25 item 9) against real sockets
 * on 127.0.0.1: a port nothing listens on ends the run with one `E_ENDPOINT` line naming the flag to check; a model
 * spread over several endpoints goes on while one answers (one warning per unreachable endpoint); baselines and
 * endpoints that are not http(s) URLs are not checked; no HTTP request is sent.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HptError, type Model } from '@hpt-bench/sdk';
import { EndpointSpread } from '../../packages/core/src/exec/endpoints.js';
import { checkEndpointsReachable, httpEndpoints, reach } from '../../packages/core/src/run/reach.js';
import { closedPort } from '../helpers/net.js';

let open: Server;
let openUrl: string;
/** bytes the listening server received: the check connects and sends nothing */
let received = 0;
let accepted = 0;
let closedUrl: string;
let closedUrl2: string;

beforeAll(async () => {
  open = createServer((socket) => {
    accepted++;
    socket.on('data', (d) => (received += d.length));
  });
  await new Promise<void>((r) => open.listen(0, '127.0.0.1', r));
  openUrl = `http://127.0.0.1:${(open.address() as { port: number }).port}/v1`;
  closedUrl = `http://127.0.0.1:${await closedPort()}/v1`;
  closedUrl2 = `http://127.0.0.1:${await closedPort()}/v1`;
});
afterAll(() => new Promise<void>((r) => open.close(() => r())));

/** A model at `endpoint` (never called by the check). */
const model = (id: string, endpoint?: string): Model => ({
  id,
  ...(endpoint !== undefined ? { endpoint } : {}),
  generate: () => Promise.reject(new Error('the check must not call the model')),
});
const logger = () => {
  const warnings: string[] = [];
  return { warnings, logger: { info: () => undefined, debug: () => undefined, warn: (m: string) => warnings.push(m) } };
};

describe('reach', () => {
  it('connects to a listening port (sending nothing) and names the system error of a closed one', async () => {
    expect(await reach(openUrl)).toEqual({ state: 'ok' });
    const closed = await reach(closedUrl);
    expect(closed).toMatchObject({ state: 'unreachable', reason: expect.stringMatching(/^connect ECONNREFUSED 127\.0\.0\.1:\d+$/) });
    await new Promise((r) => setTimeout(r, 50));
    expect(accepted).toBeGreaterThan(0);
    expect(received).toBe(0);
  });
});

describe('checkEndpointsReachable', () => {
  it('a model whose endpoint refuses connections: E_ENDPOINT (exit 1) naming the URL, the reason and the flag', async () => {
    const err = await checkEndpointsReachable([{ model: model('openai:m', openUrl), flag: '--base-url' }, { model: model('openai:s', closedUrl), flag: '--selector-base-url' }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HptError);
    expect(err).toMatchObject({ code: 'E_ENDPOINT', exitCode: 1 });
    expect((err as Error).message).toBe(`cannot reach ${closedUrl} (connect ECONNREFUSED ${closedUrl.slice(7, -3)}): nothing answers there; check --selector-base-url and that the server is running (no run was started)`);
  });

  it('a model spread over endpoints goes on while one answers, with one warning per unreachable endpoint; all down is an error', async () => {
    const spread = new EndpointSpread([model('openai:m', closedUrl), model('openai:m', openUrl)]);
    expect(httpEndpoints(spread)).toEqual([closedUrl, openUrl]);
    const { warnings, logger: log } = logger();
    await checkEndpointsReachable([{ model: spread, flag: '--base-url' }, { model: spread, flag: '--base-url' }], log);
    expect(warnings).toEqual([`cannot reach ${closedUrl} (connect ECONNREFUSED ${closedUrl.slice(7, -3)}); the calls of openai:m go to its other endpoints`]);
    const down = new EndpointSpread([model('openai:m', closedUrl), model('openai:m', closedUrl2)]);
    await expect(checkEndpointsReachable([{ model: down, flag: '--base-url' }])).rejects.toThrow(/^none of the 2 endpoints of openai:m can be reached \(/);
  });

  it('models without an http(s) endpoint (baselines, a plugin naming something else) are not checked', async () => {
    await expect(checkEndpointsReachable([{ model: model('baseline:oracle'), flag: '--base-url' }, { model: model('x:y', 'unix-socket-name'), flag: '--base-url' }])).resolves.toBeUndefined();
    expect(httpEndpoints(model('x:y', 'ftp://127.0.0.1/'))).toEqual([]);
  });
});
