import * as Args from '@oclif/core/args';
import { type Contribution, type ContributionKind, datasetFilters, HptError, isHptError, packPlaceholders, type Registry } from '@hpt-bench/core';
import { HptCommand, TerminalTable } from '../base.js';

const KINDS: ContributionKind[] = ['datasets', 'strategies', 'models', 'scorers', 'ladders', 'selectors', 'metrics', 'packs', 'reports'];

/** `hpt-bench list [kind]`: the contributions of every discovered plugin. */
export default class List extends HptCommand {
  static override summary = 'List datasets, strategies, models, scorers, ladders, selectors, standalone metrics, prompt-pack additions (and generic packs) and report views contributed by plugins.';
  static override examples = ['<%= config.bin %> list', '<%= config.bin %> list datasets --json', '<%= config.bin %> list ladders --plugin ./my-plugin'];
  static override args = {
    kind: Args.string({ description: 'only this kind', options: KINDS, required: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(List);
    const { registry } = this.discover(flags.plugin);
    const kinds = args.kind ? [args.kind as ContributionKind] : KINDS;
    const out: Record<string, unknown[]> = {};
    for (const kind of kinds) {
      out[kind] = registry.list(kind).map((c) => {
        const d = c.decl as { description?: string; levels?: string[]; hpiDataset?: number; scorer?: unknown; kind?: string; aliases?: string[]; dataset?: string; generic?: boolean; environmentCheck?: string };
        return {
          id: c.id,
          qualifiedId: c.qualifiedId,
          plugin: c.plugin.name,
          origin: c.plugin.origin,
          ...(d.description ? { description: d.description } : {}),
          ...(d.levels ? { levels: d.levels } : {}),
          ...(d.hpiDataset !== undefined ? { hpiDataset: d.hpiDataset, scorer: typeof d.scorer === 'string' ? d.scorer : (d.scorer as { id: string }).id } : {}),
          ...(d.aliases ? { aliases: d.aliases } : {}),
          ...(kind === 'datasets' ? datasetDetails(c as Contribution<'datasets'>, registry) : {}),
          ...(d.dataset ? { dataset: d.dataset } : {}),
          ...(d.generic ? { generic: true } : {}),
          ...(d.environmentCheck ? { environmentCheck: d.environmentCheck } : {}),
        };
      });
    }
    if (flags.json) {
      this.printJson(out);
      return;
    }
    for (const kind of kinds) {
      const t = new TerminalTable({ head: [kind, 'plugin', 'details'] });
      for (const row of out[kind] as Record<string, unknown>[]) {
        const details = row.dataset
          ? `adds to the prompt pack of ${String(row.dataset)}`
          : row.generic
            ? 'generic prompt pack (datasets without a pack)'
            : row.levels ? (row.levels as string[]).join(' > ') : row.hpiDataset !== undefined ? `scorer ${String(row.scorer)}, HPI_Dataset ${String(row.hpiDataset)}` : String(row.description ?? '');
        t.push([String(row.id), String(row.plugin), details.length > 70 ? `${details.slice(0, 67)}...` : details]);
      }
      this.log(t.toString());
    }
  }
}

/**
 * A dataset's filters (object form, schemas/plugin-manifest.schema.json #/$defs/filter) and the placeholders its prompt
 * pack (with the `packs` additions of other plugins) can fill (`packPlaceholders`); a pack that cannot be read gives
 * `packError` instead of failing the whole list.
 */
function datasetDetails(c: Contribution<'datasets'>, registry: Registry): Record<string, unknown> {
  const filters = datasetFilters(c.decl);
  try {
    return { ...(filters.length ? { filters } : {}), placeholders: packPlaceholders(c, registry) };
  } catch (e) {
    if (!isHptError(e)) throw e;
    return { ...(filters.length ? { filters } : {}), packError: (e as HptError).message };
  }
}
