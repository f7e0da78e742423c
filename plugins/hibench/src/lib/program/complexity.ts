/**
 * The complexity questions of the program scenarios (specs/hibench.md §3.5): the Code scenario's task templates, worked
 * examples (§5.1, §7 rec. 20), prompt and record, shared by every scenario that asks the space or time complexity of a
 * program (the curated programs and the generated ones ask exactly the same way). Names no scenario: the callers give
 * their name and ids.
 *
 * Compat: the toolkit's fixed examples, verbatim from the latest indexed `config/prompt.yaml` (commit 19975a8): three
 * small Python classes written as YAML literal blocks (so each question ends with a newline, and the class bodies are
 * indented by 2 and 6 spaces), answered with bare big-O strings — Space O(1)/O(1)/O(1), Time O(1)/O(n)/O(nlogn). The
 * same three examples serve both languages, as in the toolkit. (The index's copy of TimeComplexity Question2 has a
 * corrupted indentation line; the SpaceComplexity copy of the same program is used.)
 *
 * Strict: three small programs per language written for this project (not taken from the data set, so no test item
 * is shown as an example), phrased exactly like the real query, with correct labels as `{"answer": "O(...)"}`.
 */
import type { CompatMode, Json } from '@hpt-bench/sdk';
import { assembleQuery, type PromptStyle } from '../../prompt.js';
import type { RecordSchemaPart } from '../../scenario.js';
import type { Exemplar, HibenchRecord, IclMode } from '../../types.js';
import type { CodeLanguage } from './syntax.js';

export type CodeTask = 'SpaceComplexity' | 'TimeComplexity';
export const CODE_TASKS: readonly CodeTask[] = ['SpaceComplexity', 'TimeComplexity'];

/** The task's noun in the toolkit's wording ("space complexity"). */
export function taskNoun(task: CodeTask): string {
  return task === 'SpaceComplexity' ? 'space complexity' : 'time complexity';
}

/** The toolkit's task template (§3.5): `Given a code snippet <CODE>, calculate its space|time complexity.` */
export function codeQuestion(task: CodeTask, code: string): string {
  return `Given a code snippet ${code}, calculate its ${taskNoun(task)}.`;
}

/** The toolkit's output-format templates (§3.5), two spaces after the colon as in prompt.yaml. */
export const OUTPUT_TEMPLATES: Readonly<Record<CodeTask, string>> = {
  SpaceComplexity: '{"answer":  O(1)}',
  TimeComplexity: '{"answer":  O(n)}',
};

const TOOLKIT_PROGRAMS = [
  'class Solution(object):\n  def sum(self, num1, num2):\n      return num1+num2\n',
  'class Solution(object):\n  def addBinary(self, a, b):\n      result, carry, val = "", 0, 0\n      for i in xrange(max(len(a), len(b))):\n          val = carry\n          if i < len(a):\n              val += int(a[-(i + 1)])\n          if i < len(b):\n              val += int(b[-(i + 1)])\n          carry, val = divmod(val, 2)\n          result += str(val)\n      if carry:\n          result += str(carry)\n      return result[::-1]\n',
  'class Solution2(object):\n  def arrayPairSum(self, nums):\n      nums.sort()\n      result = 0\n      for i in xrange(0, len(nums), 2):\n          result += nums[i]\n      return result\n',
];

/** The toolkit's examples per task (compat). */
export const COMPAT_EXAMPLES: Readonly<Record<CodeTask, readonly Exemplar[]>> = {
  SpaceComplexity: TOOLKIT_PROGRAMS.map((p, i) => ({ input: `${p}What is the Space Complexity?\n`, answer: ['O(1)', 'O(1)', 'O(1)'][i]! })),
  TimeComplexity: TOOLKIT_PROGRAMS.map((p, i) => ({ input: `${p}What is the Time Complexity?\n`, answer: ['O(1)', 'O(n)', 'O(nlogn)'][i]! })),
};

interface Example {
  code: string;
  space: string;
  time: string;
}

const STRICT_PROGRAMS: Readonly<Record<CodeLanguage, readonly Example[]>> = {
  python: [
    { code: 'def last(nums):\n    return nums[-1]\n', space: 'O(1)', time: 'O(1)' },
    { code: 'def prefix_sums(nums):\n    out = []\n    total = 0\n    for x in nums:\n        total += x\n        out.append(total)\n    return out\n', space: 'O(n)', time: 'O(n)' },
    {
      code: 'def count_pairs(nums, target):\n    count = 0\n    for i in range(len(nums)):\n        for j in range(i + 1, len(nums)):\n            if nums[i] + nums[j] == target:\n                count += 1\n    return count\n',
      space: 'O(1)',
      time: 'O(n^2)',
    },
  ],
  cpp: [
    { code: 'int last(const std::vector<int>& nums) {\n    return nums.back();\n}\n', space: 'O(1)', time: 'O(1)' },
    {
      code: 'std::vector<int> prefixSums(const std::vector<int>& nums) {\n    std::vector<int> out;\n    int total = 0;\n    for (int x : nums) {\n        total += x;\n        out.push_back(total);\n    }\n    return out;\n}\n',
      space: 'O(n)',
      time: 'O(n)',
    },
    {
      code: 'int countPairs(const std::vector<int>& nums, int target) {\n    int count = 0;\n    for (size_t i = 0; i < nums.size(); ++i)\n        for (size_t j = i + 1; j < nums.size(); ++j)\n            if (nums[i] + nums[j] == target) ++count;\n    return count;\n}\n',
      space: 'O(1)',
      time: 'O(n^2)',
    },
  ],
};

