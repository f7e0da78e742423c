/**
 * End-to-end: numbers you can trust at the edges. The built CLI runs as a process against the real openai
 * SDK and a scripted OpenAI-compatible server on 127.0.0.1; each case is a fault a user, an endpoint or a disk
 * produces — a full disk, a changed data file, an endpoint that dies mid-run, two processes on one run, a huge reply,
 * SIGTERM, a bad --out, a read-only store, ill-formed text — and each checks that nothing is lost or doubled: the
 * stored samples equal the distinct sample ids, and a run that did not score every sample is never `completed`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';
import { reportedError, runCli, startCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-trust-'));
const N = 60;
const records = Array.from({ length: N }, (_, i) => ({ id: `b${i}`, question: `is q${i} even?`, passage: `Passage ${i}.`, answer: i % 2 === 0 }));
const dataFile = join(dir, 'boolq.jsonl');
writeFileSync(dataFile, records.map((r) => JSON.stringify(r)).join('\n') + '\n');

/** The right answer for a request (every sample is solved at level 1 with one call). */
const right = (req: ReceivedRequest): Reply => {
  const m = /is q(\d+) even\?/.exec(req.messages.at(-1)!.content);
  return { text: m && Number(m[1]) % 2 === 0 ? 'True' : 'False' };
};
/** Per request: a fault to inject instead of the right answer (set by each test). */
let inject: (req: ReceivedRequest, n: number) => Reply | undefined = () => undefined;
let server: TestServer;

beforeAll(async () => {
  let count = 0;
  server = await startOpenAIServer((req) => inject(req, count++) ?? right(req));
});
afterAll(async () => {
  await server?.close();
});

const args = (store: string, ...more: string[]) => ['run', '--dataset', 'boolq', '--data', dataFile, '--model', 'openai:test', '--base-url', server.url, '--store', store, '--json', ...more];


/** Runs and their sample rows, read with a separate connection. */
function storeState(path: string): { runs: { id: string; status: string; error: string | null }[]; rows: number; distinct: number; byRun: Record<string, { rows: number; distinct: number }> } {
  const db = new Database(path, { readonly: true });
  try {
    const runs = db.prepare('SELECT id, status, error FROM runs ORDER BY created_at').all() as { id: string; status: string; error: string | null }[];
    const byRun: Record<string, { rows: number; distinct: number }> = {};
    for (const r of db.prepare("SELECT run_id, COUNT(*) AS rows, COUNT(DISTINCT sample_id) AS distinct_ids FROM samples WHERE status = 'done' GROUP BY run_id").all() as { run_id: string; rows: number; distinct_ids: number }[]) {
      byRun[r.run_id] = { rows: r.rows, distinct: r.distinct_ids };
    }
    const t = db.prepare("SELECT COUNT(*) AS rows, COUNT(DISTINCT run_id || '/' || sample_id) AS d FROM samples WHERE status = 'done'").get() as { rows: number; d: number };
    return { runs, rows: t.rows, distinct: t.d, byRun };
  } finally {
    db.close();
  }
}

const waitFor = async (cond: () => boolean, timeoutMs = 20_000): Promise<void> => {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
};

const storedDone = (path: string): number => {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("SELECT COUNT(*) AS c FROM samples WHERE status = 'done'").get() as { c: number }).c;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
};

const isRoot = process.getuid?.() === 0;

