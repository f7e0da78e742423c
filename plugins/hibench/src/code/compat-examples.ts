/**
 * The Code scenario's worked examples (specs/hibench.md §5.1, §7 rec. 20).
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
import type { Exemplar } from '../types.js';
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
