/**
 * @hpt-bench/sandbox: the code sandbox (issue 26, item 4), a package of its own because it is a security subsystem.
 * - `runPython` / `runPythonSync`: the single-execution primitive (one program, isolated as far as the machine allows:
 *   namespaces, a private tmpfs root, a user id per run, rlimits, a memory cgroup, a completion nonce). It has no
 *   queue; the host bounds how many run at once (the core registers a bounded `CodeSandbox` in every run container);
 * - `sandboxIsolation`: what the probe observed for an interpreter and mode;
 * - `checkSandbox`: the escape suite (`hpt-bench sandbox check`, the preflight of scorers that run model code);
 * - `cleanStaleSandboxes`: leftovers of killed evaluators.
 * Its Python programs (harness, probe, the escape suite's) and the namespace setup are files of the package
 * (`python/`, `sh/`). It implements the SDK's `CodeSandbox` contract types and imports `@hpt-bench/sdk` only.
 */
export {
  CGROUP_SLACK_MB,
  cleanStaleSandboxes,
  DEFAULT_MAX_PROCESSES,
  DEFAULT_MEMORY_MB,
  DEFAULT_TIMEOUT_MS,
  defaultPython,
  MAX_CONCURRENT_RUNS,
  runPython,
  runPythonSync,
  runsInFlight,
  runUid,
  sandboxIsolation,
  STDERR_CAP,
  STDOUT_CAP,
  type RunPythonOptions,
  type RunResult,
  type RunStatus,
  type SandboxIsolation,
} from './sandbox.js';
export { checkSandbox, INHERITED_FD_NUMBERS, SANDBOX_PROTECTIONS, type CheckSandboxOptions, type ProtectionResult, type SandboxCheckReport, type SandboxProtection } from './check.js';