describe('a store that cannot be written', () => {
  const mnt = join(dir, 'small-disk');
  let mounted = false;
  beforeAll(() => {
    if (!isRoot) return;
    mkdirSync(mnt, { recursive: true });
    mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt]).status === 0;
  });
  afterAll(() => {
    if (mounted) spawnSync('umount', ['-l', mnt]);
  });

  it('a full disk stops the run with a clear error instead of dropping samples; freed space and the same command finish it, each sample once', async (ctx) => {
    if (!mounted) {
      console.log(`skipped: a 4 MiB tmpfs needs root and mount (${isRoot ? 'mount failed' : 'not root'})`);
      ctx.skip();
    }
    const store = join(mnt, 'store.db');
    // leave the store room for its tables and a few samples only
    const filler = join(mnt, 'filler');
    writeFileSync(filler, Buffer.alloc(4 * 1024 * 1024 - 200 * 1024));
    // each reply takes 60 ms, so the 60 samples at concurrency 8 need about 450 ms: longer than the store's first
    // group commit (at most 100 ms after the first write), which is where the full disk shows
    inject = (req) => ({ ...(right(req) as { text: string }), text: `${(right(req) as { text: string }).text}. ${'Because the passage says so. '.repeat(60)}`, delayMs: 60 });
    const before = server.requests.length;
    const first = await runCli(args(store, '--concurrency', '8'));
    const callsFirst = server.requests.length - before;
    expect(first.code, first.stderr).toBe(1);
    expect(reportedError(first)).toMatch(/^Error: cannot write to the store .*store\.db: .*(full|disk)/im);
    // with --json the error is the only thing on stdout: no summary of a run that lost writes
    expect(JSON.parse(first.stdout)).toMatchObject({ error: { code: 'E_STORE' } });
    // the run stopped soon after the failure: not every sample was sent
    expect(callsFirst).toBeLessThan(N);
    const partial = storeState(store);
    expect(partial.runs.every((r) => r.status !== 'completed')).toBe(true);
    expect(partial.rows).toBeLessThan(N);
    rmSync(filler);
    const second = await runCli(args(store, '--concurrency', '8'));
    expect(second.code, second.stderr).toBe(0);
    const s = JSON.parse(second.stdout) as { n: number; complete: boolean; resumed?: boolean; runId: string };
    expect(s).toMatchObject({ n: N, complete: true, resumed: true });
    const final = storeState(store);
    expect(final.runs).toHaveLength(1);
    expect(final.runs[0]!.status).toBe('completed');
    expect(final.byRun[s.runId]).toEqual({ rows: N, distinct: N });
    inject = () => undefined;
  });
});

