/**
 * @hpt-bench/hpt-datasets is declarative: its datasets are declared in package.json (no code). This constant lists
 * their ids, the seven datasets of the HPT paper (specs/hpt.md §2.4, Table 4), in manifest order.
 */
export const HPT_DATASETS = ['boolq', 'csqa', 'mmlu', 'gsm8k', 'iwslt', 'samsum', 'humaneval'] as const;
