/** @hpt-bench/openai: chat models behind any OpenAI-compatible endpoint. */
export { DEFAULT_TIMEOUT_MS, OpenAIChatModel, type OpenAIModelOptions } from './openai.js';
export { DEFAULT_MAX_RESPONSE_BYTES, MAX_MAX_RESPONSE_BYTES } from './response.js';
export { batchRequestLine, OpenAIBatch, OPENAI_BATCH_FILE_LIMITS, parseBatchFile, parseBatchLine, salvageCustomId, type BatchParseContext } from './batch.js';
export { chatRequestBody } from './request.js';
