/**
 * The HTML report (`report --format html`): ONE self-contained file — inline CSS, inline SVG charts rendered in Node
 * (`charts.ts`), one small inline script (the trace filter and lazy trace bodies), a Content-Security-Policy that forbids
 * every network load, and no external fonts, scripts, styles or images. All stored text (model output, prompts, ids) is
 * HTML-escaped in the markup; the trace bodies (prompts, responses) are gzip + base64 data blocks per run that the script
 * turns into DOM nodes with text nodes only when a sample is opened, so the page stays a few MB for thousands of samples.
 */
import type { AttemptRecord, Json, ReportData, ReportTable, RunStore, SampleResult } from '@hpt-bench/core';
import { formatCell, reportTables, ReportViews, shortRunIds } from '@hpt-bench/core';
import { gzipSync } from 'node:zlib';
import { REPORT_STYLE } from './style.js';
import { MAX_TRANSITION_PAIRS, reportCharts, transitionCharts, uniqueRunLabels, type Chart, type DifferentDataPair } from './charts.js';

/** Options of `renderHtmlReport`. */
export interface HtmlOptions {
  /** samples per run in the ladder trace (default 500; 0: no trace) */
  traceLimit?: number;
  /** characters of one stored text (a message, an output) shown before it is cut (default 8,000) */
  maxTextChars?: number;
  /**
   * characters of trace in the whole page (the rows' markup, and each run's compressed bodies once the run is packed)
   * before further samples are left out (default 8,000,000)
   */
  traceBudget?: number;
  /** when the report was made (default: now) */
  generatedAt?: Date;
  /** the plugins' report views (paper tables, labels, computed charts); default: none (generic tables and charts only) */
  views?: ReportViews;
  /** `report --ladder L1,L3,L5`: also the HPI of that ladder from full-ladder verdicts (`reportTables` option) */
  ladder?: readonly number[];
}

/** Escape text for HTML element content and quoted attribute values (`& < > " '`). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;'));
}

const esc = escapeHtml;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… [${text.length - max} more characters not shown]`;
}

function jsonText(v: Json | undefined): string {
  if (v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v, null, 1);
}

/**
 * One table as an HTML section (heading, layout source, table, notes). The cells of a `runId` column show the short
 * run id (`shortRunIds` over the column) with the full id as the cell's `title` (shown on hover), on one line.
 */
export function tableHtml(t: ReportTable): string {
  const numeric = t.columns.map((_, j) => t.rows.some((r) => typeof r[j]?.value === 'number'));
  const short = t.columns.map((c, j) => (c.runId ? shortRunIds(t.rows.map((r) => r[j]?.value).filter((v): v is string => typeof v === 'string')) : null));
  const head = t.columns.map((c, j) => `<th${numeric[j] ? ' class="num"' : ''}>${esc(c.label)}</th>`).join('');
  const body = t.rows
    .map(
      (r) =>
        `<tr>${t.columns
          .map((c, j) => {
            const cell = r[j] ?? { value: null };
            const id = short[j] && typeof cell.value === 'string' ? cell.value : null;
            if (id !== null) return `<td class="runid" title="${esc(id)}">${esc(short[j]!.get(id) ?? id)}</td>`;
            const text = formatCell({ value: cell.value }, c);
            const ci = c.ci && cell.ci && cell.value !== null ? ` <span class="ci">[${esc(cell.ci[0].toFixed(c.digits ?? 3))}, ${esc(cell.ci[1].toFixed(c.digits ?? 3))}]</span>` : '';
            return `<td${numeric[j] ? ' class="num"' : ''}>${esc(text)}${ci}</td>`;
          })
          .join('')}</tr>`,
    )
    .join('\n');
  const notes = t.notes.map((n) => `<p class="note">${esc(n)}</p>`).join('');
  return `<section class="table" id="table-${esc(t.id)}"><h3>${esc(t.title)}</h3>${t.source ? `<p class="source">Layout: ${esc(t.source)}</p>` : ''}<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>${notes}</section>`;
}

