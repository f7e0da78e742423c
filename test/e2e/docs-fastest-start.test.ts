/**
 * docs/plugins.md "Fastest start" runs verbatim: its sh block is executed by bash, line by line (`set -e`), in a fresh
 * directory outside the repository, with `hpt-bench` on PATH (a shim running this repository's bin/run.js as a
 * process), a fresh HOME and XDG dirs (the plugin is installed into a throwaway data dir), and the `@hpt-bench`
 * scope's registry pointing at a closed port: the scaffold's `npm install` and `plugins install` must not need a
 * registry copy of @hpt-bench/sdk (the SDK's own dependencies, ajv and ajv-formats, come from npm's cache or the
 * registry). The last command's output (the run's summary) is checked.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';

const DOC = readFileSync(join(ROOT, 'docs/plugins.md'), 'utf8');

/** The first sh block after the line starting "Fastest start". */
export function fastestStart(doc: string): string {
  const m = /^Fastest start[^\n]*\n+```sh\n([\s\S]*?)```/m.exec(doc);
  if (!m) throw new Error('docs/plugins.md has no "Fastest start" sh block');
  return m[1]!;
}

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'hpt-fastest-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('docs/plugins.md "Fastest start"', () => {
  it('runs verbatim: plugins new, npm install, list, npm pack, plugins install, run', () => {
    const script = fastestStart(DOC);
    expect(script).toContain('hpt-bench plugins new ./my-model --kind model');
    const bin = join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'hpt-bench'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'hpt-bench'), 0o755);
    const cwd = join(work, 'author');
    mkdirSync(cwd);
    const home = join(work, 'home');
    mkdirSync(home);
    const userNpmrc = join(homedir(), '.npmrc');
    const env = {
      PATH: [bin, dirname(process.execPath), process.env.PATH ?? ''].join(delimiter),
      HOME: home,
      XDG_DATA_HOME: join(work, 'xdg/data'),
      XDG_CONFIG_HOME: join(work, 'xdg/config'),
      XDG_CACHE_HOME: join(work, 'xdg/cache'),
      // npm's cache of this user (ajv for the SDK), their config (registry, cafile), never a registry for @hpt-bench
      npm_config_cache: process.env.npm_config_cache || join(homedir(), '.npm'),
      ...(existsSync(userNpmrc) ? { npm_config_userconfig: userNpmrc } : {}),
      'npm_config_@hpt-bench:registry': 'http://127.0.0.1:9/',
      npm_config_prefer_offline: 'true',
      npm_config_fetch_retries: '0',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      NO_COLOR: '1',
    };
    const r = spawnSync('bash', ['-e', '-c', script], { cwd, env, encoding: 'utf8', timeout: 170_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const dir = join(cwd, 'my-model');
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))).toMatchObject({ dependencies: { '@hpt-bench/sdk': 'file:vendor/hpt-bench-sdk-0.1.0.tgz' } });
    expect(existsSync(join(dir, 'node_modules/@hpt-bench/sdk/package.json'))).toBe(true);
    // the plugin landed in the sandboxed data dir, with its bundled SDK
    expect(existsSync(join(work, 'xdg/data/hpt-bench/node_modules/hpt-bench-plugin-my-model/node_modules/@hpt-bench/sdk/package.json'))).toBe(true);
    // `list --plugin .` shows the model; the run used it (the summary names the model)
    expect(r.stdout).toContain('my-model');
    expect(r.stdout).toMatch(/my-model:True/);
  }, 180_000);
});
