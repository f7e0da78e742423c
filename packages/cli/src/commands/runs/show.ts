import * as Args from '@oclif/core/args';
import { HptError, parseFingerprint, RunStore, type Json, type RunFingerprint, storeExists, storeLabel } from '@hpt-bench/core';
import { HptCommand, TerminalTable } from '../../base.js';
import { ladderCell, ladderListing, type RunListing, workerListing } from '../runs.js';
import { storeFlag } from '../../store-flag.js';

/** One run as `hpt-bench runs show --json` prints it: its `runs --json` listing plus its mode, figures, batches and fingerprint. */
export interface RunDetails extends RunListing {
  mode: string;
  /** the summary's figures, for completed runs (null otherwise) */
  accuracy: number | null;
  n: number | null;
  /** what the run was made with; null for a run recorded before fingerprints were */
  fingerprint: RunFingerprint | null;
  /**
   * the batches `run --batch` submitted for the run, in submission order: the provider's batch id (`file:<input file
   * id>` while its creation was interrupted), the round of the invocation that submitted it, model id, state
   * (`StoredBatchState`), number of requests, and ISO-8601 times of submission and of the end of polling
   */
  batches: { id: string; round: number; model: string; state: string; requests: number; submittedAt: string; finishedAt: string | null }[];
}

/** `hpt-bench runs show <id>`: one run's state, summary figures, workers, batches and fingerprint. */
export default class RunsShow extends HptCommand {
  static override summary = "Show one run: its state, summary figures, workers, batches (run --batch) and fingerprint (versions of hpt-bench and the plugins, data hash, prompt hashes, settings).";
  static override description = `The fingerprint is recorded when the run is created (a resumed run keeps it): the hpt-bench version, each plugin the run used with its version, the data's source and content hash, the hash of every level's prompt, the models and endpoints (without credentials), generation settings, seed, compat, filters, limit, replicates and HPI_Dataset. Runs made before fingerprints were recorded have none.`;
  static override examples = ['<%= config.bin %> runs show 20261121T093000-1a2b3c', '<%= config.bin %> runs show 20261121T093000-1a2b3c --store results.db --json'];
  static override args = {
    runId: Args.string({ description: 'the run id (see `hpt-bench runs`)', required: true }),
  };
  static override flags = {
    store: storeFlag(),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(RunsShow);
    if (!storeExists(flags.store)) throw new HptError('E_CONFIG', `no store at ${storeLabel(flags.store)}; give --store FILE or URL (the store \`hpt-bench run --store\` wrote)`);
    const store = new RunStore(flags.store, { readonly: true });
    let details: RunDetails;
    try {
      const r = store.getRun(args.runId);
      if (!r) throw new HptError('E_UNKNOWN_ID', `no run ${args.runId} in ${storeLabel(flags.store)}; see \`hpt-bench runs --store ${storeLabel(flags.store)}\``);
      const c = store.sampleCounts().get(r.id) ?? { done: 0, errored: 0 };
      const s = (r.summary ?? {}) as Record<string, Json>;
      const num = (v: Json | undefined) => (typeof v === 'number' ? v : null);
      details = {
        runId: r.id, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt, dataset: r.dataset, model: r.model, mode: r.mode, ...ladderListing(r),
        done: c.done, errored: c.errored, hpi: num(s.hpi), accuracy: num(s.accuracy), n: num(s.n), error: r.error, fingerprint: parseFingerprint(r.fingerprint),
        workers: store.listWorkers(r.id).map(workerListing),
        batches: store.batchesOfRun(r.id).map((b) => ({ id: b.id, round: b.round, model: b.model, state: b.state, requests: b.customIds.length, submittedAt: b.submittedAt, finishedAt: b.finishedAt })),
      };
    } finally {
      store.close();
    }
    if (flags.json) {
      this.printJson(details);
      return;
    }
    this.log(renderRunDetails(details));
  }
}

/** A fingerprint value for a table cell: strings as they are, null as `-`, others as JSON. */
function cell(v: Json | undefined): string {
  if (v === null || v === undefined) return '-';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The run's state and figures, then its fingerprint (plugins, prompts and settings), as aligned tables. */
export function renderRunDetails(d: RunDetails): string {
  const state = new TerminalTable({ head: ['run', d.runId] });
  state.push(['status', d.status], ['dataset', d.dataset], ['model', d.model], ['mode', d.mode], ['ladder', ladderCell(d)], ['created', d.createdAt], ['updated', d.updatedAt]);
  state.push(['samples done / errored', `${d.done} / ${d.errored}`]);
  if (d.hpi !== null) state.push(['HPI (lower is better)', d.hpi.toFixed(3)]);
  if (d.accuracy !== null) state.push(['accuracy', `${(100 * d.accuracy).toFixed(2)}%`]);
  if (d.error) state.push(['error', d.error]);
  const out = [state.toString()];
  if (d.workers.length) {
    const w = new TerminalTable({ head: ['worker', 'state', 'samples', 'blocks claimed', 'last seen'] });
    for (const x of d.workers) w.push([x.worker, x.state, String(x.samples), String(x.claims), x.heartbeatAt]);
    out.push(w.toString());
  }
  if (d.batches.length) {
    const b = new TerminalTable({ head: ['batch', 'round', 'model', 'state', 'requests', 'submitted', 'finished'] });
    for (const x of d.batches) b.push([x.id, String(x.round), x.model, x.state, String(x.requests), x.submittedAt, x.finishedAt ?? '-']);
    out.push(b.toString());
  }
  const f = d.fingerprint;
  if (!f) {
    out.push(`run ${d.runId} has no fingerprint: it was made before hpt-bench recorded fingerprints`);
    return out.join('\n');
  }
  const settings = new TerminalTable({ head: ['fingerprint', 'value'] });
  settings.push(
    ['hpt-bench', f.hptBench],
    ['data source', cell(f.data?.source)],
    ['data split', cell(f.data?.split)],
    ['data content hash', cell(f.data?.contentHash)],
    ['ladder', `${cell(f.ladder)} (${(f.ladderLevels ?? []).join(', ')})`],
    ['model', cell(f.model)],
    ['knowledge model', cell(f.knowledgeModel)],
    ['selector', cell(f.selector)],
    ['mode', cell(f.mode)],
    ['endpoints', f.endpoints?.length ? f.endpoints.join(', ') : '-'],
    ['generation', f.generation ? `temperature ${f.generation.temperature}, top-p ${f.generation.topP}, max tokens ${f.generation.maxTokens}, seed ${cell(f.generation.seed)}` : '-'],
    ['seed', cell(f.seed)],
    ['compat', cell(f.compat)],
    ['filters', cell(f.filters)],
    ['limit', cell(f.limit)],
    ['replicates', cell(f.replicates)],
    ['HPI_Dataset', cell(f.hpiDataset)],
    ['threshold', cell(f.threshold)],
    ['scorer options', f.scorerOptions && Object.keys(f.scorerOptions).length ? cell(f.scorerOptions) : '-'],
  );
  out.push(settings.toString());
  const plugins = new TerminalTable({ head: ['plugin', 'version', 'origin', 'used for'] });
  for (const p of f.plugins ?? []) plugins.push([p.name, p.version, p.origin, p.uses.join(', ')]);
  out.push(plugins.toString());
  const prompts = new TerminalTable({ head: ['level', 'strategy', 'prompt hash'] });
  (f.ladderLevels ?? Object.keys(f.prompts ?? {})).forEach((sid, i) => prompts.push([String(i + 1), sid, cell(f.prompts?.[sid])]));
  out.push(prompts.toString());
  return out.join('\n');
}