function chartHtml(c: Chart): string {
  const body = c.svg ? `<div class="svg">${c.svg}</div>` : `<p class="note">${esc(c.note ?? 'Nothing to show.')}</p>`;
  return `<figure class="chart" id="chart-${esc(c.id)}"><h3>${esc(c.title)}</h3>${body}${c.caption ? `<figcaption>${esc(c.caption)}</figcaption>` : ''}</figure>`;
}

/** The user message of a sample's first call (its first level's prompt), or ''. */
function firstPrompt(s: SampleResult): string {
  const call = s.attempts[0]?.calls.at(-1);
  const user = call?.messages.filter((m) => m.role === 'user').at(-1)?.content;
  return typeof user === 'string' ? user : '';
}

/** The longest common prefix of `texts` (cut back to a word boundary), '' for fewer than two texts. */
export function commonPrefix(texts: readonly string[]): string {
  if (texts.length < 2) return '';
  let end = texts[0]!.length;
  for (const t of texts) {
    let i = 0;
    while (i < end && i < t.length && t.charCodeAt(i) === texts[0]!.charCodeAt(i)) i++;
    end = i;
  }
  const prefix = texts[0]!.slice(0, end);
  if (end === texts[0]!.length && texts.every((t) => t.length === end)) return ''; // all the same text: nothing to strip
  const cut = prefix.search(/\s\S*$/);
  return cut === -1 ? '' : prefix.slice(0, cut + 1);
}

/**
 * The first words of a sample's question for its trace row: the first prompt without the text every sample of the run
 * starts with (the level's template), about 12 words on one line.
 */
export function questionStart(prompt: string, prefix: string): string {
  const rest = (prompt.startsWith(prefix) ? prompt.slice(prefix.length) : prompt).replace(/\s+/g, ' ').trim();
  const words = rest.split(' ');
  return words.length > 12 ? `${words.slice(0, 12).join(' ')} …` : rest;
}

/**
 * One element of a sample's trace body as stored in the page: `[tag, class, ...children]`, children being text or
 * elements. The page's script builds the DOM from it with `createElement` / `textContent` only (tags from a fixed list,
 * no attributes but the class), so stored text can never become markup.
 */
export type TraceNode = string | TraceElement;
/** A trace element: tag, class, then its children. */
export interface TraceElement extends Array<string | TraceElement> {
  0: string;
  1: string;
}

function el(tag: string, cls: string, ...children: TraceNode[]): TraceNode {
  return [tag, cls, ...children];
}

/**
 * How an attempt's answer was read (issue #23), for auditing the extraction: the rule that fired (and the extractor
 * model, when one read it) and the completion around the span it read, the span marked; "no answer read" when no rule
 * fired. Null for attempts without an extraction record (reference mode, older stores, scorers that do not tell).
 */
function extractionNode(a: AttemptRecord): TraceNode | null {
  const x = a.extraction;
  if (!x) return null;
  const by = x.by ? ` · by ${x.by}` : '';
  if (!x.span) return el('div', 'rule', `rule ${x.rule}${by} · no answer read`);
  const text = a.graded.completion;
  const [s, e] = x.span;
  const from = Math.max(0, s - 80);
  const to = Math.min(text.length, e + 40);
  return el('div', 'rule', `rule ${x.rule}${by} · read from `, el('code', '', `${from > 0 ? '…' : ''}${text.slice(from, s)}`, el('mark', '', text.slice(s, e)), `${text.slice(e, to)}${to < text.length ? '…' : ''}`));
}

