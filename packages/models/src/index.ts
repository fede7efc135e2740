export * from "./interfaces.js";
export * from "./resolve.js";
export { loadEmbedder, loadReranker, loadNli, nliLabelMap, type Dtype, type LocalModelOptions } from "./transformers.js";
export { openAIEmbedder, type OpenAIEmbedderOptions } from "./openai-embeddings.js";
export { openAIChat, type ChatModel, type ChatMessage, type ChatResult, type ChatUsage, type ChatOptions, type Continuations, type Grammar, type OpenAIChatOptions } from "./chat.js";
export { extractiveAnswer, EXTRACTIVE_ID, type ExtractiveOptions } from "./extractive.js";
export { checkGgufHeader, GGUF_LIMITS } from "./gguf.js";
export { installedModels, modelKind, type ModelKind } from "./installed.js";
export { CLAIMS_ADAPTER, DEFAULT_ADAPTER, DEFAULT_ADAPTERS, JUDGE_ADAPTER, adapterCard, adapterHash, adapterTraining, checkAdapter, findAdapter, splitAdapter, usesAdapter } from "./adapter.js";
export { loadLocalChat, findGguf, firstGguf, hubGguf, plainPrompt, PLAIN_STOPS, LOCAL_CHAT_VERSION, GgufNotFoundError, type LocalChatOptions } from "./llama.js";
export { jsonTokenBound } from "./llama-grammar.js";
export { REUSE_BLOCK } from "./llama-sequences.js";
export { describeModel, modelCard, modelCardPath, parseCard, type ModelCard } from "./card.js";
export { encoderServer, teiNli, teiReranker, teiServer, TEI_PREFIX, vllmReranker, vllmServer, VLLM_PREFIX, type TeiInfo, type TeiOptions } from "./tei.js";
export { fileSha256, ModelIntegrityError, ONNX_MODEL_FILES, readSums, SUMS_FILE, verifyModelFile, verifyModelFiles, type Verification } from "./sums.js";
export { replyByteLimit, retryAfterMs, requestTokens, serverFetch, setServerLimits, type ServerLimits } from "./server-fetch.js";
export {
  CALIBRATION_FILE,
  folderDigest,
  installedCalibration,
  modelFolder,
  parseCalibration,
  readCalibration,
  writeCalibration,
  type CalibrationFile,
  type CalibrationProvenance,
} from "./calibration.js";
