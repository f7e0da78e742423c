// A throwaway PostgreSQL server for the benchmarks (bench/store-backends.mjs, bench/workers.mjs): initdb + pg_ctl of
// Debian's postgresql package (/usr/lib/postgresql/*/bin), trust authentication, a free port on 127.0.0.1, the socket in
// its own /tmp directory; as root the server runs as user postgres (initdb refuses root). The tests have their own
// helper (test/helpers/postgres.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Start a server; `fsync` off (as in the tests) or on (a real server's durability).
 * @returns `{url, stop}` (`url`: `postgres://postgres@127.0.0.1:PORT/postgres`), or undefined when no initdb is installed.
 * @throws Error when initdb or pg_ctl fail.
 */
export async function throwawayPostgres(fsync = false) {
  const root = '/usr/lib/postgresql';
  const v = existsSync(root) ? readdirSync(root).filter((d) => existsSync(join(root, d, 'bin', 'initdb'))).sort().pop() : undefined;
  if (!v) return undefined;
  const bin = join(root, v, 'bin');
  const dir = mkdtempSync('/tmp/hpt-pgb-');
  const asRoot = process.getuid() === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'])), Number(execFileSync('id', ['-g', 'postgres'])));
  const sh = (cmd, args) => {
    const r = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args]) : spawnSync(cmd, args);
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  };
  sh(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  sh(join(bin, 'pg_ctl'), ['-D', join(dir, 'data'), '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${fsync ? 'on' : 'off'}${fsync ? '' : ' -c synchronous_commit=off'}`, 'start']);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    /** A fresh empty database on this server: its URL. */
    database: (name) => {
      sh(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name]);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop: () => {
      sh(join(bin, 'pg_ctl'), ['-D', join(dir, 'data'), '-m', 'immediate', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