/** The body of a sample's trace entry (target, prediction, selector choices, every attempt's calls) as trace nodes. */
export function sampleBody(s: SampleResult, max: number): TraceNode[] {
  const parts: TraceNode[] = [];
  const kv: TraceNode[] = [el('dt', '', 'target'), el('dd', '', el('pre', '', clip(jsonText(s.target), max))), el('dt', '', 'prediction'), el('dd', '', el('pre', '', clip(jsonText(s.prediction), max)))];
  if (s.iteration !== undefined) kv.push(el('dt', '', 'iteration'), el('dd', '', String(s.iteration)));
  parts.push(el('dl', 'kv', ...kv));
  if (s.selections?.length) {
    const head = el('thead', '', el('tr', '', ...['iteration', 'level', 'valid', 'solved', 'selector reply'].map((h) => el('th', '', h))));
    const rows = s.selections.map((x) =>
      el('tr', '', el('td', '', String(x.iteration)), el('td', '', String(x.level ?? '-')), el('td', '', x.valid ? 'yes' : 'no (iteration consumed)'), el('td', '', x.solved === undefined ? '-' : x.solved ? '✓' : '✗'), el('td', '', el('pre', '', clip(x.raw ?? '', max)))),
    );
    parts.push(el('h5', '', 'Selector'), el('table', 'sel', head, el('tbody', '', ...rows)));
  }
  for (const a of s.attempts) {
    const calls = a.calls.map((c) => {
      const msgs = c.messages.map((m) => el('div', 'msg', el('span', 'role', String(m.role)), el('pre', '', clip(typeof m.content === 'string' ? m.content : JSON.stringify(m.content), max))));
      return el(
        'div',
        'call',
        el('div', 'callhead', `call ${c.seq} · ${c.purpose} · ${c.model} · ${c.usage.promptTokens}+${c.usage.completionTokens} tokens${c.usage.reasoningTokens ? ` (${c.usage.reasoningTokens} reasoning)` : ''} · ${Math.round(c.latencyMs)} ms${c.cached ? ' · cached' : ''}${c.truncatedThinking ? ' · truncated while thinking (no answer)' : ''}`),
        el('details', 'prompt', el('summary', '', `prompt (${c.messages.length} message${c.messages.length === 1 ? '' : 's'})`), ...msgs),
        el('div', 'resp', el('span', 'role', 'response'), el('pre', '', clip(c.output, max))),
        ...(c.reasoning ? [el('details', 'thinking', el('summary', '', `thinking (${c.reasoning.length} characters; never scored)`), el('pre', '', clip(c.reasoning, max)))] : []),
      );
    });
    const head = `L${a.level} · ${a.strategy}${a.iteration !== undefined ? ` · iteration ${a.iteration}` : ''} · ${a.solved ? '✓ solved' : '✗ not solved'} · score ${String(a.score)} · extracted `;
    const rule = extractionNode(a);
    parts.push(el('div', `attempt ${a.solved ? 'ok' : 'fail'}`, el('h5', '', head, el('code', '', clip(jsonText(a.extracted), 400))), ...(rule ? [rule] : []), ...calls));
  }
  return parts;
}

/**
 * A sample's trace row: the server-rendered summary (id, question start, outcome, HPI, tags) of a collapsed
 * `<details class="sample">` whose body the page's script renders from run block `run` entry `index` when it is opened.
 */
function sampleHtml(s: SampleResult, ladder: string[], run: number, index: number, question = ''): string {
  const outcome = s.level !== null && s.solved ? `solved at L${s.level}${ladder[s.level - 1] ? ` (${ladder[s.level - 1]})` : ''}` : 'unsolved';
  const meta = s.meta ?? {};
  const tags = ['scenario', 'task', 'preset', 'representation', 'icl', 'semantics', 'replicate']
    .filter((k) => meta[k] !== undefined && meta[k] !== null)
    .map((k) => `<span class="tag">${esc(k)}: ${esc(String(meta[k]))}</span>`)
    .join('');
  const q = question ? ` <span class="q">${esc(question)}</span>` : '';
  return `<details class="sample" data-t="${run}" data-i="${index}"><summary><span class="sid">${esc(s.sampleId)}</span>${q} <span class="${s.solved ? 'good' : 'bad'}">${esc(outcome)}</span> · HPI ${esc(String(Math.round(s.hpi * 1000) / 1000))} · ${s.attempts.length} attempt(s) ${tags}</summary></details>`;
}

