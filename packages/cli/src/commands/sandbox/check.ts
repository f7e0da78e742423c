import { Flags } from '@oclif/core';
import { checkSandbox } from '@hpt-bench/metrics';
import { HptCommand, TerminalTable } from '../../base.js';

/** `hpt-bench sandbox check`: does the code sandbox hold on this machine? (issue #13 item 10) */
export default class SandboxCheck extends HptCommand {
  static override summary = 'Check that the code sandbox (HumanEval) holds on this machine: run its escape suite.';
  static override description = [
    'Runs hostile Python programs through the sandbox that executes model-written code and prints, per protection, whether it held: files outside its private root, network (even 127.0.0.1), inherited file descriptors, a fork bomb next to correct programs, memory bombs (one process, a forking program, unmapped memfd memory), exit forgeries (sys.exit(0), os._exit(0), atexit, SystemExit, signals), the timeout of a program whose child left its session, its privileges and its environment. Takes a few seconds.',
    'A HumanEval run performs the same check once before its first model call and refuses to execute code when a protection is missing, unless --unsafe-sandbox is given.',
    'Exit status: 0 when every protection holds, 1 otherwise.',
  ].join('\n\n');
  static override examples = ['<%= config.bin %> sandbox check', '<%= config.bin %> sandbox check --json', '<%= config.bin %> sandbox check --python /usr/local/bin/python3.12'];
  static override flags = {
    python: Flags.string({ description: 'Python interpreter the sandbox runs (default: the system python3, as a HumanEval run)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SandboxCheck);
    const report = await checkSandbox(flags.python ? { python: flags.python } : {});
    if (flags.json) this.printJson(report);
    else {
      const t = new TerminalTable({ head: ['protection', 'holds', 'observed'] });
      for (const [name, r] of Object.entries(report.protections)) t.push([name, r.holds ? 'yes' : 'NO', r.detail]);
      const n = Object.keys(report.protections).length;
      const iso = report.isolation;
      const verdict = report.holds ? `all ${n} protections hold` : `${report.missing.length} of ${n} protections do not hold: ${report.missing.join(', ')}`;
      this.log(`${t.toString()}\nmode ${report.mode} (user: ${iso.user}, memory bound: ${iso.memory}, python ${iso.python}): ${verdict} (${(report.durationMs / 1000).toFixed(1)} s)`);
    }
    if (!report.holds) this.exit(1);
  }
}
