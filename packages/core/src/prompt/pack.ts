import { join } from 'node:path';
import { assertValid, type Contribution, HptError, jsonErrorReason, type PromptPack, readJsonText, type Sample } from '@hpt-bench/sdk';
import { GENERIC_PACK_ID, type Registry } from '../plugins/registry.js';

/**
 * A sample ready for the generic pack (`pack`): the pack's `inputs` (values of optional input fields) filled in where
 * the sample's input has no such field. The dataset names no pack, so nothing guarantees that its records give the
 * fields the pack's templates read: every placeholder of the pack (except `{pred}`) that has no `inputs` value must be
 * in the sample's input.
 * @throws HptError `E_DATA` naming the sample and the first missing field.
 */
export function withGenericInput(sample: Sample, pack: PromptPack): Sample {
  for (const name of requiredInputs(pack)) {
    if (typeof sample.input[name] !== 'string') {
      throw new HptError('E_DATA', `sample ${sample.id}: the generic prompt pack needs an input field '${name}' (the dataset names no prompt pack)`);
    }
  }
  return pack.inputs ? { ...sample, input: { ...pack.inputs, ...sample.input } } : sample;
}

/** The placeholders of `pack` a sample must give: those its templates read, minus `{pred}` and the `inputs` defaults (cached per pack). */
const REQUIRED = new WeakMap<PromptPack, string[]>();
function requiredInputs(pack: PromptPack): string[] {
  let names = REQUIRED.get(pack);
  if (!names) {
    const found = new Set<string>();
    for (const t of packTemplates(pack)) for (const m of t.matchAll(PLACEHOLDER)) found.add(m[1]!);
    found.delete('pred');
    for (const k of Object.keys(pack.inputs ?? {})) found.delete(k);
    names = [...found].sort();
    REQUIRED.set(pack, names);
  }
  return names;
}

/** Every template text of a pack: `system`, `task`, and each entry's `template`, `knowledge` and step templates. */
function packTemplates(pack: PromptPack): string[] {
  const texts = [pack.system ?? '', pack.task ?? ''];
  for (const e of Object.values(pack.strategies)) texts.push(e.template ?? '', e.knowledge ?? '', ...(e.steps ?? []).map((st) => st.template));
  return texts;
}

const packs = new Map<string, PromptPack>();
const packFiles = new Map<string, unknown>();

/**
 * The parsed JSON of a prompt pack file, cached by path (a leading UTF-8 byte order mark is ignored).
 * @throws HptError `E_PACK` naming the file and the reason, without quoting the file, when it cannot be read or parsed.
 */
function readPackFile(path: string): unknown {
  if (packFiles.has(path)) return packFiles.get(path);
  let raw: unknown;
  try {
    raw = JSON.parse(readJsonText(path));
  } catch (e) {
    const reason = e instanceof SyntaxError ? jsonErrorReason(e) : ((e as NodeJS.ErrnoException).code ?? (e as Error).message);
    throw new HptError('E_PACK', `cannot read prompt pack ${path}: ${reason}`);
  }
  packFiles.set(path, raw);
  return raw;
}

/**
 * Load and validate a prompt pack file (schemas/prompt-pack.schema.json), cached by path and `defaults`. A leading
 * UTF-8 byte order mark is ignored. `defaults` fill top-level fields the file leaves out (e.g. the `id` and `cue` of an
 * addition file, which may omit them).
 * @throws HptError `E_PACK` naming the file and the failing field (a file that is not JSON: the reason without quoting
 *   the file); also when a step's `pred` does not name an earlier step.
 */
export function loadPromptPack(path: string, defaults: Partial<PromptPack> = {}): PromptPack {
  const key = Object.keys(defaults).length ? `${path}\0${JSON.stringify(defaults)}` : path;
  const cached = packs.get(key);
  if (cached) return cached;
  let raw = readPackFile(path);
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) raw = { ...defaults, ...(raw as object) };
  const pack = assertValid<PromptPack>('prompt-pack', raw, `prompt pack ${path}`, 'E_PACK');
  for (const [id, entry] of Object.entries(pack.strategies)) {
    entry.steps?.forEach((s, i) => {
      if (s.pred !== null && s.pred > i) throw new HptError('E_PACK', `prompt pack ${path}: ${id} step ${i + 1} takes {pred} from step ${s.pred}, which is not an earlier step`);
    });
  }
  packs.set(key, pack);
  return pack;
}

