// hpt-bench view: the viewer's page (issue 29). An ES module using preact + htm from the server's /vendor routes, no
// build step. Pages by hash route (links to share): #/?model=&dataset=&ladder=&status= (runs), #/run/ID (a run, its
// tables and samples), #/run/ID/sample/INDEX (a sample's ladder trace), #/run/ID/sid/SAMPLE_ID (the first sample with
// that id), #/compare/A/B (two runs compared). All stored text is rendered by preact as text nodes (no innerHTML, no
// dangerouslySetInnerHTML anywhere), so model output that looks like markup shows as text.
import { h, render } from '/vendor/preact.mjs';
import { useEffect, useState } from '/vendor/hooks.mjs';
import htm from '/vendor/htm.mjs';

const html = htm.bind(h);
const enc = encodeURIComponent;

/** GET `url` as JSON; an error answer throws its `error` message. */
async function getJson(url) {
  const r = await fetch(url, { headers: { accept: 'application/json' } });
  const body = await r.json().catch(() => ({ error: `${r.status} ${r.statusText}` }));
  if (!r.ok) throw new Error(body.error || `${r.status} ${r.statusText}`);
  return body;
}

/** `{ data, error }` of GET `url` (refetched when `url` or `tick` changes). */
function useJson(url, tick = 0) {
  const [state, setState] = useState({ data: null, error: null, url: null });
  useEffect(() => {
    let live = true;
    if (!url) return undefined;
    getJson(url).then(
      (data) => live && setState({ data, error: null, url }),
      (e) => live && setState({ data: null, error: String(e.message || e), url }),
    );
    return () => {
      live = false;
    };
  }, [url, tick]);
  return state;
}

function parseRoute(hash) {
  const raw = hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  const path = q === -1 ? raw : raw.slice(0, q);
  const query = new URLSearchParams(q === -1 ? '' : raw.slice(q + 1));
  const parts = path.split('/').filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  return { parts, query };
}

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const f = () => setHash(location.hash);
    addEventListener('hashchange', f);
    return () => removeEventListener('hashchange', f);
  }, []);
  return hash;
}

const fmt = (v, d = 3) => (v === null || v === undefined || Number.isNaN(v) ? '-' : typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(d)) : String(v));
const pct = (v) => (v === null || v === undefined ? '-' : `${(v * 100).toFixed(1)}%`);
const ci = (c, d = 3) => (c ? html` <span class="ci">[${c[0].toFixed(d)}, ${c[1].toFixed(d)}]</span>` : null);
const jsonText = (v) => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 1));
const runHref = (id) => `#/run/${enc(id)}`;
const sampleHref = (id, index) => `#/run/${enc(id)}/sample/${index}`;

