#!/usr/bin/env node
/**
 * Screenshots of the HTML report (and of the live viewer, `hpt-bench view`, when the built CLI has it) for the docs
 * (report-top, report-charts, report-scatter, report-hibench, report-trace; view-runs, view-run):
 * docs/screenshots/*.png (listed in docs/screenshots/README.md).
 *
 * Builds a small demo store with the built CLI (`npm run build` first; offline: baseline models only) — BoolQ's `mini`
 * split with baseline:oracle and baseline:random, a `--full-ladder` run, and two HiBench scenarios (binary-tree, json)
 * with both models — renders the static report, opens it in headless Chromium (playwright-core) and writes the PNGs.
 * Then, if `hpt-bench view` exists, starts it on a free port over the same store and screenshots its run list and a
 * run page (otherwise it says so and skips them).
 *
 *   node scripts/screenshots.mjs [--out DIR] [--chromium PATH]
 *
 * Chromium: --chromium, else $CHROMIUM, else /usr/bin/chromium. The demo store lives in a temporary directory that is
 * removed at the end.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'run.js');
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
const OUT = resolve(arg('--out') ?? join(ROOT, 'docs', 'screenshots'));
const CHROMIUM = arg('--chromium') ?? process.env.CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Screenshots above this size are reported (docs images should stay small). */
const MAX_BYTES = 300 * 1024;
const VIEWPORT = { width: 1280, height: 860 };

/** Run the built CLI; throws with its stderr when it fails. */
function cli(args, cwd) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  if (r.status !== 0) throw new Error(`hpt-bench ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** The demo store: BoolQ mini (two baselines, one full-ladder run) and two HiBench scenarios with two models. */
function demoStore(dir) {
  const store = join(dir, 'demo.db');
  const run = (...a) => cli(['run', '--store', store, '--seed', '1', ...a], dir);
  for (const model of ['baseline:oracle', 'baseline:random']) run('--dataset', 'boolq', '--split', 'mini', '--model', model);
  run('--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--full-ladder');
  for (const model of ['baseline:random', 'baseline:oracle']) for (const dataset of ['binary-tree', 'json']) run('--dataset', dataset, '--model', model, '--limit', '30');
  return store;
}

/** Element `selector`'s box (page coordinates), or the union of several elements' boxes. */
async function unionBox(page, selectors) {
  const boxes = [];
  for (const s of selectors) {
    const el = page.locator(s).first();
    if ((await el.count()) === 0) continue;
    await el.scrollIntoViewIfNeeded();
    const b = await el.evaluate((e) => {
      const r = e.getBoundingClientRect();
      return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
    });
    boxes.push(b);
  }
  if (!boxes.length) throw new Error(`none of ${selectors.join(', ')} on the page`);
  const x = Math.min(...boxes.map((b) => b.x));
  const y = Math.min(...boxes.map((b) => b.y));
  return { x, y, width: Math.max(...boxes.map((b) => b.x + b.width)) - x, height: Math.max(...boxes.map((b) => b.y + b.height)) - y };
}

/** Screenshot a page region (page coordinates, padded, at most `maxHeight` tall) to `OUT/name`. */
async function shot(page, name, box, maxHeight = 1100) {
  const pad = 8;
  const clip = { x: Math.max(0, box.x - pad), y: Math.max(0, box.y - pad), width: Math.min(VIEWPORT.width, box.width + 2 * pad), height: Math.min(maxHeight, box.height + 2 * pad) };
  const path = join(OUT, name);
  await page.screenshot({ path, clip, fullPage: true });
  return path;
}

/** The URL `hpt-bench view` prints once it listens (`hpt-bench view: http://127.0.0.1:PORT/ ...`). */
function startViewer(store, cwd) {
  const child = spawn(process.execPath, [BIN, 'view', '--store', store, '--port', '0', '--bootstrap', '200'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = new Promise((res, rej) => {
    let out = '';
    const timer = setTimeout(() => rej(new Error(`hpt-bench view printed no URL in 30 s: ${out}`)), 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/?)/.exec(out);
      if (m) {
        clearTimeout(timer);
        res(m[1]);
      }
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => rej(new Error(`hpt-bench view exited (${code}): ${out}`)));
  });
  return { child, url };
}

async function main() {
  if (!existsSync(join(ROOT, 'packages', 'cli', 'dist', 'commands', 'report.js'))) throw new Error('build the CLI first: npm run build');
  mkdirSync(OUT, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'hpt-screenshots-'));
  const written = [];
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  let viewer;
  try {
    console.log(`demo store in ${dir}`);
    const store = demoStore(dir);
    const html = join(dir, 'report.html');
    cli(['report', '--store', store, '--out', html, '--bootstrap', '500'], dir);
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(pathToFileURL(html).href);
    // the top: header, navigation, the runs table (short run ids, full ids on hover)
    written.push(await shot(page, 'report-top.png', await unionBox(page, ['header', 'nav', '#table-runs']), 900));
    // the generic charts: HPI and accuracy heatmaps, solving levels; accuracy vs HPI (its legend labels whole)
    written.push(await shot(page, 'report-charts.png', await unionBox(page, ['#chart-heatmap-hpi', '#chart-heatmap-accuracy', '#chart-levels'])));
    written.push(await shot(page, 'report-scatter.png', await unionBox(page, ['#chart-scatter'])));
    // HiBench's computed charts: a panel per preset / dimension, only the runs that have it
    written.push(await shot(page, 'report-hibench.png', await unionBox(page, ['#chart-hibench-preset', '#chart-hibench-dimension-hpi', '#chart-hibench-dimension-accuracy'])));
    // the ladder trace with one sample opened
    const sample = page.locator('details.sample').first();
    await sample.locator('summary').click();
    await page.locator('details.sample[data-rendered]').first().waitFor({ timeout: 10_000 });
    written.push(await shot(page, 'report-trace.png', await unionBox(page, ['#trace-tools', 'section.run-trace']), 760));

    const hasView = spawnSync(process.execPath, [BIN, 'view', '--help'], { encoding: 'utf8' }).status === 0;
    if (!hasView) {
      console.log('hpt-bench view is not in the built CLI: no viewer screenshots (build it, then run this again)');
    } else {
      viewer = startViewer(store, dir);
      const base = await viewer.url;
      const vp = await browser.newPage({ viewport: VIEWPORT });
      await vp.goto(`${base.replace(/\/$/, '')}/#/`);
      await vp.locator('a[href^="#/run/"]').first().waitFor({ timeout: 20_000 });
      await vp.waitForTimeout(500);
      written.push(await shot(vp, 'view-runs.png', { x: 0, y: 0, width: VIEWPORT.width, height: VIEWPORT.height }, VIEWPORT.height));
      const runHref = await vp.locator('a[href^="#/run/"]').first().getAttribute('href');
      await vp.goto(`${base.replace(/\/$/, '')}/${runHref}`);
      await vp.waitForLoadState('networkidle');
      await vp.waitForTimeout(1500);
      written.push(await shot(vp, 'view-run.png', { x: 0, y: 0, width: VIEWPORT.width, height: VIEWPORT.height }, VIEWPORT.height));
    }
  } finally {
    if (viewer) viewer.child.kill('SIGTERM');
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
  let tooLarge = 0;
  for (const p of written) {
    const kb = statSync(p).size / 1024;
    if (kb * 1024 > MAX_BYTES) tooLarge++;
    console.log(`${p.slice(ROOT.length + 1)}  ${kb.toFixed(0)} KB${kb * 1024 > MAX_BYTES ? '  (over 300 KB)' : ''}`);
  }
  if (tooLarge) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