/** Defaults of a generic pack file's `id` and `cue` (it may omit them). */
const GENERIC_PACK_DEFAULTS: Partial<PromptPack> = { id: GENERIC_PACK_ID, cue: '' };

/** The `packs` contributions of `registry` that are (parts of) the generic pack (`generic: true`), in discovery order. */
export function genericPackContributions(registry: Registry): Contribution<'packs'>[] {
  return registry.list('packs').filter((p) => p.decl.generic === true);
}

/** How a message names the plugin and file of a `packs` contribution. */
const packOwner = (p: Contribution<'packs'>) => `plugin ${p.plugin.name} (packs ${p.decl.promptPack})`;

/** The pack-level fields of a generic pack that must agree when several plugins give one. */
const GENERIC_SHARED_FIELDS = ['cue', 'system', 'task'] as const;

/**
 * The generic pack with, per strategy id, the plugin and file that gave its entry (see `genericPack`).
 * @throws as `genericPack`.
 */
function mergedGenericPack(registry: Registry, forDataset?: Contribution<'datasets'>): { pack: PromptPack; owners: Map<string, Contribution<'packs'>> } {
  const parts = genericPackContributions(registry);
  if (parts.length === 0) {
    const who = forDataset ? `dataset ${forDataset.id} of plugin ${forDataset.plugin.name} names no prompt pack, and` : 'the generic prompt pack is needed, but';
    throw new HptError('E_PACK', `${who} no installed plugin contributes a generic prompt pack (a "packs" entry with "generic": true)`, {
      hint: forDataset ? 'install a plugin that contributes one (the built-in @hpt-bench/hpf-strategies does), or give the dataset a "promptPack"' : 'install a plugin that contributes one (the built-in @hpt-bench/hpf-strategies does)',
    });
  }
  const loaded = parts.map((c) => {
    const file = join(c.plugin.root, c.decl.promptPack);
    return { c, pack: loadPromptPack(file, GENERIC_PACK_DEFAULTS), raw: readPackFile(file) as Record<string, unknown> };
  });
  const first = loaded[0]!;
  const owners = new Map<string, Contribution<'packs'>>();
  if (loaded.length === 1) {
    for (const sid of Object.keys(first.pack.strategies)) owners.set(sid, first.c);
    return { pack: first.pack, owners };
  }
  const pack: PromptPack = { ...first.pack, strategies: {} };
  delete pack.inputs;
  const fieldOwner = new Map<string, string>();
  for (const { c, pack: part, raw } of loaded) {
    for (const f of GENERIC_SHARED_FIELDS) {
      if (!(f in raw)) continue;
      const had = fieldOwner.get(f);
      if (had === undefined) {
        fieldOwner.set(f, packOwner(c));
        if (part[f] !== undefined) pack[f] = part[f]!;
      } else if (pack[f] !== part[f]) {
        throw new HptError('E_PACK', `the generic prompt packs of ${had} and ${packOwner(c)} set different '${f}' values; the generic packs of several plugins merge, so leave '${f}' out of one of them`);
      }
    }
    for (const [field, value] of Object.entries(part.inputs ?? {})) {
      const key = `inputs.${field}`;
      const had = fieldOwner.get(key);
      if (had === undefined) {
        fieldOwner.set(key, packOwner(c));
        pack.inputs = { ...(pack.inputs ?? {}), [field]: value };
      } else if (pack.inputs?.[field] !== value) {
        throw new HptError('E_PACK', `the generic prompt packs of ${had} and ${packOwner(c)} give different values of input '${field}'; the generic packs of several plugins merge, so leave it out of one of them`);
      }
    }
    for (const [sid, entry] of Object.entries(part.strategies)) {
      const had = owners.get(sid);
      if (had) throw new HptError('E_PACK', `${packOwner(c)} gives a '${sid}' entry of the generic prompt pack, which ${packOwner(had)} already provides; remove one of them`);
      owners.set(sid, c);
      pack.strategies[sid] = entry;
    }
  }
  return { pack, owners };
}