describe('resume keyed on the data content', () => {
  it('a data file changed between a failed run and the re-run starts a new run (never mixed); --resume of the old run says the data changed', async () => {
    const store = join(dir, 'reversed.db');
    const file = join(dir, 'reversed.jsonl');
    // no id field: sample ids are positions, so only the content tells reordered samples apart
    const plain = records.map(({ id: _id, ...r }) => r);
    writeFileSync(file, plain.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const a = (...more: string[]) => ['run', '--dataset', 'boolq', '--data', file, '--model', 'openai:test', '--base-url', server.url, '--store', store, '--json', '--max-retries', '0', ...more];
    inject = (req) => (/is q1[0-4] even\?/.test(req.messages.at(-1)!.content) ? { status: 500 } : undefined);
    const first = await runCli(a());
    expect(first.code, first.stderr).toBe(1);
    const firstId = (JSON.parse(first.stdout) as { runId: string }).runId;
    inject = () => undefined;
    writeFileSync(file, [...plain].reverse().map((r) => JSON.stringify(r)).join('\n') + '\n');
    const resumedOld = await runCli(a('--resume', firstId));
    expect(resumedOld.code).toBe(2);
    expect(reportedError(resumedOld)).toMatch(new RegExp(`^Error: the data of run ${firstId} changed since it started`));
    const second = await runCli(a());
    expect(second.code, second.stderr).toBe(0);
    const s = JSON.parse(second.stdout) as { runId: string; n: number; resumed?: boolean; accuracy: number };
    expect(s.runId).not.toBe(firstId);
    expect(s).toMatchObject({ n: N, accuracy: 1 });
    expect(s.resumed).toBeUndefined();
    expect(storeState(store).byRun[s.runId]).toEqual({ rows: N, distinct: N });
  });
});

describe('an endpoint that dies', () => {
  it('after some samples succeeded: the run stops once the recent samples all fail, is failed (not completed) with the reason, exit 1; the same command finishes it', async () => {
    const store = join(dir, 'outage.db');
    let served = 0;
    inject = () => (++served > 20 ? { drop: true } : undefined);
    const before = server.requests.length;
    const first = await runCli(args(store, '--max-retries', '1', '--concurrency', '2'));
    expect(first.code, first.stderr).toBe(1);
    expect(reportedError(first)).toMatch(/^Error: the last 8 samples all failed \(last error: .*\); the endpoint looks down, so run \S+ stopped/m);
    // stopped after the window, not after trying every remaining sample
    expect(server.requests.length - before).toBeLessThan(20 + 2 * 16);
    const partial = storeState(store);
    expect(partial.runs).toHaveLength(1);
    expect(partial.runs[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/endpoint looks down/) });
    inject = () => undefined;
    const second = await runCli(args(store, '--max-retries', '1', '--concurrency', '2'));
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ runId: partial.runs[0]!.id, n: N, errored: 0, resumed: true, complete: true });
    expect(storeState(store).byRun[partial.runs[0]!.id]).toEqual({ rows: N, distinct: N });
  });

  it('down from the start with --limit 2, or an endpoint that is not http(s): exit non-zero, never `completed` with an HPI', async () => {
    const store = join(dir, 'down.db');
    // it accepts connections and drops every request (a port nothing listens on is found before the run: e2e/early-errors)
    inject = () => ({ drop: true });
    const r = await runCli(['run', '--dataset', 'boolq', '--data', dataFile, '--model', 'openai:test', '--base-url', server.url, '--store', store, '--limit', '2', '--max-retries', '0', '--json']);
    inject = () => undefined;
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'E_NO_RESULTS' } });
    expect(reportedError(r)).toMatch(/^Error: no sample could be scored: 2 of 2 samples errored/m);
    expect(storeState(store).runs.map((x) => x.status)).toEqual(['failed']);
    const file = await runCli(['run', '--dataset', 'boolq', '--data', dataFile, '--model', 'openai:test', '--base-url', 'file:///etc/passwd', '--store', join(dir, 'file-url.db')]);
    expect(file.code).toBe(2);
    expect(reportedError(file)).toBe("Error: --base-url must be an http:// or https:// URL such as http://127.0.0.1:8000/v1, got a file: URL\n");
  });
});

describe('two processes, one configuration', () => {
  it('the second joins the run as one more worker; both finish with the same summary, each sample evaluated once', async () => {
    const store = join(dir, 'twice.db');
    // replies slow enough that the first run (60 samples, 2 at a time: over 3 s) outlasts the second's start-up under load
    inject = (req) => ({ ...(right(req) as { text: string }), delayMs: 100 });
    const before = server.requests.length;
    const a = startCli(args(store, '--concurrency', '2'));
    await waitFor(() => storedDone(store) > 0);
    const b = await runCli(args(store, '--concurrency', '2'));
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toMatch(new RegExp(`joining run \\S+ as one more worker \\(with \\S+:${a.pid}\\)`));
    const ra = await a.done;
    expect(ra.code, ra.stderr).toBe(0);
    expect(JSON.parse(ra.stdout)).toMatchObject({ n: N, complete: true });
    // the same figures; the joiner says it continued a run (`resumed`)
    const { resumed, ...joined } = JSON.parse(b.stdout) as Record<string, unknown>;
    expect(resumed).toBe(true);
    expect(joined).toEqual(JSON.parse(ra.stdout));
    expect(server.requests.length - before).toBe(N);
    const st = storeState(store);
    expect(st.runs).toEqual([expect.objectContaining({ status: 'completed' })]);
    expect(st.rows).toBe(N);
    expect(st.distinct).toBe(N);
    inject = () => undefined;
  });
});