/** Strict examples: the real query's wording over small programs of the same language, JSON answers. */
export function strictExamples(task: CodeTask, language: CodeLanguage): Exemplar[] {
  return STRICT_PROGRAMS[language].map((e) => ({
    input: codeQuestion(task, e.code),
    answer: JSON.stringify({ answer: task === 'SpaceComplexity' ? e.space : e.time }).replace('{"answer":', '{"answer": '),
  }));
}

/** The strict example programs (exported for tests: they must parse). */
export const STRICT_EXAMPLE_PROGRAMS = STRICT_PROGRAMS;

/** The ICL modes of the program scenarios, in stream order (§5.1). */
export const CODE_ICL_MODES: readonly IclMode[] = ['zero', 'one', 'few'];

/**
 * The prompt of the program scenarios (§2, toolkit strings): the code-reasoning system prompt, no separators, two
 * spaces before "and".
 */
export const PROGRAM_PROMPT: PromptStyle = {
  system: 'As an AI agent, you are tasked with performing code reasoning to assist in understanding and analyzing complex code snippets.',
  separator: '',
  formatGap: '  ',
};

/**
 * The record schema part of the program scenarios (`Scenario.record`): no representation; the program's `language`
 * and text (`code`).
 */
export const PROGRAM_RECORD_PART: RecordSchemaPart = {
  representations: [null],
  properties: {
    language: { enum: ['python', 'cpp'], description: "Code scenario: the program's language" },
    code: { type: 'string', description: 'Code scenario: the program text (the <CODE> of the prompt)' },
  },
};

/** The texts of a complexity query: what every complexity record shares. */
export type CodeQueryFields = Pick<HibenchRecord, 'system' | 'prompt' | 'question' | 'format' | 'formatCot' | 'exemplars'>;

/**
 * The prompt texts of one complexity query (§2, §3.5, §5.1): the code-reasoning system prompt, the toolkit's task
 * template over the program, the output template of the task, and the ICL prefix (compat: the toolkit's examples;
 * strict: this project's examples in the program's language), concatenated without separators (`PROGRAM_PROMPT`).
 */
export function codeQueryFields(task: CodeTask, code: string, language: CodeLanguage, icl: IclMode, compat: CompatMode): CodeQueryFields {
  const question = codeQuestion(task, code);
  const exemplars = compat === 'reference' ? COMPAT_EXAMPLES[task].map((e) => ({ ...e })) : strictExamples(task, language);
  const q = assembleQuery(PROGRAM_PROMPT, question, OUTPUT_TEMPLATES[task], icl, exemplars);
  return { system: PROGRAM_PROMPT.system, prompt: q.prompt, question, format: q.format, formatCot: q.formatCot, exemplars };
}

/**
 * A record asking `task` about `code` (§2, §3.5): the query's texts (`codeQueryFields`), the label of the task as the
 * target (`labels.space` or `labels.time`, a big-O string), the big-O matcher, no representation and no args. Each
 * scenario gives its own id, scenario name, preset and params.
 */
export function codeRecord(r: {
  id: string;
  scenario: string;
  task: CodeTask;
  preset: string;
  icl: IclMode;
  compat: CompatMode;
  seed: number;
  params: Record<string, Json>;
  language: CodeLanguage;
  code: string;
  labels: { space: string; time: string };
}): HibenchRecord {
  const q = codeQueryFields(r.task, r.code, r.language, r.icl, r.compat);
  return {
    id: r.id,
    scenario: r.scenario,
    task: r.task,
    preset: r.preset,
    representation: null,
    icl: r.icl,
    compat: r.compat,
    system: q.system,
    prompt: q.prompt,
    question: q.question,
    format: q.format,
    formatCot: q.formatCot,
    exemplars: q.exemplars,
    target: r.task === 'SpaceComplexity' ? r.labels.space : r.labels.time,
    matcher: { type: 'string', bigo: true },
    seed: r.seed,
    params: r.params,
    args: {},
    language: r.language,
    code: r.code,
  };
}
