#!/usr/bin/env node
// Execution-engine benchmark (issue #5 item 6). Run by hand after `npm run build`, from anywhere:
//
//   node bench/exec.mjs [--rounds N] [--only LIST] [--quick] [--profile] [--keep]
//
// Four measurements, each against a local OpenAI-compatible server (bench/exec-server.mjs) started as a separate
// process on 127.0.0.1, with `hpt-bench run` also a separate process (`node bin/run.js run ... --json --store <tmp>`),
// so client and server share the CPU as they do in practice. Wall time is spawn to exit; calls/s = requests the server
// counted / wall time. Targets (printed next to the figures, never asserted):
//   1. harness overhead: 0 ms server latency, concurrency 8, --no-cache: calls/s of `hpt-bench run` >= 0.9x the calls/s
//      of a bare openai-SDK loop (bench/exec-bare.mjs) replaying the exact request bodies the harness sent, with the
//      same concurrency, against the same server in the same invocation (the SDK as it comes, over Node's global
//      fetch). Each round also replays the bodies with the SDK over the harness's own transport (`--transport undici`,
//      plugins/openai/src/transport.ts): the ratio against that loop is the harness's own overhead (a figure, no target);
//   2. latency-bound scaling: 50 ms latency, concurrency 64: the same ratio >= 0.9, and the fraction of the
//      concurrency / latency limit (64 / 0.05 s = 1,280 calls/s) each side reaches;
//   3. memory: random-baseline runs (no server) of 1k, 10k, 30k, 100k synthetic BoolQ samples: peak RSS <= 250 MB at
//      100k and flat in the sample count, and the 100k run again with V8's old space capped at 48 MB (completing shows
//      that what the run retains stays bounded: peak RSS also counts garbage V8 has not collected yet);
//   4. re-run of a finished 1,000-sample run (cache on): 0 model calls, under 3 s.
//   5. `run --batch` files (bench/exec-batch.mjs, a separate process, no server): calls/s of building the Batch API
//      input files of 100,000 calls (request lines, split within 50,000 requests / 200 MB, JSONL text) and of parsing
//      an output file of 100,000 completions; figures only, no target.
//   6. three workers on one PostgreSQL store (bench/workers.mjs --store postgres, a throwaway server): wall time and
//      calls/s of one `hpt-bench run` against three started together on one run (1,000 samples, 50 ms latency,
//      --concurrency 16 each); the three must make exactly the single worker's calls (no sample twice); no target.
// The server answers every call with the fixed completion `zzz`, which no BoolQ answer parser accepts, so every sample
// climbs all five HPF levels (1 + 1 + 1 + 4 + 4 = 11 calls): a deterministic load.
// Options: --rounds N (default 3) rounds per throughput scenario (odd rounds run the harness first, even rounds the
// bare loop first; medians reported); --only overhead,latency,memory,rerun (a subset); --quick (smaller runs, a smoke
// test of the script, not figures to quote); --profile (also CPU-profile one harness run of scenario 1 and print where
// its time goes); --keep (keep the temp dir). Scratch data goes to os.tmpdir() only. Takes about 2.5 minutes on 2 cores.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from './prng.mjs';

const argv = process.argv.slice(2);
const has = (f) => argv.includes(f);
const opt = (f, d) => (argv.indexOf(f) >= 0 ? argv[argv.indexOf(f) + 1] : d);
const QUICK = has('--quick');
const ROUNDS = Math.max(1, Number(opt('--rounds', QUICK ? '1' : '3')));
const ONLY = new Set((opt('--only', 'overhead,latency,memory,rerun,batch,workers')).split(','));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'bin/run.js');
const SERVER = join(ROOT, 'bench/exec-server.mjs');
const BARE = join(ROOT, 'bench/exec-bare.mjs');
const BATCH = join(ROOT, 'bench/exec-batch.mjs');
const WORKERS_BENCH = join(ROOT, 'bench/workers.mjs');
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

