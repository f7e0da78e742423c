/**
 * End-to-end (issue 16, "Help and errors"): `-h` works on every command of hpt-bench (as `--help` does), every topic
 * has its own description, and descriptions are not hard-wrapped in the source (oclif wraps them to the terminal; a
 * newline inside a paragraph comes out as a ragged line).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, { summary?: string; description?: string }> };
const ids = Object.keys(manifest.commands);

describe('help', () => {
  it('-h prints the help of every command, like --help', async () => {
    expect(ids.length).toBeGreaterThanOrEqual(13);
    for (const id of ids) {
      const argv = id.split(':');
      const short = await runCli([...argv, '-h']);
      expect(short.code, `${id}: ${short.stderr}`).toBe(0);
      expect(short.stdout, id).toMatch(/^USAGE$/m);
      const long = await runCli([...argv, '--help']);
      expect(short.stdout, id).toBe(long.stdout);
    }
  }, 120_000);

  it('every topic has its own description, not the first command\'s', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    const topics = r.stdout.slice(r.stdout.indexOf('TOPICS'), r.stdout.indexOf('COMMANDS'));
    expect(topics).toMatch(/cache +Inspect and clear the model-call cache/);
    expect(topics).toMatch(/plugins +Install, link, list and remove plugins/);
    expect(topics).toMatch(/sandbox +The code sandbox/);
    expect(topics).not.toMatch(/Delete cached model responses/);
  });

  it('descriptions are paragraphs, not lines wrapped in the source', () => {
    for (const [id, c] of Object.entries(manifest.commands)) {
      for (const paragraph of (c.description ?? '').split(/\n\s*\n/)) expect(paragraph, id).not.toMatch(/\n/);
    }
  });
});
