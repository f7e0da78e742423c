/**
 * The toolkit's fixed ICL examples of the Formula scenario (specs/hibench.md §5.1; compat mode, §7 rec. 20), one set
 * per task, used for every notation variant of the task (as in the toolkit). Answers are the toolkit's bare strings.
 *
 * Provenance: the spec abridges them (§5.1 quotes only "3 + 4 * 2" → "11", "3 * 4 + 2" → "14", "3 * (4 + 2)" → "18"
 * and the first equivalence example); the full texts are reconstructed from the latest indexed toolkit
 * `config/prompt.yaml` (commit 19975a8), kept verbatim (including the unspaced "3 * (4 + 2)" and the lower-case
 * "true"/"false" answers) except for Conversion: there the toolkit's answers are inconsistent (example 1, infix →
 * postfix, answers with the output-format placeholder "319 * 924.20 * ( ( 460 + 352.48 ) + 98 )"; example 2 gives
 * "+ * 3 * 19 + 46 35.248 9.8", which is not the toolkit converter's output), so both answers are replaced by the
 * renderings our converter (= the toolkit's algorithm) produces for the same questions. Example 3 is unchanged.
 */
import type { Exemplar } from '../types.js';

/** Task → three examples (input = the filled task text, answer = the bare answer string). */
export const COMPAT_EXAMPLES: Readonly<Record<'calculate' | 'convert' | 'equivalent', readonly Exemplar[]>> = {
  calculate: [
    { input: 'Given a mathematical formula 3 + 4 * 2, calculate its result.', answer: '11' },
    { input: 'Given a mathematical formula 3 * 4 + 2, calculate its result.', answer: '14' },
    { input: 'Given a mathematical formula 3 * (4 + 2), calculate its result.', answer: '18' },
  ],
  convert: [
    // toolkit answer: "319 * 924.20 * ( ( 460 + 352.48 ) + 98 )" (the output-format placeholder)
    { input: 'Given a mathematical infix formula 3 * 19 * ( 46 + 35.248 ) + 9.8, convert it to postfix notation.', answer: '3 19 * 46 35.248 + * 9.8 +' },
    // toolkit answer: "+ * 3 * 19 + 46 35.248 9.8"
    { input: 'Given a mathematical infix formula 3 * 19 * ( 46 + 35.248 ) + 9.8, convert it to prefix notation.', answer: '+ * * 3 19 + 46 35.248 9.8' },
    { input: 'Given a mathematical postfix formula 3 19 * 46 35.248 + * 9.8 +, convert it to infix notation.', answer: '3 * 19 * ( 46 + 35.248 ) + 9.8' },
  ],
  equivalent: [
    { input: 'Given two mathematical formulas 3 + 4 * 2 and 3 4 2 * +, determine if they are equivalent.', answer: 'true' },
    { input: 'Given two mathematical formulas 3 + 4 * 2 and 3 4 2 + *, determine if they are equivalent.', answer: 'false' },
    { input: 'Given two mathematical formulas 3 + 4 * 2 and 3 4 2 * + 5 +, determine if they are equivalent.', answer: 'false' },
  ],
};
