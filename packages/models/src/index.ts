export * from "./interfaces.js";
export * from "./resolve.js";
export { loadEmbedder, loadReranker, loadNli, nliLabelMap, type Dtype, type LocalModelOptions } from "./transformers.js";
export { openAIEmbedder, type OpenAIEmbedderOptions } from "./openai-embeddings.js";
export { openAIChat, type ChatModel, type ChatMessage, type ChatResult, type ChatUsage, type ChatOptions, type OpenAIChatOptions } from "./chat.js";
export { extractiveAnswer, EXTRACTIVE_ID, type ExtractiveOptions } from "./extractive.js";
export { checkGgufHeader, GGUF_LIMITS } from "./gguf.js";
export { installedModels, modelKind, type ModelKind } from "./installed.js";
export { loadLocalChat, findGguf, firstGguf, hubGguf, plainPrompt, citationGrammar, jsonTokenBound, PLAIN_STOPS, LOCAL_CHAT_VERSION, GgufNotFoundError, type LocalChatOptions } from "./llama.js";