/**
 * The bodies of a run's trace entries as page data: the JSON array gzip-compressed (level 9) and base64-encoded, so it
 * holds only `[A-Za-z0-9+/=]` and can sit in a non-executable `<script type="application/octet-stream">` block. A body
 * may be given already as its JSON text.
 */
export function packTraceBodies(bodies: readonly (TraceNode[] | string)[]): string {
  const json = `[${bodies.map((b) => (typeof b === 'string' ? b : JSON.stringify(b))).join(',')}]`;
  return gzipSync(Buffer.from(json, 'utf8'), { level: 9 }).toString('base64');
}

function traceHtml(data: ReportData, store: RunStore, labels: Map<string, string>, options: Required<Pick<HtmlOptions, 'traceLimit' | 'maxTextChars' | 'traceBudget'>>): string {
  if (options.traceLimit === 0) return '<p class="note">The trace is off (--trace-limit 0).</p>';
  let used = 0;
  const out: string[] = [];
  for (const [n, r] of data.runs.entries()) {
    const total = data.units.get(r.runId)?.length ?? 0;
    const samples: string[] = [];
    const bodies: string[] = [];
    let budgetHit = false;
    const picked: SampleResult[] = [];
    for (const s of store.iterSamples(r.runId)) {
      if (picked.length >= options.traceLimit) break;
      picked.push(s);
    }
    // each row names its question by its first words (data without ids shows indices only), after the template text
    // every sample of the run starts with
    const prefix = commonPrefix(picked.slice(0, 50).map(firstPrompt));
    for (const s of picked) {
      if (used > options.traceBudget) {
        budgetHit = true;
        break;
      }
      const h = sampleHtml(s, r.ladder, n, samples.length, questionStart(firstPrompt(s), prefix));
      const body = JSON.stringify(sampleBody(s, options.maxTextChars));
      used += h.length;
      samples.push(h);
      bodies.push(body);
    }
    const shown = samples.length;
    const why = shown < total ? ` (the first ${shown} of ${total}: ${budgetHit ? 'the page reached its size budget' : `the trace shows at most ${options.traceLimit} samples per run (--trace-limit)`})` : '';
    const packed = shown ? packTraceBodies(bodies) : '';
    used += packed.length;
    const block = shown ? `<script type="application/octet-stream" id="trace-${n}">${packed}</script>` : '';
    out.push(`<section class="run-trace" data-run="${esc(r.runId)}"><h3>${esc(labels.get(r.runId) ?? r.runId)} <span class="rid">${esc(r.runId)}</span></h3><p class="note">${shown} sample(s) shown${esc(why)}. Texts longer than ${options.maxTextChars} characters are cut.</p>${samples.join('\n')}${block}</section>`);
  }
  return out.join('\n');
}

/** Pairs of runs on different data named in the transition section's note, at most. */
const DIFFERENT_DATA_NAMED = 10;

/**
 * The level-transition section: one heatmap per pair of runs on the same data (`transitionCharts`), and a note naming
 * the pairs of runs of one dataset left out because their data differ (with the differing fields); nothing when no two
 * runs of the report share samples.
 */
function transitionsHtml(t: { charts: Chart[]; omitted: number; differentData: DifferentDataPair[] }): string {
  if (t.charts.length === 0 && t.differentData.length === 0) return '';
  const more = t.omitted ? ` ${t.omitted} further pair(s) are not drawn (at most ${MAX_TRANSITION_PAIRS}); name the runs to see theirs (<code>hpt-bench report A B --out report.html</code>).` : '';
  const d = t.differentData;
  const different = d.length
    ? `<p class="note" id="transitions-different-data">${d.length} pair(s) of runs on different data are left out (samples with equal ids are not the same samples there; <code>hpt-bench compare</code> refuses them without --force): ${esc(d.slice(0, DIFFERENT_DATA_NAMED).map((p) => `${p.a} and ${p.b} (${p.fields.join(', ')})`).join('; '))}${d.length > DIFFERENT_DATA_NAMED ? ` and ${d.length - DIFFERENT_DATA_NAMED} more` : ''}.</p>\n`
    : '';
  return `<h2 id="transitions">Level transitions</h2>
<p class="note">For pairs of runs on the same dataset and data (A before B in report order): how many paired samples A solved at each level (rows) and B at each level (columns), as <code>hpt-bench compare A B</code> counts them; cells off the diagonal are samples whose level changed.${more}</p>
${different}<div class="charts">
${t.charts.map(chartHtml).join('\n')}
</div>`;
}



