/**
 * The manifest entry of `hibench/code-structure` (package.json `hpt-bench.contributes.datasets`): loads the tree-sitter
 * parsers before the class is handed out, so the synchronous `generate` can parse (./index.ts). Kept out of the
 * package index so that importing the plugin for any other dataset does not load the grammars.
 */
import { preloadCodeStructure } from './index.js';

await preloadCodeStructure();

export { CodeStructureDataset } from './index.js';
