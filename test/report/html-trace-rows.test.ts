/**
 * The HTML report's trace rows name each sample's question by its first words, after the template text every sample of
 * the run starts with (issue 16: rows of data without ids showed only indices).
 */
import { describe, expect, it } from 'vitest';
import { commonPrefix, questionStart } from '../../packages/cli/src/report/html.js';

describe('trace row question', () => {
  it('strips the shared template prefix at a word boundary and keeps about 12 words', () => {
    const prompts = ['You are an expert. Question: is the sky blue on a clear day at noon in summer?', 'You are an expert. Question: is water wet?', 'You are an expert. Question: isotopes of carbon'];
    const prefix = commonPrefix(prompts);
    expect(prefix).toBe('You are an expert. Question: ');
    expect(questionStart(prompts[0]!, prefix)).toBe('is the sky blue on a clear day at noon in summer?');
    expect(questionStart(`${prefix}one two three four five six seven eight nine ten eleven twelve thirteen`, prefix)).toBe('one two three four five six seven eight nine ten eleven twelve …');
    expect(questionStart(prompts[1]!, prefix)).toBe('is water wet?');
    expect(questionStart(prompts[2]!, prefix)).toBe('isotopes of carbon');
  });

  it('no prefix for one prompt, for identical prompts, or without a word boundary', () => {
    expect(commonPrefix(['only one'])).toBe('');
    expect(commonPrefix(['same text', 'same text'])).toBe('');
    expect(commonPrefix(['abcdef', 'abcxyz'])).toBe('');
    expect(questionStart('line one\n\n  line   two', '')).toBe('line one line two');
  });
});
