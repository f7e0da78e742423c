/**
 * hibench/code-gen as an hpt-bench dataset (issue 15): generated on the fly from the run's seed (no `--data` needed),
 * or read back from a file written by `hpt-bench generate hibench/code-gen` (`--data`, validated against
 * schemas/hibench-record.schema.json). Filters: `--task`, `--preset` (easy, medium, hard), `--language` (python,
 * cpp), `--icl`. See ./suite.ts for the records and ./construct.ts for the labels.
 */
import { HibenchDataset } from '../dataset.js';

/**
 * HiBench Code generator: SpaceComplexity and TimeComplexity of seeded Python and C++ programs whose bounds are known
 * by construction; 50 programs per preset × 3 presets × 2 languages × 2 tasks × 3 ICL modes = 1,800 queries by default.
 */
export class CodeGenDataset extends HibenchDataset {
  readonly id = 'code-gen' as const;
}
