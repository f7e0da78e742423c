/**
 * The toolkit's fixed ICL examples of the tree scenarios, used verbatim in compat mode (specs/hibench.md §5.1, §7
 * rec. 20). Three per task, one-shot uses the first; answers are the toolkit's bare strings (not JSON), and several
 * are wrong and kept for fidelity (e.g. All Children lists direct children only, Add Node answers "2 -> 5" for node 4,
 * Node Depth counts the root as 0, the isomorphic examples concatenate both trees into one edge list, the traversal
 * verification examples show no sequence). The same examples are used for both representations.
 *
 * Reconstructed from the spec where it abridges: §3.7 gives the Leaf example exactly and §5.1 lists the answers of
 * the others; the remaining question texts follow the toolkit's `config/prompt.yaml` (latest indexed version,
 * commit 19975a8) as summarised there.
 */
import type { Exemplar } from '../../types.js';

const M = 'Given the hierarchical structure';
const B = 'Given the binary tree-liked hierarchical structure';
const T1 = '3 -> 2, 3 -> 1, 1 -> 0';
const B1 = '1 -> 2, 1 -> 3, 2 -> 4, 2 -> 5, 3 -> 6, 3 -> 7';
const B2 = '1 -> 2, 1 -> 3, 2 -> 4, 2 -> 5, 3 -> 6';
const B3 = '1 -> 2, 1 -> 3, 2 -> 4, 2 -> 5, 3 -> 6, 3 -> 7, 3 -> 8';

const ex = (input: string, answer: string): Exemplar => ({ input, answer });

/** Compat ICL examples per toolkit task id (binary and multiple tree). */
export const COMPAT_EXAMPLES: Readonly<Record<string, readonly Exemplar[]>> = {
  // Multiple tree (§3.2)
  add_node: [
    ex(`${M} 3 -> 2, 3 -> 1, please add a node 4 to the node 3 in the given tree.`, '3 -> 2, 3 -> 1, 3 -> 4'),
    ex(`${M} 3 -> 2, 3 -> 1, please add a node 4 to the node 2 in the given tree.`, '3 -> 2, 2 -> 5, 3 -> 1'),
    ex(`${M} 3 -> 2, 3 -> 4, 4 -> 1, please add a node 5 to the node 4 in the given tree.`, '3 -> 2, 3 -> 4, 4 -> 1, 4 -> 5'),
  ],
  all_ancestor: [
    ex(`${M} ${T1}, please find all the ancestors of the node 2.`, '3'),
    ex(`${M} ${T1}, please find all the ancestors of the node 1.`, '3'),
    ex(`${M} ${T1}, please find all the ancestors of the node 0.`, '1, 3'),
  ],
  all_children: [
    ex(`${M} ${T1}, please find all the children of the node 3.`, '2, 1'),
    ex(`${M} ${T1}, please find all the children of the node 1.`, '0'),
    ex(`${M} ${T1}, please find all the children of the node 0.`, 'None'),
  ],
  common_ancestor: [
    ex(`${M} ${T1}, please find the common ancestor of the node 2 and 1.`, '3'),
    ex(`${M} ${T1}, please find the common ancestor of the node 2 and 0.`, '3'),
    ex(`${M} ${T1}, please find the common ancestor of the node 1 and 0.`, '1'),
  ],
  isomorphic: [
    ex(`${M} ${T1}, 4 -> 5, 4 -> 6, 6 -> 7, please determine if the two trees are isomorphic.`, 'true'),
    ex(`${M} ${T1}, 4 -> 5, 4 -> 6, 4 -> 7, please determine if the two trees are isomorphic.`, 'false'),
    ex(`${M} ${T1}, 4 -> 5, 5 -> 6, 6 -> 7, please determine if the two trees are isomorphic.`, 'false'),
  ],
  remove_node: [
    ex(`${M} ${T1}, please remove the node 1 in the given tree.`, '3 -> 2, 3 -> 0'),
    ex(`${M} ${T1}, please remove the node 3 in the given tree.`, '1 -> 0'),
    ex(`${M} ${T1}, please remove the node 0 in the given tree.`, '3 -> 2, 3 -> 1'),
  ],
  node_depth: [
    ex(`${M} ${T1}, please find the depth of the node 2.`, '1'),
    ex(`${M} ${T1}, please find the depth of the node 1.`, '1'),
    ex(`${M} ${T1}, please find the depth of the node 0.`, '2'),
  ],
  leaf: [
    ex(`${M} ${T1}, please determine if the node 2 is a leaf node.`, 'true'),
    ex(`${M} ${T1}, please determine if the node 1 is a leaf node.`, 'false'),
    ex(`${M} ${T1}, please determine if the node 0 is a leaf node.`, 'true'),
  ],
  root: [
    ex(`${M} ${T1}, please find the root node.`, '3'),
    ex(`${M} 2 -> 1, 2 -> 3, 1 -> 0, please find the root node.`, '2'),
    ex(`${M} 1 -> 0, 1 -> 2, 2 -> 3, please find the root node.`, '1'),
  ],
  // Binary tree (§3.1); the toolkit's examples are untagged edge lists.
  balance: [
    ex(`${B} ${B1}, please determine if it is a balance binary tree.`, 'true'),
    ex(`${B} ${B2}, please determine if it is a balance binary tree.`, 'false'),
    ex(`${B} ${B3}, please determine if it is a balance binary tree.`, 'false'),
  ],
  prefix_traversal: [
    ex(`${B} ${B1}, please find the prefix traversal order.`, '1, 2, 4, 5, 3, 6, 7'),
    ex(`${B} ${B2}, please find the prefix traversal order.`, '1, 2, 4, 5, 3, 6'),
    ex(`${B} ${B3}, please find the prefix traversal order.`, '1, 2, 4, 5, 3, 6, 7, 8'),
  ],
  infix_traversal: [
    ex(`${B} ${B1}, please find the infix traversal order.`, '4, 2, 5, 1, 6, 3, 7'),
    ex(`${B} ${B2}, please find the infix traversal order.`, '4, 2, 5, 1, 6, 3'),
    ex(`${B} ${B3}, please find the infix traversal order.`, '4, 2, 5, 1, 6, 3, 7, 8'),
  ],
  postfix_traversal: [
    ex(`${B} ${B1}, please find the postfix traversal order.`, '4, 5, 2, 6, 7, 3, 1'),
    ex(`${B} ${B2}, please find the postfix traversal order.`, '4, 5, 2, 6, 3, 1'),
    ex(`${B} ${B3}, please find the postfix traversal order.`, '4, 5, 2, 6, 7, 8, 3, 1'),
  ],
  traversal_order_verification: [
    ex(`${B} ${B1}, please determine if it is the preorder.`, 'preorder'),
    ex(`${B} ${B2}, please determine if it is the inorder.`, 'inorder'),
    ex(`${B} ${B3}, please determine if it is the postorder.`, 'postorder'),
  ],
  mirror_tree: [
    ex(`${B} ${B1}, please find the mirror tree.`, '1 -> 3, 1 -> 2, 3 -> 7, 3 -> 6, 2 -> 5, 2 -> 4'),
    ex(`${B} ${B2}, please find the mirror tree.`, '1 -> 3, 1 -> 2, 3 -> 6, 2 -> 5, 2 -> 4'),
    ex(`${B} ${B3}, please find the mirror tree.`, '1 -> 3, 1 -> 2, 3 -> 8, 3 -> 7, 3 -> 6, 2 -> 5, 2 -> 4'),
  ],
};
