/** @hpt-bench/hpt-datasets is declarative: its datasets are declared in package.json (no code). */
export const HPT_DATASETS = ["boolq", "csqa", "mmlu", "gsm8k"] as const;
