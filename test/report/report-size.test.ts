/**
 * Issue 16, "the HTML report stays small": a 20-run store (20 × 100 generated HiBench samples climbing the ladder with
 * baseline:random, so every sample has several attempts with prompts and responses) gives a page of a few MB that
 * headless Chromium loads quickly, because the trace bodies are compressed data rendered only when a sample is opened.
 * Prints the page size and the load time (navigation until the load event and the next frame).
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const CHROMIUM = '/usr/bin/chromium';
const RUNS = 20;
const SAMPLES = 100;

describe('html report size on a 20-run store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hpt-report-size-'));
  const store = join(dir, 'store.db');

  beforeAll(async () => {
    for (let i = 1; i <= RUNS; i++) {
      const r = await runCli(['run', '--dataset', 'hibench/binary-tree', '--limit', String(SAMPLES), '--model', 'baseline:random', '--seed', String(i), '--store', store, '--json']);
      if (r.code !== 0) throw new Error(`run ${i} failed: ${r.stderr}`);
    }
  }, 600_000);

  it('stays under 5 MB and loads in headless Chromium in under 4 s (figures printed); opened samples render', async () => {
    const out = join(dir, 'report.html');
    const started = performance.now();
    // the runs differ only in --seed, so they are one comparability group: --all reports every one of them
    const r = await runCli(['report', '--all', '--store', store, '--out', out]);
    expect(r.code).toBe(0);
    const generateMs = performance.now() - started;
    const bytes = statSync(out).size;
    const html = readFileSync(out, 'utf8');
    expect((html.match(/<details class="sample"/g) ?? []).length).toBe(RUNS * SAMPLES); // every sample has its row
    expect((html.match(/<script type="application\/octet-stream" id="trace-\d+">/g) ?? []).length).toBe(RUNS);

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(String(e)));
      const t0 = performance.now();
      await page.goto(pathToFileURL(out).href, { waitUntil: 'load' });
      await page.evaluate(() => new Promise<void>((done) => (globalThis as unknown as { requestAnimationFrame(cb: () => void): number }).requestAnimationFrame(() => done())));
      const loadMs = performance.now() - t0;
      process.stderr.write(`[report html size] ${RUNS} runs x ${SAMPLES} samples: ${(bytes / 1e6).toFixed(2)} MB, generated in ${generateMs.toFixed(0)} ms, Chromium load + first frame ${loadMs.toFixed(0)} ms\n`);
      expect(bytes).toBeLessThan(5_000_000);
      expect(loadMs).toBeLessThan(4000);

      // the last run's last sample opens with its attempts, prompts and responses
      const last = page.locator('details.sample').last();
      await last.locator('summary').click();
      await page.waitForSelector('details.sample[data-rendered]');
      expect(await last.locator('.attempt').count()).toBeGreaterThan(0);
      expect(await last.locator('.resp pre').count()).toBeGreaterThan(0);
      expect(await page.textContent('#trace-count')).toBe(`${RUNS * SAMPLES} samples`);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
