import * as Flags from '@oclif/core/flags';
import { runEnvironmentChecks } from '@hpt-bench/core';
import { HptCommand, TerminalTable } from '../../base.js';

/**
 * `hpt-bench sandbox check`: does the code sandbox hold on this machine? The command knows no scorer: it runs
 * `checkEnvironment` of every scorer whose manifest declares `environmentCheck: sandbox` (the metrics plugin's
 * `code-exec`), through the registry (`runEnvironmentChecks`). The built-in scorer's check is the `CodeSandbox` the
 * core injects (`Tokens.CodeSandbox`: the core's `BoundedCodeSandbox`), whose `check` runs the escape suite of the
 * `@hpt-bench/sandbox` package; the JSON it prints is that suite's `SandboxCheckReport`.
 */
export default class SandboxCheck extends HptCommand {
  static override summary = 'Check that the code sandbox (scorers that run model code) holds on this machine: run its escape suite.';
  static override description = [
    'Runs hostile Python programs through the sandbox that executes model-written code and prints, per protection, whether it held: files outside its private root, network (even 127.0.0.1), inherited file descriptors, a fork bomb next to correct programs, memory bombs (one process, a forking program, unmapped memfd memory), exit forgeries (sys.exit(0), os._exit(0), atexit, SystemExit, signals), the timeout of a program whose child left its session, its privileges and its environment. Takes a few seconds.',
    'A run whose scorer runs model code performs the same check once before its first model call and refuses to execute code when a protection is missing, unless --unsafe-sandbox is given.',
    'The check is the one of every scorer whose plugin declares `"environmentCheck": "sandbox"` (built in: code-exec); --scorer picks one.',
    'Exit status: 0 when every protection holds, 1 otherwise.',
  ].join('\n\n');
  static override examples = ['<%= config.bin %> sandbox check', '<%= config.bin %> sandbox check --json', '<%= config.bin %> sandbox check --python /usr/local/bin/python3.12'];
  static override flags = {
    python: Flags.string({ description: 'Python interpreter the sandbox runs (default: the system python3, as in a run)' }),
    scorer: Flags.string({ description: 'check only this scorer (default: every scorer that declares a sandbox check)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SandboxCheck);
    const { registry, container } = this.discover(flags.plugin);
    const results = await runEnvironmentChecks(registry, container, 'sandbox', { ...(flags.python ? { python: flags.python } : {}) }, flags.scorer);
    if (flags.json) this.printJson(results.length === 1 ? results[0]!.check.record : Object.fromEntries(results.map((r) => [r.scorer, r.check.record])));
    else {
      for (const { scorer, check } of results) {
        const t = new TerminalTable({ head: [check.heading, 'holds', 'observed'] });
        for (const [name, r] of Object.entries(check.checks)) t.push([name, r.holds ? 'yes' : 'NO', r.detail]);
        this.log(`${results.length > 1 ? `${scorer}\n` : ''}${t.toString()}\n${check.summary}`);
      }
    }
    if (results.some((r) => !r.check.holds)) this.exit(1);
  }
}
