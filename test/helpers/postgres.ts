/**
 * A real, throwaway PostgreSQL server for tests: `initdb` + `pg_ctl` of the Debian `postgresql` package in a fresh
 * temporary directory, run as the unprivileged `postgres` user when the tests run as root (initdb refuses root), on a
 * random free port of 127.0.0.1, its unix socket in a short directory under /tmp (socket paths are limited to 107
 * bytes), fsync off. One server per test file; `createDatabase()` gives each test a fresh database.
 *
 * When the binaries are missing, `POSTGRES_MISSING` says why, and suites use `describe.skipIf(POSTGRES_MISSING)` after
 * printing it (`warnIfPostgresMissing`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';

/** The directory of initdb/pg_ctl: $HPT_PG_BIN, else the newest /usr/lib/postgresql/<version>/bin that has them. */
export function postgresBin(): string | undefined {
  if (process.env.HPT_PG_BIN) return existsSync(join(process.env.HPT_PG_BIN, 'initdb')) ? process.env.HPT_PG_BIN : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export const POSTGRES_MISSING: string | undefined = postgresBin()
  ? process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0
    ? 'tests run as root and there is no unprivileged `postgres` user to run initdb as'
    : undefined
  : 'PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin (apt-get install postgresql)';

/** Print why PostgreSQL tests are skipped (once per file). */
export function warnIfPostgresMissing(suite: string): void {
  if (POSTGRES_MISSING) console.warn(`[${suite}] PostgreSQL tests skipped: ${POSTGRES_MISSING}`);
}

/** A running throwaway server. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/<db>` (trust authentication, no password) */
  url(db?: string): string;
  port: number;
  /** the unix socket directory */
  socketDir: string;
  /** Create a fresh, empty database and return its URL. */
  createDatabase(): Promise<string>;
  /** Stop the server (immediate shutdown) and remove its directories. */
  stop(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Start a server. `baseDir` (default a fresh /tmp directory) holds the data directory; it may be a long path: the
 * socket lives in its own short /tmp directory.
 * @throws Error when initdb or pg_ctl fail (with the server log).
 */
export async function startPostgres(options: { baseDir?: string } = {}): Promise<TestPostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error(POSTGRES_MISSING);
  const base = options.baseDir ?? mkdtempSync('/tmp/hpt-pg-');
  mkdirSync(base, { recursive: true });
  const socketDir = mkdtempSync('/tmp/hpt-pgs-');
  const data = join(base, 'data');
  const log = join(base, 'server.log');
  const asRoot = process.getuid?.() === 0;
  const uid = asRoot ? Number(execFileSync('id', ['-u', 'postgres']).toString().trim()) : -1;
  const gid = asRoot ? Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) : -1;
  if (asRoot) {
    chownSync(base, uid, gid);
    chownSync(socketDir, uid, gid);
  }
  const sh = (cmd: string, args: string[]) => {
    const r = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { encoding: 'utf8' }) : spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}${existsSync(log) ? `\n${execFileSync('cat', [log]).toString()}` : ''}`);
  };
  sh(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      sh(join(bin, 'pg_ctl'), ['-D', data, '-l', log, '-w', '-t', '60', '-o', `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`, 'start']);
      break;
    } catch (e) {
      if (attempt >= 2) throw e; // another process took the port between probe and start
    }
  }
  const url = (db = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${db}`;
  let n = 0;
  let stopped = false;
  // a test process that ends without calling stop() (a crash, a time-out) does not leave the server running
  const onExit = () => {
    try {
      if (!stopped) spawnSync(asRoot ? 'runuser' : join(bin, 'pg_ctl'), [...(asRoot ? ['-u', 'postgres', '--', join(bin, 'pg_ctl')] : []), '-D', data, '-m', 'immediate', 'stop']);
    } catch {
      // best effort
    }
  };
  process.once('exit', onExit);
  return {
    url,
    port,
    socketDir,
    async createDatabase() {
      const name = `t${process.pid}_${++n}`;
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      process.off('exit', onExit);
      try {
        sh(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        if (!options.baseDir) rmSync(base, { recursive: true, force: true });
        else rmSync(data, { recursive: true, force: true });
        rmSync(socketDir, { recursive: true, force: true });
      }
    },
  };
}