/**
 * The page's one script. Trace bodies: each run's `#trace-<n>` block (gzip + base64 JSON, `packTraceBodies`) is
 * decompressed once with `DecompressionStream('gzip')` when one of its samples is first opened, and the sample's body is
 * built from its trace nodes with `createElement` / `createTextNode` only (never `innerHTML`). The filter hides samples
 * whose summary row does not contain the query (case-insensitive) and counts what is shown; with "#trace-deep" checked
 * it decompresses every run and searches the prompts and responses too. `body[data-trace-search]` is "ready" once
 * every body is searchable; an opened sample gets `data-rendered`.
 */
const SCRIPT = `
(function () {
  var input = document.getElementById('trace-filter');
  var deep = document.getElementById('trace-deep');
  var count = document.getElementById('trace-count');
  var samples = Array.prototype.slice.call(document.querySelectorAll('details.sample'));
  var TAGS = { div: 1, pre: 1, span: 1, h5: 1, dl: 1, dt: 1, dd: 1, table: 1, thead: 1, tbody: 1, tr: 1, th: 1, td: 1, details: 1, summary: 1, code: 1, mark: 1 };
  var pending = {};
  var loaded = {};
  function load(t) {
    if (!pending[t]) {
      var block = document.getElementById('trace-' + t);
      var bin = atob(block ? block.textContent.trim() : '');
      var bytes = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
      pending[t] = new Response(stream).text().then(function (text) { loaded[t] = JSON.parse(text); return loaded[t]; });
    }
    return pending[t];
  }
  function build(n) {
    if (typeof n === 'string') return document.createTextNode(n);
    var e = document.createElement(TAGS[n[0]] === 1 ? n[0] : 'div');
    if (n[1]) e.className = String(n[1]);
    for (var i = 2; i < n.length; i++) e.appendChild(build(n[i]));
    return e;
  }
  function flat(n) {
    if (typeof n === 'string') return n;
    var parts = [];
    for (var i = 2; i < n.length; i++) parts.push(flat(n[i]));
    return parts.join(' ');
  }
  // toggle does not bubble: one capturing listener for every sample
  document.addEventListener('toggle', function (ev) {
    var d = ev.target;
    if (!d.classList || !d.classList.contains('sample') || !d.open || d.hasAttribute('data-loading')) return;
    d.setAttribute('data-loading', '');
    load(d.getAttribute('data-t')).then(function (bodies) {
      var frag = document.createDocumentFragment();
      (bodies[Number(d.getAttribute('data-i'))] || []).forEach(function (n) { frag.appendChild(build(n)); });
      d.appendChild(frag);
      d.setAttribute('data-rendered', '');
    }).catch(function (err) {
      var p = document.createElement('p');
      p.className = 'note';
      p.textContent = 'This trace could not be read: ' + err;
      d.appendChild(p);
    });
  }, true);
  var heads = null;
  var bodies = null;
  var loadingAll = false;
  function loadAll() {
    if (bodies || loadingAll) return;
    loadingAll = true;
    var runs = {};
    samples.forEach(function (d) { runs[d.getAttribute('data-t')] = 1; });
    Promise.all(Object.keys(runs).map(load)).then(function () {
      bodies = samples.map(function (d) {
        var b = loaded[d.getAttribute('data-t')][Number(d.getAttribute('data-i'))] || [];
        return b.map(flat).join(' ').toLowerCase();
      });
      document.body.setAttribute('data-trace-search', 'ready');
      apply();
    });
  }
  function apply() {
    if (!heads) heads = samples.map(function (d) { return d.querySelector('summary').textContent.toLowerCase(); });
    if (deep.checked) loadAll();
    var q = input.value.trim().toLowerCase();
    var shown = 0;
    for (var i = 0; i < samples.length; i++) {
      var ok = !q || heads[i].indexOf(q) !== -1 || (deep.checked && bodies !== null && bodies[i].indexOf(q) !== -1);
      samples[i].classList.toggle('hidden', !ok);
      if (ok) shown++;
    }
    count.textContent = shown + ' of ' + samples.length + ' samples' + (deep.checked && !bodies ? ' (reading the traces…)' : '');
  }
  input.addEventListener('input', apply);
  deep.addEventListener('change', apply);
  count.textContent = samples.length + ' samples';
})();
`;