describe('replies and signals', () => {
  it('a reply over --max-response-bytes is an errored sample (not stored whole, not retried)', async () => {
    const store = join(dir, 'huge.db');
    inject = (req) => (/is q3 even\?/.test(req.messages.at(-1)!.content) ? { text: 'True '.repeat(40_000) } : undefined);
    const before = server.requests.length;
    const r = await runCli(args(store, '--max-response-bytes', '100000'));
    expect(r.code, r.stderr).toBe(1);
    const s = JSON.parse(r.stdout) as { errored: number; erroredSamples: { sampleId: string; error: string }[]; n: number };
    expect(s.errored).toBe(1);
    expect(s.n).toBe(N - 1);
    expect(s.erroredSamples[0]).toMatchObject({ sampleId: 'b3', error: expect.stringMatching(/larger than 100000 bytes \(--max-response-bytes\)/) });
    expect(server.requests.length - before).toBe(N);
    const db = new Database(store, { readonly: true });
    expect((db.prepare('SELECT MAX(LENGTH(output)) AS m FROM calls').get() as { m: number }).m).toBeLessThan(100);
    db.close();
    inject = () => undefined;
  });

  it('SIGTERM is handled like Ctrl-C: finished samples committed, the run marked failed, exit 143; the same command finishes it', async () => {
    const store = join(dir, 'term.db');
    inject = (req) => ({ ...(right(req) as { text: string }), delayMs: 40 });
    const a = startCli(args(store, '--concurrency', '2'));
    await waitFor(() => storedDone(store) >= 4);
    a.kill('SIGTERM');
    const ra = await a.done;
    expect(ra.code).toBe(143);
    // with --json the interruption is the one JSON object on stdout
    expect(JSON.parse(ra.stdout)).toEqual({ error: { code: 'E_INTERRUPTED', message: expect.stringMatching(/^interrupted by SIGTERM; run \S+ is marked failed/) } });
    const st = storeState(store);
    expect(st.runs).toEqual([expect.objectContaining({ status: 'failed', error: 'interrupted (SIGTERM)' })]);
    expect(st.rows).toBeGreaterThanOrEqual(4);
    inject = () => undefined;
    const b = await runCli(args(store));
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ runId: st.runs[0]!.id, n: N, resumed: true });
    expect(storeState(store).rows).toBe(N);
  });

  it('lone surrogates and NUL in a completion reach the store as well-formed UTF-8', async () => {
    const store = join(dir, 'utf.db');
    inject = (req) => (/is q5 even\?/.test(req.messages.at(-1)!.content) ? { text: 'False \ud800 and \u0000 and \udfff end' } : undefined);
    const r = await runCli(args(store, '--limit', '8'));
    expect(r.code, r.stderr).toBe(0);
    const db = new Database(store, { readonly: true });
    const outputs = db.prepare('SELECT CAST(output AS BLOB) AS b FROM calls').all() as { b: Buffer }[];
    db.close();
    expect(outputs).toHaveLength(8);
    const texts = outputs.map((o) => new TextDecoder('utf-8', { fatal: true }).decode(o.b));
    expect(texts).toContain('False \ufffd and \ufffd and \ufffd end');
    inject = () => undefined;
  });
});

