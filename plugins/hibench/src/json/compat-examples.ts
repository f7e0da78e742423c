/**
 * Compat-mode ICL examples of the JSON scenario (specs/hibench.md §5.1: "JSON: toy Python-dict snippets about 'Peter'
 * and animals (not university data)"; §7 rec. 20: compat uses them verbatim).
 *
 * RECONSTRUCTIONS. The toolkit's `prompt.yaml` keys its JSON examples by five generic tasks (Task1..Task5), and the
 * versions seen do not say which sub-type uses which. child_count, node_depth, level_count and node_attribute below
 * follow the toy examples of the `prompt.yaml` version in the code index (Task1, Task2, Task3 and Task5 respectively,
 * matched by output template; Task4 is the excluded node_relationship) — including their quirks: the missing space
 * after the closing brace, `Peter` unquoted, `['cat':{...}]` which is not a valid Python literal, bare answers. The
 * other six sub-types had no examples there; theirs are written here in the same style (same snippet, same wording
 * pattern as the sub-type's question, bare answers).
 */
import type { Exemplar } from '../types.js';
import type { JsonTask } from './qa.js';

const A2 = "{'Name': Peter, 'Animals':['cat', 'dog']}";
const A3 = "{'Name': Peter, 'Animals':['cat', 'dog', 'fish']}";
const A4 = "{'Name': Peter, 'Animals':['cat', 'dog', 'fish', 'bird']}";
const N2 = "{'Name': Peter, 'Animals':['cat':{'a', 'b'}, 'dog':{'c', 'd'}]}";
const N3 = "{'Name': Peter, 'Animals':['cat':{'a', 'b'}, 'dog':{'c', 'd', 'g'}, 'fish':{'e', 'f'}]}";
const N4 = "{'Name': Peter, 'Animals':['cat':{'a', 'b'}, 'dog':{'c', 'd', 'g'}, 'fish':{'e', 'f'}, 'bird':{'h'}]}";
const T1 = "{'Name': Peter, 'Animals':['cat':{'Name': 'a'}, 'dog':{'Name': 'c'}]}";
const T2 = "{'Name': Peter, 'Animals':['cat':{'Name': 'a'}, 'dog':{'Name': 'c', 'Age': 3}, 'fish':{'Name': 'e', 'Age': 4}]}";
const T3 = "{'Name': Peter, 'Animals':['cat':{'Name': 'a'}, 'dog':{'Name': 'c', 'Age': 3}, 'fish':{'Name': 'e', 'Age': 4}, 'bird':{'Name': 'h', 'Age': 5}]}";

const ex = (json: string, question: string, answer: string): Exemplar => ({ input: `Given a JSON object ${json}.${question}`, answer });

/** The three compat exemplars of each JSON sub-type (one-shot uses the first). */
export const JSON_COMPAT_EXAMPLES: Readonly<Record<JsonTask, readonly Exemplar[]>> = {
  child_count: [
    ex(A2, 'How many animals does Peter have?', '2'),
    ex(A3, 'How many animals does Peter have?', '3'),
    ex(A4, 'How many animals does Peter have?', '4'),
  ],
  node_depth: [
    ex(A2, 'Which level does the dog in?', 'Animals'),
    ex(A3, 'Which level does the fish in?', 'Animals'),
    ex(A4, 'Which level does the Peter in?', 'Name'),
  ],
  level_count: [
    ex(N2, 'How many dogs does Peter have?', '2'),
    ex(N3, 'How many dogs does Peter have?', '3'),
    ex(N4, 'How many birds does Peter have?', '1'),
  ],
  node_attribute: [
    ex(T1, 'What is the name of the cat?', 'a'),
    ex(T2, 'What is the age of the fish?', '4'),
    ex(T3, 'What is the name of the bird?', 'h'),
  ],
  // Reconstructed (no toolkit example seen):
  level_nodes: [
    ex(A2, 'List all Animals of Peter.', 'cat, dog'),
    ex(A3, 'List all Animals of Peter.', 'cat, dog, fish'),
    ex(N2, 'List all dogs of Peter.', 'c, d'),
  ],
  path_down_to_up: [
    ex(T1, 'What is the path from a up to Peter?', 'a -> cat -> Peter'),
    ex(T2, 'What is the path from e up to Peter?', 'e -> fish -> Peter'),
    ex(N3, 'What is the path from g up to Peter?', 'g -> dog -> Peter'),
  ],
  path_up_to_down: [
    ex(T1, 'What is the path from Peter down to c?', 'Peter -> dog -> c'),
    ex(T2, 'What is the path from Peter down to e?', 'Peter -> fish -> e'),
    ex(N3, 'What is the path from dog down to g?', 'dog -> g'),
  ],
  path_between_nodes: [
    ex(N2, "If someone wants to go from the name 'a' to the name 'c', what path should they take?", 'a -> cat -> Peter -> dog -> c'),
    ex(N3, "If someone wants to go from the name 'e' to the name 'g', what path should they take?", 'e -> fish -> Peter -> dog -> g'),
    ex(N4, "If someone wants to go from the name 'h' to the name 'b', what path should they take?", 'h -> bird -> Peter -> cat -> b'),
  ],
  shared_ancestor_same_level: [
    ex(A2, 'What is the common ancestor of cat and dog?', 'Peter'),
    ex(N2, 'What is the common ancestor of c and d?', 'dog'),
    ex(N3, 'What is the common ancestor of e and f?', 'fish'),
  ],
  shared_ancestor_diff_level: [
    ex(N2, 'What is the common ancestor of a and dog?', 'Peter'),
    ex(N3, 'What is the common ancestor of g and fish?', 'Peter'),
    ex(N4, 'What is the common ancestor of h and cat?', 'Peter'),
  ],
};
