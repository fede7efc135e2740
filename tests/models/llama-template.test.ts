import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { loadLocalChat, type ChatMessage } from "@citeflow/models";
import { tempDir } from "../helpers.js";
import { GEMMA } from "./local.js";

/**
 * A GGUF that carries a chat template is prompted through it. The GGUF the registry offers has
 * none, so this suite writes a copy with Gemma's turn template (gguf-new-metadata, from the gguf
 * package `npm run models` installs into .citeflow/pyenv).
 */
const root = fileURLToPath(new URL("../..", import.meta.url));
const template = join(root, "tests", "fixtures", "gemma-chat-template.jinja");
let templated = "";

const messages: ChatMessage[] = [
  { role: "system", content: "You are a careful scientific assistant." },
  { role: "user", content: "Vitamin D supplementation reduced fracture risk in elderly women by 20% in a randomized trial.\n\nDoes vitamin D prevent fractures?" },
];

describe("in-process chat model with the GGUF's chat template", { timeout: 120_000 }, () => {
  beforeAll(() => {
    templated = join(tempDir("citeflow-gguf-"), "gemma-chat.gguf");
    execFileSync(join(root, ".citeflow", "pyenv", "bin", "gguf-new-metadata"), ["--chat-template-file", template, GEMMA, templated], { stdio: "ignore" });
  });

  it("prompts through the template: the turns add tokens, the answer streams and is usage-counted", async () => {
    const plain = await loadLocalChat(GEMMA);
    const chat = await loadLocalChat(templated);
    expect(chat.templated).toBe(true);
    expect(plain.templated).toBe(false);
    const chunks: string[] = [];
    const r = await chat.chat(messages, { maxTokens: 24, onText: (c) => chunks.push(c) });
    const p = await plain.chat(messages, { maxTokens: 24 });
    expect(chunks.join("")).toBe(r.text);
    expect(r.usage!.completionTokens).toBeGreaterThan(0);
    // <start_of_turn>system / user / model and <end_of_turn> around the same two messages.
    expect(r.usage!.promptTokens).toBeGreaterThan(p.usage!.promptTokens);
  });

  it("holds a templated model to a JSON schema too", async () => {
    const chat = await loadLocalChat(templated);
    const r = await chat.chat(messages, { maxTokens: 16, jsonSchema: { type: "object", properties: { answer: { enum: ["yes", "no"] } } } });
    expect(["yes", "no"]).toContain((r.structured as { answer: string }).answer);
  });
});
