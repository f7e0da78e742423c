/**
 * `hpt-bench view` (issue 29) in headless Chromium: the viewer's page over a temp store made by the built CLI — the
 * runs list and its filters, a run page with the report tables and the sample browser, a sample's trace, a comparison
 * of two runs picked in the list, hostile completions shown as inert text, and the live counter of a run that another
 * `hpt-bench run` process writes into the same store while a scripted OpenAI-compatible server answers slowly.
 * No console error or page error is allowed anywhere. Skipped when /usr/bin/chromium is missing.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '@hpt-bench/core';
import { createViewServer, type ListeningView } from '../../packages/cli/src/view/server.js';
import { runCli, startCli } from '../helpers/cli.js';
import { startOpenAIServer, type TestServer } from '../helpers/openai-server.js';

/** The page's document as the functions evaluated in Chromium use it (the tests' TypeScript has no DOM library). */
declare const document: {
  querySelector(selector: string): { textContent: string | null; getAttribute(name: string): string | null } | null;
  querySelectorAll(selector: string): ArrayLike<unknown> & Iterable<unknown>;
};

const CHROMIUM = '/usr/bin/chromium';
const HOSTILE = 'True <img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let dir: string;
let storePath: string;
let store: RunStore;
let view: ListeningView;
let hostileServer: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];
const ids: Record<'random' | 'oracle' | 'hostile', string> = { random: '', oracle: '', hostile: '' };

/** A BoolQ data file of `n` questions (answers alternate, or all true: one call per sample for a model saying True). */
function boolqData(name: string, n: number, allTrue = false): string {
  const file = join(dir, name);
  writeFileSync(file, `${Array.from({ length: n }, (_, i) => JSON.stringify({ question: `is question ${i} true`, passage: `passage ${i}`, answer: allTrue || i % 2 === 0 })).join('\n')}\n`);
  return file;
}

