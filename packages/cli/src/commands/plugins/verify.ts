import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { EXIT_CODES, HptError, verifyPlugin, type VerifyResult } from '@hpt-bench/core';
import { HptCommand } from '../../base.js';
import { TerminalTable } from '../../terminal.js';

/**
 * `hpt-bench plugins verify DIR|TGZ`: the plugin conformance kit (issue 27). A thin shell over the core's
 * `verifyPlugin`: parse, verify, print one row per contribution and check, exit 1 when a check failed.
 */
export default class PluginsVerify extends HptCommand {
  static override summary = 'Check a plugin (directory or packed .tgz): manifest, every contribution built and exercised (report views on a small run, endpoint models against a local stand-in), no remote endpoint called.';
  static override description =
    'Validates the manifest, builds every contribution through the same injection as a run, and exercises it: a dataset loads its first records and its scorer solves each rendered target and refuses an empty and a wrong answer; a strategy runs one level against a stand-in model (at least one call, a graded output; the first prompt is shown); a model answers a tiny request with { text, usage } (an endpoint model whose options take a baseUrl is pointed at a local OpenAI-compatible stand-in and must call it and return its answer; another endpoint model is skipped); a selector picks a level within 1..m; a report view gives a table for a small baseline:oracle run of one of its datasets. Prints a pass/fail table (--json: {plugin, root, ok, rows}) and exits 1 when a check fails. The same checks run from code: verifyPlugin() of @hpt-bench/core (docs/plugins.md "Verifying a plugin").';
  static override examples = ['<%= config.bin %> plugins verify ./my-plugin', '<%= config.bin %> plugins verify ./hpt-bench-plugin-mine-1.0.0.tgz --records 10 --json'];
  static override args = {
    target: Args.string({ description: 'plugin package directory, or a packed .tgz (npm pack)', required: true }),
  };
  static override flags = {
    records: Flags.integer({ description: 'records of each dataset to load and score', default: 5, min: 1 }),
    timeout: Flags.integer({ description: 'milliseconds a strategy, model or selector call may take', default: 10_000, min: 1 }),
    'selector-argument': Flags.string({ description: 'the argument a selector is built with (the part after fixed:)', default: '1' }),
    'model-name': Flags.string({ description: 'the name a model is built with (the part after baseline:)', default: 'verify' }),
    threshold: Flags.string({ description: "the scorers' threshold option, for scorers that require one (e.g. 0.15)" }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PluginsVerify);
    if (flags.plugin?.length) throw new HptError('E_CONFIG', 'plugins verify takes the plugin as its argument, not --plugin');
    let threshold: number | undefined;
    if (flags.threshold !== undefined) {
      threshold = Number(flags.threshold);
      if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) throw new HptError('E_CONFIG', `--threshold must be a number in [0, 1], got '${flags.threshold}'`);
    }
    const result = await verifyPlugin(args.target, {
      records: flags.records,
      timeoutMs: flags.timeout,
      selectorArgument: flags['selector-argument'],
      modelName: flags['model-name'],
      ...(threshold !== undefined ? { scorerOptions: { threshold } } : {}),
      logger: this.logger,
    });
    if (flags.json) this.printJson(result);
    else this.log(renderVerify(result));
    if (!result.ok) this.exit(EXIT_CODES.runtime);
  }
}

/** The human-readable verification: one row per contribution and check, then a one-line verdict. */
export function renderVerify(result: VerifyResult): string {
  const t = new TerminalTable({ head: ['contribution', 'check', 'result', 'detail'] });
  for (const r of result.rows) t.push([r.contribution, r.check, r.status, r.detail]);
  const failed = result.rows.filter((r) => r.status === 'fail').length;
  const verdict = failed ? `${result.plugin}: ${failed} check(s) failed` : `${result.plugin}: every check passed`;
  return `${t.toString()}\n${verdict}`;
}
