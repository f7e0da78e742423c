// `hpt-bench view` benchmark (issue 29): build a store of 50 runs x 200 samples (BoolQ-shaped generated data,
// baseline:random and baseline:oracle alternating, one seed each) plus one 10,000-sample run, start the viewer's server
// on it (the built `createViewServer`), and time in headless Chromium (a fresh page each time, so nothing is cached):
// - the runs list: navigation until the 51 rows are rendered;
// - the 10,000-sample run page: navigation until its report tables and the first page of samples are rendered (cold:
//   the server's first answer, bootstrap included; warm: again, from the server's memo of completed runs);
// - a sample's trace page, and the API alone (runs list, run page, a samples page deep in the run) with fetch.
// Prints milliseconds (medians of 5 where repeated). Run after `npm run build`:
// node bench/view.mjs [store.db]   (an existing store is reused as it is; default: a new one in the temp dir)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/run.js', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const RUNS = 50;
const SAMPLES = 200;
const BIG = 10_000;
const dir = mkdtempSync(join(tmpdir(), 'hpt-bench-view-'));
const store = process.argv[2] ?? join(dir, 'store.db');
const cli = (args) => execFileSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });

if (!existsSync(store)) {
  const data = join(dir, 'questions.jsonl');
  writeFileSync(data, `${Array.from({ length: BIG }, (_, i) => JSON.stringify({ question: `is statement ${i} about the passage true`, passage: `Passage ${i}: some facts about topic ${i % 97}.`, answer: i % 3 !== 0 })).join('\n')}\n`);
  const t = performance.now();
  for (let i = 1; i <= RUNS; i++) {
    cli(['run', '--dataset', 'boolq', '--data', data, '--limit', String(SAMPLES), '--model', i % 2 ? 'baseline:random' : 'baseline:oracle', '--seed', String(i), '--store', store, '--json']);
  }
  cli(['run', '--dataset', 'boolq', '--data', data, '--model', 'baseline:random', '--seed', '1000', '--store', store, '--json']);
  console.log(`store: ${RUNS} runs x ${SAMPLES} samples + 1 run x ${BIG} samples in ${((performance.now() - t) / 1000).toFixed(1)} s (${store})`);
}

const { RunStore } = await import('../packages/core/dist/index.js');
const { createViewServer } = await import('../packages/cli/dist/view/server.js');
const ro = new RunStore(store, { readonly: true });
const view = await createViewServer({ store: ro, label: store }).listen(0);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};

try {
  const list = await (await fetch(new URL('/api/runs', view.url))).json();
  const big = list.runs.find((r) => r.done === BIG);
  if (!big) throw new Error(`no ${BIG}-sample run in ${store}`);
  console.log(`runs in the store: ${list.total}; the big run: ${big.id}`);

  // the API alone
  const api = async (path) => {
    const out = [];
    for (let i = 0; i < 5; i++) out.push(await time(async () => (await fetch(new URL(path, view.url))).json()));
    return median(out);
  };
  const runPageCold = await time(async () => (await fetch(new URL(`/api/runs/${big.id}`, view.url))).json());
  console.log(`api: runs list ${(await api('/api/runs')).toFixed(1)} ms; run page (10,000 samples) cold ${runPageCold.toFixed(0)} ms, warm ${(await api(`/api/runs/${big.id}`)).toFixed(1)} ms; samples page at offset 9,000 ${(await api(`/api/runs/${big.id}/samples?offset=9000&limit=50`)).toFixed(1)} ms; one sample ${(await api(`/api/runs/${big.id}/samples/7777`)).toFixed(1)} ms`);

  if (!existsSync(CHROMIUM)) {
    console.log(`chromium: ${CHROMIUM} not found; page loads not measured`);
  } else {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    try {
      const load = async (hash, ready) => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        try {
          return await time(async () => {
            await page.goto(`${view.url}${hash}`);
            await page.waitForFunction(ready, undefined, { timeout: 30_000, polling: 'raf' });
          });
        } finally {
          await page.close();
        }
      };
      const listReady = () => document.querySelectorAll('#runs tbody tr').length === 51;
      const runReady = () => document.querySelector('#table-runs') !== null && document.querySelectorAll('#samples tbody tr').length === 50;
      const sampleReady = () => document.querySelectorAll('#sample .attempt').length > 0;
      const lists = [];
      for (let i = 0; i < 5; i++) lists.push(await load('#/', listReady));
      // a fresh server for a cold run page (its memo empty)
      const cold = await (async () => {
        const again = await createViewServer({ store: ro, label: store }).listen(0);
        try {
          const page = await browser.newPage();
          try {
            return await time(async () => {
              await page.goto(`${again.url}#/run/${big.id}`);
              await page.waitForFunction(runReady, undefined, { timeout: 30_000, polling: 'raf' });
            });
          } finally {
            await page.close();
          }
        } finally {
          await again.close();
        }
      })();
      const warm = [];
      for (let i = 0; i < 5; i++) warm.push(await load(`#/run/${big.id}`, runReady));
      const samples = [];
      for (let i = 0; i < 5; i++) samples.push(await load(`#/run/${big.id}/sample/${1234 + i}`, sampleReady));
      console.log(`chromium: runs list (51 runs) ${median(lists).toFixed(0)} ms (median of 5; first ${lists[0].toFixed(0)} ms)`);
      console.log(`chromium: 10,000-sample run page (tables + first 50 samples) cold ${cold.toFixed(0)} ms, warm ${median(warm).toFixed(0)} ms (median of 5)`);
      console.log(`chromium: sample trace page ${median(samples).toFixed(0)} ms (median of 5)`);
    } finally {
      await browser.close();
    }
  }
} finally {
  await view.close();
  ro.close();
}
