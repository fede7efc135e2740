import { withoutCredentials, type NodeContext, type Services } from "@citeflow/core";
import { basename } from "node:path";
import {
  adapterCard,
  adapterTraining,
  DEFAULT_ADAPTERS,
  findAdapter,
  findGguf,
  firstGguf,
  ModelIntegrityError,
  splitAdapter,
  SUMS_FILE,
  verifyModelFile,
  type ChatMessage,
  type ChatModel,
  type ChatOptions,
  type ChatResult,
} from "@citeflow/models";
import { z } from "zod";
import type { ServicesConfig } from "./config.js";

/** Params every node that calls a chat model shares. */
export const llmParams = {
  model: z
    .string()
    .default("")
    .describe(
      'Chat model: a .gguf file (path, or name in the models folders) runs in-process, with a LoRA adapter after "+" (gemma-3-270m-q4_k_m+citeflow/lm-gemma3-270m-scifact); another name is a server\'s model; "none": no model; empty: $CITEFLOW_CHAT_MODEL, else the first .gguf in the models folders with Citeflow\'s adapter for it when installed',
    ),
  baseUrl: z
    .string()
    .default("")
    .describe("OpenAI-compatible server; empty: $OPENAI_BASE_URL. Another server runs only when you allowed it ($CITEFLOW_ALLOWED_ENDPOINTS, --allow-endpoint, the editor's dialog), and gets no key"),
  temperature: z.number().min(0).max(2).default(0),
  maxTokens: z.number().int().positive().max(32_768).default(512),
  seed: z.number().int().optional().describe("Sampling seed, where the server supports it"),
  repeatPenalty: z.number().min(1).max(2).default(1.1).describe("In-process models: penalty on tokens repeated in the last 64, against greedy loops (1 = off); servers ignore it"),
  timeoutMs: z.number().int().min(100).max(3_600_000).default(120_000),
  retries: z.number().int().nonnegative().max(10).default(3),
};

/**
 * The system message of the nodes that write and revise answers: one default, so that an answer,
 * its feedback and its edits start alike (the in-process model reads a shared start once).
 */
export const systemParam = z.string().default("You are a careful scientific assistant. You only state what the given papers support, and you cite them.").describe("System message");

export type LlmParams = { model: string; baseUrl: string; temperature: number; maxTokens: number; seed?: number | undefined; repeatPenalty: number; timeoutMs: number; retries: number };

/** Which chat model a node's params and the configuration select, before anything is loaded. */
export type ChatChoice =
  { kind: "local"; path: string; adapter?: LocalAdapter } | { kind: "hub"; uri: string; adapter?: LocalAdapter } | { kind: "http"; model: string; baseUrl: string } | { kind: "none"; reason: string };

/** A LoRA adapter on an in-process model: the name it was asked for by, and its file. */
export type LocalAdapter = { name: string; path: string };

/**
 * The first of Citeflow's shipped adapters that is installed and was trained on this base file and
 * on rows of this task (the asking node's type; its training.json says both). An adapter trained
 * on answers alone writes its answer's shape for any prompt ("The papers report: …" as a search
 * query), so a node no adapter was trained for gets the base model.
 */
function defaultAdapter(base: string, dirs: string[], task: string): LocalAdapter | undefined {
  for (const name of DEFAULT_ADAPTERS) {
    const path = findAdapter(name, dirs);
    const trained = path && adapterTraining(path);
    if (trained && trained.base === basename(base) && trained.tasks.includes(task)) return { name, path: path! };
  }
  return undefined;
}

/**
 * The one rule for choosing a chat model. The model param, else the configured one
 * ($CITEFLOW_CHAT_MODEL): "none" → no model; a .gguf path, or the name of a .gguf file in the
 * models folders → in-process; `hf:<user>/<repo>/<file>.gguf` → in-process, from the Hugging Face
 * hub into the models home; any other name → that model on the OpenAI-compatible server (baseUrl,
 * else the configured one); `<in-process model>+<adapter>` → that model with a LoRA adapter (an id whose
 * folder holds adapter.gguf, or a path). Nothing named → the first .gguf in the models folders, with
 * the first of Citeflow's adapters installed for that file and trained on the `task` (the asking
 * node's type: defaultAdapter); none there → no model.
 */
