/**
 * oclif's `command_not_found` hook: a mistyped command (`hpt-bench rnu`) ends like every other usage error (base.ts
 * `HptCommand.catch`): one `Error:` line and a `hint:` with the closest commands on stderr, or with `--json` one
 * `{"error": {"code": "E_USAGE", ...}}` object on stdout; exit 2 either way, without oclif's usage dump.
 */
import type { Hook } from '@oclif/core/hooks';
import { didYouMean, EXIT_CODES } from '@hpt-bench/core';

const hook: Hook<'command_not_found'> = async function (options) {
  const shown = (id: string) => id.replaceAll(':', ' ');
  const wanted = shown(options.id);
  const close = didYouMean(wanted, options.config.commandIDs.map(shown));
  const message = `unknown command '${wanted}'`;
  const hint = close.length ? `did you mean ${close.map((c) => `'${c}'`).join(' or ')}? (see ${options.config.bin} --help)` : `see ${options.config.bin} --help for the commands`;
  const argv = options.argv ?? [];
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: { code: 'E_USAGE', message, hint } })}\n`);
  else process.stderr.write(`Error: ${message}\nhint: ${hint}\n`);
  this.exit(EXIT_CODES.usage);
};

export default hook;