/**
 * The whole HTML report as one string: header, runs and usage tables, the paper tables, the charts (inline SVG), the
 * level-transition heatmaps of pairs of runs on the same dataset and data (`transitionCharts`, when there are any,
 * with a note naming the pairs left out for their different data) and the
 * per-sample ladder trace (`<details>` per sample, collapsed, filterable; the first `traceLimit` samples per run; each
 * run's bodies a compressed block rendered lazily).
 * Reads the trace from `store` (`RunStore.iterSamples`).
 */
export async function renderHtmlReport(data: ReportData, store: RunStore, options: HtmlOptions = {}): Promise<string> {
  const opts = { traceLimit: options.traceLimit ?? 500, maxTextChars: options.maxTextChars ?? 8000, traceBudget: options.traceBudget ?? 8_000_000 };
  const views = options.views ?? ReportViews.none;
  const labels = uniqueRunLabels(data.runs, views);
  const tables = reportTables(data, views, options.ladder ? { ladder: options.ladder } : {});
  const charts = await reportCharts(data, views);
  const transitions = await transitionCharts(data, labels);
  const b = data.bootstrap;
  const when = (options.generatedAt ?? new Date()).toISOString();
  const overview = tables.filter((t) => t.id === 'runs' || t.id === 'usage');
  const paper = tables.filter((t) => t.id !== 'runs' && t.id !== 'usage');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<link rel="icon" href="data:,">
<title>hpt-bench report</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<header><h1>hpt-bench report</h1><p>${data.runs.length} run(s) from ${esc(data.store)} · generated ${esc(when)} · intervals: bootstrap 95% percentile, B = ${b.resamples}, seed ${b.seed}${data.runs.some((r) => r.interval === 'clustered') ? '; runs with replicates: normal, clustered by sample (Miller 2024)' : ''}</p></header>
<nav><a href="#runs">Runs</a><a href="#tables">Tables</a><a href="#charts">Charts</a>${transitions.charts.length || transitions.differentData.length ? '<a href="#transitions">Level transitions</a>' : ''}<a href="#trace">Ladder trace</a></nav>
<main>
<h2 id="runs">Runs</h2>
${overview.map(tableHtml).join('\n')}
<h2 id="tables">Tables</h2>
${paper.length ? paper.map(tableHtml).join('\n') : '<p class="note">No paper-style table applies to these runs.</p>'}
<h2 id="charts">Charts</h2>
<div class="charts">
${charts.map(chartHtml).join('\n')}
</div>
${transitionsHtml(transitions)}
<h2 id="trace">Per-sample ladder trace</h2>
<p class="note">Every attempt of each sample: the level, its prompt messages, the model's response and the verdict. Adaptive runs also list the selector's choices. Click a sample to open it (its trace is stored compressed in this page and shown when opened).</p>
<div id="trace-tools"><input id="trace-filter" type="search" placeholder="Filter samples by id, question, outcome, tags…" aria-label="filter samples"> <label class="note"><input id="trace-deep" type="checkbox"> search prompts and responses too</label> <span id="trace-count" class="note"></span></div>
${traceHtml(data, store, labels, opts)}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
