export { main, buildProgram } from "./program.js";
export { readQuestions, questionFromText } from "./questions.js";
export { EXIT, UsageError, FailureError } from "./errors.js";
export { sciFactVerificationGraph, aggregateVerdicts } from "./commands/eval.js";
