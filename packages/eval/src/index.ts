export * from "./retrieval.js";
export * from "./citations.js";
