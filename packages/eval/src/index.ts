export * from "./retrieval.js";