/**
 * The generic prompt pack (DESIGN.md "Prompt packs"; issue 26, item 2): the pack of every dataset whose manifest names
 * no `promptPack` (e.g. every generated dataset). The core ships none: it is the merge of the `packs` contributions
 * with `generic: true` of `registry`, in discovery order (the built-in one is @hpt-bench/hpf-strategies'
 * `packs/generic.json`, the five HPF levels, reading the input fields `question`, `format`, `format_cot`, `exemplars`
 * and `system`, with the values of the optional ones in its `inputs`).
 * - one generic pack: that pack as loaded (its `id` defaults to `generic`, its `cue` to '');
 * - several: `strategies` unite (a plugin's new level brings its generic wording this way); `id` and `source` are the
 *   first one's; `cue`, `system` and `task` come from the first one that sets them.
 * @param forDataset the dataset that needs it (named in the error when there is none).
 * @throws HptError `E_PACK` when no plugin contributes a generic pack; when two give an entry for the same strategy, or
 *   set different `cue`, `system` or `task` values (naming both plugins and files); when a file is not a valid pack.
 */
export function genericPack(registry: Registry, forDataset?: Contribution<'datasets'>): PromptPack {
  return mergedGenericPack(registry, forDataset).pack;
}

/** Placeholders a template reads: every `{name}` (one-pass substitution, specs/hpt.md §0). */
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The prompt pack a run of dataset `dc` uses: its own (`promptPack`, else the generic pack of `registry`, see
 * `genericPack`) plus the entries of every `packs` contribution of `registry` that names this dataset (by plain id,
 * qualified id or alias), in discovery order. An addition file is a prompt pack whose `id` and `cue` may be omitted;
 * only its `strategies` are merged. The result is a new object when something is added (the cached packs are not
 * changed).
 * @throws HptError `E_PACK` when an addition has an entry for a strategy the pack already has (naming the dataset's
 *   plugin, or the generic pack's, or the earlier addition's, and the adding plugin), when an addition file is not a
 *   valid pack, and what `genericPack` throws for a dataset without a pack (also when no `registry` is given then).
 */
export function datasetPack(dc: Contribution<'datasets'>, registry?: Registry): PromptPack {
  const decl = dc.decl;
  let base: PromptPack;
  let baseOwner: (sid: string) => string;
  if (decl.promptPack) {
    base = loadPromptPack(join(dc.plugin.root, decl.promptPack));
    baseOwner = () => `plugin ${dc.plugin.name} (dataset ${dc.id})`;
  } else {
    if (!registry) throw new HptError('E_PACK', `dataset ${dc.id} of plugin ${dc.plugin.name} names no prompt pack, and no plugin registry was given to find the generic pack in`);
    const generic = mergedGenericPack(registry, dc);
    base = generic.pack;
    baseOwner = (sid) => {
      const part = generic.owners.get(sid)!;
      return `the generic pack of plugin ${part.plugin.name} (packs ${part.decl.promptPack}; dataset ${dc.id} of plugin ${dc.plugin.name} names no pack)`;
    };
  }
  const additions = registry ? packAdditions(registry, dc) : [];
  if (additions.length === 0) return base;
  const strategies = { ...base.strategies };
  const owner = new Map<string, string>(Object.keys(strategies).map((k) => [k, baseOwner(k)]));
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

/**
 * The `packs` contributions of `registry` that extend dataset `dc` (by any of its names), in discovery order; generic
 * packs (`generic: true`) are not among them (see `genericPack`).
 */
export function packAdditions(registry: Registry, dc: Contribution<'datasets'>): Contribution<'packs'>[] {
  const names = new Set([dc.id, dc.qualifiedId, ...(dc.decl.aliases ?? [])]);
  return registry.list('packs').filter((p) => {
    const target = p.decl.dataset;
    if (target === undefined || !names.has(target)) return false;
    // a plain id another dataset also answers to is ambiguous: the registry says so
    return registry.get('datasets', target) === dc;
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
  const pack = datasetPack(dc, registry);
  for (const k of Object.keys(pack.inputs ?? {})) names.add(k);
  for (const t of packTemplates(pack)) for (const m of t.matchAll(PLACEHOLDER)) names.add(m[1]!);
  names.delete('pred');
  return [...names].sort();
}