const SCEN = {
  overhead: { latencyMs: 0, concurrency: 8, samples: QUICK ? 100 : 1000 },
  latency: { latencyMs: 50, concurrency: 64, samples: QUICK ? 150 : 1000 },
  memory: QUICK ? [1000, 5000] : [1000, 10_000, 30_000, 100_000],
  rerun: { samples: QUICK ? 100 : 1000, concurrency: 8 },
};

const tmp = mkdtempSync(join(tmpdir(), 'hpt-exec-bench-'));
const now = () => performance.timeOrigin + performance.now(); // epoch ms, comparable with the server's stamps
const t00 = now();
const log = (s = '') => process.stdout.write(`${s}\n`);
const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const shown = (args) =>
  args
    .map((a) => (a.startsWith(ROOT) ? relative(ROOT, a) || '.' : a))
    .map((a) => (/^[\w./:@=,+-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`))
    .join(' ');

/**
 * Spawn `node <args>` (cwd = repo root), collect stdout/stderr; `start`/`end` are epoch ms around spawn and exit.
 * Under /usr/bin/time also the child's peak RSS (MB) and CPU seconds (user + sys); without it, with `peak`, the peak
 * RSS from polling /proc/<pid>/status VmHWM.
 */
function runNode(args, { peak = false, echo = true } = {}) {
  const resFile = join(tmp, `time-${process.hrtime.bigint()}.txt`);
  const cmd = TIME ?? process.execPath;
  const full = TIME ? ['-f', '%M %U %S', '-o', resFile, process.execPath, ...args] : args;
  if (echo) log(`  $ node ${shown(args)}`);
  return new Promise((resolve) => {
    const start = now();
    const child = spawn(cmd, full, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let hwmKb = 0;
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    // without /usr/bin/time: poll the child's VmHWM (its peak RSS so far) until it exits
    const poll = peak && !TIME ? setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) hwmKb = Math.max(hwmKb, Number(m[1]));
      } catch {}
    }, 20) : undefined;
    child.on('close', (code) => {
      const end = now();
      if (poll) clearInterval(poll);
      let peakMb = peak && !TIME ? hwmKb / 1024 : undefined;
      let cpuSeconds;
      if (TIME) {
        try {
          const [m, u, sy] = readFileSync(resFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
          peakMb = m / 1024;
          cpuSeconds = u + sy;
        } catch {}
        rmSync(resFile, { force: true });
      }
      let json;
      try {
        json = JSON.parse(stdout);
      } catch {}
      if (code !== 0) log(`  ! exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
      resolve({ code, stdout, stderr, json, start, end, seconds: (end - start) / 1000, peakMb, cpuSeconds });
    });
  });
}

