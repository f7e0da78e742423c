import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertValid, type Contribution, HptError, jsonErrorReason, type PromptPack, readJsonText, type Sample } from '@hpt-bench/sdk';
import type { Registry } from '../plugins/registry.js';
import { GRADED_SYSTEM_PROMPT } from './assemble.js';

/**
 * The generic prompt pack (packages/core/packs/generic.json; DESIGN.md "Prompt packs"): the five HPF levels for a dataset
 * whose manifest names no pack (e.g. every generated dataset). It reads the sample input fields `question` (required),
 * `format`, `format_cot`, `exemplars` and `system`.
 */
export const GENERIC_PACK_PATH = fileURLToPath(new URL('../../packs/generic.json', import.meta.url));

/**
 * Defaults of the generic pack's optional input fields: no answer-format sentence, a plain step-by-step cue, no
 * exemplars, and HPT's graded system prompt.
 */
export const GENERIC_INPUT_DEFAULTS: Readonly<Record<string, string>> = {
  format: '',
  format_cot: "Let's think step by step.",
  exemplars: '',
  system: GRADED_SYSTEM_PROMPT,
};

/**
 * A sample with the generic pack's optional fields filled by `GENERIC_INPUT_DEFAULTS` where the dataset gives none.
 * @throws HptError `E_DATA` when the sample has no `question` field, naming the sample.
 */
export function withGenericInput(sample: Sample): Sample {
  if (typeof sample.input.question !== 'string') {
    throw new HptError('E_DATA', `sample ${sample.id}: the generic prompt pack needs an input field 'question' (the dataset names no prompt pack)`);
  }
  return { ...sample, input: { ...GENERIC_INPUT_DEFAULTS, ...sample.input } };
}

const packs = new Map<string, PromptPack>();

/**
 * Load and validate a prompt pack file (schemas/prompt-pack.schema.json), cached by path. A leading UTF-8 byte order
 * mark is ignored.
 * @throws HptError `E_PACK` naming the file and the failing field (a file that is not JSON: the reason without quoting
 *   the file); also when a chain's last step cue differs from the pack cue or a step's `pred` does not name an earlier
 *   step.
 */
export function loadPromptPack(path: string, defaults: Partial<PromptPack> = {}): PromptPack {
  const cached = packs.get(path);
  if (cached) return cached;
  let raw: unknown;
  try {
    raw = JSON.parse(readJsonText(path));
  } catch (e) {
    const reason = e instanceof SyntaxError ? jsonErrorReason(e) : ((e as NodeJS.ErrnoException).code ?? (e as Error).message);
    throw new HptError('E_PACK', `cannot read prompt pack ${path}: ${reason}`);
  }
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) raw = { ...defaults, ...(raw as object) };
  const pack = assertValid<PromptPack>('prompt-pack', raw, `prompt pack ${path}`, 'E_PACK');
  for (const [id, entry] of Object.entries(pack.strategies)) {
    entry.steps?.forEach((s, i) => {
      if (s.pred !== null && s.pred > i) throw new HptError('E_PACK', `prompt pack ${path}: ${id} step ${i + 1} takes {pred} from step ${s.pred}, which is not an earlier step`);
    });
  }
  packs.set(path, pack);
  return pack;
}

/** Placeholders a template reads: every `{name}` (one-pass substitution, specs/hpt.md §0). */
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The prompt pack a run of dataset `dc` uses: its own (`promptPack`, else the generic pack) plus the entries of every
 * `packs` contribution of `registry` that names this dataset (by plain id, qualified id or alias), in discovery order.
 * An addition file is a prompt pack whose `id` and `cue` may be omitted; only its `strategies` are merged. The result
 * is a new object (the cached packs are not changed).
 * @throws HptError `E_PACK` when an addition has an entry for a strategy the pack already has (naming the dataset's
 *   plugin, or the earlier addition's, and the adding plugin), or when an addition file is not a valid pack.
 */
export function datasetPack(dc: Contribution<'datasets'>, registry?: Registry): PromptPack {
  const decl = dc.decl;
  const base = loadPromptPack(decl.promptPack ? join(dc.plugin.root, decl.promptPack) : GENERIC_PACK_PATH);
  const additions = registry ? packAdditions(registry, dc) : [];
  if (additions.length === 0) return base;
  const strategies = { ...base.strategies };
  const baseOwner = decl.promptPack ? `plugin ${dc.plugin.name} (dataset ${dc.id})` : `the generic pack of @hpt-bench/core (dataset ${dc.id} of plugin ${dc.plugin.name} names no pack)`;
  const owner = new Map<string, string>(Object.keys(strategies).map((k) => [k, baseOwner]));
  for (const a of additions) {
    const file = join(a.plugin.root, a.decl.promptPack);
    const add = loadPromptPack(file, { id: `${a.qualifiedId} additions`, cue: base.cue });
    for (const [sid, entry] of Object.entries(add.strategies)) {
      const had = owner.get(sid);
      if (had) throw new HptError('E_PACK', `plugin ${a.plugin.name} adds a '${sid}' entry to the prompt pack of dataset ${dc.id}, which ${had} already provides; remove one of them`);
      owner.set(sid, `plugin ${a.plugin.name} (packs ${a.decl.promptPack})`);
      strategies[sid] = entry;
    }
  }
  return { ...base, strategies };
}

/** The `packs` contributions of `registry` that extend dataset `dc` (by any of its names), in discovery order. */
export function packAdditions(registry: Registry, dc: Contribution<'datasets'>): Contribution<'packs'>[] {
  const names = new Set([dc.id, dc.qualifiedId, ...(dc.decl.aliases ?? [])]);
  return registry.list('packs').filter((p) => {
    if (!names.has(p.decl.dataset)) return false;
    // a plain id another dataset also answers to is ambiguous: the registry says so
    return registry.get('datasets', p.decl.dataset) === dc;
  });
}

/**
 * The placeholders dataset `dc`'s samples provide to prompt templates, sorted: the input fields a declarative dataset
 * maps (`fields`, `optionalFields`), the generic pack's input fields when it has no pack, and every `{name}` the
 * templates of its pack (with additions) read, except `{pred}` (a chain step's earlier completion, filled by the
 * strategy). For `hpt-bench list datasets`.
 */
export function packPlaceholders(dc: Contribution<'datasets'>, registry?: Registry): string[] {
  const names = new Set<string>([...Object.keys(dc.decl.fields ?? {}), ...Object.keys(dc.decl.optionalFields ?? {})]);
  if (!dc.decl.promptPack) for (const k of ['question', ...Object.keys(GENERIC_INPUT_DEFAULTS)]) names.add(k);
  const pack = datasetPack(dc, registry);
  const texts = [pack.system ?? '', pack.task ?? ''];
  for (const e of Object.values(pack.strategies)) texts.push(e.template ?? '', e.knowledge ?? '', ...(e.steps ?? []).map((st) => st.template));
  for (const t of texts) for (const m of t.matchAll(PLACEHOLDER)) names.add(m[1]!);
  names.delete('pred');
  return [...names].sort();
}