function duration(s) {
  if (s === null || s === undefined) return 'unknown';
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

function ErrorNote({ error }) {
  return html`<p class="error" role="alert">${error}</p>`;
}

function Loading() {
  return html`<p class="note">Loading…</p>`;
}

// ---- runs list ---------------------------------------------------------------------------------------------------

const FILTERS = ['model', 'dataset', 'ladder', 'status'];

function RunsList({ query }) {
  const filters = {};
  for (const k of FILTERS) if (query.get(k)) filters[k] = query.get(k);
  const qs = new URLSearchParams(filters).toString();
  const [tick, setTick] = useState(0);
  const { data, error } = useJson(`/api/runs${qs ? `?${qs}` : ''}`, tick);
  const [picked, setPicked] = useState([]);
  const running = data?.runs.some((r) => r.status === 'running');
  useEffect(() => {
    if (!running) return undefined;
    const t = setTimeout(() => setTick((n) => n + 1), 2000);
    return () => clearTimeout(t);
  }, [running, tick]);
  useEffect(() => {
    if (data) document.getElementById('store-label').textContent = `store ${data.store}`;
  }, [data]);
  const setFilter = (k, v) => {
    const next = { ...filters, [k]: v };
    if (!v) delete next[k];
    const s = new URLSearchParams(next).toString();
    location.hash = `#/${s ? `?${s}` : ''}`;
  };
  const toggle = (id) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p.slice(-1), id]));
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!data) return html`<${Loading} />`;
  return html`<section id="runs-page">
    <h2>Runs</h2>
    <div class="filters" id="run-filters">
      ${FILTERS.map(
        (k) => html`<label>${k}<select name=${k} value=${filters[k] ?? ''} onChange=${(e) => setFilter(k, e.currentTarget.value)}>
          <option value="">any</option>
          ${data.facets[k].map((v) => html`<option value=${v}>${v || '(none)'}</option>`)}
        </select></label>`,
      )}
      <span class="note" id="runs-count">${data.runs.length} of ${data.total} run(s)</span>
      <button id="compare-picked" disabled=${picked.length !== 2} onClick=${() => (location.hash = `#/compare/${enc(picked[0])}/${enc(picked[1])}`)}>Compare the 2 picked runs</button>
    </div>
    <div class="scroll"><table id="runs">
      <thead><tr><th>pick</th><th>run</th><th>status</th><th>model</th><th>dataset</th><th>ladder</th><th>mode</th><th class="num">done</th><th class="num">errored</th><th class="num">HPI</th><th class="num">accuracy</th><th>created</th></tr></thead>
      <tbody>
        ${data.runs.map(
          (r) => html`<tr key=${r.id} data-run=${r.id} data-status=${r.status}>
            <td><input type="checkbox" aria-label=${`pick ${r.id}`} checked=${picked.includes(r.id)} onChange=${() => toggle(r.id)} /></td>
            <td class="sid"><a href=${runHref(r.id)}>${r.id}</a></td>
            <td class=${`status-${r.status}`}>${r.status}</td>
            <td>${r.model}</td><td>${r.dataset}</td><td title=${r.levels.join(', ')}>${r.ladder || '-'}</td><td>${r.mode}</td>
            <td class="num">${r.done}</td><td class="num">${r.errored}</td><td class="num">${fmt(r.hpi)}</td><td class="num">${pct(r.accuracy)}</td>
            <td>${r.createdAt.replace('T', ' ').slice(0, 19)}</td>
          </tr>`,
        )}
      </tbody>
    </table></div>
    ${data.runs.length === 0 ? html`<p class="note">No run matches these filters.</p>` : null}
  </section>`;
}

// ---- run page ----------------------------------------------------------------------------------------------------

function ReportTableView({ t }) {
  return html`<section class="table" id=${`table-${t.id}`}>
    <h3>${t.title}</h3>
    ${t.source ? html`<p class="source">Layout: ${t.source}</p>` : null}
    <div class="scroll"><table>
      <thead><tr>${t.columns.map((c) => html`<th class=${c.numeric ? 'num' : ''}>${c.label}</th>`)}</tr></thead>
      <tbody>${t.rows.map((r) => html`<tr>${r.map((cell, j) => html`<td class=${t.columns[j]?.numeric ? 'num' : ''} title=${cell.title}>${cell.text}${cell.ci ? html` <span class="ci">${cell.ci}</span>` : null}</td>`)}</tr>`)}</tbody>
    </table></div>
    ${t.notes.map((n) => html`<p class="note">${n}</p>`)}
  </section>`;
}

/** A running run's counters, live from the server's event stream (`/api/runs/ID/events`). */
function LiveProgress({ id, initial, onEnd }) {
  const [p, setP] = useState(initial);
  const [state, setState] = useState('connecting');
  useEffect(() => {
    const es = new EventSource(`/api/runs/${enc(id)}/events`);
    es.addEventListener('open', () => setState('live'));
    es.addEventListener('progress', (ev) => setP(JSON.parse(ev.data)));
    es.addEventListener('end', () => {
      setState('ended');
      es.close();
      onEnd?.();
    });
    es.addEventListener('failure', (ev) => setState(`failed: ${JSON.parse(ev.data).error}`));
    es.addEventListener('error', () => setState((s) => (s === 'ended' ? s : 'reconnecting')));
    return () => es.close();
  }, [id]);
  const share = p.total ? Math.min(1, (p.done + p.errored) / p.total) : null;
  return html`<div class="progress" id="progress" data-done=${p.done} data-errored=${p.errored} data-status=${p.status} data-stream=${state}>
    <strong>${p.status === 'running' ? 'Running' : p.status}</strong> <span class="note">(${state})</span>
    ${share !== null ? html`<div class="bar"><div style=${{ width: `${(share * 100).toFixed(1)}%` }}></div></div>` : null}
    ${p.status === 'running' && p.alive === false ? html`<p class="note" id="progress-stale">No process is executing this run any more (no recent heartbeat): it was interrupted. <code>hpt-bench run --resume ${p.id}</code> continues it.</p>` : null}
    <div><span id="progress-done">${p.done}</span> sample(s) done${p.total ? ` of ${p.total}` : ''} · HPI so far <span id="progress-hpi">${fmt(p.hpi)}</span> · accuracy ${pct(p.accuracy)} · errored <span id="progress-errored">${p.errored}</span> · ${p.rate ? `${p.rate.toFixed(2)} samples/s` : 'rate unknown'} · ETA ${p.status === 'running' ? duration(p.etaSeconds) : '-'}</div>
  </div>`;
}

function UsageTable({ usage }) {
  if (!usage.length) return html`<p class="note">No call recorded yet.</p>`;
  const reasoning = usage.some((u) => u.reasoningTokens);
  return html`<div class="scroll"><table id="live-usage">
    <thead><tr><th>level</th><th>model</th><th>cached</th><th class="num">calls</th><th class="num">prompt tokens</th><th class="num">completion tokens</th>${reasoning ? html`<th class="num">reasoning tokens</th>` : null}</tr></thead>
    <tbody>${usage.map((u) => html`<tr><td>L${u.level}</td><td>${u.model}</td><td>${u.cached ? 'yes' : 'no'}</td><td class="num">${u.calls}</td><td class="num">${u.promptTokens}</td><td class="num">${u.completionTokens}</td>${reasoning ? html`<td class="num">${u.reasoningTokens ?? 0}</td>` : null}</tr>`)}</tbody>
  </table></div>`;
}

const PAGE = 50;

function SamplesBrowser({ id, tick }) {
  const [offset, setOffset] = useState(0);
  const [outcome, setOutcome] = useState('');
  const [q, setQ] = useState('');
  const params = new URLSearchParams({ offset: String(offset), limit: String(PAGE) });
  if (outcome) params.set('outcome', outcome);
  if (q) params.set('q', q);
  const { data, error } = useJson(`/api/runs/${enc(id)}/samples?${params}`, tick);
  return html`<section id="samples-browser">
    <h2>Samples</h2>
    <div class="filters">
      <label>outcome<select name="outcome" value=${outcome} onChange=${(e) => (setOutcome(e.currentTarget.value), setOffset(0))}>
        <option value="">any</option><option value="solved">solved</option><option value="unsolved">unsolved</option><option value="errored">errored</option>
      </select></label>
      <label>sample id contains<input type="search" name="q" value=${q} onInput=${(e) => (setQ(e.currentTarget.value), setOffset(0))} /></label>
    </div>
    ${error ? html`<${ErrorNote} error=${error} />` : !data ? html`<${Loading} />` : html`
      <div class="pager"><button disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>previous</button>
        <span class="note" id="samples-range">${data.total ? `${offset + 1}–${offset + data.samples.length} of ${data.total}` : 'no sample'}</span>
        <button disabled=${offset + PAGE >= data.total} onClick=${() => setOffset(offset + PAGE)}>next</button></div>
      <div class="scroll"><table id="samples">
        <thead><tr><th class="num">#</th><th>sample</th><th>outcome</th><th class="num">HPI</th><th class="num">attempts</th></tr></thead>
        <tbody>${data.samples.map(
          (s) => html`<tr key=${s.index} data-index=${s.index}>
            <td class="num">${s.index}</td>
            <td class="sid"><a href=${sampleHref(id, s.index)}>${s.sampleId}</a></td>
            <td class=${s.status === 'errored' ? 'bad' : s.solved > 0 ? 'good' : 'bad'}>${s.status === 'errored' ? `errored: ${s.error ?? ''}` : s.solved > 0 ? `solved at L${s.level}` : 'unsolved'}</td>
            <td class="num">${s.status === 'errored' ? '-' : fmt(s.hpi / (s.scores || 1))}</td>
            <td class="num">${s.attempts}</td>
          </tr>`,
        )}</tbody>
      </table></div>`}
  </section>`;
}

/** A completed run's charts, as the static report draws them: SVG served by the viewer, shown as images. */
function RunCharts({ id, tick }) {
  const { data, error } = useJson(`/api/runs/${enc(id)}/charts`, tick);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!data || data.runId !== id) return html`<${Loading} />`;
  if (!data.charts.length) return null;
  return html`<h2>Charts</h2><div class="charts" id="run-charts">${data.charts.map(
    (c) => html`<figure class="chart" data-chart=${c.id}><h3>${c.title}</h3><img src=${c.src} alt=${c.title} /><figcaption class="note">${c.caption}</figcaption></figure>`,
  )}</div>`;
}

function RunPage({ id }) {
  const [tick, setTick] = useState(0);
  const { data, error } = useJson(`/api/runs/${enc(id)}`, tick);
  if (error) return html`<div class="crumbs"><a href="#/">Runs</a></div><${ErrorNote} error=${error} />`;
  if (!data || data.run.id !== id) return html`<${Loading} />`;
  const r = data.run;
  return html`<section id="run-page" data-run=${r.id} data-status=${r.status}>
    <div class="crumbs"><a href="#/">Runs</a> › <span class="sid">${r.id}</span></div>
    <h2>${r.model} × ${r.dataset} <span class="rid">${r.id}</span></h2>
    <table class="kv"><tbody>
      <tr><td>status</td><td class=${`status-${r.status}`}>${r.status}${r.error ? ` (${r.error})` : ''}</td></tr>
      <tr><td>ladder</td><td>${r.ladder || '-'}: ${r.levels.map((l, i) => `L${i + 1} ${l}`).join(' · ')}</td></tr>
      <tr><td>mode</td><td>${r.mode}</td></tr>
      <tr><td>created / updated</td><td>${r.createdAt} / ${r.updatedAt}</td></tr>
      ${r.owner ? html`<tr><td>process</td><td>${r.owner} (heartbeat ${r.heartbeatAt ?? '-'})</td></tr>` : null}
      <tr><td>samples</td><td>${r.done} done, ${r.errored} errored · HPI ${fmt(r.hpi ?? data.progress.hpi)} · accuracy ${pct(r.accuracy ?? data.progress.accuracy)}</td></tr>
    </tbody></table>
    ${r.status === 'running' ? html`<${LiveProgress} id=${r.id} initial=${data.progress} onEnd=${() => setTick((n) => n + 1)} />` : null}
    <h2>Tables</h2>
    ${data.tablesError ? html`<p class="note" id="tables-note">${data.tablesError}</p>` : null}
    ${data.tables.map((t) => html`<${ReportTableView} t=${t} />`)}
    ${data.tables.length === 0 ? html`<h3>Calls and tokens per level (so far)</h3><${UsageTable} usage=${data.usage} />` : null}
    ${r.status === 'completed' ? html`<${RunCharts} id=${r.id} tick=${tick} />` : null}
    <${SamplesBrowser} id=${r.id} tick=${tick} />
  </section>`;
}

// ---- sample trace ------------------------------------------------------------------------------------------------

function Extraction({ a }) {
  const x = a.extraction;
  if (!x) return null;
  const by = x.by ? ` · by ${x.by}` : '';
  if (!x.span) return html`<div class="rule">rule ${x.rule}${by} · no answer read</div>`;
  const text = a.graded?.completion ?? '';
  const [s, e] = x.span;
  const from = Math.max(0, s - 80);
  const to = Math.min(text.length, e + 40);
  return html`<div class="rule">rule ${x.rule}${by} · read from <code>${from > 0 ? '…' : ''}${text.slice(from, s)}<mark>${text.slice(s, e)}</mark>${text.slice(e, to)}${to < text.length ? '…' : ''}</code></div>`;
}

function Call({ c }) {
  const u = c.usage;
  return html`<div class="call">
    <div class="callhead">call ${c.seq} · ${c.purpose} · ${c.model} · ${u.promptTokens}+${u.completionTokens} tokens${u.reasoningTokens ? ` (${u.reasoningTokens} reasoning)` : ''} · ${Math.round(c.latencyMs)} ms${c.cached ? ' · cached' : ''}${c.truncatedThinking ? ' · truncated while thinking (no answer)' : ''}</div>
    <details class="prompt" open><summary>prompt (${c.messages.length} message${c.messages.length === 1 ? '' : 's'})</summary>
      ${c.messages.map((m) => html`<div class="msg"><span class="role">${m.role}</span><pre>${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}</pre></div>`)}
    </details>
    <div class="resp"><span class="role">response</span><pre class="reply">${c.output}</pre></div>
    ${c.reasoning ? html`<details class="thinking"><summary>thinking (${c.reasoning.length} characters; never scored)</summary><pre>${c.reasoning}</pre></details>` : null}
  </div>`;
}

function SampleView({ id, index }) {
  const { data, error } = useJson(`/api/runs/${enc(id)}/samples/${index}`);
  const crumbs = html`<div class="crumbs"><a href="#/">Runs</a> › <a href=${runHref(id)} class="sid">${id}</a> › sample ${index}
    · <a href=${sampleHref(id, Math.max(0, index - 1))}>previous</a> · <a href=${sampleHref(id, index + 1)}>next</a></div>`;
  if (error) return html`${crumbs}<${ErrorNote} error=${error} />`;
  if (!data || data.index !== index || data.runId !== id) return html`${crumbs}<${Loading} />`;
  const s = data.sample;
  if (!s) return html`${crumbs}<section id="sample"><p class="bad">errored: ${data.error}</p></section>`;
  const outcome = s.level !== null && s.solved ? `solved at L${s.level}${data.ladder[s.level - 1] ? ` (${data.ladder[s.level - 1]})` : ''}` : 'unsolved';
  return html`${crumbs}<section id="sample" data-sample=${s.sampleId}>
    <h2><span class="sid">${s.sampleId}</span> <span class=${s.solved ? 'good' : 'bad'}>${outcome}</span> <span class="rid">HPI ${fmt(s.hpi)}</span></h2>
    <dl class="kv"><dt>target</dt><dd><pre>${jsonText(s.target)}</pre></dd><dt>prediction</dt><dd><pre>${jsonText(s.prediction)}</pre></dd>
      ${s.iteration !== undefined ? html`<dt>iteration</dt><dd>${s.iteration}</dd>` : null}
      ${s.meta ? html`<dt>meta</dt><dd><pre>${JSON.stringify(s.meta)}</pre></dd>` : null}</dl>
    ${s.selections?.length
      ? html`<h5>Selector</h5><table class="sel"><thead><tr><th>iteration</th><th>level</th><th>valid</th><th>solved</th><th>selector reply</th></tr></thead>
        <tbody>${s.selections.map((x) => html`<tr><td>${x.iteration}</td><td>${x.level ?? '-'}</td><td>${x.valid ? 'yes' : 'no (iteration consumed)'}</td><td>${x.solved === undefined ? '-' : x.solved ? '✓' : '✗'}</td><td><pre>${x.raw ?? ''}</pre></td></tr>`)}</tbody></table>`
      : null}
    ${s.attempts.map(
      (a) => html`<div class=${`attempt ${a.solved ? 'ok' : 'fail'}`} data-level=${a.level}>
        <h5>L${a.level} · ${a.strategy}${a.iteration !== undefined ? ` · iteration ${a.iteration}` : ''} · ${a.solved ? '✓ solved' : '✗ not solved'} · score ${String(a.score)} · extracted <code>${jsonText(a.extracted)}</code></h5>
        <${Extraction} a=${a} />
        ${a.calls.map((c) => html`<${Call} c=${c} />`)}
      </div>`,
    )}
  </section>`;
}

/** `#/run/ID/sid/SAMPLE_ID`: find the sample's index and show it. */
function SampleById({ id, sampleId }) {
  const { data, error } = useJson(`/api/runs/${enc(id)}/samples?limit=1&sampleId=${enc(sampleId)}`);
  useEffect(() => {
    if (data?.samples.length) location.replace(sampleHref(id, data.samples[0].index));
  }, [data]);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (data && !data.samples.length) return html`<${ErrorNote} error=${`run ${id} has no sample ${sampleId}`} />`;
  return html`<${Loading} />`;
}