describe('stalled bodies and credentials', () => {
  it('a server that sends headers then stalls, or trickles a byte at a time, cannot hang a run past --timeout', async () => {
    const store = join(dir, 'stall.db');
    inject = (req) => {
      const c = req.messages.at(-1)!.content;
      if (/is q7 even\?/.test(c)) return { stall: true };
      if (/is q8 even\?/.test(c)) return { trickle: { everyMs: 200 } };
      return undefined;
    };
    const start = Date.now();
    const r = await runCli(args(store, '--limit', '10', '--timeout', '1', '--max-retries', '1'), { timeoutMs: 60_000 });
    const seconds = (Date.now() - start) / 1000;
    expect(r.code, r.stderr).toBe(1);
    const s = JSON.parse(r.stdout) as { errored: number; n: number; erroredSamples: { sampleId: string; error: string }[] };
    expect(s).toMatchObject({ errored: 2, n: 8 });
    expect(s.erroredSamples.map((e) => e.sampleId).sort()).toEqual(['b7', 'b8']);
    expect(s.erroredSamples[0]!.error).toMatch(/timed out after 1 s/);
    // two tries of 1 s each (plus backoff) per stalled sample, in parallel lanes: far below a hang
    expect(seconds).toBeLessThan(20);
    expect(storeState(store).runs[0]!.status).toBe('failed');
    inject = () => undefined;
  });

  it('credentials in --base-url authenticate the calls but are never stored, cached or printed', async () => {
    const store = join(dir, 'creds.db');
    const secret = 'sekret-pass-4242';
    const url = server.url.replace('http://', `http://alice:${secret}@`);
    const before = server.requests.length;
    const r = await runCli(args(store, '--limit', '4').map((a) => (a === server.url ? url : a)));
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.length - before).toBe(4);
    expect(server.requests.at(-1)!.authorization).toBe(`Basic ${Buffer.from(`alice:${secret}`).toString('base64')}`);
    expect(r.stdout + r.stderr).not.toContain(secret);
    const raw = readFileSync(store);
    expect(raw.includes(Buffer.from(secret))).toBe(false);
    const db = new Database(store, { readonly: true });
    const config = JSON.parse((db.prepare('SELECT config FROM runs').get() as { config: string }).config) as { modelOptions: { baseUrl: string } };
    expect(config.modelOptions.baseUrl).toBe(server.url);
    db.close();
  });
});

describe('files and stores', () => {
  it('--out to a directory fails before any model call', async () => {
    const before = server.requests.length;
    const r = await runCli(args(join(dir, 'out.db'), '--out', dir));
    expect(r.code).toBe(2);
    expect(reportedError(r)).toMatch(/^Error: cannot write --out .*: it is a directory; give a file name/);
    expect(server.requests.length).toBe(before);
  });

  it('a store on a read-only mount still serves runs, report and cache stats', async (ctx) => {
    const src = join(dir, 'ro-src');
    const ro = join(dir, 'ro');
    mkdirSync(src, { recursive: true });
    mkdirSync(ro, { recursive: true });
    const r = await runCli(args(join(src, 's.db'), '--limit', '6'));
    expect(r.code, r.stderr).toBe(0);
    const runId = (JSON.parse(r.stdout) as { runId: string }).runId;
    if (!isRoot || spawnSync('mount', ['--bind', src, ro]).status !== 0) {
      console.log('skipped: a read-only bind mount needs root');
      ctx.skip();
    }
    try {
      expect(spawnSync('mount', ['-o', 'remount,ro,bind', ro]).status).toBe(0);
      const store = join(ro, 's.db');
      const runs = await runCli(['runs', '--store', store, '--json']);
      expect(runs.code, runs.stderr).toBe(0);
      expect(JSON.parse(runs.stdout)).toMatchObject({ runs: [expect.objectContaining({ runId, status: 'completed' })] });
      const report = await runCli(['report', '--store', store, '--format', 'json']);
      expect(report.code, report.stderr).toBe(0);
      expect(report.stdout).toContain(runId);
      const stats = await runCli(['cache', 'stats', '--store', store, '--json']);
      expect(stats.code, stats.stderr).toBe(0);
      expect(JSON.parse(stats.stdout)).toMatchObject({ entries: 6 });
      // writing is refused with one clear line
      const write = await runCli(args(store, '--limit', '7'));
      expect(write.code).not.toBe(0);
      expect(reportedError(write)).toMatch(/^Error: cannot open store .*(read-?only|readonly)/im);
    } finally {
      spawnSync('umount', ['-l', ro]);
    }
  });
});
