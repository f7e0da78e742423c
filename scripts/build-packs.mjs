#!/usr/bin/env node
// Regenerates plugins/hpt-datasets/packs/*.json from the method spec (../shared/specs/hpt-templates.json and
// hpt-extras.json): the reference prompts.py strings, the answer cues and the least-to-most {pred} wiring
// (specs/hpt.md §1.3, §5, §6). The generated packs are committed; run this only when the spec changes.
import { readFileSync, writeFileSync } from 'node:fs';

const specs = new URL('../../shared/specs/', import.meta.url);
const templates = JSON.parse(readFileSync(new URL('hpt-templates.json', specs), 'utf8'));
const extras = JSON.parse(readFileSync(new URL('hpt-extras.json', specs), 'utf8'));
const out = new URL('../plugins/hpt-datasets/packs/', import.meta.url);

for (const id of ['boolq', 'csqa', 'mmlu', 'gsm8k', 'humaneval', 'iwslt', 'samsum']) {
  const t = templates[id];
  const cue = extras.answerCue[id];
  const pack = {
    $schema: '../../../schemas/prompt-pack.schema.json',
    id,
    source: 'HPT reference prompts (devichand579/HPT b008f51, prompts.py) via specs/hpt-templates.json and hpt-extras.json',
    cue,
    strategies: {
      role: { template: t['1'] },
      'zero-shot-cot': { template: t['2'] },
      'three-shot-cot': { template: t['3'] },
      'least-to-most': {
        steps: t['4'].map((template, i) => ({
          template,
          pred: extras.ltmPredSource[id][i],
          cue: i < 3 ? extras.intermediateLtmCue[id] : cue,
        })),
      },
      'generated-knowledge': { knowledge: templates.knowledge[id], template: t['5'] },
    },
  };
  writeFileSync(new URL(`${id}.json`, out), JSON.stringify(pack, null, 2) + '\n');
  console.log(`wrote ${id}.json`);
}