/** A synthetic BoolQ JSONL (passage, question, answer) of `n` deterministic records. */
async function writeBoolq(file, n) {
  const random = mulberry32(20240607);
  const vocab = 'the river city council library summer winter festival bridge museum island station forest coast market village tower harbour castle valley railway school garden mountain lake century king queen war treaty law court season team league player song album film novel author species plant animal disease cell energy water'.split(' ');
  const words = (k) => Array.from({ length: k }, () => vocab[Math.floor(random() * vocab.length)]).join(' ');
  const out = createWriteStream(file);
  let buf = '';
  for (let i = 0; i < n; i++) {
    const passage = `${words(40 + Math.floor(random() * 50))}.`;
    buf += `${JSON.stringify({ question: `is the ${words(6)} (${i})`, passage, answer: random() < 0.6 })}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await new Promise((r) => out.once('drain', r));
      buf = '';
    }
  }
  out.end(buf);
  await new Promise((r) => out.on('finish', r));
}

const rmStore = (db) => {
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
};
const fileMb = (f) => (existsSync(f) ? statSync(f).size / 1048576 : 0);

// ---------------------------------------------------------------------------------------------------------- server
let server;
let base;
async function startServer() {
  server = spawn(process.execPath, [SERVER, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    let acc = '';
    server.stdout.on('data', (c) => {
      acc += c;
      const nl = acc.indexOf('\n');
      if (nl >= 0) resolve(acc.slice(0, nl));
    });
    server.on('exit', (code) => reject(new Error(`exec-server exited with ${code}`)));
  });
  const info = JSON.parse(line);
  base = info.url.replace(/\/v1$/, '');
  return info;
}
async function ctl(path, body) {
  const res = await fetch(`${base}${path}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
  return res.json();
}

// ------------------------------------------------------------------------------------------------- throughput
const harnessArgs = (sc, data, store) => [CLI, 'run', '--dataset', 'boolq', '--data', data, '--limit', String(sc.samples), '--model', 'openai:bench-model',
  '--base-url', `${base}/v1`, '--no-cache', '--temperature', '0', '-c', String(sc.concurrency), '--json', '--store', store];

/** Figures of one side of a round from its process and the server's counters. */
const side = (r, s) => ({
  requests: s.requests,
  seconds: r.seconds,
  cps: s.requests / r.seconds,
  startup: (s.firstAt - r.start) / 1000,
  window: (s.lastAt - s.firstAt) / 1000,
  windowCps: s.requests / ((s.lastAt - s.firstAt) / 1000),
  tail: (r.end - s.lastAt) / 1000,
  cpuUsPerCall: (r.cpuSeconds * 1e6) / s.requests,
  ok: r.code === 0,
});

/**
 * One round: a harness run (recording the request bodies in round 1) and two bare-SDK replays of the bodies, at the
 * scenario's latency and concurrency: the SDK over Node's global fetch (the reference of the targets) and over the
 * harness's own transport (plugins/openai transport.js: what is left of the harness's overhead when both sides send
 * calls the same way). Odd rounds run the harness first, even rounds the bare loops first.
 */
async function throughputRound(name, sc, data, round, bodies) {
  const store = join(tmp, `store-${name}-${round}.db`);
  const harness = async () => {
    await ctl('/config', { latencyMs: sc.latencyMs, record: round === 1 });
    await ctl('/reset', {});
    const h = await runNode(harnessArgs(sc, data, store), { echo: round === 1 });
    const hs = await ctl('/stats');
    if (round === 1) await ctl('/dump', { file: bodies });
    rmStore(store);
    const H = side(h, hs);
    H.calls = h.json?.calls;
    H.n = h.json?.n;
    return H;
  };
  const bare = async (transport) => {
    await ctl('/config', { latencyMs: sc.latencyMs, record: false });
    await ctl('/reset', {});
    const b = await runNode([BARE, '--url', `${base}/v1`, '--bodies', bodies, '--concurrency', String(sc.concurrency), '--transport', transport], { echo: round === 1 });
    const B = side(b, await ctl('/stats'));
    B.errors = b.json?.errors;
    return B;
  };
  let H;
  let B;
  let U;
  if (round % 2 === 1) {
    H = await harness();
    B = await bare('fetch');
    U = await bare('undici');
  } else {
    B = await bare('fetch');
    U = await bare('undici');
    H = await harness();
  }
  log(`  round ${round}${round % 2 ? '' : ' (bare first)'}: harness ${H.requests} requests (${fmt(H.requests / H.n, 1)} per sample, summary calls ${H.calls}) in ${fmt(H.seconds, 2)} s = ${fmt(H.cps)} calls/s ` +
    `[spawn->1st request ${fmt(H.startup, 2)} s, load window ${fmt(H.window, 2)} s = ${fmt(H.windowCps)}/s, last request->exit ${fmt(H.tail, 2)} s; CPU ${fmt(H.cpuUsPerCall)} us/call]`);
  log(`           bare    ${B.requests} requests (${B.errors ?? '?'} errors) in ${fmt(B.seconds, 2)} s = ${fmt(B.cps)} calls/s ` +
    `[spawn->1st request ${fmt(B.startup, 2)} s, load window ${fmt(B.window, 2)} s = ${fmt(B.windowCps)}/s; CPU ${fmt(B.cpuUsPerCall)} us/call]  ratio ${fmt(H.cps / B.cps, 3)} (window ${fmt(H.windowCps / B.windowCps, 3)})`);
  log(`           bare on the harness's transport ${U.requests} requests (${U.errors ?? '?'} errors) in ${fmt(U.seconds, 2)} s = ${fmt(U.cps)} calls/s ` +
    `[CPU ${fmt(U.cpuUsPerCall)} us/call]  ratio ${fmt(H.cps / U.cps, 3)} (window ${fmt(H.windowCps / U.windowCps, 3)})`);
  return { H, B, U };
}

async function throughput(name, sc, data) {
  const bodies = join(tmp, `bodies-${name}.jsonl`);
  const rounds = [];
  for (let r = 1; r <= ROUNDS; r++) rounds.push(await throughputRound(name, sc, data, r, bodies));
  rmSync(bodies, { force: true });
  const m = (f) => median(rounds.map(f));
  return {
    h: m((x) => x.H.cps),
    b: m((x) => x.B.cps),
    ratio: m((x) => x.H.cps) / m((x) => x.B.cps),
    perRound: rounds.map((x) => x.H.cps / x.B.cps),
    u: m((x) => x.U.cps),
    sameRatio: m((x) => x.H.cps) / m((x) => x.U.cps),
    samePerRound: rounds.map((x) => x.H.cps / x.U.cps),
    sameWindowRatio: m((x) => x.H.windowCps) / m((x) => x.U.windowCps),
    uCpu: m((x) => x.U.cpuUsPerCall),
    hw: m((x) => x.H.windowCps),
    bw: m((x) => x.B.windowCps),
    windowRatio: m((x) => x.H.windowCps) / m((x) => x.B.windowCps),
    startup: m((x) => x.H.startup),
    bareStartup: m((x) => x.B.startup),
    hCpu: m((x) => x.H.cpuUsPerCall),
    bCpu: m((x) => x.B.cpuUsPerCall),
    rounds,
  };
}

// ---------------------------------------------------------------------------------------------------- profile
/** CPU-profile one harness run of the overhead scenario and print self time by area and the top harness functions. */
async function profile(sc, data) {
  const dir = join(tmp, 'cpuprof');
  const store = join(tmp, 'store-profile.db');
  await ctl('/config', { latencyMs: sc.latencyMs, record: false });
  await ctl('/reset', {});
  await runNode(['--cpu-prof', '--cpu-prof-dir', dir, ...harnessArgs(sc, data, store)]);
  rmStore(store);
  const p = JSON.parse(readFileSync(join(dir, readdirSync(dir)[0]), 'utf8'));
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const area = (url, fn) => {
    if (!url) return fn === '(garbage collector)' ? 'GC' : fn === '(idle)' || fn === '(program)' ? 'idle/program' : 'native (writev, microtasks, ...)';
    if (/node_modules\/better-sqlite3\//.test(url)) return 'better-sqlite3 (store)';
    if (/node_modules\/@oclif\//.test(url)) return 'oclif (startup)';
    if (/node_modules\/openai\//.test(url)) return 'openai SDK';
    if (/node_modules\/(ajv|tsyringe|reflect-metadata)/.test(url)) return 'ajv/tsyringe (startup)';
    if (/\/(packages|plugins)\//.test(url) && !/node_modules/.test(url)) return 'hpt-bench (packages/, plugins/)';
    if (/^node:/.test(url)) return 'node internals (undici fetch, streams, ...)';
    return 'other';
  };
  const byArea = new Map();
  const byFn = new Map();
  for (const [id, t] of self) {
    const cf = nodes.get(id).callFrame;
    const a = area(cf.url, cf.functionName);
    byArea.set(a, (byArea.get(a) ?? 0) + t);
    if (/hpt-bench|better-sqlite3/.test(a)) {
      const k = `${cf.functionName || '(anonymous)'}  ${cf.url.replace(/^.*?\/(packages|plugins|node_modules)\//, '$1/')}:${cf.lineNumber + 1}`;
      byFn.set(k, (byFn.get(k) ?? 0) + t);
    }
  }
  log(`  CPU profile: ${fmt(total / 1000)} ms sampled (profiling slows the run)`);
  for (const [a, t] of [...byArea].sort((x, y) => y[1] - x[1])) log(`    ${fmt(t / 1000).padStart(6)} ms ${fmt((100 * t) / total, 1).padStart(5)}%  ${a}`);
  log('  top self time in hpt-bench code and the store driver:');
  for (const [k, t] of [...byFn].sort((x, y) => y[1] - x[1]).slice(0, 12)) log(`    ${fmt(t / 1000).padStart(6)} ms  ${k}`);
  // inclusive (self + callees, synchronous stack only) of hpt-bench functions that do not call the SDK
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const key = (cf) => `${cf.functionName || '(anonymous)'}  ${cf.url.replace(/^.*?\/(packages|plugins|node_modules)\//, '$1/')}:${cf.lineNumber + 1}`;
  const incl = new Map();
  const viaSdk = new Set();
  for (const [id, t] of self) {
    const seen = new Set();
    let sdk = /node_modules\/openai\//.test(nodes.get(id).callFrame.url);
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const cf = nodes.get(cur).callFrame;
      if (/node_modules\/openai\//.test(cf.url)) sdk = true;
      if (!/\/(packages|plugins)\//.test(cf.url) || /node_modules/.test(cf.url)) continue;
      const k = key(cf);
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + t);
      if (sdk) viaSdk.add(k);
    }
  }
  log('  top inclusive time of hpt-bench functions that never reach the openai SDK (synchronous stacks):');
  for (const [k, t] of [...incl].filter(([k]) => !viaSdk.has(k)).sort((x, y) => y[1] - x[1]).slice(0, 12)) log(`    ${fmt(t / 1000).padStart(6)} ms  ${k}`);
}

// ------------------------------------------------------------------------------------------------------- main
const rows = [];
const row = (what, figure, target, meets) => rows.push({ what, figure, target, meets: meets === undefined ? '' : meets ? 'yes' : 'NO' });

try {
  const cpu = cpus();
  log('hpt-bench execution benchmark (issue #5 item 6)');
  log(`machine: ${cpu.length} CPU x ${cpu[0]?.model ?? '?'}, ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, Linux ${release()}, load avg ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  log(`node ${process.version}; peak RSS and CPU via ${TIME ? "/usr/bin/time -f '%M %U %S'" : '/proc/<pid>/status VmHWM polling (no CPU figures)'}; scratch dir ${tmp}`);
  log(`rounds per throughput scenario: ${ROUNDS}${QUICK ? ' (--quick: small runs, not figures to quote)' : ''}`);

  const dataSmall = join(tmp, 'boolq-small.jsonl');
  await writeBoolq(dataSmall, Math.max(SCEN.overhead.samples, SCEN.latency.samples, SCEN.rerun.samples));
  const srv = await startServer();
  log(`server: node ${shown([SERVER, '--port', '0'])} -> ${srv.url} (pid ${srv.pid}), fixed completion "zzz"`);
  log(`data: synthetic BoolQ JSONL (passage 40-90 words), ${Math.max(SCEN.overhead.samples, SCEN.latency.samples, SCEN.rerun.samples)} records`);
  // warm-up (not measured): page in node_modules, warm the server's JIT
  await ctl('/config', { latencyMs: 0, record: false });
  await runNode(harnessArgs({ samples: 50, concurrency: 8 }, dataSmall, join(tmp, 'store-warmup.db')), { echo: false });
  rmStore(join(tmp, 'store-warmup.db'));

  // 1. overhead
  const o = SCEN.overhead;
  if (ONLY.has('overhead')) {
    log();
    log(`[1/4] harness overhead: latency ${o.latencyMs} ms, concurrency ${o.concurrency}, ${o.samples} samples, --no-cache; ${ROUNDS} rounds`);
    const O = await throughput('overhead', o, dataSmall);
    row('1 overhead: hpt-bench run calls/s (spawn to exit)', fmt(O.h), '', undefined);
    row('1 overhead: bare openai-SDK loop calls/s', fmt(O.b), '', undefined);
    row('1 overhead: ratio harness / bare (medians)', `${fmt(O.ratio, 3)} (rounds: ${O.perRound.map((x) => fmt(x, 2)).join(', ')})`, '>= 0.9', O.ratio >= 0.9);
    row('1 overhead: ratio over the load window only', fmt(O.windowRatio, 3), '(excl. startup)', undefined);
    row("1 overhead: bare loop on the harness's transport calls/s", fmt(O.u), '', undefined);
    row("1 overhead: ratio harness / that loop (medians)", `${fmt(O.sameRatio, 3)} (rounds: ${O.samePerRound.map((x) => fmt(x, 2)).join(', ')}; window ${fmt(O.sameWindowRatio, 3)})`, '(own overhead)', undefined);
    row('1 overhead: startup, spawn to 1st request', `${fmt(O.startup, 2)} s (bare ${fmt(O.bareStartup, 2)} s)`, '', undefined);
    if (Number.isFinite(O.hCpu)) row('1 overhead: client CPU per call (user+sys)', `${fmt(O.hCpu)} us (bare ${fmt(O.bCpu)} us, on the transport ${fmt(O.uCpu)} us)`, '', undefined);
  }

  // 2. latency-bound
  const l = SCEN.latency;
  const limit = l.concurrency / (l.latencyMs / 1000);
  if (ONLY.has('latency')) {
    log();
    log(`[2/4] latency-bound scaling: latency ${l.latencyMs} ms, concurrency ${l.concurrency} (limit ${limit} calls/s), ${l.samples} samples, --no-cache; ${ROUNDS} rounds`);
    const L = await throughput('latency', l, dataSmall);
    row('2 latency: hpt-bench run calls/s', `${fmt(L.h)} (${fmt((100 * L.h) / limit)}% of ${limit})`, '', undefined);
    row('2 latency: bare openai-SDK loop calls/s', `${fmt(L.b)} (${fmt((100 * L.b) / limit)}% of ${limit})`, '', undefined);
    row('2 latency: ratio harness / bare (medians)', `${fmt(L.ratio, 3)} (rounds: ${L.perRound.map((x) => fmt(x, 2)).join(', ')})`, '>= 0.9', L.ratio >= 0.9);
    row('2 latency: load-window calls/s harness / bare', `${fmt(L.hw)} / ${fmt(L.bw)} = ${fmt(L.windowRatio, 3)}`, '(excl. startup)', undefined);
    row("2 latency: ratio harness / bare loop on the harness's transport", `${fmt(L.sameRatio, 3)} (rounds: ${L.samePerRound.map((x) => fmt(x, 2)).join(', ')})`, '(own overhead)', undefined);
    if (Number.isFinite(L.hCpu)) row('2 latency: client CPU per call (user+sys)', `${fmt(L.hCpu)} us (bare ${fmt(L.bCpu)} us)`, '', undefined);
  }

  // 3. memory
  if (ONLY.has('memory')) {
    const maxMem = Math.max(...SCEN.memory);
    const dataBig = join(tmp, `boolq-${maxMem / 1000}k.jsonl`);
    await writeBoolq(dataBig, maxMem);
    log();
    log(`[3/4] memory: --model baseline:random (no server), ${SCEN.memory.join(', ')} samples of a ${fmt(fileMb(dataBig), 1)} MB JSONL, default concurrency`);
    const mem = [];
    for (const n of SCEN.memory) {
      const store = join(tmp, `store-mem-${n}.db`);
      const r = await runNode([CLI, 'run', '--dataset', 'boolq', '--data', dataBig, '--limit', String(n), '--model', 'baseline:random', '--json', '--store', store], { peak: true, echo: n === SCEN.memory[0] || n === maxMem });
      const storeMb = fileMb(store) + fileMb(`${store}-wal`);
      rmStore(store);
      mem.push({ n, mb: r.peakMb, seconds: r.seconds, calls: r.json?.calls });
      log(`  ${String(n).padStart(6)} samples: peak RSS ${fmt(r.peakMb, 1)} MB, ${fmt(r.seconds, 2)} s (${fmt(n / r.seconds)} samples/s, ${r.json?.calls ?? '?'} calls), store ${fmt(storeMb)} MB`);
    }
    const mBig = mem.at(-1);
    const mRef = mem.find((m) => m.n === 10_000) ?? mem[0];
    const slope = ((mBig.mb - mRef.mb) / (mBig.n - mRef.n)) * 10_000;
    row(`3 memory: peak RSS at ${mBig.n} samples`, `${fmt(mBig.mb, 1)} MB`, '<= 250 MB', mBig.mb <= 250);
    row('3 memory: peak RSS by sample count', mem.map((m) => `${m.n / 1000}k ${fmt(m.mb)}`).join(', ') + ' MB', 'flat', undefined);
    row(`3 memory: growth ${mRef.n / 1000}k -> ${mBig.n / 1000}k`, `${slope >= 0 ? '+' : ''}${fmt(slope, 2)} MB per 10k samples`, '~0', Math.abs(mBig.mb - mRef.mb) < 0.15 * mRef.mb);
    row(`3 memory: ${mBig.n} samples wall time`, `${fmt(mBig.seconds, 1)} s`, '', undefined);
    // Peak RSS also holds garbage V8 has not collected yet (a faster run allocates faster and V8 lets the heap grow).
    // Completing with the old space capped far below that peak shows that what the run retains stays under the cap.
    const capMb = 48;
    const storeCap = join(tmp, 'store-mem-cap.db');
    const capped = await runNode([`--max-old-space-size=${capMb}`, CLI, 'run', '--dataset', 'boolq', '--data', dataBig, '--limit', String(mBig.n), '--model', 'baseline:random', '--json', '--store', storeCap], { peak: true });
    rmStore(storeCap);
    log(`  ${mBig.n} samples with --max-old-space-size=${capMb}: exit ${capped.code}, peak RSS ${fmt(capped.peakMb, 1)} MB, ${fmt(capped.seconds, 2)} s`);
    row(`3 memory: ${mBig.n} samples, old space capped at ${capMb} MB`, capped.code === 0 ? `completes, peak RSS ${fmt(capped.peakMb, 1)} MB` : `fails (exit ${capped.code})`, 'completes', capped.code === 0);
    rmSync(dataBig, { force: true });
  }

  // 4. re-run
  if (ONLY.has('rerun')) {
    const rr = SCEN.rerun;
    log();
    log(`[4/4] re-run of a finished run: ${rr.samples} samples, latency 0 ms, concurrency ${rr.concurrency}, cache on, same command twice`);
    await ctl('/config', { latencyMs: 0, record: false });
    await ctl('/reset', {});
    const store = join(tmp, 'store-rerun.db');
    const rArgs = [CLI, 'run', '--dataset', 'boolq', '--data', dataSmall, '--limit', String(rr.samples), '--model', 'openai:bench-model', '--base-url', `${base}/v1`,
      '--temperature', '0', '-c', String(rr.concurrency), '--json', '--store', store];
    const first = await runNode(rArgs);
    const s1 = (await ctl('/stats')).requests;
    const second = await runNode(rArgs, { echo: false });
    const s2 = (await ctl('/stats')).requests;
    log(`  first run:  ${fmt(first.seconds, 2)} s, ${s1} requests, summary calls ${first.json?.calls} (cached ${first.json?.cachedCalls}: identical temperature-0 calls in one run share a request)`);
    log(`  second run: ${fmt(second.seconds, 2)} s, ${s2 - s1} requests, summary calls ${second.json?.calls} (cached ${second.json?.cachedCalls}), run ${second.json?.runId} (first ${first.json?.runId})`);
    rmStore(store);
    row('4 re-run: model calls (server request delta)', String(s2 - s1), '0', s2 - s1 === 0);
    row('4 re-run: wall time', `${fmt(second.seconds, 2)} s`, '< 3 s', second.seconds < 3);
  }

  // 5. --batch files
  if (ONLY.has('batch')) {
    const calls = QUICK ? 10_000 : 100_000;
    log();
    log(`[5] run --batch files: build and parse the Batch API files of ${calls} calls, ${ROUNDS} rounds (medians)`);
    const b = await runNode([BATCH, '--calls', String(calls), '--rounds', String(ROUNDS), '--json'], { echo: true });
    const r = b.json ?? {};
    log(`  ${calls} calls: ${r.files ?? '?'} input files, ${fmt(r.mb, 1)} MB; build ${fmt(r.buildPerSec)} calls/s, parse ${fmt(r.parsePerSec)} calls/s`);
    row(`5 batch: build input files of ${calls / 1000}k calls`, `${fmt(r.buildPerSec)} calls/s`, '', undefined);
    row(`5 batch: parse an output file of ${calls / 1000}k calls`, `${fmt(r.parsePerSec)} calls/s`, '', undefined);
  }

  // 6. three workers on one PostgreSQL store
  if (ONLY.has('workers')) {
    const samples = QUICK ? 200 : 1000;
    log();
    log(`[6] three workers on one PostgreSQL store: ${samples} samples, 50 ms latency, --concurrency 16 each, against one worker`);
    const w = await runNode([WORKERS_BENCH, '--store', 'postgres', '--samples', String(samples), '--latency', '50', '--concurrency', '16', '--workers', '3', '--json'], { echo: true });
    const lines = (w.stdout ?? '').trim().split('\n');
    for (const l of lines.slice(0, -1)) log(`  ${l}`);
    let r;
    try {
      r = JSON.parse(lines.at(-1) ?? '');
    } catch {
      log(`  (no result: ${(w.stderr ?? '').trim().split('\n').slice(-2).join(' | ')})`);
    }
    if (r) {
      row('6 workers (PostgreSQL): 1 worker calls/s', `${fmt(r.one.calls / r.one.seconds)} (${fmt(r.one.seconds, 1)} s)`, '', undefined);
      row('6 workers (PostgreSQL): 3 workers calls/s', `${fmt(r.many.calls / r.many.seconds)} (${fmt(r.many.seconds, 1)} s)`, '', undefined);
      row('6 workers (PostgreSQL): speed-up; calls equal', `${fmt(r.one.seconds / r.many.seconds, 2)}x; ${r.many.calls === r.one.calls ? 'yes' : 'NO'}`, 'calls equal', r.many.calls === r.one.calls && r.many.distinct === samples);
    }
  }

  if (has('--profile')) {
    log();
    log('[profile] one harness run of scenario 1 under --cpu-prof');
    await profile(o, dataSmall);
  }

  log();
  if (rows.length) {
    const w = [Math.max(...rows.map((r) => r.what.length)), Math.max(...rows.map((r) => r.figure.length)), Math.max(6, ...rows.map((r) => r.target.length))];
    log(`${'measurement'.padEnd(w[0])}  ${'figure'.padEnd(w[1])}  ${'target'.padEnd(w[2])}  meets`);
    log(`${'-'.repeat(w[0])}  ${'-'.repeat(w[1])}  ${'-'.repeat(w[2])}  -----`);
    for (const r of rows) log(`${r.what.padEnd(w[0])}  ${r.figure.padEnd(w[1])}  ${r.target.padEnd(w[2])}  ${r.meets}`);
    log();
  }
  log(`total ${fmt((now() - t00) / 1000, 1)} s`);
} finally {
  if (server && server.exitCode === null) server.kill('SIGTERM');
  if (!has('--keep')) rmSync(tmp, { recursive: true, force: true });
  else log(`kept ${tmp}`);
}
