/** @hpt-bench/openai: chat models behind any OpenAI-compatible endpoint. */
export { OpenAIChatModel, type OpenAIModelOptions } from './openai.js';
