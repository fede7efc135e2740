export * from "./interfaces.js";
export * from "./resolve.js";
export { loadEmbedder, loadReranker, loadNli, nliLabelMap, type Dtype, type LocalModelOptions } from "./transformers.js";
export { openAIEmbedder, type OpenAIEmbedderOptions } from "./openai-embeddings.js";