// ---- comparison --------------------------------------------------------------------------------------------------

function ComparePicker() {
  const { data, error } = useJson('/api/runs?status=completed');
  const [a, setA] = useState('');
  const [b, setB] = useState('');
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!data) return html`<${Loading} />`;
  const opts = data.runs.map((r) => html`<option value=${r.id}>${r.id} · ${r.model} × ${r.dataset}</option>`);
  return html`<section id="compare-picker"><h2>Compare two runs</h2><div class="filters">
    <label>A<select name="a" value=${a} onChange=${(e) => setA(e.currentTarget.value)}><option value="">choose</option>${opts}</select></label>
    <label>B<select name="b" value=${b} onChange=${(e) => setB(e.currentTarget.value)}><option value="">choose</option>${opts}</select></label>
    <button disabled=${!a || !b || a === b} onClick=${() => (location.hash = `#/compare/${enc(a)}/${enc(b)}`)}>Compare</button>
  </div></section>`;
}

function SampleList({ title, list, a, b, id }) {
  return html`<section id=${id}><h3>${title} (${list.length})</h3>${list.length === 0 ? html`<p class="note">None.</p>` : html`<div class="scroll"><table>
    <thead><tr><th>sample</th><th>A level</th><th>B level</th><th>trace</th></tr></thead>
    <tbody>${list.slice(0, 500).map((s) => html`<tr><td class="sid">${s.sampleId}${s.replicate !== undefined ? ` (replicate ${s.replicate})` : ''}</td><td>${s.levelA ?? 'unsolved'}</td><td>${s.levelB ?? 'unsolved'}</td>
      <td><a href=${`#/run/${enc(a)}/sid/${enc(s.sampleId)}`}>A</a> · <a href=${`#/run/${enc(b)}/sid/${enc(s.sampleId)}`}>B</a></td></tr>`)}</tbody>
  </table></div>${list.length > 500 ? html`<p class="note">The first 500 of ${list.length}.</p>` : null}`}</section>`;
}

/**
 * A transition cell's shade, as the static report's heatmap: the larger the count, the darker (set through the DOM's
 * style object, which the page's Content-Security-Policy allows; no inline style markup).
 */
function heat(n, max) {
  return n ? { backgroundColor: `rgba(37, 99, 235, ${(0.1 + 0.6 * (n / max)).toFixed(3)})` } : {};
}

function CompareView({ a, b, force }) {
  const { data, error } = useJson(`/api/compare/${enc(a)}/${enc(b)}${force ? '?force=1' : ''}`);
  const crumbs = html`<div class="crumbs"><a href="#/">Runs</a> › compare <a class="sid" href=${runHref(a)}>${a}</a> with <a class="sid" href=${runHref(b)}>${b}</a></div>`;
  if (error) return html`${crumbs}<${ErrorNote} error=${error} />${/differ/.test(error) && !force ? html`<p><a href=${`#/compare/${enc(a)}/${enc(b)}?force=1`}>Compare anyway</a></p>` : null}`;
  if (!data || data.a.runId !== a || data.b.runId !== b) return html`${crumbs}<${Loading} />`;
  const t = data.tests;
  const tr = data.transitions;
  const mc = t.accuracy.mcnemar;
  const maxCount = Math.max(1, ...tr.counts.flat());
  return html`${crumbs}<section id="compare">
    <h2>A − B on ${data.paired} paired sample(s)</h2>
    <div class="scroll"><table id="compare-sides"><thead><tr><th></th><th>run</th><th>model</th><th>dataset</th><th class="num">HPI (paired)</th><th class="num">accuracy (paired)</th><th class="num">samples</th></tr></thead><tbody>
      ${[['A', data.a], ['B', data.b]].map(([k, s]) => html`<tr><td>${k}</td><td class="sid"><a href=${runHref(s.runId)}>${s.runId}</a></td><td>${s.model}</td><td>${s.dataset}</td><td class="num">${fmt(s.hpi)}</td><td class="num">${pct(s.accuracy)}</td><td class="num">${s.samples}</td></tr>`)}
    </tbody></table></div>
    <p>HPI difference <strong id="hpi-diff">${fmt(data.hpiDiff)}</strong>${ci(data.hpiDiffCi95)} (negative: A needed lower levels) · accuracy difference <strong>${fmt(data.accuracyDiff)}</strong>${ci(data.accuracyDiffCi95)} · only in A ${data.onlyA}, only in B ${data.onlyB}, unscored ${data.unscored}</p>
    ${data.differences?.length ? html`<p class="note">The runs differ in: ${data.differences.map((d) => d.field ?? JSON.stringify(d)).join(', ')}</p>` : null}
    <h3>Paired tests</h3>
    <div class="scroll"><table id="compare-tests"><thead><tr><th>measure</th><th>test</th><th class="num">estimate</th><th class="num">p</th><th class="num">p (Holm)</th><th>notes</th></tr></thead><tbody>
      <tr><td>HPI</td><td>sign-flip permutation${t.hpi.permutation.exact ? ' (exact)' : ''}</td><td class="num">${fmt(t.hpi.effect.meanDiff)}</td><td class="num">${fmt(t.hpi.permutation.p, 4)}</td><td class="num">${fmt(t.hpi.permutation.pHolm, 4)}</td><td>d_z ${fmt(t.hpi.effect.dz)}, sd ${fmt(t.hpi.effect.sdDiff)}${t.hpi.clustered ? `, clustered 95% [${t.hpi.clustered.ci95[0].toFixed(3)}, ${t.hpi.clustered.ci95[1].toFixed(3)}]` : ''}</td></tr>
      <tr><td>accuracy</td><td>McNemar (exact)</td><td class="num">${mc ? `${mc.b} vs ${mc.c}` : '-'}</td><td class="num">${mc ? fmt(mc.p, 4) : '-'}</td><td class="num">${mc ? fmt(mc.pHolm, 4) : '-'}</td><td>${mc ? `b: solved by A only, c: by B only` : t.accuracy.mcnemarNote ?? ''}</td></tr>
      <tr><td>accuracy</td><td>sign-flip permutation</td><td class="num">${fmt(t.accuracy.permutation.meanDiff)}</td><td class="num">${fmt(t.accuracy.permutation.p, 4)}</td><td class="num">${fmt(t.accuracy.permutation.pHolm, 4)}</td><td>${t.samples} sample(s), ${t.units} unit(s)</td></tr>
    </tbody></table></div>
    <h3>Level transitions (rows: A, columns: B; darker: more samples)</h3>
    <div class="scroll"><table id="compare-transitions"><thead><tr><th>A \\ B</th>${tr.columns.map((c) => html`<th class="num">${c}</th>`)}</tr></thead>
      <tbody>${tr.rows.map((row, i) => html`<tr><th>${row}</th>${tr.counts[i].map((n) => html`<td class="num heat" style=${heat(n, maxCount)}>${n}</td>`)}</tr>`)}</tbody></table></div>
    <p class="note">fixed ${tr.totals.fixed} · broken ${tr.totals.broken} · improved ${tr.totals.improved} · worse ${tr.totals.worse} · same level ${tr.totals.sameLevel} · both unsolved ${tr.totals.bothUnsolved}</p>
    <${SampleList} id="compare-fixed" title="Fixed: B solves, A does not" list=${data.fixed} a=${a} b=${b} />
    <${SampleList} id="compare-broken" title="Broken: A solves, B does not" list=${data.broken} a=${a} b=${b} />
  </section>`;
}

// ---- router ------------------------------------------------------------------------------------------------------

function App() {
  const hash = useHash();
  const { parts, query } = parseRoute(hash);
  if (parts[0] === 'run' && parts[1]) {
    if (parts[2] === 'sample' && parts[3] !== undefined && /^\d+$/.test(parts[3])) return html`<${SampleView} key=${hash} id=${parts[1]} index=${Number(parts[3])} />`;
    if (parts[2] === 'sid' && parts[3] !== undefined) return html`<${SampleById} key=${hash} id=${parts[1]} sampleId=${parts[3]} />`;
    return html`<${RunPage} key=${parts[1]} id=${parts[1]} />`;
  }
  if (parts[0] === 'compare') return parts[1] && parts[2] ? html`<${CompareView} key=${hash} a=${parts[1]} b=${parts[2]} force=${query.get('force') === '1'} />` : html`<${ComparePicker} />`;
  return html`<${RunsList} query=${query} />`;
}

render(html`<${App} />`, document.getElementById('app'));
