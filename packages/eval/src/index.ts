export * from "./retrieval.js";
export * from "./citations.js";
export * from "./classification.js";
export * from "./reading-order.js";
export * from "./bootstrap.js";
export * from "./nli-pairs.js";
export * from "./calibration.js";
