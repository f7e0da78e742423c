/**
 * @hpt-bench/sdk — the only package an hpt-bench plugin imports (DESIGN.md "Layout"): the contracts a plugin
 * implements (contracts.ts), the report views it contributes (report.ts), the manifest's shapes (manifest.ts), injection tokens and how a class declares what its
 * constructor receives (tokens.ts, injection.ts), errors, template and text helpers, data-file readers, JSON Schema
 * validation, and the JSON Schemas themselves (`@hpt-bench/sdk/schemas/<name>.schema.json`). No native dependency.
 */
export * from './contracts.js';
export * from './code-sandbox.js';
export * from './manifest.js';
export * from './report.js';
export * from './records.js';
export * from './errors.js';
export * from './tokens.js';
export * from './injection.js';
export * from './template.js';
export * from './text.js';
export * from './thinking.js';
export * from './served-model.js';
export * from './files.js';
export * from './http.js';
export * from './schema.js';
export * from './extract/index.js';
