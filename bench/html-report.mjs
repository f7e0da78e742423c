// HTML report size benchmark (issue 16): build a store of 28 runs (HiBench binary-tree and multiple-tree, 200 generated
// samples each, baseline:random, so samples climb the ladder with several attempts), then time `hpt-bench report
// --all --out report.html` and print the page size, the trace's share of it and the headless Chromium load time (navigation
// until the load event and the next frame; skipped when /usr/bin/chromium is missing). Run after `npm run build`:
// node bench/html-report.mjs [store.db]   (an existing store is reused as it is; default: a new one in the temp dir)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/run.js', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const RUNS = 28;
const SAMPLES = 200;
const dir = mkdtempSync(join(tmpdir(), 'hpt-bench-html-'));
const store = process.argv[2] ?? join(dir, 'store.db');
const cli = (args) => execFileSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });

if (!existsSync(store)) {
  const t = performance.now();
  for (let i = 1; i <= RUNS; i++) {
    const dataset = i % 2 ? 'hibench/binary-tree' : 'hibench/multiple-tree';
    cli(['run', '--dataset', dataset, '--limit', String(SAMPLES), '--model', 'baseline:random', '--seed', String(i), '--store', store, '--json']);
  }
  console.log(`store: ${RUNS} runs x ${SAMPLES} samples in ${((performance.now() - t) / 1000).toFixed(1)} s (${store})`);
}
const out = join(dir, 'report.html');
const t0 = performance.now();
cli(['report', '--all', '--store', store, '--out', out]); // every run: they differ only in --seed, one comparability group per dataset
const generateMs = performance.now() - t0;
const html = readFileSync(out, 'utf8');
const rows = (html.match(/<details class="sample"/g) ?? []).length;
const blocks = [...html.matchAll(/<script type="application\/octet-stream" id="trace-\d+">([^<]*)<\/script>/g)].reduce((n, m) => n + m[1].length, 0);
console.log(`page: ${(statSync(out).size / 1e6).toFixed(2)} MB, ${rows} sample rows, compressed trace bodies ${(blocks / 1e6).toFixed(2)} MB, generated in ${(generateMs / 1000).toFixed(2)} s`);
if (existsSync(CHROMIUM)) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const t = performance.now();
    await page.goto(pathToFileURL(out).href, { waitUntil: 'load' });
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => done())));
    console.log(`chromium: load + first frame ${(performance.now() - t).toFixed(0)} ms`);
  } finally {
    await browser.close();
  }
} else console.log(`chromium: ${CHROMIUM} not found; load time not measured`);