export function chooseChat(p: Pick<LlmParams, "model" | "baseUrl">, config: Pick<ServicesConfig, "chat" | "modelsDirs">, task: string): ChatChoice {
  const named = (p.model || config.chat.model).trim();
  if (named === "none") return { kind: "none", reason: `the chat model is set to "none"` };
  if (named) {
    // `<base>+<adapter>` when the part before the last "+" is an in-process model (a file named with a "+" is just a file).
    const split = splitAdapter(named);
    const baseLocal = split.adapter !== undefined && !findGguf(named, config.modelsDirs) && (/^(hf|huggingface):/.test(split.base) || findGguf(split.base, config.modelsDirs) !== undefined);
    const name = baseLocal ? split.base : named;
    const adapter = baseLocal ? { adapter: { name: split.adapter!, path: findAdapter(split.adapter!, config.modelsDirs, true)! } } : {};
    if (/^(hf|huggingface):/.test(name)) return { kind: "hub", uri: name, ...adapter };
    const path = findGguf(name, config.modelsDirs, /\.gguf$/i.test(name) || name.includes("/"));
    if (path) return { kind: "local", path, ...adapter };
    return { kind: "http", model: name, baseUrl: p.baseUrl || config.chat.baseUrl };
  }
  const first = firstGguf(config.modelsDirs);
  if (first) {
    const adapter = defaultAdapter(first, config.modelsDirs, task);
    return { kind: "local", path: first, ...(adapter ? { adapter } : {}) };
  }
  return { kind: "none", reason: `no chat model is configured ($CITEFLOW_CHAT_MODEL) and no .gguf file is in the models folders (${config.modelsDirs.join(", ")}): run \`npm run models\`` };
}

/** A local model file's check against its folder's sums, in words: "" when verified (or `quiet` and unverified). */
function checked(path: string, whole: boolean, quiet: boolean): string {
  try {
    return verifyModelFile(path, whole) === "verified" || quiet ? "" : ` (unverified: no ${SUMS_FILE} beside it lists it)`;
  } catch (e) {
    if (e instanceof ModelIntegrityError) return ` (refused: ${e.message})`;
    throw e;
  }
}

const withAdapter = (a: LocalAdapter | undefined, quiet: boolean) => {
  if (!a) return "";
  const card = adapterCard(a.path);
  return ` with the LoRA adapter ${a.name}${card ? ` (trained by Citeflow; card: ${card})` : ""}${checked(a.path, true, quiet)}`;
};

/** A choice in words, for the demo and logs; a local file not verified by sums is said to be (`quietUnverified`: the user opted in). */
export function describeChat(c: ChatChoice, quietUnverified = false): string {
  switch (c.kind) {
    case "local":
      return `${basename(c.path)}${checked(c.path, false, quietUnverified)}${withAdapter(c.adapter, quietUnverified)}, running in this process (llama.cpp, CPU)`;
    case "hub":
      return `${c.uri} from the Hugging Face hub${withAdapter(c.adapter, quietUnverified)}, running in this process (llama.cpp, CPU)`;
    case "http":
      return `chat model ${c.model} at ${c.baseUrl ? withoutCredentials(c.baseUrl) : "the OpenAI API"}`;
    case "none":
      return `the extractive baseline, which is not a language model: ${c.reason}`;
  }
}

/** What a node of this type that renders one prompt for one chat model depends on: which model, and the prompt's content. */
export const chatAndPrompt = (task: string) => (p: Pick<LlmParams, "model" | "baseUrl"> & { prompt: string }, s: Services) => ({ llm: s.chatIdentity(p, task), prompt: s.promptIdentity(p.prompt) });

/**
 * The chat model a node's params select (`services.chat`), and when it is not loaded yet (an in-process model's first
 * use this session) the load is a phase of the node: its progress says so while it lasts, and a "load" span records
 * the model and how long it took (it shows in the node's model calls and timings).
 */
