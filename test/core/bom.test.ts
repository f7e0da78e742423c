/**
 * A UTF-8 byte order mark at the start of a JSON/JSONL file is ignored: data files, prompt packs,
 * plugin manifests (package.json and a separate manifest file), `score` input files, annotations — all read through
 * the one helper `readJsonText` / `stripBom` of packages/sdk/src/files.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonErrorReason, loadPromptPack, parseAnnotationsJsonl, readJsonText, readPluginManifest, readRecords, stripBom } from '@hpt-bench/core';
import { readSegments } from '../../packages/cli/src/commands/score.js';
import { ROOT } from '../helpers/cli.js';

const BOM = '\uFEFF';
let dir: string;
const file = (name: string, text: string) => {
  const p = join(dir, name);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text, 'utf8');
  return p;
};
async function all(path: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of readRecords(path)) out.push(r);
  return out;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-bom-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stripBom / readJsonText', () => {
  it('drop one leading U+FEFF and nothing else', () => {
    expect(stripBom(`${BOM}[1]`)).toBe('[1]');
    expect(stripBom(`[1]${BOM}`)).toBe(`[1]${BOM}`);
    expect(stripBom(`${BOM}${BOM}x`)).toBe(`${BOM}x`);
    expect(stripBom('')).toBe('');
    const p = file('plain.json', `${BOM}{"a":"${BOM}"}`);
    expect(readFileSync(p)[0]).toBe(0xef); // the bytes EF BB BF are really there
    expect(JSON.parse(readJsonText(p))).toEqual({ a: BOM });
  });

  it('jsonErrorReason drops the excerpt V8 quotes, keeps position-only messages', () => {
    const err = (t: string) => {
      try {
        JSON.parse(t);
      } catch (e) {
        return e;
      }
      throw new Error('parsed');
    };
    expect(jsonErrorReason(err('root:x:0:0:root'))).toBe('Unexpected token (not valid JSON)');
    expect(jsonErrorReason(err('{"a": 1'))).not.toMatch(/"a"/);
    expect(jsonErrorReason(err(''))).toBe('Unexpected end of JSON input');
  });
});

describe('data files with a BOM', () => {
  it('.json: the array is read', async () => {
    expect(await all(file('d.json', `${BOM}[{"q":"a"},{"q":"b"}]`))).toEqual([{ q: 'a' }, { q: 'b' }]);
  });

  it('.jsonl: the first line is read; a U+FEFF inside a later value is kept', async () => {
    expect(await all(file('d.jsonl', `${BOM}{"q":"a"}\n{"q":"${BOM}b"}\n`))).toEqual([{ q: 'a' }, { q: `${BOM}b` }]);
  });

  it('.jsonl with a BOM and CRLF line ends', async () => {
    expect(await all(file('crlf.jsonl', `${BOM}{"q":"a"}\r\n{"q":"b"}\r\n`))).toEqual([{ q: 'a' }, { q: 'b' }]);
  });

  it('a BOM in front of a later line is still an error (only the file start may have one)', async () => {
    await expect(all(file('mid.jsonl', `{"q":"a"}\n${BOM}{"q":"b"}\n`))).rejects.toThrow(/mid\.jsonl:2 is not valid JSON/);
  });
});

describe('prompt packs, manifests, score and annotation files with a BOM', () => {
  it('a prompt pack', () => {
    const text = readFileSync(join(ROOT, 'plugins/hpt-datasets/packs/boolq.json'), 'utf8');
    const pack = loadPromptPack(file('packs/boolq-bom.json', `${BOM}${text}`));
    expect(Object.keys(pack.strategies).length).toBeGreaterThan(0);
  });

  it("a plugin's package.json and the manifest file it names", () => {
    const manifest = { apiVersion: 1, contributes: { ladders: [{ id: 'l', levels: ['role'] }] } };
    file('p1/package.json', `${BOM}${JSON.stringify({ name: 'p1', 'hpt-bench': manifest })}`);
    expect(readPluginManifest(join(dir, 'p1'), 'local')?.manifest).toEqual(manifest);
    file('p2/package.json', `${BOM}${JSON.stringify({ name: 'p2', 'hpt-bench': './hpt.json' })}`);
    file('p2/hpt.json', `${BOM}${JSON.stringify(manifest)}`);
    expect(readPluginManifest(join(dir, 'p2'), 'local')?.manifest).toEqual(manifest);
  });

  it('`score` segments: the BOM is not part of the first segment (.txt and .jsonl)', () => {
    expect(readSegments(file('hyp.txt', `${BOM}the cat\nsat\n`))).toEqual(['the cat', 'sat']);
    expect(readSegments(file('hyp.jsonl', `${BOM}"the cat"\n"sat"\n`))).toEqual(['the cat', 'sat']);
  });

  it('JSONL annotations', () => {
    expect(parseAnnotationsJsonl(`${BOM}{"id":"a","rule1":1,"rule2":2,"rule3":3,"rule4":4}\n`, 'a.jsonl').map((r) => r.id)).toEqual(['a']);
  });
});
