import { HptError, type DatasetDecl, type FilterDecl } from '@hpt-bench/sdk';
import type { Registry } from './registry.js';
import { didYouMean } from './registry.js';

/**
 * The generator filters a dataset declares (schemas/plugin-manifest.schema.json #/$defs/filter), each in the object
 * form: a plain string `"task"` becomes `{ name: 'task' }` (any value; the dataset checks it).
 */
export function datasetFilters(decl: Pick<DatasetDecl, 'filters'>): FilterDecl[] {
  return (decl.filters ?? []).map((f) => (typeof f === 'string' ? { name: f } : f));
}

/**
 * The duplicate filter names of a dataset declaration (`task` twice, or once as a string and once as an object).
 * readPluginManifest refuses a manifest that has any.
 */
export function duplicateFilterNames(decl: Pick<DatasetDecl, 'filters'>): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const f of datasetFilters(decl)) (seen.has(f.name) ? dup : seen).add(f.name);
  return [...dup];
}

/** One filter name as the registry's datasets declare it: the datasets declaring it and the union of their values. */
export interface DeclaredFilter {
  name: string;
  /** the descriptions declared for it, deduplicated, in discovery order */
  descriptions: string[];
  /** dataset id -> allowed values (undefined: any) */
  datasets: Record<string, string[] | undefined>;
}

/**
 * Every filter name the registry's datasets declare, in first-declared order (what `run` and `generate` accept as
 * `--<name>` and `--filter <name>=...`, and what their `--help` lists).
 */
export function declaredFilters(registry: Registry): DeclaredFilter[] {
  const out = new Map<string, DeclaredFilter>();
  for (const c of registry.list('datasets')) {
    for (const f of datasetFilters(c.decl)) {
      const d = out.get(f.name) ?? { name: f.name, descriptions: [], datasets: {} };
      if (f.description && !d.descriptions.includes(f.description)) d.descriptions.push(f.description);
      d.datasets[c.qualifiedId] = f.values;
      out.set(f.name, d);
    }
  }
  return [...out.values()];
}

/**
 * Check a run's (or `generate`'s) generator filters against the filters dataset `datasetId` declares: every name must
 * be declared, and every value must be one of the declared `values` when the filter has them. An empty list means
 * "all" and is always accepted.
 * @throws HptError `E_CONFIG` naming the dataset and the filter: an undeclared filter lists the ones it accepts (a
 *   dataset that declares none is "not generated"); an unknown value gives the closest allowed value and the full list.
 */
export function checkFilters(datasetId: string, decl: Pick<DatasetDecl, 'filters'>, filters: Record<string, string[]> | undefined): void {
  const declared = datasetFilters(decl);
  for (const [name, values] of Object.entries(filters ?? {})) {
    if (values.length === 0) continue;
    const f = declared.find((d) => d.name === name);
    if (!f) {
      throw new HptError(
        'E_CONFIG',
        declared.length
          ? `dataset ${datasetId} has no filter --${name} (it accepts: ${declared.map((d) => `--${d.name}`).join(', ')})`
          : `dataset ${datasetId} is not generated and takes no generator filter (--${name}); filters apply to generated datasets (see \`hpt-bench list datasets --json\` for each dataset's filters)`,
      );
    }
    if (!f.values) continue;
    for (const v of values) {
      if (f.values.includes(v)) continue;
      const containing = f.values.filter((a) => a.toLowerCase().includes(v.toLowerCase())).sort((a, b) => a.length - b.length);
      const sugg = containing[0] ?? didYouMean(v, f.values)[0];
      const hint = sugg ? ` (did you mean '${sugg}'?)` : '';
      throw new HptError('E_CONFIG', `${datasetId}: unknown --${name} '${v}'${hint}; allowed: ${f.values.join(', ')}`);
    }
  }
}

/**
 * Parse `--filter` values: each `name=value[,value...]`; repeated names accumulate.
 * @throws HptError `E_CONFIG` for an entry without `=`, an empty name or an empty value list.
 */
export function parseFilterOptions(entries: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of entries) {
    const at = e.indexOf('=');
    const name = at < 0 ? '' : e.slice(0, at).trim();
    const values = at < 0 ? [] : e.slice(at + 1).split(',').map((v) => v.trim()).filter(Boolean);
    if (!name || values.length === 0) throw new HptError('E_CONFIG', `--filter must be name=value[,value...] (e.g. --filter task=calculate), got '${e}'`);
    out[name] = [...(out[name] ?? []), ...values];
  }
  return out;
}
