/**
 * Errors a user can cause (bad flag, bad file, bad manifest, unreachable endpoint). The CLI prints `message` on
 * one line without a stack trace and exits with `exitCode` (DESIGN.md "Conventions").
 */
export class HptError extends Error {
  /** Machine-readable kind, e.g. `E_DATA`, `E_UNKNOWN_ID`, `E_MANIFEST`, `E_ENDPOINT`, `E_AUTH`, `E_CONFIG`. */
  readonly code: string;
  readonly exitCode: number;

  constructor(code: string, message: string, options?: { cause?: unknown; exitCode?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HptError';
    this.code = code;
    this.exitCode = options?.exitCode ?? 2;
  }
}

/** True when `e` is an `HptError` (also across duplicated module copies, by name and code). */
export function isHptError(e: unknown): e is HptError {
  return e instanceof HptError || (e instanceof Error && e.name === 'HptError' && typeof (e as HptError).code === 'string');
}
