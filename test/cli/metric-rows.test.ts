import { describe, expect, it } from 'vitest';
import { metricRows } from '../../packages/cli/src/commands/run.js';

describe('run table: dataset metric rows', () => {
  it('formats numbers, flattens nested objects with dotted names and summarises large ones', () => {
    const configs = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`c${i}`, i / 10]));
    expect(metricRows({ bleu: 0.123456, n: 40, note: 'x', hibench: { configs, scenarios: { json: 0.5 }, overall: 0.25 }, list: [1, 2] })).toEqual([
      ['bleu', '0.1235'],
      ['n', '40'],
      ['note', 'x'],
      ['hibench.configs', '9 values (see --json)'],
      ['hibench.scenarios.json', '0.5000'],
      ['hibench.overall', '0.2500'],
      ['list', '[1,2]'],
    ]);
  });
});