export async function chatFor(ctx: NodeContext, p: LlmParams, task: string): Promise<ChatModel | undefined> {
  const pending = ctx.services.chat(p, task);
  const settled = pending.then(
    () => true,
    () => true,
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const quick = await Promise.race([settled, new Promise<false>((r) => (timer = setTimeout(() => r(false), 50)))]);
  clearTimeout(timer);
  if (quick) return pending;
  const choice = ctx.services.chatChoice(p, task);
  const name = choice.kind === "local" ? basename(choice.path) + (choice.adapter ? ` + ${choice.adapter.name}` : "") : choice.kind === "hub" ? choice.uri : "the chat model";
  ctx.progress(0, undefined, `loading ${name} (its first use this session)`);
  return ctx.span("load", async (s) => {
    const t0 = performance.now();
    const chat = await pending;
    const ms = Math.round(performance.now() - t0) + 50;
    s.set("model", name);
    s.set("where", "in-process");
    s.set("loadMs", ms);
    // What the node shows next is true until its calls say more.
    ctx.progress(0, undefined, `${name} loaded in ${(ms / 1000).toFixed(1)} s`);
    return chat;
  });
}

/** Why a node's params select no chat model ("" when they select one), for its log and errors. */
export function noChatReason(services: Services, p: Pick<LlmParams, "model" | "baseUrl">, task: string): string {
  const c = services.chatChoice(p, task);
  return c.kind === "none" ? c.reason : "";
}

/** What a chat call waits for before its first piece of text, in words. */
export function waitingFor(chat: Pick<ChatModel, "baseURL">, messages: ChatMessage[]): string {
  if (chat.baseURL !== "in-process") return `waiting for the first token from ${chat.baseURL}`;
  const chars = messages.reduce((n, m) => n + m.content.length, 0);
  return `reading the prompt (${chars.toLocaleString("en-US")} characters) before the first token`;
}

/** What a call asks beyond the messages: a JSON schema, a grammar (with what it holds the answer to, in words: traced), or one of given answers. */
export type ChatConstraint = Pick<ChatOptions, "jsonSchema" | "grammar" | "choices"> & { held?: string };

/**
 * One chat call, traced as a `model` span: messages, response, usage, model and server (never
 * the key). Until the first piece of text, the node's progress says what it waits for (an in-process
 * model reading a long prompt takes seconds); then text streams into it (pieces so far, the text so
 * far), at most four times a second.
 */
export function callChat(ctx: NodeContext, chat: ChatModel, messages: ChatMessage[], p: LlmParams, name = "model", constraint: ChatConstraint = {}): Promise<ChatResult> {
  const { held, ...options } = constraint;
  return ctx.span(name, async (s) => {
    s.set("model", chat.id);
    s.set("baseURL", chat.baseURL);
    s.set("messages", messages);
    if (chat.constrains && options.jsonSchema) s.set("jsonSchema", options.jsonSchema);
    if (chat.constrains && options.grammar) s.set("grammar", held ?? options.grammar.gbnf);
    if (chat.constrains && options.choices) s.set("choices", options.choices);
    let last = 0;
    let chunks = 0;
    ctx.progress(0, p.maxTokens, waitingFor(chat, messages));
    const r = await chat.chat(messages, {
      temperature: p.temperature,
      maxTokens: p.maxTokens,
      ...(p.seed !== undefined ? { seed: p.seed } : {}),
      repeatPenalty: p.repeatPenalty,
      signal: ctx.signal,
      ...options,
      onText: (_chunk, soFar) => {
        chunks++;
        const now = Date.now();
        if (now - last < 250) return;
        last = now;
        ctx.progress(chunks, p.maxTokens, soFar);
      },
    });
    s.set("response", r.text);
    if (r.choiceLogprobs) s.set("choiceLogprobs", r.choiceLogprobs);
    if (r.usage) s.set("usage", r.usage);
    s.set("servedBy", r.model);
    if (r.finishReason) s.set("finishReason", r.finishReason);
    return r;
  });
}
