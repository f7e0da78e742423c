/**
 * The web server of `hpt-bench view` (issue 29): a read-only hono app over one run store — the viewer's static files
 * (packages/cli/view/: index.html and app.js, an ES module using preact + htm without a build step), the report
 * stylesheet (`REPORT_STYLE`, the static report's design), the ESM builds of preact, preact/hooks and htm from
 * node_modules at fixed routes, and a JSON API under `/api` (api.ts) with a server-sent events stream of a running
 * run's progress. GET only; bound to 127.0.0.1; requests whose Host is not the loopback address are refused (no DNS
 * rebinding), and every page carries a Content-Security-Policy allowing only this origin's scripts.
 *
 * Routes:
 * - `GET /` index.html; `GET /app.js`; `GET /style.css` (REPORT_STYLE + the viewer's few rules);
 *   `GET /vendor/preact.mjs`, `/vendor/hooks.mjs`, `/vendor/htm.mjs`;
 * - `GET /api/runs?model=&dataset=&ladder=&status=` → `RunsListing`;
 * - `GET /api/runs/:id` → `RunPage`; `GET /api/runs/:id/progress` → `RunProgress`;
 * - `GET /api/runs/:id/charts` → `{ runId, charts: [{ id, title, caption, src }] }` (a completed run's report charts;
 *   `[]` before it completes), `GET /api/runs/:id/charts/:chart.svg` → the SVG (shown as an image);
 * - `GET /api/runs/:id/samples?offset=&limit=&outcome=solved|unsolved|errored&q=&sampleId=` → `SamplesPage`;
 * - `GET /api/runs/:id/samples/:index` → `SampleDetail`;
 * - `GET /api/compare/:a/:b?force=1` → `CompareResult`;
 * - `GET /api/runs/:id/events` → `text/event-stream`: `progress` events (a `RunProgress` as JSON) whenever the run's
 *   counts change (polled every `pollMs`), `end` once it is no longer running, a `ping` comment every 15 s.
 * Errors are JSON `{ "error": message }` with 404 (unknown id), 400 (a comparison the store cannot make) or 500.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { gatherReport, HptError, ReportViews, type RunStore } from '@hpt-bench/core';
import { type Chart, reportCharts } from '../report/charts.js';
import { REPORT_STYLE } from '../report/style.js';
import { compare, errorStatus, expectedTotal, listRuns, requireRun, runPage, runProgress, sampleDetail, samplesPage, type RunFilters } from './api.js';

/** The viewer's static files: packages/cli/view/ (beside src/ and dist/, carried by the package's `files`). */
export const VIEW_DIR = fileURLToPath(new URL('../../view/', import.meta.url));

/** Options of `createViewServer`. */
export interface ViewServerOptions {
  /** the store, opened read-only (`new RunStore(location, { readonly: true })`); the caller closes it */
  store: RunStore;
  /** the store as pages show it (`storeLabel`: no password) */
  label: string;
  /** plugins' report views for the run page's paper tables (default none) */
  views?: ReportViews;
  /** bootstrap resamples of the run page's intervals and of comparisons (default 2000) and their seed (default 0) */
  resamples?: number;
  seed?: number;
  /** how often (ms) the events stream reads a running run's counts (default 500) */
  pollMs?: number;
}

/** A created viewer: the hono app (`app.request(...)` in tests) and `listen`, which serves it on 127.0.0.1. */
export interface ViewServer {
  app: Hono;
  /**
   * Serve on 127.0.0.1:`port` (0, the default: a free port).
   * @returns the URL (`http://127.0.0.1:PORT/`), the port, and `close`, which ends the event streams and open
   *   connections and resolves once the server stopped.
   * @throws the listen error (e.g. `EADDRINUSE`).
   */
  listen(port?: number): Promise<ListeningView>;
}

/** A listening viewer (`ViewServer.listen`). */
export interface ListeningView {
  url: string;
  port: number;
  server: ServerType;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);

/** The vendored ESM modules the page imports, by route: path on disk, and a rewrite of bare imports to routes. */
function vendorFiles(): Record<string, () => string> {
  const preact = require.resolve('preact');
  const hooks = require.resolve('preact/hooks');
  // htm's "require" build is CommonJS; its ESM build sits beside it
  const htm = join(dirname(require.resolve('htm')), 'htm.mjs');
  const read = (p: string) => () => readFileSync(p, 'utf8');
  return {
    'preact.mjs': read(preact),
    // hooks import "preact" by its bare name, which a browser without an import map cannot resolve
    'hooks.mjs': () => readFileSync(hooks, 'utf8').replace(/from\s*(["'])preact\1/g, 'from"/vendor/preact.mjs"'),
    'htm.mjs': read(htm),
  };
}

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A small map of computed answers that are fixed once a run completed (run pages, comparisons), by key, oldest out. */
class Memo<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly size: number) {}
  get(key: string, make: () => V): V {
    const hit = this.map.get(key);
    if (hit !== undefined) return hit;
    const v = make();
    this.map.set(key, v);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value!);
    return v;
  }
}

