/**
 * The CLI's exit codes (README "Exit codes"): 0 success; 1 a runtime failure (the endpoint, the store, the sandbox,
 * another process holding the run); 2 a usage or input error (flags, unknown ids, invalid files or configuration);
 * 130 interrupted (Ctrl-C; 143 for SIGTERM).
 */
export const EXIT_CODES = { ok: 0, runtime: 1, usage: 2, interrupted: 130, terminated: 143 } as const;

/**
 * Error codes that are runtime failures (exit 1) unless the thrower says otherwise; every other code is a usage or
 * input error (exit 2).
 */
export const RUNTIME_ERROR_CODES: ReadonlySet<string> = new Set(['E_ENDPOINT', 'E_AUTH', 'E_MODEL_CALL', 'E_STORE', 'E_SANDBOX', 'E_NO_RESULTS', 'E_INTERNAL', 'E_INTERRUPTED']);

/**
 * Errors a user can cause (bad flag, bad file, bad manifest, unreachable endpoint). The CLI prints `message` on
 * one line without a stack trace (and `hint`, when there is one, on a second) and exits with `exitCode`; with `--json`
 * it prints `{"error": {"code", "message", "hint"?}}` on stdout instead (DESIGN.md "Conventions").
 */
export class HptError extends Error {
  /** Machine-readable kind, e.g. `E_DATA`, `E_UNKNOWN_ID`, `E_MANIFEST`, `E_ENDPOINT`, `E_AUTH`, `E_CONFIG`. */
  readonly code: string;
  /** 1 for the `RUNTIME_ERROR_CODES`, else 2, unless given (`EXIT_CODES`). */
  readonly exitCode: number;
  /** What to do about it, when the message does not say (one sentence). */
  readonly hint?: string;

  constructor(code: string, message: string, options?: { cause?: unknown; exitCode?: number; hint?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HptError';
    this.code = code;
    this.exitCode = options?.exitCode ?? (RUNTIME_ERROR_CODES.has(code) ? EXIT_CODES.runtime : EXIT_CODES.usage);
    if (options?.hint !== undefined) this.hint = options.hint;
  }
}

/** True when `e` is an `HptError` (also across duplicated module copies, by name and code). */
export function isHptError(e: unknown): e is HptError {
  return e instanceof HptError || (e instanceof Error && (e.name === 'HptError' || e.name === 'ModelCallError') && typeof (e as HptError).code === 'string');
}

/** Why a model call failed: decides whether it is retried and how the run records it. */
export type ModelCallErrorKind = 'rate-limit' | 'server' | 'timeout' | 'connection' | 'client';

/**
 * A failed model call that is not the user's configuration error: HTTP 429 (`rate-limit`), 5xx (`server`), a timeout,
 * a dropped or refused connection (`connection`), or another 4xx such as a context-length error (`client`, not
 * retryable). `retryAfterMs` is the server's `retry-after-ms` / `retry-after` hint when it sent one. The ModelClient
 * retries the retryable kinds; when retries are exhausted the sample is recorded as errored with this message.
 * Auth failures (401/403) and an unknown model (404) stay plain `HptError`s (`E_AUTH`, `E_ENDPOINT`): they end the run.
 * When one ends a run (the endpoint is down), the CLI exits with code 1, a runtime failure.
 */
export class ModelCallError extends HptError {
  readonly kind: ModelCallErrorKind;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(kind: ModelCallErrorKind, message: string, options?: { status?: number; retryAfterMs?: number; cause?: unknown }) {
    super('E_MODEL_CALL', message, { cause: options?.cause, exitCode: 1 });
    this.name = 'ModelCallError';
    this.kind = kind;
    if (options?.status !== undefined) this.status = options.status;
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /** Whether another attempt may succeed (everything but `client`). */
  get retryable(): boolean {
    return this.kind !== 'client';
  }
}

/** True when `e` is a `ModelCallError` (also across duplicated module copies). */
export function isModelCallError(e: unknown): e is ModelCallError {
  return e instanceof ModelCallError || (e instanceof Error && e.name === 'ModelCallError' && typeof (e as ModelCallError).kind === 'string');
}