describe.skipIf(!existsSync(CHROMIUM))('hpt-bench view in Chromium', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hpt-view-ui-'));
    storePath = join(dir, 's.db');
    const ok = (r: { code: number | null; stdout: string; stderr: string }) => {
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { runId: string }).runId;
    };
    ids.random = ok(await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--store', storePath, '--json']));
    ids.oracle = ok(await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:oracle', '--store', storePath, '--json']));
    hostileServer = await startOpenAIServer(() => ({ text: HOSTILE, reasoning: { field: 'reasoning_content', text: 'thinking <img src=y onerror="window.__xss=3">' }, reasoningTokens: 3 }));
    ids.hostile = ok(await runCli(['run', '--dataset', 'boolq', '--data', boolqData('h.jsonl', 3), '--model', 'openai:hostile', '--base-url', hostileServer.url, '--store', storePath, '--json'], { env: { OPENAI_API_KEY: 'sk-test' } }));
    store = new RunStore(storePath, { readonly: true });
    view = await createViewServer({ store, label: storePath, resamples: 200, pollMs: 100 }).listen(0);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
  });

  afterAll(async () => {
    await browser?.close();
    await view?.close();
    store?.close();
    await hostileServer?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists the runs and filters them (the filter is in the URL)', async () => {
    await page.goto(view.url);
    await page.waitForSelector('#runs tbody tr');
    expect(await page.locator('#runs tbody tr').count()).toBe(3);
    await page.selectOption('select[name=model]', 'baseline:oracle');
    await page.waitForFunction(() => document.querySelectorAll('#runs tbody tr').length === 1);
    expect(await page.locator('#runs tbody tr').getAttribute('data-run')).toBe(ids.oracle);
    expect(page.url()).toContain('model=baseline%3Aoracle');
    // the filtered list is a link of its own
    await page.goto(`${view.url}#/?model=baseline%3Arandom`);
    await page.waitForFunction((id) => document.querySelectorAll('#runs tbody tr').length === 1 && document.querySelector('#runs tbody tr')?.getAttribute('data-run') === id, ids.random);
    expect(await page.textContent('#store-label')).toContain(storePath);
  });

  it('opens a run: its tables and its samples, then a sample\'s ladder trace', async () => {
    await page.goto(`${view.url}#/`);
    await page.waitForFunction(() => document.querySelectorAll('#runs tbody tr').length === 3);
    await page.click(`#runs tr[data-run="${ids.random}"] a`);
    await page.waitForSelector('#run-page #table-runs');
    expect(await page.locator('#table-usage').count()).toBe(1);
    expect(await page.textContent('#run-page h2')).toContain('baseline:random');
    await page.waitForSelector('#samples tbody tr');
    expect(await page.locator('#samples tbody tr').count()).toBe(8);
    expect(await page.textContent('#samples-range')).toBe('1–8 of 8');
    await page.click('#samples tbody tr[data-index="2"] a');
    await page.waitForSelector('#sample .attempt');
    expect(page.url()).toContain(`#/run/${ids.random}/sample/2`);
    const attempt = page.locator('#sample .attempt').first();
    expect(await attempt.locator('h5').textContent()).toMatch(/^L1 · role · /);
    expect(await attempt.locator('.rule').count()).toBe(1);
    expect(await attempt.locator('details.prompt pre').count()).toBeGreaterThan(0);
    // the outcome filter of the sample browser
    await page.goto(`${view.url}#/run/${ids.random}`);
    await page.waitForSelector('#samples tbody tr');
    // the run's charts, as the static report draws them, shown as images the page loaded
    await page.waitForSelector('#run-charts img');
    const charts = await page.$$eval('#run-charts figure', (fs) => fs.map((f) => f.getAttribute('data-chart')));
    expect(charts).toContain('levels');
    // every chart image loaded and decoded (an image the CSP refused, or a broken SVG, has no natural width)
    await page.waitForFunction(() => [...document.querySelectorAll('#run-charts img')].every((i) => (i as { complete: boolean }).complete && (i as { naturalWidth: number }).naturalWidth > 0));
    await page.selectOption('select[name=outcome]', 'unsolved');
    await page.waitForFunction(() => /of \d+$|no sample/.test(document.querySelector('#samples-range')?.textContent ?? '') && !/of 8$/.test(document.querySelector('#samples-range')?.textContent ?? ''));
  });

  it('shows hostile completions and reasoning as text that never runs', async () => {
    await page.goto(`${view.url}#/run/${ids.hostile}/sample/0`);
    await page.waitForSelector('#sample .attempt .reply');
    expect(await page.locator('#sample .reply').first().textContent()).toBe(HOSTILE);
    expect(await page.locator('#sample img').count()).toBe(0);
    expect(await page.locator('#sample script').count()).toBe(0);
    await page.locator('#sample details.thinking summary').first().click();
    expect(await page.locator('#sample details.thinking pre').first().textContent()).toContain('<img src=y');
    expect(await page.locator('#sample .callhead').first().textContent()).toContain('(3 reasoning)');
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
    // the run page's usage table has the reasoning tokens
    await page.goto(`${view.url}#/run/${ids.hostile}`);
    await page.waitForSelector('#table-usage');
    expect(await page.textContent('#table-usage thead')).toMatch(/reasoning/i);
  });

  it('compares two runs picked in the list, with links to the samples', async () => {
    await page.goto(`${view.url}#/`);
    await page.waitForFunction(() => document.querySelectorAll('#runs tbody tr').length === 3);
    await page.check(`#runs tr[data-run="${ids.oracle}"] input[type=checkbox]`);
    await page.check(`#runs tr[data-run="${ids.random}"] input[type=checkbox]`);
    await page.click('#compare-picked');
    await page.waitForSelector('#compare-transitions');
    expect(page.url()).toContain(`#/compare/${ids.oracle}/${ids.random}`);
    const api = (await (await fetch(new URL(`/api/compare/${ids.oracle}/${ids.random}`, view.url))).json()) as { hpiDiff: number; paired: number };
    expect(await page.textContent('#hpi-diff')).toBe(api.hpiDiff.toFixed(3));
    expect(await page.textContent('#compare h2')).toContain(`${api.paired} paired`);
    expect(await page.locator('#compare-tests tbody tr').count()).toBe(3);
    // the transition table is a heatmap: cells with samples are shaded (through the DOM's style, under the CSP)
    const shades = await page.$$eval('#compare-transitions td.heat', (tds) => tds.map((td) => [td.textContent, (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(td).backgroundColor]));
    expect(shades.length).toBeGreaterThan(0);
    for (const [n, bg] of shades) expect(bg === 'rgba(0, 0, 0, 0)', `cell ${n}: ${bg}`).toBe(n === '0');
    // a deep link to a sample by id resolves to its index
    await page.goto(`${view.url}#/run/${ids.random}/sid/3`);
    await page.waitForSelector('#sample[data-sample="3"]');
    expect(page.url()).toMatch(/#\/run\/[^/]+\/sample\/\d+$/);
  });

  it('follows a running run written by another process: the counter advances live, then the tables come', async () => {
    const slow = await startOpenAIServer(() => ({ text: 'True', delayMs: 150 }));
    try {
      const cli = startCli(['run', '--dataset', 'boolq', '--data', boolqData('live.jsonl', 20, true), '--limit', '20', '--model', 'openai:slow', '--base-url', slow.url, '--store', storePath, '--concurrency', '1', '--json'], { env: { OPENAI_API_KEY: 'sk-test' } });
      let runId: string | undefined;
      for (let i = 0; i < 200 && !runId; i++) {
        const list = (await (await fetch(new URL('/api/runs?status=running', view.url))).json()) as { runs: { id: string }[] };
        runId = list.runs[0]?.id;
        if (!runId) await new Promise((r) => setTimeout(r, 50));
      }
      expect(runId).toBeDefined();
      await page.goto(`${view.url}#/run/${runId}`);
      await page.waitForSelector('#progress[data-stream="live"]');
      const first = Number(await page.getAttribute('#progress', 'data-done'));
      await page.waitForFunction((n) => Number(document.querySelector('#progress')?.getAttribute('data-done')) > n, first, { timeout: 15_000 });
      const later = Number(await page.getAttribute('#progress', 'data-done'));
      expect(later).toBeGreaterThan(first);
      // --limit gives the total: a share done and an ETA
      expect(await page.textContent('#progress')).toMatch(/\d+ sample\(s\) done of 20 · HPI so far \d[\d.]* · accuracy [\d.]+% · errored 0 · [\d.]+ samples\/s · ETA \d/);
      expect(await page.locator('#progress .bar').count()).toBe(1);
      // the run ends: the stream says so and the page shows the completed run's tables
      await page.waitForSelector('#run-page[data-status="completed"] #table-runs', { timeout: 30_000 });
      const done = await cli.done;
      expect(done.code, done.stderr).toBe(0);
    } finally {
      await slow.close();
    }
  });

  it('logged no console error and no page error', () => {
    expect(errors).toEqual([]);
  });
});
