/**
 * The one way hpt-bench writes an output file (`run --out`, `generate --out`, `judge --out`, `report --out`): into a
 * temp file beside the target, renamed into place when complete, so a reader never sees a partial file and a failed or
 * interrupted command leaves the previous file (or none) instead of half of a new one.
 */
import { closeSync, createWriteStream, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeFileSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { dirname, resolve } from 'node:path';
import { HptError } from '@hpt-bench/sdk';

/** The temp file of `path`: beside it (same directory, so the rename is atomic), unique per process and open. */
function tempOf(full: string): string {
  return `${full}.tmp-${process.pid}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/**
 * A file written as a stream of text chunks and renamed into place by `commit()`. Opening creates the directory.
 * `abort()` removes the temp file; `commit()` after an error is not allowed.
 */
export class AtomicFile {
  private readonly stream: WriteStream;
  private readonly tmp: string;
  /** the absolute path of the target */
  readonly path: string;

  private constructor(path: string) {
    this.path = resolve(path);
    mkdirSync(dirname(this.path), { recursive: true });
    this.tmp = tempOf(this.path);
    this.stream = createWriteStream(this.tmp, 'utf8');
  }

  /**
   * Start writing `path` (its directory is created).
   * @throws the fs error when the directory cannot be created.
   */
  static open(path: string): AtomicFile {
    return new AtomicFile(path);
  }

  /** Append `text`, waiting for the stream to drain when its buffer is full (memory stays bounded). */
  async write(text: string): Promise<void> {
    if (!this.stream.write(text)) await once(this.stream, 'drain');
  }

  /** Finish the temp file and rename it over `path`. On failure the temp file is removed and the error thrown. */
  async commit(): Promise<void> {
    try {
      this.stream.end();
      await once(this.stream, 'finish');
      renameSync(this.tmp, this.path);
    } catch (e) {
      this.abort();
      throw e;
    }
  }

  /** Drop what was written: the temp file is removed and `path` is left as it was. */
  abort(): void {
    this.stream.destroy();
    rmSync(this.tmp, { force: true });
  }
}

/**
 * Write `text` to `path` whole (temp file in the same directory, then a rename; the directory is created).
 * @throws HptError `E_CONFIG` naming the path when it cannot be written.
 */
export function writeFileAtomic(path: string, text: string): void {
  const full = resolve(path);
  const tmp = tempOf(full);
  try {
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(tmp, text, 'utf8');
    renameSync(tmp, full);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new HptError('E_CONFIG', `cannot write ${path}: ${(e as Error).message}`);
  }
}

/**
 * Check, before any work, that an output file can be written: `path` is not a directory, and its directory exists (or
 * can be created) and accepts a new file (a probe file is created and removed).
 * @param what how the user named the file in messages, e.g. `--out`.
 * @throws HptError `E_CONFIG` naming the path and the reason.
 */
export function checkWritable(path: string, what = '--out'): void {
  const full = resolve(path);
  try {
    if (existsSync(full) && statSync(full).isDirectory()) throw new Error('it is a directory; give a file name');
    mkdirSync(dirname(full), { recursive: true });
    const probe = `${full}.probe-${process.pid}`;
    closeSync(openSync(probe, 'w'));
    rmSync(probe, { force: true });
  } catch (e) {
    throw new HptError('E_CONFIG', `cannot write ${what} ${path}: ${(e as Error).message}`);
  }
}
