import { readFileSync } from 'node:fs';
import type { PromptPack } from '../contracts.js';
import { HptError } from '../errors.js';
import { assertValid } from '../schema.js';

const packs = new Map<string, PromptPack>();

/**
 * Load and validate a prompt pack file (schemas/prompt-pack.schema.json), cached by path.
 * @throws HptError `E_PACK` naming the file and the failing field; also when a chain's last step cue differs from the
 *   pack cue or a step's `pred` does not name an earlier step.
 */
export function loadPromptPack(path: string): PromptPack {
  const cached = packs.get(path);
  if (cached) return cached;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new HptError('E_PACK', `cannot read prompt pack ${path}: ${(e as Error).message}`);
  }
  const pack = assertValid<PromptPack>('prompt-pack', raw, `prompt pack ${path}`, 'E_PACK');
  for (const [id, entry] of Object.entries(pack.strategies)) {
    entry.steps?.forEach((s, i) => {
      if (s.pred !== null && s.pred > i) throw new HptError('E_PACK', `prompt pack ${path}: ${id} step ${i + 1} takes {pred} from step ${s.pred}, which is not an earlier step`);
    });
  }
  packs.set(path, pack);
  return pack;
}