function intParam(v: string | undefined, fallback: number): number {
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) ? Math.floor(n) : fallback;
}

/**
 * The viewer's app over `options.store` (see the module comment for its routes). Nothing is read before a request
 * asks; the store is never written.
 */
export function createViewServer(options: ViewServerOptions): ViewServer {
  const { store, label } = options;
  const pollMs = options.pollMs ?? 500;
  const settings = { resamples: options.resamples ?? 2000, seed: options.seed ?? 0 };
  const vendor = vendorFiles();
  const pages = new Memo<ReturnType<typeof runPage>>(32);
  const comparisons = new Memo<ReturnType<typeof compare>>(32);
  const charts = new Memo<Promise<Chart[]>>(16);
  /** the open event streams, ended by `close` */
  const streams = new Set<{ abort(): void }>();
  let closing = false;
  const app = new Hono();

  // the loopback address only: a page of another site cannot reach the viewer through a DNS name pointed at 127.0.0.1
  app.use('*', async (c, next) => {
    const host = (c.req.header('host') ?? '').replace(/:\d+$/, '');
    if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') return c.json({ error: `refused: Host ${host || '(none)'} is not the loopback address` }, 403);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return c.json({ error: 'the viewer is read-only: GET only' }, 405);
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Content-Security-Policy', CSP);
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
  });

  const file = (name: string, type: string) => (c: Context) => c.body(readFileSync(join(VIEW_DIR, name), 'utf8'), 200, { 'Content-Type': type });
  app.get('/', file('index.html', 'text/html; charset=utf-8'));
  app.get('/app.js', file('app.js', 'text/javascript; charset=utf-8'));
  app.get('/style.css', (c) => c.body(REPORT_STYLE + readFileSync(join(VIEW_DIR, 'view.css'), 'utf8'), 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/vendor/:name', (c) => {
    const read = Object.hasOwn(vendor, c.req.param('name')) ? vendor[c.req.param('name')] : undefined;
    if (!read) return c.json({ error: 'no such file' }, 404);
    return c.body(read(), 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'max-age=3600' });
  });

  /** Answer with `make()` as JSON, or the error's status and message. */
  const json = (c: Context, make: () => unknown) => {
    try {
      return c.json(make() as object);
    } catch (e) {
      return c.json({ error: (e as Error).message }, errorStatus(e));
    }
  };

  app.get('/api/runs', (c) => {
    const q = c.req.query();
    const filters: RunFilters = {};
    for (const k of ['model', 'dataset', 'ladder', 'status'] as const) if (q[k]) filters[k] = q[k];
    return json(c, () => listRuns(store, label, filters));
  });
  app.get('/api/runs/:id', (c) =>
    json(c, () => {
      const id = c.req.param('id');
      const r = requireRun(store, id);
      // a completed run does not change: its page (bootstrap intervals and all) is computed once
      return r.status === 'completed' ? pages.get(`${id}\0${r.updatedAt}`, () => runPage(store, label, id, { views: options.views, ...settings })) : runPage(store, label, id, { views: options.views, ...settings });
    }),
  );
  // a completed run's charts, as `hpt-bench report` draws them: the list, then each as an SVG image (an <img> runs no
  // script, whatever the SVG held)
  const runCharts = (id: string): Promise<Chart[]> => {
    const r = requireRun(store, id);
    if (r.status !== 'completed') return Promise.resolve([]);
    return charts.get(`${id}\0${r.updatedAt}`, () => reportCharts(gatherReport(store, label, { runIds: [id], ...settings }), options.views ?? ReportViews.none));
  };
  app.get('/api/runs/:id/charts', async (c) => {
    try {
      const id = c.req.param('id');
      return c.json({ runId: id, charts: (await runCharts(id)).filter((x) => x.svg).map((x) => ({ id: x.id, title: x.title, caption: x.caption, src: `/api/runs/${encodeURIComponent(id)}/charts/${encodeURIComponent(x.id)}.svg` })) });
    } catch (e) {
      return c.json({ error: (e as Error).message }, errorStatus(e));
    }
  });
  app.get('/api/runs/:id/charts/:file', async (c) => {
    try {
      const chartId = c.req.param('file').replace(/\.svg$/, '');
      const chart = (await runCharts(c.req.param('id'))).find((x) => x.id === chartId && x.svg);
      if (!chart) return c.json({ error: `no chart ${chartId} of run ${c.req.param('id')}` }, 404);
      return c.body(chart.svg!, 200, { 'Content-Type': 'image/svg+xml; charset=utf-8' });
    } catch (e) {
      return c.json({ error: (e as Error).message }, errorStatus(e));
    }
  });
  app.get('/api/runs/:id/progress', (c) => json(c, () => runProgress(store, c.req.param('id'))));
  app.get('/api/runs/:id/samples', (c) =>
    json(c, () => {
      const q = c.req.query();
      const outcome = q.outcome === 'solved' || q.outcome === 'unsolved' || q.outcome === 'errored' ? q.outcome : undefined;
      return samplesPage(store, c.req.param('id'), { offset: intParam(q.offset, 0), limit: intParam(q.limit, 50), ...(outcome ? { outcome } : {}), ...(q.q ? { query: q.q } : {}), ...(q.sampleId !== undefined ? { sampleId: q.sampleId } : {}) });
    }),
  );
  app.get('/api/runs/:id/samples/:index', (c) =>
    json(c, () => {
      const index = Number(c.req.param('index'));
      if (!Number.isInteger(index) || index < 0) throw new HptError('E_CONFIG', `not a sample index: ${c.req.param('index')}`);
      return sampleDetail(store, c.req.param('id'), index);
    }),
  );
  app.get('/api/compare/:a/:b', (c) =>
    json(c, () => {
      const [a, b] = [c.req.param('a'), c.req.param('b')];
      const force = c.req.query('force') === '1';
      const stamp = [a, b].map((id) => store.getRun(id)?.updatedAt ?? '').join('\0');
      return comparisons.get(`${a}\0${b}\0${force}\0${stamp}`, () => compare(store, label, a, b, { force, ...settings }));
    }),
  );
  app.get('/api/runs/:id/events', (c) => {
    const id = c.req.param('id');
    let run;
    try {
      run = requireRun(store, id);
    } catch (e) {
      return c.json({ error: (e as Error).message }, errorStatus(e));
    }
    const total = expectedTotal(store, run);
    return streamSSE(c, async (stream) => {
      let stop = false;
      const handle = { abort: () => ((stop = true), stream.abort()) };
      streams.add(handle);
      stream.onAbort(() => {
        stop = true;
      });
      try {
        let first: { t: number; n: number } | undefined;
        let last = '';
        let lastPing = Date.now();
        while (!stop && !closing && !stream.aborted) {
          const now = Date.now();
          const base = runProgress(store, id, { total, now });
          const n = base.done + base.errored;
          first ??= { t: now, n };
          // the rate this stream has seen, once the run moved while it watched; before that, since the run started
          const rate = n > first.n && now > first.t ? ((n - first.n) * 1000) / (now - first.t) : base.rate;
          const p = runProgress(store, id, { total, rate, now });
          const key = `${p.status}|${p.done}|${p.errored}|${p.alive}`;
          if (key !== last) {
            last = key;
            await stream.writeSSE({ event: 'progress', data: JSON.stringify(p) });
          } else if (now - lastPing > 15_000) {
            lastPing = now;
            await stream.write(': ping\n\n');
          }
          if (p.status !== 'running') {
            await stream.writeSSE({ event: 'end', data: JSON.stringify({ status: p.status }) });
            break;
          }
          await stream.sleep(pollMs);
        }
      } catch (e) {
        if (!stream.aborted) await stream.writeSSE({ event: 'failure', data: JSON.stringify({ error: (e as Error).message }) }).catch(() => undefined);
      } finally {
        streams.delete(handle);
      }
    });
  });
  app.notFound((c) => c.json({ error: `no such route: ${c.req.path}` }, 404));
  app.onError((e, c) => c.json({ error: e.message }, errorStatus(e)));

  return {
    app,
    listen: (port = 0) =>
      new Promise<ListeningView>((resolve, reject) => {
        const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info: AddressInfo) => {
          server.off('error', reject);
          const url = `http://127.0.0.1:${info.port}/`;
          resolve({
            url,
            port: info.port,
            server,
            close: () =>
              new Promise<void>((done) => {
                closing = true;
                for (const s of streams) s.abort();
                server.close(() => done());
                (server as import('node:http').Server).closeAllConnections?.();
              }),
          });
        });
        server.once('error', reject);
      }),
  };
}
